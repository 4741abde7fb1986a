/* loops_int.h - internals of the loop detector (analysis/loops*.c). */
#ifndef LSA_LOOPS_INT_H
#define LSA_LOOPS_INT_H

#include <pthread.h>

#include "analysis/kmap.h"
#include "analysis/loops.h"

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
	int async;		/* a signal handler's frame */
	struct lsa_cnt fself, ftot;	/* frame level: outside the frame's loops */
};

/* Trip counts below this are binned in the loop's row (lsa_lrow.tsm),
 * not in the thread's trips map: most entries make few trips. */
#define LSA_TSMALL 16

struct lsa_lrow {
	uint64_t entries, iterations, tmin, tmax, over_e, over_s;
	struct lsa_cnt self, total;
	/* What goes into the thread's maps at its end (lsa_loops_maps_put)
	 * kept here while it comes: the trip-count bins below LSA_TSMALL,
	 * the run of the back branch met last (block id + 1, 0: none), and
	 * the loop call graph edge into this loop met last (its parent
	 * key, as t->edges has it, and t->erows index + 1, 0: none). */
	uint64_t tsm[LSA_TSMALL];
	uint64_t crun;
	uint32_t ctail;
	uint32_t epar, erow;
};

struct lsa_frow {
	uint64_t self, total, calls;
	uint32_t active;
};

struct lsa_erow {
	uint64_t count, total;
};

/* The iteration memo (loops_memo.c).  Where an innermost loop's
 * iterations run blocks of the frame's function, with no nested loop that
 * iterates (heads of other loops run once are allowed: entries of trip
 * count 1) and calls only to leaves (a function's blocks with no loop and
 * no call, returning where called), each iteration's effect on the detector's
 * state is a function of its block sequence, the loops known and their
 * bodies.  The sequences met are kept per loop head in a trie, each node
 * with what the scan did with its block; later iterations are matched
 * against it, a compare and a count per block, instead of being pushed,
 * scanned and charged block by block.  What the counted passes owe is
 * applied when matching stops (at the first block the trie does not
 * have, at a thread switch, at the thread's end); the state is then the
 * one the per-block path reaches, and so is the profile. */
/* How a trie node's block is entered: a block of the loop's frame after
 * one of its blocks, a leaf call's first block (by a call), its other
 * blocks, a block of the frame after the leaf returned. */
enum { MK_FRAME, MK_CALLEE, MK_LEAF, MK_RETURN };
#define LSA_MEMO_MAX 256	/* blocks of an iteration, at most */
_Static_assert(LSA_MEMO_MAX + 2 < 65535, "a node's pdepth fits 16 bits");

/* Whether a node of this kind is a leaf call's block (the callee's
 * frame), not one of the loop's frame. */
static inline int lsa_mk_in_leaf(int kind)
{
	return kind == MK_CALLEE || kind == MK_LEAF;
}

struct lsa_mnode {
	const struct lsd_sblock *sb;
	uint64_t count;		/* passes matched, not yet applied */
	uint32_t child, sib;	/* first child; next sibling (LSA_NONE) */
	uint32_t parent;	/* LSA_NONE at a root */
	uint32_t chain;		/* memo.chain index: the entries of trip
				 * count 1 open when the block is charged,
				 * outermost first (0: none) */
	uint32_t own;		/* loop + 1 its block is charged to */
	uint32_t opens;		/* loop + 1 whose entry of trip count 1 it
				 * opens (0: none) */
	uint32_t pown;		/* ... and counted once under (loop + 1, 0:
				 * the frame, as a leaf's blocks are) */
	uint32_t fn;		/* a leaf's block: the function called */
	uint16_t pdepth;	/* path entries (frames' too) above the root */
	uint16_t vmask;		/* the exits it may be entered by */
	uint8_t kind;		/* MK_* */
	uint8_t chk;		/* a block of the frame: not on its path */
	uint8_t term;		/* sb is the root's head: an iteration ends */
	uint8_t pre;		/* its run counts once for pown */
	uint8_t more;		/* ... in pre_more, not pre */
	uint8_t dep;		/* (a root) some node heads a loop: valid
				 * while those loops' bodies are as at ver */
	/* passes are counted: a stop applies more than the term's sum
	 * (a term, a leaf's block, a chain, an entry opened, run-once
	 * counts); the others' passes are in their terms' sums alone */
	uint8_t cnt;
	union {
		uint32_t deps;	/* (a root) memo.chain index: those loops */
		uint32_t sum;	/* (a term) memo.sum index + 1 (0: none yet) */
	};
	uint64_t ver;		/* (a root) the sum of their nbody then */
};

/* What one pass from a trie's root to a term node adds that is a plain
 * sum over its nodes: a stop adds it once per iteration ended there, not
 * once per node (each node's count is the sum of its terms' counts). */
struct lsa_msum {
	struct lsa_cnt self;	/* blocks charged to the iteration's entry */
	uint64_t insns;		/* all blocks' instructions */
	uint64_t fself;		/* the frame's own blocks' (not a leaf's) */
	uint64_t blocks;
	uint32_t mdepth;	/* the deepest node's pdepth (not the term's) */
};

