/* profile_sort.c - the canonical order of a profile (lsp_sort()).
 *
 * The detector adds loops and functions in the order it meets them, which
 * depends on which threads one analysis sees; a profile of some of a
 * bundle's threads (analyze --shard) would then number its loops unlike
 * the whole bundle's.  Sorting everything by its key makes the bytes a
 * function of the contents, so shards merge into the whole profile.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* LSP_NONE sorts first (a top-level edge, an unknown callee). */
static int cmp_idx(uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (a == LSP_NONE)
		return -1;
	if (b == LSP_NONE)
		return 1;
	return a < b ? -1 : 1;
}

static int mod_cmp(const void *x, const void *y, void *arg)
{
	const struct lsp_module *m = arg, *a = &m[*(const size_t *)x],
				*b = &m[*(const size_t *)y];
	size_t n = a->build_id_len < b->build_id_len ? a->build_id_len : b->build_id_len;
	int c;

	/* modules without a build-id (keyed by path) after the others */
	if (!a->build_id_len != !b->build_id_len)
		return a->build_id_len ? -1 : 1;
	if (!a->build_id_len)
		return strcmp(a->path, b->path);
	if ((c = memcmp(a->build_id, b->build_id, n)))
		return c;
	return cmp_u64(a->build_id_len, b->build_id_len);
}

static int func_cmp(const void *x, const void *y, void *arg)
{
	const struct lsp_func *f = arg, *a = &f[*(const size_t *)x],
			      *b = &f[*(const size_t *)y];

	return a->module != b->module ? cmp_u64(a->module, b->module)
				      : cmp_u64(a->off, b->off);
}

static int loop_cmp(const void *x, const void *y, void *arg)
{
	const struct lsp_loop *l = arg, *a = &l[*(const size_t *)x],
			      *b = &l[*(const size_t *)y];

	return a->module != b->module ? cmp_u64(a->module, b->module)
				      : cmp_u64(a->head_off, b->head_off);
}

/* Ties (one pid and tid twice in a run) keep their order. */
static int thread_cmp(const void *x, const void *y, void *arg)
{
	const struct lsp_thread *t = arg, *a = &t[*(const size_t *)x],
				*b = &t[*(const size_t *)y];

	if (a->run != b->run)
		return cmp_u64(a->run, b->run);
	if (a->pid != b->pid)
		return cmp_u64(a->pid, b->pid);
	if (a->tid != b->tid)
		return cmp_u64(a->tid, b->tid);
	return cmp_u64(*(const size_t *)x, *(const size_t *)y);
}

static int part_cmp(const void *x, const void *y)
{
	const struct lsp_part *a = x, *b = y;
	int c;

	if (a->run != b->run)
		return cmp_u64(a->run, b->run);
	if ((c = strcmp(a->bundle, b->bundle)))
		return c;
	if (a->nshards != b->nshards)
		return cmp_u64(a->nshards, b->nshards);
	return cmp_u64(a->shard, b->shard);
}

static int lstat_cmp(const void *x, const void *y)
{
	const struct lsp_lstat *a = x, *b = y;

	return a->thread != b->thread ? cmp_u64(a->thread, b->thread)
				      : cmp_u64(a->loop, b->loop);
}

static int trip_cmp(const void *x, const void *y)
{
	const struct lsp_trip *a = x, *b = y;

	if (a->thread != b->thread)
		return cmp_u64(a->thread, b->thread);
	return a->loop != b->loop ? cmp_u64(a->loop, b->loop) : cmp_u64(a->trips, b->trips);
}

static int edge_cmp(const void *x, const void *y)
{
	const struct lsp_edge *a = x, *b = y;

	if (a->thread != b->thread)
		return cmp_u64(a->thread, b->thread);
	return a->parent != b->parent ? cmp_idx(a->parent, b->parent)
				      : cmp_u64(a->child, b->child);
}

