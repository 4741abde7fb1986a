/* kern.c - the loop kernels of the dependence tests (t0900-deps.sh), one
 * function each, built with -O0 -g so that scalars live in memory as in
 * Prospector's examples (Kim et al., sections 2-3).  Every kernel runs
 * once from main.  Line numbers matter: the test names loops and
 * dependences by them.  The expected dependences of each kernel are
 * derived by hand in t0900-deps.sh.
 *
 * Usage: kern [N]  (N: the input of input_dep; 0 when absent)
 */
#include <stdlib.h>

int A[4][4], B[4][4];

/* Prospector figure 4: keep on lines 15-19 (table 3b names them). */
static void fig4(void)
{
	for (int i = 1; i <= 2; ++i)
		for (int j = 1; j <= 2; ++j) {
			A[i][j] = A[i][j-1] + 1;
			B[i][j] = B[i+1][j] + 1; }
}

double ra[16], wa[16];

/* a[i] = a[i-1] + x: RAW at distance 1, 15 times. */
static void raw1(double x)
{
	for (int i = 1; i < 16; i++)
		ra[i] = ra[i - 1] + x;
}

/* a[i] = a[i+1]: WAR at distance 1, 15 times. */
static void war1(void)
{
	for (int i = 0; i < 15; i++)
		wa[i] = wa[i + 1];
}

/* A sum reduction into a local. */
static double sum(void)
{
	double s = 0;

	for (int i = 0; i < 16; i++)
		s += ra[i];
	return s;
}

int outside;

/* Prospector figure 2 (Mandelbrot): a conditionally updated reduction and
 * an early exit from the inner loop. */
static void mandel(void)
{
	for (int i = 0; i < 8; i++) {
		double z = i * 0.5;
		for (int j = 0; j < 4; j++) {
			z = z * z + i * 0.5;
			if (z > 2.0) {
				outside++;
				break;
			}
		}
	}
}

/* LUreduction (figure 1) through double **: the i loop is parallel. */
static void lu(double **L, double **M, int n)
{
	for (int k = 0; k < n - 1; k++)
		for (int i = k + 1; i < n; i++) {
			L[i][k] = M[i][k] / M[k][k];
			for (int j = k + 1; j < n; j++)
				M[i][j] = M[i][j] - L[i][k] * M[k][j];
		}
}

double tmp_out;

/* A temporary allocated outside the loop (a global) ... */
static void temp_outside(void)
{
	for (int i = 0; i < 8; i++) {
		tmp_out = ra[i] * 2;
		wa[i] = tmp_out + 1;
	}
}

static double twice(double v)
{
	double t = v * 2;	/* a temporary in a frame made per iteration */

	return t + 1;
}

/* ... and inside it (a callee's local). */
static void temp_inside(void)
{
	for (int i = 0; i < 8; i++)
		wa[i] = twice(ra[i]);
}

int last;

static void keep(int v)
{
	last = v;
}

/* A loop calling a function that writes a global. */
static void calls_global(void)
{
	for (int i = 0; i < 6; i++)
		keep(i);
}

struct node {
	int val;
	struct node *next;
};

/* A linked-list traversal: p = p->next carries a RAW. */
static void list(struct node *head)
{
	for (struct node *p = head; p; p = p->next)
		p->val *= 2;
}

int hist[16], key[16];

/* Input-dependent: key[i] = i (no dependence) or i % n (a collision for
 * each i >= n). */
static void input_dep(int n)
{
	for (int i = 0; i < 16; i++)
		key[i] = n ? i % n : i;
	for (int i = 0; i < 16; i++)
		hist[key[i]] = hist[key[i]] + 1;
}

double fd[8];

/* FFT-like recursion (figure 3): two halves, disjoint. */
static void split(double *d, int n)
{
	if (n == 1) {
		d[0] = d[0] * 2;
		return;
	}
	for (int i = 0; i <= 1; i++)
		split(d + i * (n / 2), n / 2);
}

int main(int argc, char **argv)
{
	double *rows[8], *lrows[8];
	struct node nodes[5];

	fig4();
	raw1(1.0);
	war1();
	ra[0] = sum();
	mandel();
	for (int i = 0; i < 8; i++) {
		rows[i] = calloc(8, sizeof(double));
		lrows[i] = calloc(8, sizeof(double));
		rows[i][i] = 1;
	}
	lu(lrows, rows, 8);
	temp_outside();
	temp_inside();
	calls_global();
	for (int i = 0; i < 5; i++) {
		nodes[i].val = i;
		nodes[i].next = i < 4 ? &nodes[i + 1] : NULL;
	}
	list(nodes);
	input_dep(argc > 1 ? atoi(argv[1]) : 0);
	split(fd, 8);
	return 0;
}
