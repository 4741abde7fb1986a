/* spin.c - a long busy loop for interruption tests: argv[1] outer
 * iterations (default 1000) of 100000 inner iterations each. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++)
		for (long j = 0; j < 100000; j++)
			sink += (unsigned long)(i ^ j);
	printf("%lu\n", (unsigned long)sink);
	return 0;
}
