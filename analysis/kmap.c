/* kmap.c - open-addressing (linear probing) map of key pairs. */
#include <stdlib.h>

#include "analysis/kmap.h"
#include "ls_buf.h"
#include "ls_err.h"

static size_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) *
		     0xbf58476d1ce4e5b9ull;

	return (size_t)(h ^ (h >> 31));
}

static int grow(struct lsa_kmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	struct lsa_kent *nt;

	if (ncap > SIZE_MAX / sizeof(*nt))
		return -1;
	nt = malloc(ncap * sizeof(*nt));
	if (!nt)
		return -1;
	ls_prefault(nt, ncap * sizeof(*nt));	/* (written whole next) */
	for (i = 0; i < ncap; i++)
		nt[i].a = LSA_KMAP_EMPTY;
	for (i = 0; i < m->cap; i++) {
		struct lsa_kent *e = &m->t[i];
		size_t j;

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		for (j = hash2(e->a, e->b) & (ncap - 1); nt[j].a != LSA_KMAP_EMPTY;
		     j = (j + 1) & (ncap - 1))
			;
		nt[j] = *e;
	}
	free(m->t);
	m->t = nt;
	m->cap = ncap;
	return 0;
}

uint64_t *lsa_kmap_find(const struct lsa_kmap *m, uint64_t a, uint64_t b)
{
	size_t j;

	if (!m->cap)
		return NULL;
	for (j = hash2(a, b) & (m->cap - 1); m->t[j].a != LSA_KMAP_EMPTY;
	     j = (j + 1) & (m->cap - 1))
		if (m->t[j].a == a && m->t[j].b == b)
			return &m->t[j].v;
	return NULL;
}

uint64_t *lsa_kmap_get(struct lsa_kmap *m, uint64_t a, uint64_t b)
{
	size_t j;

	/* at most half full: a miss (a set's "not in it", the common
	 * answer) then probes ~2.5 slots, at three quarters ~8.5 */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return NULL;
	/* one probe sequence finds the key or the slot it goes to */
	for (j = hash2(a, b) & (m->cap - 1); m->t[j].a != LSA_KMAP_EMPTY;
	     j = (j + 1) & (m->cap - 1))
		if (m->t[j].a == a && m->t[j].b == b)
			return &m->t[j].v;
	m->t[j].a = a;
	m->t[j].b = b;
	m->t[j].v = 0;
	m->n++;
	return &m->t[j].v;
}

int lsa_kmap_add(struct lsa_kmap *m, uint64_t a, uint64_t b, uint64_t by)
{
	uint64_t *v = lsa_kmap_get(m, a, b);

	if (!v)
		return -LS_ENOMEM;
	*v += by;
	return 0;
}

void lsa_kmap_release(struct lsa_kmap *m)
{
	free(m->t);
	m->t = NULL;
	m->n = m->cap = 0;
}
