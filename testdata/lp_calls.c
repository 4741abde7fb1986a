/* lp_calls.c - loops across calls.
 * Hand count:
 * - loop A in main runs 5 times and calls leaf(4) each time: leaf's loop
 *   is entered 5 times from A (edge A -> leaf loop, 5), trip count 4.
 * - loop B in main runs 3 times calling shared(2); loop C runs 7 times
 *   calling shared(5) and flat(): shared's loop is entered 3 times from B
 *   (trip count 2) and 7 times from C (trip count 5): 10 entries.
 * - flat() has no loop: its instructions are charged to loop C. */
#include <stdio.h>

static volatile long sink;
static volatile int nb = 3;	/* read at run time: no unrolling */

__attribute__((noinline)) static long leaf(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += sink + i;
	return s;
}

__attribute__((noinline)) static long shared(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += sink * i;
	return s;
}

__attribute__((noinline)) static long flat(long x)
{
	return x * 3 + sink;
}

int main(void)
{
	long s = 0;

	for (int i = 0; i < 5; i++)		/* loop A */
		s += leaf(4);
	for (int i = 0, n = nb; i < n; i++)	/* loop B */
		s += shared(2);
	for (int i = 0; i < 7; i++)		/* loop C */
		s += shared(5) + flat(i);
	printf("%ld\n", s);
	return 0;
}
