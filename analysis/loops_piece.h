/* loops_piece.h - internals of the loop detector's second pass in pieces
 * (analysis/loops_piece.c, loops_pjoin.c, loops_pieces.c) and of the
 * learning pass's snapshots they begin from (loops_know.c).  Included by
 * loops_int.h. */
#ifndef LSA_LOOPS_PIECE_H
#define LSA_LOOPS_PIECE_H

/* A piece worker's thread (loops_piece.c) begins at a cut with the frames
 * and paths the learning pass kept there (struct lsa_ksnap) and every
 * count 0: what those frames and entries held before the cut is the
 * joiner's, and so are the moves that hand it on (a loop back or a
 * landing that pops or charges entries begun before the cut, the end of
 * a frame begun before it).  The worker makes each move too, with its
 * own counts, and notes it here in order, for the joiner to make again
 * with what it holds.  Frames and entries below snf and snp are the
 * cut's still there (each only shrinks). */
enum { PE_BACK, PE_LAND, PE_POP, PE_SPAN, PE_CLOSE, PE_EBACK, PE_UNLAZY };
/* The eager pass's moves on the cut's entries (loops_eager.c): the top
 * open entry, one of the cut's, closed (PE_CLOSE, at: its owner stack
 * position); a loop back to the cut's path entry at (PE_EBACK: what is
 * above it closed, a lazy region above scanned, popped); the cut's lazy
 * region's first entry at made an open entry by its loop back
 * (PE_UNLAZY).  Inside the moves the joiner makes again whole (a frame's
 * end, a loop back), the closes they make are not noted (sn->quiet). */
struct lsa_pev {
	uint8_t kind;		/* PE_* */
	uint8_t sf, sc;		/* PE_POP: its frame's span of func, of cur,
				 * counts (the worker's active spans say so) */
	uint32_t at;		/* path entry (BACK, LAND), frame (POP, SPAN:
				 * the span of its cur, which a tail call ended) */
	uint64_t insns;		/* the worker's instructions then */
};
/* A frame's start before the cut: the joiner has it. */
#define LSA_MARK UINT64_MAX
struct lsa_psn {
	uint32_t snf, snp;
	uint32_t sno;		/* the eager pass's: the cut's open entries left */
	uint32_t quiet;		/* in a move the joiner makes whole */
	/* by path entry below snp: it made a call before the cut whose
	 * counts the joiner holds, not yet charged */
	uint8_t *pacc;
	uint32_t npacc;
	struct lsa_pev *ev;
	uint32_t nev, capev;
	uint32_t popev;		/* the PE_POP of the frame_pop() under way, or
				 * LSA_NONE */
	int err;		/* an event could not be kept (out of memory) */
};
/* Notes event kind at `at` (loops_piece.c). */
void lsa_psn_note(struct lsa_thr *t, int kind, uint32_t at);

/* What a learning pass keeps of a per-thread stream's frames and paths
 * at a cut (every lsa_loops.snap blocks; fewer when they would take too
 * much memory): where a piece of the second pass begins.  The frames and
 * paths follow from the blocks alone, so a pass that knows has the same
 * there; its open loop entries are the path entries looped back to (lb >
 * 0: trips lb + 1), its calling entries those whose call went to callee
 * + 1 (pass 1's functions, lsa_know_func()). */
struct lsa_sfr {
	uint64_t ret;
	uint32_t base, func, cur;
	int async;
};
struct lsa_spe {
	const struct lsd_sblock *sb;
	uint64_t lb;
	uint32_t callee1;	/* LSA_NONE: no call; else function + 1 */
};
struct lsa_ksnap {
	uint64_t at;		/* the thread's blocks before the cut */
	size_t chunk;		/* cut at chunks: the one it begins (else 0) */
	uint64_t deep, gaps, pnext;
	const struct lsd_sblock *psb;
	uint8_t pexit;
	int landing;
	uint32_t nfr, npe;
	struct lsa_sfr *fr;
	struct lsa_spe *pe;
};
/* Memory the snapshots may take: past it, every other one of the thread
 * that holds the most goes, and its cuts are twice as far apart
 * (LOOPSCOPE_SNAP_BYTES replaces it, for the tests). */
#define LSA_SNAP_BYTES (64u << 20)
/* loops_know.c: keeps thread t's frames and paths as they are after its
 * first t->nblk blocks (a learning pass, its memo stopped).  Returns 0
 * or -LS_ENOMEM. */
int lsa_know_snap(struct lsa_loops *l, struct lsa_thr *t);
/* loops_know.c: keeps s (its arrays then the pass's) as thread t's next
 * snapshot, as lsa_know_snap() keeps one (a second half's joiner makes
 * them).  Returns 0 or -LS_ENOMEM (s freed). */
int lsa_know_snap_put(struct lsa_loops *l, struct lsa_thr *t, struct lsa_ksnap *s);
/* Whether chunk begins a cut of thread t as the snapshots are thinned now
 * (cutting at chunks). */
