/* loops_rows.c - a thread's rows as the detector charges them: loop and
 * function rows grown by number, the edges between loops, trip counts
 * (the small ones in the row until the thread ends), back branch runs;
 * loops_out.c writes them into the profile. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_lrow *lsa_loops_lrow_grow(struct lsa_thr *t, uint32_t loop)
{
	uint32_t n = loop < 64 ? 128 : loop * 2;
	/* (the new room zero, its pages mapped in at once) */
	struct lsa_lrow *p = ls_zgrow(t->lr, t->nlr, n, sizeof(*p));

	if (!p)
		return NULL;
	t->lr = p;
	t->nlr = n;
	return &t->lr[loop];
}

struct lsa_frow *lsa_loops_frow_grow(struct lsa_thr *t, uint32_t func)
{
	if (func >= t->nfw) {
		uint32_t n = func < 256 ? 512 : func * 2;
		struct lsa_frow *p = ls_zgrow(t->fw, t->nfw, n, sizeof(*p));

		if (!p)
			return NULL;
		t->fw = p;
		t->nfw = n;
	}
	return &t->fw[func];
}

int lsa_loops_edge_add_slow(struct lsa_thr *t, uint32_t parent, uint32_t child,
			    uint64_t count, uint64_t total)
{
	uint32_t a = parent == LSA_NONE ? 0 : parent + 1;
	struct lsa_lrow *r = lsa_loops_lrow(t, child);
	uint64_t *v;

	if (!r || !(v = lsa_kmap_get(&t->edges, a, child)))
		return -LS_ENOMEM;
	if (!*v) {
		if (LS_GROW(t->erows, t->nerows + 1, t->caperows, 64))
			return -LS_ENOMEM;
		t->erows[t->nerows].count = t->erows[t->nerows].total = 0;
		*v = ++t->nerows;
	}
	r->epar = a;
	r->erow = (uint32_t)*v;
	t->erows[r->erow - 1].count += count;
	t->erows[r->erow - 1].total += total;
	return 0;
}

/* lsa_loops_trip_add() with loop's row r at hand (used below
 * LSA_TSMALL only). */
static int trip_bin(struct lsa_thr *t, struct lsa_lrow *r, uint32_t loop, uint64_t trips,
		    uint64_t k)
{
	if (trips >= LSA_TSMALL)
		return lsa_kmap_add(&t->trips, loop, trips, k);
	r->tsm[trips] += k;
	return 0;
}

int lsa_loops_entries_add(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_lrow *r,
			  uint32_t loop, uint64_t trips, uint64_t k)
{
	lsa_lrow_entries(r, trips, k);
	if (trips < l->o.trip_limit)
		return trip_bin(t, r, loop, trips, k);
	r->over_e += k;
	r->over_s += k * trips;
	return 0;
}

int lsa_loops_trip_add(struct lsa_thr *t, uint32_t loop, uint64_t trips, uint64_t k)
{
	struct lsa_lrow *r = NULL;

	if (trips < LSA_TSMALL && !(r = lsa_loops_lrow(t, loop)))
		return -LS_ENOMEM;
	return trip_bin(t, r, loop, trips, k);
}

int lsa_loops_tail_add(struct lsa_thr *t, uint32_t loop, uint32_t tail, uint64_t k)
{
	struct lsa_lrow *r;

	if (tail == LSA_NONE)
		return lsa_kmap_add(&t->tails, loop, tail, k);
	if (!(r = lsa_loops_lrow(t, loop)))
		return -LS_ENOMEM;
	if (r->ctail != tail + 1) {
		uint64_t run = r->crun;

		if (r->ctail2 == tail + 1) {	/* (the one before: swapped) */
			r->crun = r->crun2;
		} else {
			if (r->ctail2 && lsa_kmap_add(&t->tails, loop, r->ctail2 - 1, r->crun2))
				return -LS_ENOMEM;
			r->crun = 0;
		}
		r->ctail2 = r->ctail;
		r->crun2 = run;
		r->ctail = tail + 1;
	}
	r->crun += k;
	return 0;
}

int lsa_loops_maps_put(struct lsa_thr *t)
{
	uint32_t i;
	int k;

	for (i = 0; i < t->nlr; i++) {
		struct lsa_lrow *r = &t->lr[i];

		for (k = 0; k < LSA_TSMALL; k++)
			if (r->tsm[k]) {
				if (lsa_kmap_add(&t->trips, i, (uint64_t)k, r->tsm[k]))
					return -LS_ENOMEM;
				r->tsm[k] = 0;
			}
		if (r->ctail) {
			if (lsa_kmap_add(&t->tails, i, r->ctail - 1, r->crun))
				return -LS_ENOMEM;
			r->ctail = 0;
			r->crun = 0;
		}
		if (r->ctail2) {
			if (lsa_kmap_add(&t->tails, i, r->ctail2 - 1, r->crun2))
				return -LS_ENOMEM;
			r->ctail2 = 0;
			r->crun2 = 0;
		}
	}
	return 0;
}
