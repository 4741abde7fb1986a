/* report_cpi.c - `loopscope report --cpi`: time share, cost per
 * instruction (CPI, or ns per instruction with cpu-clock) and IPC, self
 * and total, per loop (OptiWISE figure 1's loop table) and per function,
 * as text, JSON or CSV.
 *
 * The input must be a bundle: samples live in bundles only (a profile
 * file keeps the trace's exact counts, which merge across runs, but
 * samples placed by build-id + offset need the executed code to be
 * attributed, and cost sums across runs would not be comparable).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cpi_util.h"
#include "cli/report.h"
#include "decoder/symbols.h"

struct rc {
	struct cli_cpi c;
	FILE *f;
	int format;		/* REPORT_CPI_* */
	double min_pct;
	const char *unit;
	double all;		/* attributed cost */
};

static const char *family_name[LSA_CPI_NFAMILIES] = { "dynamic", "structural" };

/* Loop i's head (ELF virtual address) and source place: the label of the
 * detected loop with that head from the loop profile (its back branch's
 * line, as every report prints it), else its head's file and line; file
 * NULL and line 0 when unknown. */
static void head_of(struct rc *r, uint32_t i, uint64_t *vaddr,
		    const char **file, int *line)
{
	const struct lsa_cpi_loop *l = lsa_cpi_loop(r->c.cpi, i);
	struct lsd_symbol_info si;
	size_t first, k;
	const struct lsa_cpi_insn *in;

	*vaddr = 0;
	*file = NULL;
	*line = 0;
	if (!lsa_cpi_block_insns(r->c.cpi, l->header, &first))
		return;
	in = lsa_cpi_insn(r->c.cpi, first);
	*vaddr = in->off;
	memset(&si, 0, sizeof(si));
	if (r->c.cc.sym &&
	    lsd_symbols_lookup(r->c.cc.sym, in->module, in->off, 1, &si) >= 0) {
		*vaddr = si.vaddr;
		if (si.file && si.file[0] && si.line > 0) {
			*file = si.file;
			*line = si.line;
		}
	}
	/* A structural loop takes the label of the dynamic loop with its
	 * head (the dynamic loops are the first ndyn). */
	for (k = 0; r->c.prof && k < r->c.ndyn; k++) {
		const struct lsp_loop *pl = &r->c.prof->loops[r->c.dyn_loop[k]];

		if (lsa_cpi_loop(r->c.cpi, k)->header != l->header)
			continue;
		if (pl->file[0] && pl->line) {
			*file = pl->file;
			*line = (int)pl->line;
		}
		break;
	}
}

/* Where a loop is, for the text table: "file:line", else the head as
 * "module+0xoff" (never "?:0"). */
static const char *where_of(struct rc *r, const struct lsa_cpi_loop *l,
			    const char *file, int line, char *buf, size_t len)
{
	const struct lsb_module *m;
	const char *base;
	size_t first;
	const struct lsa_cpi_insn *in;

	if (file) {
		snprintf(buf, len, "%s:%d", report_base(file), line);
		return buf;
	}
	if (!lsa_cpi_block_insns(r->c.cpi, l->header, &first))
		return "";
	in = lsa_cpi_insn(r->c.cpi, first);
	m = in->module >= 0 ? lsb_reader_module(r->c.cc.r, (size_t)in->module) : NULL;
	base = m && m->path ? report_base(m->path) : "";
	snprintf(buf, len, "%s+0x%" PRIx64, base, in->off);
	return buf;
}

static double ipc(const struct lsa_cpi_agg *a, int unit)
{
	return unit == LSA_CPI_CYCLES && a->cost ? (double)a->insns / (double)a->cost : 0;
}

static void json_agg(struct rc *r, const char *name, const struct lsa_cpi_agg *a)
{
	fprintf(r->f, "\"%s\": {\"samples\": %.3f, \"cost\": %" PRIu64
		", \"instructions\": %" PRIu64 ", \"time_pct\": %.4f"
		", \"cost_per_instruction\": %.6g, ", name, a->samples, a->cost,
		a->insns, cli_cpi_pct((double)a->cost, r->all),
		lsa_cpi_per(a->cost, a->insns));
	if (r->c.st.unit == LSA_CPI_CYCLES)
		fprintf(r->f, "\"ipc\": %.6g}", ipc(a, r->c.st.unit));
	else
		fprintf(r->f, "\"ipc\": null}");
}

static const struct lsa_cpi *sort_cpi;

