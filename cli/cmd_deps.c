/* cmd_deps.c - `loopscope deps`: loop-carried data dependences and a
 * parallelizable verdict per loop (analysis/deps.h) of a bundle recorded
 * with `record --mem`. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps.h"
#include "analysis/sloops.h"
#include "cli.h"
#include "cli/cfg_util.h"
#include "cli/report.h"
#include "ls_err.h"

static const char deps_usage[] =
	"usage: loopscope deps [<options>] [<file.lsc>]\n"
	"\n"
	"Finds the loop-carried data dependences (RAW, WAR, WAW) of every loop\n"
	"of a run recorded with 'loopscope record --mem' (Prospector's\n"
	"algorithm: nested loops as if fully unrolled, loops across calls and\n"
	"recursion), marks induction, reduction and temporary variables, and\n"
	"gives each loop a verdict: parallelizable, parallelizable with a\n"
	"reduction, after privatization, after duplicating an array, or not.\n"
	"Loops come hot and parallelizable first, with their share of the\n"
	"executed instructions.  Accesses conflict by overlapping bytes (an\n"
	"8-byte store and a 4-byte load of its half are a dependence).  Heap\n"
	"variables are named by their allocation call: heap@file:line(function).\n"
	"\n"
	"    --format=<f>     text (default), json or csv\n"
	"    --min-percent=<p>  only loops with at least p% of the instructions\n"
	"    --debug-dir=<d>  look for executables the bundle only references\n"
	"    --compact=<n>    compact a loop's table of addresses into strided\n"
	"                     runs each time it grows by n entries (default\n"
	"                     4096; 0: never, a debugging aid: same results)\n"
	"    -h, --help       show this help\n";

enum { OPT_FORMAT = 256, OPT_DEBUG_DIR, OPT_MIN_PCT, OPT_COMPACT };

static const struct option deps_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-percent", required_argument, NULL, OPT_MIN_PCT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "compact", required_argument, NULL, OPT_COMPACT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum { FMT_TEXT, FMT_JSON, FMT_CSV };

static const char *fmt_name(const char *f)
{
	return f && f[0] ? report_base(f) : "?";
}

static void text_out(const struct lsa_deps *D, double minpct)
{
	size_t i, k;

	for (i = 0; i < lsa_deps_nloops(D); i++) {
		const struct lsa_deps_loop *L = lsa_deps_loop(D, i);
		unsigned v;

		if (L->coverage < minpct)
			continue;
		printf("loop %s:%u in %s (0x%" PRIx64 "): %.2f%% of instructions, %" PRIu64
		       " entries, %" PRIu64 " iterations: %s", fmt_name(L->file), L->line,
		       L->func[0] ? L->func : "?", L->head_vaddr, L->coverage, L->entries,
		       L->iterations, lsa_deps_verdict_name(L->verdict));
		for (v = LSA_V_REDUCTION; L->verdict < LSA_V_NOT && v < LSA_V_NOT; v++)
			if (L->needs >> v & 1 && v != L->verdict)
				printf(", %s", lsa_deps_verdict_name((int)v));
		printf("\n");
		for (k = 0; k < L->ndeps; k++) {
			const struct lsa_deps_dep *d = lsa_deps_dep(D, L->first + k);
			char src[160], dst[160];

			snprintf(src, sizeof(src), "%s:%u@0x%" PRIx64, fmt_name(d->src_file),
				 d->src_line, d->src_vaddr);
			snprintf(dst, sizeof(dst), "%s:%u@0x%" PRIx64, fmt_name(d->dst_file),
				 d->dst_line, d->dst_vaddr);
			printf("  %s %-3s %-20s %s -> %s count %" PRIu64 " distance %" PRIu64
			       "/%" PRIu64 "%s%s\n", d->decides ? "*" : " ",
			       lsa_deps_kind_name(d->kind), d->var, src, dst, d->count, d->dmin,
			       d->dtyp, d->note ? " " : "", lsa_deps_note_name(d->note));
		}
	}
}

static void json_out(const struct lsa_deps *D, const struct lsa_deps_stats *st,
		     double minpct)
{
	size_t i, k, j;
	int first = 1;

	printf("{\n  \"accesses\": %" PRIu64 ", \"in_loops\": %" PRIu64
	       ", \"mismatched\": %" PRIu64 ", \"unplaced\": %" PRIu64 ", \"damaged\": %" PRIu64
	       ", \"allocs\": %" PRIu64
	       ",\n  \"max_addrs\": %" PRIu64 ", \"max_entries\": %" PRIu64
	       ",\n  \"loops\": [", st->accesses, st->in_loops, st->mismatched, st->unplaced,
	       st->damaged, st->allocs, st->max_addrs, st->max_entries);
	for (i = 0; i < lsa_deps_nloops(D); i++) {
		const struct lsa_deps_loop *L = lsa_deps_loop(D, i);

		if (L->coverage < minpct)
			continue;
		printf("%s\n    {\"file\": ", first ? "" : ",");
		first = 0;
		report_json_str(stdout, L->file);
		printf(", \"line\": %u, \"function\": ", L->line);
		report_json_str(stdout, L->func);
		printf(", \"head_vaddr\": %" PRIu64 ", \"percent\": %.4f, \"entries\": %" PRIu64
		       ", \"iterations\": %" PRIu64 ", \"verdict\": \"%s\", \"deps\": [",
		       L->head_vaddr, L->coverage, L->entries, L->iterations,
		       lsa_deps_verdict_name(L->verdict));
		for (k = 0; k < L->ndeps; k++) {
			const struct lsa_deps_dep *d = lsa_deps_dep(D, L->first + k);

			printf("%s\n      {\"kind\": \"%s\", \"var\": ", k ? "," : "",
			       lsa_deps_kind_name(d->kind));
			report_json_str(stdout, d->var);
			printf(", \"storage\": \"%s\", \"src_vaddr\": %" PRIu64 ", \"src_file\": ",
			       lsa_deps_storage_name(d->storage), d->src_vaddr);
			report_json_str(stdout, d->src_file);
			printf(", \"src_line\": %u, \"dst_vaddr\": %" PRIu64 ", \"dst_file\": ",
			       d->src_line, d->dst_vaddr);
			report_json_str(stdout, d->dst_file);
			printf(", \"dst_line\": %u, \"count\": %" PRIu64 ", \"distance_min\": %" PRIu64
			       ", \"distance_typical\": %" PRIu64 ", \"distances\": [",
			       d->dst_line, d->count, d->dmin, d->dtyp);
			for (j = 0; j <= LSA_DEPS_DIST; j++)
				printf("%s%" PRIu64, j ? ", " : "", d->dist[j]);
			printf("], \"note\": \"%s\", \"decides\": %s}",
			       lsa_deps_note_name(d->note), d->decides ? "true" : "false");
		}
		printf("%s]}", L->ndeps ? "\n    " : "");
	}
	printf("\n  ]\n}\n");
}

static void csv_out(const struct lsa_deps *D, double minpct)
{
	size_t i, k;

	printf("file,line,function,percent,entries,iterations,verdict,kind,var,storage,"
	       "src_vaddr,src_file,src_line,dst_vaddr,dst_file,dst_line,count,"
	       "distance_min,distance_typical,note,decides\n");
	for (i = 0; i < lsa_deps_nloops(D); i++) {
		const struct lsa_deps_loop *L = lsa_deps_loop(D, i);

		if (L->coverage < minpct)
			continue;
		for (k = 0; k < L->ndeps || k == 0; k++) {
			const struct lsa_deps_dep *d = L->ndeps ? lsa_deps_dep(D, L->first + k) : NULL;

			report_csv_str(stdout, L->file);
			printf(",%u,", L->line);
			report_csv_str(stdout, L->func);
			printf(",%.4f,%" PRIu64 ",%" PRIu64 ",%s,", L->coverage, L->entries,
			       L->iterations, lsa_deps_verdict_name(L->verdict));
			if (!d) {
				printf(",,,,,,,,,,,,,\n");
				continue;
			}
			printf("%s,", lsa_deps_kind_name(d->kind));
			report_csv_str(stdout, d->var);
			printf(",%s,0x%" PRIx64 ",", lsa_deps_storage_name(d->storage), d->src_vaddr);
			report_csv_str(stdout, d->src_file);
			printf(",%u,0x%" PRIx64 ",", d->src_line, d->dst_vaddr);
			report_csv_str(stdout, d->dst_file);
			printf(",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%d\n", d->dst_line,
			       d->count, d->dmin, d->dtyp, lsa_deps_note_name(d->note), d->decides);
		}
	}
}

struct deps_run {
	struct cli_cfg cc;
	struct lsa_sloops *sl;
	struct lsa_deps *D;
	struct lsa_deps_stats st;
};

/* The analysis and the loops (the graph's decode stays open). */
static void deps_free(struct deps_run *dr)
{
	lsa_deps_free(dr->D);
	lsa_sloops_free(dr->sl);
	dr->D = NULL;
	dr->sl = NULL;
}

