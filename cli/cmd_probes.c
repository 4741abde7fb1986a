/* cmd_probes.c - `loopscope probes`: Knuth's minimal set of edges to
 * count per function (the complement of a maximum-weight spanning tree of
 * its executed CFG), with every edge count reconstructed from the probes'
 * counts and compared with the counts the trace gives; and the flow
 * conservation check of the graph.  With --plan, Eichenberger and Lobo's
 * probe plans priced on the run (cli/probes_plan.c). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/knuth.h"
#include "cli.h"
#include "cli/cfg_util.h"
#include "cli/probes_plan.h"
#include "formats/profile.h"
#include "ls_err.h"

static const char probes_usage[] =
	"usage: loopscope probes [<options>] [<file>]\n"
	"   or: loopscope probes --plan [<plan-options>] [<options>] [<bundle>]\n"
	"\n"
	"    <file>           a bundle, or a profile of 'analyze --cfg' (read\n"
	"                     without decoding; the same output)\n"
	"    --debug-dir=<d>  look for executables the bundle only references\n"
	"    --quiet          print only the per-function and total lines\n"
	"                     (with --plan: only the program's table)\n"
	"    -h, --help       show this help\n"
	"\n"
	"    --plan           the edge-profiling plans of Eichenberger and Lobo:\n"
	"                     spanning trees under unit, guess, modified and exact\n"
	"                     weights; probes along, before or after the edge,\n"
	"                     plain or software-pipelined; their cost on this run\n"
	"                     (of a bundle: the costs need the code)\n"
	"    --format=<f>     text (default), json or csv\n"
	"    --function=<n>   only function n, with its edges and every plan\n"
	"    --probe-latency=<c>   cycles of address, load, add, store (5)\n"
	"    --update-latency=<c>  cycles of the after-edge update (4)\n"
	"    --swp-latency=<c>     cycles of a software-pipelined probe (2)\n"
	"    --issue-width=<n>     instructions per cycle for block lengths (8)\n";

enum { OPT_DEBUG_DIR = 256, OPT_QUIET, OPT_PLAN, OPT_FORMAT, OPT_FUNCTION,
       OPT_PROBE_LAT, OPT_UPDATE_LAT, OPT_SWP_LAT, OPT_WIDTH };

static const struct option probes_options[] = {
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "probe-latency", required_argument, NULL, OPT_PROBE_LAT },
	{ "update-latency", required_argument, NULL, OPT_UPDATE_LAT },
	{ "swp-latency", required_argument, NULL, OPT_SWP_LAT },
	{ "issue-width", required_argument, NULL, OPT_WIDTH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Code no symbol names: "file+0xoff" of its module (graphs read from a
 * profile have no runtime addresses). */
static void code_name(char *buf, size_t len, const struct lsp_profile *p, int32_t m,
		      uint64_t off)
{
	const char *path = m >= 0 && (size_t)m < p->n_modules ? p->modules[m].path : NULL;
	const char *base = path ? strrchr(path, '/') : NULL;

	snprintf(buf, len, "%s+0x%" PRIx64, base ? base + 1 : path ? path : "?", off);
}

/* "func+0xoff", or "outside" for the virtual node. */
static void put_loc(const struct cli_graph *g, uint32_t id)
{
	const struct lsa_cfg_block *b;
	const struct lsa_cfg_func *f;
	char buf[256];

	if (id == LSA_CFG_NONE) {
		printf("%-24s", "outside");
		return;
	}
	b = lsa_cfg_block(g->cfg, id);
	f = lsa_cfg_func(g->cfg, b->func);
	if (f->name)
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, f->name, b->sb->mod_off - f->start);
	else
		code_name(buf, sizeof(buf), g->p, b->sb->module, b->sb->mod_off);
	printf("%-24s", buf);
}

static void on_violation(void *arg, const struct lsa_cfg_violation *v)
{
	(void)arg;
	cli_error("flow not conserved at block %u: in %" PRIu64 ", executed %" PRIu64
		  ", out %" PRIu64, v->block, v->in, v->count, v->out);
}

