/* export_view.c - `export --callgrind` and `export --speedscope`: the
 * exports made from the loop profile and the executed instructions,
 * where the others of `export` need only the edge profile. */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "cli/cpi_util.h"
#include "cli/export_views.h"
#include "cli/report.h"
#include "formats/profile.h"
#include "ls_err.h"
#include "ls_out.h"

int export_view(int callgrind, const char *file, const char *debug_dir,
		const char *out_path)
{
	struct lsp_profile *p = NULL;
	struct lsp_view *v = NULL;
	struct cli_cpi c;
	struct ls_out o;
	int err, status;

	if (callgrind) {
		if (cli_cpi_open(&c, file, debug_dir, 0, 1, 0))
			return 1;
	} else {
		if (cli_load_profile(file, debug_dir, &p))
			return 1;
		if ((err = lsp_view_new(&v, p, LSP_VIEW_ALL)) < 0) {
			cli_error("cannot export '%s': %s", file, ls_errstr(err));
			lsp_free(p);
			return 1;
		}
	}
	status = cli_out_open(&o, out_path) ||
		 cli_out_finish(&o, callgrind ?
				export_callgrind(o.f, &c, lsb_reader_meta(c.cc.r, "cmdline")) :
				export_speedscope(o.f, v, report_base(file)));
	if (callgrind)
		cli_cpi_close(&c);
	lsp_view_free(v);
	lsp_free(p);
	return status;
}
