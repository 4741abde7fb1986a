/* pltleaf.c - functions of a shared library (libplk.so, testdata/lib/plk.c,
 * found next to this program) called through the PLT, bound at load
 * (-z now): each call reaches the stub plk_*@plt, whose jump leads to the
 * function.  plk_add runs no loop and calls nothing; plk_sum runs a loop.
 * Hand count: main's loop runs 100 iterations (i = 0 .. 99), each calling
 * plk_add once: 100 calls of plk_add@plt and of plk_add; then plk_sum(50)
 * is called once, its loop 1 entry of 50 iterations.  Prints
 * sum(i + 1) + sum(3 i, i < 50) = 5050 + 3675 = 8725.
 * The eager pass takes such a call whole, stub and function, in its tight
 * loop (lsa_eager_run()'s local frame); t0209 checks it did. */
#include <stdio.h>

int plk_add(int a, int b);
long plk_sum(int n);

static volatile int one = 1;

int main(void)
{
	long n = 0;

	for (int i = 0; i < 100; i++)
		n += plk_add(i, one);
	n += plk_sum(50);
	printf("%ld\n", n);
	return 0;
}