static int tail_cmp(const void *x, const void *y)
{
	const struct lsp_tail *a = x, *b = y;

	if (a->thread != b->thread)
		return cmp_u64(a->thread, b->thread);
	return a->loop != b->loop ? cmp_u64(a->loop, b->loop) : cmp_u64(a->off, b->off);
}

static int call_cmp(const void *x, const void *y)
{
	const struct lsp_call *a = x, *b = y;

	if (a->thread != b->thread)
		return cmp_u64(a->thread, b->thread);
	if (a->loop != b->loop)
		return cmp_u64(a->loop, b->loop);
	if (a->module != b->module)
		return cmp_u64(a->module, b->module);
	return a->off != b->off ? cmp_u64(a->off, b->off) : cmp_idx(a->callee, b->callee);
}

static int fstat_cmp(const void *x, const void *y)
{
	const struct lsp_fstat *a = x, *b = y;

	return a->thread != b->thread ? cmp_u64(a->thread, b->thread)
				      : cmp_u64(a->func, b->func);
}

/* Sorts n elements of `size` bytes at arr with cmp over their indexes
 * (ord), reorders them and sets map[old index] = new index.  tmp holds
 * n * size bytes. */
static void permute(void *arr, size_t n, size_t size, size_t *ord, uint32_t *map,
		    void *tmp, int (*cmp)(const void *, const void *, void *))
{
	size_t i;

	if (!n)		/* arr may be NULL: qsort_r must not see it */
		return;
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), cmp, arr);
	for (i = 0; i < n; i++) {
		memcpy((char *)tmp + i * size, (char *)arr + ord[i] * size, size);
		map[ord[i]] = (uint32_t)i;
	}
	if (n)
		memcpy(arr, tmp, n * size);
}

/* qsort of an empty array, whose pointer may be NULL, is undefined. */
#define SORT(a, n, size, cmp) do { if (n) qsort((a), (n), (size), (cmp)); } while (0)

static uint32_t re(const uint32_t *map, uint32_t i)
{
	return i == LSP_NONE ? LSP_NONE : map[i];
}

static size_t maxn(const struct lsp_profile *p)
{
	size_t n = p->n_modules, i;
	const size_t v[] = { p->n_funcs, p->n_loops, p->n_threads };

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] > n)
			n = v[i];
	return n + 1;
}

static int verdict_cmp(const void *x, const void *y)
{
	return cmp_idx(((const struct lsp_verdict *)x)->loop,
		       ((const struct lsp_verdict *)y)->loop);
}

/* Dependences by loop, each loop's in the order they were given. */
static int dep_cmp(const void *x, const void *y, void *arg)
{
	const struct lsp_dep *d = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return d[a].loop != d[b].loop ? cmp_idx(d[a].loop, d[b].loop) :
	       a < b ? -1 : a > b;
}

