/* deepcalls.c - recursion 100 calls deep (deeper than libipt's 64-entry
 * return-compression stack) calling a leaf function at every level on
 * the way down and on the way up, 20 times: with the stack full, each
 * call to the leaf overwrites the oldest return address and its return
 * pops it, so the unwinding meets returns the stack no longer holds
 * (uncompressed, a TIP).  Hand count: down() runs 20 * 101 = 2020 times,
 * leaf() 2 * 2020 = 4040 times. */
#include <stdio.h>

static volatile long acc;

__attribute__((noinline)) static void leaf(int i)
{
	if (i & 1)
		acc += i;
	else
		acc -= 1;
}

__attribute__((noinline)) static long down(int d)
{
	leaf(d);
	if (d > 0)
		acc += down(d - 1);
	leaf(d);
	return acc;
}

int main(void)
{
	for (int r = 0; r < 20; r++)
		down(100);
	printf("%ld\n", acc);
	return 0;
}
