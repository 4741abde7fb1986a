/* deps_alloc.c - the heap blocks the trace shows allocated (the
 * recorder's allocation records), to name heap variables by their
 * allocation call.  Frees are not recorded: a new block overlapping
 * older ones replaces them (they were freed since), so the map holds
 * the latest block at each address, disjoint, sorted. */
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* The first allocation ending above a, by binary search. */
static size_t alloc_pos(const struct lsa_deps *D, uint64_t a)
{
	size_t lo = 0, hi = D->nalloc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (D->alloc[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A block [a, a + size) allocated by the call returning to site: the
 * blocks it overlaps were freed since.  Returns 0 or -LS_ENOMEM. */
int deps_alloc_add(struct lsa_deps *D, uint64_t a, uint64_t size, uint64_t site)
{
	size_t i, j;

	if (!size)
		size = 1;	/* malloc(0): a unique pointer still */
	if (a + size < a)
		return 0;
	i = alloc_pos(D, a);
	for (j = i; j < D->nalloc && D->alloc[j].lo < a + size; j++)
		;
	if (i == j && LS_GROW(D->alloc, D->nalloc + 1, D->capalloc, 64))
		return -LS_ENOMEM;
	/* Replaces alloc[i .. j) by the new block. */
	if (j != i + 1)
		memmove(&D->alloc[i + 1], &D->alloc[j], (D->nalloc - j) * sizeof(*D->alloc));
	D->nalloc = D->nalloc + 1 - (j - i);
	D->alloc[i].lo = a;
	D->alloc[i].hi = a + size;
	D->alloc[i].site = site;
	return 0;
}

/* The allocation holding a now, or NULL. */
const struct deps_alloc *deps_alloc_find(const struct lsa_deps *D, uint64_t a)
{
	size_t i = alloc_pos(D, a);

	return i < D->nalloc && D->alloc[i].lo <= a ? &D->alloc[i] : NULL;
}