static int cmp_loop(const void *x, const void *y)
{
	const struct lsa_cpi_loop *a = lsa_cpi_loop(sort_cpi, *(const uint32_t *)x);
	const struct lsa_cpi_loop *b = lsa_cpi_loop(sort_cpi, *(const uint32_t *)y);

	if (a->total.cost != b->total.cost)
		return a->total.cost > b->total.cost ? -1 : 1;
	return a->total.insns > b->total.insns ? -1 : a->total.insns < b->total.insns;
}

static int cmp_func(const void *x, const void *y)
{
	const struct lsa_cpi_func *a = lsa_cpi_func(sort_cpi, *(const uint32_t *)x);
	const struct lsa_cpi_func *b = lsa_cpi_func(sort_cpi, *(const uint32_t *)y);

	if (a->total.cost != b->total.cost)
		return a->total.cost > b->total.cost ? -1 : 1;
	return a->self.cost > b->self.cost ? -1 : a->self.cost < b->self.cost;
}

static void text_header(struct rc *r, const char *what)
{
	const char *u = r->c.st.unit == LSA_CPI_NS ? "ns/insn" : "CPI";

	fprintf(r->f, "\n%s\n", what);
	fprintf(r->f, "%5s %10s %-20s %-24s %12s %10s %15s %19s %15s\n", "id", "head",
		"function", "file:line", "iterations", "insn/iter", "time% (self)",
		u, "IPC (self)");
}

static void print_loop(struct rc *r, uint32_t i, int *first)
{
	const struct lsa_cpi_loop *l = lsa_cpi_loop(r->c.cpi, i);
	uint64_t vaddr;
	const char *file;
	int line;
	char nb[256], where[300];
	const char *fn = cli_cpi_func_name(&r->c, l->func, nb, sizeof(nb));
	double ipi = l->iterations ? (double)l->total.insns / (double)l->iterations : 0;

	head_of(r, i, &vaddr, &file, &line);
	if (r->format == REPORT_CPI_JSON) {
		fprintf(r->f, "%s\n    {\"id\": %" PRIu32 ", \"head\": \"0x%" PRIx64
			"\", \"function\": ", *first ? "" : ",", i, vaddr);
		report_json_str(r->f, fn);
		fprintf(r->f, ", \"file\": ");
		report_json_str(r->f, file ? file : "");
		fprintf(r->f, ", \"line\": %d, \"parent\": ", line);
		if (l->parent == LSA_CPI_NONE)
			fprintf(r->f, "null");
		else
			fprintf(r->f, "%" PRIu32, l->parent);
		fprintf(r->f, ", \"iterations\": %" PRIu64 ", \"instructions_per_iteration\": %.6g, ",
			l->iterations, ipi);
		json_agg(r, "self", &l->self);
		fprintf(r->f, ", ");
		json_agg(r, "total", &l->total);
		fprintf(r->f, ", \"top_samples\": %.3f, \"top_cost\": %" PRIu64 "}",
			l->top_samples, l->top_cost);
	} else if (r->format == REPORT_CPI_CSV) {
		fprintf(r->f, "loop,%s,%" PRIu32 ",0x%" PRIx64 ",", family_name[l->family],
			i, vaddr);
		report_csv_str(r->f, fn);
		fprintf(r->f, ",");
		report_csv_str(r->f, file ? file : "");
		fprintf(r->f, ",%d,%" PRIu64 ",%.6g,%.3f,%.3f,%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%.6g,%.6g,%.6g,%.6g,%" PRIu64 "\n",
			line, l->iterations, ipi, l->self.samples, l->total.samples,
			l->self.cost, l->total.cost, l->self.insns, l->total.insns,
			cli_cpi_pct((double)l->self.cost, r->all),
			cli_cpi_pct((double)l->total.cost, r->all),
			lsa_cpi_per(l->self.cost, l->self.insns),
			lsa_cpi_per(l->total.cost, l->total.insns),
			ipc(&l->self, r->c.st.unit), ipc(&l->total, r->c.st.unit), l->top_cost);
	} else {
		char t[40], c[48], p[40];

		where_of(r, l, file, line, where, sizeof(where));
		snprintf(t, sizeof(t), "%5.1f (%5.1f)", cli_cpi_pct((double)l->total.cost, r->all),
			 cli_cpi_pct((double)l->self.cost, r->all));
		snprintf(c, sizeof(c), "%8.2f (%8.2f)", lsa_cpi_per(l->total.cost, l->total.insns),
			 lsa_cpi_per(l->self.cost, l->self.insns));
		if (r->c.st.unit == LSA_CPI_CYCLES)
			snprintf(p, sizeof(p), "%5.2f (%5.2f)", ipc(&l->total, r->c.st.unit),
				 ipc(&l->self, r->c.st.unit));
		else
			snprintf(p, sizeof(p), "-");
		fprintf(r->f, "%5" PRIu32 " %10" PRIx64 " %-20.20s %-24.24s %12" PRIu64
			" %10.1f %15s %19s %15s\n", i, vaddr, fn, where, l->iterations,
			ipi, t, c, p);
	}
	*first = 0;
}

