/* cmd_merge.c - `loopscope merge`: one profile of many runs.
 *
 * Code is keyed by build-id and offset, so runs with other load
 * addresses, other inputs or other machines merge; each input's threads
 * keep their run number (shifted), so `report --thread` still tells
 * them apart.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "formats/profile.h"
#include "ls_err.h"

static const char merge_usage[] =
	"usage: loopscope merge -o <out> [--debug-dir=<dir>] FILE...\n"
	"\n"
	"Merges the loop profiles (or bundles, analyzed first) FILE... into the\n"
	"profile <out>: counts add up, loops and functions are matched by module\n"
	"build-id and offset. Every input needs the same trip limit.\n"
	"\n"
	"    -o, --output=<out>   the merged profile (required)\n"
	"    --debug-dir=<dir>    for bundles: executables they only reference\n"
	"    -h, --help           show this help\n";

enum { OPT_DEBUG_DIR = 256 };

static const struct option merge_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *debug_dir = NULL;
	struct lsp_profile *all = NULL, *p;
	char msg[512];
	int c, i, err;

	while ((c = getopt_long(argc, argv, "ho:", merge_options, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_DEBUG_DIR: debug_dir = optarg; break;
		case 'h': return cli_usage(merge_usage, 0);
		default: return cli_usage(merge_usage, 1);
		}
	}
	if (!out) {
		cli_error("merge needs the output file: -o <out>");
		return cli_usage(merge_usage, 1);
	}
	if (optind >= argc) {
		cli_error("nothing to merge");
		return cli_usage(merge_usage, 1);
	}
	for (i = optind; i < argc; i++) {
		if (cli_load_profile(argv[i], debug_dir, &p)) {
			lsp_free(all);
			return 1;
		}
		if (!all) {
			all = p;
			continue;
		}
		if (p->trip_limit != all->trip_limit) {
			cli_error("cannot merge '%s': its trip limit is %u, that of '%s' %u",
				  argv[i], p->trip_limit, argv[optind], all->trip_limit);
			lsp_free(p);
			lsp_free(all);
			return 1;
		}
		err = lsp_merge(all, p);
		lsp_free(p);
		if (err < 0) {
			cli_error("cannot merge '%s': %s", argv[i], ls_errstr(err));
			lsp_free(all);
			return 1;
		}
	}
	err = lsp_write(all, out, msg, sizeof(msg));
	lsp_free(all);
	if (err < 0) {
		cli_error("%s", msg);
		return 1;
	}
	return 0;
}