static void deps_close(struct deps_run *dr)
{
	deps_free(dr);
	cli_cfg_close(&dr->cc);
	memset(dr, 0, sizeof(*dr));
}

/* The loops of the finished graph cfg of file (open in r, decoded by d),
 * then a decode with the memory accesses: the dependences into dr->D.
 * Returns 0, or 1 after printing the error (dr->D and dr->sl freed). */
static int deps_start(struct deps_run *dr, const char *file, struct lsb_reader *r,
		      struct lsd_decoder *d, struct lsd_symbols *sym,
		      const struct lsa_cfg *cfg, long compact)
{
	int64_t bytes;
	int err;

	if ((err = lsa_sloops_find(&dr->sl, cfg, NULL)) < 0 ||
	    (err = lsa_deps_new(&dr->D, d, r, sym, cfg, dr->sl)) < 0) {
		cli_error("cannot find the loops of '%s': %s", file, ls_errstr(err));
		goto fail;
	}
	if (compact >= 0)
		lsa_deps_set_compact(dr->D, (uint32_t)compact);
	bytes = lsa_deps_load(dr->D);
	if (bytes == -LS_ENOENT) {
		cli_error("'%s' holds no memory accesses: record it with "
			  "'loopscope record --mem'", file);
		goto fail;
	}
	if (bytes < 0) {
		cli_error("cannot read the memory accesses of '%s': %s", file,
			  ls_errstr((int)bytes));
		goto fail;
	}
	if ((err = lsa_deps_run(dr->D)) < 0) {
		cli_error("cannot analyze the dependences of '%s': %s", file, ls_errstr(err));
		goto fail;
	}
	lsa_deps_get_stats(dr->D, &dr->st);
	if (dr->st.damaged)
		cli_warning("'%s': %" PRIu64 " damaged memory-access records skipped", file,
			    dr->st.damaged);
	if (dr->st.mismatched || dr->st.unplaced)
		cli_warning("'%s': %" PRIu64 " memory accesses did not match the decoded "
			    "instructions, %" PRIu64 " fell outside the trace", file,
			    dr->st.mismatched, dr->st.unplaced);
	return 0;
fail:
	deps_free(dr);
	return 1;
}

