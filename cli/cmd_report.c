/* cmd_report.c - `loopscope report`: prints a loop profile.
 *
 * The input is a profile file or a bundle (analyzed on the fly).  Every
 * view reads the same aggregate view (formats/profile_view.h): the rows
 * summed over all threads or the threads of --thread.  Text views prune
 * loops below --min-percent (default 1); the machine-readable ones keep
 * everything unless --min-percent is given, since scripts filter
 * themselves.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/report.h"
#include "cli/term.h"
#include "formats/profile.h"
#include "ls_err.h"

static const char report_usage[] =
	"usage: loopscope report [--tree | --function=<name> | --functions | --folded |\n"
	"                         --parallel |\n"
	"                         --structural [--merge-threshold=<t>]]\n"
	"                        [--format=text|json|csv] [--min-percent=<p>]\n"
	"                        [--module=<name>] [--show-loader]\n"
	"                        [--thread=<tid>] [--buckets=<n>]\n"
	"                        [--color=auto|always|never] [FILE]\n"
	"   or: loopscope report --cpi [--no-skid-fix] [--format=text|json|csv]\n"
	"                        [--min-percent=<p>] [BUNDLE]\n"
	"\n"
	"Prints the loop profile FILE (a profile from 'loopscope analyze' or\n"
	"'merge', or a bundle, analyzed first; default loopscope.lsc). The\n"
	"default view is the flat profile: per loop, sorted by total\n"
	"instructions, its head address, function, file:line, iterations, self\n"
	"and total instructions with their % of the program, entries and the\n"
	"trip-count histogram.  The flat profile and --tree hide the loops of the\n"
	"dynamic loader (ld-linux*, ld.so), which run before main, and say in their\n"
	"header how many and how many instructions they ran.  Functions without a\n"
	"symbol are named by their entry, module+0xADDR (ADDR as nm prints it);\n"
	"with DEBUGINFOD_URLS set, debug files are fetched by build-id.\n"
	"\n"
	"    --tree               the loop call graph as an indented tree\n"
	"    --function=<name>    the function's loop heads (ID), back branches (B)\n"
	"                         and call sites (C) in address order\n"
	"    --functions          function-level versus loop-level instruction shares\n"
	"    --folded             folded stacks of the loop nesting (flame graphs)\n"
	"    --parallel           the loops' parallelization verdicts (a profile from\n"
	"                         'analyze --deps'), parallelizable first, by share\n"
	"    --structural         the natural loops of the executed CFG beside the\n"
	"                         detected ones, and irreducible regions (a profile\n"
	"                         from 'analyze --structural', or one with the\n"
	"                         graph of 'analyze --cfg', also merged, or a bundle)\n"
	"    --merge-threshold=<t>  OptiWISE's rule for back edges sharing a header\n"
	"                         (1 to 1e9, default 3, or the profile's): nested\n"
	"                         if t times the outer's count\n"
	"    --format=text|json|csv  flat profile format (default text)\n"
	"    --min-percent=<p>    leave out loops below p% of the instructions\n"
	"                         (0 to 100; default 1 for text, 0 for json, csv\n"
	"                         and --folded)\n"
	"    --thread=<tid>       only the threads with this tid\n"
	"    --module=<name>      only the loops and functions of this module: its\n"
	"                         path, file name, or file name up to a '.' (libc)\n"
	"    --show-loader        show the dynamic loader's loops (flat, --tree)\n"
	"    --buckets=<n>        trip-count rows per loop (0 to 2^30, default 10;\n"
	"                         0: one per trip count)\n"
	"    --cpi                time share, cost per instruction (CPI, or ns with\n"
	"                         cpu-clock) and IPC, self and total, per loop and\n"
	"                         function, from the samples of a bundle recorded\n"
	"                         with 'record --sample', or of its profile from\n"
	"                         'analyze --cpi' (no decode; the same bytes);\n"
	"                         total: while the loop or function is on the\n"
	"                         call stack, followed in the trace\n"
	"    --no-skid-fix        with --cpi: charge samples where they landed, not to\n"
	"                         the instruction executed before them (of a\n"
	"                         profile: one from 'analyze --cpi --no-skid-fix')\n"
	"    --debug-dir=<dir>    for a bundle: executables it only references\n"
	"    --color=<when>       colour the flat, --tree and --functions views:\n"
	"                         headers bold, loop labels cyan, shares of >= 10%\n"
	"                         magenta; auto (default: when stdout is a terminal\n"
	"                         and NO_COLOR is unset or empty), always or never;\n"
	"                         as 'loopscope --color' before the command\n"
	"    -h, --help           show this help\n";

enum { OPT_TREE = 256, OPT_FUNCTION, OPT_FUNCTIONS, OPT_FOLDED, OPT_FORMAT,
       OPT_MIN, OPT_THREAD, OPT_BUCKETS, OPT_DEBUG_DIR, OPT_STRUCTURAL, OPT_MERGE_T,
       OPT_CPI, OPT_NOSKID, OPT_MODULE, OPT_SHOW_LOADER, OPT_PARALLEL,
       OPT_COLOR };

static const struct option report_options[] = {
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "functions", no_argument, NULL, OPT_FUNCTIONS },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "parallel", no_argument, NULL, OPT_PARALLEL },
	{ "structural", no_argument, NULL, OPT_STRUCTURAL },
	{ "merge-threshold", required_argument, NULL, OPT_MERGE_T },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-percent", required_argument, NULL, OPT_MIN },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "buckets", required_argument, NULL, OPT_BUCKETS },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "cpi", no_argument, NULL, OPT_CPI },
	{ "no-skid-fix", no_argument, NULL, OPT_NOSKID },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "show-loader", no_argument, NULL, OPT_SHOW_LOADER },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum view { V_FLAT, V_TREE, V_FUNCTION, V_FUNCTIONS, V_FOLDED, V_JSON, V_CSV, V_PARALLEL };

/* Parses a percentage in [0, 100]; 0 or -1 after a message. */
int report_parse_pct(const char *s, double *out)
{
	return cli_opt_double("--min-percent", s, 0.0, 100.0, out);
}

