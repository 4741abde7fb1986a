/* loops_memo_ops.h - the iteration memo's, the call memo's and the
 * learning pass's memo's operations (their state is loops_memo.h's).
 * Included by loops_int.h alone, after the thread (struct lsa_thr) they
 * work on. */
#ifndef LSA_LOOPS_MEMO_OPS_H
#define LSA_LOOPS_MEMO_OPS_H

/* ---- the iteration memo (loops_memo.c, loops_mflat.c, loops_mstop.c) ---- */

/* The leaf call entry e made (its blocks in l->sq), or NULL. */
static inline const struct lsa_acc *lsa_loops_leaf_of(const struct lsa_loops *l,
						      const struct lsa_pent *e)
{
	const struct lsa_acc *a = e->acc != LSA_NONE ? &l->acc[e->acc] : NULL;

	return a && a->nsq ? a : NULL;
}
/* Whether a block of leaf call a heads a loop now (it may have become
 * one since the leaf's frame ended: its next run in a call would be an
 * entry). */
static inline int lsa_memo_leaf_heads(const struct lsa_loops *l, const struct lsa_thr *t,
				      const struct lsa_acc *a)
{
	uint32_t k;

	for (k = 0; k < a->nsq; k++)
		if (lsa_loops_head(t, l->sq[a->sq + k]->id))
			return 1;
	return 0;
}
/* loops_memo.c.  Whether the iteration on path[ti ..) may be memoized:
 * 0 no, 1 yes, 2 yes with inner loops' entries on it (a flat iteration,
 * their iterations in the log). */
int lsa_memo_fits(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti);
/* Adds the iteration on path[ti ..) (flat: with the log's inner
 * iterations) to its head's trie, before the scan pops it; *leaf gets its
 * last node, LSA_NONE where the iteration is not for the memo after all.
 * Returns 0 or -LS_ENOMEM. */
int lsa_memo_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, int flat,
		 uint32_t *leaf);
/* loops_mflat.c (struct lsa_mlog).  The iteration on path[ti ..) as
 * the trie takes it, into fi[]: its path entries and, flat, the log's
 * inner iterations; their number, 0 where the log does not hold them all
 * or the iteration is too long. */
uint32_t lsa_memo_flat(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, int flat,
		       struct lsa_fitem *fi);
/* Whether the iteration on path[ti ..) may be flat: its log is kept,
 * or its head's flat iterations are still wanted. */
int lsa_memo_flat_may(const struct lsa_thr *t, uint32_t ti);
/* A flat iteration of head block id went into the trie (ok) or not. */
void lsa_memo_flat_done(struct lsa_thr *t, uint32_t id, int ok);
/* Whether the log is the outer entry ti's (the top frame's, the
 * function it runs the one the log began with). */
int lsa_memo_log_for(const struct lsa_thr *t, uint32_t ti);
/* Whether the memo stays off for path entry p (of the top frame): an
 * outer iteration below it is logged.  Inline: every loop back and
 * every loop head pushed asks it, and the log is mostly off. */
static inline int lsa_memo_quiet(const struct lsa_thr *t, uint32_t p)
{
	const struct lsa_mlog *g = &t->memo.log;

	return g->on && !g->dead && p > g->ti && lsa_memo_log_for(t, g->ti);
}
/* A loop back to path entry p, where lsa_memo_quiet(): its inner
 * iteration into the log. */
void lsa_memo_log_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t p);
/* After the loop back to outer entry ti, whose iteration fit the memo as
 * lsa_memo_fits() said: the next iteration logged, or not. */
void lsa_memo_log_set(struct lsa_thr *t, uint32_t ti, int fits);
/* A stop applied `iters` flat iterations of head block id's trie, and
 * handed back inner iterations (back) or not: returns 1 where its flat
 * iterations do not pay (the caller drops its trie), else 0. */
int lsa_memo_flat_stop(struct lsa_thr *t, uint32_t id, uint64_t iters, int back);
/* The log restarts (the path holds the outer head alone again). */
void lsa_memo_log_clear(struct lsa_memo *m);
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
	if (!ls || j == n || b[j].sb != b[ls].sb ||
	    lsd_block_key(&b[ls - 1]) != lsd_block_key(&b[i]))
		return 0;
	while (j < n && lsd_block_key(&b[j]) == lsd_block_key(&b[j - len]))
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

/* ---- the call memo and the learning pass's memo ---- */

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
/* The exit a trie keys the block after the entry by: its last run's,
 * or LSA_EXIT_APPLIED after a call collapsed into it (LSA_FL_CALL).  A
 * call returned and collapsed is not its calling block's own return:
 * keyed alike, an iteration whose head's block itself returned (a
 * frame popped, or none matching) walked on as if after a call
 * (memocheck -s 10 -e 30 -k -y on bzip2 -9 of 40 KB, 2026-12-02). */
static inline uint8_t lsa_fm_kx(const struct lsa_flog *g)
{
	return g->fl & LSA_FL_CALL ? LSA_EXIT_APPLIED : lsa_fm_cx(g);
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
/* The blocks log[s .. pos) go back before those pending (log[rq ..
 * rhi)), to be walked again; the log's end back at s.  (Pending blocks
 * are never behind the end: it is written where they were read.) */
static inline void lsa_fm_requeue(struct lsa_fmemo *m, uint64_t s)
{
	uint64_t k = m->rq < m->rhi ? m->rhi - m->rq : 0, j;

	if (k && m->rq != m->pos)
		for (j = 0; j < k; j++)
			lsa_fm_copy(m, m->pos + j, m->rq + j);
	m->rhi = m->pos + k;
	m->rq = m->pos = s;
}

/* Whether block id of the head's frame is on its path below entry hi: a
 * loop back the trie does not have. */
static inline int lsa_fm_under(const struct lsa_thr *t, uint32_t id, uint32_t hi)
{
	uint32_t v = lsa_loops_mem_get(t, id);

	return v != LSA_NONE && v >= t->fm.base && v < hi;
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
/* loops_freplay.c.  Matching ends (stopped, or stopped here): the blocks
 * of the unfinished iteration it took go through the per-block path, as
 * the log keeps them.  nx: the block that comes next, NULL where none
 * does yet (a cut, the thread's end).  Returns the path entry + 1 the last block pushed
 * or looped back to (0: none), -LS_EINVAL or -LS_ENOMEM. */
int lsa_fm_replay(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *nx);
/* loops_fmark.c.  Marks the blocks on the path of the frame of the
 * block of the node the top level reached (a nested level's head):
 * lsa_fhead.sh, or .wsh where wide is set, = a new stamp.  *below is set
 * where that frame is a level below's head's.  Returns 1 where it is the
 * outer head's (its real path counts too), else 0; it cannot fail. */
int lsa_fm_pmark(struct lsa_fmemo *m, int wide, int *below);
/* Whether a block of the head's frame that nested trie rt lists is on
 * that path (lsa_fm_pmark()'s and the real one): 1, else 0; it cannot
 * fail. */
int lsa_fm_shadowed(struct lsa_thr *t, uint32_t rt, int *below);
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

#endif
