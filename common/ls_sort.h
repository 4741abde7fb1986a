/* ls_sort.h - radix sorts of 64-bit keys: the sorts that open a module
 * (its symbols, their boundaries, the entries found in its code) ran as
 * qsort() with a comparator call per compare, 5% of a short analysis. */
#ifndef LS_SORT_H
#define LS_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0 .. n) ascending.  Returns 0, or -LS_ENOMEM (a unchanged). */
int ls_sort_u64(uint64_t *a, size_t n);

/* order[0 .. n) gets the indices of keys[0 .. n) in ascending order of
 * key, equal keys in index order (stable).  Returns 0, -LS_EINVAL (n of
 * 2^32 or more: the indices are 32-bit) or -LS_ENOMEM. */
int ls_sort_order(const uint64_t *keys, size_t n, uint32_t *order);

#endif
