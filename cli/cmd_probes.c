/* cmd_probes.c - `loopscope probes`: Knuth's minimal set of edges to
 * count per function (the complement of a maximum-weight spanning tree of
 * its executed CFG), with every edge count reconstructed from the probes'
 * counts and compared with the counts the trace gives; and the flow
 * conservation check of the graph. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/knuth.h"
#include "cli.h"
#include "cli/cfg_util.h"
#include "ls_err.h"

static const char probes_usage[] =
	"usage: loopscope probes [<options>] [<file>]\n"
	"\n"
	"    --debug-dir=<d>  look for executables the bundle only references\n"
	"    --quiet          print only the per-function and total lines\n"
	"    -h, --help       show this help\n";

enum { OPT_DEBUG_DIR = 256, OPT_QUIET };

static const struct option probes_options[] = {
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "func+0xoff", or "outside" for the virtual node. */
static void put_loc(const struct lsa_cfg *c, uint32_t id, const struct lsa_cfg_edge *e)
{
	const struct lsa_cfg_block *b;
	const struct lsa_cfg_func *f;

	if (id == LSA_CFG_NONE) {
		printf("%-24s", "outside");
		(void)e;
		return;
	}
	b = lsa_cfg_block(c, id);
	f = lsa_cfg_func(c, b->func);
	if (f->name) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, f->name, b->sb->mod_off - f->start);
		printf("%-24s", buf);
	} else {
		printf("0x%-22" PRIx64, b->sb->start);
	}
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
	size_t fi, i, tedges = 0, tprobes = 0, tmis = 0;
	int c, quiet = 0, bad;

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
	if (cli_cfg_open(&cc, file, debug_dir))
		return 1;
	for (fi = 0; fi < lsa_cfg_nfuncs(cc.cfg); fi++) {
		const struct lsa_cfg_func *f = lsa_cfg_func(cc.cfg, (uint32_t)fi);
		struct lsa_knuth_func kf;
		int err = lsa_knuth_func(cc.cfg, (uint32_t)fi, &kf);

		if (err < 0) {
			cli_error("cannot place probes in function %zu: %s", fi, ls_errstr(err));
			cli_cfg_close(&cc);
			return 1;
		}
		if (f->name)
			printf("function %s", f->name);
		else
			printf("function 0x%" PRIx64, lsa_cfg_block(cc.cfg, f->blocks[0])->sb->start);
		printf(": %u blocks, %zu edges, %zu probes, %zu of %zu counts reconstructed\n",
		       f->nblocks, kf.nedges, kf.nprobes, kf.nedges - kf.mismatches, kf.nedges);
		for (i = 0; !quiet && i < kf.nedges; i++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(cc.cfg, kf.edges[i]);

			if (!kf.probe[i])
				continue;
			printf("  probe ");
			put_loc(cc.cfg, e->from, e);
			printf(" -> ");
			put_loc(cc.cfg, e->to, e);
			printf(" %-8s %-9s %" PRIu64 "\n", lsa_cfg_kind_name(e->kind),
			       lsa_cfg_why_name(e->why), e->count);
		}
		tedges += kf.nedges;
		tprobes += kf.nprobes;
		tmis += kf.mismatches;
		lsa_knuth_func_release(&kf);
	}
	bad = lsa_cfg_check_flow(cc.cfg, on_violation, NULL);
	printf("total: %zu functions, %zu edges, %zu probes, %zu counts reconstructed, "
	       "%zu mismatches, %d flow violations\n", lsa_cfg_nfuncs(cc.cfg), tedges,
	       tprobes, tedges - tmis, tmis, bad);
	cli_cfg_close(&cc);
	return tmis || bad ? 1 : 0;
}
