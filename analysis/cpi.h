/* cpi.h - the sampled-CPI combiner (OptiWISE, Gao et al., sections III
 * and IV): the samples of a sampling run weighted by their period, over
 * the exact execution counts of the traced run, give the cost per
 * execution of every instruction, and of every block, loop, function and
 * source line.
 *
 * Samples and trace are two runs (ASLR differs), so a sample is placed by
 * the module build-id and file offset of its IP, looked up in the
 * mappings of its own run.  A sample counts as
 *  - unmapped:      no executable mapping of its run covers the IP;
 *  - no module:     its module never executed in the trace (samples
 *                   from another binary land here);
 *  - not executed:  its module ran, but no executed instruction of the
 *                   trace is at that offset;
 *  - attributed:    else.  Only attributed samples enter the numbers;
 *                   the others are counted, never guessed.
 *
 * Predecessor attribution (OptiWISE V-B, on unless opts.no_skid_fix):
 * timer and cycle samples land on the instruction after the one that
 * stalled, so a sample is charged to the instruction executed before
 * it.  Inside a block that is the previous instruction; at a block head
 * it is split over the incoming edges by their exact counts (jumps and
 * fall-throughs from blocks of the function, calls from the call
 * instruction, returns from the ret instruction) and charged to the last
 * instruction of each predecessor.  Costs are integers (the period's
 * units) and split by largest remainder, so every sum is exact.
 *
 * Loops are sets of executed blocks given by the caller (structural
 * loops from analysis/sloops.h, or the dynamic loops of analysis/loops.h
 * with their bodies closed by lsa_cpi_natural_body()).  A loop's self
 * cost is that of the samples whose block's innermost loop it is.
 *
 * Totals (lsa_cpi_chains()) follow the call stacks of the trace, not the
 * samples' perf call chains: frame-pointer chains drop the caller of
 * every function that has no frame of its own (leaf functions, where gcc
 * omits it on x86-64 even with -fno-omit-frame-pointer), and without
 * frame pointers they are not chains at all.  The trace knows exactly how
 * often each instruction ran under each stack, so a loop's (a function's)
 * total is, over the instructions, their cost times the share of their
 * executions during which the loop was on the stack: in the loop, or in
 * code called from it, once however often it is on the stack (stack
 * profiling, OptiWISE IV-D).  That is exact where an instruction runs
 * under one stack only, and the combiner's cost model (one cost per
 * execution of an instruction) elsewhere.  A loop's total is never below
 * that of a loop nested in it, and never above the attributed cost; the
 * same holds for instructions.  The top loop of a moment is the
 * outermost loop on the stack; outside every loop is where no loop is on
 * it (the loop profile's definition); top costs plus the cost outside
 * equal the attributed cost exactly, as do top instructions plus the
 * instructions outside the thread's.  Functions are the graph's
 * functions, credited the same way.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CPI_H
#define LSA_CPI_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cfg.h"
#include "decoder/image.h"
#include "formats/bundle.h"

#define LSA_CPI_NONE UINT32_MAX

enum lsa_cpi_unit { LSA_CPI_CYCLES = 0, LSA_CPI_NS = 1 };

struct lsa_cpi_opts {
	size_t size;		/* sizeof(struct lsa_cpi_opts) */
	int no_skid_fix;	/* charge samples where they landed */
	/* Image of the trace run (code bytes of the executed blocks, for
	 * instruction boundaries).  Required. */
	const struct lsd_image *img;
	const char *debug_dir;	/* sample run's references; may be NULL */
};

/* Where the samples went. */
struct lsa_cpi_stats {
	uint64_t samples;	/* all samples of the bundle */
	uint64_t attributed;
	uint64_t unmapped;	/* IP in no executable mapping of its run */
	uint64_t no_module;	/* module never executed in the trace */
	uint64_t not_executed;	/* module ran, that offset never did */
	uint64_t no_pred;	/* block head without predecessors: kept there */
	uint64_t cost, cost_attributed;	/* sum of periods */
	uint64_t insns;		/* instructions executed in the trace */
	int unit;		/* enum lsa_cpi_unit */
	const char *event;	/* sampling event name ("cpu-clock:u"), or "" */
};

/* One executed instruction. */
struct lsa_cpi_insn {
	uint32_t block;		/* cfg block id */
	int32_t module;		/* bundle module index */
	uint64_t off;		/* file offset in the module */
	uint64_t addr;		/* runtime address in the trace */
	uint8_t len;		/* bytes */
	uint8_t mode;		/* enum lsd_mode, its block's */
	uint64_t execs;		/* executions (its block's) */
	double samples;		/* after attribution (split: fractional) */
	uint64_t cost;		/* weighted: cycles or ns */
	uint64_t raw_samples;	/* where the samples landed */
	uint64_t raw_cost;
};

/* Aggregate of a set of instructions. */
struct lsa_cpi_agg {
	double samples;
	uint64_t cost;
	uint64_t insns;		/* executed instructions */
};

/* Loop families: each is nested and summed on its own. */
enum lsa_cpi_family { LSA_CPI_DYNAMIC = 0, LSA_CPI_STRUCTURAL = 1,
		      LSA_CPI_NFAMILIES };

struct lsa_cpi_loop {
	int family;		/* enum lsa_cpi_family */
	uint32_t func;		/* cfg function */
	uint32_t header;	/* cfg block id */
	uint32_t nblocks;
	uint32_t *blocks;	/* sorted block ids */
	uint32_t parent;	/* enclosing loop (same function), or NONE */
	uint64_t iterations;	/* executions of the header */
	struct lsa_cpi_agg self, total;	/* total: after lsa_cpi_chains() */
	uint64_t top_cost;	/* cost while it is the outermost loop */
	double top_samples;
};

