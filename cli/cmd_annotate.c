/* cmd_annotate.c - `loopscope annotate`: the disassembly of the hot
 * functions with samples, executions and cost per execution of every
 * instruction, interleaved with their source lines (OptiWISE figures 1
 * and 10).  The numbers are analysis/cpi.h's, read from the sampled-CPI
 * records of a profile (analyze --cpi) or of a bundle analyzed on the
 * fly (cli_cpi_load()): the same bytes either way. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cpi_util.h"
#include "cli/report.h"
#include "ls_buf.h"
#include "ls_err.h"

static const char annotate_usage[] =
	"usage: loopscope annotate [--function=<name>] [--module=<name>] [--format=text|json]\n"
	"                          [--min-percent=<p>] [--no-skid-fix] [FILE]\n"
	"\n"
	"Prints the disassembly of the hot functions of the bundle FILE (recorded\n"
	"with 'loopscope record --sample'; default loopscope.lsc), or of its\n"
	"profile from 'loopscope analyze --cpi' (no decode), with, per\n"
	"instruction, its samples, executions, cost (cycles, or ns with cpu-clock)\n"
	"and cost per execution (CPI, or ns per execution), under its source lines.\n"
	"\n"
	"    --function=<name>    only this function\n"
	"    --module=<name>      only the functions of this module: its path, file\n"
	"                         name, or file name up to a '.' (libc)\n"
	"    --format=text|json   output format (default text)\n"
	"    --min-percent=<p>    functions with at least p% of the attributed cost\n"
	"                         (default 5 for text, 0 for json)\n"
	"    --no-skid-fix        charge samples where they landed, not to the\n"
	"                         instruction executed before (OptiWISE V-B); of a\n"
	"                         profile, one from 'analyze --cpi --no-skid-fix'\n"
	"    --debug-dir=<dir>    executables the bundle only references\n"
	"    -h, --help           show this help\n";

enum { OPT_FUNCTION = 256, OPT_FORMAT, OPT_MIN, OPT_NOSKID, OPT_DEBUG_DIR, OPT_MODULE };

static const struct option annotate_options[] = {
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-percent", required_argument, NULL, OPT_MIN },
	{ "no-skid-fix", no_argument, NULL, OPT_NOSKID },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The lines of one source file, read when first asked for. */
struct src {
	char *path;
	char *text;
	char **lines;
	size_t nlines;
};

static void src_release(struct src *s)
{
	free(s->path);
	free(s->text);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

/* Opens a source file named by DWARF.  A relative name is relative to
 * the compilation directory, which the symbol tables do not give; the
 * directories above the module's recorded path are tried after the
 * current one, which finds the sources of in-tree builds. */
static FILE *src_open(const char *path, const char *module)
{
	char buf[4096];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f || path[0] == '/' || !module)
		return f;
	n = strlen(module);
	while (n > 0 && !f) {
		while (n > 0 && module[n - 1] != '/')
			n--;
		if (!n)
			break;
		snprintf(buf, sizeof(buf), "%.*s%s", (int)n, module, path);
		f = fopen(buf, "rb");
		n--;
	}
	return f;
}

static const char *src_line(struct src *s, const char *path, int line,
			    const char *module)
{
	FILE *f;
	long n;
	size_t cap = 0, i;

	if (!path || line <= 0)
		return NULL;
	if (!s->path || strcmp(s->path, path)) {
		src_release(s);
		s->path = strdup(path);
		f = src_open(path, module);
		if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
		    !fseek(f, 0, SEEK_SET) && (s->text = malloc((size_t)n + 1))) {
			size_t got = fread(s->text, 1, (size_t)n, f);

			s->text[got] = '\0';
			for (i = 0; i <= got; i++) {
				if (i && s->text[i - 1] != '\n' && i != got)
					continue;
				if (i == got && (!got || s->text[got - 1] == '\n'))
					break;
				if (LS_GROW(s->lines, s->nlines + 1, cap, 256))
					break;
				s->lines[s->nlines++] = s->text + i;
			}
			for (i = 0; i < got; i++)
				if (s->text[i] == '\n')
					s->text[i] = '\0';
		}
		if (f)
			fclose(f);
	}
	return (size_t)line <= s->nlines ? s->lines[line - 1] : NULL;
}

static void json_str(FILE *out, const char *s)
{
	report_json_str(out, s ? s : "");
}

/* A source line's sum over the instructions shown. */
struct lagg {
	const char *file;	/* the first instruction's string */
	int line;
	struct lsp_cpiagg a;
};

struct ann {
	struct lsp_profile *p;
	size_t *ffirst;		/* cpifunc -> its first cpiinsn row (n + 1) */
	int json, first_insn;
	FILE *out;
	struct src src;
	const char *unit;
	struct lagg *lines;
	size_t nlines, caplines;
	size_t *blocks;		/* shown blocks (json): their first rows */
	size_t nblocks, capblocks;
	int nosamp;		/* the bundle has no samples */
	uint64_t insns;		/* instructions executed, all functions */
};

