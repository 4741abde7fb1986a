/* profile_util.c - how report, graph and merge get their profile: a
 * profile file is read, anything else is taken for a bundle and
 * analyzed, so `loopscope report run.lsc` works without a separate
 * analyze step. */
#include <string.h>

#include "cli.h"
#include "formats/profile.h"
#include "ls_err.h"

int cli_load_profile(const char *path, const char *debug_dir,
		     struct lsp_profile **out)
{
	char msg[512] = "";
	int r = lsp_is_profile(path);

	if (r == -LS_ENOENT) {
		cli_error("cannot open '%s': no such file; run 'loopscope record' "
			  "(and 'loopscope analyze') first", path);
		return -1;
	}
	if (r < 0) {
		cli_error("cannot read '%s': %s", path, ls_errstr(r));
		return -1;
	}
	if (r == 0)
		return cli_analyze_bundle(path, debug_dir, out) < 0 ? -1 : 0;
	r = lsp_read(out, path, msg, sizeof(msg));
	if (r < 0) {
		cli_error("%s", msg[0] ? msg : ls_errstr(r));
		return -1;
	}
	return 0;
}
