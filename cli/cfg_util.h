/* cfg_util.h - what `probes` and `export` (and test tools) share: a
 * bundle decoded into an executed CFG (analysis/cfg.h). */
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
void cli_cfg_close(struct cli_cfg *cc);

#endif