static struct lagg *line_of(struct ann *a, const char *file, int line, int add)
{
	size_t i;

	for (i = a->nlines; i-- > 0;)
		if (a->lines[i].line == line && !strcmp(a->lines[i].file, file))
			return &a->lines[i];
	if (!add)
		return NULL;
	if (LS_GROW(a->lines, a->nlines + 1, a->caplines, 64))
		return NULL;
	memset(&a->lines[a->nlines], 0, sizeof(a->lines[0]));
	a->lines[a->nlines].file = file;
	a->lines[a->nlines].line = line;
	return &a->lines[a->nlines++];
}

/* Sums function f's instructions per source line (and notes its blocks
 * for the JSON block list). */
static void sum_lines(struct ann *a, uint32_t f)
{
	size_t i;

	for (i = a->ffirst[f]; i < a->ffirst[f + 1]; i++) {
		const struct lsp_cpiinsn *in = &a->p->cpiinsns[i];
		struct lagg *l;

		/* out of memory: the block is left out of the listing */
		if (in->first && !LS_GROW(a->blocks, a->nblocks + 1, a->capblocks, 256))
			a->blocks[a->nblocks++] = i;
		if (!in->file[0] || !in->line ||
		    !(l = line_of(a, in->file, (int)in->line, 1)))
			continue;
		l->a.samples += in->samples;
		l->a.cost += in->cost;
		l->a.insns += in->execs;
	}
}

static void print_tail(struct ann *a)
{
	size_t i;

	fprintf(a->out, "\n  ],\n  \"lines\": [");
	for (i = 0; i < a->nlines; i++) {
		const struct lagg *l = &a->lines[i];

		fprintf(a->out, "%s\n    {\"file\": ", i ? "," : "");
		json_str(a->out, l->file);
		fprintf(a->out, ", \"line\": %d, \"samples\": %.3f, \"cost\": %" PRIu64
			", \"instructions\": %" PRIu64 ", \"cost_per_instruction\": %.6g}",
			l->line, l->a.samples, l->a.cost, l->a.insns,
			cli_cpi_per(l->a.cost, l->a.insns));
	}
	fprintf(a->out, "\n  ],\n  \"blocks\": [");
	for (i = 0; i < a->nblocks; i++) {
		const struct lsp_cpiinsn *in = &a->p->cpiinsns[a->blocks[i]];
		struct lsp_cpiagg b = { 0, 0, 0 };
		size_t n = 0, end = a->ffirst[in->func + 1];

		/* the block's rows: up to the next first one or the function's end */
		do {
			b.samples += in[n].samples;
			b.cost += in[n].cost;
			b.insns += in[n].execs;
			n++;
		} while (a->blocks[i] + n < end && !in[n].first);
		fprintf(a->out, "%s\n    {\"address\": \"0x%" PRIx64 "\", \"ninsns\": %zu"
			", \"executions\": %" PRIu64 ", \"samples\": %.3f, \"cost\": %"
			PRIu64 ", \"cost_per_instruction\": %.6g}", i ? "," : "", in->vaddr, n,
			in->execs, b.samples, b.cost, cli_cpi_per(b.cost, b.insns));
	}
	fprintf(a->out, "\n  ]}\n");
}

static void print_insn(struct ann *a, const struct lsp_cpiinsn *in, const char *fname,
		       const char *module, const char **lastfile, int *lastline)
{
	uint64_t vaddr = in->vaddr;
	const char *file = in->file[0] ? in->file : NULL, *dis = in->dis;
	int line = (int)in->line;

	if (a->json) {
		fprintf(a->out, "%s\n    {\"address\": \"0x%" PRIx64 "\", \"offset\": \"0x%"
			PRIx64 "\", \"function\": ", a->first_insn ? "" : ",", vaddr, in->off);
		json_str(a->out, fname);
		fprintf(a->out, ", \"file\": ");
		json_str(a->out, file);
		fprintf(a->out, ", \"line\": %d, \"disassembly\": ", line);
		json_str(a->out, dis);
		fprintf(a->out, ", \"samples\": %.3f, \"raw_samples\": %" PRIu64
			", \"executions\": %" PRIu64 ", \"cost\": %" PRIu64
			", \"cost_per_execution\": %.6g}",
			in->samples, in->raw_samples, in->execs, in->cost,
			cli_cpi_per(in->cost, in->execs));
		a->first_insn = 0;
		return;
	}
	if (file && line && (line != *lastline || !*lastfile || strcmp(file, *lastfile))) {
		const char *t = src_line(&a->src, file, line, module);
		const char *base = strrchr(file, '/');
		const struct lagg *l = line_of(a, file, line, 0);
		char sum[64] = "";

		/* The line's total over the function, as OptiWISE's
		 * line view gives it. */
		if (l && a->nosamp)
			snprintf(sum, sizeof(sum), "%12" PRIu64, l->a.insns);
		else if (l)
			snprintf(sum, sizeof(sum), "%9.1f %12" PRIu64 " %12.2f",
				 l->a.samples, l->a.insns,
				 cli_cpi_per(l->a.cost, l->a.insns));
		if (a->nosamp)
			fprintf(a->out, "%-12s%8s%s:%d  %s\n", sum, "", base ? base + 1 : file,
				line, t ? t : "");
		else
			fprintf(a->out, "%-36s%8s%s:%d  %s\n", sum, "", base ? base + 1 : file,
				line, t ? t : "");
		*lastfile = file;
		*lastline = line;
	}
	if (a->nosamp)
		fprintf(a->out, "%12" PRIu64 "  %8" PRIx64 ":  %s\n", in->execs, vaddr, dis);
	else
		fprintf(a->out, "%9.1f %12" PRIu64 " %12.2f  %8" PRIx64 ":  %s\n",
			in->samples, in->execs, cli_cpi_per(in->cost, in->execs), vaddr, dis);
}

