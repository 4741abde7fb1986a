/* cmd_merge.c - `loopscope merge`: one profile of many runs.
 *
 * Code is keyed by build-id and offset, so runs with other load
 * addresses, other inputs or other machines merge; each input's threads
 * keep their run number (shifted), so `report --thread` still tells
 * them apart.  Shards of one bundle (analyze --shard) join one run, and
 * no bundle or shard is counted twice: each input's part records say
 * which it holds.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "formats/profile.h"
#include "ls_buf.h"
#include "ls_err.h"

static const char merge_usage[] =
	"usage: loopscope merge -o <out> [--debug-dir=<dir>] FILE...\n"
	"\n"
	"Merges the loop profiles (or bundles, analyzed first) FILE... into the\n"
	"profile <out>: counts add up, loops and functions are matched by module\n"
	"build-id and offset. Every input needs the same trip limit.  The\n"
	"shards of one bundle ('analyze --shard') join one run: all of them give\n"
	"the whole bundle's profile, byte for byte, in any order and grouping.\n"
	"A bundle or shard given twice (also inside merged inputs) is refused.\n"
	"The structural loops and the sampled-CPI records (analyze --structural,\n"
	"--cpi) are dropped (merge says so for the CPI).\n"
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

/* A part some input held, and which input. */
struct seen {
	struct lsp_part q;	/* its bundle id copied */
	const char *file;
};

/* Describes part q into buf ("shard 2/4 of bundle X" or "bundle X"). */
static const char *part_name(const struct lsp_part *q, char *buf, size_t len)
{
	if (q->nshards == 1)
		snprintf(buf, len, "bundle %s", q->bundle);
	else
		snprintf(buf, len, "shard %u/%u of bundle %s", q->shard, q->nshards,
			 q->bundle);
	return buf;
}

/* Whether p (from file) holds a part an earlier input held; says which
 * two inputs.  Returns 0 or 1 after printing the error. */
static int check_parts(const struct seen *v, size_t n, const struct lsp_profile *p,
		       const char *file)
{
	char a[160], b[160];
	size_t i, k;

	for (k = 0; k < p->n_parts; k++)
		for (i = 0; i < n; i++) {
			const struct lsp_part *q = &p->parts[k], *e = &v[i].q;

			if (strcmp(q->bundle, e->bundle) ||
			    (q->nshards == e->nshards && q->shard != e->shard))
				continue;
			if (q->nshards == e->nshards)
				cli_error("cannot merge '%s': it holds %s, which '%s' holds "
					  "already (merged twice?)", file,
					  part_name(q, a, sizeof(a)), v[i].file);
			else
				cli_error("cannot merge '%s': it holds %s and '%s' %s: "
					  "parts of one bundle cut two ways may overlap",
					  file, part_name(q, a, sizeof(a)), v[i].file,
					  part_name(e, b, sizeof(b)));
			return 1;
		}
	return 0;
}

/* The output replaces its file when complete: were it an input too (the
 * same file by any name), a run would be merged into its own sum.
 * Returns 1 after a message when it is. */
static int out_is_input(const char *out, char **in, int n)
{
	struct stat so, si;
	int i;

	if (stat(out, &so) < 0)
		return 0;	/* not there yet: no input can be it */
	for (i = 0; i < n; i++) {
		if (!stat(in[i], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			cli_error("the output '%s' is also an input%s%s%s: write the merge "
				  "to another file", out, strcmp(in[i], out) ? " ('" : "",
				  strcmp(in[i], out) ? in[i] : "", strcmp(in[i], out) ? "')" : "");
			return 1;
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *debug_dir = NULL;
	struct lsp_profile *all = NULL, *p = NULL;
	struct seen *seen = NULL;
	size_t nseen = 0, capseen = 0, k, unlabeled = 0, graphs = 0, cpis = 0;
	char msg[512];
	int c, i, err, ret = 1;

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
	if (out_is_input(out, argv + optind, argc - optind))
		return 1;
	for (i = optind; i < argc; i++) {
		lsp_free(p);
		p = NULL;
		if (cli_load_profile(argv[i], debug_dir, &p))
			goto fail;
		if (check_parts(seen, nseen, p, argv[i]))
			goto fail;
		if (LS_GROW(seen, nseen + p->n_parts + 1, capseen, 16)) {
			cli_error("out of memory");
			goto fail;
		}
		for (k = 0; k < p->n_parts; k++) {
			seen[nseen] = (struct seen){ p->parts[k], argv[i] };
			if (!(seen[nseen].q.bundle = strdup(p->parts[k].bundle))) {
				cli_error("out of memory");
				goto fail;
			}
			nseen++;
		}
		if (!all) {
			if (lsp_new(&all, p->trip_limit) < 0) {
				cli_error("out of memory");
				goto fail;
			}
			all->nruns = 0;	/* the first input's runs are all new */
		}
		if (p->trip_limit != all->trip_limit) {
			cli_error("cannot merge '%s': its trip limit is %u, that of '%s' %u",
				  argv[i], p->trip_limit, argv[optind], all->trip_limit);
			goto fail;
		}
		graphs += p->n_cblocks > 0;
		cpis += p->has_cpi;
		err = lsp_merge_count(all, p, &unlabeled);
		if (err < 0) {
			cli_error("cannot merge '%s': %s", argv[i], ls_errstr(err));
			goto fail;
		}
	}
	if (unlabeled)
		cli_warning("%zu loop%s: the inputs' most executed back branches differ "
			    "from the merged one's, so the source line%s may not be the "
			    "one analyzing all runs at once would give", unlabeled,
			    unlabeled == 1 ? "" : "s", unlabeled == 1 ? "" : "s");
	if (graphs && !all->n_cblocks)
		cli_warning("the control-flow graph (analyze --cfg) is dropped: %s",
			    graphs < (size_t)(argc - optind) ? "not every input has it"
			    : "the inputs split the code into blocks at other heads "
			    "(or group or name it otherwise)");
	if (cpis)
		cli_warning("the sampled-CPI records (analyze --cpi) are dropped: the "
			    "costs of separate sampling runs do not add up to one run's "
			    "(report --cpi and annotate read each run's profile)");
	err = lsp_write(all, out, msg, sizeof(msg));
	if (err < 0)
		cli_error("%s", msg);
	ret = err < 0;
fail:
	lsp_free(all);
	lsp_free(p);
	for (k = 0; k < nseen; k++)
		free(seen[k].q.bundle);
	free(seen);
	return ret;
}