struct lsa_memo {
	struct lsa_mnode *node;
	uint32_t nnode, capnode;
	uint32_t *dirty;	/* nodes whose count is not 0 */
	uint32_t ndirty;
	uint32_t *chain;	/* chains: a length, then loops */
	uint32_t nchain, capchain;
	struct lsa_msum *sum;	/* the term nodes' (lsa_mnode.sum) */
	uint32_t nsum, capsum;
	uint32_t *rootof;	/* head block id -> root node + 1 (0: none) */
	size_t nrootof;
	uint8_t *intrie;	/* by static block id: a node's block */
	size_t nintrie;
	int stale;		/* a node's block heads a loop now: the tries
				 * are dropped */
	uint32_t root, at;	/* the trie matched, the node reached */
	uint32_t inst;		/* the open loop entry the iterations are of */
	uint32_t own;		/* its loop + 1 */
	uint32_t cur;		/* the function the frame runs */
	uint32_t ti;		/* the head's path entry */
	int on;
	int enter;		/* the entry's first iteration ended: make it */
	int replay;		/* blocks going through the per-block path */
	/* the stop's replay ended by pushing a loop head: where block_go()
	 * would have begun matching, had it taken the blocks */
	int rehead;
	uint64_t again;		/* blocks taken as repeats (lsa_memo_repeat) */
};

/* The call memo (loops_cmemo.c).  A call whose frames enter no loop
 * (none of its blocks heads one, no block recurs on a frame's path), with
 * every frame it pushes ending in a return to where it was called from,
 * changes the detector's state by what its block sequence alone decides:
 * the instructions and class counts the calling entry receives, each
 * function's self instructions and calls, the spans of functions it
 * opens and closes (counted only where no outer frame runs the function:
 * decided when applied), each block's run at frame level (lsa_thr.pre),
 * and the leaf blocks the iteration memo may use.  Such calls, recorded
 * as the per-block path runs them, are kept in a trie per callee entry;
 * later calls matching a recorded sequence are applied whole when their
 * return is seen, instead of being pushed, scanned and charged block by
 * block.  A call that leaves the trie goes through the per-block path
 * from its first block. */
#define LSA_CM_MAX 128		/* blocks of a call, at most */
#define LSA_CM_REC 2		/* calls recorded at once (nested) */
#define LSA_CM_EV 48		/* function events of one recorded call */
#define LSA_CM_NODES (1u << 16)	/* trie nodes of a thread, at most */
#define LSA_CM_BAD 8
/* t->pexit after a call the memo applied: transfer() does nothing */
#define LSA_EXIT_APPLIED LSD_EXIT_MAX
#define LSA_CM_RETRY 64

enum { CE_CALLS, CE_OPEN, CE_CLOSE };

struct lsa_cev {
	uint32_t fn;
	uint32_t kind;		/* CE_* */
	uint64_t len;		/* CE_CLOSE: instructions the span held */
};

/* A call being recorded. */
struct lsa_crec {
	uint32_t fr;		/* the callee's frame */
	uint32_t n, nev;
	int dead;		/* not a call the memo can take */
	uint32_t npath0, nfr0;	/* the path and the frames before the call */
	uint32_t relpath, relfr;	/* their highest since, over those */
	uint32_t leaf;		/* blocks leaf_call() gave at its end */
	const struct lsd_sblock *sb[LSA_CM_MAX];
	uint8_t x[LSA_CM_MAX];	/* the exit into each block */
	struct lsa_cev ev[LSA_CM_EV];
};

struct lsa_cnode {
	const struct lsd_sblock *sb;
	uint32_t child, sib, parent;
	uint32_t eff;		/* effect + 1 where a call ends at this block */
	uint8_t x;		/* the exit into it */
};

/* What one recorded call does (see above). */
struct lsa_ceff {
	struct lsa_cnt cself;	/* its blocks' counts */
	uint32_t nblocks, relpath, relfr, leaf;
	uint32_t fx, nfx;	/* lsa_cmemo.fx[fx ..): per function */
	uint32_t sp, nsp;	/* lsa_cmemo.sp[sp ..): spans */
	uint32_t callee;	/* the function called */
};

struct lsa_cfx {
	uint32_t fn, calls;
	uint64_t self;
};

/* A span of fn no other span of fn opened in the call encloses. */
struct lsa_csp {
	uint32_t fn;
	uint64_t len;
};

