/* report_json.c - the machine-readable views: JSON (schema in
 * man/loopscope-report.1, stable: fields are only ever added), CSV (one
 * row per loop) and the loop call graph as Graphviz DOT.
 *
 * Addresses and offsets are JSON strings ("0x401020"): a 64-bit address
 * does not fit the doubles many JSON readers turn numbers into.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "ls_err.h"

#define REPORT_JSON_VERSION 1

static void json_classes(FILE *f, const uint64_t *ic)
{
	unsigned c;

	fputc('{', f);
	for (c = 0; c < LSP_NCLASS; c++)
		fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "", lsp_class_name(c), ic[c]);
	fputc('}', f);
}

static void json_links(FILE *f, const struct lsp_view_link *ln, size_t n)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"id\": ", i ? ", " : "");
		if (ln[i].loop == LSP_NONE)
			fputs("null", f);
		else
			fprintf(f, "%" PRIu32, ln[i].loop);
		fprintf(f, ", \"entries\": %" PRIu64 "}", ln[i].count);
	}
	fputc(']', f);
}

static void json_loop(FILE *f, const struct lsp_view *v, const struct lsp_view_loop *l)
{
	const struct lsp_profile *p = v->p;
	const struct lsp_loop *pl = &p->loops[l->loop];
	char fbuf[256];
	size_t k;

	fprintf(f, "    {\"id\": %" PRIu32 ", \"module\": ", l->loop);
	report_json_str(f, p->modules[pl->module].path);
	fprintf(f, ", \"head\": \"0x%" PRIx64 "\", \"head_offset\": \"0x%" PRIx64
		"\", \"function\": ", pl->head_vaddr, pl->head_off);
	report_json_str(f, report_func_name(p, pl->func, fbuf, sizeof(fbuf)));
	fputs(", \"file\": ", f);
	report_json_str(f, pl->file);
	fprintf(f, ", \"line\": %" PRIu32 ", \"head_file\": ", pl->line);
	report_json_str(f, pl->head_file);
	fprintf(f, ", \"head_line\": %" PRIu32 ", \"first_line\": %" PRIu32
		", \"last_line\": %" PRIu32 ", \"inlined_from\": ", pl->head_line,
		pl->first_line, pl->last_line);
	report_json_str(f, pl->inlined_from);
	fprintf(f, ",\n     \"entries\": %" PRIu64
		", \"iterations\": %" PRIu64 ", \"self_instructions\": %" PRIu64
		", \"total_instructions\": %" PRIu64 ", \"self_percent\": %.4f"
		", \"total_percent\": %.4f, \"depth\": %" PRIu32 ", \"simd_percent\": %.4f"
		",\n     \"trip_counts\": {",
		l->entries, l->iterations, l->self, l->total,
		lsp_view_pct(v, l->self), lsp_view_pct(v, l->total), l->depth,
		report_simd_pct(l));
	for (k = 0; k < l->ntrips; k++)
		fprintf(f, "%s\"%" PRIu64 "\": %" PRIu64, k ? ", " : "",
			v->trips[l->trip0 + k].trips, v->trips[l->trip0 + k].entries);
	fprintf(f, "}, \"trip_min\": %" PRIu64 ", \"trip_max\": %" PRIu64
		", \"trip_mean\": %.4f,\n     \"overflow\": {\"limit\": %" PRIu32
		", \"entries\": %" PRIu64 ", \"iterations\": %" PRIu64 "},\n     \"self_classes\": ",
		l->trip_min, l->trip_max, lsp_view_trip_mean(l), p->trip_limit,
		l->over_entries, l->over_sum);
	json_classes(f, l->self_ic);
	fputs(",\n     \"total_classes\": ", f);
	json_classes(f, l->total_ic);
	report_verdict_json(f, p, l->loop);
	fputs(",\n     \"parents\": ", f);
	json_links(f, v->parents + l->parent0, l->nparents);
	fputs(", \"children\": ", f);
	json_links(f, v->children + l->child0, l->nchildren);
	fputs(",\n     \"tails\": [", f);
	for (k = 0; k < l->ntails; k++) {
		const struct lsp_view_tail *t = &v->tails[l->tail0 + k];

		fprintf(f, "%s{\"address\": \"0x%" PRIx64 "\", \"offset\": \"0x%" PRIx64
			"\", \"count\": %" PRIu64 "}", k ? ", " : "", t->vaddr, t->off, t->count);
	}
	fputs("],\n     \"calls\": [", f);
	for (k = 0; k < l->ncalls; k++) {
		const struct lsp_view_call *c = &v->calls[l->call0 + k];

		fprintf(f, "%s{\"address\": \"0x%" PRIx64 "\", \"offset\": \"0x%" PRIx64
			"\", \"callee\": ", k ? ", " : "", c->vaddr, c->off);
		report_json_str(f, report_func_name(p, c->callee, fbuf, sizeof(fbuf)));
		fprintf(f, ", \"count\": %" PRIu64 "}", c->count);
	}
	fputs("]}", f);
}

int report_json(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char fbuf[256];
	uint32_t *ids;
	size_t i, j, shown = 0;
	int n, k;

	n = lsp_view_sorted_loops(v, &ids);
	if (n < 0)
		return n;
	fprintf(f, "{\n  \"format\": \"loopscope-report\", \"version\": %d,\n  \"source\": ",
		REPORT_JSON_VERSION);
	report_json_str(f, o->source);
	fputs(", \"thread\": ", f);
	if (v->tid == LSP_VIEW_ALL)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, v->tid);
	fprintf(f, ", \"runs\": %" PRIu32 ", \"trip_limit\": %" PRIu32
		", \"min_percent\": %.4f,\n  \"total_instructions\": %" PRIu64
		", \"outside_instructions\": %" PRIu64 ", \"losses\": %" PRIu64
		",\n  \"outside_classes\": ", p->nruns, p->trip_limit, o->min_pct,
		v->total_insns, v->outside, v->losses);
	json_classes(f, v->outside_ic);
	fputs(",\n  \"threads\": [", f);
	for (i = 0; i < p->n_threads; i++) {
		const struct lsp_thread *t = &p->threads[i];

		if (v->tid != LSP_VIEW_ALL && (int64_t)t->tid != v->tid)
			continue;
		fprintf(f, "%s\n    {\"run\": %" PRIu32 ", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
			", \"instructions\": %" PRIu64 ", \"outside_instructions\": %" PRIu64
			", \"losses\": %" PRIu64 "}", shown++ ? "," : "", t->run, t->pid, t->tid,
			t->insns, t->outside, t->losses);
	}
	fputs("\n  ],\n  \"loops\": [", f);
	for (k = 0, shown = 0; k < n; k++) {
		const struct lsp_view_loop *l = &v->loops[ids[k]];

		if (lsp_view_pct(v, l->total) < o->min_pct)
			break;
		if (!report_loop_shown(p, l->loop, o))
			continue;
		fputs(shown++ ? ",\n" : "\n", f);
		json_loop(f, v, l);
	}
	fputs("\n  ],\n  \"functions\": [", f);
	for (i = 0, shown = 0; i < p->n_funcs; i++) {
		const struct lsp_view_func *x = &v->funcs[i];
		const struct lsp_func *pf = &p->funcs[i];

		if (!x->seen || (lsp_view_pct(v, x->self) < o->min_pct &&
				 lsp_view_pct(v, x->loop_level) < o->min_pct) ||
		    !report_func_shown(p, (uint32_t)i, o))
			continue;
		fprintf(f, "%s\n    {\"id\": %zu, \"name\": ", shown++ ? "," : "", i);
		report_json_str(f, report_func_name(p, (uint32_t)i, fbuf, sizeof(fbuf)));
		fputs(", \"module\": ", f);
		report_json_str(f, pf->module < p->n_modules ? p->modules[pf->module].path : "");
		fprintf(f, ", \"address\": \"0x%" PRIx64 "\", \"file\": ", pf->vaddr);
		report_json_str(f, pf->file);
		fprintf(f, ", \"line\": %" PRIu32 ", \"self_instructions\": %" PRIu64
			", \"total_instructions\": %" PRIu64 ", \"loop_level_instructions\": %"
			PRIu64 ", \"calls\": %" PRIu64 ", \"loops\": [", pf->line, x->self,
			x->total, x->loop_level, x->calls);
		/* the loops whose head is in the function */
		for (j = 0, k = 0; j < p->n_loops; j++)
			if (p->loops[j].func == i && v->loops[j].seen)
				fprintf(f, "%s%zu", k++ ? ", " : "", j);
		fputs("]}", f);
	}
	fputs("\n  ]\n}\n", f);
	free(ids);
	return 0;
}

