/* cmd_analyze.c - `loopscope analyze`: a trace bundle into a loop profile.
 *
 * Decodes every stream and runs the loop detector (analysis/loops.h) over
 * the block stream, then writes the profile (formats/profile.md).  The
 * report commands call cli_analyze_bundle() to do the same on the fly
 * when given a bundle instead of a profile.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/loops.h"
#include "cli.h"
#include "cli/term.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

static const char analyze_usage[] =
	"usage: loopscope analyze [options] [FILE.lsc]\n"
	"\n"
	"Finds the loops of a recorded run (default: loopscope.lsc) and writes\n"
	"its loop profile: per loop entries, iterations, the trip-count\n"
	"histogram, self and total instructions, the loop call graph, call\n"
	"sites and back branches; per function exclusive, inclusive and\n"
	"loop-level instructions; per thread.  Read it with 'loopscope report',\n"
	"'graph', or sum runs with 'merge'.  The trace is decoded twice: to\n"
	"learn each thread's loops, then to profile them knowing all of them,\n"
	"so that a loop's rows do not depend on the order of its entries.\n"
	"\n"
	"    -o, --output=<file>  the profile (default: FILE with .lsprof for .lsc)\n"
	"    --trip-limit=<n>     exact trip-count histogram below n (2 to 16777216,\n"
	"                         default 1024);\n"
	"                         longer entries share one overflow bucket\n"
	"    --debug-dir=<dir>    look for executables the bundle only references\n"
	"                         (record --no-embed) and for debug info in <dir>;\n"
	"                         with DEBUGINFOD_URLS set, those not found locally\n"
	"                         are fetched from debuginfod servers by build-id\n"
	"    --allow-missing      analyze even when an executable the bundle only\n"
	"                         references is found nowhere (its trace is counted\n"
	"                         as lost); by default that is an error\n"
	"    --shard=<k>/<n>      only shard k (0 to n-1) of n: a set of whole\n"
	"                         threads (n from 1 to 65536); 'merge' of all n\n"
	"                         gives the whole bundle's profile, byte for byte;\n"
	"                         a per-CPU bundle is one shard (0/1)\n"
	"    --plan-shards=<n>    print how many shards of at most n the bundle\n"
	"                         is cut into (its threads; 1 if per-CPU), and exit\n"
	"    -j, --jobs=<n>       threads (1 to 256, default: the online CPUs): a\n"
	"                         bundle of several threads is cut into up to n\n"
	"                         shards analyzed side by side; jobs left over\n"
	"                         decode on a second thread while the loops are\n"
	"                         found (the graph of --cfg, --structural and\n"
	"                         --cpi is built beside them on a thread of its\n"
	"                         own), chunks read and decompressed on another\n"
	"                         from 3 jobs on; from 2, a thread's stream is\n"
	"                         cut where its chunks begin into pieces whose\n"
	"                         second pass, the eager one (the least CPU),\n"
	"                         runs on n threads, each piece decoded by the\n"
	"                         thread that runs it (LOOPSCOPE_EAGER=0: the\n"
	"                         memos' pass on n workers, fed by one decode;\n"
	"                         the profile is the same either way), and the\n"
	"                         first pass of one thread's long stream learns\n"
	"                         its second part on another thread where the\n"
	"                         frames live at the cut run little of it\n"
	"                         (LOOPSCOPE_HALVES=0: not), or else where its\n"
	"                         loops stopped teaching anything new the\n"
	"                         second pass begins beside it on another\n"
	"                         thread (LOOPSCOPE_FOLLOW=0: not); with 1,\n"
	"                         the second pass takes the first's blocks\n"
	"                         from memory where they fit in 128 MiB\n"
	"                         (LOOPSCOPE_TAPE_MAX) at a word or less for 4\n"
	"                         bytes of trace\n"
	"    --structural         also find the structural loops of the executed\n"
	"                         control-flow graph, in the same decode, for\n"
	"                         'report --structural' of the profile (whole\n"
	"                         bundles only: not with --shard; 'merge' drops them)\n"
	"    --cfg                also record the executed control-flow graph (its\n"
	"                         blocks and edges with their counts), in the same\n"
	"                         decode; 'merge' sums them, also of shards; for\n"
	"                         'probes', 'export --edges/--bolt/--autofdo' and\n"
	"                         'report --structural' of the profile (also merged)\n"
	"    --cpi                also combine the bundle's samples (record --sample)\n"
	"                         with the trace, in the same decode: cost per\n"
	"                         instruction, function and loop, self and total,\n"
	"                         for 'report --cpi', 'annotate', 'html' and\n"
	"                         'export --callgrind' of the profile (whole\n"
	"                         bundles only: not with --shard;\n"
	"                         'merge' drops them)\n"
	"    --no-skid-fix        with --cpi: charge samples where they landed, not\n"
	"                         to the instruction executed before\n"
	"    --merge-threshold=<t>  with --structural: OptiWISE's rule for back\n"
	"                         edges sharing a header (1 to 1e9, default 3)\n"
	"    --deps               also find each loop's loop-carried dependences and\n"
	"                         whether it can run in parallel (a bundle recorded\n"
	"                         with 'record --mem'; see 'loopscope deps')\n"
	"    -q, --quiet          no summary\n"
	"    -h, --help           show this help\n";

enum { OPT_TRIP_LIMIT = 256, OPT_DEBUG_DIR, OPT_SHARD, OPT_PLAN, OPT_DEPS,
       OPT_ALLOW_MISSING, OPT_STRUCTURAL, OPT_MERGE_T, OPT_CFG, OPT_CPI, OPT_NOSKID };

static const struct option analyze_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "trip-limit", required_argument, NULL, OPT_TRIP_LIMIT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "plan-shards", required_argument, NULL, OPT_PLAN },
	{ "jobs", required_argument, NULL, 'j' },
	{ "deps", no_argument, NULL, OPT_DEPS },
	{ "structural", no_argument, NULL, OPT_STRUCTURAL },
	{ "cfg", no_argument, NULL, OPT_CFG },
	{ "cpi", no_argument, NULL, OPT_CPI },
	{ "no-skid-fix", no_argument, NULL, OPT_NOSKID },
	{ "merge-threshold", required_argument, NULL, OPT_MERGE_T },
	{ "allow-missing", no_argument, NULL, OPT_ALLOW_MISSING },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --plan-shards: prints the shard count of path.  Returns the exit status. */