/* Per function: self are its own blocks; total is while it is on the
 * stack (its blocks and its callees', recursion counted once). */
struct lsa_cpi_func {
	struct lsa_cpi_agg self, total;
};

struct lsa_cpi;

/* Reads the samples of r, places them in the finished graph c (which must
 * outlive the result) and attributes them.  Returns -LS_EINVAL (no image),
 * -LS_ENOMEM, or a reader error. */
int lsa_cpi_new(struct lsa_cpi **pc, const struct lsa_cfg *c,
		struct lsb_reader *r, const struct lsa_cpi_opts *o);
void lsa_cpi_free(struct lsa_cpi *p);

/* The natural loop of header with back-edge sources tails: the header
 * and the blocks of its function that reach a tail without passing the
 * header (backwards over intra-procedural flow edges).  *out is malloc'd
 * and sorted.  Returns the count, or -LS_EINVAL, -LS_ENOMEM. */
int lsa_cpi_natural_body(const struct lsa_cfg *c, uint32_t header,
			 const uint32_t *tails, size_t ntails, uint32_t **out);

/* Adds a loop of family (enum lsa_cpi_family) with the given blocks
 * (copied, the header among them); returns its index, or -LS_EINVAL,
 * -LS_ENOMEM. */
int lsa_cpi_loop_add(struct lsa_cpi *p, int family, uint32_t header,
		     const uint32_t *blocks, size_t nblocks);
/* Adds the loops the CPI views report (cpi_loops.c): first the loop
 * detector's loops of profile p (each whose head cpi has, its body the
 * natural loop of its back branches in cfg; r is the bundle whose
 * modules cpi's instructions name), then cfg's structural loops.
 * *dyn_loop (malloc'd, also on failure: free it) maps the first *ndyn
 * cpi loops to p's loops; *psl holds the structural loops
 * (lsa_sloops_free()).  Returns 0, or -LS_EINVAL, -LS_ENOMEM. */
struct lsp_profile;
struct lsa_sloops;
int lsa_cpi_add_loops(struct lsa_cpi *cpi, const struct lsa_cfg *cfg,
		      struct lsb_reader *r, const struct lsp_profile *p,
		      uint32_t **dyn_loop, size_t *ndyn, struct lsa_sloops **psl);
/* After the loops are added: nests them and sums the self figures of
 * loops and functions (totals, top loops and the figures outside every
 * loop stay 0 until lsa_cpi_chains()).  Returns -LS_ENOMEM. */
int lsa_cpi_finish(struct lsa_cpi *p);
/* The call stacks of the trace, counted while its graph is built: the
 * graph's observer (cfg.h) from lsa_cpi_stacks_observer() records, per
 * block, how often it ran under each stack of call blocks (memory grows
 * with the code and its call paths, not with the trace).  Returns
 * -LS_EINVAL, -LS_ENOMEM. */
struct lsa_cpi_stacks;
int lsa_cpi_stacks_new(struct lsa_cpi_stacks **ps);
void lsa_cpi_stacks_observer(struct lsa_cpi_stacks *s, struct lsa_cfg_observer *o);
void lsa_cpi_stacks_free(struct lsa_cpi_stacks *s);
/* After lsa_cpi_finish(): sums totals, top loops and what is outside
 * every loop along each thread's call stack, from the stacks s counted
 * while the graph was built (no second decode).  A block's cost c over
 * its n executions goes to an item active at e of them as floor(c e / n)
 * (all of it when e = n), so a total never exceeds an enclosing loop's;
 * among the top loops and the outside, which share the executions, by
 * largest remainder, so they add up to the attributed cost exactly.
 * Returns -LS_EINVAL (not finished), -LS_ENOMEM, or -LS_ECORRUPT when
 * the stacks did not see what the graph counted. */
int lsa_cpi_chains(struct lsa_cpi *p, const struct lsa_cpi_stacks *s);

void lsa_cpi_get_stats(const struct lsa_cpi *p, struct lsa_cpi_stats *st);
size_t lsa_cpi_ninsns(const struct lsa_cpi *p);
const struct lsa_cpi_insn *lsa_cpi_insn(const struct lsa_cpi *p, size_t i);
/* The executed instruction covering file offset off of bundle module
 * mod, or LSA_CPI_NONE. */
uint32_t lsa_cpi_find(const struct lsa_cpi *p, int32_t mod, uint64_t off);
/* Instructions of block id: first index and count (0 if unexecuted). */
size_t lsa_cpi_block_insns(const struct lsa_cpi *p, uint32_t id, size_t *first);
/* The sum over block id's instructions. */
int lsa_cpi_block_agg(const struct lsa_cpi *p, uint32_t id,
		      struct lsa_cpi_agg *out);
size_t lsa_cpi_nloops(const struct lsa_cpi *p);
const struct lsa_cpi_loop *lsa_cpi_loop(const struct lsa_cpi *p, size_t i);
/* Innermost loop of family holding block id, or LSA_CPI_NONE. */
uint32_t lsa_cpi_block_loop(const struct lsa_cpi *p, int family, uint32_t id);
/* Outside every loop of family: samples, cost and instructions while no
 * loop of it is on the stack (after lsa_cpi_chains()). */
void lsa_cpi_outside(const struct lsa_cpi *p, int family,
		     struct lsa_cpi_agg *out);
/* Per cfg function (index < lsa_cfg_nfuncs()). */
const struct lsa_cpi_func *lsa_cpi_func(const struct lsa_cpi *p, uint32_t f);

/* cost / executions: cycles per instruction or ns per execution (0 when
 * nothing executed). */
double lsa_cpi_per(uint64_t cost, uint64_t execs);
const char *lsa_cpi_unit_name(int unit);	/* "cycles" or "ns" */

#endif
