/* analyze_tmp.c - stands in for cli_analyze_bundle() until cmd_analyze.c
 * (the lead's) is merged, so the prof branch links.  Delete on merge. */
#include "cli.h"
#include "ls_err.h"

int cli_analyze_bundle(const char *path, const char *debug_dir,
		       struct lsp_profile **out)
{
	(void)debug_dir;
	(void)out;
	cli_error("cannot analyze '%s': the loop analyzer is not in this build yet",
		  path);
	return -LS_EUNSUP;
}