static int plan_shards(const char *path, uint32_t want)
{
	struct lsb_reader *r;
	int n;

	if (cli_open_bundle(path, &r))
		return 1;
	n = cli_shard_plan(r, want);
	lsb_reader_close(r);
	if (n < 0) {
		cli_error("out of memory");
		return 1;
	}
	printf("%d\n", n);
	return 0;
}

/* "K/N" with K < N, 1 <= N <= 65536.  Returns 0 or -1. */
static int parse_shard(const char *s, uint32_t *k, uint32_t *n)
{
	unsigned long a, b;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtoul(end + 1, &end, 10);
	if (*end || b < 1 || b > 65536 || a >= b)
		return -1;
	*k = (uint32_t)a;
	*n = (uint32_t)b;
	return 0;
}

/* Losses and the detector's repairs, said once per run. */
static void warn_stats(const char *path, const struct lsp_profile *p,
		       uint32_t run, const struct lsa_loops_stats *st)
{
	uint64_t losses = 0;
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].run == run)
			losses += p->threads[i].losses;
	if (losses)
		cli_warning("'%s': %" PRIu64 " decode losses: what ran in them is "
			    "missing from the counts (see 'loopscope info --decode')",
			    path, losses);
	if (st->frame_mismatches)
		cli_warning("'%s': %" PRIu64 " returns matched no call frame",
			    path, st->frame_mismatches);
}

int cli_analyze_bundle(const char *path, const char *debug_dir,
		       struct lsp_profile **out)
{
	return cli_analyze_bundle_with(path, debug_dir, NULL, out);
}

int cli_analyze_bundle_with(const char *path, const char *debug_dir,
			    const struct cli_analyses *ca, struct lsp_profile **out)
{
	struct lsa_loops_stats st;
	struct lsp_profile *p;

	if (lsp_new(&p, 0) < 0) {
		cli_error("out of memory");
		return -LS_ENOMEM;
	}
	memset(&st, 0, sizeof(st));
	/* Views of a bundle (report, html, graph, ...) show what can be
	 * shown: a missing executable is warned about and its trace counted
	 * as lost, as `analyze --allow-missing` does; `analyze` itself, the
	 * step whose profile is kept, refuses by default. */
	if (cli_analyze_into(path, debug_dir, 1, cli_online_cpus(), ca, 0, 1, p, &st)) {
		lsp_free(p);
		return -LS_EDECODE;
	}
	warn_stats(path, p, 0, &st);
	*out = p;
	return 0;
}

static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *s = malloc(n + 8);

	if (!s)
		return NULL;
	memcpy(s, in, n + 1);
	if (n > 4 && !strcmp(s + n - 4, ".lsc"))
		s[n - 4] = '\0';
	strcat(s, ".lsprof");
	return s;
}