/* Decodes file into its CFG and loops, then again with the memory
 * accesses: the dependences.  Returns 0, or 1 after printing the error. */
static int deps_open(struct deps_run *dr, const char *file, const char *debug_dir,
		     long compact)
{
	memset(dr, 0, sizeof(*dr));
	if (cli_cfg_open(&dr->cc, file, debug_dir))
		return 1;
	if (deps_start(dr, file, dr->cc.r, dr->cc.d, dr->cc.sym, dr->cc.cfg, compact)) {
		deps_close(dr);
		return 1;
	}
	return 0;
}

int cli_deps_on(const char *file, struct lsb_reader *r, struct lsd_decoder *d,
		struct lsd_symbols *sym, const struct lsa_cfg *cfg, struct lsp_profile *p)
{
	struct deps_run dr;
	size_t unmatched;
	int err;

	memset(&dr, 0, sizeof(dr));
	if (deps_start(&dr, file, r, d, sym, cfg, -1))
		return 1;
	err = lsa_deps_to_profile(dr.D, p, &unmatched);
	deps_free(&dr);
	if (err < 0) {
		cli_error("'%s': %s", file, ls_errstr(err));
		return 1;
	}
	if (unmatched)
		cli_warning("'%s': %zu loops with dependences have no head the loop "
			    "detector found; 'loopscope deps' lists them", file, unmatched);
	return 0;
}

int cmd_deps(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *debug_dir = NULL;
	struct deps_run dr;
	double minpct = 0;
	long compact = -1;
	int c, fmt = FMT_TEXT;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", deps_options, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "csv"))
				fmt = FMT_CSV;
			else {
				cli_error("unknown format '%s' (text, json or csv)", optarg);
				return cli_usage(deps_usage, 1);
			}
			break;
		case OPT_MIN_PCT:
			if (report_parse_pct(optarg, &minpct) < 0)
				return CLI_EXIT_USAGE;
			break;
		case OPT_DEBUG_DIR:
			debug_dir = optarg;
			break;
		case OPT_COMPACT: {
			uint32_t v;

			if (cli_opt_u32("--compact", optarg, 10, 0, 1000000000, &v))
				return cli_usage(deps_usage, 1);
			compact = v;
			break;
		}
		case 'h':
			return cli_usage(deps_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(deps_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error("too many arguments");
		return cli_usage(deps_usage, 1);
	}
	if (deps_open(&dr, file, debug_dir, compact))
		return 1;
	if (fmt == FMT_JSON)
		json_out(dr.D, &dr.st, minpct);
	else if (fmt == FMT_CSV)
		csv_out(dr.D, minpct);
	else {
		printf("%" PRIu64 " memory accesses, %" PRIu64 " in loops; %zu loops\n",
		       dr.st.accesses, dr.st.in_loops, lsa_deps_nloops(dr.D));
		text_out(dr.D, minpct);
	}
	deps_close(&dr);
	return 0;
}
