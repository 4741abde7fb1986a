/* loops_int.h - internals of the loop detector (analysis/loops*.c). */
#ifndef LSA_LOOPS_INT_H
#define LSA_LOOPS_INT_H

#include <pthread.h>

#include "analysis/kmap.h"
#include "analysis/loops.h"
#include "ls_err.h"

#define LSA_NONE UINT32_MAX
#define LSA_NC (1 + LSP_NCLASS)	/* instructions, then the classes */
/* Unrolls the loop that follows over a struct lsa_cnt (GCC and clang). */
#define LSA_UNROLL _Pragma("GCC unroll 10")
#define LSA_MAX_FRAMES (1u << 20)
/* The exits that leave no frame (bits by enum lsd_exit): between blocks
 * of the function a frame runs they change nothing (transfer()). */
#define LSA_EXITS_LOCAL (1u << LSD_EXIT_FALL | 1u << LSD_EXIT_COND_TAKEN | \
			 1u << LSD_EXIT_COND_NOT | 1u << LSD_EXIT_JUMP | \
			 1u << LSD_EXIT_IJUMP)

/* Instructions and per-class counts. */
struct lsa_cnt {
	uint64_t n[LSA_NC];
};
/* ... of one static block, in 32 bits, padded to three vectors of four
 * (the eager pass's tight loop sums them: loops_erun.h). */
#define LSA_NC32 12
struct lsa_cnt32 {
	uint32_t n[LSA_NC32];
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
	/* The blocks the call ran (lsa_loops.sq[sq .. sq + nsq)) when
	 * they were a leaf the memo can take: one function's blocks, no
	 * loop, no call (see lsa_memo_fits); nsq 0: not such a call. */
	uint32_t sq, nsq;
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
	/* the eager pass's (loops_eager.c): the path entry of its head,
	 * whose lsa_pent.ei names it while it is open (LSA_NONE: none) */
	uint32_t pidx;
};

/* A block executed in a frame (LoopProf's BblPathInfo). */
struct lsa_pent {
	const struct lsd_sblock *sb;
	uint32_t prev;		/* membership value this entry shadows */
	/* open loop entry headed here, or LSA_NONE; in a learning pass
	 * LSA_NONE too */
	uint32_t inst;
	/* callee contributions, or LSA_NONE; in a learning pass the
	 * function the entry's call went to + 1 (0: unknown), LSA_NONE: no
	 * call (what a piece of the second pass begins with, lsa_ksnap) */
	uint32_t acc;
	/* the eager pass's: the open entry of the loop it heads (on the
	 * thread's live owner stack), LSA_NONE once closed or none */
	uint32_t ei;
	uint64_t lb;		/* a learning pass's loop backs to it */
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
	uint64_t fpos;		/* a learning pass's log position of its first block */
	uint64_t serial;	/* frames pushed in the thread before it + 1 */
	int async;		/* a signal handler's frame */
	struct lsa_cnt fself, ftot;	/* frame level: outside the frame's loops */
	/* The eager pass's (loops_eager.c): the frame's open entries are
	 * the live owner stack t->os[osb ..); from path entry lz on (LSA_NONE:
	 * none) its blocks are pushed and charged as the path design
	 * charges them (a lazy region).  What it hands over when it ends
	 * goes (hto) to the calling block's entry as the path design's does
	 * (LSA_HTO_ACC), or to the owner the calling block had: entry cinst
	 * (LSA_NONE: the frame level below), the calls map counting the call
	 * of block cblk to ccallee where the frame was called. */
	uint32_t osb, lz;
	uint32_t cinst, cblk, ccallee;
	uint8_t hto, called;
};
enum { LSA_HTO_PATH, LSA_HTO_ACC, LSA_HTO_OWNER };

/* Trip counts below this are binned in the loop's row (lsa_lrow.tsm),
 * not in the thread's trips map: most entries make few trips. */
#define LSA_TSMALL 16

struct lsa_lrow {
	uint64_t entries, iterations, tmin, tmax, over_e, over_s;
	struct lsa_cnt self, total;
	/* What goes into the thread's maps at its end (lsa_loops_maps_put)
	 * kept here while it comes: the trip-count bins below LSA_TSMALL,
	 * the runs of the two back branches met last (block id + 1, 0:
	 * none; the last first: a loop whose iterations alternate between
	 * two tails, as bzip2's do, adds to neither map), and
	 * the loop call graph edge into this loop met last (its parent
	 * key, as t->edges has it, and t->erows index + 1, 0: none). */
	uint64_t tsm[LSA_TSMALL];
	uint64_t crun, crun2;
	uint32_t ctail, ctail2;
	uint32_t epar, erow;
};

