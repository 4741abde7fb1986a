/* addrset.c - sets of addresses (the block heads, struct lsd_addrset):
 * a bitmap a range of code the sweep covered, a bit a byte, and an
 * open-addressing hash for the addresses outside every range.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* The range of s that holds a, or NULL: a binary search of a few
 * ranges (a process' code mappings). */
static const struct lsd_arange *arange_of(const struct lsd_addrset *s, uint64_t a)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (a < s->r[mid].lo)
			hi = mid;
		else if (a >= s->r[mid].hi)
			lo = mid + 1;
		else
			return &s->r[mid];
	}
	return NULL;
}

/* Rehashes s's keys into ncap slots (a power of two), those a range now
 * covers into its bitmap. */
static int addrset_resize(struct lsd_addrset *s, size_t ncap)
{
	/* (malloc and a write, not calloc: calloc's fresh pages are
	 * faulted twice, read as the zero page, then written) */
	uint64_t *nk = malloc(ncap * sizeof(*nk));
	size_t i;

	if (!nk)
		return -LS_ENOMEM;
	memset(nk, 0, ncap * sizeof(*nk));
	s->nkeys = 0;
	for (i = 0; i < s->cap; i++) {
		const struct lsd_arange *r;
		size_t h;

		if (!s->keys[i])
			continue;
		if (s->nr && (r = arange_of(s, s->keys[i])) != NULL) {
			(void)lsd_arange_set(r, s->keys[i]);
			continue;
		}
		for (h = lsd_hash64(s->keys[i]) & (ncap - 1); nk[h]; h = (h + 1) & (ncap - 1))
			;
		nk[h] = s->keys[i];
		s->nkeys++;
	}
	free(s->keys);
	s->keys = nk;
	s->cap = ncap;
	return 0;
}

static int addrset_grow(struct lsd_addrset *s)
{
	return addrset_resize(s, s->cap ? s->cap * 2 : 1024);
}

int lsd_addrset_reserve(struct lsd_addrset *s, size_t n)
{
	size_t ncap = s->cap ? s->cap : 1024;

	while ((s->nkeys + n) * 2 > ncap)
		ncap *= 2;
	return ncap == s->cap ? 0 : addrset_resize(s, ncap);
}

int lsd_addrset_cover(struct lsd_addrset *s, uint64_t lo, uint64_t hi)
{
	struct lsd_arange *nr;
	uint64_t *bits;
	size_t i;

	if (hi <= lo || hi - lo > LSD_ARANGE_MAX)
		return 0;
	for (i = 0; i < s->nr && s->r[i].lo < hi; i++)
		if (s->r[i].hi > lo)
			return 0;	/* (its members stay hashed) */
	if (!(bits = ls_zalloc((size_t)((hi - lo + 63) / 64), sizeof(*bits))))
		return -LS_ENOMEM;
	if (!(nr = realloc(s->r, (s->nr + 1) * sizeof(*nr)))) {
		free(bits);
		return -LS_ENOMEM;
	}
	s->r = nr;
	memmove(&nr[i + 1], &nr[i], (s->nr - i) * sizeof(*nr));
	nr[i].lo = lo;
	nr[i].hi = hi;
	nr[i].bits = bits;
	s->nr++;
	/* the members it covers leave the hash set */
	return s->nkeys && addrset_resize(s, s->cap) < 0 ? -LS_ENOMEM : 1;
}

const struct lsd_arange *lsd_addrset_covers(const struct lsd_addrset *s, uint64_t lo,
					    uint64_t hi)
{
	const struct lsd_arange *r = s->nr ? arange_of(s, lo) : NULL;

	return r && hi <= r->hi ? r : NULL;
}

int lsd_addrset_add(struct lsd_addrset *s, uint64_t a)
{
	const struct lsd_arange *r;
	size_t h;
	int err;

	if (!a)
		return 0;
	if (s->nr && (r = arange_of(s, a)) != NULL) {
		if (!lsd_arange_set(r, a))
			return 0;
		s->n++;
		return 1;
	}
	if ((s->nkeys + 1) * 2 > s->cap && (err = addrset_grow(s)) < 0)
		return err;
	for (h = lsd_hash64(a) & (s->cap - 1); s->keys[h]; h = (h + 1) & (s->cap - 1))
		if (s->keys[h] == a)
			return 0;
	s->keys[h] = a;
	s->nkeys++;
	s->n++;
	return 1;
}

int lsd_addrset_has(const struct lsd_addrset *s, uint64_t a)
{
	const struct lsd_arange *r;
	size_t h;

	if (!a)
		return 0;
	if (s->nr && (r = arange_of(s, a)) != NULL)
		return (int)(r->bits[(a - r->lo) >> 6] >> ((a - r->lo) & 63) & 1);
	if (!s->cap)
		return 0;
	for (h = lsd_hash64(a) & (s->cap - 1); s->keys[h]; h = (h + 1) & (s->cap - 1))
		if (s->keys[h] == a)
			return 1;
	return 0;
}

int lsd_addrset_copy(struct lsd_addrset *dst, const struct lsd_addrset *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	if (src->cap) {
		if (!(dst->keys = malloc(src->cap * sizeof(*dst->keys))))
			return -LS_ENOMEM;
		memcpy(dst->keys, src->keys, src->cap * sizeof(*dst->keys));
		dst->cap = src->cap;
		dst->nkeys = src->nkeys;
	}
	dst->n = src->n;
	if (src->nr && !(dst->r = calloc(src->nr, sizeof(*dst->r))))
		return -LS_ENOMEM;
	for (i = 0; i < src->nr; i++) {
		size_t w = (size_t)((src->r[i].hi - src->r[i].lo + 63) / 64);

		dst->r[i].lo = src->r[i].lo;
		dst->r[i].hi = src->r[i].hi;
		if (!(dst->r[i].bits = malloc(w * sizeof(*dst->r[i].bits))))
			return -LS_ENOMEM;
		memcpy(dst->r[i].bits, src->r[i].bits, w * sizeof(*dst->r[i].bits));
		dst->nr = i + 1;
	}
	return 0;
}

int lsd_addrset_merge(struct lsd_addrset *dst, const struct lsd_addrset *src)
{
	size_t i, k;
	int err;

	for (i = 0; i < src->cap; i++)
		if (src->keys[i] && (err = lsd_addrset_add(dst, src->keys[i])) < 0)
			return err;
	for (i = 0; i < src->nr; i++) {
		const struct lsd_arange *r = &src->r[i];

		for (k = 0; k < (size_t)(r->hi - r->lo); k++)
			if ((r->bits[k / 64] >> (k % 64) & 1) &&
			    (err = lsd_addrset_add(dst, r->lo + k)) < 0)
				return err;
	}
	return 0;
}

void lsd_addrset_clear(struct lsd_addrset *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->r[i].bits);
	free(s->r);
	s->r = NULL;
	s->nr = 0;
	if (s->keys)
		memset(s->keys, 0, s->cap * sizeof(*s->keys));
	s->nkeys = s->n = 0;
}

void lsd_addrset_release(struct lsd_addrset *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->r[i].bits);
	free(s->r);
	free(s->keys);
	memset(s, 0, sizeof(*s));
}
