/* report_text.c - the text views of `loopscope report`: the flat profile
 * (LoopProf figure 4), the loop call graph as an indented tree (the
 * content of LoopProf figure 3) and folded stacks for flame graphs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "ls_err.h"

static int trip_by_trips(const void *x, const void *y)
{
	const struct lsp_view_trip *a = x, *b = y;

	return a->trips < b->trips ? -1 : a->trips > b->trips;
}

/* The trip-count histogram of one loop, in trip-count order, then the
 * overflow bucket, last.  With more distinct trip counts than o->buckets
 * (as figure 4 limits them to 10), consecutive ones share a row
 * ("lo-hi", their entries summed; the rows cover the range from the
 * least trip count to the greatest without a gap), so every trip count
 * has its row. */
static int print_trips(FILE *f, const struct lsp_view *v, const struct lsp_view_loop *l,
		       const struct report_opts *o)
{
	struct lsp_view_trip *t;
	size_t i, k, n = l->ntrips, per = 1;
	uint64_t lo;
	char lab[48];

	t = malloc((n + 1) * sizeof(*t));
	if (!t)
		return -LS_ENOMEM;
	memcpy(t, v->trips + l->trip0, n * sizeof(*t));
	qsort(t, n, sizeof(*t), trip_by_trips);
	if (o->buckets && n > o->buckets)
		per = (n + o->buckets - 1) / o->buckets;
	fprintf(f, "\n  %9s %11s\n", "TripCount", "Entries");
	for (i = 0; i < n; i = k) {
		uint64_t e = 0;

		for (k = i; k < n && k < i + per; k++)
			e += t[k].entries;
		lo = per > 1 && i ? t[i - 1].trips + 1 : t[i].trips;
		if (t[k - 1].trips == lo)
			snprintf(lab, sizeof(lab), "%" PRIu64, lo);
		else
			snprintf(lab, sizeof(lab), "%" PRIu64 "-%" PRIu64, lo, t[k - 1].trips);
		fprintf(f, "  %9s %11" PRIu64 "\n", lab, e);
	}
	if (l->over_entries) {
		snprintf(lab, sizeof(lab), ">=%" PRIu32, v->p->trip_limit);
		fprintf(f, "  %9s %11" PRIu64 "\n", lab, l->over_entries);
	}
	free(t);
	return 0;
}

int report_flat(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char where[512], fbuf[256];
	uint32_t *ids;
	int n, i, err = 0;

	n = lsp_view_sorted_loops(v, &ids);
	if (n < 0)
		return n;
	fprintf(f, "%sFlat loop profile of %s: %" PRIu64 " instructions, %zu thread%s, "
		"loops with >= %.2f%% of the total%s\n", report_col(f, "bold"), o->source,
		v->total_insns, v->nthreads, v->nthreads == 1 ? "" : "s", o->min_pct,
		report_col(f, "off"));
	report_filter_note(f, v, o);
	for (i = 0; i < n && !err; i++) {
		const struct lsp_view_loop *l = &v->loops[ids[i]];
		const struct lsp_loop *pl = &p->loops[l->loop];
		const char *hs = report_hot(f, lsp_view_pct(v, l->self));
		const char *ht = report_hot(f, lsp_view_pct(v, l->total));

		if (lsp_view_pct(v, l->total) < o->min_pct)
			break;		/* sorted by total: the rest are below too */
		if (!report_loop_shown(p, l->loop, o))
			continue;
		fprintf(f, "-----\n%sLoop %" PRIu32 "%s at 0x%" PRIx64 " (%s) in %s",
			report_col(f, "loop"), l->loop, report_col(f, "off"), pl->head_vaddr, report_loop_where(p, l->loop, where, sizeof(where)),
			report_func_name(p, pl->func, fbuf, sizeof(fbuf)));
		/* The lines its own code spans, and the inlined function
		 * it sits in. */
		if (pl->first_line && pl->last_line > pl->first_line)
			fprintf(f, ", lines %" PRIu32 "-%" PRIu32, pl->first_line, pl->last_line);
		if (pl->inlined_from[0])
			fprintf(f, ", inlined from %s", pl->inlined_from);
		fprintf(f, "\n"
			"  %16s %14s %14s %14s\n"
			"  %16" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n"
			"  %16s %s%12.2f %%%s %s%12.2f %%%s\n",
			"Total Iterations:", "Self Ins:", "Total Ins:", "Entries:",
			l->iterations, l->self, l->total, l->entries, "",
			hs, lsp_view_pct(v, l->self), *hs ? report_col(f, "off") : "",
			ht, lsp_view_pct(v, l->total), *ht ? report_col(f, "off") : "");
		report_verdict_text(f, p, l->loop);
		err = print_trips(f, v, l, o);
		if (l->entries)
			fprintf(f, "  trip count min %" PRIu64 ", max %" PRIu64 ", mean %.2f\n",
				l->trip_min, l->trip_max, lsp_view_trip_mean(l));
		/* A vectorized loop runs one iteration per vector: its trip
		 * counts are the machine's, not the source's bound.  A
		 * quarter of SIMD instructions is the mark of one (scalar
		 * code uses a few for copies and zeroing). */
		if (l->self_ic[LSP_IC_SIMD])
			fprintf(f, "  simd: %.2f%% of its own instructions%s\n",
				report_simd_pct(l), report_simd_pct(l) >= 25.0 ?
				" (vectorized: a trip count counts vector iterations)" : "");
	}
	if (!err)
		fputs("-----\n", f);
	free(ids);
	return err;
}

