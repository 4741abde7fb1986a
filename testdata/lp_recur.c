/* lp_recur.c - loops in recursive functions.
 * Hand count:
 * - rec(5) calls itself down to rec(0): 6 calls, each runs its loop 4 times
 *   before recursing: 6 entries of trip count 4, all top-level or children
 *   of nothing (the call is after the loop).
 * - rec2(3) loops twice, recursing in each iteration while d > 0:
 *   1 + 2 + 4 + 8 = 15 calls, 15 entries of trip count 2; 14 of them are
 *   entered from inside the loop itself (edge rec2 loop -> rec2 loop, 14).
 *   Its total counts the outermost entry only (recursion counted once).
 * - fib() and the mutual recursion even()/odd() have no loops. */
#include <stdio.h>

static volatile long sink;
static volatile int two = 2;	/* read at run time: no unrolling */

__attribute__((noinline)) static long rec(int d)
{
	long s = 0;

	for (int i = 0; i < 4; i++)
		s += i * sink;
	if (d > 0)
		s += rec(d - 1);
	return s;
}

__attribute__((noinline)) static long rec2(int d)
{
	long s = 0;

	for (int i = 0, n = two; i < n; i++) {
		s += sink;
		if (d > 0)
			s += rec2(d - 1);
	}
	return s;
}

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int odd(int n);

__attribute__((noinline)) static int even(int n)
{
	return n == 0 ? 1 : odd(n - 1);
}

__attribute__((noinline)) static int odd(int n)
{
	return n == 0 ? 0 : even(n - 1);
}

int main(void)
{
	long s = rec(5) + rec2(3) + fib(10) + even(20);

	printf("%ld\n", s);
	return 0;
}
