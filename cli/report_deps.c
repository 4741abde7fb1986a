/* report_deps.c - the parallelization verdicts of a profile made with
 * `analyze --deps`, for the report views: a line in the flat view, fields
 * in JSON and CSV, and `report --parallel`, the loops hot and
 * parallelizable first. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/report.h"

const struct lsp_verdict *report_verdict_of(const struct lsp_profile *p, uint32_t loop)
{
	size_t i;

	for (i = 0; i < p->n_verdicts; i++)
		if (p->verdicts[i].loop == loop)
			return &p->verdicts[i];
	return NULL;
}

/* "RAW A[] kern.c:19 -> kern.c:19 x2" for each deciding dependence of
 * loop, at most max of them, separated by "; ". */
static void put_deciding(FILE *f, const struct lsp_profile *p, uint32_t loop, int max)
{
	size_t i;
	int n = 0;

	for (i = 0; i < p->n_deps && n < max; i++) {
		const struct lsp_dep *d = &p->deps[i];

		if (d->loop != loop || !d->decides)
			continue;
		fprintf(f, "%s%s %s %s:%" PRIu32 " -> %s:%" PRIu32 " x%" PRIu64, n++ ? "; " : "",
			lsp_dep_kind_name(d->kind), d->var, report_base(d->src_file),
			d->src_line, report_base(d->dst_file), d->dst_line, d->count);
	}
}

static void put_needs(FILE *f, const struct lsp_verdict *vd)
{
	unsigned k;

	for (k = LSP_V_REDUCTION; vd->verdict < LSP_V_NOT && k < LSP_V_NOT; k++)
		if (vd->needs >> k & 1 && k != vd->verdict)
			fprintf(f, ", %s", lsp_verdict_name(k));
}

void report_verdict_text(FILE *f, const struct lsp_profile *p, uint32_t loop)
{
	const struct lsp_verdict *vd = report_verdict_of(p, loop);

	if (!vd)
		return;
	fprintf(f, "  parallel: %s", lsp_verdict_name(vd->verdict));
	put_needs(f, vd);
	if (vd->verdict != LSP_V_PARALLEL) {
		fputs(" (", f);
		put_deciding(f, p, loop, 3);
		fputc(')', f);
	}
	fputc('\n', f);
}

void report_verdict_json(FILE *f, const struct lsp_profile *p, uint32_t loop)
{
	const struct lsp_verdict *vd = report_verdict_of(p, loop);
	size_t i;
	int n = 0;

	if (!vd) {
		fputs(", \"verdict\": null", f);
		return;
	}
	fprintf(f, ", \"verdict\": \"%s\", \"deciding\": [", lsp_verdict_name(vd->verdict));
	for (i = 0; i < p->n_deps; i++) {
		const struct lsp_dep *d = &p->deps[i];

		if (d->loop != loop || !d->decides)
			continue;
		fprintf(f, "%s{\"kind\": \"%s\", \"var\": ", n++ ? ", " : "",
			lsp_dep_kind_name(d->kind));
		report_json_str(f, d->var);
		fprintf(f, ", \"src\": \"0x%" PRIx64 "\", \"dst\": \"0x%" PRIx64 "\", \"count\": %"
			PRIu64 "}", d->src_vaddr, d->dst_vaddr, d->count);
	}
	fputc(']', f);
}

const char *report_verdict_name(const struct lsp_profile *p, uint32_t loop)
{
	const struct lsp_verdict *vd = report_verdict_of(p, loop);

	return vd ? lsp_verdict_name(vd->verdict) : "";
}

static const struct lsp_view *sort_v;	/* qsort has no context argument */

/* Parallelizable in some way before not, then by total instructions. */
static int by_promise(const void *a, const void *b)
{
	const struct lsp_view_loop *x = &sort_v->loops[*(const uint32_t *)a];
	const struct lsp_view_loop *y = &sort_v->loops[*(const uint32_t *)b];
	const struct lsp_verdict *vx = report_verdict_of(sort_v->p, x->loop);
	const struct lsp_verdict *vy = report_verdict_of(sort_v->p, y->loop);
	int px = vx && vx->verdict != LSP_V_NOT, py = vy && vy->verdict != LSP_V_NOT;

	if (px != py)
		return py - px;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->loop < y->loop ? -1 : x->loop > y->loop;
}

int report_parallel(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char where[512], fbuf[256];
	uint32_t *ids;
	int n, i, shown = 0;

	if (!p->n_verdicts) {
		fprintf(f, "%s has no verdicts: make it with 'loopscope analyze --deps' "
			"from a bundle recorded with 'loopscope record --mem'\n", o->source);
		return 0;
	}
	n = lsp_view_sorted_loops(v, &ids);
	if (n < 0)
		return n;
	sort_v = v;
	qsort(ids, (size_t)n, sizeof(*ids), by_promise);
	fprintf(f, "Loops of %s, parallelizable first, by share of %" PRIu64
		" instructions:\n%7s  %-20s %5s  %s\n", o->source, v->total_insns, "Total%",
		"Verdict", "Loop", "Where");
	for (i = 0; i < n; i++) {
		const struct lsp_view_loop *l = &v->loops[ids[i]];
		const struct lsp_verdict *vd = report_verdict_of(p, l->loop);

		if (!vd || lsp_view_pct(v, l->total) < o->min_pct)
			continue;
		fprintf(f, "%6.2f%%  %-20s %5" PRIu32 "  %s in %s", lsp_view_pct(v, l->total),
			lsp_verdict_name(vd->verdict), l->loop,
			report_loop_where(p, l->loop, where, sizeof(where)),
			report_func_name(p, p->loops[l->loop].func, fbuf, sizeof(fbuf)));
		put_needs(f, vd);
		if (vd->verdict != LSP_V_PARALLEL) {
			fputs("\n         ", f);
			put_deciding(f, p, l->loop, 2);
		}
		fputc('\n', f);
		shown++;
	}
	if (!shown)
		fprintf(f, "(no loop with a verdict at >= %.2f%%)\n", o->min_pct);
	free(ids);
	return 0;
}