struct lsa_cmemo {
	struct lsa_cnode *node;
	uint32_t nnode, capnode;
	struct lsa_ceff *eff;
	uint32_t neff, capeff;
	struct lsa_cfx *fx;
	uint32_t nfx, capfx;
	struct lsa_csp *sp;
	uint32_t nsp, capsp;
	uint32_t *root;		/* by callee entry block id: root node + 1 */
	uint8_t *intrie;	/* by block id: some node's block */
	/* by callee entry block id: its calls the memo could not take
	 * lately (recordings dropped, matches left); from LSA_CM_BAD on,
	 * only one call in LSA_CM_RETRY is tried */
	uint8_t *bad;
	uint32_t tries;
	size_t nroot;		/* entries of root, intrie and bad */
	int stale;		/* a node's block heads a loop now */
	struct lsa_crec rec[LSA_CM_REC];
	uint32_t nrec;
	/* matching */
	int on;
	uint32_t at;
	uint8_t px;		/* exit of the last block matched */
	uint32_t leaf;		/* leaf_call()'s count at the last frame_pop() */
	uint64_t ret;		/* where the call returns */
	struct lsd_block buf[LSA_CM_MAX];	/* the blocks matched */
	uint32_t nbuf;
};

/* The learning pass's memo (loops_fmemo.c).  A learning pass keeps
 * only what the blocks teach (which blocks head loops, which run in
 * their iterations), and all of it comes from the structure alone:
 * frames, paths and loop backs, which the block sequence decides.  An
 * iteration of any loop (nested loops and calls in it too) that ran
 * from its head back to it without anything that consults the frames
 * below (an unwind, a longjmp, a signal, a hole: lsa_fm_dirty) teaches
 * whatever it teaches the first time; run again, block for block, it
 * teaches nothing and leaves the state as it found it.  So the
 * iterations the per-block path ran are kept in a trie per head (from
 * the log of the blocks taken), and later iterations are matched
 * against it, a compare per block, and dropped when they end at the
 * head.  The same holds of a nested loop's iterations inside them: the
 * log keeps an iteration with those collapsed into their head's entry
 * (its loop backs counted), and matching takes them on the nested
 * head's own trie, a level of its own.  Blocks matched of an iteration
 * that leaves the trie go through the per-block path after all, as the
 * log keeps them. */
#define LSA_FM_MAX 1024		/* blocks of an iteration, at most */
#define LSA_FM_LEVELS 6		/* tries matched nested, at most */
/* blocks the log keeps (a power of 2): those of every level's
 * unfinished iteration and of the head before them */
#define LSA_FM_LOG 8192
_Static_assert(LSA_FM_LOG > (LSA_FM_LEVELS + 1) * LSA_FM_MAX, "the log keeps every level");
#define LSA_FM_NODES (1u << 18)	/* trie nodes of a thread, at most */
/* lsa_fmemo.start: the iteration may not be kept (nor collapsed) */
#define LSA_FM_NOK (1ull << 63)

struct lsa_fnode {
	const struct lsd_sblock *sb;
	uint32_t child, sib, parent;	/* LSA_NONE: none (parent: at a root) */
	uint32_t id;		/* sb->id */
	uint16_t xx;		/* the exit into the block << 8 | its exit */
	uint8_t term;		/* sb heads the trie: an iteration ends */
	uint8_t flags;		/* LSA_FN_* */
	/* (a root) lsa_fmemo.tops index of the blocks of the head's frame
	 * the trie holds (LSA_NONE: too many to list); (any other) the
	 * depth of its block's frame, the head's 0 */
	uint32_t aux;
};

/* lsa_fnode.flags: a block of the head's frame (not a callee's); one
 * the per-block path would only push, as every block before it in the
 * iteration (all of the head's frame and function, entered by exits that
 * leave no frame, none twice); a block some of whose own loop's
 * iterations were collapsed after it (matching tries its trie there); a
 * block whose call was collapsed after it, or (a term) one that calls
 * (matching tries its calls' trie there). */
#define LSA_FN_TOP 1
#define LSA_FN_PUSH 2
#define LSA_FN_COLL 4
#define LSA_FN_CALL 8

/* By static block id: a head's trie, its root, what it grew and what it
 * took; the same of the trie of the calls the block makes; and the
 * block's marks while a sequence goes into a trie and while matching
 * checks a nested trie's blocks. */
struct lsa_fhead {
	uint32_t root;		/* root node + 1 (0: none) */
	uint32_t nodes;		/* nodes made since the tries were dropped */
	uint64_t taken;		/* ... and blocks matched whole */
	uint32_t croot, cnodes;	/* (the calls' trie) */
	uint64_t ctaken;
	uint8_t bad, cbad;	/* matching that left the trie in a row */
	uint32_t seen;		/* lsa_fmemo.epoch when met last */
	uint32_t sh;		/* lsa_fmemo.stamp: on a frame's path */
};

/* A block taken, in the log: its exit, the exit of its last run (the
 * one the next block follows) and what was collapsed after it
 * (LSA_FL_*): iterations of the loop it heads (as many as lsa_fmemo.lbv
 * says at its slot), or a whole call it made (to the block
 * lsa_fmemo.cev has there), which left the state as they found it.
 * (The walk writes the block and its exit alone: one store each.) */
struct lsa_flog {
	const struct lsd_sblock *sb;
	union {
		struct {
			uint8_t exit, fl;
		};
		uint16_t w;	/* (a block logged: its exit, LSA_FL_ none) */
	};
	uint8_t cx;		/* (LSA_FL_CX; else exit) */
};
#define LSA_FL_LB 1
#define LSA_FL_CALL 2
#define LSA_FL_CX 4