/* RFC 4180: quoted when it holds a comma, quote or line break. */
void report_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int report_csv(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char fbuf[256];
	uint32_t *ids;
	int n, k;

	n = lsp_view_sorted_loops(v, &ids);
	if (n < 0)
		return n;
	fprintf(f, "id,module,head,function,file,line,head_file,head_line,first_line,last_line,"
	      "inlined_from,depth,entries,iterations,"
	      "self_instructions,self_percent,total_instructions,total_percent,"
	      "trip_min,trip_max,trip_mean,overflow_entries,simd_percent%s\n",
	      p->n_verdicts ? ",verdict" : "");
	for (k = 0; k < n; k++) {
		const struct lsp_view_loop *l = &v->loops[ids[k]];
		const struct lsp_loop *pl = &p->loops[l->loop];

		if (lsp_view_pct(v, l->total) < o->min_pct)
			break;
		if (!report_loop_shown(p, l->loop, o))
			continue;
		fprintf(f, "%" PRIu32 ",", l->loop);
		report_csv_str(f, p->modules[pl->module].path);
		fprintf(f, ",0x%" PRIx64 ",", pl->head_vaddr);
		report_csv_str(f, report_func_name(p, pl->func, fbuf, sizeof(fbuf)));
		fputc(',', f);
		report_csv_str(f, pl->file);
		fprintf(f, ",%" PRIu32 ",", pl->line);
		report_csv_str(f, pl->head_file);
		fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", pl->head_line,
			pl->first_line, pl->last_line);
		report_csv_str(f, pl->inlined_from);
		fprintf(f, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,%"
			PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%.4f%s%s\n",
			l->depth, l->entries, l->iterations, l->self, lsp_view_pct(v, l->self),
			l->total, lsp_view_pct(v, l->total), l->trip_min, l->trip_max,
			lsp_view_trip_mean(l), l->over_entries, report_simd_pct(l),
			p->n_verdicts ? "," : "", report_verdict_name(p, l->loop));
	}
	free(ids);
	return 0;
}

