/* calls.c - a loop calling functions, one of which has its own loop, and
 * one function (work) called from two different loops.
 * Hand count: loop A runs 100 iterations calling step() and work(5);
 * loop B runs 50 iterations calling work(10).  work(n) loops n times. */
#include <stdio.h>

static volatile long acc;

static void step(long i)
{
	acc += i;
}

static void work(int n)
{
	for (int i = 0; i < n; i++)
		acc += i;
}

int main(void)
{
	for (long i = 0; i < 100; i++) {	/* loop A */
		step(i);
		work(5);
	}
	for (int i = 0; i < 50; i++)		/* loop B */
		work(10);
	printf("%ld\n", (long)acc);
	return 0;
}
