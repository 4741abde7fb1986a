/* tipmix.c - calls through a table of function pointers, the callee
 * chosen by a pseudo-random sequence and branching on it:
 *   tipmix [N]
 * runs N (default 1000) iterations of main's loop, each one indirect
 * call (a TIP) to one of four leaves picked by a linear congruential
 * sequence, whose leaf takes a branch on the sequence's next bits.  The
 * TNT bits after each TIP vary with the data, so the decoder's trails
 * (decoder/fast_trail.c) give few blocks a look and, past 2^16 looks,
 * rest (t0223).  Hand count: main's loop N iterations; the leaves
 * together N calls; prints the sum. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long acc;

__attribute__((noinline)) static void l0(unsigned x)
{
	if (x & 1)
		acc += x;
	else
		acc ^= x;
}

__attribute__((noinline)) static void l1(unsigned x)
{
	if (x & 2)
		acc -= x;
	if (x & 4)
		acc += 3;
}

__attribute__((noinline)) static void l2(unsigned x)
{
	if ((x & 3) == 1)
		acc += x >> 3;
}

__attribute__((noinline)) static void l3(unsigned x)
{
	if (x & 8)
		acc ^= x << 1;
	else
		acc += 1;
}

static void (*volatile tab[4])(unsigned) = { l0, l1, l2, l3 };

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned s = 12345;

	for (long i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		tab[s >> 30](s >> 16);
	}
	printf("%lu\n", (unsigned long)acc);
	return 0;
}
