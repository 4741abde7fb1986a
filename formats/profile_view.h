/* profile_view.h - the aggregate view of a loop profile that reports
 * read: the per-thread rows summed over all threads (or the threads of
 * one tid), the loop call graph with each loop's depth, parents and
 * children, and the program's total instructions.
 *
 * The view points into the profile (names, files): the profile must
 * outlive it.  Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSP_PROFILE_VIEW_H
#define LSP_PROFILE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "formats/profile.h"

#define LSP_VIEW_ALL (-1)	/* lsp_view_new(): every thread */

/* Trip-count bucket: entries that iterated exactly `trips` times. */
struct lsp_view_trip {
	uint64_t trips, entries;
};

/* A loop call graph edge seen from one end: the other loop (LSP_NONE:
 * the top level, outside every loop) and the entries along it. */
struct lsp_view_link {
	uint32_t loop;
	uint64_t count;
	uint64_t total;		/* instructions of those entries */
};

struct lsp_view_tail {
	uint64_t off, vaddr, count;
};

struct lsp_view_call {
	uint32_t module;
	uint64_t off, vaddr;
	uint32_t callee;	/* function index or LSP_NONE */
	uint64_t count;
};

/* One loop's totals over the selected threads.  Ranges index the view's
 * arrays: trips[trip0 .. trip0 + ntrips) sorted by trip count, parents
 * and children sorted by count (largest first), tails and calls by
 * address. */
struct lsp_view_loop {
	uint32_t loop;		/* index in the profile's loops */
	int seen;		/* has rows in the selected threads */
	uint64_t entries, iterations, self, total;
	uint64_t self_ic[LSP_NCLASS], total_ic[LSP_NCLASS];
	uint64_t trip_min, trip_max;	/* over every entry; 0 when none */
	uint64_t over_entries, over_sum;
	uint32_t depth;		/* 1 = top level; 0: not reachable from it */
	size_t trip0, ntrips;
	size_t parent0, nparents, child0, nchildren;
	size_t tail0, ntails, call0, ncalls;
};

struct lsp_view_func {
	uint32_t func;
	int seen;
	uint64_t self, total, loop_level, calls;
};

struct lsp_view {
	const struct lsp_profile *p;
	int64_t tid;		/* LSP_VIEW_ALL or the selected tid */
	size_t nthreads;	/* threads selected */
	uint64_t total_insns;	/* sum of the selected threads' instructions */
	uint64_t outside, outside_ic[LSP_NCLASS], losses;
	uint32_t max_depth;
	struct lsp_view_loop *loops;	/* p->n_loops, by loop index */
	struct lsp_view_func *funcs;	/* p->n_funcs, by function index */
	struct lsp_view_trip *trips;
	struct lsp_view_link *parents, *children;
	struct lsp_view_tail *tails;
	struct lsp_view_call *calls;
	size_t ntrips, nlinks, ntails, ncalls;
	/* Top-level loops (an edge from LSP_NONE), by count: tops[0..ntops). */
	struct lsp_view_link *tops;
	size_t ntops;
};

/* Sums the rows of the threads with tid `tid` (LSP_VIEW_ALL: every
 * thread) of p.  Returns 0, -LS_ENOMEM, -LS_EINVAL, or -LS_ENOENT when no
 * thread has that tid. */
int lsp_view_new(struct lsp_view **pv, const struct lsp_profile *p, int64_t tid);
void lsp_view_free(struct lsp_view *v);

/* Percent of the view's total instructions (0 when the total is 0). */
double lsp_view_pct(const struct lsp_view *v, uint64_t n);
/* Mean trip count of a loop: iterations per entry (0 without entries). */
double lsp_view_trip_mean(const struct lsp_view_loop *l);
/* The loops with rows, sorted by total instructions, largest first (ties:
 * self, then index).  Returns the count; *out is malloc'ed (free it), or
 * -LS_ENOMEM. */
int lsp_view_sorted_loops(const struct lsp_view *v, uint32_t **out);

#endif