/* A DOT string body: quotes and backslashes escaped; "\n" in labels is
 * written by the caller as DOT's line break. */
static void dot_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\t' ? ' ' : *s, f);
	}
}

int report_dot(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char where[512], fbuf[256];
	size_t i, k;

#define SHOWN(i) (v->loops[i].seen && lsp_view_pct(v, v->loops[i].total) >= o->min_pct)
	fputs("digraph loopscope {\n\tnode [shape=box, fontname=\"Helvetica\"];\n"
	      "\tedge [fontname=\"Helvetica\"];\n\ttop [label=\"", f);
	dot_str(f, report_base(o->source));
	fprintf(f, "\\n%" PRIu64 " instructions\\n%.2f%% outside loops\", shape=ellipse];\n",
		v->total_insns, lsp_view_pct(v, v->outside));
	for (i = 0; i < p->n_loops; i++) {
		if (!SHOWN(i))
			continue;
		fprintf(f, "\tl%zu [label=\"loop %zu  %.2f%%\\nself %.2f%%\\n", i, i,
			lsp_view_pct(v, v->loops[i].total), lsp_view_pct(v, v->loops[i].self));
		dot_str(f, report_func_name(p, p->loops[i].func, fbuf, sizeof(fbuf)));
		fputs("\\n", f);
		dot_str(f, report_loop_where(p, (uint32_t)i, where, sizeof(where)));
		fputs("\"];\n", f);
	}
	/* Edges: the entries from the parent and the share of the
	 * instructions the child ran while entered from it (a node's total
	 * is over all its parents). */
	for (i = 0; i < v->ntops; i++)
		if (SHOWN(v->tops[i].loop))
			fprintf(f, "\ttop -> l%" PRIu32 " [label=\"%" PRIu64 "\\n%.2f%%\"];\n",
				v->tops[i].loop, v->tops[i].count,
				lsp_view_pct(v, v->tops[i].total));
	for (i = 0; i < p->n_loops; i++) {
		const struct lsp_view_loop *l = &v->loops[i];

		if (!SHOWN(i))
			continue;
		for (k = 0; k < l->nchildren; k++) {
			const struct lsp_view_link *c = &v->children[l->child0 + k];

			if (SHOWN(c->loop))
				fprintf(f, "\tl%zu -> l%" PRIu32 " [label=\"%" PRIu64 "\\n%.2f%%\"];\n",
					i, c->loop, c->count, lsp_view_pct(v, c->total));
		}
	}
	fputs("}\n", f);
	return 0;
#undef SHOWN
}
