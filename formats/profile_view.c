/* profile_view.c - sums a profile's per-thread rows into the per-loop,
 * per-function and per-edge totals reports print, and derives the loop
 * call graph's depths.
 *
 * Rows are gathered into one scratch array per kind, sorted by their key
 * and summed run by run: O(rows log rows), no per-loop hash tables.
 * Rows whose indexes are out of range are skipped rather than trusted:
 * profiles from lsp_read() never have them, hand-built ones might.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/profile_view.h"
#include "ls_err.h"

/* A scratch row: key (loop, a, k1, k2), value count, and a payload. */
struct row {
	uint32_t loop, a;
	uint64_t k1, k2;
	uint64_t count, extra;
	uint64_t total;		/* summed like count (edges' instructions) */
};

static int row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->loop != b->loop)
		return a->loop < b->loop ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	return 0;
}

/* Sorts rows and sums equal keys in place; returns the distinct count. */
static size_t row_sum(struct row *r, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), row_cmp);
	for (i = 1; i < n; i++) {
		if (!row_cmp(&r[k], &r[i])) {
			r[k].count += r[i].count;
			r[k].total += r[i].total;
		}
		else
			r[++k] = r[i];
	}
	return k + 1;
}

/* Links of one end, by count, largest first (ties: loop index). */
static int link_cmp(const void *x, const void *y)
{
	const struct lsp_view_link *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->loop < b->loop ? -1 : a->loop > b->loop;
}

void lsp_view_free(struct lsp_view *v)
{
	if (!v)
		return;
	free(v->loops);
	free(v->funcs);
	free(v->trips);
	free(v->parents);
	free(v->children);
	free(v->tails);
	free(v->calls);
	free(v->tops);
	free(v);
}

static void sum_lstats(struct lsp_view *v, const char *sel)
{
	const struct lsp_profile *p = v->p;
	size_t i;
	unsigned c;

	for (i = 0; i < p->n_lstats; i++) {
		const struct lsp_lstat *s = &p->lstats[i];
		struct lsp_view_loop *l;

		if (s->loop >= p->n_loops || s->thread >= p->n_threads || !sel[s->thread])
			continue;
		l = &v->loops[s->loop];
		if (s->entries) {
			if (!l->entries || s->trip_min < l->trip_min)
				l->trip_min = s->trip_min;
			if (s->trip_max > l->trip_max)
				l->trip_max = s->trip_max;
		}
		l->seen = 1;
		l->entries += s->entries;
		l->iterations += s->iterations;
		l->self += s->self;
		l->total += s->total;
		l->over_entries += s->over_entries;
		l->over_sum += s->over_sum;
		for (c = 0; c < LSP_NCLASS; c++) {
			l->self_ic[c] += s->self_ic[c];
			l->total_ic[c] += s->total_ic[c];
		}
	}
	for (i = 0; i < p->n_fstats; i++) {
		const struct lsp_fstat *s = &p->fstats[i];
		struct lsp_view_func *f;

		if (s->func >= p->n_funcs || s->thread >= p->n_threads || !sel[s->thread])
			continue;
		f = &v->funcs[s->func];
		f->seen = 1;
		f->self += s->self;
		f->total += s->total;
		f->loop_level += s->loop_level;
		f->calls += s->calls;
	}
}

