/* snest.c - the template of the decoder's fuzz target (tests/fuzz/
 * fuzz_decode.c, bench/fuzz.sh, t0301): static, no libc, so that a
 * recording of it embeds this file's code alone (no ld.so or libc to
 * write, read and sweep for every input) and its trace is a few hundred
 * bytes, yet has what the decoder's fast path models: a loop nest
 * (TNT), direct and indirect calls, compressed returns, a jump table
 * (indirect jump) and recursion deeper than nothing.
 * Behaviour, by hand: nest() runs 3 x 4 x 5 = 60 innermost iterations,
 * each an indirect call through ops[] (leaf 30 times, other 30); pick()
 * runs once per i of nest (3 times) through a switch; depth(6) recurses
 * 6 deep.  The exit status is (nest() + depth(6)) & 0x7f.
 */
static volatile long sink;

__attribute__((noinline)) static long leaf(long x)
{
	return x * 3;
}

__attribute__((noinline)) static long other(long x)
{
	return x + 7;
}

static long (*volatile ops[2])(long) = { leaf, other };

/* Enough cases for gcc to make a jump table. */
__attribute__((noinline)) static long pick(int v)
{
	switch (v) {
	case 0: return 11;
	case 1: return 13;
	case 2: return 17;
	case 3: return 19;
	case 4: return 23;
	case 5: return 29;
	case 6: return 31;
	default: return 1;
	}
}

__attribute__((noinline)) static long nest(void)
{
	long s = 0;

	for (int i = 0; i < 3; i++) {
		s += pick((int)sink + i);
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 5; k++)
				s += ops[(i + j + k) & 1](k);
	}
	return s;
}

__attribute__((noinline)) static long depth(int n)
{
	return n ? 1 + depth(n - 1) : 0;
}

int main(void);

int main(void)
{
	sink = nest() + depth(6);
	return (int)(sink & 0x7f);
}

#include "start.h"
