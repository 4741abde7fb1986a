/* labels.c - loops whose source line a report must name, built with -O2
 * (testdata/o2/ is built with -O2 -g, and again with -O0 as labels_O0):
 * gcc rotates them, so a loop's head block starts at the first statement
 * of its body, and only the back branch carries the loop's own line.
 * Every loop header is alone on its line, marked with a comment naming
 * the loop; t0630 finds the lines by these markers.  Trip counts, by hand
 * (all distinct, so a test can tell the loops apart by them):
 *   f2: outer 7, inner 11 per entry
 *   f3: i 3, j 5, k 13 (nest of three: for, while, do)
 *   g (inlined into f4 and called from nowhere else): 17 per call,
 *     f4 calls it 19 times from its loop (the loop of f4: 19)
 *   f5: 23, each iteration calling work() (whose own loop runs 29)
 * The volatile sink keeps gcc from folding the loops away. */
#include <stdio.h>

volatile unsigned long sink;

__attribute__((noinline)) static void f2(void)
{
	int i, j;

	for (i = 0; i < 7; i++) {		/* L:f2_outer */
		sink += (unsigned long)i;
		for (j = 0; j < 11; j++)	/* L:f2_inner */
			sink += (unsigned long)(i * j);
	}
}

__attribute__((noinline)) static void f3(void)
{
	int i = 0, j, k;

	for (i = 0; i < 3; i++) {		/* L:f3_i */
		j = 0;
		while (j < 5) {			/* L:f3_j */
			k = 0;
			do {
				sink += (unsigned long)(i + j + k);
				k++;
			} while (k < 13);	/* L:f3_k */
			j++;
		}
	}
}

static inline __attribute__((always_inline)) void g(int n)
{
	int i;

	for (i = 0; i < 17; i++)		/* L:g */
		sink += (unsigned long)(n ^ i);
}

__attribute__((noinline)) static void f4(void)
{
	int n;

	for (n = 0; n < 19; n++)		/* L:f4 */
		g(n);
}

__attribute__((noinline)) static void work(int n)
{
	int i;

	for (i = 0; i < 29; i++)		/* L:work */
		sink += (unsigned long)(n + i);
}

__attribute__((noinline)) static void f5(void)
{
	int n;

	for (n = 0; n < 23; n++)		/* L:f5 */
		work(n);
}

int main(void)
{
	f2();
	f3();
	f4();
	f5();
	printf("%lu\n", (unsigned long)sink);
	return 0;
}
