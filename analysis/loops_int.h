/* loops_int.h - internals of the loop detector (analysis/loops*.c). */
#ifndef LSA_LOOPS_INT_H
#define LSA_LOOPS_INT_H

#include "analysis/kmap.h"
#include "analysis/loops.h"

#define LSA_NONE UINT32_MAX
#define LSA_NC (1 + LSP_NCLASS)	/* instructions, then the classes */
#define LSA_MAX_FRAMES (1u << 20)

/* Instructions and per-class counts. */
struct lsa_cnt {
	uint64_t n[LSA_NC];
};

/* A child loop entered below a path entry or frame, not yet given a
 * parent (the owner of the entry decides it later). */
struct lsa_kid {
	uint32_t loop, next;
	uint64_t count;
	struct lsa_cnt tot;
};

/* What the calls made by one path entry's block contributed. */
struct lsa_acc {
	struct lsa_cnt cself;	/* callee instructions outside callee loops */
	struct lsa_cnt ctot;	/* totals of the callees' top-level loops */
	uint32_t kids;		/* list of lsa_kid: the callees' top-level loops */
	uint32_t callee;	/* function the block called, or LSA_NONE */
	int called;		/* the block made a call */
	uint32_t next;		/* free list */
};

/* One entry into a loop, open on a path (its head's entry points to it). */
struct lsa_inst {
	uint32_t loop;
	uint32_t tail;		/* static block id of the current back-branch run */
	uint64_t tail_run;
	uint64_t trips;		/* executions of the head in this entry */
	struct lsa_cnt self, tot;	/* tot: totals of nested loops */
	struct lsa_cnt same;	/* part of tot from nested entries of this loop */
	uint32_t next;		/* free list */
};

/* A block executed in a frame (LoopProf's BblPathInfo). */
struct lsa_pent {
	const struct lsd_sblock *sb;
	uint32_t prev;		/* membership value this entry shadows */
	uint32_t inst;		/* open loop entry headed here, or LSA_NONE */
	uint32_t acc;		/* callee contributions, or LSA_NONE */
};

/* A call frame.  Its path is path[base .. next frame's base). */
struct lsa_frame {
	uint32_t base;
	uint32_t func;		/* function entered (inclusive counts) */
	uint32_t cur;		/* function executing (after tail calls) */
	uint32_t kids;		/* top-level loops entered in the frame */
	uint64_t ret;		/* where returning from the frame goes (0: any) */
	uint64_t start;		/* thread instructions when entered */
	uint64_t cur_start;	/* ... when cur began (a tail call) */
	int async;		/* a signal handler's frame */
	struct lsa_cnt fself, ftot;	/* frame level: outside the frame's loops */
};

struct lsa_lrow {
	uint64_t entries, iterations, tmin, tmax, over_e, over_s;
	struct lsa_cnt self, total;
};

struct lsa_frow {
	uint64_t self, total, calls;
	uint32_t active;
};

struct lsa_erow {
	uint64_t count, total;
};

struct lsa_thr {
	int used, done;
	uint32_t pid, tid;
	int shared;		/* a per-CPU streams' thread, by (pid, tid) */
	struct lsa_pent *path;
	uint32_t npath, cappath;
	struct lsa_frame *fr;
	uint32_t nfr, capfr;
	uint64_t deep;		/* calls past LSA_MAX_FRAMES, not framed */
	uint32_t *mem;		/* membership: static block id -> entry */
	size_t nmem;
	uint32_t *os;		/* owner stack of a scan */
	uint32_t nos, capos;
	const struct lsd_sblock *psb;
	uint8_t pexit;
	uint64_t pnext;		/* where the previous block's exit went */
	int landing;		/* the block is a longjmp's target (or follows a
				 * hole in the trace): on the path, no iteration */
	uint64_t gaps;		/* holes in the trace so far */
	uint64_t insns, losses;
	struct lsa_cnt outside;
	struct lsa_lrow *lr;
	uint32_t nlr;
	struct lsa_frow *fw;
	uint32_t nfw;
	uint32_t *pre;		/* static block id -> runs once before it was
				 * known as a loop head */
	uint32_t *preo;		/* ... charged to loop + 1 (0: frame level) */
	struct lsa_kmap pre_more;	/* (block id, loop + 1): the other owners */
	size_t npre;
	struct lsa_kmap trips;	/* (loop, trips) -> entries */
	struct lsa_kmap edges;	/* (parent + 1, child) -> erow index */
	struct lsa_erow *erows;
	size_t nerows, caperows;
	struct lsa_kmap tails;	/* (loop, block id) -> count */
	struct lsa_kmap calls;	/* (loop << 32 | callee, block id) -> count */
};

