/* unit_graphs.c - dominators (analysis/dom.c), Knuth's probe placement
 * (analysis/knuth.c) and OptiWISE's merge rule with T = 3
 * (analysis/sloops.c) on graphs drawn by hand, no trace.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/dom.h"
#include "analysis/knuth.h"
#include "analysis/sloops.h"
#include "ls_err.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Builds the compressed successor and predecessor lists of n nodes. */
static void csr(uint32_t n, const uint32_t (*e)[2], size_t ne, uint32_t *so,
		uint32_t *s, uint32_t *po, uint32_t *p)
{
	uint32_t v;
	size_t i, k;

	for (v = 0, k = 0; v < n; v++) {
		so[v] = (uint32_t)k;
		for (i = 0; i < ne; i++)
			if (e[i][0] == v)
				s[k++] = e[i][1];
	}
	so[n] = (uint32_t)k;
	for (v = 0, k = 0; v < n; v++) {
		po[v] = (uint32_t)k;
		for (i = 0; i < ne; i++)
			if (e[i][1] == v)
				p[k++] = e[i][0];
	}
	po[n] = (uint32_t)k;
}

/* 0 -> 1 -> {2, 3} -> 4 -> {1 (back), 5}; 6 -> 5 is not reachable from 0.
 * By hand: idom 1 = 0, 2 = 3 = 4 = 1 (two ways into 4), 5 = 4, 6 none;
 * 6 of 7 nodes reached. */
static void t_dom(void)
{
	static const uint32_t e[][2] = {
		{ 0, 1 }, { 1, 2 }, { 1, 3 }, { 2, 4 }, { 3, 4 }, { 4, 1 },
		{ 4, 5 }, { 6, 5 },
	};
	static const uint32_t want[7] = { 0, 0, 1, 1, 1, 4, LSA_DOM_NONE };
	uint32_t so[8], s[N(e)], po[8], p[N(e)];
	struct lsa_dom_graph g = { 7, 0, so, s, po, p };
	struct lsa_dom d;
	int i, same = 1;

	csr(7, e, N(e), so, s, po, p);
	TAP_EQ(lsa_dom_compute(&d, &g), 0, "dom: computed");
	for (i = 0; i < 7; i++)
		if (d.idom[i] != want[i]) {
			same = 0;
			printf("#   idom[%d] = %u, expected %u\n", i, d.idom[i], want[i]);
		}
	TAP_OK(same, "dom: the immediate dominators drawn by hand");
	TAP_EQ(d.nreached, 6, "dom: 6 nodes reached");
	TAP_EQ(d.rpo_num[6], LSA_DOM_NONE, "dom: node 6 has no rpo number");
	TAP_EQ(d.rpo[0], 0, "dom: the root comes first in reverse postorder");
	TAP_EQ(lsa_dom_dominates(&d, 1, 5), 1, "dom: 1 dominates 5");
	TAP_EQ(lsa_dom_dominates(&d, 2, 4), 0, "dom: 2 does not dominate 4 (3 leads there too)");
	TAP_EQ(lsa_dom_dominates(&d, 4, 4), 1, "dom: a node dominates itself");
	TAP_EQ(lsa_dom_dominates(&d, 0, 6), 0, "dom: nothing dominates an unreached node");
	lsa_dom_release(&d);

	g.root = 7;
	TAP_EQ(lsa_dom_compute(&d, &g), -LS_EINVAL, "dom: a root out of range is refused");
}

/* An irreducible pair: 0 -> 1, 0 -> 2, 1 <-> 2.  Neither of 1, 2
 * dominates the other: both idoms are 0. */
static void t_dom_irreducible(void)
{
	static const uint32_t e[][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 }, { 2, 1 } };
	uint32_t so[4], s[N(e)], po[4], p[N(e)];
	struct lsa_dom_graph g = { 3, 0, so, s, po, p };
	struct lsa_dom d;

	csr(3, e, N(e), so, s, po, p);
	TAP_EQ(lsa_dom_compute(&d, &g), 0, "dom irreducible: computed");
	TAP_OK(d.idom[1] == 0 && d.idom[2] == 0, "dom irreducible: idom(1) = idom(2) = 0");
	TAP_EQ(lsa_dom_dominates(&d, 1, 2), 0, "dom irreducible: 1 does not dominate 2");
	lsa_dom_release(&d);
}

