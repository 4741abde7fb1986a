/* cfg.h - the executed control-flow graph per function, with exact edge
 * counts, built from the decoder's stream of executed static blocks.
 *
 * Nodes are static blocks (keyed by their id in the decoder's table);
 * edges carry how control went (fall-through, taken, not taken, direct or
 * indirect jump, call, return) and exactly how often.  Memory is bounded
 * by the executed code: one record per static block, one per distinct
 * edge (an open-addressing table keyed by block ids and kind), and a
 * shadow call stack per thread; nothing is allocated per executed block.
 *
 * The view is intra-procedural, so that flow is conserved (Kirchhoff) at
 * every block:
 *  - a call block's outflow is its CALLRET edge to the return site, counted
 *    when the callee returns there (the shadow stack of calls seen in the
 *    trace pairs each return with its call); a call that never returns
 *    leaves the function (OUT, UNWOUND when a return further up the stack
 *    skipped it, NORETURN when the thread ended inside it);
 *  - control entering a function from elsewhere is an IN edge from the
 *    virtual node "outside" (LSA_CFG_NONE), and leaving it an OUT edge:
 *    callee entries (CALL), returns (RET), jumps between functions (XFER:
 *    tail calls, PLT stubs), thread start and end, trace gaps, signals,
 *    and system calls that resume elsewhere than after themselves;
 *  - CALL and RET edges and cross-function jumps are kept as
 *    inter-procedural records (not flow) for exports and call graphs.
 * With those, inflow == executions == outflow holds at every block of
 * every recording; lsa_cfg_check_flow() verifies it.
 *
 * Functions are the symbols covering the blocks (decoder/symbols.h); code
 * no symbol covers is grouped under the nearest call target or thread
 * start below it in the same module.
 *
 * Streams are fed one after the other (as lsd_decode_stream() does);
 * a block of another stream first ends the open one.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CFG_H
#define LSA_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "decoder/decode.h"
#include "decoder/image.h"
#include "decoder/symbols.h"

#define LSA_CFG_NONE UINT32_MAX	/* the virtual node: outside the function */

enum lsa_cfg_kind {
	LSA_CFG_FALL = 0,	/* fell through */
	LSA_CFG_TAKEN,		/* conditional branch taken */
	LSA_CFG_NOTTAKEN,	/* conditional branch not taken */
	LSA_CFG_JUMP,		/* direct jump */
	LSA_CFG_IJUMP,		/* indirect jump */
	LSA_CFG_SYSRET,		/* system call resumed after itself */
	LSA_CFG_CALLRET,	/* call block -> return site (callee returned) */
	LSA_CFG_CALL,		/* call block -> callee entry (not flow) */
	LSA_CFG_RET,		/* return block -> where it returned (not flow) */
	LSA_CFG_IN,		/* outside -> block (why says from where) */
	LSA_CFG_OUT,		/* block -> outside (why says to where) */
	LSA_CFG_KIND_MAX
};

enum lsa_cfg_why {
	LSA_CFG_W_NONE = 0,
	LSA_CFG_W_CALL,		/* IN: entered by a call */
	LSA_CFG_W_RET,		/* OUT: returned */
	LSA_CFG_W_XFER,		/* jump or fall-through between functions */
	LSA_CFG_W_START,	/* IN: first block of a thread */
	LSA_CFG_W_END,		/* OUT: tracing ended (thread end, exec) */
	LSA_CFG_W_GAP,		/* OUT: trace gap (decode error, overflow) */
	LSA_CFG_W_RESUME,	/* IN: first block after a gap or an end */
	LSA_CFG_W_ASYNC,	/* signal: OUT at the interrupted block, IN at
				 * the first block after it */
	LSA_CFG_W_SYSCALL,	/* system call resuming elsewhere (sigreturn,
				 * exit): OUT at it, IN where it resumed */
	LSA_CFG_W_UNMATCHED,	/* IN: a return no call of the thread made */
	LSA_CFG_W_UNWOUND,	/* OUT: a call a return further up skipped */
	LSA_CFG_W_NORETURN,	/* OUT: a call still open at thread end */
	LSA_CFG_W_MAX
};

#define LSA_CFG_F_XFER		1	/* crosses functions: not flow itself */
#define LSA_CFG_F_UNREACHED	2	/* a static successor never taken */

struct lsa_cfg_edge {
	uint32_t from, to;	/* block ids; LSA_CFG_NONE: outside, or an
				 * unreached target that never executed */
	uint8_t kind;		/* enum lsa_cfg_kind */
	uint8_t why;		/* enum lsa_cfg_why (IN/OUT) */
	uint8_t flags;		/* LSA_CFG_F_* */
	uint64_t count;
	uint64_t to_addr;	/* runtime address of the target (0: outside) */
};

struct lsa_cfg_block {
	const struct lsd_sblock *sb;	/* NULL: never executed */
	uint64_t count;		/* executions */
	uint64_t callee_insns;	/* call blocks: instructions executed in
				 * their callees, outermost activations only
				 * (so recursion is not counted twice) */
	uint32_t func;		/* function index, LSA_CFG_NONE if unexecuted */
	uint32_t local;		/* index in the function's blocks[] */
};

struct lsa_cfg_func {
	int32_t module;		/* bundle module index, -1 if unknown */
	uint64_t start;		/* entry as a file offset in the module */
	const char *name;	/* NULL when no symbol covers it */
	uint32_t nblocks;
	const uint32_t *blocks;	/* executed block ids, by address */
	uint64_t insns;		/* instructions executed in its blocks */
	uint64_t calls;		/* times entered by a call */
};