static void print_loops(struct rc *r, int fam, uint32_t *order, size_t n)
{
	struct lsa_cpi_agg out;
	size_t i, k = 0;
	int first = 1;

	for (i = 0; i < lsa_cpi_nloops(r->c.cpi); i++)
		if (lsa_cpi_loop(r->c.cpi, i)->family == fam)
			order[k++] = (uint32_t)i;
	(void)n;
	sort_cpi = r->c.cpi;
	qsort(order, k, sizeof(*order), cmp_loop);
	lsa_cpi_outside(r->c.cpi, fam, &out);
	if (r->format == REPORT_CPI_JSON) {
		fprintf(r->f, ",\n  \"%s\": {", family_name[fam]);
		json_agg(r, "outside", &out);
		fprintf(r->f, ", \"loops\": [");
	} else if (r->format == REPORT_CPI_TEXT) {
		text_header(r, fam == LSA_CPI_DYNAMIC ?
			    "Loops (dynamic, the loop detector's), by total time:" :
			    "Loops (structural, from dominators), by total time:");
	}
	for (i = 0; i < k; i++) {
		const struct lsa_cpi_loop *l = lsa_cpi_loop(r->c.cpi, order[i]);

		if (cli_cpi_pct((double)l->total.cost, r->all) < r->min_pct ||
		    (r->min_pct > 0 && !l->total.cost))
			continue;
		print_loop(r, order[i], &first);
	}
	if (r->format == REPORT_CPI_JSON)
		fprintf(r->f, "\n  ]}");
	else if (r->format == REPORT_CPI_TEXT)
		fprintf(r->f, "outside every loop: %.1f%% of the time, %.2f %s per "
			"instruction over %" PRIu64 " instructions\n",
			cli_cpi_pct((double)out.cost, r->all), lsa_cpi_per(out.cost, out.insns),
			r->unit, out.insns);
}

static void print_funcs(struct rc *r, uint32_t *order)
{
	size_t nf = lsa_cfg_nfuncs(r->c.cc.cfg), i;
	int first = 1;

	for (i = 0; i < nf; i++)
		order[i] = (uint32_t)i;
	sort_cpi = r->c.cpi;
	qsort(order, nf, sizeof(*order), cmp_func);
	if (r->format == REPORT_CPI_JSON)
		fprintf(r->f, ",\n  \"functions\": [");
	else if (r->format == REPORT_CPI_TEXT)
		fprintf(r->f, "\nFunctions, by total time:\n%-32s %10s %10s %15s %19s %15s\n",
			"function", "samples", "insns", "time% (self)",
			r->c.st.unit == LSA_CPI_NS ? "ns/insn" : "CPI", "IPC (self)");
	for (i = 0; i < nf; i++) {
		const struct lsa_cpi_func *f = lsa_cpi_func(r->c.cpi, order[i]);
		char nb[256];
		const char *name = cli_cpi_func_name(&r->c, order[i], nb, sizeof(nb));

		if (cli_cpi_pct((double)f->total.cost, r->all) < r->min_pct ||
		    (r->min_pct > 0 && !f->total.cost))
			continue;
		if (r->format == REPORT_CPI_JSON) {
			fprintf(r->f, "%s\n    {\"name\": ", first ? "" : ",");
			report_json_str(r->f, name);
			fprintf(r->f, ", ");
			json_agg(r, "self", &f->self);
			fprintf(r->f, ", ");
			json_agg(r, "total", &f->total);
			fprintf(r->f, "}");
		} else if (r->format == REPORT_CPI_CSV) {
			fprintf(r->f, "function,,%zu,,", i);
			report_csv_str(r->f, name);
			fprintf(r->f, ",,0,,,%.3f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%.4f,%.4f,%.6g,%.6g,%.6g,%.6g,\n",
				f->self.samples, f->total.samples, f->self.cost, f->total.cost,
				f->self.insns, f->total.insns,
				cli_cpi_pct((double)f->self.cost, r->all),
				cli_cpi_pct((double)f->total.cost, r->all),
				lsa_cpi_per(f->self.cost, f->self.insns),
				lsa_cpi_per(f->total.cost, f->total.insns),
				ipc(&f->self, r->c.st.unit), ipc(&f->total, r->c.st.unit));
		} else {
			char t[40], c[48], p[40];

			snprintf(t, sizeof(t), "%5.1f (%5.1f)",
				 cli_cpi_pct((double)f->total.cost, r->all),
				 cli_cpi_pct((double)f->self.cost, r->all));
			snprintf(c, sizeof(c), "%8.2f (%8.2f)",
				 lsa_cpi_per(f->total.cost, f->total.insns),
				 lsa_cpi_per(f->self.cost, f->self.insns));
			if (r->c.st.unit == LSA_CPI_CYCLES)
				snprintf(p, sizeof(p), "%5.2f (%5.2f)", ipc(&f->total, r->c.st.unit),
					 ipc(&f->self, r->c.st.unit));
			else
				snprintf(p, sizeof(p), "-");
			fprintf(r->f, "%-32.32s %10.1f %10" PRIu64 " %15s %19s %15s\n", name,
				f->total.samples, f->total.insns, t, c, p);
		}
		first = 0;
	}
	if (r->format == REPORT_CPI_JSON)
		fprintf(r->f, "\n  ]");
}

