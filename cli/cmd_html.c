/* cmd_html.c - `loopscope html`: the loop profile as one self-contained
 * HTML file (cli/html.h).  From a bundle, or a profile of `analyze
 * --cpi`, the page also gets each loop's source lines with their
 * executions, and their sampled cost where the bundle has samples. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/html.h"
#include "cli/term.h"
#include "formats/profile.h"
#include "ls_err.h"
#include "ls_out.h"

static const char html_usage[] =
	"usage: loopscope html [-o <report.html>] [--deps] [--debug-dir=<dir>] [FILE]\n"
	"\n"
	"Writes the loop profile of FILE (a bundle, default loopscope.lsc, or a\n"
	"profile from 'loopscope analyze') as one HTML file with no outside\n"
	"references: the sortable flat loop table with trip-count histograms,\n"
	"the collapsible loop tree, functions versus loops, the loop call graph\n"
	"(SVG) and per loop its details; from a bundle, or a profile made with\n"
	"'analyze --cpi', also its source lines with their executions, and their\n"
	"cost and cost per instruction when the bundle has samples ('record\n"
	"--sample').  A profile made with 'analyze\n"
	"--deps' (or a bundle with --deps) adds each loop's parallelization\n"
	"verdict: a sortable column of the flat table, and on the loop's card\n"
	"the verdict with its deciding dependences.  report.html#loop-N opens\n"
	"loop N's card and marks its row.\n"
	"\n"
	"    -o, --output=<f>     the file to write (default report.html)\n"
	"    --deps               for a bundle recorded with 'record --mem': find the\n"
	"                         loop-carried dependences and verdicts (as\n"
	"                         'analyze --deps') and show them\n"
	"    --debug-dir=<dir>    for a bundle: executables it only references\n"
	"    -q, --quiet          no progress, no summary\n"
	"    -h, --help           show this help\n";

enum { OPT_DEBUG_DIR = 256, OPT_DEPS };

static const struct option html_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "deps", no_argument, NULL, OPT_DEPS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Writes the page of p (and hl) to out_path through a temporary file, so
 * a failed write leaves no half report.  Returns 0 or 1 after a message. */
static int write_page(const char *out_path, const struct lsp_profile *p,
		      const struct html_lines *hl, const char *file)
{
	struct lsp_view *v = NULL;
	struct ls_out o;
	int err, status;

	if ((err = lsp_view_new(&v, p, LSP_VIEW_ALL)) < 0) {
		cli_error("cannot report '%s': %s", file, ls_errstr(err));
		return 1;
	}
	status = cli_out_open(&o, out_path) ||
		 cli_out_finish(&o, html_write(o.f, v, hl, file));
	lsp_view_free(v);
	return status;
}

int cmd_html(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *out_path = "report.html", *debug_dir = NULL;
	struct html_lines hl;
	struct lsp_profile *p = NULL;
	int ch, quiet = 0, deps = 0, r, status;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "ho:q", html_options, NULL)) != -1) {
		switch (ch) {
		case 'o': out_path = optarg; break;
		case OPT_DEBUG_DIR: debug_dir = optarg; break;
		case OPT_DEPS: deps = 1; break;
		case 'q': quiet = 1; cli_progress_quiet(); break;
		case 'h': return cli_usage(html_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(html_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error("one input file only; to report several runs, 'loopscope merge' them");
		return cli_usage(html_usage, 1);
	}
	r = lsp_is_profile(file);
	if (r == 1 && deps) {
		cli_error("'%s' is a profile: --deps needs the bundle (recorded with "
			  "'record --mem'), or a profile made with 'analyze --deps'", file);
		return 1;
	}
	if (r == 0) {
		/* a bundle: analyzed as 'analyze --cpi' does, for the lines */
		struct cli_analyses ca = { .cpi = 1, .deps = deps };

		if (cli_analyze_bundle_with(file, debug_dir, &ca, &p) < 0)
			return 1;
	} else if (cli_load_profile(file, debug_dir, &p)) {
		/* a profile, or a file that cannot be read: the loader says why */
		return 1;
	}
	if ((r = html_lines_new(&hl, p)) < 0) {
		cli_error("cannot gather the source lines of '%s': %s", file, ls_errstr(r));
		lsp_free(p);
		return 1;
	}
	status = write_page(out_path, p, p->has_cpi ? &hl : NULL, file);
	html_lines_free(&hl);
	lsp_free(p);
	if (!status && !quiet)
		fprintf(stderr, "loopscope: wrote the HTML report '%s'\n", out_path);
	return status;
}
