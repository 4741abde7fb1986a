/* cpimix.c - a program that runs other code when traced than when
 * sampled, so the samples of `record --sample` (a native run) land where
 * the trace (a run under Valgrind, which puts its preload library into
 * LD_PRELOAD) never went: traced() runs 1000 iterations under Valgrind,
 * native() 100000000 natively (about 0.1 s).  Prints the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long traced(long n)
{
	unsigned long s = 0;

	for (long i = 0; i < n; i++)
		s += (unsigned long)i * 3;
	return s;
}

static unsigned long native(long n)
{
	unsigned long s = 1;

	for (long i = 0; i < n; i++)
		s ^= s * 7 + (unsigned long)i;
	return s;
}

int main(void)
{
	const char *p = getenv("LD_PRELOAD");

	if (p && strstr(p, "vgpreload"))
		printf("%lu\n", traced(1000));
	else
		printf("%lu\n", native(100000000));
	return 0;
}