static void print_func(struct ann *a, uint32_t f)
{
	const struct lsp_cpifunc *cf = &a->p->cpifuncs[f];
	const char *lastfile = NULL, *name = cf->name;
	const char *module = cf->module < a->p->n_modules ?
			     a->p->modules[cf->module].path : NULL;
	int lastline = 0;
	size_t i;

	sum_lines(a, f);
	if (!a->json && a->nosamp) {
		fprintf(a->out, "\n%s: %" PRIu64 " instructions executed (%.1f%% of all)\n",
			name, cf->self.insns,
			cli_cpi_pct((double)cf->self.insns, (double)a->insns));
		fprintf(a->out, "%12s  %8s   %s\n", "executions", "address", "instruction");
	} else if (!a->json) {
		fprintf(a->out, "\n%s: %.1f samples (%.1f%% of the attributed cost), %"
			PRIu64 " instructions executed, %.2f %s per instruction\n",
			name, cf->self.samples,
			cli_cpi_pct((double)cf->self.cost, (double)a->p->cpi.cost_attributed),
			cf->self.insns, cli_cpi_per(cf->self.cost, cf->self.insns), a->unit);
		fprintf(a->out, "%9s %12s %12s  %8s   %s\n", "samples", "executions",
			a->p->cpi.unit == LSP_CPI_NS ? "ns/exec" : "CPI", "address",
			"instruction");
	}
	for (i = a->ffirst[f]; i < a->ffirst[f + 1]; i++)
		print_insn(a, &a->p->cpiinsns[i], name, module, &lastfile, &lastline);
}

static const struct lsp_profile *cmp_p;

static int cmp_func_insns(const void *x, const void *y)
{
	uint64_t a = cmp_p->cpifuncs[*(const uint32_t *)x].self.insns;
	uint64_t b = cmp_p->cpifuncs[*(const uint32_t *)y].self.insns;

	return a > b ? -1 : a < b;
}

static int cmp_func_cost(const void *x, const void *y)
{
	uint64_t a = cmp_p->cpifuncs[*(const uint32_t *)x].self.cost;
	uint64_t b = cmp_p->cpifuncs[*(const uint32_t *)y].self.cost;

	return a > b ? -1 : a < b;
}

/* a->ffirst: each function's first instruction row (rows come by
 * function).  Returns 0 or -1 after printing the error. */
