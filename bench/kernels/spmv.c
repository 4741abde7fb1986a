/* spmv.c - a numeric kernel for the benchmarks (bench/analyze.sh): a
 * sparse matrix-vector product in CSR form, y = A x, ITERS times, on an
 * N x N matrix whose rows hold 1 to 40 nonzeros at columns drawn by a
 * fixed linear congruential generator.  Unlike the stencil, the inner
 * loop's trip count changes from row to row and its loads are indirect.
 * With the defaults, 20000 rows and 330 products, about 1.08e9
 * instructions at -O2.
 *   spmv [N [ITERS]]   prints a checksum of y */
#include <stdio.h>
#include <stdlib.h>

static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	int iters = argc > 2 ? atoi(argv[2]) : 330;
	unsigned seed = 1;
	int *rowp, *col, i, k, nnz = 0;
	double *val, *x, *y, sum = 0;

	if (n < 1 || iters < 1)
		return 2;
	rowp = malloc(((size_t)n + 1) * sizeof(*rowp));
	col = malloc((size_t)n * 40 * sizeof(*col));
	val = malloc((size_t)n * 40 * sizeof(*val));
	x = malloc((size_t)n * sizeof(*x));
	y = malloc((size_t)n * sizeof(*y));
	if (!rowp || !col || !val || !x || !y)
		return 1;
	for (i = 0; i < n; i++) {
		int len = 1 + (int)(lcg(&seed) % 40);

		rowp[i] = nnz;
		for (k = 0; k < len; k++) {
			col[nnz] = (int)(lcg(&seed) % (unsigned)n);
			val[nnz++] = 1.0 / (1 + k);
		}
		x[i] = 1.0;
	}
	rowp[n] = nnz;
	for (k = 0; k < iters; k++) {
		for (i = 0; i < n; i++) {
			double s = 0;
			int j;

			for (j = rowp[i]; j < rowp[i + 1]; j++)
				s += val[j] * x[col[j]];
			y[i] = s;
		}
		for (i = 0; i < n; i++)
			x[i] = y[i] / n + 0.5;
	}
	for (i = 0; i < n; i++)
		sum += y[i];
	printf("%.6f\n", sum);
	free(rowp);
	free(col);
	free(val);
	free(x);
	free(y);
	return 0;
}
