/* export_view.c - `export --callgrind` and `export --speedscope`: the
 * exports made from the loop profile and its sampled-CPI records, where
 * the others of `export` need only the edge profile.  Both read a
 * profile; given a bundle, they analyze it first as `analyze` (--cpi for
 * callgrind) does, in one decode, so both print the same bytes. */
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
	struct ls_out o;
	int err, status;

	if (callgrind) {
		/* it prints executions, not samples: either skid rule, and
		 * a bundle without samples is fine */
		if (cli_cpi_load(file, debug_dir, -1, 0, 1, &p))
			return 1;
		if (!p->cpi.calls) {
			cli_error("'%s' has no call records (profile version 6): run "
				  "'loopscope analyze --cpi' on its bundle again, or give "
				  "the bundle", file);
			lsp_free(p);
			return 1;
		}
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
		 cli_out_finish(&o, callgrind ? export_callgrind(o.f, p) :
				export_speedscope(o.f, v, report_base(file)));
	lsp_view_free(v);
	lsp_free(p);
	return status;
}