static int index_funcs(struct ann *a)
{
	size_t nf = a->p->n_cpifuncs, i, f = 0;

	if (!(a->ffirst = malloc((nf + 1) * sizeof(*a->ffirst)))) {
		cli_error("out of memory");
		return -1;
	}
	for (i = 0; i < a->p->n_cpiinsns; i++)
		while (f <= a->p->cpiinsns[i].func)
			a->ffirst[f++] = i;
	while (f <= nf)
		a->ffirst[f++] = a->p->n_cpiinsns;
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *func = NULL, *debug_dir = NULL, *module = NULL;
	const char *src;
	struct ann a;
	double min_pct = -1;
	int c, noskid = 0, shown = 0, status = 0;
	uint32_t *order;
	size_t nf, i;

	memset(&a, 0, sizeof(a));
	a.out = stdout;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", annotate_options, NULL)) != -1) {
		switch (c) {
		case OPT_FUNCTION: func = optarg; break;
		case OPT_MODULE:
			if (!*optarg) {
				cli_error("option '--module' wants a module name");
				return cli_usage(annotate_usage, 1);
			}
			module = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				a.json = 1;
			else if (strcmp(optarg, "text")) {
				cli_error("unknown format '%s' (text or json)", optarg);
				return cli_usage(annotate_usage, 1);
			}
			break;
		case OPT_MIN:
			if (report_parse_pct(optarg, &min_pct) < 0)
				return cli_usage(annotate_usage, 1);
			break;
		case OPT_NOSKID: noskid = 1; break;
		case OPT_DEBUG_DIR: debug_dir = optarg; break;
		case 'h': return cli_usage(annotate_usage, 0);
		default: return cli_usage(annotate_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error("one input file only");
		return cli_usage(annotate_usage, 1);
	}
	if (min_pct < 0)
		min_pct = a.json ? 0 : 5;
	if (cli_cpi_load(file, debug_dir, noskid, 0, 0, &a.p))
		return 1;
	/* the bundle, as analyzed: the same from it and from its profile */
	src = a.p->source ? a.p->source : file;
	for (i = 0; module && i < a.p->n_modules; i++)
		if (report_path_match(a.p->modules[i].path, module))
			break;
	if (module && i == a.p->n_modules) {
		cli_error("no module '%s' in '%s' (see 'loopscope info %s')", module, file,
			  src);
		lsp_free(a.p);
		return 1;
	}
	/* Without samples: the exact executions, per instruction and
	 * source line, as callgrind_annotate shows them. */
	a.nosamp = !a.p->cpi.samples;
	a.unit = lsp_cpi_unit_name(a.p->cpi.unit);
	nf = a.p->n_cpifuncs;
	order = malloc((nf + 1) * sizeof(*order));
	if (!order || index_funcs(&a) < 0) {
		if (!order)
			cli_error("out of memory");
		status = 1;
		goto out;
	}
	for (i = 0; i < nf; i++) {
		order[i] = (uint32_t)i;
		a.insns += a.p->cpifuncs[i].self.insns;
	}
	cmp_p = a.p;
	qsort(order, nf, sizeof(*order), a.nosamp ? cmp_func_insns : cmp_func_cost);
	if (a.json) {
		fprintf(a.out, "{\"source\": ");
		json_str(a.out, src);
		fprintf(a.out, ", \"unit\": \"%s\", \"event\": ", a.unit);
		json_str(a.out, a.p->cpi.event);
		fprintf(a.out, ", \"skid_fix\": %s, \"samples\": %" PRIu64
			", \"attributed\": %" PRIu64 ", \"unattributed_pct\": %.4f"
			", \"unmapped\": %" PRIu64
			", \"no_module\": %" PRIu64 ", \"not_executed\": %" PRIu64
			", \"cost\": %" PRIu64 ", \"cost_attributed\": %" PRIu64
			",\n  \"instructions\": [",
			noskid ? "false" : "true", a.p->cpi.samples, a.p->cpi.attributed,
			cli_cpi_pct((double)(a.p->cpi.samples - a.p->cpi.attributed),
				    (double)a.p->cpi.samples),
			a.p->cpi.unmapped, a.p->cpi.no_module, a.p->cpi.not_executed,
			a.p->cpi.cost, a.p->cpi.cost_attributed);
		a.first_insn = 1;
	} else if (a.nosamp) {
		fprintf(a.out, "annotated '%s': exact executions of every instruction "
			"and instructions per source line (no samples: record with "
			"--sample for their cost)\n", src);
	} else {
		fprintf(a.out, "annotated '%s': cost in %s of %s%s\n", src, a.unit,
			a.p->cpi.event, noskid ? "" : ", charged to the instruction "
			"executed before the sample (--no-skid-fix: where it landed)");
		cli_cpi_print_account(a.out, &a.p->cpi);
	}
	for (i = 0; i < nf; i++) {
		uint32_t f = order[i];
		const struct lsp_cpifunc *cf = &a.p->cpifuncs[f];
		const char *name = cf->name;
		const struct lsp_module *m = cf->module < a.p->n_modules ?
			&a.p->modules[cf->module] : NULL;

		if (module && !(m && report_path_match(m->path, module)))
			continue;
		if (func ? strcmp(func, name) != 0 : a.nosamp ?
			   cli_cpi_pct((double)cf->self.insns, (double)a.insns) < min_pct ||
			   !cf->self.insns :
			   cli_cpi_pct((double)cf->self.cost,
				       (double)a.p->cpi.cost_attributed) < min_pct ||
			   !cf->self.cost)
			continue;
		print_func(&a, f);
		shown++;
	}
	if (a.json)
		print_tail(&a);
	if (func && !shown) {
		if (module)
			cli_error("no executed function '%s' in module '%s' of '%s'", func,
				  module, file);
		else
			cli_error("no executed function '%s' in '%s'", func, file);
		status = 1;
	}
out:
	free(order);
	free(a.ffirst);
	free(a.lines);
	free(a.blocks);
	src_release(&a.src);
	lsp_free(a.p);
	return status;
}