static const struct lsp_view *sort_view;	/* qsort has no context argument */

/* Tree order: largest total first, the way the flat profile sorts. */
static int link_by_total(const void *x, const void *y)
{
	const struct lsp_view_link *a = x, *b = y;
	uint64_t ta = sort_view->loops[a->loop].total, tb = sort_view->loops[b->loop].total;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return a->loop < b->loop ? -1 : a->loop > b->loop;
}

/* The links sorted for printing; NULL when out of memory. */
static struct lsp_view_link *by_total(const struct lsp_view *v,
				      const struct lsp_view_link *ln, size_t n)
{
	struct lsp_view_link *c = malloc((n + 1) * sizeof(*c));

	if (!c)
		return NULL;
	memcpy(c, ln, n * sizeof(*c));
	sort_view = v;
	qsort(c, n, sizeof(*c), link_by_total);
	sort_view = NULL;
	return c;
}

struct tree {
	FILE *f;
	const struct lsp_view *v;
	const struct report_opts *o;
	char *on_path;		/* loops on the current path: recursion */
	char *done;		/* loops already expanded once */
	int nomem;
};

/* One loop, entered from its parent by link `in`, and, the first time it
 * is met, its children; a loop met again is printed without its subtree
 * (marked), so the output stays linear in the edges even when the graph
 * shares subtrees.  Its share is that of the instructions it ran while
 * entered from this parent: a loop in a function called from several
 * loops shows under each what it ran for that one, never more than the
 * parent.  The profile keeps those per parent, not per path: below a loop
 * entered from several parents, its children's shares are scaled by the
 * part of it that ran from this one (`scale`), an estimate marked "~".
 * A loop the filter hides (another module's, the loader's) is not
 * printed: its children stand in its place. */
static void tree_node(struct tree *t, const struct lsp_view_link *in, double scale,
		      int depth);

static void tree_kids(struct tree *t, uint32_t loop, double next, int depth)
{
	const struct lsp_view *v = t->v;
	const struct lsp_view_loop *l = &v->loops[loop];
	struct lsp_view_link *kids = by_total(v, v->children + l->child0, l->nchildren);
	size_t i;

	if (!kids) {
		t->nomem = 1;
		return;
	}
	for (i = 0; i < l->nchildren; i++)
		if (lsp_view_pct(v, kids[i].total) * next >= t->o->min_pct)
			tree_node(t, &kids[i], next, depth);
	free(kids);
}