/* Nodes V(0, outside), A(1), C(2); edges with the weights Kruskal sees:
 *   e0 V->A 10   e1 A->C 9   e2 V->C 1   e3 C->A 2   e4 A->V 11
 *   e5 C->C 100 (a self loop)
 * Maximum spanning tree, heaviest first: e5 is a self loop (probe), e4
 * joins A-V, e0 closes a cycle (probe), e1 joins A-C, e3 and e2 close
 * cycles (probes): tree {e1, e4}, probes {e0, e2, e3, e5}.
 * Solving from the circulation e0 = 10, e2 = 1, e3 = 9, e5 = 4:
 *   C: in e1 + e2 + e5 = out e3 + e5, so e1 = 9 - 1 = 8;
 *   V: in e4 = out e0 + e2 = 11.
 * With e3 = 0 instead, e1 = 0 - 1 < 0: not a circulation. */
static void t_knuth(void)
{
	static const struct lsa_knuth_edge e[] = {
		{ 0, 1, 10 }, { 1, 2, 9 }, { 0, 2, 1 }, { 2, 1, 2 }, { 1, 0, 11 },
		{ 2, 2, 100 },
	};
	static const uint8_t want[] = { 1, 0, 1, 1, 0, 1 };
	static const struct lsa_knuth_edge bad[] = { { 0, 3, 1 } };
	uint8_t probe[N(e)], none[N(e)] = { 0 };
	uint64_t count[N(e)] = { 10, 0, 1, 9, 0, 4 };

	TAP_EQ(lsa_knuth_place(3, e, N(e), probe), 4, "knuth: 4 probes (6 edges, 3 nodes, a self loop)");
	TAP_OK(!memcmp(probe, want, sizeof(want)), "knuth: probes on e0, e2, e3, e5");
	TAP_EQ(lsa_knuth_solve(3, e, N(e), probe, count), 0, "knuth: solved");
	TAP_EQ(count[1], 8, "knuth: e1 = e3 - e2");
	TAP_EQ(count[4], 11, "knuth: e4 = e0 + e2");
	TAP_OK(count[0] == 10 && count[2] == 1 && count[3] == 9 && count[5] == 4,
	       "knuth: probe counts left as given");
	count[3] = 0;
	TAP_EQ(lsa_knuth_solve(3, e, N(e), probe, count), -LS_ECORRUPT,
	       "knuth: probe counts that are no circulation");
	TAP_EQ(lsa_knuth_solve(3, e, N(e), none, count), -LS_EINVAL,
	       "knuth: no probes at all is no spanning forest's complement");
	TAP_EQ(lsa_knuth_place(3, bad, 1, probe), -LS_EINVAL, "knuth: a node out of range");
}

/* One function, blocks (1 instruction each, by address):
 *   B0 entry, falls into H
 *   H  header, falls into X
 *   X  taken: back to H (back edge 1), not taken: on to Y
 *   Y  taken: back to H (back edge 2), not taken: on to Z
 *   Z  end
 * Natural loops: {H, X} (tail X) and {H, X, Y} (tail Y), the first a
 * strict subset of the second.  OptiWISE's rule nests the first iff its
 * back-edge count is at least T times the second's.  The thread runs
 * rounds of H X (X taken k times), then H X Y; `inner` X->H and `outer`
 * Y->H loop backs in all. */
static struct lsd_sblock gsb[5];
enum { B0, H, X, Y, Z };

static void gfeed(struct lsa_cfg *c, int id, int exit, int next)
{
	struct lsd_block b = { .sb = &gsb[id], .exit = (uint8_t)exit,
			       .next = next < 0 ? 0 : gsb[next].start };

	lsa_cfg_feed(c, 0, &b);
}

static struct lsa_cfg *graph(const int *k, int rounds)
{
	struct lsa_cfg_opts o = { .size = sizeof(o) };
	struct lsa_cfg *c;
	int i, r;

	for (i = 0; i < 5; i++) {
		gsb[i].start = gsb[i].last = 0x1000 + 4 * (uint64_t)i;
		gsb[i].end = gsb[i].start + 4;
		gsb[i].ninsn = 1;
		gsb[i].id = (uint32_t)i;
		gsb[i].module = 0;
		gsb[i].mod_off = gsb[i].start;
	}
	if (lsa_cfg_new(&c, NULL, &o) < 0)
		return NULL;
	gfeed(c, B0, LSD_EXIT_FALL, H);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < k[r]; i++) {
			gfeed(c, H, LSD_EXIT_FALL, X);
			gfeed(c, X, LSD_EXIT_COND_TAKEN, H);
		}
		gfeed(c, H, LSD_EXIT_FALL, X);
		gfeed(c, X, LSD_EXIT_COND_NOT, Y);
		if (r + 1 < rounds)
			gfeed(c, Y, LSD_EXIT_COND_TAKEN, H);
		else
			gfeed(c, Y, LSD_EXIT_COND_NOT, Z);
	}
	gfeed(c, Z, LSD_EXIT_END, -1);
	lsa_cfg_stream_end(c);
	if (lsa_cfg_finish(c) < 0) {
		lsa_cfg_free(c);
		return NULL;
	}
	return c;
}