struct lsa_frow {
	uint64_t self, total, calls;
	uint32_t active;
};

struct lsa_erow {
	uint64_t count, total;
};

#include "analysis/loops_memo.h"

#define LSA_CL_HELD 4	/* calls keys held (lsa_thr.cl_a) */

struct lsa_thr {
	int used, done;
	uint32_t pid, tid;
	int shared;		/* a per-CPU streams' thread, by (pid, tid) */
	struct lsa_pent *path;
	uint32_t npath, cappath;
	struct lsa_frame *fr;
	uint32_t nfr, capfr;
	uint64_t deep;		/* calls past LSA_MAX_FRAMES, not framed */
	uint64_t nserial;	/* frames pushed (lsa_frame.serial) */
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
	/* pre_more's adds, summed here first (direct-mapped by key; k 0:
	 * a free slot): a block that keeps running once under two owners
	 * adds to one key over and over.  NULL until the first. */
	struct lsa_pmc {
		uint32_t id, own;
		uint64_t k;
	} *pmc;
	size_t npre;
	struct lsa_kmap trips;	/* (loop, trips) -> entries */
	struct lsa_kmap edges;	/* (parent + 1, child) -> erow index */
	struct lsa_erow *erows;
	size_t nerows, caperows;
	struct lsa_kmap tails;	/* (loop, block id) -> count */
	struct lsa_kmap calls;	/* (loop << 32 | callee, block id) -> count */
	/* keys added to calls lately and what they have not been given
	 * yet (bit i of cl_on: slot i holds one), LSA_CL_HELD of them by
	 * key: a loop's
	 * calls from a few sites come in runs, and a map update cost each
	 * about 60 instructions (lsa_loops_calls_add();
	 * lsa_loops_calls_flush() before calls is read or moved) */
	uint64_t cl_a[LSA_CL_HELD], cl_b[LSA_CL_HELD], cl_n[LSA_CL_HELD];
	unsigned cl_on;
	struct lsa_memo memo;
	struct lsa_cmemo cm;
	struct lsa_fmemo fm;
	/* What the thread's own blocks taught it: which blocks head loops
	 * and which blocks ran in their iterations.  Kept per thread so that
	 * a thread's profile is decided by its blocks alone, whichever
	 * threads went before it: a shard, or a job of its own, gives its
	 * threads the whole bundle's rows. */
	uint32_t *head;		/* static block id -> loop + 1 (0: no loop head) */
	uint32_t *inb;		/* static block id -> last loop whose body has it + 1 */
	uint32_t *inb2;		/* ... and the one before (lsa_loops_in_body) */
	uint32_t *notb;		/* ... a loop + 1 whose body did not have it
				 * when last asked (body_add clears it) */
	/* ... how many loops' bodies have it, up to 3: where 2 or fewer,
	 * inb and inb2 hold them all, and a block in neither is in no other
	 * (most asks of the body map were such misses: a loop opening
	 * inside an entry asks whether the owner's head is its) */
	uint8_t *nbl;
	size_t nk;		/* entries of head and inb */
	/* (loop, block id): the block was in an iteration, in some thread
	 * (the loops' line ranges) */
	struct lsa_kmap body;
	uint64_t *nbody;	/* by loop: blocks known in its body */
	uint32_t nnbody;
	/* A piece worker's thread (loops_piece.c), NULL elsewhere. */
	struct lsa_psn *sn;
	/* A second half's learner's thread (loops_halves.c), NULL elsewhere. */
	struct lsa_hw *hw;
	/* Blocks a landing (a longjmp, a hole in the trace) came back to on
	 * a frame's path: (0, block id) -> landings.  A learning pass counts
	 * them; the eager pass keeps a frame lazy from such a block on
	 * (lflag by block id, grown with head). */
	struct lsa_kmap land;
	uint8_t *lflag;
	/* The eager pass's class of each block met (grown with head): 0
	 * unknown; (function + 1) << 2 | 1 a block of that function that
	 * heads no loop and no landing came to; | 2 such a head; in the
	 * high half, inb's (lsa_loops_inb_note()): a plain block in the
	 * innermost entry's body is one compare in lsa_eager_run() */
	uint64_t *ecls;
	/* ... and by the id of a block that called, the id + 1 of the block
	 * its return came to last (0: none yet; loops_erun.c) */
	uint32_t *eret;
	/* a learning pass keeping snapshots: blocks so far, the next cut;
	 * cutting at chunks, the next chunk that may begin a cut */
	uint64_t nblk, ncut;
	size_t cnext;
};