/* Follows each thread's walk as the graph is built, for analyses that
 * need the call stack of every executed block (analysis/cpi_chain.c)
 * without pairing returns with calls themselves.  ctx names the thread
 * (0, 1, ... in order of appearance); the calls of one thread come in
 * its order, those of threads on per-CPU streams interleave.  Each
 * returns >= 0, or a negative LS_E* code that ends the walk. */
struct lsa_cfg_observer {
	void *arg;
	/* Block id executed, after its incoming transition moved the stack. */
	int (*block)(void *arg, uint32_t ctx, uint32_t id);
	/* The call block callblk (the thread's last block) opened a frame. */
	int (*push)(void *arg, uint32_t ctx, uint32_t callblk);
	/* The innermost frame, opened by callblk, closed: returned, or
	 * unwound by a return further up or by the thread's end. */
	int (*pop)(void *arg, uint32_t ctx, uint32_t callblk);
	/* The thread's walk ended (after popping its frames). */
	int (*end)(void *arg, uint32_t ctx);
};

struct lsa_cfg_opts {
	size_t size;		/* sizeof(struct lsa_cfg_opts) */
	/* Code bytes, to find the taken target of conditional branches
	 * that were never taken (may be NULL: those stay unknown). */
	const struct lsd_image *img;
	/* May be NULL; copied.  Its callbacks may each be NULL. */
	const struct lsa_cfg_observer *obs;
	/* 2 or more: lsa_cfg_build() decodes on a second thread
	 * (lsd_decode_all_piped()) while the graph is built on the
	 * caller's; the graph is the same. */
	unsigned jobs;
};

struct lsa_cfg_stats {
	uint64_t blocks, insns;	/* executed */
	uint64_t streams;
	uint64_t unmatched_rets, unwound, noreturn;
	uint64_t max_depth;
};

struct lsa_cfg;

/* A graph builder; sym may be NULL (functions then come from call
 * targets and thread starts only).  d may be NULL when blocks are fed by
 * hand.  Returns -LS_EINVAL, -LS_ENOMEM. */
int lsa_cfg_new(struct lsa_cfg **pc, struct lsd_symbols *sym,
		const struct lsa_cfg_opts *o);
/* Callbacks to pass to lsd_decode_stream() with the graph as arg. */
extern const struct lsd_callbacks lsa_cfg_callbacks;
/* Feeds one executed block.  Returns -LS_ENOMEM, -LS_EINVAL (after
 * lsa_cfg_finish). */
int lsa_cfg_feed(struct lsa_cfg *c, size_t stream, const struct lsd_block *b);
/* Feeds n executed blocks of one thread in order, as n lsa_cfg_feed()
 * calls would (the decoder's batches: lsa_cfg_callbacks.blocks).
 * Returns -LS_ENOMEM, -LS_EINVAL (a block without its static block;
 * after lsa_cfg_finish). */
int lsa_cfg_feed_n(struct lsa_cfg *c, size_t stream, const struct lsd_block *b,
		   size_t n);
/* Ends the walk of the thread whose block came last: its last block and
 * open calls leave their functions.  Returns -LS_ENOMEM. */
int lsa_cfg_stream_end(struct lsa_cfg *c);
/* Ends input: groups blocks into functions, adds unreached static
 * successors and the IN/OUT edges implied by calls, returns and jumps
 * between functions, and indexes the edges.  Returns -LS_ENOMEM. */
int lsa_cfg_finish(struct lsa_cfg *c);
/* Decodes every stream of d into c (lsd_decode_all(): a thread's runs on
 * several CPUs in the order they ran; piped with lsa_cfg_opts.jobs) and
 * finishes it.  Returns a decoder error or as above. */
int lsa_cfg_build(struct lsa_cfg *c, struct lsd_decoder *d);
void lsa_cfg_free(struct lsa_cfg *c);

/* After lsa_cfg_finish(): */
size_t lsa_cfg_nblocks(const struct lsa_cfg *c);	/* ids 0 .. n-1 */
const struct lsa_cfg_block *lsa_cfg_block(const struct lsa_cfg *c, uint32_t id);
size_t lsa_cfg_nedges(const struct lsa_cfg *c);
const struct lsa_cfg_edge *lsa_cfg_edge(const struct lsa_cfg *c, size_t i);
/* Edge indices leaving (out != 0) or entering block id; returns how many
 * and points *list at them (valid until lsa_cfg_free). */
size_t lsa_cfg_edges_of(const struct lsa_cfg *c, uint32_t id, int out,
			const uint32_t **list);
/* 1 if the edge carries intra-procedural flow (counts in Kirchhoff). */
int lsa_cfg_is_flow(const struct lsa_cfg_edge *e);
size_t lsa_cfg_nfuncs(const struct lsa_cfg *c);
const struct lsa_cfg_func *lsa_cfg_func(const struct lsa_cfg *c, uint32_t i);
/* The executed block starting at runtime address a, or LSA_CFG_NONE. */
uint32_t lsa_cfg_block_at(const struct lsa_cfg *c, uint64_t a);
void lsa_cfg_get_stats(const struct lsa_cfg *c, struct lsa_cfg_stats *st);
const char *lsa_cfg_kind_name(int kind);
const char *lsa_cfg_why_name(int why);

/* A block where inflow, executions and outflow differ. */
struct lsa_cfg_violation {
	uint32_t block;
	uint64_t in, count, out;
};
/* Checks flow conservation at every executed block, calling cb (may be
 * NULL) for each violation.  Returns the number of violations. */
int lsa_cfg_check_flow(const struct lsa_cfg *c,
		       void (*cb)(void *arg, const struct lsa_cfg_violation *v),
		       void *arg);

#endif