/* A level of matching: the trie (a head's iterations, or the calls a
 * block makes), the node reached, where the level's unfinished
 * iteration or call began in the log (after the block it follows), the
 * iterations and blocks it took. */
enum { LSA_LV_ITER, LSA_LV_CALL };
struct lsa_flv {
	uint32_t rt, at;
	uint64_t s;
	uint64_t iters, nb;
	int kind;		/* LSA_LV_* */
	uint32_t id;		/* its own among the levels of the thread */
};

struct lsa_fmemo {
	struct lsa_fnode *node;
	uint32_t nnode, capnode;
	/* by node: where its block's loop's trie was found clear of the
	 * path below it (fm_shadowed), the trie's listed blocks + 1, and
	 * the id of the node's level << 6 where that path went below the
	 * level (0: not found) */
	uint32_t *shv;
	struct lsa_fhead *head;	/* by head block id */
	size_t nhead;
	uint32_t *tops;		/* lists: a length, then block ids */
	uint32_t ntops, captops;
	struct lsa_flog *log;	/* block at position p: log[p % LSA_FM_LOG] */
	uint64_t *lbv;		/* by log slot: iterations collapsed (LSA_FL_LB) */
	const struct lsd_sblock **cev;	/* ... a call's first block (LSA_FL_CALL) */
	uint64_t *anx;		/* ... where an asynchronous exit resumed (the
				 * last run's exit LSD_EXIT_ASYNC) */
	uint64_t pos;		/* the log's end (back to an entry's first
				 * iteration at each loop back to it) */
	uint64_t dirty;		/* no iteration begun before this position is kept */
	/* by path entry: where its iteration began (| LSA_FM_NOK) */
	uint64_t *start;
	uint32_t capstart;
	uint32_t tries;		/* match attempts refused (bad heads retry) */
	uint32_t epoch;		/* sequences gone into tries */
	uint32_t stamp;		/* checks of a nested trie's blocks */
	uint32_t lvid;		/* levels begun (below 2^26) */
	/* matching */
	int on;
	int cfin;		/* a call's own matching ended at its return */
	struct lsa_flv lv[LSA_FM_LEVELS];
	uint32_t top;		/* the level matching */
	uint32_t ti;		/* the head's path entry */
	uint32_t base;		/* its frame's first path entry */
	uint8_t px;		/* exit of the last block taken */
	int wide;		/* check the head's frame's blocks one by one */
	/* log[rq .. rhi): blocks a level left part-way, for the one below */
	uint64_t rq, rhi;
	uint64_t tb;		/* blocks taken since the last iteration ended */
	/* A call matched whole and dropped from the log at its return, no
	 * block taken since: its frame pops only as the next one comes (a
	 * stop puts the call back, log[cs .. ce) after its calling block,
	 * whose flags and exit were cfl and cx).  ce 0: none. */
	uint64_t cs, ce;
	uint8_t cfl, ccx;
	/* the block that comes next, where known (a level whose trie does
	 * not begin with it is not tried): NULL where not */
	const struct lsd_block *nx;
	uint64_t done;		/* iterations matched since matching began */
	uint64_t taken, iters;	/* blocks and iterations matched whole */
	uint64_t again;		/* ... of those, taken as repeats (lsa_memo_repeat) */
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
	size_t nk;		/* entries of head and inb */
	/* (loop, block id): the block was in an iteration, in some thread
	 * (the loops' line ranges) */
	struct lsa_kmap body;
	uint64_t *nbody;	/* by loop: blocks known in its body */
	uint32_t nnbody;
	/* A piece worker's thread (loops_piece.c), NULL elsewhere. */
	struct lsa_psn *sn;
	/* a learning pass keeping snapshots: blocks so far, the next cut */
	uint64_t nblk, ncut;
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
	const struct lsd_sblock *sb;	/* a block of it (the first looked up) */
};

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
	/* A second pass whose blocks the learning pass took nearly all as
	 * repeats (lsa_memo_repeat): they cost it less than handing them to
	 * other threads does, so it runs them on the decoding thread. */
	int here;
	uint64_t nin;		/* blocks handed to it (lsa_loops_blocks) */
};

/* Whether a run of loop's head under owner (loop + 1, 0: frame level)
 * was an entry of loop: not when the owner's head is in loop's body. */
int lsa_loops_entry_ok(const struct lsa_loops *l, const struct lsa_thr *t,
		       uint32_t loop, uint32_t owner);

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
/* lsa_loops_lrow() where the rows must grow. */
struct lsa_lrow *lsa_loops_lrow_grow(struct lsa_thr *t, uint32_t loop);
/* Thread t's row of loop, grown when new; NULL: out of memory. */
static inline struct lsa_lrow *lsa_loops_lrow(struct lsa_thr *t, uint32_t loop)
{
	return loop < t->nlr ? &t->lr[loop] : lsa_loops_lrow_grow(t, loop);
}
/* lsa_loops_edge_add() of an edge other than child's last. */
int lsa_loops_edge_add_slow(struct lsa_thr *t, uint32_t parent, uint32_t child,
			    uint64_t count, uint64_t total);
