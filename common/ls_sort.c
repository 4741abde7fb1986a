/* ls_sort.c - least significant digit first radix sorts, one byte a
 * pass.  The counts of all eight digits are taken in one read; a digit
 * every key shares (addresses in one module share their high bytes) is
 * no pass at all. */
#include <stdlib.h>
#include <string.h>

#include "ls_err.h"
#include "ls_sort.h"

/* The counts of the eight digits of keys[0 .. n), made prefix sums in
 * cnt; pass gets, in order, the digits that are not the same in every
 * key.  Returns their number. */
static int plan(const uint64_t *keys, size_t n, size_t cnt[8][256], int *pass)
{
	size_t i;
	int d, np = 0;

	memset(cnt, 0, 8 * sizeof(*cnt));
	for (i = 0; i < n; i++)
		for (d = 0; d < 8; d++)
			cnt[d][(keys[i] >> (8 * d)) & 0xff]++;
	for (d = 0; d < 8; d++) {
		size_t sum = 0, v;
		int same = 0;

		for (v = 0; v < 256; v++) {
			size_t c = cnt[d][v];

			if (c == n)
				same = 1;
			cnt[d][v] = sum;
			sum += c;
		}
		if (!same)
			pass[np++] = d;
	}
	return np;
}

int ls_sort_u64(uint64_t *a, size_t n)
{
	size_t cnt[8][256], i;
	uint64_t *tmp, *src = a, *dst;
	int pass[8], np, p;

	if (n < 2)
		return 0;
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -LS_ENOMEM;
	np = plan(a, n, cnt, pass);
	dst = tmp;
	for (p = 0; p < np; p++) {
		size_t *c = cnt[pass[p]];
		unsigned sh = 8 * (unsigned)pass[p];
		uint64_t *t;

		for (i = 0; i < n; i++)
			dst[c[(src[i] >> sh) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	return 0;
}

int ls_sort_order(const uint64_t *keys, size_t n, uint32_t *order)
{
	size_t cnt[8][256], i;
	uint32_t *tmp, *src = order, *dst;
	int pass[8], np, p;

	if (n > UINT32_MAX)
		return -LS_EINVAL;
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	if (n < 2)
		return 0;
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -LS_ENOMEM;
	np = plan(keys, n, cnt, pass);
	dst = tmp;
	for (p = 0; p < np; p++) {
		size_t *c = cnt[pass[p]];
		unsigned sh = 8 * (unsigned)pass[p];
		uint32_t *t;

		/* (stable: each pass keeps the order of the one before) */
		for (i = 0; i < n; i++)
			dst[c[(keys[src[i]] >> sh) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != order)
		memcpy(order, src, n * sizeof(*order));
	free(tmp);
	return 0;
}