static void tree_node(struct tree *t, const struct lsp_view_link *in, double scale,
		      int depth)
{
	const struct lsp_view *v = t->v;
	uint32_t loop = in->loop;
	const struct lsp_view_loop *l = &v->loops[loop];
	double share = (double)in->total * scale, next;
	char num[32];
	char where[512], fbuf[256];
	const char *mark = "", *hot;

	if (!report_loop_shown(v->p, loop, t->o)) {
		if (t->on_path[loop])
			return;
		t->on_path[loop] = 1;
		next = l->total && share < (double)l->total ? share / (double)l->total : 1.0;
		tree_kids(t, loop, next, depth);
		t->on_path[loop] = 0;
		return;
	}
	if (t->on_path[loop])
		mark = "  (recursion)";
	else if (t->done[loop] && l->nchildren)
		mark = "  (children shown above)";
	snprintf(num, sizeof(num), "%s%.2f", scale < 1.0 ? "~" : "",
		 v->total_insns ? 100.0 * share / (double)v->total_insns : 0.0);
	hot = report_hot(t->f, v->total_insns ? 100.0 * share / (double)v->total_insns : 0.0);
	fprintf(t->f, "%*s%s%6s%%%s  %sloop %" PRIu32 "%s  %s  %s  [%" PRIu64 " entries]%s\n",
		2 * depth, "", hot, num, *hot ? report_col(t->f, "off") : "",
		report_col(t->f, "loop"), loop, report_col(t->f, "off"),
		report_func_name(v->p, v->p->loops[loop].func, fbuf, sizeof(fbuf)),
		report_loop_where(v->p, loop, where, sizeof(where)), in->count, mark);
	if (*mark || t->done[loop])
		return;
	t->done[loop] = t->on_path[loop] = 1;
	next = l->total && share < (double)l->total ? share / (double)l->total : 1.0;
	tree_kids(t, loop, next, depth + 1);
	t->on_path[loop] = 0;
}

int report_tree(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	struct tree t = { f, v, o, NULL, NULL, 0 };
	struct lsp_view_link *tops;
	size_t i, n = v->p->n_loops;

	t.on_path = calloc(n + 1, 1);
	t.done = calloc(n + 1, 1);
	tops = by_total(v, v->tops, v->ntops);
	if (!t.on_path || !t.done || !tops) {
		free(t.on_path);
		free(t.done);
		free(tops);
		return -LS_ENOMEM;
	}
	fprintf(f, "%sLoop call graph of %s: %" PRIu64 " instructions; %% of the total "
		"run while entered from the parent, entries from the parent; loops "
		"with >= %.2f%%%s\n", report_col(f, "bold"), o->source,
		v->total_insns, o->min_pct, report_col(f, "off"));
	report_filter_note(f, v, o);
	fprintf(f, "%6.2f%%  (top level)  %.2f%% outside loops\n",
		v->total_insns ? 100.0 : 0.0, lsp_view_pct(v, v->outside));
	for (i = 0; i < v->ntops && !t.nomem; i++)
		if (lsp_view_pct(v, tops[i].total) >= o->min_pct)
			tree_node(&t, &tops[i], 1.0, 1);
	free(tops);
	free(t.on_path);
	free(t.done);
	return t.nomem ? -LS_ENOMEM : 0;
}

/* A frame name without the folded format's separators. */
static void put_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == ' ' || *s == '\t' || *s == '\n' ? '_' : *s, f);
}

/* The stack of loop i: its chain of first parents one level up (the
 * parents list is sorted by entries, so the busiest), outermost first,
 * with the function named wherever the chain crosses into another. */
static void folded_stack(FILE *f, const struct lsp_view *v, uint32_t loop)
{
	const struct lsp_view_loop *l = &v->loops[loop];
	char where[512], fbuf[256];
	uint32_t func = v->p->loops[loop].func;
	size_t i;

	if (l->depth > 1) {
		for (i = 0; i < l->nparents; i++) {
			uint32_t up = v->parents[l->parent0 + i].loop;

			if (up != LSP_NONE && v->loops[up].depth + 1 == l->depth) {
				folded_stack(f, v, up);
				if (v->p->loops[up].func != func) {
					fputc(';', f);
					put_frame(f, report_func_name(v->p, func, fbuf, sizeof(fbuf)));
				}
				goto self;
			}
		}
	}
	put_frame(f, report_func_name(v->p, func, fbuf, sizeof(fbuf)));
self:
	fputs(";loop@", f);
	put_frame(f, report_loop_where(v->p, loop, where, sizeof(where)));
}

int report_folded(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	size_t i;

	if (v->outside)
		fprintf(f, "[outside_loops] %" PRIu64 "\n", v->outside);
	for (i = 0; i < v->p->n_loops; i++) {
		const struct lsp_view_loop *l = &v->loops[i];

		if (!l->seen || !l->self || lsp_view_pct(v, l->total) < o->min_pct ||
		    !report_loop_shown(v->p, (uint32_t)i, o))
			continue;
		folded_stack(f, v, (uint32_t)i);
		fprintf(f, " %" PRIu64 "\n", l->self);
	}
	return 0;
}
