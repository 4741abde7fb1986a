/* report_cpi.c - `loopscope report --cpi`: time share, cost per
 * instruction (CPI, or ns per instruction with cpu-clock) and IPC, self
 * and total, per loop (OptiWISE figure 1's loop table) and per function,
 * as text, JSON or CSV.
 *
 * The input is a profile with the sampled-CPI records (`analyze --cpi`),
 * or a bundle, analyzed as that does on the fly (cli_cpi_load()): the
 * same bytes either way.  The records are one run's: `merge` drops them,
 * as costs of separate sampling runs would not be comparable.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cpi_util.h"
#include "cli/report.h"

struct rc {
	struct lsp_profile *p;
	FILE *f;
	int format;		/* REPORT_CPI_* */
	double min_pct;
	const char *unit;
	double all;		/* attributed cost */
};

static double ipc(const struct lsp_cpiagg *a, unsigned unit)
{
	return unit == LSP_CPI_CYCLES && a->cost ? (double)a->insns / (double)a->cost : 0;
}

static void json_agg(struct rc *r, const char *name, const struct lsp_cpiagg *a)
{
	fprintf(r->f, "\"%s\": {\"samples\": %.3f, \"cost\": %" PRIu64
		", \"instructions\": %" PRIu64 ", \"time_pct\": %.4f"
		", \"cost_per_instruction\": %.6g, ", name, a->samples, a->cost,
		a->insns, cli_cpi_pct((double)a->cost, r->all),
		cli_cpi_per(a->cost, a->insns));
	if (r->p->cpi.unit == LSP_CPI_CYCLES)
		fprintf(r->f, "\"ipc\": %.6g}", ipc(a, r->p->cpi.unit));
	else
		fprintf(r->f, "\"ipc\": null}");
}

static const struct lsp_profile *sort_p;

static int cmp_loop(const void *x, const void *y)
{
	const struct lsp_cpiloop *a = &sort_p->cpiloops[*(const uint32_t *)x];
	const struct lsp_cpiloop *b = &sort_p->cpiloops[*(const uint32_t *)y];

	if (a->total.cost != b->total.cost)
		return a->total.cost > b->total.cost ? -1 : 1;
	return a->total.insns > b->total.insns ? -1 : a->total.insns < b->total.insns;
}

static int cmp_func(const void *x, const void *y)
{
	const struct lsp_cpifunc *a = &sort_p->cpifuncs[*(const uint32_t *)x];
	const struct lsp_cpifunc *b = &sort_p->cpifuncs[*(const uint32_t *)y];

	if (a->total.cost != b->total.cost)
		return a->total.cost > b->total.cost ? -1 : 1;
	return a->self.cost > b->self.cost ? -1 : a->self.cost < b->self.cost;
}

static void text_header(struct rc *r, const char *what)
{
	const char *u = r->p->cpi.unit == LSP_CPI_NS ? "ns/insn" : "CPI";

	fprintf(r->f, "\n%s\n", what);
	fprintf(r->f, "%5s %10s %-20s %-24s %12s %10s %15s %19s %15s\n", "id", "head",
		"function", "file:line", "iterations", "insn/iter", "time% (self)",
		u, "IPC (self)");
}

static void print_loop(struct rc *r, uint32_t i, int *first)
{
	const struct lsp_cpiloop *l = &r->p->cpiloops[i];
	uint64_t vaddr = l->vaddr;
	const char *file = l->file[0] ? l->file : NULL;
	int line = (int)l->line;
	const char *fn = r->p->cpifuncs[l->func].name;
	unsigned unit = r->p->cpi.unit;
	double ipi = l->iterations ? (double)l->total.insns / (double)l->iterations : 0;

	if (r->format == REPORT_CPI_JSON) {
		fprintf(r->f, "%s\n    {\"id\": %" PRIu32 ", \"head\": \"0x%" PRIx64
			"\", \"function\": ", *first ? "" : ",", i, vaddr);
		report_json_str(r->f, fn);
		fprintf(r->f, ", \"file\": ");
		report_json_str(r->f, file ? file : "");
		fprintf(r->f, ", \"line\": %d, \"parent\": ", line);
		if (l->parent == LSP_NONE)
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
		fprintf(r->f, "loop,%s,%" PRIu32 ",0x%" PRIx64 ",", lsp_cpi_family_name(l->family),
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
			cli_cpi_per(l->self.cost, l->self.insns),
			cli_cpi_per(l->total.cost, l->total.insns),
			ipc(&l->self, unit), ipc(&l->total, unit), l->top_cost);
	} else {
		char t[40], c[48], p[40];

		snprintf(t, sizeof(t), "%5.1f (%5.1f)", cli_cpi_pct((double)l->total.cost, r->all),
			 cli_cpi_pct((double)l->self.cost, r->all));
		snprintf(c, sizeof(c), "%8.2f (%8.2f)", cli_cpi_per(l->total.cost, l->total.insns),
			 cli_cpi_per(l->self.cost, l->self.insns));
		if (unit == LSP_CPI_CYCLES)
			snprintf(p, sizeof(p), "%5.2f (%5.2f)", ipc(&l->total, unit),
				 ipc(&l->self, unit));
		else
			snprintf(p, sizeof(p), "-");
		fprintf(r->f, "%5" PRIu32 " %10" PRIx64 " %-20.20s %-24.24s %12" PRIu64
			" %10.1f %15s %19s %15s\n", i, vaddr, fn, l->where, l->iterations,
			ipi, t, c, p);
	}
	*first = 0;
}

