/* dom.h - dominators of a flow graph (Cooper, Harvey and Kennedy, "A
 * Simple, Fast Dominance Algorithm", 2001).
 *
 * The graph is given in compressed form: node v's predecessors are
 * pred[pred_off[v] .. pred_off[v + 1]), its successors likewise, node
 * `root` the entry.  The iterative algorithm over reverse postorder with
 * the two-finger intersection converges in a couple of passes on the
 * graphs compilers and binaries produce, so the cost is near-linear in
 * nodes + edges; no recursion (a depth-first search over a million
 * blocks would overflow the stack).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_DOM_H
#define LSA_DOM_H

#include <stddef.h>
#include <stdint.h>

#define LSA_DOM_NONE UINT32_MAX

struct lsa_dom_graph {
	uint32_t n;			/* nodes 0 .. n-1 */
	uint32_t root;
	const uint32_t *succ_off, *succ;	/* succ_off has n + 1 entries */
	const uint32_t *pred_off, *pred;	/* pred_off has n + 1 entries */
};

struct lsa_dom {
	uint32_t n;
	uint32_t *idom;		/* immediate dominator; root's is root;
				 * LSA_DOM_NONE for nodes not reachable */
	uint32_t *rpo;		/* reachable nodes in reverse postorder */
	uint32_t *rpo_num;	/* position in rpo, LSA_DOM_NONE if unreached */
	uint32_t nreached;
	uint32_t passes;	/* iterations until nothing changed */
};

/* Computes the dominator tree of g into dom (released with
 * lsa_dom_release).  Returns 0, or
 *   -LS_EINVAL	a NULL argument or root >= n;
 *   -LS_ENOMEM. */
int lsa_dom_compute(struct lsa_dom *dom, const struct lsa_dom_graph *g);
/* 1 if a dominates b (both reachable), else 0.  O(depth of b). */
int lsa_dom_dominates(const struct lsa_dom *dom, uint32_t a, uint32_t b);
void lsa_dom_release(struct lsa_dom *dom);

#endif