int cmd_probes(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *debug_dir = NULL;
	struct cli_cfg cc;
	struct cli_graph g;
	struct cli_plan_opts po;
	size_t fi, i, tedges = 0, tprobes = 0, tmis = 0;
	int c, quiet = 0, bad, plan = 0, planopt = 0;

	memset(&po, 0, sizeof(po));
	lsa_plan_costs_default(&po.costs);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", probes_options, NULL)) != -1) {
		switch (c) {
		case OPT_DEBUG_DIR:
			debug_dir = optarg;
			break;
		case OPT_QUIET:
			quiet = 1;
			break;
		case OPT_PLAN:
			plan = 1;
			break;
		case OPT_FORMAT:
			planopt = 1;
			if (!strcmp(optarg, "text"))
				po.format = CLI_PLAN_TEXT;
			else if (!strcmp(optarg, "json"))
				po.format = CLI_PLAN_JSON;
			else if (!strcmp(optarg, "csv"))
				po.format = CLI_PLAN_CSV;
			else {
				cli_error("unknown format '%s'; use text, json or csv", optarg);
				return cli_usage(probes_usage, 1);
			}
			break;
		case OPT_FUNCTION:
			planopt = 1;
			po.function = optarg;
			break;
		case OPT_PROBE_LAT:
		case OPT_UPDATE_LAT:
		case OPT_SWP_LAT:
			planopt = 1;
			/* cycles, 0 to 1000 */
			if (cli_opt_double(c == OPT_PROBE_LAT ? "--probe-latency" :
					   c == OPT_UPDATE_LAT ? "--update-latency" :
					   "--swp-latency", optarg, 0, 1000,
					   c == OPT_PROBE_LAT ? &po.costs.probe_lat :
					   c == OPT_UPDATE_LAT ? &po.costs.update_lat :
					   &po.costs.swp_lat) < 0)
				return cli_usage(probes_usage, 1);
			break;
		case OPT_WIDTH:
			planopt = 1;
			if (cli_opt_u32("--issue-width", optarg, 10, 1, 64, &po.costs.width) < 0)
				return cli_usage(probes_usage, 1);
			break;
		case 'h':
			return cli_usage(probes_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(probes_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error("too many arguments");
		return cli_usage(probes_usage, 1);
	}
	if (planopt && !plan) {
		cli_error("--format, --function and the cost options need --plan");
		return cli_usage(probes_usage, 1);
	}
	if (plan) {
		if (lsp_is_profile(file) == 1) {
			cli_error("'%s' is a profile: --plan prices probes with the code's "
				  "instructions, which only the bundle holds", file);
			return 1;
		}
		if (cli_cfg_open(&cc, file, debug_dir))
			return 1;
		po.quiet = quiet;
		c = cli_probes_plan(&cc, file, &po);
		cli_cfg_close(&cc);
		return c;
	}
	if (cli_graph_open(&g, file, debug_dir))
		return 1;
	for (fi = 0; fi < lsa_cfg_nfuncs(g.cfg); fi++) {
		const struct lsa_cfg_func *f = lsa_cfg_func(g.cfg, (uint32_t)fi);
		struct lsa_knuth_func kf;
		int err = lsa_knuth_func(g.cfg, (uint32_t)fi, &kf);
		char buf[256];

		if (err < 0) {
			cli_error("cannot place probes in function %zu: %s", fi, ls_errstr(err));
			cli_graph_close(&g);
			return 1;
		}
		if (!f->name)
			code_name(buf, sizeof(buf), g.p, f->module, f->start);
		printf("function %s: %u blocks, %zu edges, %zu probes, %zu of %zu counts "
		       "reconstructed\n", f->name ? f->name : buf, f->nblocks, kf.nedges,
		       kf.nprobes, kf.nedges - kf.mismatches, kf.nedges);
		for (i = 0; !quiet && i < kf.nedges; i++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(g.cfg, kf.edges[i]);

			if (!kf.probe[i])
				continue;
			printf("  probe ");
			put_loc(&g, e->from);
			printf(" -> ");
			put_loc(&g, e->to);
			printf(" %-8s %-9s %" PRIu64 "\n", lsa_cfg_kind_name(e->kind),
			       lsa_cfg_why_name(e->why), e->count);
		}
		tedges += kf.nedges;
		tprobes += kf.nprobes;
		tmis += kf.mismatches;
		lsa_knuth_func_release(&kf);
	}
	bad = lsa_cfg_check_flow(g.cfg, on_violation, NULL);
	printf("total: %zu functions, %zu edges, %zu probes, %zu counts reconstructed, "
	       "%zu mismatches, %d flow violations\n", lsa_cfg_nfuncs(g.cfg), tedges,
	       tprobes, tedges - tmis, tmis, bad);
	cli_graph_close(&g);
	return tmis || bad ? 1 : 0;
}
