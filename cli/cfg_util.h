/* cfg_util.h - what `probes`, `export`, `deps`, CPI (and test tools)
 * share: a bundle decoded into an executed CFG (analysis/cfg.h); and the
 * graph of the views that read a profile (cli_graph_open). */
#ifndef LS_CLI_CFG_UTIL_H
#define LS_CLI_CFG_UTIL_H

#include "analysis/cfg.h"
#include "decoder/image.h"
#include "formats/bundle.h"

struct cli_cfg {
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym;
	struct lsd_image img;
	int have_img;
	struct lsa_cfg *cfg;
};

/* Opens file and builds its CFG.  Returns 0, or -1 after printing the
 * error. */
int cli_cfg_open(struct cli_cfg *cc, const char *file, const char *debug_dir);
/* The same with obs (may be NULL) following the graph's walk. */
int cli_cfg_open_obs(struct cli_cfg *cc, const char *file, const char *debug_dir,
		     const struct lsa_cfg_observer *obs);
void cli_cfg_close(struct cli_cfg *cc);

struct lsp_profile;

/* The executed CFG as `probes` and the edge exports read it: the graph
 * records of a profile (analyze --cfg), or of a bundle built as analyze
 * --cfg builds them, read back (analysis/cgraph.h), so both print the
 * same bytes.  p names the modules (p->modules, p->cg_program). */
struct cli_graph {
	struct lsp_profile *p;
	struct lsa_cfg *cfg;
};

/* Opens file, a profile or a bundle.  Returns 0, or -1 after printing the
 * error (a profile without the graph gets the 'analyze --cfg' hint). */
int cli_graph_open(struct cli_graph *g, const char *file, const char *debug_dir);
void cli_graph_close(struct cli_graph *g);

#endif