int lsp_sort(struct lsp_profile *p)
{
	size_t n = maxn(p), i, big = sizeof(struct lsp_loop);
	uint32_t *mm, *fm, *lm, *tm;
	size_t *ord;
	void *tmp;
	int cerr;

	if (!p)
		return -LS_EINVAL;
	if (sizeof(struct lsp_thread) > big)
		big = sizeof(struct lsp_thread);
	if (sizeof(struct lsp_func) > big)
		big = sizeof(struct lsp_func);
	mm = malloc(n * sizeof(*mm));
	fm = malloc(n * sizeof(*fm));
	lm = malloc(n * sizeof(*lm));
	tm = malloc(n * sizeof(*tm));
	ord = malloc(n * sizeof(*ord));
	tmp = malloc(n * big);
	if (!mm || !fm || !lm || !tm || !ord || !tmp) {
		free(mm), free(fm), free(lm), free(tm), free(ord), free(tmp);
		return -LS_ENOMEM;
	}
	permute(p->modules, p->n_modules, sizeof(*p->modules), ord, mm, tmp, mod_cmp);
	for (i = 0; i < p->n_funcs; i++)
		p->funcs[i].module = mm[p->funcs[i].module];
	permute(p->funcs, p->n_funcs, sizeof(*p->funcs), ord, fm, tmp, func_cmp);
	for (i = 0; i < p->n_loops; i++) {
		p->loops[i].module = mm[p->loops[i].module];
		p->loops[i].func = re(fm, p->loops[i].func);
	}
	permute(p->loops, p->n_loops, sizeof(*p->loops), ord, lm, tmp, loop_cmp);
	permute(p->threads, p->n_threads, sizeof(*p->threads), ord, tm, tmp, thread_cmp);
	SORT(p->parts, p->n_parts, sizeof(*p->parts), part_cmp);
	for (i = 0; i < p->n_lstats; i++) {
		p->lstats[i].loop = lm[p->lstats[i].loop];
		p->lstats[i].thread = tm[p->lstats[i].thread];
	}
	for (i = 0; i < p->n_trips; i++) {
		p->trips[i].loop = lm[p->trips[i].loop];
		p->trips[i].thread = tm[p->trips[i].thread];
	}
	for (i = 0; i < p->n_edges; i++) {
		p->edges[i].parent = re(lm, p->edges[i].parent);
		p->edges[i].child = lm[p->edges[i].child];
		p->edges[i].thread = tm[p->edges[i].thread];
	}
	for (i = 0; i < p->n_tails; i++) {
		p->tails[i].loop = lm[p->tails[i].loop];
		p->tails[i].thread = tm[p->tails[i].thread];
	}
	for (i = 0; i < p->n_calls; i++) {
		p->calls[i].loop = lm[p->calls[i].loop];
		p->calls[i].thread = tm[p->calls[i].thread];
		p->calls[i].module = mm[p->calls[i].module];
		p->calls[i].callee = re(fm, p->calls[i].callee);
	}
	for (i = 0; i < p->n_fstats; i++) {
		p->fstats[i].func = fm[p->fstats[i].func];
		p->fstats[i].thread = tm[p->fstats[i].thread];
	}
	SORT(p->lstats, p->n_lstats, sizeof(*p->lstats), lstat_cmp);
	SORT(p->trips, p->n_trips, sizeof(*p->trips), trip_cmp);
	SORT(p->edges, p->n_edges, sizeof(*p->edges), edge_cmp);
	SORT(p->tails, p->n_tails, sizeof(*p->tails), tail_cmp);
	SORT(p->calls, p->n_calls, sizeof(*p->calls), call_cmp);
	SORT(p->fstats, p->n_fstats, sizeof(*p->fstats), fstat_cmp);
	for (i = 0; i < p->n_verdicts; i++)
		p->verdicts[i].loop = lm[p->verdicts[i].loop];
	SORT(p->verdicts, p->n_verdicts, sizeof(*p->verdicts), verdict_cmp);
	lsp_sview_remap(p, lm);
	/* out of memory there drops the graph: the rest is still sorted */
	cerr = lsp_cgraph_sort(p, mm);
	lsp_cpi_remap(p, mm, lm);
	if (p->n_deps) {
		size_t *dord = malloc(p->n_deps * sizeof(*dord));
		struct lsp_dep *dt = malloc(p->n_deps * sizeof(*dt));

		if (!dord || !dt) {
			free(dord), free(dt);
			free(mm), free(fm), free(lm), free(tm), free(ord), free(tmp);
			return -LS_ENOMEM;
		}
		for (i = 0; i < p->n_deps; i++) {
			p->deps[i].loop = lm[p->deps[i].loop];
			dord[i] = i;
		}
		qsort_r(dord, p->n_deps, sizeof(*dord), dep_cmp, p->deps);
		for (i = 0; i < p->n_deps; i++)
			dt[i] = p->deps[dord[i]];
		memcpy(p->deps, dt, p->n_deps * sizeof(*dt));
		free(dord), free(dt);
	}
	/* the interning tables hold the old indexes */
	lsp_index_drop(p);
	free(mm), free(fm), free(lm), free(tm), free(ord), free(tmp);
	return cerr < 0 ? cerr : 0;
}
