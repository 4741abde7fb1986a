/* cpibench.c - OptiWISE's figure 1 in C: one loop whose load misses the
 * cache on most iterations, one loop of independent arithmetic.
 *   cpibench [CHASE [MB [ARITH]]]
 * fill() writes MB (default 128) megabytes, far more than the 32 MB of
 * last-level cache here; chase() runs CHASE (default 1000000) iterations
 * of a random walk over them: each load's index depends on the previous
 * load's value, so the misses cannot overlap and the load (line MISS)
 * costs a memory latency per execution while the arithmetic around it
 * costs about a cycle.  arith() runs ARITH (default 20000000) iterations
 * of four independent add/xor chains: several instructions per cycle.
 * Prints the results so nothing is optimized away. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t *buf;

static void fill(size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		buf[i] = x >> 11;
	}
}

static uint64_t chase(long iters, uint64_t mask)
{
	uint64_t x = 1, s = 0;

	for (long i = 0; i < iters; i++) {
		x = buf[(x ^ (uint64_t)i) & mask]; /* MISS */
		s += x + (uint64_t)i;
	}
	return s;
}

static uint64_t arith(long iters)
{
	uint64_t a = 1, b = 2, c = 3, d = 4;

	for (long i = 0; i < iters; i++) {
		a += (uint64_t)i;
		b ^= (uint64_t)i;
		c += 0x55;
		d ^= 0xaa;
	}
	return a ^ b ^ c ^ d;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000000;
	long mb = argc > 2 ? atol(argv[2]) : 128;
	long ar = argc > 3 ? atol(argv[3]) : 20000000;
	size_t n = (size_t)mb << 17;	/* 8-byte words: a power of two */

	if (mb <= 0 || (mb & (mb - 1)) || !(buf = malloc(n * sizeof(*buf))))
		return 2;
	fill(n);
	printf("%llu %llu\n", (unsigned long long)chase(iters, n - 1),
	       (unsigned long long)arith(ar));
	free(buf);
	return 0;
}
