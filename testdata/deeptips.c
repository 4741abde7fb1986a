/* deeptips.c - deepcalls.c with every call through a pointer: recursion
 * 100 calls deep (deeper than libipt's 64-entry return-compression
 * stack), calling a leaf function at every level on the way down and on
 * the way up, 20 times.  Each call is an indirect one, a TIP, so the
 * fast path's trails (decoder/fast_trail.c) start at every level: below
 * depth 64 with the return stack full (each call drops its oldest entry
 * and each compressed return takes one), and on the way up past the
 * returns the stack lost (uncompressed, TIPs too).  Hand count: down()
 * runs 20 * 101 = 2020 times, leaf() 2 * 2020 = 4040 times. */
#include <stdio.h>

static volatile long acc;

__attribute__((noinline)) static void leaf(int i)
{
	if (i & 1)
		acc += i;
	else
		acc -= 1;
}

static void (*volatile leafp)(int) = leaf;
static long (*volatile downp)(int);

__attribute__((noinline)) static long down(int d)
{
	leafp(d);
	if (d > 0)
		acc += downp(d - 1);
	leafp(d);
	return acc;
}

int main(void)
{
	downp = down;
	for (int r = 0; r < 20; r++)
		downp(100);
	printf("%ld\n", acc);
	return 0;
}
