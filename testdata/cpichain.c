/* cpichain.c - CPI along call chains (t0801): main calls work() and
 * nothing else; work's outer loop (line OUTER) runs an inner loop (line
 * INNER) that calls leaf(), which calls nothing.  Built -O1
 * -fno-omit-frame-pointer, leaf() still gets no frame (gcc omits it in
 * leaf functions on x86-64), so a frame-pointer call chain of a sample in
 * leaf() skips work() and its loops.  Hand counts: work(N, M) runs the
 * outer body N times, the inner body and leaf() N * M times, M = 1000,
 * N = 5000 with an argument (t0801: enough time for samples), else 2
 * (the tests that run every testdata program); every instruction of
 * work() that runs more than once is in the outer loop, every one that
 * runs more than N times in the inner loop.  The result goes to a
 * volatile so that nothing is optimized away, and main calls no library
 * function. */
#include <stdint.h>

volatile uint64_t sink;

static uint64_t leaf(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185u;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44du;
	return x ^ (x >> 33);
}

static uint64_t work(long n, long m)
{
	uint64_t s = 0;

	for (long i = 0; i < n; i++) { /* OUTER */
		for (long j = 0; j < m; j++) /* INNER */
			s += leaf(s + (uint64_t)j);
		s ^= (uint64_t)i;
	}
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	sink = work(argc > 1 ? 5000 : 2, 1000);
	return 0;
}
