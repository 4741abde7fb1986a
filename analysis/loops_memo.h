/* loops_memo.h - the loop detector's memos, their state: the iteration
 * memo (loops_memo.c, loops_mstop.c), the call memo (loops_cmemo.c) and
 * the learning pass's memo of whole iterations (loops_fmemo.c,
 * loops_fmatch.c).  Included by loops_int.h alone, where a thread
 * (struct lsa_thr) needs them; their operations are loops_memo_ops.h's. */
#ifndef LSA_LOOPS_MEMO_H
#define LSA_LOOPS_MEMO_H

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
	uint32_t rec, nrec;	/* lsa_memo.rec[rec ..): the entries it closes */
	int flat;		/* some of them inner loops' that iterated */
};

/* A loop entry a pass opens and closes (struct lsa_msum.rec): one of
 * trip count 1 (a loop's head run once, the scan decided), or one of an
 * inner loop that iterated in the iteration (a flat iteration, below):
 * what close_inst() counts by its trips and back branches.  The
 * instructions charged to it are the nodes' (their chains). */
struct lsa_mrec {
	uint32_t loop;
	uint32_t tl, ntl;	/* lsa_memo.tl[tl ..): its back branches */
	uint64_t trips;
};

/* A back branch of an entry a pass closes: its block, its runs. */
struct lsa_mtl {
	uint32_t id, runs;
};

/* Flat iterations.  An iteration of an outer loop in whose frame inner
 * loops iterated is a sequence of blocks too: the inner iterations, popped
 * from the path at each of their loop backs, are logged (lsa_mseg) while
 * an outer iteration goes through the per-block path, so that at the
 * outer loop back the whole sequence is known, the inner entries' trip
 * counts and back branches with it.  Its trie path holds every block;
 * an inner entry's effect on the rows (its trips, tails) goes with the
 * term (struct lsa_mrec), what is charged to it with the nodes, as for an
 * entry of trip count 1.  While an outer iteration is logged, the inner
 * loops' own memo is not started (its iterations would not be logged). */
struct lsa_mseg {
	uint32_t p;		/* the inner head's path entry */
	uint32_t at, n;		/* its items: lsa_mlog.it[at .. at + n) */
	uint32_t tail;		/* block id of its back branch */
};

/* How an outer head's flat iterations fare: logged in vain lately (too
 * long, an inner loop nested in an inner one: a score), logged at all,
 * matched whole and handed back part-way with inner iterations (stops). */
struct lsa_mflt {
	uint64_t iters;
	uint32_t stops;
	uint32_t logs;		/* outer iterations logged */
	uint8_t bad;
	uint8_t off;		/* flat iterations no more (its trie dropped) */
};

struct lsa_mlog {
	int on, dead;
	/* the outer entry: its path entry, frame (depth, serial, the
	 * function it runs), head */
	uint32_t ti, nfr, inst, cur;
	uint64_t fserial;
	const struct lsd_sblock *head;
	uint32_t nit, nseg;
	/* the blocks of the logged inner iterations: the leaf call the
	 * head's run before made, then the iteration's path entries with
	 * their leaf calls; kinds MK_* */
	const struct lsd_sblock *it[LSA_MEMO_MAX];
	uint8_t kind[LSA_MEMO_MAX];
	struct lsa_mseg seg[LSA_MEMO_MAX];
};

/* A block of an iteration as the trie takes it (the head's first, its
 * recurrence last excluded): a path entry of the outer loop's frame, a
 * block of a logged inner iteration, an inner head's block again (its
 * loop back), each followed by the blocks of the leaf it called. */
enum { FI_ROOT, FI_OUT, FI_SEG, FI_HEAD };
struct lsa_fitem {
	const struct lsd_sblock *sb;
	uint32_t p;		/* FI_OUT: its path entry; else the inner head's */
	uint16_t pdepth;	/* path entries above the outer head's */
	uint8_t kind;		/* MK_* */
	uint8_t role;		/* FI_* */
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
	struct lsa_mrec *rec;	/* the sums' entries (lsa_msum.rec) */
	uint32_t nrec, caprec;
	struct lsa_mtl *tl;
	uint32_t ntl, captl;
	struct lsa_mlog log;	/* the outer iteration logged (flat) */
	/* by head block id: how its flat iterations fare (lsa_mflt) */
	struct lsa_mflt *flt;
	size_t nflt;
	uint64_t fk;		/* a stop's flat iterations applied */
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
/* Matching that left a head's trie this many times in a row makes the
 * head bad: matching there is tried once in LSA_FM_RETRY tries, and its
 * iterations are kept once in LSA_FM_BADKEEP (xz's 300 KB: 213K
 * iterations of bad heads went through the per-block path, each kept
 * at 1.4K instructions for a trie seldom walked; one in 8 still lets a
 * pattern that comes to repeat there be matched by the next try). */
#define LSA_FM_BAD 16
#define LSA_FM_RETRY 64
#define LSA_FM_BADKEEP 8
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
	uint32_t wsh;		/* lsa_fmemo.wstamp: ... below a wide level's head */
	/* the child + 1 of root and of croot that began a level last (0:
	 * none since the tries were dropped), asked first (loops_fmatch.c's
	 * fm_starts_at()) */
	uint32_t rlast, clast;
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
	size_t pfnode, pfshv;	/* bytes of node and shv prefaulted */
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
	/* The sequences kept since the tries were last dropped, each as a
	 * hash of its head, its kind and its log entries (an open set, 0
	 * for none): one kept again adds no node and no flag, so it is not
	 * walked into its trie again (fm_keep()). */
	uint64_t *kset;
	uint32_t nkset, capkset;
	/* matching */
	int on;
	int cfin;		/* a call's own matching ended at its return */
	struct lsa_flv lv[LSA_FM_LEVELS];
	uint32_t top;		/* the level matching */
	uint32_t ti;		/* the head's path entry */
	uint32_t base;		/* its frame's first path entry */
	uint8_t px;		/* exit of the last block taken */
	int wide;		/* check the head's frame's blocks one by one */
	/* A nested level whose trie's blocks of its head's frame are too
	 * many to list (a wide level: they are checked one by one, as the
	 * outer level's where wide is set), at most one at a time: level
	 * wtop while it is lv[wtop] of id wid (0: none), the blocks on that
	 * frame's path below its head that the levels below put there
	 * marked lsa_fhead.wsh = wstamp, and wreal set where that frame is
	 * the outer head's (its real path below the head counts too). */
	uint32_t wtop, wid, wstamp;
	int wreal, wpend;
	/* lsa_fm_pmark()'s last walk of each kind (0: a nested trie's
	 * check, 1: a wide level's): its first node c, on level top of id
	 * id, the frame's depth r there, what it returned.  A walk that
	 * begins on the same level below c on c's path, in the same frame,
	 * marks the nodes down to c alone: c's marks stand (ok 0: none to
	 * go on from, after the tries were dropped or the ids wrapped). */
	struct {
		uint32_t c, top, id, r;
		int ret, below, ok;
	} pm[2];
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
	uint32_t bkeep;		/* a bad head's iterations to keep (LSA_FM_BADKEEP) */
	uint64_t taken, iters;	/* blocks and iterations matched whole */
	uint64_t again;		/* ... of those, taken as repeats (lsa_memo_repeat) */
	uint64_t nwide;		/* wide levels begun */
	/* the nodes its tries may hold (LSA_FM_NODES; less for tests:
	 * LOOPSCOPE_FM_NODES), and the times they were dropped there */
	uint32_t maxnode;
	uint64_t nclear;
};

#endif
