/* stencil.c - a numeric kernel for the benchmarks: a 5-point Jacobi
 * relaxation on an N x N grid, ITERS sweeps (bench/analyze.sh).  With the
 * defaults, 384 x 384 and 800 sweeps, about 1.05e9 instructions at -O2:
 * loops nested three deep (sweep, row, column), the inner one branch-free
 * but for its bound.
 *   stencil [N [ITERS]]   prints the grid's checksum */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 384;
	int iters = argc > 2 ? atoi(argv[2]) : 800;
	double *a, *b, *t, sum = 0;
	int i, j, k;

	if (n < 3 || iters < 1)
		return 2;
	a = calloc((size_t)n * n, sizeof(*a));
	b = calloc((size_t)n * n, sizeof(*b));
	if (!a || !b)
		return 1;
	for (i = 0; i < n; i++)
		a[i] = b[i] = 1.0;	/* a hot top edge */
	for (k = 0; k < iters; k++) {
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] +
						       a[i * n + j - 1] + a[i * n + j + 1]);
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n * n; i++)
		sum += a[i];
	printf("%.6f\n", sum);
	free(a);
	free(b);
	return 0;
}