int lsa_know_cut_at(struct lsa_loops *l, const struct lsa_thr *t, size_t chunk);
/* The snapshots of thread slot `slot`, *n of them, in order. */
/* A learning pass's blocks b[0 .. n) of per-thread stream `stream`'s
 * thread t, kept at every cut (lsa_loops.snap blocks apart, or at chunks:
 * lsa_loops.snap_chunks).  Returns as lsa_loops_blocks(). */
int lsa_know_cuts(struct lsa_loops *l, struct lsa_thr *t, size_t stream,
		  const struct lsd_block *b, size_t n);
const struct lsa_ksnap *lsa_know_snaps(const struct lsa_know *k, size_t slot,
				       size_t *n);
/* A block of the learning pass's function f (NULL: none). */
const struct lsd_sblock *lsa_know_func(const struct lsa_know *k, uint32_t f);
/* loops_piece.c: frame f of t, a piece's or a joiner's (not the per-block
 * path's, whose frame_push() sets its fields one by one), every field
 * set: base, ret and async as given, no function, kids or hand-over (the
 * path design's), a serial of its own, its counts and start 0. */
void lsa_frame_blank(struct lsa_thr *t, struct lsa_frame *f, uint32_t base, uint64_t ret,
		     int async);
/* loops_piece.c, for a piece's start (the memos' pass's, and the eager
 * pass's in loops_epiece.c): snapshot frame x on top of t's frames (room
 * made by the caller, set as lsa_frame_blank() sets it), its path from
 * entry base, its spans open (returns 0 or -LS_ENOMEM); snapshot path entry x's loop
 * entry and call into t's top path entry, where it was looped back to
 * and where it called (returns 0, -LS_ENOMEM, or -LS_EINVAL: no loop
 * heads there). */
int lsa_snap_frame(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_sfr *x,
		   uint32_t base);
/* ... and snapshot s's state of the thread outside its frames and paths
 * (the block before, its exit and next, landing, depth, gaps) into t;
 * NULL: a stream's start. */
void lsa_snap_thread(struct lsa_thr *t, const struct lsa_ksnap *s);
int lsa_snap_entry(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_spe *x);

/* loops_piece.c: a thread's second pass in pieces (see there). */

/* A loop of a kid list, by head (the joiner numbers loops otherwise). */
struct lsa_pkid {
	const struct lsd_sblock *head;
	uint64_t count;
	struct lsa_cnt tot;
};

/* A frame and a path entry as a piece ended (function numbers the
 * worker's: lsa_pres.fsb names them). */
struct lsa_pfr {
	uint64_t ret, start, cur_start;	/* the worker's, or LSA_MARK */
	uint32_t base, func, cur;
	int async;
	struct lsa_cnt fself, ftot;
	uint32_t kid, nkid;	/* lsa_pres.kid[kid ..) */
	/* the eager pass's (struct lsa_frame's; cinst as its head's path
	 * entry, ccallee the worker's function) */
	uint32_t osb, lz, cinst, cblk, ccallee;
	uint8_t hto, called;
};
struct lsa_ppe {
	const struct lsd_sblock *sb;
	const struct lsd_sblock *loop;	/* its open entry's head, or NULL */
	struct lsa_cnt self, tot, same;
	int open;		/* the eager pass's: loop's entry open (ei) */
	uint64_t trips;		/* its trip count */
	int acc;		/* the fields below hold an lsa_acc's */
	uint32_t callee, called;
	struct lsa_cnt cself, ctot;
	uint32_t kid, nkid;
};

/* The rows a piece added in the worker (its numbers). */
struct lsa_prows {
	struct lsa_lrow *lr;
	uint32_t nlr;
	struct lsa_frow *fw;
	uint32_t nfw;
	struct lsa_kmap trips, edges, tails, calls;
	struct lsa_erow *erows;
};

/* What a worker made of a piece: its notes, its rows, where it ended. */
struct lsa_pres {
	struct lsa_pev *ev;
	uint32_t nev, capev;
	struct lsa_prows rows;
	uint32_t snf, snp;	/* the cut's frames and entries left */
	uint32_t sno;		/* ... and open entries (the eager pass's) */
	uint32_t nos;		/* open entries at the end */
	struct lsa_pfr *fr;
	uint32_t nfr, capfr;
	struct lsa_ppe *pe;
	uint32_t npe, cappe;
	struct lsa_pkid *kid;
	uint32_t nkid, capkid;
	struct lsa_cnt outside;
	uint64_t insns;		/* the piece's instructions */
	uint64_t blocks;
	uint64_t eager_blocks, eager_tails, eager_nested, eager_floops;	/* the worker's */
	/* the worker's loop heads and a block of each of its functions */
	const struct lsd_sblock **lhead, **fsb;
	uint32_t nlhead, caplhead, nfsb, capfsb;
};