static struct lsa_sloops *sloops(const struct lsa_cfg *c, double t)
{
	struct lsa_sloops_opts o = { .size = sizeof(o), .merge_t = t };
	struct lsa_sloops *s;

	return lsa_sloops_find(&s, c, &o) < 0 ? NULL : s;
}

static void t_merge(void)
{
	/* 6 inner loop backs (k = 2, 2, 2), 2 outer: 6 >= 3 * 2, nested. */
	static const int nest[] = { 2, 2, 2 };
	/* 5 inner (k = 2, 2, 1), 2 outer: 5 < 3 * 2, merged. */
	static const int merge[] = { 2, 2, 1 };
	struct lsa_knuth_func kf;
	struct lsa_cfg *c = graph(nest, 3);
	struct lsa_sloops *s = c ? sloops(c, 0) : NULL;
	const struct lsa_sloop *a, *b;

	TAP_OK(s != NULL, "T=3 nested: graph and loops");
	if (!s)
		return;
	TAP_EQ(lsa_sloops_count(s), 2, "T=3, 6 vs 3 * 2 back edges: two loops");
	a = lsa_sloops_get(s, 0);
	b = lsa_sloops_get(s, 1);
	/* outer before inner */
	TAP_OK(a && a->header == H && a->nblocks == 3 && a->ntails == 1 && a->tails[0] == Y,
	       "T=3 nested: the outer loop {H, X, Y}, tail Y");
	TAP_OK(b && b->header == H && b->nblocks == 2 && b->ntails == 1 && b->tails[0] == X,
	       "T=3 nested: the inner loop {H, X}, tail X");
	TAP_EQ(b ? b->parent : 0, 0, "T=3 nested: the inner loop's parent is the outer");
	TAP_EQ(b ? b->depth : 0, 2, "T=3 nested: depth 2");
	TAP_EQ(a ? a->tail_counts[0] : 0, 2, "T=3 nested: 2 outer loop backs");
	TAP_EQ(b ? b->tail_counts[0] : 0, 6, "T=3 nested: 6 inner loop backs");
	TAP_EQ(lsa_sloops_nirreducible(s), 0, "T=3 nested: nothing irreducible");
	lsa_sloops_free(s);

	/* T = 4: 6 < 4 * 2, the same graph is one loop */
	s = sloops(c, 4);
	TAP_EQ(s ? lsa_sloops_count(s) : 0, 1, "T=4, 6 vs 4 * 2 back edges: merged, one loop");
	lsa_sloops_free(s);

	/* Knuth on the function: 5 blocks + outside = 6 nodes; flow edges
	 * IN->B0, B0->H, H->X, X->H, X->Y, Y->H, Y->Z, Z->OUT: 8, so
	 * 8 - 6 + 1 = 3 probes, and every count reconstructed. */
	TAP_EQ(lsa_cfg_nfuncs(c), 1, "knuth func: one function");
	TAP_EQ(lsa_knuth_func(c, 0, &kf), 0, "knuth func: placed and solved");
	TAP_EQ(kf.nedges, 8, "knuth func: 8 edges");
	TAP_EQ(kf.nprobes, 3, "knuth func: 3 probes");
	TAP_EQ(kf.mismatches, 0, "knuth func: every count as recorded");
	lsa_knuth_func_release(&kf);
	lsa_cfg_free(c);

	c = graph(merge, 3);
	s = c ? sloops(c, 0) : NULL;
	TAP_EQ(s ? lsa_sloops_count(s) : 0, 1, "T=3, 5 vs 3 * 2 back edges: merged, one loop");
	a = s ? lsa_sloops_get(s, 0) : NULL;
	TAP_OK(a && a->header == H && a->nblocks == 3 && a->ntails == 2,
	       "T=3 merged: {H, X, Y} with both tails");
	/* H runs once per entry and once per loop back: 1 + 5 + 2 */
	TAP_EQ(a ? a->iterations : 0, 8, "T=3 merged: 8 iterations");
	TAP_EQ(a ? a->invocations : 0, 1, "T=3 merged: 1 invocation");
	lsa_sloops_free(s);
	lsa_cfg_free(c);
}

int main(void)
{
	t_dom();
	t_dom_irreducible();
	t_knuth();
	t_merge();
	return TAP_DONE();
}
