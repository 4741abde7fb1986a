/* deps_near.c - where a table's entries start, by 64-byte granule.
 *
 * An access of another length or alignment than a table's common one
 * may meet any entry starting up to the table's widest entry before it.
 * Probing each of those addresses costs up to 255 lookups a query;
 * the granules' masks name the few that exist.  Only the array's
 * entries are indexed: runs are few, sorted, and searched directly. */
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"

#define NEAR_SPAN 512	/* bytes a query may cover; wider ones probe */

static struct deps_near *near_slot(const struct deps_tab *t, uint64_t g)
{
	size_t j;

	for (j = deps_hash(g) & (t->nearcap - 1); t->near[j].gen == t->neargen;
	     j = (j + 1) & (t->nearcap - 1))
		if (t->near[j].g == g)
			return &t->near[j];
	return &t->near[j];
}

static int near_grow(struct deps_tab *t)
{
	uint32_t nc = t->nearcap ? t->nearcap * 2 : 64, i, gen = t->neargen;
	struct deps_near *old = t->near, *nn;
	uint32_t oc = t->nearcap;

	if (nc > (1u << 30) || !(nn = calloc(nc, sizeof(*nn))))
		return -1;
	t->near = nn;
	t->nearcap = nc;
	t->neargen = 1;
	for (i = 0; i < oc; i++)
		if (old[i].gen == gen) {
			struct deps_near *s = near_slot(t, old[i].g);

			*s = old[i];
			s->gen = 1;
		}
	free(old);
	return 0;
}

void deps_near_add(struct deps_tab *t, uint64_t addr)
{
	struct deps_near *s;

	if (!t->nearon || t->nearbad)
		return;
	if ((t->nnear + 1) * 2 > t->nearcap && near_grow(t) < 0) {
		t->nearbad = 1;
		return;
	}
	s = near_slot(t, addr / 64);
	if (s->gen != t->neargen) {
		s->gen = t->neargen;
		s->g = addr / 64;
		s->mask = 0;
		t->nnear++;
	}
	s->mask |= 1ull << (addr % 64);
}

void deps_near_reset(struct deps_tab *t)
{
	t->nearon = t->nearbad = 0;
	t->nnear = t->nslow = 0;
	if (!t->nearcap)
		return;
	/* A new generation frees every slot; at the wrap, really free them. */
	if (++t->neargen == 0) {
		memset(t->near, 0, (size_t)t->nearcap * sizeof(*t->near));
		t->neargen = 1;
	}
}

void deps_near_release(struct deps_tab *t)
{
	free(t->near);
	t->near = NULL;
	t->nnear = t->nearcap = t->neargen = 0;
}

/* Sets the bits of bm (bit i: address lo + i) of the runs' elements in
 * [lo, hi). */
static void run_marks(const struct deps_tab *t, uint64_t lo, uint64_t hi, uint64_t *bm)
{
	uint32_t a = deps_run_upper(t, lo);

	/* The last run starting at or before lo may reach into the range. */
	for (a = a ? a - 1 : 0; a < t->nrun && deps_run_at(t, a)->p.addr < hi; a++) {
		const struct deps_run *r = deps_run_at(t, a);
		uint64_t k = 0, x;

		if (r->p.addr < lo)
			k = (lo - r->p.addr + r->stride - 1) / r->stride;
		for (; k < r->n && (x = r->p.addr + k * r->stride) < hi; k++)
			bm[(x - lo) / 64] |= 1ull << ((x - lo) % 64);
	}
}

long deps_near_overlaps(struct deps_tab *t, uint64_t lo, uint64_t addr, uint64_t hi,
			const struct deps_ent **out, struct deps_ent *buf)
{
	uint64_t bm[NEAR_SPAN / 64], g;
	size_t n = 0, w, nw;
	uint32_t i;

	if (hi <= lo || hi - lo > NEAR_SPAN)
		return -1;
	/* Tables of one aligned length never ask: they pay nothing.  Else
	 * the index is built once the byte probes so far have cost what
	 * building it does (a table of short entries, rarely asked, never
	 * pays for one). */
	if (!t->nearon && !t->nearbad) {
		if ((uint64_t)++t->nslow * (hi - lo) < t->n)
			return -1;
		t->nearon = 1;
		for (i = 0; i < t->n && !t->nearbad; i++)
			deps_near_add(t, t->e[i].addr);
	}
	if (t->nearbad)
		return -1;
	/* (most queries span a word or two of the bitmap) */
	nw = (size_t)(hi - lo + 63) / 64;
	memset(bm, 0, nw * sizeof(*bm));
	if (t->nnear)
		for (g = lo / 64; g <= (hi - 1) / 64; g++) {
			const struct deps_near *s = near_slot(t, g);
			uint64_t m = s->gen == t->neargen && s->g == g ? s->mask : 0;

			/* Bit b is address g * 64 + b, bit i of bm lo + i. */
			while (m) {
				uint64_t x = g * 64 + (uint64_t)__builtin_ctzll(m);

				m &= m - 1;
				if (x >= lo && x < hi)
					bm[(x - lo) / 64] |= 1ull << ((x - lo) % 64);
			}
		}
	if (t->nrun)
		run_marks(t, lo, hi, bm);
	/* Ascending, as probing every byte finds them. */
	for (w = 0; w < nw && n < DEPS_MAXOV; w++)
		for (g = bm[w]; g && n < DEPS_MAXOV; g &= g - 1) {
			uint64_t a = lo + w * 64 + (uint64_t)__builtin_ctzll(g);
			const struct deps_ent *e = deps_tab_peek(t, a, &buf[n]);

			if (e && e->addr + (e->len ? e->len : 1) > addr)
				out[n++] = e;
		}
	return (long)n;
}
