/* rng.h - pseudo-random numbers for the unit tests (header-only):
 * Marsaglia's xorshift64 over a state of the test's own, from a fixed
 * seed, so that every run draws the same numbers. */
#ifndef LS_TEST_RNG_H
#define LS_TEST_RNG_H

#include <stdint.h>

/* The next number of the sequence in *s (never 0 if *s is not). */
static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
