/* cpi_int.h - internals of the sampled-CPI combiner (analysis/cpi*.c). */
#ifndef LSA_CPI_INT_H
#define LSA_CPI_INT_H

#include "analysis/cpi.h"

/* An attributed sample: where it landed and its weight.  Its perf call
 * chain is not used: the trace's stacks are exact (cpi_chain.c). */
struct lsa_cpi_sample {
	uint32_t insn;
	uint64_t period;
};

struct lsa_cpi {
	struct lsa_cpi_opts o;
	const struct lsa_cfg *cfg;
	const struct lsd_image *timg;
	struct lsd_image simg;		/* the sampling run's mappings */
	int have_simg;
	size_t nmods;
	uint8_t *modran;		/* bundle module -> executed in the trace */
	size_t *first;			/* block id -> first instruction (n + 1) */
	struct lsa_cpi_insn *insns;
	size_t ninsns;
	uint32_t *order;		/* executed blocks by (module, offset) */
	size_t norder;
	struct lsa_cpi_sample *samples;
	size_t nsamples, capsamples;
	struct lsa_cpi_loop *loops;
	size_t nloops, caploops;
	uint32_t *blockloop;		/* family * nblocks + block id -> innermost loop */
	struct lsa_cpi_agg outside[LSA_CPI_NFAMILIES];
	int have_chains;		/* lsa_cpi_chains() filled the totals */
	struct lsa_cpi_func *funcs;
	struct lsa_cpi_stats st;
	char event[128];
};

/* cpi_stack.c: a stack as the distinct call blocks from the bottom, a
 * node of a tree (0: the root, no call); and how often a block ran on
 * one. */
struct lsa_cpi_node {
	uint32_t parent, callblk;	/* the root's: LSA_CPI_NONE */
};

struct lsa_cpi_count {
	uint32_t node, block;
	uint64_t count;
};

/* The counters, by (block, node), malloc'd.  Returns 0 or -LS_ENOMEM. */
int lsa_cpi_stacks_counts(const struct lsa_cpi_stacks *s, struct lsa_cpi_count **out,
			  size_t *n);
/* The nodes; a node's parent comes before it. */
const struct lsa_cpi_node *lsa_cpi_stacks_nodes(const struct lsa_cpi_stacks *s,
						size_t *n);

uint32_t lsa_cpi_lookup(const struct lsa_cpi *p, int32_t mod, uint64_t off);
int lsa_cpi_is_pred(const struct lsa_cpi *p, const struct lsa_cfg_edge *e);
/* Returns 1 when a block head had no predecessor (charged in place). */
int lsa_cpi_fragments(const struct lsa_cpi *p, const struct lsa_cpi_sample *s,
		  void (*cb)(void *arg, uint32_t insn, double samples,
			     uint64_t cost),
		  void *arg);

#endif