struct lsa_loopdef {
	const struct lsd_sblock *head;
	uint32_t func;
	uint32_t pidx;		/* index in the profile, LSA_NONE until written */
	/* head->id, without the static block's line: the eager pass asks
	 * lsa_loops_entry_ok() of owners' heads at every entry it opens */
	uint32_t hid;
};

struct lsa_funcdef {
	int32_t module;
	uint64_t off;
	uint32_t pidx;
	const struct lsd_sblock *sb;	/* a block of it (the first looked up) */
};

struct lsd_tape;

struct lsa_loops {
	struct lsd_decoder *d;
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsp_profile *p;
	uint32_t run;
	struct lsa_loops_opts o;
	/* static block id -> loop + 1 (0: no loop head in any thread yet):
	 * the loops' numbering; the threads' own knowledge is lsa_thr.head */
	uint32_t *sbloop;
	uint32_t *sbfunc;	/* static block id -> function + 2 (0: not looked up, 1: none) */
	/* static block id -> its instructions and classes as counters
	 * (filled when the per-block path first sees the block, before
	 * any charge or memo can): a charge adds them whole */
	struct lsa_cnt *sbc;
	struct lsa_cnt32 *sbc32;	/* ... the same, in 32 bits */
	uint32_t sbc_max;	/* the greatest counter of a block in sbc */
	/* blocks whose counters sum below 2^32: UINT32_MAX / (sbc_max + 1)
	 * (lsa_eager_run() sums its blocks in 32 bits), or fewer: erun_cap
	 * (LOOPSCOPE_ERUN_BLOCKS, for tests: runs cut short anywhere) */
	size_t erun_max, erun_cap;
	size_t nsb;
	struct lsa_loopdef *loops;
	uint32_t nloops, caploops;
	struct lsa_funcdef *funcs;
	uint32_t nfuncs, capfuncs;
	struct lsa_kmap funcidx;	/* (module + 1, off) -> function */
	/* (loop, block id): the block was in an iteration, in some thread
	 * (the loops' line ranges) */
	struct lsa_kmap body;
	/* (profile loop, back branch offset) of back "branches" that fall
	 * through into the head: the head holds the loop's test there. */
	struct lsa_kmap falltail;
	uint32_t *modidx;	/* bundle module -> profile module + 1 */
	size_t nmod;
	struct lsa_acc *acc;
	uint32_t nacc, capacc, freeacc;
	/* the leaf calls' blocks of the open entries (lsa_acc.sq); emptied
	 * when no entry holds any (sqlive) */
	const struct lsd_sblock **sq;
	uint32_t nsq, capsq, sqlive;
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
	int memo;		/* iteration memos allowed (not the reference) */
	int fmemo;		/* a learning pass's memo (not the reference) */
	/* A learning pass: each thread's knowledge goes into learn at its
	 * end; it keeps the frames and paths alone (no counts, no rows, no
	 * iteration or call memo) and skips what repeats (struct
	 * lsa_fmemo).  Or a pass that knows: each thread starts with
	 * know's (loops_know.c). */
	struct lsa_know *learn;
	const struct lsa_know *know;
	size_t last;		/* the thread that ran the last block, + 1 */
	/* held around symbol lookups where several detectors share the
	 * symbols (pieces on several threads, loops_pieces.c); NULL: one */
	pthread_mutex_t *symlock;
	/* The joiner of pieces makes the moves a worker noted with what
	 * the entries and frames held before the cut alone: no block is
	 * charged, no entry, trip or call counted (the worker did). */
	int pre;
	/* A learning pass keeps the frames and paths of its per-thread
	 * streams every `snap` blocks (0: never), for pieces. */
	uint64_t snap;
	/* ... at the chunks' starts instead (lsd_chunk_starts()), where
	 * the second pass's workers decode their pieces themselves
	 * (loops_dpieces.c): each chunk, or every 2nd, 4th ... when the
	 * snapshots' memory runs out. */
	int snap_chunks;
	/* A second pass that knows, cut at chunks by the learning pass: the
	 * eager pass in pieces each decoded where it runs. */
	int dpieces;
	/* ... or replayed from the learning pass's tape, recorded chunk by
	 * chunk (decoder/tape.h; NULL: none whole) */
	struct lsd_tape *tape;
	/* A second pass whose blocks the learning pass took nearly all as
	 * repeats (lsa_memo_repeat): they cost it less than handing them to
	 * other threads does, so it runs them on the decoding thread. */
	int here;
	uint64_t nin;		/* blocks handed to it (lsa_loops_blocks) */
	/* A pass that knows, charging each block as it comes
	 * (loops_eager.c): no memo, no scan but in lazy regions. */
	int eager;
	/* A join of its pieces found a worker's state unlike its own
	 * (lsa_piece_join() -LS_EINVAL): the pass is made again whole. */
	int pfail;
	/* A learning pass in halves failed (loops_halves.c): again whole. */
	int hfail;
	int nohalves;
	/* The second pass begun beside a learning pass (loops_follow.c):
	 * told of its cuts; a second pass takes its piece. */
	struct lsa_follow *follow;
};

