/* unit_sort.c - common/ls_sort.c against qsort(): keys with common high
 * bytes (addresses of one module), duplicates, every length to 300 and
 * some long ones; ls_sort_order() also stable (equal keys in index
 * order, checked pair by pair).  The expected order is qsort()'s. */
#include <stdlib.h>
#include <string.h>

#include "ls_sort.h"
#include "rng.h"
#include "tap.h"

static uint64_t rng = 0x243f6a8885a308d3u;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Keys of kind k: any 64 bits, one module's addresses, few values. */
static uint64_t key(int k)
{
	switch (k) {
	case 0:
		return rng_next(&rng);
	case 1:
		return 0x7f3a12000000ull + rng_next(&rng) % 0x200000;
	default:
		return 0x401000 + 16 * (rng_next(&rng) % 7);
	}
}

int main(void)
{
	static const size_t big[] = { 1000, 4096, 65537, 200000 };
	size_t n, i, bad_u64 = 0, bad_ord = 0, cases = 0;
	uint64_t *a = malloc(200000 * sizeof(*a)), *b = malloc(200000 * sizeof(*b));
	uint32_t *o = malloc(200000 * sizeof(*o));

	if (!a || !b || !o)
		return 1;
	for (size_t t = 0; t < 300 + sizeof(big) / sizeof(big[0]); t++) {
		n = t < 300 ? t : big[t - 300];
		for (int k = 0; k < 3; k++, cases++) {
			for (i = 0; i < n; i++)
				a[i] = b[i] = key(k);
			if (ls_sort_order(a, n, o) != 0) {
				bad_ord++;
				continue;
			}
			qsort(b, n, sizeof(*b), cmp_u64);
			for (i = 0; i < n; i++)
				if (a[o[i]] != b[i] ||
				    (i && a[o[i - 1]] == a[o[i]] && o[i - 1] >= o[i]))
					break;
			bad_ord += i != n;
			if (ls_sort_u64(a, n) != 0 || (n && memcmp(a, b, n * sizeof(*a))))
				bad_u64++;
		}
	}
	TAP_EQ(bad_u64, 0, "ls_sort_u64 gives qsort's order (%zu arrays)", cases);
	TAP_EQ(bad_ord, 0, "ls_sort_order: qsort's order, equal keys by index");
	free(a);
	free(b);
	free(o);
	return TAP_DONE();
}
