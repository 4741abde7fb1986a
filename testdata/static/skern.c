/* skern.c - the template of the memory-access fuzz target (tests/fuzz/
 * fuzz_memacc.c, bench/fuzz.sh, t0312): loop kernels of testdata/deps/
 * kern.c with their dependences (RAW and WAR at distance 1, a reduction,
 * pointers, a list, a callee writing a global, recursion), built static
 * with no libc at -O0 (scalars in memory), so that a recording embeds
 * this file's code alone and its memory-access records are a few KiB:
 * each fuzz input is analysed without ld.so's and libc's code and DWARF.
 * Behaviour, by hand: fig4 2 x 2 iterations; raw1 15 (ra[i] = ra[i-1] +
 * 1, RAW distance 1); war1 15 (WAR distance 1); sum 16 (reduction into a
 * local); lu n = 4 (the i loop parallel); calls_global 6 calls of keep();
 * list 5 nodes; split(fd, 8) 8 leaves.  Exit status 0.
 */
int A[4][4], B[4][4];

static void fig4(void)
{
	for (int i = 1; i <= 2; ++i)
		for (int j = 1; j <= 2; ++j) {
			A[i][j] = A[i][j-1] + 1;
			B[i][j] = B[i+1][j] + 1; }
}

double ra[16], wa[16];

static void raw1(double x)
{
	for (int i = 1; i < 16; i++)
		ra[i] = ra[i - 1] + x;
}

static void war1(void)
{
	for (int i = 0; i < 15; i++)
		wa[i] = wa[i + 1];
}

static double sum(void)
{
	double s = 0;

	for (int i = 0; i < 16; i++)
		s += ra[i];
	return s;
}

static void lu(double **L, double **M, int n)
{
	for (int k = 0; k < n - 1; k++)
		for (int i = k + 1; i < n; i++) {
			L[i][k] = M[i][k] / M[k][k];
			for (int j = k + 1; j < n; j++)
				M[i][j] = M[i][j] - L[i][k] * M[k][j];
		}
}

int last;

static void keep(int v)
{
	last = v;
}

static void calls_global(void)
{
	for (int i = 0; i < 6; i++)
		keep(i);
}

struct node {
	int val;
	struct node *next;
};

static void list(struct node *head)
{
	for (struct node *p = head; p; p = p->next)
		p->val *= 2;
}

double fd[8];

static void split(double *d, int n)
{
	if (n == 1) {
		d[0] = d[0] * 2;
		return;
	}
	for (int i = 0; i <= 1; i++)
		split(d + i * (n / 2), n / 2);
}

double mrows[4][4], lrows[4][4];

int main(void);

int main(void)
{
	double *rows[4], *lr[4];
	struct node nodes[5];

	fig4();
	raw1(1.0);
	war1();
	ra[0] = sum();
	for (int i = 0; i < 4; i++) {
		rows[i] = mrows[i];
		lr[i] = lrows[i];
		rows[i][i] = 1;
	}
	lu(lr, rows, 4);
	calls_global();
	for (int i = 0; i < 5; i++) {
		nodes[i].val = i;
		nodes[i].next = i < 4 ? &nodes[i + 1] : 0;
	}
	list(nodes);
	split(fd, 8);
	return 0;
}

#include "start.h"