/* Whether a run of loop's head under owner (loop + 1, 0: frame level)
 * was an entry of loop: not when the owner's head is in loop's body. */
int lsa_loops_entry_ok(const struct lsa_loops *l, const struct lsa_thr *t,
		       uint32_t loop, uint32_t owner);

/* loops_halves.c: the hooks of a second half's learner (lsa_thr.hw).
 * lsa_hw_moved(): block b came and moved the frames from nfr0; returns 1
 * where b is the spine's (not learned), 0 where it is learned, or
 * -LS_EEOF where the learner stops.  lsa_hw_fact(): thread t learned a
 * fact new to it (enum below: head a; block b in the loop a heads; a
 * landing at a).  Returns 0 or -LS_ENOMEM.  lsa_hw_taint(): a move the
 * frames below an excursion decide; returns -LS_EEOF (the learner
 * stops). */
enum { LSA_HF_HEAD, LSA_HF_BODY, LSA_HF_LAND };
struct lsa_hw;
int lsa_hw_moved(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
		 uint32_t nfr0);
int lsa_hw_fact(struct lsa_thr *t, int kind, const struct lsd_sblock *a,
		const struct lsd_sblock *b);
int lsa_hw_taint(struct lsa_thr *t);

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

/* A thread's rows and what adds to them. */
#include "analysis/loops_rows.h"

/* The state of stream's thread, made on first use; NULL: out of memory. */
struct lsa_thr *lsa_loops_thread(struct lsa_loops *l, size_t stream);
/* A piece worker's thread (slot 0 of l, a new state, no frames yet),
 * knowing what thread slot kslot of l->know learned; NULL: out of
 * memory. */
struct lsa_thr *lsa_loops_wk_thread(struct lsa_loops *l, size_t kslot);

/* Adds static block sb's counts (lsa_loops.sbc) to a. */
static inline void lsa_cnt_sb(struct lsa_cnt *a, const struct lsa_loops *l,
			      const struct lsd_sblock *sb)
{
	const struct lsa_cnt *c = &l->sbc[sb->id];
	int k;

	/* (unrolled: the per-block path's scan does this for every block) */
	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		a->n[k] += c->n[k];
}

/* Membership: static block id -> topmost path entry (LSA_NONE: none).
 * A dense array per thread: static block ids are dense and the threads
 * open at once are few (one per stream), so this costs 4 bytes per
 * executed static block and saves a hash lookup per executed block. */
static inline uint32_t lsa_loops_mem_get(const struct lsa_thr *t, uint32_t k)
{
	return k < t->nmem ? t->mem[k] : LSA_NONE;
}

/* Grows t's membership table to hold k.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_mem_grow(struct lsa_thr *t, uint32_t k);

/* (Twice a block on the per-block path: the grow out of line.)  Returns
 * 0 or -LS_ENOMEM. */
static inline int lsa_loops_mem_set(struct lsa_thr *t, uint32_t k, uint32_t v)
{
	int err;

	if (k >= t->nmem) {
		if (v == LSA_NONE)
			return 0;
		if ((err = lsa_loops_mem_grow(t, k)))
			return err;
	}
	t->mem[k] = v;
	return 0;
}

/* The cache of the last two loops a block was found in (inb, inb2): a
 * block of a nested loop is asked about its own loop and the one around
 * it in turn, and bodies only grow, so what it holds stays true. */
static inline void lsa_loops_inb_note(struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	t->inb2[sbid] = t->inb[sbid];
	t->inb[sbid] = loop + 1;
	if (t->ecls)
		t->ecls[sbid] = (uint64_t)(loop + 1) << 32 | (uint32_t)t->ecls[sbid];
}

/* The eager pass's class of block sbid (t->ecls). */
static inline uint32_t lsa_ecls(const struct lsa_thr *t, uint32_t sbid)
{
	return (uint32_t)t->ecls[sbid];
}

/* ... set to c, inb's half kept. */
static inline void lsa_ecls_set(struct lsa_thr *t, uint32_t sbid, uint32_t c)
{
	t->ecls[sbid] = (t->ecls[sbid] & ~(uint64_t)UINT32_MAX) | c;
}

/* lsa_loops_in_body() for the scan (sbid < t->nk), noting a hit in the
 * cache. */