int cmd_report(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *func = NULL, *debug_dir = NULL;
	struct report_opts o = { .min_pct = -1.0, .buckets = 10 };
	enum view view = V_FLAT;
	int c, nviews = 0, err, status = 0, structural = 0, cpi = 0, noskid = 0;
	int show_loader = 0;
	double merge_t = 0;	/* the profile's, else 3 */
	int64_t tid = LSP_VIEW_ALL;
	struct lsp_profile *p = NULL;
	struct lsp_view *v = NULL;
	uint64_t u;

	while ((c = getopt_long(argc, argv, "h", report_options, NULL)) != -1) {
		switch (c) {
		case OPT_TREE: view = V_TREE; nviews++; break;
		case OPT_FUNCTION: view = V_FUNCTION; func = optarg; nviews++; break;
		case OPT_FUNCTIONS: view = V_FUNCTIONS; nviews++; break;
		case OPT_FOLDED: view = V_FOLDED; nviews++; break;
		case OPT_PARALLEL: view = V_PARALLEL; nviews++; break;
		case OPT_COLOR: {
			int mode;

			if (cli_color_parse(optarg, &mode)) {
				cli_error("--color wants auto, always or never, not '%s'", optarg);
				return cli_usage(report_usage, 1);
			}
			cli_color_set(mode);
			break;
		}
		case OPT_STRUCTURAL: structural = 1; nviews++; break;
		case OPT_MERGE_T:
			if (cli_opt_double("--merge-threshold", optarg, 1.0, 1e9, &merge_t) < 0)
				return cli_usage(report_usage, 1);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json")) {
				view = V_JSON;
			} else if (!strcmp(optarg, "csv")) {
				view = V_CSV;
			} else if (strcmp(optarg, "text")) {
				cli_error("unknown format '%s' (text, json or csv)", optarg);
				return cli_usage(report_usage, 1);
			}
			nviews += strcmp(optarg, "text") != 0;
			break;
		case OPT_MIN:
			if (report_parse_pct(optarg, &o.min_pct) < 0)
				return cli_usage(report_usage, 1);
			break;
		case OPT_THREAD:
			if (cli_opt_u64("--thread", optarg, 10, 0, UINT32_MAX - 1, &u) < 0)
				return cli_usage(report_usage, 1);
			tid = (int64_t)u;
			break;
		case OPT_BUCKETS:
			if (cli_opt_u64("--buckets", optarg, 10, 0, 1u << 30, &u) < 0)
				return cli_usage(report_usage, 1);
			o.buckets = (size_t)u;
			break;
		case OPT_DEBUG_DIR: debug_dir = optarg; break;
		case OPT_CPI: cpi = 1; break;
		case OPT_NOSKID: noskid = 1; break;
		case OPT_MODULE:
			if (!*optarg) {
				cli_error("option '--module' wants a module name");
				return cli_usage(report_usage, 1);
			}
			o.module = optarg;
			break;
		case OPT_SHOW_LOADER: show_loader = 1; break;
		case 'h': return cli_usage(report_usage, 0);
		default: return cli_usage(report_usage, 1);
		}
	}
	if (structural && (view == V_JSON || view == V_FLAT))
		nviews -= view == V_JSON;	/* --structural --format=json is one view */
	if (nviews > 1) {
		cli_error("--tree, --function, --functions, --folded, --parallel and --format=json|csv "
			  "are different views: pick one");
		return cli_usage(report_usage, 1);
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error("one input file only; to report several runs, 'loopscope merge' them");
		return cli_usage(report_usage, 1);
	}
	if (o.min_pct < 0)
		o.min_pct = view == V_JSON || view == V_CSV || view == V_FOLDED ? 0.0 : 1.0;
	o.source = file;
	if (o.module && (structural || cpi)) {
		cli_error("--module goes with the views of a profile, not with --%s",
			  structural ? "structural" : "cpi");
		return cli_usage(report_usage, 1);
	}
	if (show_loader && (structural || cpi || (view != V_FLAT && view != V_TREE))) {
		cli_error("--show-loader goes with the flat profile and --tree, which hide "
			  "the loader's loops");
		return cli_usage(report_usage, 1);
	}
	o.hide_loader = !show_loader && (view == V_FLAT || view == V_TREE);
	if (structural && cpi) {
		cli_error("--structural and --cpi are different views: pick one");
		return cli_usage(report_usage, 1);
	}
	if (structural) {
		struct report_struct_opts so = { o.min_pct, merge_t, view == V_JSON, file };

		return report_structural(stdout, file, debug_dir, &so) < 0;
	}
	if (noskid && !cpi) {
		cli_error("--no-skid-fix goes with --cpi");
		return cli_usage(report_usage, 1);
	}
	if (cpi) {
		if (view != V_FLAT && view != V_JSON && view != V_CSV) {
			cli_error("--cpi is a view of its own: with --format=text|json|csv only");
			return cli_usage(report_usage, 1);
		}
		if (tid != LSP_VIEW_ALL) {
			cli_error("--cpi covers every thread: --thread is not supported with it");
			return cli_usage(report_usage, 1);
		}
		/* main() checks the writes to stdout. */
		return report_cpi(stdout, file, debug_dir,
				  view == V_JSON ? REPORT_CPI_JSON :
				  view == V_CSV ? REPORT_CPI_CSV : REPORT_CPI_TEXT,
				  noskid, o.min_pct) < 0;
	}
	if (cli_load_profile(file, debug_dir, &p))
		return 1;
	if (o.module && !report_module_known(p, o.module)) {
		cli_error("no module '%s' in '%s' (see its modules with --functions "
			  "or --format=csv)", o.module, file);
		lsp_free(p);
		return 1;
	}
	err = lsp_view_new(&v, p, tid);
	if (err == -LS_ENOENT) {
		cli_error("no thread with tid %" PRId64 " in '%s'", tid, file);
		lsp_free(p);
		return 1;
	}
	if (err < 0) {
		cli_error("cannot report '%s': %s", file, ls_errstr(err));
		lsp_free(p);
		return 1;
	}
	switch (view) {
	case V_FLAT: err = report_flat(stdout, v, &o); break;
	case V_TREE: err = report_tree(stdout, v, &o); break;
	case V_FUNCTION: err = report_function(stdout, v, func, &o); break;
	case V_FUNCTIONS: err = report_functions(stdout, v, &o); break;
	case V_FOLDED: err = report_folded(stdout, v, &o); break;
	case V_JSON: err = report_json(stdout, v, &o); break;
	case V_CSV: err = report_csv(stdout, v, &o); break;
	case V_PARALLEL: err = report_parallel(stdout, v, &o); break;
	}
	if (err == -LS_ENOENT) {
		if (o.module)
			cli_error("no function '%s' in module '%s' of '%s'", func, o.module,
				  file);
		else
			cli_error("no function '%s' in '%s'", func, file);
		status = 1;
	} else if (err < 0) {
		cli_error("cannot report '%s': %s", file, ls_errstr(err));
		status = 1;
	}
	lsp_view_free(v);
	lsp_free(p);
	return status;
}
