/* cfg_util.c - a bundle decoded into its executed CFG, for commands. */
#include <string.h>

#include "cli.h"
#include "analysis/cgraph.h"
#include "cli/cfg_util.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/profile.h"
#include "ls_err.h"

int cli_cfg_open(struct cli_cfg *cc, const char *file, const char *debug_dir)
{
	return cli_cfg_open_obs(cc, file, debug_dir, NULL);
}

int cli_cfg_open_obs(struct cli_cfg *cc, const char *file, const char *debug_dir,
		     const struct lsa_cfg_observer *obs)
{
	struct lsd_opts o = { .size = sizeof(o), .debug_dir = debug_dir };
	struct lsa_cfg_opts co = { .size = sizeof(co), .obs = obs,
				   .jobs = cli_online_cpus() };
	char msg[512] = "";
	int err;

	memset(cc, 0, sizeof(*cc));
	if (cli_open_bundle(file, &cc->r))
		return -1;
	err = lsd_open_msg(&cc->d, cc->r, &o, msg, sizeof(msg));
	if (err < 0) {
		cli_error("cannot decode '%s': %s", file, msg[0] ? msg : ls_errstr(err));
		cli_cfg_close(cc);
		return -1;
	}
	cli_warn_missing_code(cc->r, debug_dir);
	/* (NULL: functions then come from call targets; closed before d) */
	cc->sym = cli_symbols_open(cc->r, cc->d, debug_dir);
	/* Code bytes find the targets of branches never taken. */
	if (lsd_image_build_dir(&cc->img, cc->r, 0, LSB_RUN_TRACE, debug_dir) >= 0) {
		cc->have_img = 1;
		co.img = &cc->img;
	}
	if ((err = lsa_cfg_new(&cc->cfg, cc->sym, &co)) < 0 ||
	    (err = lsa_cfg_build(cc->cfg, cc->d)) < 0) {
		cli_error("cannot build the control-flow graph of '%s': %s", file,
			  ls_errstr(err));
		cli_cfg_close(cc);
		return -1;
	}
	return 0;
}

void cli_cfg_close(struct cli_cfg *cc)
{
	lsa_cfg_free(cc->cfg);
	if (cc->have_img)
		lsd_image_release(&cc->img);
	lsd_symbols_close(cc->sym);
	lsd_close(cc->d);
	lsb_reader_close(cc->r);
	memset(cc, 0, sizeof(*cc));
}

/* The bundle's graph records, as analyze --cfg writes them (sorted). */
static int bundle_graph(struct cli_graph *g, const char *file, const char *debug_dir)
{
	struct cli_cfg cc;
	int err;

	if (cli_cfg_open(&cc, file, debug_dir))
		return -1;
	if ((err = lsp_new(&g->p, 0)) < 0 || (err = lsa_cgraph_put(cc.cfg, cc.r, cc.sym, g->p)) < 0 ||
	    (err = lsp_sort(g->p)) < 0)
		cli_error("cannot build the control-flow graph of '%s': %s", file,
			  ls_errstr(err));
	cli_cfg_close(&cc);
	return err < 0 ? -1 : 0;
}

int cli_graph_open(struct cli_graph *g, const char *file, const char *debug_dir)
{
	char msg[512] = "";
	int r = lsp_is_profile(file);

	memset(g, 0, sizeof(*g));
	if (r == 1) {
		if ((r = lsp_read(&g->p, file, msg, sizeof(msg))) < 0) {
			cli_error("%s", msg[0] ? msg : ls_errstr(r));
			return -1;
		}
		if (!g->p->has_cgraph) {
			cli_error("'%s' has no control-flow graph: run 'loopscope analyze --cfg' "
				  "on its bundle (or give the bundle)", file);
			cli_graph_close(g);
			return -1;
		}
	} else if (bundle_graph(g, file, debug_dir)) {
		cli_graph_close(g);
		return -1;
	}
	if ((r = lsa_cgraph_cfg(&g->cfg, g->p)) < 0) {
		cli_error("cannot read the control-flow graph of '%s': %s", file, ls_errstr(r));
		cli_graph_close(g);
		return -1;
	}
	return 0;
}

void cli_graph_close(struct cli_graph *g)
{
	lsa_cfg_free(g->cfg);
	lsp_free(g->p);
	memset(g, 0, sizeof(*g));
}
