/* lp_trips.c - loops with variable trip counts and early exits.
 * Hand count (trip count = executions of the loop's head per entry):
 * - vary(n) runs its loop n times for n in counts[] (11 calls, each
 *   entering once): histogram 1:2 2:1 3:2 4:1 5:3 6:1 9:1, 44 iterations.
 *   The first call has n = 3, so the loop is known before the n = 1 calls.
 * - find() scans for a key: found at index 6 (head runs 7 times), at
 *   index 2 (3 times), absent from 10 (10 times): 3 entries, 20 iterations.
 * - brk() stops at i = 8 (8 * 8 > 50).  gcc tests i * i > lim at the
 *   bottom of the rotated loop (the test for i = 0 is peeled before it),
 *   so the head runs for i = 0..7: 8 times.
 * - cont() skips multiples of 3 with continue: 20 iterations, 1 entry.
 * - the driver loop in main runs once per element of counts[]: 11.
 * - first1(n) runs its loop n times for n in early[] = 1, 1, 2, 1, 3
 *   (driven by a loop of 5 in drive1()): the first two entries have trip
 *   count 1, before the loop ever iterated twice: 5 entries, 8
 *   iterations, histogram 1:3 2:1 3:1. */
#include <stdio.h>

static volatile long sink;
static const int counts[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5 };
static const int early[] = { 1, 1, 2, 1, 3 };
static const int keys[10] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };

__attribute__((noinline)) static long vary(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += (long)i * sink;
	return s;
}

__attribute__((noinline)) static int find(const int *a, int n, int key)
{
	for (int i = 0; i < n; i++)
		if (a[i] == key)
			return i;
	return -1;
}

__attribute__((noinline)) static long brk(long lim)
{
	long s = 0;

	for (long i = 0; i < 100; i++) {
		if (i * i > lim)
			break;
		s += i ^ sink;
	}
	return s;
}

__attribute__((noinline)) static long cont(void)
{
	long s = 0;

	for (long i = 0; i < 20; i++) {
		if (i % 3 == sink)
			continue;
		s += i;
	}
	return s;
}

__attribute__((noinline)) static long first1(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += (long)i ^ sink;
	return s;
}

__attribute__((noinline)) static long drive1(void)
{
	long s = 0;

	for (unsigned k = 0; k < sizeof(early) / sizeof(early[0]); k++)
		s += first1(early[k]);
	return s;
}

int main(void)
{
	long s = 0;

	for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		s += vary(counts[k]);
	s += find(keys, 10, 16) + find(keys, 10, 12) + find(keys, 10, 99);
	s += brk(50) + cont() + drive1();
	printf("%ld\n", s);
	return 0;
}
