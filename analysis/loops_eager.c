/* loops_eager.c - the eager second pass: each block charged as it comes.
 *
 * A pass that knows (lsa_loops_know()) knows every loop head and every
 * loop's body from its start.  A block that heads no loop can then never
 * come back on its frame's path (had it, the learning pass, which keeps
 * the same paths, would have learned it as a head), so the owner the
 * path design's scan would give it later is known when it runs: the
 * innermost open entry of its frame whose loop's body holds it.  This
 * pass keeps those entries on a live owner stack (t->os, the frame's from
 * lsa_frame.osb), closes an entry at the first block outside its body,
 * opens one where a head is pushed (an entry of trip count 1 until a loop
 * back comes), and charges each block at once; only heads go on the path.
 * A frame's end or a loop back then closes what is open above, with no
 * scan.  The decisions are the scan's, in the scan's order, so the
 * profile is the path design's byte for byte.
 *
 * Where the scan's order matters, a frame goes lazy (lsa_frame.lz): from
 * that block on its blocks are pushed and charged as the path design
 * charges them, over the live stack below (lsa_loops_scan_b()):
 *   - a head pushed under an owner whose head lies in its loop's body
 *     (lsa_loops_entry_ok() says no): it is an entry only if a loop back
 *     to it comes, which the path design's loop back decides; after it
 *     the frame is eager again, with that entry open;
 *   - a block a landing (longjmp, a hole in the trace) came back to in
 *     the learning pass (lsa_thr.lflag): the path design's land() charges
 *     the abandoned blocks with an owner stack of their own.
 * A lazy region ends where the path pops below it.  Calls made from a
 * lazy block hand their counts to its path entry (LSA_HTO_ACC), others to
 * the owner the calling block had (LSA_HTO_OWNER, lsa_eager_hand_over()).
 *
 * The iteration and call memos do not run here (lsa_loops_know(); the
 * memos' pass runs with lsa_loops_opts.no_eager or LOOPSCOPE_EAGER=0).
 * With several jobs the pass runs in pieces (loops_piece.c): a worker
 * starts from the eager state at its cut (loops_epiece.c), its sums 0,
 * and notes its moves on the cut's entries and frames, which the joiner
 * makes again with the sums it holds (lsa_eager_replay()).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* The owner of what frame f runs now: its innermost open entry, or its
 * frame level. */
static inline struct lsa_owner owner_of(const struct lsa_thr *t, struct lsa_frame *f)
{
	struct lsa_owner o = { t->nos > f->osb ? t->os[t->nos - 1] : LSA_NONE, f };

	return o;
}

/* Closes the top open entry of frame f into the one below it (or f's
 * level).  Returns 0 or -LS_ENOMEM. */
static int close_top(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f)
{
	uint32_t ii = t->os[--t->nos];

	/* a piece's: one of the cut's entries, whose sums the joiner holds
	 * (noted where no move the joiner makes whole closes it) */
	if (t->sn && t->nos < t->sn->sno) {
		if (!t->sn->quiet)
			lsa_psn_note(t, PE_CLOSE, t->nos);
		t->sn->sno = t->nos;
	}
	return lsa_loops_close(l, t, ii, owner_of(t, f));
}

/* Block id comes in frame f: the open entries whose loop's body does not
 * hold it close (the scan's first question of every entry).  Returns 0
 * or -LS_ENOMEM. */
static inline int leave(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
			uint32_t id)
{
	int err;

	while (t->nos > f->osb &&
	       !lsa_loops_in_body_note(t, l->inst[t->os[t->nos - 1]].loop, id))
		if ((err = close_top(l, t, f)))
			return err;
	return 0;
}

static int os_push(struct lsa_thr *t, uint32_t ii)
{
	if (LS_GROW32(t->os, t->nos + 1, t->capos, 64))
		return -LS_ENOMEM;
	t->os[t->nos++] = ii;
	return 0;
}

/* Head sb of loop, pushed in eager frame f under owner o: an entry opens
 * (trip count 1 until a loop back), or, where the scan would not make it
 * one, the frame goes lazy from it.  Returns 0 or -LS_ENOMEM. */
static int head_push(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		     const struct lsd_sblock *sb, uint32_t loop)
{
	struct lsa_owner o = owner_of(t, f);
	uint32_t ii, p;
	int err;

	if (!lsa_loops_entry_ok(l, t, loop, o.inst == LSA_NONE ? 0 : l->inst[o.inst].loop + 1)) {
		if ((err = lsa_loops_path_push(l, t, sb)))
			return err;
		t->fr[t->nfr - 1].lz = t->npath - 1;
		return 0;
	}
	if ((err = lsa_loops_inst_new(l, loop, &ii)) ||
	    (err = lsa_loops_path_push(l, t, sb)) || (err = os_push(t, ii)))
		return err;
	p = t->npath - 1;
	t->path[p].ei = ii;
	l->inst[ii].pidx = p;
	l->inst[ii].trips = 1;
	lsa_cnt_sb(&l->inst[ii].self, l, sb);
	return 0;
}