struct lsa_loopdef {
	const struct lsd_sblock *head;
	uint32_t func;
	uint32_t pidx;		/* index in the profile, LSA_NONE until written */
};

struct lsa_funcdef {
	int32_t module;
	uint64_t off;
	uint32_t pidx;
};

struct lsa_loops {
	struct lsd_decoder *d;
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsp_profile *p;
	uint32_t run;
	struct lsa_loops_opts o;
	uint32_t *sbloop;	/* static block id -> loop + 1 (0: no loop head) */
	uint32_t *sbfunc;	/* static block id -> function + 2 (0: not looked up, 1: none) */
	uint32_t *sbbody;	/* static block id -> last loop whose body has it + 1 */
	size_t nsb;
	struct lsa_loopdef *loops;
	uint32_t nloops, caploops;
	struct lsa_funcdef *funcs;
	uint32_t nfuncs, capfuncs;
	struct lsa_kmap funcidx;	/* (module + 1, off) -> function */
	struct lsa_kmap body;	/* (loop, block id): the block was in an iteration */
	/* (profile loop, back branch offset) of back "branches" that fall
	 * through into the head: the head holds the loop's test there. */
	struct lsa_kmap falltail;
	uint32_t *modidx;	/* bundle module -> profile module + 1 */
	size_t nmod;
	struct lsa_acc *acc;
	uint32_t nacc, capacc, freeacc;
	struct lsa_inst *inst;
	uint32_t ninst, capinst, freeinst;
	struct lsa_kid *kid;
	uint32_t nkid, capkid, freekid;
	/* Thread states.  A per-thread stream has one of its own; the
	 * threads of per-CPU streams are shared by them all, by (pid, tid),
	 * and end at lsa_loops_finish() (a thread may run on several CPUs). */
	struct lsa_thr *thr;
	size_t nthr, capthr;
	struct lsa_sref *sref;	/* by stream */
	size_t nsref;
	struct lsa_loops_stats st;
};

/* Whether a run of loop's head under owner (loop + 1, 0: frame level)
 * was an entry of loop: not when the owner's head is in loop's body. */
int lsa_loops_entry_ok(const struct lsa_loops *l, uint32_t loop, uint32_t owner);

/* Which thread a stream's blocks go to. */
struct lsa_sref {
	uint32_t slot;		/* index into lsa_loops.thr, LSA_NONE: none yet */
	uint8_t cpu;		/* a per-CPU stream: its thread changes */
};

/* The slot of the stream's current thread (zeroed when new, no state
 * made); NULL: out of memory. */
struct lsa_thr *lsa_loops_slot(struct lsa_loops *l, size_t stream);
/* The stream begins: per CPU (cpu 1) or the one thread pid/tid's, which
 * gets a new slot.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_stream_begin(struct lsa_loops *l, size_t stream, int cpu,
			   uint32_t pid, uint32_t tid);
/* The stream's blocks are thread pid/tid's from now on.  Returns 0 or
 * -LS_ENOMEM. */
int lsa_loops_set_thread(struct lsa_loops *l, size_t stream, uint32_t pid,
			 uint32_t tid);
/* Thread t's row of loop, grown when new; NULL: out of memory. */
struct lsa_lrow *lsa_loops_lrow(struct lsa_thr *t, uint32_t loop);
/* The state of stream's thread, made on first use; NULL: out of memory. */
struct lsa_thr *lsa_loops_thread(struct lsa_loops *l, size_t stream);

/* loops_out.c: writes a finished thread's rows into the profile. */
int lsa_loops_flush_thread(struct lsa_loops *l, struct lsa_thr *t);
void lsa_thr_release(struct lsa_thr *t);

#endif
