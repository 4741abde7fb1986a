/* lsc_thread.h - per-thread trace state of the Valgrind tool. */
#ifndef LSC_THREAD_H
#define LSC_THREAD_H

#include "lsc_tool.h"

#define LSC_ALLOC_DEPTH 8

struct lsc_thread {
	struct lsc_hot hot;	/* saved while another thread runs */
	Bool used;		/* slot initialised for this thread */
	Bool started;		/* THREAD_START written */
	Bool exited;		/* THREAD_EXIT written */
	Int os_tid;		/* lwp, known from the first block on */
	Int parent_os_tid;
	UChar *chunk;		/* PT bytes since the last PSB */
	UChar *mem;		/* LSW_MEMACC payload being built */
	UInt mem_len;
	ULong mem_prev[3];	/* icount, iaddr, daddr deltas base */
	/* Allocation calls entered, not yet returned (innermost last):
	 * the stack pointer at entry, the return address, the size. */
	ULong alloc_sp[LSC_ALLOC_DEPTH], alloc_ret[LSC_ALLOC_DEPTH];
	ULong alloc_size[LSC_ALLOC_DEPTH];
	UInt nalloc;
};

extern UInt lsc_psb_period;
extern Bool lsc_dead;		/* fork child or exec: write nothing */

int lsc_thread_init(UInt nthreads);
/* Make tid the running thread: swap its state into lsc_hot. */
void lsc_thread_switch(ThreadId tid);
/* A new thread, created by parent (0 if none). */
void lsc_thread_create(ThreadId parent, ThreadId child);
/* The hot state of tid, wherever it lives now. */
struct lsc_hot *lsc_thread_hot(ThreadId tid);
/* Write out what tid has buffered; the next block starts a new PSB. */
void lsc_thread_flush(ThreadId tid);
/* With --lsc-verify=yes, LSW_VERIFY with tid's count so far. */
void lsc_thread_verify(ThreadId tid);
/* End tid's trace: disable if enabled, THREAD_EXIT. */
void lsc_thread_exit(ThreadId tid, UInt status);
/* Signal delivery to tid at ip. */
void lsc_thread_signal(ThreadId tid, Int signo, Addr ip);
/* Every thread not yet exited. */
void lsc_thread_exit_all(UInt status);
/* Emit the startup mappings once, before the first THREAD_START. */
void lsc_emit_startup_maps(void);

#endif