static inline int lsa_loops_in_body_note(struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	if (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)
		return 1;
	/* (most answers at a loop's exit are no: the scan asks the open
	 * entries about the block after it, innermost first) */
	if (t->nbl[sbid] <= 2 || t->notb[sbid] == loop + 1)
		return 0;
	if (!lsa_kmap_find(&t->body, loop, sbid)) {
		t->notb[sbid] = loop + 1;
		return 0;
	}
	lsa_loops_inb_note(t, loop, sbid);
	return 1;
}

/* The environment's number `name` (for tests and comparisons), or dflt
 * where it is not set or no number (loops_analyze.c). */
uint64_t lsa_env_num(const char *name, uint64_t dflt);
/* Block sb may go on t's path without block_go() having seen it: the
 * tables by block id grown, its counts there.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_sb_see(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *sb);
/* lsa_loops_func_of() of any block, the tables grown to hold it
 * (LSA_NONE too where out of memory). */
uint32_t lsa_loops_func_sb(struct lsa_loops *l, const struct lsd_sblock *sb);
/* lsa_loops_func_of() of a block not looked up yet. */
uint32_t lsa_loops_func_lookup(struct lsa_loops *l, const struct lsd_sblock *sb);
/* The function containing static block sb (LSA_NONE if unknown).
 * Inline: the per-block path asks it of every block. */
static inline uint32_t lsa_loops_func_of(struct lsa_loops *l, const struct lsd_sblock *sb)
{
	uint32_t f = l->sbfunc[sb->id];

	return f ? f - 2 : lsa_loops_func_lookup(l, sb);
}
/* A new entry of loop, *out its index.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_inst_new(struct lsa_loops *l, uint32_t loop, uint32_t *out);
/* Whether block sbid ran in an iteration of loop in thread t. */
int lsa_loops_in_body(const struct lsa_thr *t, uint32_t loop, uint32_t sbid);
/* The loop block sbid heads in thread t, + 1 (0: none known there). */
static inline uint32_t lsa_loops_head(const struct lsa_thr *t, uint32_t sbid)
{
	return sbid < t->nk ? t->head[sbid] : 0;
}

/* One block through the per-block path (the blocks the memo does not
 * take).  Returns 0, -LS_EINVAL or -LS_ENOMEM. */
int lsa_loops_block_one(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_block *b);
/* Pushes sb on t's path.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_path_push(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb);
/* Whether control from the previous block into a block of function f
 * may move frames (lsa_loops_transfer() has work): between blocks of the
 * function the top frame runs, by exits that leave no frame, none does.
 * Every block path asks it, and they must agree (the learning pass's
 * memo stands on their frames being the same). */
static inline int lsa_loops_moves(const struct lsa_thr *t, uint32_t f)
{
	const struct lsa_frame *top = &t->fr[t->nfr - 1];

	return t->psb && (!(LSA_EXITS_LOCAL >> t->pexit & 1) ||
			  (top->cur != LSA_NONE && f != LSA_NONE && f != top->cur));
}
/* The top frame, whose function was unknown, runs f (the first block
 * named one): its span opens, its call is counted.  Returns 0 or
 * -LS_ENOMEM. */
int lsa_loops_cur_set(struct lsa_loops *l, struct lsa_thr *t, uint32_t f);
/* The path design's loop back to path entry ti of the top frame, and its
 * landing at entry xi (a longjmp, a hole in the trace).  Each returns 0
 * or -LS_ENOMEM. */
int lsa_loops_loop_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti);
int lsa_loops_land(struct lsa_loops *l, struct lsa_thr *t, uint32_t xi);
/* loops_eager.c: n blocks into thread t of an eager pass.  Returns 0,
 * -LS_EINVAL or -LS_ENOMEM. */
int lsa_eager_blocks(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
		     size_t n);
/* loops_erun.c: the blocks from b[i] on that the eager pass's tight loop
 * takes in thread t (the top frame's, no event it leaves to
 * lsa_eager_blocks()).  Returns the index of the first block it did not
 * take, or -1 - that index after an error (out of memory). */
ptrdiff_t lsa_eager_run(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
			size_t i, size_t n);
/* loops_eager.c, for lsa_eager_run(): block id comes in frame f, the
 * open entries whose loop's body does not hold it close; an entry goes
 * on t's owner stack.  Each returns 0 or -LS_ENOMEM. */
int lsa_eager_leave(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f, uint32_t id);
int lsa_eager_os_push(struct lsa_thr *t, uint32_t ii);
/* loops_eager.c: the top frame of an eager pass ends: its lazy region
 * charged, its open entries closed, its path popped.  Returns 0 or
 * -LS_ENOMEM. */