/* The position of open entry ii on the owner stack, from frame f's on
 * (LSA_NONE: not open). */
static uint32_t os_find(const struct lsa_thr *t, const struct lsa_frame *f, uint32_t ii)
{
	uint32_t k;

	for (k = t->nos; k-- > f->osb;)
		if (t->os[k] == ii)
			return k;
	return LSA_NONE;
}

/* A loop back's moves to eager path entry ti of the top frame f, no
 * block charged and no trip counted: what is above ti's entry closed (a
 * lazy region above it charged first, over the entries open then), the
 * path above ti popped.  Where ti's entry is closed, one opens (the
 * learning pass saw other blocks, as know_new counts, and the profile is
 * not the path design's) with the run before as its first trip.  *pii:
 * the entry.  Returns 0, -LS_ENOMEM, or -LS_EINVAL where a joiner of
 * pieces (l->pre) meets no entry of f there. */
static int back_moves(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		      uint32_t ti, uint32_t *pii)
{
	uint32_t ii, k;
	int err = 0;

	if (ti >= t->npath || ti < f->base)
		return -LS_EINVAL;
	ii = t->path[ti].ei;
	if (ii == LSA_NONE || (k = os_find(t, f, ii)) == LSA_NONE) {
		uint32_t loop = lsa_loops_head(t, t->path[ti].sb->id);

		if (l->pre && !loop)
			return -LS_EINVAL;
		if (!l->pre)
			l->st.know_new++;
		while (t->nos > f->osb && l->inst[t->os[t->nos - 1]].pidx > ti &&
		       !(err = close_top(l, t, f)))
			;
		if (err || (err = lsa_loops_inst_new(l, loop ? loop - 1 : 0, &ii)) ||
		    (err = os_push(t, ii)))
			return err;
		t->path[ti].ei = ii;
		l->inst[ii].pidx = ti;
		l->inst[ii].trips = 1;
		k = t->nos - 1;
	}
	if (f->lz != LSA_NONE && f->lz > ti) {
		struct lsa_owner o = { ii, f };

		err = lsa_loops_scan_b(l, t, f->lz, o, k + 1);
		f->lz = LSA_NONE;
	} else {
		while (!err && t->nos > k + 1)
			err = close_top(l, t, f);
	}
	if (err)
		return err;
	lsa_loops_drop(l, t, ti + 1);
	*pii = ii;
	return 0;
}

static int back_in(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f, uint32_t ti);

/* A loop back to eager path entry ti of the top frame f (a head whose
 * entry is open): what is above it closes and pops (a lazy region above
 * it charged first, over the entries open then), then one iteration.
 * Returns 0 or -LS_ENOMEM. */
static int back(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f, uint32_t ti)
{
	int err;

	/* a piece's loop back to one of the cut's entries: what it closes
	 * and pops of the cut's, the joiner does again */
	if (!t->sn || ti >= t->sn->snp)
		return back_in(l, t, f, ti);
	lsa_psn_note(t, PE_EBACK, ti);
	t->sn->quiet++;
	err = back_in(l, t, f, ti);
	t->sn->quiet--;
	return err;
}

static int back_in(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f, uint32_t ti)
{
	const struct lsd_sblock *sb = t->path[ti].sb;
	uint32_t ii, tail = t->psb ? t->psb->id : LSA_NONE;
	struct lsa_inst *in;
	int err;

	l->st.loop_backs++;
	if ((err = back_moves(l, t, f, ti, &ii)))
		return err;
	in = &l->inst[ii];
	in->trips++;
	if (tail != in->tail) {
		err = lsa_loops_tail_flush(t, in);
		in->tail = tail;
	}
	in->tail_run++;
	lsa_cnt_sb(&in->self, l, sb);
	return err;
}

/* Block sb in the top frame f, lazy from path entry f->lz on: the path
 * design's push, loop back or landing, but for a loop back to an eager
 * entry below the region.  After a loop back to the region's first
 * entry (a head now an entry), the frame is eager again.  Returns 0 or
 * -LS_ENOMEM. */
