/* cfg_int.h - the graph builder's state, shared by cfg.c (the stream)
 * and cfg_finish.c (functions, derived edges, indexes). */
#ifndef LSA_CFG_INT_H
#define LSA_CFG_INT_H

#include "analysis/cfg.h"

struct lsa_cfg_frame {
	uint32_t callblk;	/* the call block */
	uint64_t retaddr;	/* where its return lands: the call's end */
	uint64_t insn_at;	/* thread's instruction count at the call */
};

/* A thread's walk through the graph. */
struct lsa_cfg_walk {
	int open;
	size_t stream;
	uint32_t prev;		/* last block, LSA_CFG_NONE at start/after end */
	uint8_t prev_exit;
	uint8_t in_why;		/* why the next block comes from outside */
	uint64_t insns;		/* instructions of this thread so far */
	struct lsa_cfg_frame *frames;
	size_t nframes, capframes;
};

/* A thread's walk, kept while other threads' blocks come (cfg_thread.c). */
struct lsa_cfg_ctx {
	uint32_t pid, tid;
	uint8_t shared;		/* a thread of per-CPU streams, by (pid, tid) */
	uint8_t ended;
	struct lsa_cfg_walk w;
};

struct lsa_cfg {
	struct lsd_symbols *sym;
	const struct lsd_image *img;
	struct lsa_cfg_observer obs;	/* all NULL: none */
	unsigned jobs;		/* lsa_cfg_opts.jobs */

	struct lsa_cfg_block *blk;	/* indexed by static block id */
	uint32_t *active;	/* per block: open frames of it (this thread) */
	/* The edge cache, by static block id: index + 1 of the last edge
	 * the stream took from the block, of kind NOTTAKEN ([1]) and of
	 * any other kind ([0]) (0: none).  A block's exit fixes the kinds
	 * of its edges and all but indirect branches have one target per
	 * kind, so most transitions find their edge in one compare. */
	uint32_t (*ecache)[2];
	size_t nblk;

	struct lsa_cfg_edge *edges;
	size_t nedges, capedges;
	uint32_t *slots;	/* hash: edge index + 1, 0 empty */
	size_t nslots;

	/* The threads (cfg_thread.c): their walks, the one loaded into the
	 * fields below (LSA_CFG_NONE: none), and each stream's thread. */
	struct lsa_cfg_ctx *ctx;
	uint32_t nctx, capctx, cur;
	uint32_t *sctx;		/* by stream: a context, LSA_CFG_NONE */
	uint8_t *scpu;		/* by stream: a per-CPU stream */
	size_t nstreams;

	/* The open run: the walk of thread cur. */
	struct lsa_cfg_walk w;

	/* After finish. */
	int finished;
	struct lsa_cfg_func *funcs;
	size_t nfuncs;
	uint32_t *fblocks;	/* all functions' blocks[] */
	uint32_t *by_addr;	/* executed ids sorted by start */
	size_t nexec;
	uint32_t *out_off, *in_off, *out_list, *in_list;
	char **names;
	/* Static blocks of a graph read from a profile (cgraph.c), else NULL. */
	struct lsd_sblock *own_sb;

	struct lsa_cfg_stats st;
};

/* cfg_thread.c.  The walk of stream's thread loaded into c, made if new.
 * Returns 0 or -LS_ENOMEM. */
int lsa_cfg_ctx_enter(struct lsa_cfg *c, size_t stream);
/* Stream `stream` begins: per CPU (cpu 1) or one thread's. */
int lsa_cfg_ctx_stream(struct lsa_cfg *c, size_t stream, int cpu);
/* The per-CPU stream's blocks are thread pid/tid's from now on. */
int lsa_cfg_ctx_thread(struct lsa_cfg *c, size_t stream, uint32_t pid, uint32_t tid);
/* Whether the stream is per CPU (its threads end at finish). */
int lsa_cfg_ctx_cpu(const struct lsa_cfg *c, size_t stream);
/* Ends every thread's walk (lsa_cfg_stream_end() each).  Returns 0 or
 * -LS_ENOMEM. */
int lsa_cfg_ctx_end_all(struct lsa_cfg *c);
void lsa_cfg_ctx_free(struct lsa_cfg *c);

/* Adds count to the edge (from, to, kind, why), creating it.  Returns the
 * edge index or -LS_ENOMEM. */
long lsa_cfg_edge_add(struct lsa_cfg *c, uint32_t from, uint32_t to,
		      int kind, int why, uint64_t count);

/* cfg_finish.c.  Indexes c's edges by block (lsa_cfg_edges_of()) once
 * they are final.  Returns 0 or -LS_ENOMEM. */
int lsa_cfg_index_edges(struct lsa_cfg *c);

#endif