int lsa_eager_frame_end(struct lsa_loops *l, struct lsa_thr *t);
/* loops_eager.c: what the ending top frame f of an eager pass made goes
 * to the owner its calling block had (f->hto is LSA_HTO_OWNER).  Returns
 * 0 or -LS_ENOMEM. */
int lsa_eager_hand_over(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f);
/* loops_epiece.c: thread t of eager detector l, with no frames yet,
 * takes the eager pass's frames, owner stack and path at cut s (NULL:
 * the thread's start), every sum 0.  Returns 0, -LS_ENOMEM or
 * -LS_EINVAL. */
struct lsa_ksnap;
int lsa_eager_from_snap(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_ksnap *s);
/* loops_eager.c, for a joiner of pieces (l->pre): the eager pass's move
 * kind (PE_CLOSE, PE_EBACK, PE_UNLAZY) a worker noted at `at`, made on
 * thread t.  Returns 0, -LS_ENOMEM or -LS_EINVAL. */
int lsa_eager_replay(struct lsa_loops *l, struct lsa_thr *t, int kind, uint32_t at);


/* Feeds n executed blocks of the stream, in order. */
int lsa_loops_blocks(struct lsa_loops *l, size_t stream,
		     const struct lsd_block *b, size_t n);
/* The same into thread t.  Returns 0, -LS_EINVAL or -LS_ENOMEM. */
int lsa_loops_thr_blocks(struct lsa_loops *l, struct lsa_thr *t,
			 const struct lsd_block *b, size_t n);

/* Who receives accounted work: an open loop entry, or a frame's level. */
struct lsa_owner {
	uint32_t inst;		/* LSA_NONE: the frame */
	struct lsa_frame *fr;
};

/* loops_scan.c, for loops.c: the pools' frees, a loop entry's back
 * branch run into t's tails (returns 0 or -LS_ENOMEM), and one execution
 * of path entry e charged to o (returns 0 or -LS_ENOMEM). */
void lsa_loops_acc_free(struct lsa_loops *l, uint32_t i);
/* Entry a keeps no leaf call's blocks (lsa_acc.sq) any more; the store
 * empties when no entry keeps any. */
static inline void lsa_loops_sq_drop(struct lsa_loops *l, struct lsa_acc *a)
{
	if (a->nsq) {
		a->nsq = 0;
		l->sqlive--;
	}
	if (!l->sqlive)
		l->nsq = 0;
}
void lsa_loops_inst_free(struct lsa_loops *l, uint32_t i);
int lsa_loops_charge(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
		     struct lsa_pent *e);

/* loops.c, for loops_know.c: block sb heads a loop (*loop its number)
 * and block sbid is in loop's body, in thread t from its start.  Each
 * returns 0 or -LS_ENOMEM. */
int lsa_loops_know_head(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb, uint32_t *loop);
int lsa_loops_know_body(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
			uint32_t sbid);

/* loops.c, for loops_know.c: the eager pass keeps frames lazy from the
 * n blocks id[] on (landings came back to them in the learning pass).
 * Returns 0 or -LS_ENOMEM. */
int lsa_loops_know_lands(struct lsa_loops *l, struct lsa_thr *t, const uint32_t *id,
			 size_t n);

/* loops_know.c: thread t's knowledge into l->learn (at its end), and
 * l->know's for t into t (at its start).  Each returns 0 or -LS_ENOMEM. */
int lsa_know_take(struct lsa_loops *l, const struct lsa_thr *t);
/* ... into k, a knowledge of its own (new: nothing of t's slot in it;
 * loops_follow.c's copy of what a learning pass knows so far).  Returns 0
 * or -LS_ENOMEM. */
int lsa_know_take_to(struct lsa_know *k, const struct lsa_loops *l, const struct lsa_thr *t);
/* loops_thread.c: whether l's bundle is one thread's stream, decoded
 * alone, of at least `chunks` chunks (the learning pass's halves and the
 * second pass begun beside it take such a stream).  Cannot fail. */
int lsa_loops_one_stream(const struct lsa_loops *l, size_t chunks);
/* An empty knowledge (for lsa_know_take_to()), or NULL: no memory. */
struct lsa_know *lsa_know_new(void);
/* Whether every fact k holds of thread slot `slot` that old (an earlier
 * copy of the same pass's) does not names only blocks ran(arg, id) says
 * 0 of: a pass that knew old then gave those blocks what one that knew
 * k gives them.  Returns 1, 0, or -LS_ENOMEM. */
int lsa_know_new_avoid(const struct lsa_know *k, const struct lsa_know *old, size_t slot,
		       int (*ran)(void *arg, uint32_t id), void *arg);
