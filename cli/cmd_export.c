/* cmd_export.c - `loopscope export`: the edge profile of a bundle as
 * BOLT fdata, AutoFDO text, or JSON/CSV (analysis/export.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cgraph.h"
#include "analysis/export.h"
#include "cli.h"
#include "cli/cfg_util.h"
#include "cli/export_views.h"
#include "formats/profile.h"
#include "ls_err.h"
#include "ls_out.h"

static const char export_usage[] =
	"usage: loopscope export (--bolt | --autofdo | --edges | --callgrind |\n"
	"                         --speedscope) [<options>] [<file>]\n"
	"\n"
	"    <file>             a bundle; for --bolt, --autofdo and --edges also a\n"
	"                       profile of 'analyze --cfg' (read without decoding;\n"
	"                       the same output)\n"
	"    --bolt             BOLT fdata (llvm-bolt --data=...)\n"
	"    --autofdo          AutoFDO text (create_llvm_prof --profiler=text)\n"
	"    --edges            every edge of the executed CFG\n"
	"    --callgrind        callgrind format (KCachegrind, callgrind_annotate):\n"
	"                       executions per instruction and line, calls, and the\n"
	"                       loops' back branches (jcnd=) and iterations (Li)\n"
	"                       (<file> may also be a profile of 'analyze --cpi',\n"
	"                       read without decoding; the same output)\n"
	"    --speedscope       speedscope's JSON file format: a flame graph of the\n"
	"                       loop nesting weighted by instructions (<file> may\n"
	"                       also be a profile)\n"
	"    --format=<f>       for --edges: json (default) or csv\n"
	"    --module=<name>    module for --bolt/--autofdo (path or file name;\n"
	"                       default: the recorded program, else the module\n"
	"                       that executed most instructions)\n"
	"    -o, --output=<f>   write to <f> instead of stdout\n"
	"    --debug-dir=<d>    look for executables the bundle only references\n"
	"    -h, --help         show this help\n";

enum { OPT_BOLT = 256, OPT_AUTOFDO, OPT_EDGES, OPT_FORMAT, OPT_MODULE, OPT_DEBUG_DIR,
       OPT_CALLGRIND, OPT_SPEEDSCOPE };

static const struct option export_options[] = {
	{ "bolt", no_argument, NULL, OPT_BOLT },
	{ "autofdo", no_argument, NULL, OPT_AUTOFDO },
	{ "edges", no_argument, NULL, OPT_EDGES },
	{ "callgrind", no_argument, NULL, OPT_CALLGRIND },
	{ "speedscope", no_argument, NULL, OPT_SPEEDSCOPE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "output", required_argument, NULL, 'o' },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The module of g's profile named name (its path or file name), or -1. */
static int find_module(const struct cli_graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->p->n_modules; i++)
		if (lsa_cgraph_path_match(g->p->modules[i].path, name))
			return (int)i;
	return -1;
}

/* The recorded program (analysis/cgraph.h), else the module that ran the
 * most instructions. */
static int main_module(const struct cli_graph *g)
{
	return g->p->cg_program != LSP_NONE ? (int)g->p->cg_program
					    : lsa_export_main_module(g->cfg);
}

int cmd_export(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *debug_dir = NULL, *out_path = NULL;
	const char *module = NULL;
	int c, what = 0, csv = 0, mod, status;
	struct cli_graph g;
	struct ls_out o;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", export_options, NULL)) != -1) {
		switch (c) {
		case OPT_BOLT:
		case OPT_AUTOFDO:
		case OPT_EDGES:
		case OPT_CALLGRIND:
		case OPT_SPEEDSCOPE:
			if (what && what != c) {
				cli_error("--bolt, --autofdo, --edges, --callgrind and --speedscope "
					  "exclude each other");
				return cli_usage(export_usage, 1);
			}
			what = c;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csv"))
				csv = 1;
			else if (strcmp(optarg, "json")) {
				cli_error("unknown format '%s'; use json or csv", optarg);
				return cli_usage(export_usage, 1);
			}
			break;
		case OPT_MODULE:
			module = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_DEBUG_DIR:
			debug_dir = optarg;
			break;
		case 'h':
			return cli_usage(export_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(export_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc || !what) {
		cli_error(what ? "too many arguments" : "say what to export: --bolt, --autofdo, "
			  "--edges, --callgrind or --speedscope");
		return cli_usage(export_usage, 1);
	}
	if (what == OPT_CALLGRIND || what == OPT_SPEEDSCOPE)
		return export_view(what == OPT_CALLGRIND, file, debug_dir, out_path);
	if (cli_graph_open(&g, file, debug_dir))
		return 1;
	mod = module ? find_module(&g, module) : main_module(&g);
	if (what != OPT_EDGES && mod < 0) {
		if (module)
			cli_error("no module '%s' in '%s'", module, file);
		else
			cli_error("'%s' executed no code of any module", file);
		cli_graph_close(&g);
		return 1;
	}
	status = cli_out_open(&o, out_path) ||
		 cli_out_finish(&o, what == OPT_BOLT ? lsa_export_bolt(o.f, g.cfg, mod) :
				what == OPT_AUTOFDO ? lsa_export_autofdo(o.f, g.cfg, mod) :
				lsa_export_edges(o.f, g.cfg, g.p, csv));
	cli_graph_close(&g);
	return status;
}