static void print_loops(struct rc *r, unsigned fam, uint32_t *order)
{
	const struct lsp_cpiagg *out = &r->p->cpi.outside[fam];
	size_t i, k = 0;
	int first = 1;

	for (i = 0; i < r->p->n_cpiloops; i++)
		if (r->p->cpiloops[i].family == fam)
			order[k++] = (uint32_t)i;
	sort_p = r->p;
	qsort(order, k, sizeof(*order), cmp_loop);
	if (r->format == REPORT_CPI_JSON) {
		fprintf(r->f, ",\n  \"%s\": {", lsp_cpi_family_name(fam));
		json_agg(r, "outside", out);
		fprintf(r->f, ", \"loops\": [");
	} else if (r->format == REPORT_CPI_TEXT) {
		text_header(r, fam == LSP_CPI_DYNAMIC ?
			    "Loops (dynamic, the loop detector's), by total time:" :
			    "Loops (structural, from dominators), by total time:");
	}
	for (i = 0; i < k; i++) {
		const struct lsp_cpiloop *l = &r->p->cpiloops[order[i]];

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
			cli_cpi_pct((double)out->cost, r->all), cli_cpi_per(out->cost, out->insns),
			r->unit, out->insns);
}

static void print_funcs(struct rc *r, uint32_t *order)
{
	size_t nf = r->p->n_cpifuncs, i;
	unsigned unit = r->p->cpi.unit;
	int first = 1;

	for (i = 0; i < nf; i++)
		order[i] = (uint32_t)i;
	sort_p = r->p;
	qsort(order, nf, sizeof(*order), cmp_func);
	if (r->format == REPORT_CPI_JSON)
		fprintf(r->f, ",\n  \"functions\": [");
	else if (r->format == REPORT_CPI_TEXT)
		fprintf(r->f, "\nFunctions, by total time:\n%-32s %10s %10s %15s %19s %15s\n",
			"function", "samples", "insns", "time% (self)",
			unit == LSP_CPI_NS ? "ns/insn" : "CPI", "IPC (self)");
	for (i = 0; i < nf; i++) {
		const struct lsp_cpifunc *f = &r->p->cpifuncs[order[i]];
		const char *name = f->name;

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
				cli_cpi_per(f->self.cost, f->self.insns),
				cli_cpi_per(f->total.cost, f->total.insns),
				ipc(&f->self, unit), ipc(&f->total, unit));
		} else {
			char t[40], c[48], p[40];

			snprintf(t, sizeof(t), "%5.1f (%5.1f)",
				 cli_cpi_pct((double)f->total.cost, r->all),
				 cli_cpi_pct((double)f->self.cost, r->all));
			snprintf(c, sizeof(c), "%8.2f (%8.2f)",
				 cli_cpi_per(f->total.cost, f->total.insns),
				 cli_cpi_per(f->self.cost, f->self.insns));
			if (unit == LSP_CPI_CYCLES)
				snprintf(p, sizeof(p), "%5.2f (%5.2f)", ipc(&f->total, unit),
					 ipc(&f->self, unit));
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
	const struct lsp_cpi *st;
	const char *src;

	memset(&r, 0, sizeof(r));
	r.f = f;
	r.format = format;
	r.min_pct = min_pct;
	if (cli_cpi_load(file, debug_dir, no_skid_fix, 1, 1, &r.p))
		return -1;
	st = &r.p->cpi;
	/* the bundle, as analyzed: the same from it and from its profile */
	src = r.p->source ? r.p->source : file;
	r.unit = lsp_cpi_unit_name(st->unit);
	r.all = (double)st->cost_attributed;
	n = r.p->n_cpiloops + r.p->n_cpifuncs + 1;
	order = malloc(n * sizeof(*order));
	if (!order) {
		cli_error("out of memory");
		lsp_free(r.p);
		return -1;
	}
	if (format == REPORT_CPI_JSON) {
		fprintf(f, "{\"source\": ");
		report_json_str(f, src);
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
		fprintf(f, "CPI profile of '%s': cost in %s of %s, %s\n", src, r.unit,
			st->event, no_skid_fix ? "charged where the samples landed" :
			"charged to the instruction executed before each sample");
		cli_cpi_print_account(f, st);
		fprintf(f, "attributed cost: %" PRIu64 " %s over %" PRIu64
			" executed instructions (%.3f %s per instruction); "
			"time %% below is of it\n",
			st->cost_attributed, r.unit, st->insns,
			cli_cpi_per(st->cost_attributed, st->insns), r.unit);
	}
	print_loops(&r, LSP_CPI_DYNAMIC, order);
	print_loops(&r, LSP_CPI_STRUCTURAL, order);
	print_funcs(&r, order);
	if (format == REPORT_CPI_JSON)
		fprintf(f, "\n}\n");
	free(order);
	lsp_free(r.p);
	return 0;
}