/* How many facts the learning pass l knows of thread t (loops, body
 * pairs, landings): sets that only grow, so the same count says nothing
 * was learned in between.  Cannot fail. */
uint64_t lsa_know_facts(const struct lsa_loops *l, const struct lsa_thr *t);
int lsa_know_give(struct lsa_loops *l, struct lsa_thr *t);
/* l->know's for thread slot `slot` into t.  Returns 0 or -LS_ENOMEM. */
int lsa_know_give_slot(struct lsa_loops *l, struct lsa_thr *t, size_t slot);
/* Whether a second pass with options o and its memos is an eager one
 * (lsa_loops_know()): no o->no_eager, no LOOPSCOPE_EAGER=0.  With two
 * jobs or more it runs in pieces (loops_piece.c), from the eager state
 * the learning pass's snapshots give (loops_epiece.c): at two jobs,
 * against the eager pass beside its decode (2026-12-05, 2 cores, 3 runs
 * in turns, wall): xz -6 3.4 to 3.7 s against 3.2 to 3.6, bzip2 -9 1.9
 * to 2.5 against 1.75, spmv 1.7 to 2.0 against 1.24; the memos' pieces,
 * which ran with three jobs or more before, cost twice its CPU.  Cannot
 * fail. */
int lsa_loops_eager_for(const struct lsa_loops_opts *o);

/* loops_thread.c, for loops.c: ends thread t (closes its frames, writes
 * its rows).  Returns 0 or -LS_ENOMEM. */
int lsa_loops_thread_end(struct lsa_loops *l, struct lsa_thr *t);

/* loops_scan.c, for loops_frames.c: the kid lists (free; move src's onto
 * *dst: returns 0 or -LS_ENOMEM), and the scan that accounts path entries
 * [lo, npath) to base and pops them (returns 0 or -LS_ENOMEM). */
void lsa_loops_kids_free(struct lsa_loops *l, uint32_t i);
int lsa_loops_kids_move(struct lsa_loops *l, uint32_t *dst, uint32_t src);
/* Adds count entries of loop with total tot to the kid list *head.
 * Returns 0 or -LS_ENOMEM. */
int lsa_loops_kid_add(struct lsa_loops *l, uint32_t *head, uint32_t loop,
		      uint64_t count, const struct lsa_cnt *tot);
/* count entries of loop closed, their total tot, go to their owner:
 * entry in of the pool (its nested totals, of its own loop too, and the
 * edge between the loops), else frame f's level (its nested totals and
 * kids).  close_inst()'s last step, and the eager pass's where it sums
 * its closes first.  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_owner_take(struct lsa_loops *l, struct lsa_thr *t,
				       struct lsa_inst *in, struct lsa_frame *f, uint32_t loop,
				       uint64_t count, const struct lsa_cnt *tot)
{
	if (in) {
		lsa_cnt_add(&in->tot, tot);
		if (in->loop == loop)
			lsa_cnt_add(&in->same, tot);
		return lsa_loops_edge_add(t, in->loop, loop, count, tot->n[0]);
	}
	lsa_cnt_add(&f->ftot, tot);
	return lsa_loops_kid_add(l, &f->kids, loop, count, tot);
}
int lsa_loops_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo,
		   struct lsa_owner base);
/* The same where the owner stack t->os[bottom ..) holds open entries
 * already (the eager pass's, below a lazy region): the scan closes those
 * its blocks leave, and all of them at its end. */
int lsa_loops_scan_b(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo,
		     struct lsa_owner base, uint32_t bottom);
/* Pops path entries [lo, npath), restoring their blocks' membership and
 * freeing what they hold, nothing charged. */
void lsa_loops_drop(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo);
/* Closes loop entry ii into its parent p (an entry, or p.fr's level).
 * Returns 0 or -LS_ENOMEM. */
int lsa_loops_close(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		    struct lsa_owner p);

/* loops_frames.c.  Each returns 0 or -LS_ENOMEM. */
/* The eager pass's hand-over of frame f, pushed from frame c below it by
 * block cblk (LSA_NONE: none): to the owner that block has (c's innermost
 * open entry, or c's level), or where c is lazy from a path entry on, as
 * the path design hands over (to the block's path entry).  Decided as the
 * frame is pushed; the frames below do not run before it ends. */
static inline void lsa_frame_hto(const struct lsa_thr *t, struct lsa_frame *f,
				 const struct lsa_frame *c, uint32_t cblk)
{
	if (c->lz != LSA_NONE) {
		f->hto = LSA_HTO_ACC;
		return;
	}
	f->hto = LSA_HTO_OWNER;
	f->cinst = t->nos > c->osb ? t->os[t->nos - 1] : LSA_NONE;
	f->cblk = cblk;
}
/* Pushes a frame returning to ret (0: any) for function func (LSA_NONE:
 * unknown yet); async: a signal handler's. */