struct lsa_pworker {
	struct lsa_loops *l;	/* a detector of its own, knowing what the
				 * first pass learned */
	struct lsa_thr *t;	/* slot 0 of l */
	size_t kslot;		/* whose knowledge t has (SIZE_MAX: none) */
	struct lsa_psn sn;
};

/* A worker for the second pass model makes (which must know: see
 * lsa_loops_know()), looking symbols up under symlock (may be NULL).
 * Returns 0, -LS_ENOMEM or -LS_EINVAL. */
int lsa_pw_init(struct lsa_pworker *w, const struct lsa_loops *model,
		pthread_mutex_t *symlock);
/* What of a detector a worker is made of, apart from the detector (a
" * worker that outlives it: loops_follow.c's). */
struct lsa_pmodel {
	struct lsd_decoder *d;
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsp_profile *p;
	uint32_t run;
	struct lsa_loops_opts o;
	const struct lsa_know *know;
	int memo, eager;
};
/* l's as lsa_pw_init() takes them.  Cannot fail. */
void lsa_pw_model(struct lsa_pmodel *m, const struct lsa_loops *l);
/* lsa_pw_init() of m.  Returns as lsa_pw_init(). */
int lsa_pw_init_model(struct lsa_pworker *w, const struct lsa_pmodel *m,
		      pthread_mutex_t *symlock);
void lsa_pw_free(struct lsa_pworker *w);
/* A piece of the thread whose knowledge is slot kslot's begins, at the
 * cut s (NULL: the thread's start).  Returns 0, -LS_ENOMEM or
 * -LS_EINVAL (s names a loop the knowledge has not). */
int lsa_pw_begin(struct lsa_pworker *w, size_t kslot, const struct lsa_ksnap *s);
/* Its next blocks.  Returns as lsa_loops_blocks(). */
int lsa_pw_blocks(struct lsa_pworker *w, const struct lsd_block *b, size_t n);
/* It ends (last: the thread ends with it): into res.  Returns 0 or
 * -LS_ENOMEM. */
int lsa_pw_end(struct lsa_pworker *w, int last, struct lsa_pres *res);
/* loops_pjoin.c: joins a piece, which a worker made res of, into thread
 * t of l, in the order of the thread's pieces; *insns: the thread's
 * instructions before the piece, then after it.  Returns 0, -LS_ENOMEM,
 * or -LS_EINVAL where res and t disagree. */
int lsa_piece_join(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_pres *res,
		   uint64_t *insns);
void lsa_prows_release(struct lsa_prows *r);
void lsa_pres_release(struct lsa_pres *res);

/* loops_pieces.c: the pieces of a second pass l (which must know), cut
 * where the learning pass kept snapshots (piece_blocks apart, or more),
 * run by `workers` threads (0: on the caller's); its callbacks, with the
 * pieces as arg, take the place of lsa_loops_callbacks.  lsa_pieces_new
 * returns 0, -LS_EINVAL or -LS_ENOMEM. */
#define LSA_PIECE_BLOCKS (1u << 18)
struct lsa_pieces;
int lsa_pieces_new(struct lsa_pieces **pps, struct lsa_loops *l, unsigned workers,
		   uint64_t piece_blocks);
void lsa_pieces_free(struct lsa_pieces *ps);
extern const struct lsd_callbacks lsa_pieces_callbacks;

/* loops_dpieces.c: the eager second pass l (which must know) over every
 * stream of its decoder, each thread's stream in pieces where the
 * learning pass cut it at chunks (lsa_loops.snap_chunks), a piece decoded
 * by the worker that runs it: `workers` threads beside the caller's, each
 * with a twin decoder.  Returns 0, an error, or -LS_EINVAL with l->pfail
 * set (a piece's blocks unlike the learning pass's, or a join that found
 * a worker's state unlike its own: the pass again on one thread).
 * lsa_dpieces_can() says whether l's decoder's streams allow it and
 * gain from it (none decoded side by side with others, one of several
 * chunks at least; LOOPSCOPE_PIECE_DECODE=0 says no). */
int lsa_dpieces_can(const struct lsa_loops *l);
int lsa_dpieces_run(struct lsa_loops *l, unsigned workers);

/* loops_halves.c: the learning pass l (cutting at chunks, two jobs or
 * more) over a bundle of one thread's stream, the chunks after a cut
 * learned at once by a worker.  Returns 0; 1 where it does not apply or
 * pay (lsa_halves_can(), a spine the worker would not take: nothing
 * done, the caller's to decode); an error; or -LS_EINVAL with l->hfail
 * set (the worker stopped inside an excursion the calling thread had
 * begun to skip: the pass again whole).  lsa_halves_can(): one stream,
 * decoded on its own, of a few chunks at least; LOOPSCOPE_HALVES=0 says
 * no. */
int lsa_halves_can(const struct lsa_loops *l);
int lsa_halves_run(struct lsa_loops *l);

#endif