static int lazy_block(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		      const struct lsd_sblock *sb)
{
	uint32_t idx = lsa_loops_mem_get(t, sb->id), lz = f->lz, ii;
	int err;

	if (idx == LSA_NONE || idx < f->base)
		return lsa_loops_path_push(l, t, sb);
	if (idx < lz)
		return back(l, t, f, idx);
	if (t->landing)
		return lsa_loops_land(l, t, idx);
	if ((err = lsa_loops_loop_back(l, t, idx)))
		return err;
	f = &t->fr[t->nfr - 1];
	if (idx != lz || (t->lflag && t->lflag[sb->id]) || (ii = t->path[idx].inst) == LSA_NONE)
		return 0;
	/* the region's head iterates: its entry opens on the live stack,
	 * charged this run of the head now (the path design's loop back
	 * charged the one before; it charges this one at the next) */
	if (t->sn && idx < t->sn->snp)
		lsa_psn_note(t, PE_UNLAZY, idx);
	if ((err = os_push(t, ii)))
		return err;
	t->path[idx].inst = LSA_NONE;
	t->path[idx].ei = ii;
	l->inst[ii].pidx = idx;
	lsa_cnt_sb(&l->inst[ii].self, l, sb);
	f->lz = LSA_NONE;
	return 0;
}

/* One block of the eager pass, after the frames moved: charged to its
 * owner, or an event (a head, a lazy region).  Returns 0 or -LS_ENOMEM. */
static int eager_block(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *sb)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	uint32_t id = sb->id, hd = t->head[id], idx;
	int err;

	if (f->lz != LSA_NONE)
		return lazy_block(l, t, f, sb);
	if (!hd && !(t->lflag && t->lflag[id])) {
		if ((err = leave(l, t, f, id)))
			return err;
		lsa_cnt_sb(t->nos > f->osb ? &l->inst[t->os[t->nos - 1]].self : &f->fself,
			   l, sb);
		return 0;
	}
	idx = lsa_loops_mem_get(t, id);
	if (idx != LSA_NONE && idx >= f->base)
		return back(l, t, f, idx);
	if ((err = leave(l, t, f, id)))
		return err;
	if (t->lflag && t->lflag[id]) {
		/* landings come back here: lazy from here on (a head's entry
		 * opening included: the path design decides it) */
		if ((err = lsa_loops_path_push(l, t, sb)))
			return err;
		t->fr[t->nfr - 1].lz = t->npath - 1;
		return 0;
	}
	return head_push(l, t, f, sb, hd - 1);
}

/* One block of the eager pass, whatever it is: the frames moved, the
 * function's and thread's counts, then eager_block().  Returns 0,
 * -LS_EINVAL or -LS_ENOMEM. */
static int one(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsd_sblock *sb = b->sb;
	uint32_t f;
	int err;

	if (!sb)
		return -LS_EINVAL;
	if ((err = lsa_loops_sb_see(l, t, sb)))
		return err;
	l->st.blocks++;
	f = lsa_loops_func_of(l, sb);
	if ((err = lsa_loops_enter(l, t, sb, f)) || (err = eager_block(l, t, sb)))
		return err;
	/* what lsa_eager_run() may take of it next time */
	if (f != LSA_NONE && !(t->lflag && t->lflag[sb->id]))
		lsa_ecls_set(t, sb->id, (f + 1) << 2 | (t->head[sb->id] ? 2 : 1));
	t->psb = sb;
	t->pexit = b->exit;
	t->pnext = b->next;
	t->landing = 0;
	return 0;
}

int lsa_eager_leave(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f, uint32_t id)
{
	return leave(l, t, f, id);
}

int lsa_eager_os_push(struct lsa_thr *t, uint32_t ii)
{
	return os_push(t, ii);
}

/* Whether lsa_eager_run() may take block b, the next after one()'s: no
 * when it would stop at b before taking anything (its first questions,
 * asked here without its set-up; on sqlite3 three calls in ten took
 * nothing).  A head of the top frame's function is left to it. */
static inline int run_may_take(const struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsa_frame *f = &t->fr[t->nfr - 1];
	const struct lsd_sblock *sb = b->sb;
	uint32_t e;

	if (f->lz != LSA_NONE || f->cur == LSA_NONE || !t->psb || !sb || sb->id >= t->nk)
		return 0;
	e = lsa_ecls(t, sb->id);
	if (LSA_EXITS_LOCAL >> t->pexit & 1)	/* a block of f's function */
		return e >> 2 == f->cur + 1 && ((e & 3) == 1 || (e & 3) == 2);
	/* a call whose callee starts with a plain block */
	return (t->pexit == LSD_EXIT_CALL || t->pexit == LSD_EXIT_ICALL) && (e & 3) == 1;
}

