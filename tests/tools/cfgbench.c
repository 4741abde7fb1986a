/* cfgbench.c [NBLOCKS] - dominators of a synthetic CFG of NBLOCKS blocks
 * (default 1,000,000): a chain of diamonds (if/else) with a loop back
 * edge every 8 blocks and a nested one every 64, the shapes compiled code
 * has.  Prints the time and blocks per second of lsa_dom_compute(). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/dom.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1000000u;
	uint32_t *from, *to, *so, *s, *po, *p, *fs, *fp, v, m = 0, k;
	struct lsa_dom_graph g;
	struct lsa_dom dom;
	double t0, t1;

	if (n < 16)
		n = 16;
	from = malloc(3 * (size_t)n * sizeof(uint32_t));
	to = malloc(3 * (size_t)n * sizeof(uint32_t));
	so = calloc((size_t)n + 1, sizeof(uint32_t));
	po = calloc((size_t)n + 1, sizeof(uint32_t));
	fs = calloc(n, sizeof(uint32_t));
	fp = calloc(n, sizeof(uint32_t));
	if (!from || !to || !so || !po || !fs || !fp)
		return 1;
	for (v = 0; v + 1 < n; v++) {
		/* Diamonds: v % 4 == 0 branches to v + 1 and v + 2, both join at v + 3. */
		if (v % 4 == 0 && v + 3 < n) {
			from[m] = v, to[m++] = v + 1;
			from[m] = v, to[m++] = v + 2;
		} else if (v % 4 == 1) {
			from[m] = v, to[m++] = v + 2;
		} else {
			from[m] = v, to[m++] = v + 1;
		}
		if (v % 8 == 7)
			from[m] = v, to[m++] = v - 7;	/* inner loop back */
		if (v % 64 == 63)
			from[m] = v, to[m++] = v - 63;	/* outer loop back */
	}
	for (k = 0; k < m; k++)
		so[from[k] + 1]++, po[to[k] + 1]++;
	for (v = 0; v < n; v++)
		so[v + 1] += so[v], po[v + 1] += po[v];
	s = malloc(((size_t)m + 1) * sizeof(uint32_t));
	p = malloc(((size_t)m + 1) * sizeof(uint32_t));
	if (!s || !p)
		return 1;
	for (k = 0; k < m; k++) {
		s[so[from[k]] + fs[from[k]]++] = to[k];
		p[po[to[k]] + fp[to[k]]++] = from[k];
	}
	g.n = n, g.root = 0, g.succ_off = so, g.succ = s, g.pred_off = po, g.pred = p;
	t0 = now();
	if (lsa_dom_compute(&dom, &g) < 0)
		return 1;
	t1 = now();
	/* A check that the tree is right where it is known: the join of each
	 * diamond is dominated by its branch, not by either arm. */
	for (v = 0; v + 3 < n; v += 4)
		if (dom.idom[v + 3] != v || !lsa_dom_dominates(&dom, v, v + 2)) {
			fprintf(stderr, "cfgbench: wrong dominator at %u\n", v + 3);
			return 1;
		}
	printf("blocks %u edges %u reached %u passes %u seconds %.3f blocks/s %.0f\n",
	       n, m, dom.nreached, dom.passes, t1 - t0, (double)n / (t1 - t0));
	lsa_dom_release(&dom);
	free(from), free(to), free(so), free(po), free(fs), free(fp), free(s), free(p);
	return 0;
}