int lsa_loops_frame_push(struct lsa_loops *l, struct lsa_thr *t, uint64_t ret,
			 uint32_t func, int async);
/* Ends the top frame: accounts its path, hands its frame level on. */
int lsa_loops_frame_pop(struct lsa_loops *l, struct lsa_thr *t);
/* Closes every frame and opens a fresh outermost one. */
int lsa_loops_flush_all(struct lsa_loops *l, struct lsa_thr *t);
/* Opens an inclusive span of function f (LSA_NONE: nothing). */
int lsa_loops_span_open(struct lsa_thr *t, uint32_t f);
/* Control left the previous block with exit x and reached sb. */
int lsa_loops_transfer(struct lsa_loops *l, struct lsa_thr *t, int x,
		       const struct lsd_sblock *sb);

/* loops_scan.c, for loops_cmemo.c. */
int lsa_loops_acc_new(struct lsa_loops *l, uint32_t *out);
#include "analysis/loops_memo_ops.h"

/* What the calls made by a block (or a handler that interrupted it)
 * contributed, given to the block's owner o: the callees' instructions
 * outside their loops (cself), their top-level loops' totals (ctot) and
 * entries (the kid list kids: edges from o's loop, or moved to o's frame
 * level); where o is an entry and called, the call of block cblk to
 * callee in the calls map (not by a joiner of pieces: the worker counted
 * it).  The path design's charge of a path entry (loops_scan.c) and the
 * eager pass's hand-over at a return both give so.  Returns 0 or
 * -LS_ENOMEM. */
static inline int lsa_loops_give(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
				 const struct lsa_cnt *cself, const struct lsa_cnt *ctot,
				 uint32_t kids, int called, uint32_t callee, uint32_t cblk)
{
	struct lsa_inst *in;
	uint32_t loop, i;
	int err = 0;

	if (o.inst == LSA_NONE) {
		lsa_cnt_add(&o.fr->fself, cself);
		if (ctot->n[0])
			lsa_cnt_add(&o.fr->ftot, ctot);
		return lsa_loops_kids_move(l, &o.fr->kids, kids);
	}
	in = &l->inst[o.inst];
	loop = in->loop;
	lsa_cnt_add(&in->self, cself);
	if (ctot->n[0])	/* (none: the callees ran no loop) */
		lsa_cnt_add(&in->tot, ctot);
	if (called && !l->pre)
		err = lsa_loops_calls_add(t, (uint64_t)loop << 32 | callee, cblk, 1);
	for (i = kids; !err && i != LSA_NONE; i = l->kid[i].next) {
		if (l->kid[i].loop == loop)
			lsa_cnt_add(&in->same, &l->kid[i].tot);
		err = lsa_loops_edge_add(t, loop, l->kid[i].loop, l->kid[i].count,
					 l->kid[i].tot.n[0]);
	}
	lsa_loops_kids_free(l, kids);
	return err;
}

/* What every block of a pass that counts does before its path: control
 * moved from the previous block into sb, of function f (frames pushed or
 * popped), the top frame's function known, a call being recorded told,
 * the thread's and f's instructions counted.  always_inline: both block
 * paths (block_go(), the eager pass's one()) run it for every block they
 * take.  Returns 0 or -LS_ENOMEM. */
static inline __attribute__((always_inline)) int
lsa_loops_enter(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *sb, uint32_t f)
{
	int err;

	if (lsa_loops_moves(t, f) && (err = lsa_loops_transfer(l, t, t->pexit, sb)))
		return err;
	if (t->fr[t->nfr - 1].cur == LSA_NONE && (err = lsa_loops_cur_set(l, t, f)))
		return err;
	if (t->cm.nrec)
		lsa_cm_block(t, sb, t->pexit);
	t->insns += sb->ninsn;
	if (f != LSA_NONE) {
		struct lsa_frow *r = lsa_loops_frow(t, f);

		if (!r)
			return -LS_ENOMEM;
		r->self += sb->ninsn;
	}
	return 0;
}

/* loops_out.c: symbol information for (module m, off), with its source
 * line where lines is set; zeroed (but the address) where unknown. */
void lsa_loops_sym_lookup(struct lsa_loops *l, int32_t m, uint64_t off, int lines,
			  struct lsd_symbol_info *info);
/* loops_out.c: writes a finished thread's rows into the profile. */
int lsa_loops_flush_thread(struct lsa_loops *l, struct lsa_thr *t);
void lsa_thr_release(struct lsa_thr *t);

#include "analysis/loops_piece.h"

#endif
