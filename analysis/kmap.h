/* kmap.h - an open-addressing hash map from a pair of 64-bit keys to a
 * 64-bit value, for the analyses' counters (edges, histograms, sets).
 * Grows by doubling; never shrinks; no per-insert allocation once grown.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_KMAP_H
#define LSA_KMAP_H

#include <stddef.h>
#include <stdint.h>

struct lsa_kent {
	uint64_t a, b;		/* key; a == LSA_KMAP_EMPTY marks a free slot */
	uint64_t v;
};

#define LSA_KMAP_EMPTY UINT64_MAX

struct lsa_kmap {
	struct lsa_kent *t;
	size_t n, cap;		/* cap is 0 or a power of two */
};

/* The value of key (a, b), inserted as 0 when absent.  a must not be
 * LSA_KMAP_EMPTY.  Returns NULL when out of memory. */
uint64_t *lsa_kmap_get(struct lsa_kmap *m, uint64_t a, uint64_t b);
/* The value of key (a, b), or NULL when absent. */
uint64_t *lsa_kmap_find(const struct lsa_kmap *m, uint64_t a, uint64_t b);
/* Adds by to the value of key (a, b).  Returns 0 or -LS_ENOMEM. */
int lsa_kmap_add(struct lsa_kmap *m, uint64_t a, uint64_t b, uint64_t by);
void lsa_kmap_release(struct lsa_kmap *m);

/* Iteration: for (i = 0; i < m->cap; i++) if (m->t[i].a != LSA_KMAP_EMPTY) */

#endif
