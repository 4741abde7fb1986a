/* sloops.h - structural loops of the executed CFG (OptiWISE, Gao et al.,
 * sections II-C and IV-E).
 *
 * Per function of a finished lsa_cfg: dominators (analysis/dom.h) from a
 * virtual root whose edges go to the blocks entered by calls, jumps
 * between functions and thread starts (blocks reached only through
 * resumptions after signals, system calls or gaps get root edges too, so
 * every executed block has a dominator); a back edge is an edge whose
 * target dominates its source, and its natural loop is the target (the
 * header) plus the blocks that reach the source without passing the
 * header.  Back edges sharing a header are merged or split by OptiWISE's
 * rule (algorithm 2): a loop of the set is nested iff it is a strict
 * subset of another loop of the set and its back-edge count is at least
 * T times the sum of its supersets' back-edge counts; the loops that are
 * not nested form one loop (their union), and the nested ones are
 * handled again one level down.  A retreating edge (to a block on the
 * depth-first search stack) whose target does not dominate its source
 * marks an irreducible region: the strongly connected component holding
 * it, reported with its entry blocks, and not as a loop.
 *
 * Counts, per loop: iterations are the header's executions (each entry
 * and each back edge starts one; a rotated for loop of 13 trips reports
 * 13), invocations the flow into the header from outside the loop, self
 * instructions those of the blocks whose innermost loop it is, total
 * instructions those of all its blocks plus those executed in the
 * callees of its call blocks (exact, from the trace's calls and returns;
 * a call site counts its outermost activations only; a loop that
 * recurses into itself through a call counts its inner activations both
 * as own blocks and as callee instructions).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_SLOOPS_H
#define LSA_SLOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cfg.h"

#define LSA_SLOOP_NONE UINT32_MAX
#define LSA_SLOOPS_T 3.0	/* OptiWISE's merge threshold */

struct lsa_sloop {
	uint32_t func;		/* lsa_cfg function index */
	uint32_t header;	/* block id */
	uint32_t ntails;
	uint32_t *tails;	/* back-edge sources (block ids) */
	uint64_t *tail_counts;	/* and their counts */
	uint32_t nblocks;
	uint32_t *blocks;	/* body block ids, by address */
	uint32_t parent;	/* enclosing loop index, LSA_SLOOP_NONE */
	uint32_t depth;		/* 1: outermost in its function */
	uint64_t static_insns;	/* instructions of the body */
	uint64_t iterations, invocations;
	double iters_per_inv;
	uint64_t self_insns, total_insns;
	double coverage;	/* total_insns, % of all executed */
};

struct lsa_sloop_irr {
	uint32_t func;
	uint32_t nblocks;
	uint32_t *blocks;	/* the strongly connected component */
	uint32_t nentries;
	uint32_t *entries;	/* its blocks entered from outside it */
	uint64_t insns;		/* executed in its blocks */
};

struct lsa_sloops_opts {
	size_t size;		/* sizeof(struct lsa_sloops_opts) */
	double merge_t;		/* the rule's T; 0: LSA_SLOOPS_T */
};

struct lsa_sloops;

/* Finds the structural loops and irreducible regions of every function
 * of the finished graph c (which must outlive the result).  Loops are
 * listed per function, outer before inner.  Returns 0, or -LS_EINVAL,
 * -LS_ENOMEM. */
int lsa_sloops_find(struct lsa_sloops **ps, const struct lsa_cfg *c,
		    const struct lsa_sloops_opts *o);
size_t lsa_sloops_count(const struct lsa_sloops *s);
const struct lsa_sloop *lsa_sloops_get(const struct lsa_sloops *s, size_t i);
size_t lsa_sloops_nirreducible(const struct lsa_sloops *s);
const struct lsa_sloop_irr *lsa_sloops_irreducible(const struct lsa_sloops *s,
						   size_t i);
/* Dominator passes and back edges over all functions (for the bench). */
void lsa_sloops_counts(const struct lsa_sloops *s, uint64_t *back_edges,
		       uint64_t *dom_passes);
void lsa_sloops_free(struct lsa_sloops *s);

#endif
