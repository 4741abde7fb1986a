/* unit_addrset.c - the set of addresses the heads live in
 * (decoder/addrset.c): bitmaps over the ranges covered, a hash set for the
 * rest, must answer as one plain set does.
 *
 * The oracle is a sorted array of every address added, searched with
 * bsearch(): a set of 20,000 addresses drawn from a fixed generator,
 * clustered in three "code" ranges and scattered outside them, some
 * added before their range is covered (they must move to its bitmap),
 * some after.  Every address added, its neighbours, and addresses never
 * added are then asked of both.  Counts (n, new or not at each add) are
 * checked against the oracle's.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "rng.h"
#include "tap.h"

#define NADD 20000

static uint64_t rng = 0x243f6a8885a308d3ull;

static int cmp64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ranges: two code mappings and the edge of the address space. */
static const uint64_t rlo[3] = { 0x555555554000ull, 0x7ffff7dd0000ull, 0xffffffffff600000ull };
static const uint64_t rhi[3] = { 0x555555574000ull, 0x7ffff7f50000ull, 0xffffffffff601000ull };

static uint64_t draw(void)
{
	const uint64_t v = rng_next(&rng);

	switch (v % 5) {
	case 0: case 1: case 2: {
		const unsigned r = (unsigned)(v >> 8) % 3;

		/* in a range, its first and last bytes included */
		return rlo[r] + (v >> 16) % (rhi[r] - rlo[r]);
	}
	case 3:
		return rhi[(v >> 8) % 3] + (v >> 16) % 64;	/* just past one */
	default:
		return v >> 4;		/* anywhere (0 included: never a member) */
	}
}

int main(void)
{
	static uint64_t all[NADD], sorted[NADD];
	struct lsd_addrset s = { 0 };
	size_t i, nsorted = 0, bad_new = 0, bad_has = 0, bad_not = 0, asked = 0;
	int rc;

	for (i = 0; i < NADD; i++)
		all[i] = draw();
	/* a third before any range is covered, the rest after */
	for (i = 0; i < NADD; i++) {
		int fresh = all[i] && !bsearch(&all[i], sorted, nsorted, sizeof(*sorted), cmp64);

		if (i == NADD / 3) {
			TAP_EQ(lsd_addrset_cover(&s, rlo[0], rhi[0]), 1, "a range covered");
			TAP_EQ(lsd_addrset_cover(&s, rlo[2], rhi[2]), 1,
			       "a range up to the last page covered");
			TAP_EQ(lsd_addrset_cover(&s, rlo[1], rhi[1]), 1,
			       "a range below the last covered");
			TAP_EQ(lsd_addrset_cover(&s, rlo[1] + 4096, rhi[1] + 4096), 0,
			       "an overlapping range is refused");
			TAP_EQ(lsd_addrset_cover(&s, rhi[0], rhi[0]), 0, "an empty range is refused");
			TAP_EQ(lsd_addrset_cover(&s, 0x1000, 0x1000 + LSD_ARANGE_MAX + 1), 0,
			       "a range too long is refused");
			TAP_EQ(s.nr, 3, "three ranges, sorted (%llx first)",
			       (unsigned long long)(s.nr ? s.r[0].lo : 0));
			TAP_OK(s.r[0].lo == rlo[0] && s.r[1].lo == rlo[1] && s.r[2].lo == rlo[2],
			       "ranges in address order");
			TAP_OK(lsd_addrset_covers(&s, rlo[1], rhi[1]) &&
			       !lsd_addrset_covers(&s, rlo[1], rhi[1] + 1) &&
			       !lsd_addrset_covers(&s, rlo[1] - 1, rhi[1]),
			       "covers() is true of a covered range only");
		}
		rc = lsd_addrset_add(&s, all[i]);
		if (rc != fresh)
			bad_new++;
		if (fresh) {
			/* insert, keeping the oracle sorted */
			size_t k = nsorted++;

			while (k && sorted[k - 1] > all[i]) {
				sorted[k] = sorted[k - 1];
				k--;
			}
			sorted[k] = all[i];
		}
	}
	TAP_EQ(bad_new, 0, "each add says new exactly where the oracle did");
	TAP_EQ(s.n, nsorted, "n counts every member, bitmaps and hash alike (%zu)", nsorted);
	TAP_OK(s.nkeys < nsorted / 2, "most members are in bitmaps (%zu hashed)", s.nkeys);
	for (i = 0; i < NADD; i++) {
		static const int64_t d[5] = { 0, -1, 1, -64, 65 };
		unsigned k;

		for (k = 0; k < 5; k++) {
			const uint64_t a = all[i] + (uint64_t)d[k];
			const int want = a && bsearch(&a, sorted, nsorted, sizeof(*sorted), cmp64);

			asked++;
			if (lsd_addrset_has(&s, a) != want)
				*(want ? &bad_has : &bad_not) += 1;
		}
	}
	TAP_EQ(bad_has, 0, "every member is found (%zu asked)", asked);
	TAP_EQ(bad_not, 0, "no address that is not a member is found");
	TAP_EQ(lsd_addrset_has(&s, 0), 0, "0 is never a member");
	{
		/* merged into an empty set, and into one with other ranges
		 * (the scan's threads' sets, hash only, into the decoder's):
		 * the same members */
		struct lsd_addrset m, h;
		size_t bad = 0;

		memset(&m, 0, sizeof(m));
		memset(&h, 0, sizeof(h));
		TAP_EQ(lsd_addrset_merge(&m, &s), 0, "merged into an empty set");
		TAP_EQ(m.n, s.n, "... with as many members (%zu)", m.n);
		TAP_EQ(lsd_addrset_cover(&h, rlo[1], rhi[1]), 1, "another set, one range covered");
		for (i = 0; i < NADD; i += 2)
			if (all[i] && lsd_addrset_add(&h, all[i]) < 0)
				bad++;
		TAP_EQ(lsd_addrset_merge(&h, &m), 0, "the merged set merged into it");
		for (i = 0; i < NADD; i++) {
			const uint64_t a = all[i] + 1;
			const int want = a && bsearch(&a, sorted, nsorted, sizeof(*sorted), cmp64);

			if (lsd_addrset_has(&h, all[i]) != (all[i] != 0) ||
			    lsd_addrset_has(&m, all[i]) != (all[i] != 0) ||
			    lsd_addrset_has(&h, a) != want)
				bad++;
		}
		TAP_EQ(bad, 0, "both hold every member, and no other");
		TAP_EQ(h.n, s.n, "... as many (%zu)", h.n);
		lsd_addrset_clear(&m);
		TAP_OK(!m.n && !m.nkeys && !m.nr && m.cap, "cleared: empty, its hash kept");
		for (i = 0; i < NADD && !lsd_addrset_has(&m, all[i]); i++)
			;
		TAP_EQ(i, NADD, "... and none is found");
		lsd_addrset_release(&m);
		lsd_addrset_release(&h);
	}
	TAP_EQ(lsd_addrset_reserve(&s, 100000), 0, "reserve for hashed members");
	TAP_OK(s.cap >= 2 * (s.nkeys + 100000), "reserve counts hashed members only");
	for (i = 0; i < NADD && lsd_addrset_has(&s, all[i]) == (all[i] != 0); i++)
		;
	TAP_EQ(i, NADD, "members stay after a reserve");
	lsd_addrset_release(&s);
	TAP_OK(!s.r && !s.keys && !s.n, "released");
	return TAP_DONE();
}
