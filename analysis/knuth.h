/* knuth.h - where to count edges so that every edge count follows
 * (Knuth and Stevenson 1973; Eichenberger and Lobo 1998, section 2).
 *
 * The flow graph is a circulation: every node's inflow equals its
 * outflow (the function's entries and exits are edges to and from one
 * virtual node, see cfg.h).  Any spanning tree of its undirected form
 * then determines the counts of its edges from the counts of the edges
 * left out, so only those need probes; a maximum-weight spanning tree
 * (the known counts as weights) leaves out the least executed edges.
 * Kruskal's algorithm with union-find, O(E log E).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_KNUTH_H
#define LSA_KNUTH_H

#include <stddef.h>
#include <stdint.h>

struct lsa_knuth_edge {
	uint32_t from, to;	/* nodes 0 .. n-1 */
	uint64_t weight;	/* the count to keep off the probes */
};

/* Marks probe[i] = 1 for every edge outside a maximum-weight spanning
 * tree of the n-node graph (self loops are always probes), 0 for tree
 * edges; ties broken by edge index, so the choice is reproducible.
 * Returns the number of probes, or
 *   -LS_EINVAL	an edge names a node >= n;
 *   -LS_ENOMEM. */
int lsa_knuth_place(uint32_t n, const struct lsa_knuth_edge *e, size_t ne,
		    uint8_t *probe);

/* Given count[i] for every probe edge, fills count[i] for every tree
 * edge by flow conservation, peeling the tree from its leaves.  Returns
 * 0, or
 *   -LS_ECORRUPT	a reconstructed count is negative (the probe
 *			counts are not a circulation);
 *   -LS_EINVAL	probe[] is not the complement of a spanning forest;
 *   -LS_ENOMEM. */
int lsa_knuth_solve(uint32_t n, const struct lsa_knuth_edge *e, size_t ne,
		    const uint8_t *probe, uint64_t *count);

/* Probes for one function of a finished lsa_cfg.  The nodes are its
 * blocks and the virtual node outside (IN and OUT edges); the edges are
 * its flow edges and the static successors it never took (count 0). */
struct lsa_cfg;
struct lsa_knuth_func {
	uint32_t func;		/* lsa_cfg function index */
	size_t nedges;
	uint32_t *edges;	/* lsa_cfg edge indices */
	uint8_t *probe;		/* 1: count this edge */
	size_t nprobes;
	uint64_t *solved;	/* every count, reconstructed from the probes */
	size_t mismatches;	/* edges whose solved count is not recorded */
};

/* Places the probes of function fi (weights: the recorded counts), then
 * reconstructs every edge count from the probe edges' recorded counts
 * alone and compares.  Returns 0, or -LS_EINVAL, -LS_ENOMEM,
 * -LS_ECORRUPT (the recorded counts are not a circulation). */
int lsa_knuth_func(const struct lsa_cfg *c, uint32_t fi, struct lsa_knuth_func *kf);
void lsa_knuth_func_release(struct lsa_knuth_func *kf);

#endif
