/* lsc_tool.h - shared state of the loopscope Valgrind tool.
 *
 * Valgrind runs one guest thread at a time, so the running thread's hot
 * state lives in the global lsc_hot where inline IR can reach it at fixed
 * addresses; lsc_thread_switch() swaps it with the per-thread copy.
 */
#ifndef LSC_TOOL_H
#define LSC_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "vgtool/lsc_ptenc.h"

/* Why a thread's next block entry must call lsc_h_pending(). */
#define LSC_PEND_START	1u	/* first block: THREAD_START, stream start */
#define LSC_PEND_PGE	2u	/* tracing is disabled: TIP.PGE */
#define LSC_PEND_PSB	4u	/* the chunk reached psb_period bytes */

/* lsc_h_pending() also runs, and flushes, when this many TNT bits wait;
 * blocks with at most 47 - LSC_TNT_EARLY bit sites rely on it.
 */
#define LSC_TNT_EARLY	40

struct lsc_hot {
	struct lsc_ptenc enc;
	/* Instructions completed, as libipt counts them: each one is added
	 * when it has run to its end, so during an instruction this is its
	 * index (LSW_MEMACC) and a fault does not count.
	 */
	ULong icount;
	ULong pending;		/* LSC_PEND_* */
};

extern struct lsc_hot lsc_hot;

/* Options. */
extern Bool lsc_clo_mem;
/* --lsc-mem-only: memory accesses of these functions' own instructions
 * only (names, or runtime ranges 0xSTART-0xEND, comma-separated), and
 * of every call (its push gives the callee's frame base); NULL: every
 * instruction's. */
extern const HChar *lsc_clo_mem_only;
/* Parses lsc_clo_mem_only; False (after a message) when malformed. */
Bool lsc_mem_filter_init(void);
extern Bool lsc_clo_verify;
extern Bool lsc_clo_retcomp;
extern ULong lsc_blocks;	/* superblocks instrumented */

/* Dirty helpers called from instrumented code (lsc_main.c). */
void lsc_h_pending(HWord ip, HWord at_rep);
void lsc_h_tnt_flush(void);
void lsc_h_tip(HWord ip);
void lsc_h_ret(HWord ip);
void lsc_h_pgd(void);
void lsc_h_mem(HWord daddr, HWord size_w, HWord iaddr);
/* Entry of an allocation function (kind: 1 size in a0, 2 a0 x a1, 3 a1)
 * with the stack pointer sp (at its return address); a `ret` with sp
 * and rax: the matching one writes the allocation record. */
void lsc_h_alloc_in(HWord kind, HWord sp, HWord a0, HWord a1);
void lsc_h_alloc_out(HWord sp, HWord rax);
extern ULong lsc_alloc_npend;	/* allocation calls not returned, all threads */

/* The instrumentation pass (lsc_instr.c). */
IRSB *lsc_instrument(VgCallbackClosure *closure, IRSB *bb,
		     const VexGuestLayout *layout,
		     const VexGuestExtents *vge,
		     const VexArchInfo *archinfo_host,
		     IRType gWordTy, IRType hWordTy);

#endif