int cmd_analyze(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *output = NULL, *debug_dir = NULL;
	struct lsa_loops_stats st;
	struct lsp_profile *p;
	uint32_t trip_limit = 0, shard = 0, nshards = 1, plan = 0;
	uint32_t jobs = cli_online_cpus();
	char *def = NULL, errmsg[512];
	int c, quiet = 0, ret = 1, deps = 0, allow_missing = 0;
	struct cli_analyses ca = { 0 };
	uint64_t insns = 0;
	size_t i;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:j:q", analyze_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_TRIP_LIMIT:
			if (cli_opt_u32("--trip-limit", optarg, 10, 2, 1u << 24, &trip_limit))
				return cli_usage(analyze_usage, 1);
			break;
		case OPT_DEBUG_DIR:
			debug_dir = optarg;
			break;
		case OPT_SHARD:
			if (parse_shard(optarg, &shard, &nshards)) {
				cli_error("--shard: '%s' is not <k>/<n> with k from 0 "
					  "to n-1 and n from 1 to 65536", optarg);
				return cli_usage(analyze_usage, 1);
			}
			break;
		case OPT_PLAN:
			if (cli_opt_u32("--plan-shards", optarg, 10, 1, 65536, &plan))
				return cli_usage(analyze_usage, 1);
			break;
		case 'j':
			if (cli_opt_u32("--jobs", optarg, 10, 1, 256, &jobs))
				return cli_usage(analyze_usage, 1);
			break;
		case 'q':
			quiet = 1;
			cli_progress_quiet();
			break;
		case OPT_DEPS:
			deps = 1;
			break;
		case OPT_ALLOW_MISSING:
			allow_missing = 1;
			break;
		case OPT_STRUCTURAL:
			ca.structural = 1;
			break;
		case OPT_CFG:
			ca.cfg = 1;
			break;
		case OPT_CPI:
			ca.cpi = 1;
			break;
		case OPT_NOSKID:
			ca.no_skid_fix = 1;
			break;
		case OPT_MERGE_T:
			if (cli_opt_double("--merge-threshold", optarg, 1.0, 1e9, &ca.merge_t) < 0)
				return cli_usage(analyze_usage, 1);
			break;
		case 'h':
			return cli_usage(analyze_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(analyze_usage, 1);
		}
	}
	if (optind + 1 < argc) {
		cli_error("one bundle at a time (use 'loopscope merge' to sum runs)");
		return cli_usage(analyze_usage, 1);
	}
	if (optind < argc)
		file = argv[optind];
	if (plan)
		return plan_shards(file, plan);
	if (deps && nshards > 1) {
		/* the dependences are the whole bundle's: shards merged would
		 * count them once per shard */
		cli_error("--deps and --shard: find the dependences of the whole bundle "
			  "(analyze --deps without --shard, or 'loopscope deps')");
		return cli_usage(analyze_usage, 1);
	}
	if (ca.merge_t > 0 && !ca.structural) {
		cli_error("--merge-threshold goes with --structural");
		return cli_usage(analyze_usage, 1);
	}
	if (ca.structural && nshards > 1) {
		/* dominators and the merge rule see the whole graph: the
		 * structural loops of shards do not sum to the bundle's */
		cli_error("--structural and --shard: find the structural loops of the whole "
			  "bundle (analyze --structural without --shard)");
		return cli_usage(analyze_usage, 1);
	}
	if (ca.no_skid_fix && !ca.cpi) {
		cli_error("--no-skid-fix goes with --cpi");
		return cli_usage(analyze_usage, 1);
	}
	if (ca.cpi && nshards > 1) {
		/* the stacks, loops and attribution see the whole graph */
		cli_error("--cpi and --shard: combine the samples with the whole bundle "
			  "(analyze --cpi without --shard)");
		return cli_usage(analyze_usage, 1);
	}
	if (!output) {
		output = def = default_output(file);
		if (!def) {
			cli_error("out of memory");
			return 1;
		}
	}
	if (lsp_new(&p, trip_limit) < 0) {
		cli_error("out of memory");
		free(def);
		return 1;
	}
	memset(&st, 0, sizeof(st));
	ca.deps = deps;
	if (cli_analyze_into(file, debug_dir, allow_missing, jobs, &ca, shard, nshards, p, &st))
		goto out;
	warn_stats(file, p, 0, &st);
	if (lsp_write(p, output, errmsg, sizeof(errmsg)) < 0) {
		cli_error("%s", errmsg);
		goto out;
	}
	for (i = 0; i < p->n_threads; i++)
		insns += p->threads[i].insns;
	if (!quiet)
		fprintf(stderr, "loopscope: %zu loop%s in %zu thread%s, %" PRIu64
			" instructions: '%s'\n", p->n_loops, p->n_loops == 1 ? "" : "s",
			p->n_threads, p->n_threads == 1 ? "" : "s", insns, output);
	ret = 0;
out:
	lsp_free(p);
	free(def);
	return ret;
}