/* Trips, tails and calls: gather, sum, and hand out per-loop ranges. */
static int sum_lists(struct lsp_view *v, const char *sel, struct row *r)
{
	const struct lsp_profile *p = v->p;
	size_t i, n;

	for (i = n = 0; i < p->n_trips; i++) {
		const struct lsp_trip *t = &p->trips[i];

		if (t->loop < p->n_loops && t->thread < p->n_threads && sel[t->thread])
			r[n++] = (struct row){ .loop = t->loop, .k1 = t->trips, .count = t->entries };
	}
	n = row_sum(r, n);
	if (!(v->trips = calloc(n + 1, sizeof(*v->trips))))
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		struct lsp_view_loop *l = &v->loops[r[i].loop];

		if (!l->ntrips++)
			l->trip0 = i;
		v->trips[i] = (struct lsp_view_trip){ r[i].k1, r[i].count };
	}
	v->ntrips = n;

	for (i = n = 0; i < p->n_tails; i++) {
		const struct lsp_tail *t = &p->tails[i];

		if (t->loop < p->n_loops && t->thread < p->n_threads && sel[t->thread])
			r[n++] = (struct row){ .loop = t->loop, .k1 = t->off,
					       .count = t->count, .extra = t->vaddr };
	}
	n = row_sum(r, n);
	if (!(v->tails = calloc(n + 1, sizeof(*v->tails))))
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		struct lsp_view_loop *l = &v->loops[r[i].loop];

		if (!l->ntails++)
			l->tail0 = i;
		v->tails[i] = (struct lsp_view_tail){ r[i].k1, r[i].extra, r[i].count };
	}
	v->ntails = n;

	for (i = n = 0; i < p->n_calls; i++) {
		const struct lsp_call *c = &p->calls[i];

		if (c->loop < p->n_loops && c->thread < p->n_threads && sel[c->thread] &&
		    c->module < p->n_modules && (c->callee == LSP_NONE || c->callee < p->n_funcs))
			r[n++] = (struct row){ .loop = c->loop, .a = c->module, .k1 = c->off,
					       .k2 = c->callee, .count = c->count,
					       .extra = c->vaddr };
	}
	n = row_sum(r, n);
	if (!(v->calls = calloc(n + 1, sizeof(*v->calls))))
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		struct lsp_view_loop *l = &v->loops[r[i].loop];

		if (!l->ncalls++)
			l->call0 = i;
		v->calls[i] = (struct lsp_view_call){ r[i].a, r[i].k1, r[i].extra,
						      (uint32_t)r[i].k2, r[i].count };
	}
	v->ncalls = n;
	return 0;
}

/* The loop call graph: parents and children per loop, the top-level
 * loops, and depths by breadth-first search from the top level, which
 * gives each loop 1 + the least depth of its parents. */
static int sum_edges(struct lsp_view *v, const char *sel, struct row *r)
{
	const struct lsp_profile *p = v->p;
	size_t i, n, nc = 0, qh = 0, qt = 0;
	uint32_t *queue;

	for (i = n = 0; i < p->n_edges; i++) {
		const struct lsp_edge *e = &p->edges[i];

		if (e->child < p->n_loops && e->thread < p->n_threads && sel[e->thread] &&
		    (e->parent == LSP_NONE || e->parent < p->n_loops))
			/* Keyed child first: the parents lists come out grouped. */
			r[n++] = (struct row){ .loop = e->child, .a = e->parent,
					       .count = e->count, .total = e->total };
	}
	n = row_sum(r, n);
	v->nlinks = n;
	v->parents = calloc(n + 1, sizeof(*v->parents));
	v->children = calloc(n + 1, sizeof(*v->children));
	v->tops = calloc(n + 1, sizeof(*v->tops));
	queue = malloc((p->n_loops + 1) * sizeof(*queue));
	if (!v->parents || !v->children || !v->tops || !queue) {
		free(queue);
		return -LS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct lsp_view_loop *l = &v->loops[r[i].loop];

		if (!l->nparents++)
			l->parent0 = i;
		v->parents[i] = (struct lsp_view_link){ r[i].a, r[i].count, r[i].total };
		if (r[i].a == LSP_NONE)
			v->tops[v->ntops++] = (struct lsp_view_link){ r[i].loop, r[i].count,
								       r[i].total };
		else
			v->loops[r[i].a].nchildren++;
	}
	/* Children: a counting sort by parent. */
	for (i = 0; i < p->n_loops; i++) {
		v->loops[i].child0 = nc;
		nc += v->loops[i].nchildren;
		v->loops[i].nchildren = 0;
	}
	for (i = 0; i < n; i++) {
		struct lsp_view_loop *l;

		if (r[i].a == LSP_NONE)
			continue;
		l = &v->loops[r[i].a];
		v->children[l->child0 + l->nchildren++] =
			(struct lsp_view_link){ r[i].loop, r[i].count, r[i].total };
	}
	for (i = 0; i < p->n_loops; i++) {
		struct lsp_view_loop *l = &v->loops[i];

		qsort(v->parents + l->parent0, l->nparents, sizeof(*v->parents), link_cmp);
		qsort(v->children + l->child0, l->nchildren, sizeof(*v->children), link_cmp);
	}
	qsort(v->tops, v->ntops, sizeof(*v->tops), link_cmp);
	for (i = 0; i < v->ntops; i++) {
		v->loops[v->tops[i].loop].depth = 1;
		queue[qt++] = v->tops[i].loop;
	}
	while (qh < qt) {
		const struct lsp_view_loop *l = &v->loops[queue[qh++]];

		if (l->depth > v->max_depth)
			v->max_depth = l->depth;
		for (i = 0; i < l->nchildren; i++) {
			struct lsp_view_loop *c = &v->loops[v->children[l->child0 + i].loop];

			if (!c->depth) {
				c->depth = l->depth + 1;
				queue[qt++] = c->loop;
			}
		}
	}
	free(queue);
	return 0;
}

