/* nested.c - a 3-deep loop nest with fixed trip counts.
 * Hand count: the outer loop runs 10 times, the middle 20 times per outer
 * iteration (200 entries... of the inner loop), the inner 30 times per
 * middle iteration: 10 entries of middle, 200 entries of inner, 6000
 * executions of the innermost body. */
#include <stdio.h>

static volatile long sink;

static long nest(void)
{
	long s = 0;

	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 20; j++)
			for (int k = 0; k < 30; k++)
				s += i * j + k;
	return s;
}

int main(void)
{
	sink = nest();
	printf("%ld\n", (long)sink);
	return 0;
}