/* Adds count entries of child under parent (LSA_NONE: none) with total
 * instructions to t's loop call graph.  Inline: a loop is mostly entered
 * from one parent, whose edge its row keeps.  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_edge_add(struct lsa_thr *t, uint32_t parent, uint32_t child,
				     uint64_t count, uint64_t total)
{
	/* (parents are loops: fewer than LSA_NONE of them) */
	uint32_t a = parent == LSA_NONE ? 0 : parent + 1;
	struct lsa_lrow *r = child < t->nlr ? &t->lr[child] : NULL;

	if (!r || !r->erow || r->epar != a)
		return lsa_loops_edge_add_slow(t, parent, child, count, total);
	t->erows[r->erow - 1].count += count;
	t->erows[r->erow - 1].total += total;
	return 0;
}
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
}

/* lsa_loops_in_body() for the scan (sbid < t->nk), noting a hit in the
 * cache. */
static inline int lsa_loops_in_body_note(struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	if (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)
		return 1;
	/* (most answers at a loop's exit are no: the scan asks the open
	 * entries about the block after it, innermost first) */
	if (t->notb[sbid] == loop + 1)
		return 0;
	if (!lsa_kmap_find(&t->body, loop, sbid)) {
		t->notb[sbid] = loop + 1;
		return 0;
	}
	lsa_loops_inb_note(t, loop, sbid);
	return 1;
}

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

/* loops_memo.c.  Whether the iteration on path[ti ..) may be memoized. */
int lsa_memo_fits(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti);
/* Adds the iteration on path[ti ..) to its head's trie, before the scan
 * pops it; *leaf gets its last node.  Returns 0 or -LS_ENOMEM. */
int lsa_memo_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		 uint32_t *leaf);
/* Starts matching after the per-block path charged the iteration added
 * (ending at leaf) to loop entry ii. */
void lsa_memo_start(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		    uint32_t leaf);
/* The head of a loop was pushed (a new entry): matching starts if its
 * trie is there. */
void lsa_memo_head(struct lsa_loops *l, struct lsa_thr *t);
/* Makes the loop entry whose first iteration the memo matched
 * (memo.enter).  Returns 0 or -LS_ENOMEM. */
int lsa_memo_enter(struct lsa_loops *l, struct lsa_thr *t);
/* An iteration of blocks b[ls .. i] (b[i] its head's block again) that
 * the blocks after it repeat: how many of b[i + 1 .. n) make whole
 * iterations alike, block for block and exit for exit, entered as it was
 * (b[ls - 1] and b[i] the same block, left by the same exit).  A memo's
 * trie takes them by the same nodes (both memos count them whole: a
 * tight loop's iterations cost a compare a block).  Inline: both memos
 * ask at every iteration's end, and most often the answer is no at the
 * first block. */
static inline size_t lsa_memo_repeat(const struct lsd_block *b, size_t ls, size_t i,
				     size_t n)
{
	size_t len = i + 1 - ls, j = i + 1;

	/* (the iteration's first block entered as its next one would be:
	 * after the head's block, left by the same exit) */
	if (!ls || j == n || b[j].sb != b[ls].sb || b[ls - 1].sb != b[i].sb ||
	    b[ls - 1].exit != b[i].exit)
		return 0;
	while (j < n && b[j].sb == b[j - len].sb && b[j].exit == b[j - len].exit)
		j++;
	return (j - i - 1) / len * len;
}
/* Matches blocks b[i .. n) against the trie; returns the index of the
 * first block it did not take, or of the block after the first
 * iteration of an entry matching began at (memo.enter set). */
size_t lsa_memo_run(struct lsa_thr *t, const struct lsd_block *b, size_t i,
		    size_t n);
/* Loop head sbid was found: tries holding it go stale. */
void lsa_memo_new_head(struct lsa_memo *m, uint32_t sbid);
/* loops_mstop.c.  Stops matching, applying what the matched blocks owe.
 * Returns 0 or -LS_ENOMEM. */
int lsa_loops_memo_stop(struct lsa_loops *l, struct lsa_thr *t);
void lsa_memo_release(struct lsa_memo *m);
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

static inline void lsa_cnt_add(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		a->n[k] += b->n[k];
}

static inline void lsa_cnt_sub(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	for (k = 0; k < LSA_NC; k++)
		a->n[k] -= b->n[k];
}

/* Grows t's function rows to hold func; NULL: out of memory. */
struct lsa_frow *lsa_loops_frow_grow(struct lsa_thr *t, uint32_t func);

/* Thread t's row of function func, grown when new; NULL: out of memory.
 * Inline: a block of a named function takes one per block. */
