/* mix.c - dependence kernels beyond kern.c (t0941-deps-mix.sh): accesses
 * of different sizes that overlap, and two heap arrays allocated at two
 * lines.  Built -O0 -g like kern.c; line numbers matter (the test names
 * loops, accesses and allocations by them).
 */
#include <stdlib.h>

union pun {
	double d;
	unsigned h[2];
} pu;

/* An 8-byte write, then 4-byte reads of its halves in the next iteration. */
static void halves(void)
{
	for (int i = 0; i < 4; i++) {
		unsigned lo = pu.h[0], hi = pu.h[1];
		pu.d = lo + hi + 1.0;
	}
}

/* a carries a RAW, b a WAR; both on the heap. */
static void heap2(double *a, double *b)
{
	for (int i = 1; i < 8; i++) {
		a[i] = a[i - 1] + 1;
		b[i - 1] = b[i];
	}
}

double wrap[8];

/* Two sweeps of one array in one loop: iterations 9..16 touch again
 * what iterations 1..8 did (by then a compacted run of its history). */
static void sweep2(void)
{
	for (int i = 0; i < 16; i++)
		wrap[i % 8] += 1;
}

int main(void)
{
	double *a = malloc(8 * sizeof(double));
	double *b = calloc(8, sizeof(double));

	if (!a || !b)
		return 1;
	a[0] = 0;
	halves();
	heap2(a, b);
	sweep2();
	free(a);
	free(b);
	return 0;
}