int lsp_view_new(struct lsp_view **pv, const struct lsp_profile *p, int64_t tid)
{
	struct lsp_view *v;
	struct row *r = NULL;
	char *sel = NULL;
	size_t i, nrows;
	unsigned c;
	int err = -LS_ENOMEM;

	if (!pv || !p)
		return -LS_EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -LS_ENOMEM;
	v->p = p;
	v->tid = tid;
	nrows = p->n_trips;
	if (p->n_tails > nrows)
		nrows = p->n_tails;
	if (p->n_calls > nrows)
		nrows = p->n_calls;
	if (p->n_edges > nrows)
		nrows = p->n_edges;
	sel = calloc(p->n_threads + 1, 1);
	r = malloc((nrows + 1) * sizeof(*r));
	v->loops = calloc(p->n_loops + 1, sizeof(*v->loops));
	v->funcs = calloc(p->n_funcs + 1, sizeof(*v->funcs));
	if (!sel || !r || !v->loops || !v->funcs)
		goto out;
	for (i = 0; i < p->n_threads; i++) {
		const struct lsp_thread *t = &p->threads[i];

		if (tid != LSP_VIEW_ALL && (int64_t)t->tid != tid)
			continue;
		sel[i] = 1;
		v->nthreads++;
		v->total_insns += t->insns;
		v->outside += t->outside;
		v->losses += t->losses;
		for (c = 0; c < LSP_NCLASS; c++)
			v->outside_ic[c] += t->outside_ic[c];
	}
	if (tid != LSP_VIEW_ALL && !v->nthreads) {
		err = -LS_ENOENT;
		goto out;
	}
	for (i = 0; i < p->n_loops; i++)
		v->loops[i].loop = (uint32_t)i;
	for (i = 0; i < p->n_funcs; i++)
		v->funcs[i].func = (uint32_t)i;
	sum_lstats(v, sel);
	if ((err = sum_lists(v, sel, r)) < 0 || (err = sum_edges(v, sel, r)) < 0)
		goto out;
	err = 0;
out:
	free(sel);
	free(r);
	if (err < 0)
		lsp_view_free(v);
	else
		*pv = v;
	return err;
}

double lsp_view_pct(const struct lsp_view *v, uint64_t n)
{
	return v->total_insns ? 100.0 * (double)n / (double)v->total_insns : 0.0;
}

double lsp_view_trip_mean(const struct lsp_view_loop *l)
{
	return l->entries ? (double)l->iterations / (double)l->entries : 0.0;
}

static const struct lsp_view *sort_view;	/* qsort has no context argument */

static int loop_cmp(const void *x, const void *y)
{
	const struct lsp_view_loop *a = &sort_view->loops[*(const uint32_t *)x];
	const struct lsp_view_loop *b = &sort_view->loops[*(const uint32_t *)y];

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return a->loop < b->loop ? -1 : a->loop > b->loop;
}

int lsp_view_sorted_loops(const struct lsp_view *v, uint32_t **out)
{
	size_t i, n = 0;
	uint32_t *ids;

	ids = malloc((v->p->n_loops + 1) * sizeof(*ids));
	if (!ids)
		return -LS_ENOMEM;
	for (i = 0; i < v->p->n_loops; i++)
		if (v->loops[i].seen)
			ids[n++] = (uint32_t)i;
	sort_view = v;
	qsort(ids, n, sizeof(*ids), loop_cmp);
	sort_view = NULL;
	*out = ids;
	return (int)n;
}