static inline struct lsa_frow *lsa_loops_frow(struct lsa_thr *t, uint32_t func)
{
	return func < t->nfw ? &t->fw[func] : lsa_loops_frow_grow(t, func);
}

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
int lsa_loops_tail_flush(struct lsa_thr *t, struct lsa_inst *in);
/* Adds k entries of trip count trips (below the trip limit) of loop to
 * t's histogram.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_trip_add(struct lsa_thr *t, uint32_t loop, uint64_t trips, uint64_t k);
/* Adds k iterations of loop whose back branch was block tail.  Returns 0
 * or -LS_ENOMEM. */
int lsa_loops_tail_add(struct lsa_thr *t, uint32_t loop, uint32_t tail, uint64_t k);
/* Moves what the loop rows hold for the trips and tails maps into them
 * (before they are read).  Returns 0 or -LS_ENOMEM. */
int lsa_loops_maps_put(struct lsa_thr *t);
int lsa_loops_charge(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
		     struct lsa_pent *e);

/* loops.c, for loops_know.c: block sb heads a loop (*loop its number)
 * and block sbid is in loop's body, in thread t from its start.  Each
 * returns 0 or -LS_ENOMEM. */
int lsa_loops_know_head(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb, uint32_t *loop);
int lsa_loops_know_body(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
			uint32_t sbid);

/* loops_know.c: thread t's knowledge into l->learn (at its end), and
 * l->know's for t into t (at its start).  Each returns 0 or -LS_ENOMEM. */
int lsa_know_take(struct lsa_loops *l, const struct lsa_thr *t);
int lsa_know_give(struct lsa_loops *l, struct lsa_thr *t);
/* l->know's for thread slot `slot` into t.  Returns 0 or -LS_ENOMEM. */
int lsa_know_give_slot(struct lsa_loops *l, struct lsa_thr *t, size_t slot);

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
int lsa_loops_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo,
		   struct lsa_owner base);

/* loops_frames.c.  Each returns 0 or -LS_ENOMEM. */
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
/* lsa_loops_pre_add() where the fast case does not hold (the table
 * grows, or the count goes to pre_more). */
int lsa_loops_pre_add_slow(struct lsa_loops *l, struct lsa_thr *t, uint32_t id,
			   uint32_t own, uint64_t k);
/* lsa_loops_more_add() where its slot of t->pmc holds another key. */
int lsa_loops_more_add_slow(struct lsa_thr *t, uint32_t id, uint32_t own, uint64_t k);
#define LSA_PMC_LOG 10
static inline size_t lsa_loops_pmc_slot(uint32_t id, uint32_t own)
{
	return (uint32_t)((id * 0x9e3779b1u) ^ (own * 0x85ebca6bu)) >> (32 - LSA_PMC_LOG);
}
/* Adds k to pre_more's (id, own) (through t->pmc).  Returns 0 or
 * -LS_ENOMEM. */
static inline int lsa_loops_more_add(struct lsa_thr *t, uint32_t id, uint32_t own,
				     uint64_t k)
{
	struct lsa_pmc *c = t->pmc ? &t->pmc[lsa_loops_pmc_slot(id, own)] : NULL;

	if (k && c && c->k && c->id == id && c->own == own) {
		c->k += k;
		return 0;
	}
	return lsa_loops_more_add_slow(t, id, own, k);
}
/* Moves what t->pmc holds into pre_more.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_more_put(struct lsa_thr *t);
/* Whether run-once counts (lsa_thr.pre) are kept: a single pass's.  A
 * learning pass writes no rows, and in a pass that knows, a block that
 * heads a loop is known as one before it runs: its runs are entries. */
static inline int lsa_loops_pre_on(const struct lsa_loops *l)
{
	return !l->learn && !l->know;
}

/* Counts k runs of block id, no loop head yet, under owner own (loop + 1,
 * 0: frame level): if it heads a loop later, they were entries of trip
 * count 1 (see lsa_loops_flush_thread).  Its first owner's count is in
 * pre/preo, the others' (and past 32 bits) in pre_more.  Inline: the
 * scan does this for most entries, the call memo for every block of a
 * call it applies.  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_pre_add(struct lsa_loops *l, struct lsa_thr *t,
				    uint32_t id, uint32_t own, uint64_t k)
{
	if (!lsa_loops_pre_on(l))
		return 0;
	if (id >= t->npre)
		return lsa_loops_pre_add_slow(l, t, id, own, k);
	if ((!t->pre[id] || t->preo[id] == own) && k <= UINT32_MAX - t->pre[id]) {
		t->pre[id] += (uint32_t)k;
		t->preo[id] = own;
		return 0;
	}
	return lsa_loops_more_add(t, id, own, k);
}

/* loops_cmemo.c.  Recording: a call into sb is made, before its frame
 * is pushed; a block goes on (after its transfer(); x the exit into it);
 * a function event; frame `popped` returned as called (after its pop,
 * which left leaf_call()'s count in cm.leaf); anything the memo cannot
 * take (a loop, a signal, an unwind, a hole, a thread switch).
 * lsa_cm_return returns 0 or -LS_ENOMEM. */
