/* lp_fcall.c - calls, from a loop, of functions that run loops of their
 * own: the eager pass's local frames with a loop entry of their own
 * (lsa_eager_run()), given to the calling entry at the return, and each
 * way such a frame is made a real one (a call in the loop, a second
 * loop, a nested loop, a loop of the caller's caller).
 *
 * Hand count (every loop below runs at least once where it is entered;
 * a loop's iterations are its trips, summed over its entries):
 * - sum_to(n)'s loop runs n iterations.  It is entered once from main
 *   before main's loop (sum_to(7)), and in each of main's 50 iterations
 *   (i = 0 .. 49) from main (sum_to(i % 5 + 1): 10 times each of 1 .. 5,
 *   150 iterations), from outer_g(i % 3 + 1) (17 times 1, 17 times 2, 16
 *   times 3: 99) and from outer_h(2) (100): 151 entries, 356 iterations.
 * - loop_calls(3): 50 entries of 3 (150 iterations), each calling leaf:
 *   leaf is called 150 times.
 * - two_loops(2): its two loops, 50 entries of 2 each (100 iterations).
 * - outer_h(2): its own loop after sum_to's, 50 entries of 2 (100).
 * - nest2(2): its outer loop 50 entries of 2 (100 iterations), its
 *   inner loop 100 entries of 2 (200).
 * - main's loop: 1 entry of 50.
 * Prints the sum of what they return (computed by the program). */
#include <stdio.h>

static volatile int one = 1;

__attribute__((noinline)) static long sum_to(int n)
{
	long s = 0;

	for (int k = 0; k < n; k++)
		s += k * one;
	return s;
}

__attribute__((noinline)) static long leaf(int k)
{
	return 2L * k + one;
}

__attribute__((noinline)) static long loop_calls(int n)
{
	long s = 0;

	for (int k = 0; k < n; k++)
		s += leaf(k);
	return s;
}

__attribute__((noinline)) static long two_loops(int n)
{
	long s = 0;

	for (int k = 0; k < n; k++)
		s += k * one;
	for (int k = 0; k < n; k++)
		s -= 2L * k * one;
	return s;
}

__attribute__((noinline)) static long outer_g(int m)
{
	return sum_to(m) + one;
}

__attribute__((noinline)) static long outer_h(int m)
{
	long s = sum_to(m);

	for (int k = 0; k < m; k++)
		s += 3L * k * one;
	return s;
}

__attribute__((noinline)) static long nest2(int n)
{
	long s = 0;

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			s += (long)a * b * one;
	return s;
}

int main(void)
{
	long t = sum_to(7);

	for (int i = 0; i < 50; i++) {
		t += sum_to(i % 5 + 1);
		t += loop_calls(3);
		t += two_loops(2);
		t += outer_g(i % 3 + 1);
		t += outer_h(2);
		t += nest2(2);
	}
	printf("%ld\n", t);
	return 0;
}
