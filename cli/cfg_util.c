/* cfg_util.c - a bundle decoded into its executed CFG, for commands. */
#include <string.h>

#include "cli.h"
#include "cli/cfg_util.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "ls_err.h"

int cli_cfg_open(struct cli_cfg *cc, const char *file, const char *debug_dir)
{
	struct lsd_opts o = { .size = sizeof(o), .debug_dir = debug_dir };
	struct lsa_cfg_opts co = { .size = sizeof(co) };
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
	if (lsd_symbols_open(&cc->sym, cc->r, debug_dir) < 0)
		cc->sym = NULL;	/* functions then come from call targets */
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
