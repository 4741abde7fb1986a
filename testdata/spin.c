/* spin.c - a long busy loop for benchmarks and interruption tests:
 *   spin [OUTER [INNER [SLEEP_US]]]
 * runs OUTER (default 1000) iterations of an inner loop of INNER (default
 * 100000) iterations, sleeping SLEEP_US microseconds (default 0) after
 * each, and prints the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long m = argc > 2 ? atol(argv[2]) : 100000;
	long us = argc > 3 ? atol(argv[3]) : 0;

	for (long i = 0; i < n; i++) {
		for (long j = 0; j < m; j++)
			sink += (unsigned long)(i ^ j);
		if (us)
			usleep((useconds_t)us);
	}
	printf("%lu\n", (unsigned long)sink);
	return 0;
}