/* Whether block b, after a return, is where the top frame's call
 * returns to, in the function its caller's frame runs (an eager frame):
 * transfer() then pops the frame and nothing more, and lsa_eager_run()
 * may take b as a block entered by no move. */
static inline int ret_pops(const struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsa_frame *f = &t->fr[t->nfr - 1];
	const struct lsd_sblock *sb = b->sb;

	return t->pexit == LSD_EXIT_RET && !t->deep && t->nfr > 1 && sb && sb->id < t->nk &&
	       f->ret == sb->start && f[-1].lz == LSA_NONE && f[-1].cur != LSA_NONE &&
	       lsa_ecls(t, sb->id) >> 2 == f[-1].cur + 1;
}

int lsa_eager_blocks(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
		     size_t n)
{
	size_t i = 0;
	ptrdiff_t d;
	int err;

	if (!t->ecls) {
		size_t k;

		if (!(t->eret = calloc(t->nk ? t->nk : 1, sizeof(*t->eret))) ||
		    !(t->ecls = calloc(t->nk ? t->nk : 1, sizeof(*t->ecls)))) {
			free(t->eret);
			t->eret = NULL;
			return -LS_ENOMEM;
		}
		for (k = 0; k < t->nk; k++)	/* (what the learning pass noted) */
			t->ecls[k] = (uint64_t)t->inb[k] << 32;
	}
	l->st.eager_blocks += n;

	/* lsa_eager_run() goes on from where it stopped or one() did: after
	 * it made a callee's frame at the callee's loop head, it takes that
	 * head too (2.5M of xz's calls), else one() takes the block */
	while (i < n) {
		/* a return to the caller: its frame popped as one() would
		 * pop it (3.4M of xz's), the block left to lsa_eager_run() */
		if (ret_pops(t, &b[i])) {
			if ((err = lsa_loops_transfer(l, t, LSD_EXIT_RET, b[i].sb)))
				return err;
			t->pexit = LSD_EXIT_FALL;
		}
		if (run_may_take(t, &b[i])) {
			if ((d = lsa_eager_run(l, t, b, i, n)) < 0)
				return -LS_ENOMEM;
			if ((size_t)d > i) {
				i = (size_t)d;
				continue;
			}
		}
		if ((err = one(l, t, &b[i])))
			return err;
		i++;
	}
	return 0;
}

int lsa_eager_frame_end(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	int err = 0;

	if (f->lz != LSA_NONE) {
		struct lsa_owner o = { LSA_NONE, f };

		err = lsa_loops_scan_b(l, t, f->lz, o, f->osb);
		f = &t->fr[t->nfr - 1];
		f->lz = LSA_NONE;
	}
	while (!err && t->nos > f->osb)
		err = close_top(l, t, f);
	lsa_loops_drop(l, t, f->base);
	return err;
}

int lsa_eager_hand_over(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f)
{
	struct lsa_owner o = { f->cinst, f - 1 };

	return lsa_loops_give(l, t, o, &f->fself, &f->ftot, f->kids,
			      f->called && f->cblk != LSA_NONE, f->ccallee, f->cblk);
}

/* ---- a joiner of pieces (loops_piece.c): the moves a worker noted ---- */

int lsa_eager_replay(struct lsa_loops *l, struct lsa_thr *t, int kind, uint32_t at)
{
	struct lsa_frame *f;
	uint32_t ii, loop;
	int err;

	if (!t->nfr)
		return -LS_EINVAL;
	f = &t->fr[t->nfr - 1];
	switch (kind) {
	case PE_CLOSE:
		if (!t->nos || t->nos - 1 != at || at < f->osb)
			return -LS_EINVAL;
		return close_top(l, t, f);
	case PE_EBACK:
		return back_moves(l, t, f, at, &ii);
	case PE_UNLAZY:
		if (at >= t->npath || f->lz != at)
			return -LS_EINVAL;
		if ((ii = t->path[at].inst) == LSA_NONE) {
			/* (its loop back's scan touched none of the cut's:
			 * not noted, its entry not made here) */
			if (!(loop = lsa_loops_head(t, t->path[at].sb->id)))
				return -LS_EINVAL;
			if ((err = lsa_loops_inst_new(l, loop - 1, &ii)))
				return err;
		}
		if ((err = os_push(t, ii)))
			return err;
		t->path[at].inst = LSA_NONE;
		t->path[at].ei = ii;
		l->inst[ii].pidx = at;
		f->lz = LSA_NONE;
		return 0;
	default:
		return -LS_EINVAL;
	}
}
