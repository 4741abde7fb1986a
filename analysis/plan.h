/* plan.h - edge-profiling plans (Eichenberger and Lobo, "Efficient Edge
 * Profiling for ILP-Processors", PACT'98, sections 2-4), evaluated on the
 * exact edge counts of a recorded run.
 *
 * A plan is a choice of the edges to count (the complement of a maximum
 * spanning tree of the function's circulation, as analysis/knuth.h, under
 * one of four weightings) and a way to place each probe:
 *
 * Weights (section 2.2, 2.4):
 *  - unit: every edge 1, so only the tie order (below) picks the tree;
 *  - guess: the static estimate of section 2.2.  Every entry of the
 *    function weighs 100; a block's weight is the sum of its forward
 *    in-edges' (reverse postorder), times 10 at a loop header (each loop
 *    runs 10 times); its out-edges share it: a branch whose edges both stay
 *    in and leave its innermost loop gives the staying edges 90% and the
 *    leaving ones 10%; else a two-way branch gives its predicted edge 60%
 *    and the other 40%, the prediction by Ball and Larus' structural
 *    heuristics in their order: avoid a successor that ends in a call,
 *    avoid one that leaves the function (return), prefer a loop header,
 *    else the fall-through (not-taken) edge; more outputs share equally;
 *  - modified: the guess with the output edges of vertices of two or more
 *    outputs raised by 10% (section 2.4: more probes on one-output
 *    vertices, where they merge into the block);
 *  - exact: the recorded counts, the best any weighting can do (section
 *    2.5 uses it as the reference; no real instrumenter has it).
 * Ties are broken by edge order: by source, then target, the outside node
 * first, blocks by address.  Edges no probe can sit on (entries after a
 * trace gap, signal or system call; exits to them) get infinite weight,
 * so they stay in the tree when any tree can hold them.
 *
 * Placements (sections 2.3, 3.1, 3.2, 4): the probe's latency P is the
 * chain address, load (2), add, store = 5 cycles (Tinker-8), or U = 4 for
 * the after scheme's update (its address is set before the edge for
 * free), or S = 2 software-pipelined (the modulo schedule's II, section
 * 4.1, which also covers the self-loop's aliasing store -> load).  A
 * probe inside an existing block of L cycles (L = ceil(instructions /
 * issue width)) costs max(0, latency - L) per execution of that block
 * (the branch cannot issue before the probe ends, section 3.2); a new
 * block costs the whole latency per execution.
 *  - along: the probe on the edge, merged into the source when it has one
 *    output, else in a new block executed exactly when the edge is;
 *  - before: speculatively in the source, before its branch, executed
 *    whenever the source executes (plain: one sequence per profiled
 *    output; pipelined: one shared sequence);
 *  - after: the update at the top of the target, executed whenever the
 *    target executes (a dummy counter on unprofiled inputs); an edge to
 *    outside has no target block and falls back to before.
 * An entry edge's probe sits in a prologue run once per entry, merged
 * with the entry block, in every scheme.  The pipeline's start-up and
 * drain are once per program and not counted.
 *
 * Whatever the placement, every plan counts the same edges exactly; each
 * tree's counters are checked to reconstruct every edge count.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_PLAN_H
#define LSA_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum lsa_plan_weights {
	LSA_PLAN_UNIT = 0,
	LSA_PLAN_GUESS,
	LSA_PLAN_MODIFIED,
	LSA_PLAN_EXACT,
	LSA_PLAN_NWEIGHTS
};

enum lsa_plan_scheme {
	LSA_PLAN_ALONG = 0,
	LSA_PLAN_BEFORE,
	LSA_PLAN_AFTER,
	LSA_PLAN_NSCHEMES
};

#define LSA_PLAN_NPIPE	2	/* 0: plain probes, 1: software-pipelined */

/* The machine: the paper's Tinker-8 figures by default. */
struct lsa_plan_costs {
	size_t size;		/* sizeof(struct lsa_plan_costs) */
	double probe_lat;	/* address, load, add, store: 5 */
	double update_lat;	/* load, add, store (after-edge): 4 */
	double swp_lat;		/* a software-pipelined probe: 2 */
	uint32_t width;		/* issue width, for block lengths: 8 */
};

/* Fills c with the defaults. */
void lsa_plan_costs_default(struct lsa_plan_costs *c);

struct lsa_plan_edge {
	uint32_t cfg_edge;	/* lsa_cfg edge index */
	uint32_t from, to;	/* nodes: 0 outside, 1 .. n blocks by address */
	uint64_t count;		/* recorded */
	double guess, modified;	/* the static weights */
	uint8_t instr;		/* a probe can sit on it */
	uint8_t probe[LSA_PLAN_NWEIGHTS];	/* 1: profiled under weights w */
};

/* One plan's cost over the recorded run. */
struct lsa_plan_cost {
	uint64_t profiled;	/* edges counted */
	uint64_t new_blocks;	/* blocks added (along only) */
	uint64_t counted;	/* counter increments: sum of profiled counts */
	uint64_t executions;	/* probe sequences run, speculative and dummy
				 * ones included */
	double cycles;		/* estimated overhead */
};

/* Every plan: [weights][scheme][pipelined]. */
struct lsa_plan_table {
	struct lsa_plan_cost c[LSA_PLAN_NWEIGHTS][LSA_PLAN_NSCHEMES][LSA_PLAN_NPIPE];
};

struct lsa_plan_func {
	uint32_t func;		/* lsa_cfg function index */
	uint32_t nnodes;	/* blocks + 1 */
	size_t nedges;
	struct lsa_plan_edge *edges;	/* in tie order */
	size_t reconstructed[LSA_PLAN_NWEIGHTS];	/* edges whose count the
							 * tree's counters give */
	size_t unplaceable[LSA_PLAN_NWEIGHTS];	/* profiled, not instr */
	struct lsa_plan_table cost;
};

struct lsa_cfg;

/* Builds the plans of function fi of the finished graph c under costs k
 * (NULL: the defaults).  Returns 0, or
 *   -LS_EINVAL	a bad argument (fi out of range, width 0, a negative
 *			latency);
 *   -LS_ECORRUPT	the recorded counts are not a circulation;
 *   -LS_ENOMEM. */
int lsa_plan_func(const struct lsa_cfg *c, uint32_t fi,
		  const struct lsa_plan_costs *k, struct lsa_plan_func *pf);
void lsa_plan_func_release(struct lsa_plan_func *pf);

/* Adds every plan of b into a (program totals). */
void lsa_plan_table_add(struct lsa_plan_table *a, const struct lsa_plan_table *b);

/* The plan of least cycles among the weights a real instrumenter has
 * (unit, guess, modified; exact too when with_exact), ties to the first
 * in enum order. */
void lsa_plan_best(const struct lsa_plan_table *t, int with_exact,
		   int *w, int *s, int *p);

const char *lsa_plan_weights_name(int w);	/* "unit", "guess", ... */
const char *lsa_plan_scheme_name(int s);	/* "along", "before", "after" */

#endif
