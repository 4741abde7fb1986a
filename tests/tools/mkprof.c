/* mkprof - writes the hand-built profile of mkprof.h to a file, for the
 * report tests: their expected numbers are the ones documented there.
 * usage: mkprof OUT.lsprof */
#include <stdio.h>

#include "formats/profile.h"
#include "ls_err.h"
#include "tests/tools/mkprof.h"

int main(int argc, char **argv)
{
	struct lsp_profile *p = NULL;
	char msg[256];
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: mkprof OUT.lsprof\n");
		return 2;
	}
	if ((err = mkprof_build(&p)) < 0) {
		fprintf(stderr, "mkprof: cannot build the profile: %s\n", ls_errstr(err));
		return 1;
	}
	err = lsp_write(p, argv[1], msg, sizeof(msg));
	lsp_free(p);
	if (err < 0) {
		fprintf(stderr, "mkprof: %s\n", msg);
		return 1;
	}
	return 0;
}