void lsa_cm_call(struct lsa_thr *t, const struct lsd_sblock *sb);
void lsa_cm_block(struct lsa_thr *t,
		  const struct lsd_sblock *sb, uint8_t x);
void lsa_cm_event(struct lsa_thr *t, uint32_t kind, uint32_t fn, uint64_t len);
int lsa_cm_return(struct lsa_loops *l, struct lsa_thr *t, uint32_t popped);
void lsa_cm_abort(struct lsa_thr *t);
/* The block after a call, b, starts matching (cm.on) if a recorded call
 * begins with it. */
int lsa_cm_begin(struct lsa_thr *t, const struct lsd_block *b);
/* Matches b[i .. n); returns the index of the first block not taken
 * (a call ended: applied; or left the trie: its blocks went through the
 * per-block path).  *err: 0 or -LS_ENOMEM. */
size_t lsa_cm_run(struct lsa_loops *l, struct lsa_thr *t,
		  const struct lsd_block *b, size_t i, size_t n, int *err);
/* Stops matching: the blocks taken go through the per-block path.
 * Returns 0 or -LS_ENOMEM. */
int lsa_cm_stop(struct lsa_loops *l, struct lsa_thr *t);
/* Block sbid heads a loop now: tries holding it go stale. */
void lsa_cm_new_head(struct lsa_cmemo *m, uint32_t sbid);
void lsa_cm_release(struct lsa_cmemo *m);

/* loops_fmemo.c: the learning pass's memo (struct lsa_fmemo). */
/* Block b was taken: into the log. */
static inline void lsa_fm_put(struct lsa_fmemo *m, const struct lsd_block *b)
{
	struct lsa_flog *g = &m->log[m->pos++ & (LSA_FM_LOG - 1)];

	g->sb = b->sb;
	g->w = b->exit;
	if (__builtin_expect(b->exit == LSD_EXIT_ASYNC, 0))
		m->anx[(m->pos - 1) & (LSA_FM_LOG - 1)] = b->next;
}
/* The exit of the last run of an entry's block (the one the next block
 * follows), and its setting. */
static inline uint8_t lsa_fm_cx(const struct lsa_flog *g)
{
	return g->fl & LSA_FL_CX ? g->cx : g->exit;
}
static inline void lsa_fm_setcx(struct lsa_flog *g, uint8_t x)
{
	g->cx = x;
	g->fl |= LSA_FL_CX;
}
/* The log's entry at position p, and its side tables' slot. */
static inline struct lsa_flog *lsa_fm_at(struct lsa_fmemo *m, uint64_t p)
{
	return &m->log[p & (LSA_FM_LOG - 1)];
}
/* Where the entry at p resumed, its last run left by an asynchronous
 * exit (the transfer that follows reads it: lsa_loops_transfer()); 0
 * for any other exit. */
static inline uint64_t lsa_fm_next(const struct lsa_fmemo *m, uint64_t p)
{
	const struct lsa_flog *g = &m->log[p & (LSA_FM_LOG - 1)];

	return lsa_fm_cx(g) == LSD_EXIT_ASYNC ? m->anx[p & (LSA_FM_LOG - 1)] : 0;
}
/* k more iterations of the loop whose head's block is at p collapsed
 * after it, the last run of the head's block (just looped back to) left
 * by exit x to next.  (Only an iteration's last block may leave by an
 * asynchronous exit: the transfer after one marks the log dirty, so no
 * trie has one elsewhere, and its resume must be kept with the entry.) */
static inline void lsa_fm_lb(struct lsa_fmemo *m, uint64_t p, uint8_t x, uint64_t k,
			     uint64_t next)
{
	struct lsa_flog *h = lsa_fm_at(m, p);

	if (x == LSD_EXIT_ASYNC)
		m->anx[p & (LSA_FM_LOG - 1)] = next;

	if (!(h->fl & LSA_FL_LB)) {
		h->fl |= LSA_FL_LB;
		m->lbv[p & (LSA_FM_LOG - 1)] = 0;
	}
	m->lbv[p & (LSA_FM_LOG - 1)] += k;
	h->fl &= (uint8_t)~LSA_FL_CALL;	/* (the new run's call is to come) */
	lsa_fm_setcx(h, x);
}
/* A whole call the block at p made (its first block e) collapsed after
 * it, its return left by exit x (what the next block follows). */
static inline void lsa_fm_called(struct lsa_fmemo *m, uint64_t p,
				 const struct lsd_sblock *e, uint8_t x)
{
	struct lsa_flog *h = lsa_fm_at(m, p);

	h->fl |= LSA_FL_CALL;
	m->cev[p & (LSA_FM_LOG - 1)] = e;
	lsa_fm_setcx(h, x);
}
/* Copies the log's entry at position src to dst, side tables too. */
static inline void lsa_fm_copy(struct lsa_fmemo *m, uint64_t dst, uint64_t src)
{
	size_t d = dst & (LSA_FM_LOG - 1), s = src & (LSA_FM_LOG - 1);

	m->log[d] = m->log[s];
	if (m->log[s].fl & LSA_FL_LB)
		m->lbv[d] = m->lbv[s];
	if (m->log[s].fl & LSA_FL_CALL)
		m->cev[d] = m->cev[s];
	if (lsa_fm_cx(&m->log[s]) == LSD_EXIT_ASYNC)
		m->anx[d] = m->anx[s];
}
/* The depth of trie node c's frame (the head's, a root's: 0). */
static inline uint32_t lsa_fm_depth(const struct lsa_fnode *nd, uint32_t c)
{
	return nd[c].parent == LSA_NONE ? 0 : nd[c].aux;
}
/* Something no iteration may span happened at the block just taken (its
 * outcome depends on the frames below the loop's). */