int report_cpi(FILE *f, const char *file, const char *debug_dir, int format,
	       int no_skid_fix, double min_pct)
{
	struct rc r;
	uint32_t *order;
	size_t n;
	const struct lsa_cpi_stats *st;

	memset(&r, 0, sizeof(r));
	r.f = f;
	r.format = format;
	r.min_pct = min_pct;
	if (cli_cpi_open(&r.c, file, debug_dir, no_skid_fix, 1, 1))
		return -1;
	st = &r.c.st;
	r.unit = lsa_cpi_unit_name(st->unit);
	r.all = (double)st->cost_attributed;
	n = lsa_cpi_nloops(r.c.cpi) + lsa_cfg_nfuncs(r.c.cc.cfg) + 1;
	order = malloc(n * sizeof(*order));
	if (!order) {
		cli_error("out of memory");
		cli_cpi_close(&r.c);
		return -1;
	}
	if (format == REPORT_CPI_JSON) {
		fprintf(f, "{\"source\": ");
		report_json_str(f, file);
		fprintf(f, ", \"unit\": \"%s\", \"event\": ", r.unit);
		report_json_str(f, st->event);
		fprintf(f, ", \"skid_fix\": %s, \"samples\": %" PRIu64
			", \"attributed\": %" PRIu64 ", \"unattributed\": %" PRIu64
			", \"unattributed_pct\": %.4f, \"unmapped\": %" PRIu64
			", \"no_module\": %" PRIu64 ", \"not_executed\": %" PRIu64
			", \"cost\": %" PRIu64 ", \"cost_attributed\": %" PRIu64
			", \"instructions\": %" PRIu64,
			no_skid_fix ? "false" : "true", st->samples, st->attributed,
			st->samples - st->attributed,
			cli_cpi_pct((double)(st->samples - st->attributed), (double)st->samples),
			st->unmapped, st->no_module, st->not_executed, st->cost,
			st->cost_attributed, st->insns);
	} else if (format == REPORT_CPI_CSV) {
		fprintf(f, "# samples=%" PRIu64 " attributed=%" PRIu64
			" unattributed_pct=%.4f unmapped=%" PRIu64 " no_module=%" PRIu64
			" not_executed=%" PRIu64 " unit=%s\n",
			st->samples, st->attributed,
			cli_cpi_pct((double)(st->samples - st->attributed), (double)st->samples),
			st->unmapped, st->no_module, st->not_executed, r.unit);
		fprintf(f, "kind,family,id,head,function,file,line,iterations,"
			"instructions_per_iteration,samples_self,samples_total,cost_self,"
			"cost_total,instructions_self,instructions_total,time_pct_self,"
			"time_pct_total,cost_per_instruction_self,cost_per_instruction_total,"
			"ipc_self,ipc_total,top_cost\n");
	} else {
		fprintf(f, "CPI profile of '%s': cost in %s of %s, %s\n", file, r.unit,
			st->event, no_skid_fix ? "charged where the samples landed" :
			"charged to the instruction executed before each sample");
		cli_cpi_print_account(f, st);
		fprintf(f, "attributed cost: %" PRIu64 " %s over %" PRIu64
			" executed instructions (%.3f %s per instruction); "
			"time %% below is of it\n",
			st->cost_attributed, r.unit, st->insns,
			lsa_cpi_per(st->cost_attributed, st->insns), r.unit);
	}
	print_loops(&r, LSA_CPI_DYNAMIC, order, n);
	print_loops(&r, LSA_CPI_STRUCTURAL, order, n);
	print_funcs(&r, order);
	if (format == REPORT_CPI_JSON)
		fprintf(f, "\n}\n");
	free(order);
	cli_cpi_close(&r.c);
	return 0;
}
