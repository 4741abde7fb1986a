/* profile_check.c - numbers of a profile that must agree with each other
 * (see profile_int.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"

static int cmp_lstat(const void *a, const void *b, void *arg)
{
	const struct lsp_lstat *s = arg;
	const struct lsp_lstat *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];

	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The lstat row of (loop, thread) in ord (lstat indexes sorted by
 * cmp_lstat), or SIZE_MAX. */
static size_t find_lstat(const struct lsp_profile *p, const size_t *ord,
			 uint32_t loop, uint32_t thread)
{
	size_t lo = 0, hi = p->n_lstats;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lsp_lstat *s = &p->lstats[ord[mid]];

		if (s->loop == loop && s->thread == thread)
			return ord[mid];
		if (s->loop < loop || (s->loop == loop && s->thread < thread))
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int lsp_trips_check(const struct lsp_profile *p, size_t *bad)
{
	uint64_t (*sum)[2] = NULL;
	size_t *ord = NULL, i, k;
	int ret = 0;

	if (!p->n_trips && !p->n_lstats)
		return 0;
	ord = malloc((p->n_lstats + 1) * sizeof(*ord));
	sum = calloc(p->n_lstats + 1, sizeof(*sum));
	if (!ord || !sum) {
		ret = -LS_ENOMEM;
		goto out;
	}
	for (i = 0; i < p->n_lstats; i++)
		ord[i] = i;
	qsort_r(ord, p->n_lstats, sizeof(*ord), cmp_lstat, p->lstats);
	for (i = 0; i < p->n_trips; i++) {
		const struct lsp_trip *t = &p->trips[i];

		k = find_lstat(p, ord, t->loop, t->thread);
		if (k == SIZE_MAX) {
			*bad = i;
			ret = LSP_TRIPS_ORPHAN;
			goto out;
		}
		/* Saturating: an overflow equals no count of a file. */
		sum[k][0] = t->entries > UINT64_MAX - sum[k][0] ? UINT64_MAX :
			    sum[k][0] + t->entries;
		sum[k][1] = t->trips && t->entries > (UINT64_MAX - sum[k][1]) / t->trips ?
			    UINT64_MAX : sum[k][1] + t->trips * t->entries;
	}
	for (i = 0; i < p->n_lstats && !ret; i++) {
		const struct lsp_lstat *s = &p->lstats[i];

		*bad = i;
		if (s->over_entries > s->entries || s->entries - s->over_entries != sum[i][0])
			ret = LSP_TRIPS_ENTRIES;
		else if (s->over_sum > s->iterations ||
			 s->iterations - s->over_sum != sum[i][1])
			ret = LSP_TRIPS_ITERATIONS;
	}
out:
	free(ord);
	free(sum);
	return ret;
}

/* After the end record: the histograms must add up to the lstat rows
 * (lsp_trips_check()); a contradiction is named with the lstat's line,
 * as damaged syntax is.  Returns 0, -LS_ECORRUPT, -LS_ENOMEM. */
int lsp_rd_check_trips(struct lsp_rd *r)
{
	const struct lsp_lstat *s;
	char val[48];
	size_t i;
	int err;

	err = lsp_trips_check(r->p, &i);
	if (err <= 0)
		return err;
	if (err == LSP_TRIPS_ORPHAN)
		return lsp_rd_bad(r, -LS_ECORRUPT, "trip row of a loop without an lstat row", NULL);
	s = &r->p->lstats[i];
	r->line = r->lstat_line[i];
	snprintf(val, sizeof(val), "%" PRIu64, err == LSP_TRIPS_ENTRIES ? s->entries :
		 s->iterations);
	return lsp_rd_bad(r, -LS_ECORRUPT, err == LSP_TRIPS_ENTRIES ?
		   "entries are not the trip-count histogram's plus the overflow entries:" :
		   "iterations are not the trip-count histogram's sum plus the overflow sum:",
		   val);
}