static inline void lsa_fm_dirty(struct lsa_thr *t)
{
	t->fm.dirty = t->fm.pos;
}
/* Room in the marks for path entry k.  Returns 0 or -LS_ENOMEM. */
int lsa_fm_mark_grow(struct lsa_thr *t, uint32_t k);
/* Path entry k (just pushed, or looped back to) of sb, function f,
 * begins an iteration with the block at log position pos.  Returns 0 or
 * -LS_ENOMEM.  Inline: the learning pass marks every block it pushes or
 * loops back to (the call's own cost was half of it). */
static inline int lsa_fm_mark_at(struct lsa_thr *t, uint32_t k, uint32_t f, uint64_t pos)
{
	struct lsa_fmemo *m = &t->fm;
	int err;

	if (__builtin_expect(k >= m->capstart, 0) && (err = lsa_fm_mark_grow(t, k)))
		return err;
	/* the head's function running (no tail call away; both may be
	 * unknown), every frame the iteration and the levels nested in it
	 * may push a frame of their own */
	m->start[k] = t->fr[t->nfr - 1].cur == f && !t->deep &&
		      t->nfr < LSA_MAX_FRAMES - LSA_FM_LEVELS * 2 * LSA_FM_MAX ?
		      pos : pos | LSA_FM_NOK;
	return 0;
}
static inline int lsa_fm_mark(struct lsa_thr *t, uint32_t k, uint32_t f)
{
	return lsa_fm_mark_at(t, k, f, t->fm.pos);
}
/* Loop back to path entry ti (of function f): the iteration that ended
 * goes into its head's trie, if it may, and the log drops it (the
 * head's entry counts it).  Returns 0 or -LS_ENOMEM. */
int lsa_fm_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, uint32_t f);
/* The call whose first block is at log position fpos returned to where
 * it was made (its frame just popped, the block it returned to just
 * logged): it goes into its calling block's trie of calls, if it may
 * (matching takes the calls that block makes later: lsa_fm_cbegin);
 * the log keeps it.  Returns 0 or -LS_ENOMEM. */
int lsa_fm_ret(struct lsa_loops *l, struct lsa_thr *t, uint64_t fpos);
/* The log and its side tables, at first use.  Returns 0 or -LS_ENOMEM. */
int lsa_fm_alloc(struct lsa_fmemo *m);
/* After the block that looped back to, or pushed, path entry ti:
 * matching begins if ti's block has a trie (nx: the next block, NULL
 * where not known yet). */
void lsa_fm_begin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		  const struct lsd_block *nx);
/* The same after such a block that makes a call: matching begins if
 * the block has a trie of calls. */
void lsa_fm_cbegin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		   const struct lsd_block *nx);
/* Matches b[i .. n); returns the index of the first block not taken.
 * Matching stops (fm.on 0) where a block leaves the trie. */
size_t lsa_fm_run(struct lsa_thr *t, const struct lsd_block *b, size_t i, size_t n);
/* Matching ends (stopped, or stopped here): the blocks of the unfinished
 * iteration it took go through the per-block path, as the log keeps
 * them.  nx: the block that comes next, NULL where none does yet (a cut,
 * the thread's end).  Returns the path entry + 1 the last block pushed
 * or looped back to (0: none), -LS_EINVAL or -LS_ENOMEM. */
int lsa_fm_replay(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *nx);
void lsa_fm_release(struct lsa_fmemo *m);
/* loops.c: the learning pass's blocks b[0 .. n) of thread t; and its
 * stop (at the thread's end, at a cut): the blocks matched of an
 * unfinished iteration through the per-block path.  Each returns 0,
 * -LS_EINVAL or -LS_ENOMEM. */
int lsa_loops_learn_blocks(struct lsa_loops *l, struct lsa_thr *t,
			   const struct lsd_block *b, size_t n);
int lsa_loops_learn_stop(struct lsa_loops *l, struct lsa_thr *t);
/* One block through the learning pass's per-block path: returns the path
 * entry + 1 it pushed or looped back to (0: a landing), -LS_EINVAL or
 * -LS_ENOMEM. */
int lsa_loops_learn_one(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b);

/* loops_out.c: writes a finished thread's rows into the profile. */
int lsa_loops_flush_thread(struct lsa_loops *l, struct lsa_thr *t);
void lsa_thr_release(struct lsa_thr *t);

#include "analysis/loops_piece.h"

#endif
