/* loops_frames.c - the loop detector's call frames: how control moving
 * between blocks (calls, returns, tail calls, longjmp, signals, holes in
 * the trace) pushes and pops frames, and what a frame hands the entry
 * that called it when it ends (loops.c keeps the paths and loops). */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* ---- frames ---- */

int lsa_loops_frame_push(struct lsa_loops *l, struct lsa_thr *t, uint64_t ret,
		      uint32_t func, int async)
{
	struct lsa_frame *f;
	int k;

	if (t->nfr >= LSA_MAX_FRAMES || async)
		lsa_cm_abort(t);
	if (t->nfr >= LSA_MAX_FRAMES) {
		if (t->hw)	/* (the frames below count too) */
			return lsa_hw_taint(t);
		t->deep++;
		lsa_fm_dirty(t);
		return 0;
	}
	if (LS_GROW32(t->fr, t->nfr + 1, t->capfr, 64))
		return -LS_ENOMEM;
	f = &t->fr[t->nfr++];
	/* field by field, not a memset (a `rep stos`: see
	 * lsa_loops_inst_new()) */
	f->base = t->npath;
	f->func = f->cur = func;
	f->kids = LSA_NONE;
	f->ret = ret;
	f->start = t->insns;
	f->serial = ++t->nserial;
	f->cur_start = 0;
	f->fpos = t->fm.pos - 1;	/* (a learning pass's: the block just logged) */
	f->async = async;
	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		f->fself.n[k] = f->ftot.n[k] = 0;
	/* the eager pass: where what the frame makes goes when it ends,
	 * decided now: to the owner the calling (or interrupted) block has,
	 * unless it lies in a lazy region, where the path design decides */
	f->osb = t->nos;
	f->lz = LSA_NONE;
	f->hto = LSA_HTO_PATH;
	f->cinst = f->cblk = LSA_NONE;
	f->ccallee = func;
	f->called = !async;
	if (l->eager && t->nfr > 1)
		lsa_frame_hto(t, f, &t->fr[t->nfr - 2], t->psb ? t->psb->id : LSA_NONE);
	if (t->nfr > l->st.max_frames)
		l->st.max_frames = t->nfr;
	if (func != LSA_NONE && !l->learn) {
		struct lsa_frow *r = lsa_loops_frow(t, func);

		if (!r)
			return -LS_ENOMEM;
		r->calls++;
		r->active++;
		if (t->cm.nrec) {
			lsa_cm_event(t, CE_CALLS, func, 0);
			lsa_cm_event(t, CE_OPEN, func, 0);
		}
	}
	return 0;
}

/* Inclusive instructions of function f: a span of the thread's
 * instructions opens when a frame enters f and closes when it leaves;
 * only the outermost open span of f counts (recursion once). */
int lsa_loops_span_open(struct lsa_thr *t, uint32_t f)
{
	struct lsa_frow *r;

	if (f == LSA_NONE)
		return 0;
	r = lsa_loops_frow(t, f);
	if (!r)
		return -LS_ENOMEM;
	r->active++;
	if (t->cm.nrec)
		lsa_cm_event(t, CE_OPEN, f, 0);
	return 0;
}

/* (cur: the span of the top frame's cur, not its func) */
static int span_close(struct lsa_thr *t, uint32_t f, uint64_t start, int cur)
{
	struct lsa_frow *r;

	if (f == LSA_NONE)
		return 0;
	r = lsa_loops_frow(t, f);
	if (!r)
		return -LS_ENOMEM;
	if (start == LSA_MARK && t->sn) {
		/* a piece's frame begun before the cut: the joiner knows
		 * where, and counts it if this says so */
		if (r->active <= 1 && t->sn->popev == LSA_NONE)
			lsa_psn_note(t, PE_SPAN, t->nfr - 1);
		else if (r->active <= 1 && cur)
			t->sn->ev[t->sn->popev].sc = 1;
		else if (r->active <= 1)
			t->sn->ev[t->sn->popev].sf = 1;
	} else if (r->active <= 1) {
		r->total += t->insns - start;
	}
	if (r->active)
		r->active--;
	if (t->cm.nrec)
		lsa_cm_event(t, CE_CLOSE, f, t->insns - start);
	return 0;
}

/* Whether the top frame, about to end, was a call the memo can take as
 * part of an iteration: a return to where it was called from, its blocks
 * all of the function called (no tail call), none heading a loop, no
 * call of its own, no loop entered.  Its blocks are then appended to
 * l->sq; returns their number (0: not such a frame, or no memory). */
static uint32_t leaf_call(struct lsa_loops *l, struct lsa_thr *t)
{
	const struct lsa_frame *f = &t->fr[t->nfr - 1];
	uint32_t n = t->npath - f->base, i;

	if (!l->memo || t->nfr < 2 || f->async || f->cur != f->func || !n ||
	    n > 64 || f->kids != LSA_NONE || f->ftot.n[0] || f->fself.n[0] ||
	    f->base <= t->fr[t->nfr - 2].base || !t->psb || t->pexit != LSD_EXIT_RET)
		return 0;
	for (i = f->base; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];

		if (e->acc != LSA_NONE || e->inst != LSA_NONE || t->head[e->sb->id] ||
		    lsa_loops_func_of(l, e->sb) != f->func)
			return 0;
	}
	if (l->nsq + n > l->capsq) {
		uint32_t nc = l->capsq ? l->capsq * 2 : 1024;
		void *p;

		while (nc < l->nsq + n)
			nc *= 2;
		p = ls_reallocarray(l->sq, nc, sizeof(*l->sq));
		if (!p)
			return 0;
		l->sq = p;
		l->capsq = nc;
	}
	for (i = f->base; i < t->npath; i++)
		l->sq[l->nsq++] = t->path[i].sb;
	return n;
}

static int frame_pop(struct lsa_loops *l, struct lsa_thr *t);

/* Ends the top frame: accounts its path and hands its frame level to the
 * entry that called it (or, for the outermost frame, to the thread). */
int lsa_loops_frame_pop(struct lsa_loops *l, struct lsa_thr *t)
{
	int err;

	if (t->deep) {
		t->deep--;
		return 0;
	}
	if (!t->sn)
		return frame_pop(l, t);
	/* a piece's: the end of a frame begun before the cut is noted, and
	 * made whole again by the joiner */
	if (t->nfr - 1 < t->sn->snf) {
		lsa_psn_note(t, PE_POP, t->nfr - 1);
		t->sn->quiet++;
		err = frame_pop(l, t);
		t->sn->quiet--;
	} else {
		err = frame_pop(l, t);
	}
	t->sn->popev = LSA_NONE;
	if (t->nfr < t->sn->snf)
		t->sn->snf = t->nfr;
	return err;
}

static int frame_pop(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	struct lsa_owner o = { LSA_NONE, f };
	uint32_t leaf;
	int err;

	/* (a joiner of pieces: the sums alone, the spans the worker's) */
	leaf = l->pre ? 0 : leaf_call(l, t);
	t->cm.leaf = leaf;
	err = l->eager ? lsa_eager_frame_end(l, t) : lsa_loops_scan(l, t, f->base, o);
	if (err)
		return err;
	if (l->learn) {		/* (a learning pass keeps no counts) */
		t->nfr--;
		return 0;
	}
	f = &t->fr[t->nfr - 1];
	err = l->pre ? 0 : span_close(t, f->func, f->start, 0);
	if (!err && !l->pre && f->cur != f->func)
		err = span_close(t, f->cur, f->cur_start, 1);
	if (err)
		return err;
	if (t->nfr > 1 && f->hto == LSA_HTO_OWNER) {
		err = lsa_eager_hand_over(l, t, f);
		t->nfr--;
		return err;
	}
	if (t->nfr > 1 && f->base > t->fr[t->nfr - 2].base) {
		struct lsa_pent *c = &t->path[f->base - 1];
		struct lsa_acc *a;

		if (c->acc == LSA_NONE) {
			uint32_t ai;

			err = lsa_loops_acc_new(l, &ai);
			if (err)
				return err;
			c = &t->path[f->base - 1];
			c->acc = ai;
		}
		f = &t->fr[t->nfr - 1];
		a = &l->acc[c->acc];
		/* the first frame the entry's call made, a leaf: its
		 * blocks, for the memo (anything more: not a leaf call) */
		if (leaf && !a->nsq && a->called && !a->cself.n[0] &&
		    a->kids == LSA_NONE && !a->ctot.n[0]) {
			a->sq = l->nsq - leaf;
			a->nsq = leaf;
			l->sqlive++;
		} else {
			l->nsq -= leaf;
			lsa_loops_sq_drop(l, a);
		}
		lsa_cnt_add(&a->cself, &f->fself);
		lsa_cnt_add(&a->ctot, &f->ftot);
		err = lsa_loops_kids_move(l, &l->acc[c->acc].kids, f->kids);
		t->nfr--;
		return err;
	}
	if (t->nfr > 1) {	/* no calling entry: to the frame below */
		struct lsa_frame *b = &t->fr[t->nfr - 2];

		l->nsq -= leaf;
		lsa_cnt_add(&b->fself, &f->fself);
		lsa_cnt_add(&b->ftot, &f->ftot);
		err = lsa_loops_kids_move(l, &b->kids, f->kids);
		t->nfr--;
		return err;
	}
	/* the outermost frame: what is left is outside every loop */
	l->nsq -= leaf;
	lsa_cnt_add(&t->outside, &f->fself);
	for (uint32_t i = f->kids; i != LSA_NONE; i = l->kid[i].next) {
		err = lsa_loops_edge_add(t, LSA_NONE, l->kid[i].loop, l->kid[i].count,
			       l->kid[i].tot.n[0]);
		if (err)
			return err;
	}
	lsa_loops_kids_free(l, f->kids);
	t->nfr--;
	return 0;
}

/* Closes every frame and opens a fresh outermost one. */
int lsa_loops_flush_all(struct lsa_loops *l, struct lsa_thr *t)
{
	int err = 0;

	lsa_cm_abort(t);
	t->deep = 0;
	while (t->nfr && !err)
		err = lsa_loops_frame_pop(l, t);
	if (!err)
		err = lsa_loops_frame_push(l, t, 0, LSA_NONE, 0);
	return err;
}

/* Pops frames until frame k is on top. */
static int unwind_to(struct lsa_loops *l, struct lsa_thr *t, uint32_t k)
{
	int err = 0;

	lsa_cm_abort(t);
	t->deep = 0;
	while (t->nfr > k + 1 && !err)
		err = lsa_loops_frame_pop(l, t);
	return err;
}

/* The frame below the top whose return address is ip, or LSA_NONE. */
static uint32_t frame_by_ret(const struct lsa_thr *t, uint64_t ip)
{
	uint32_t k;

	for (k = t->nfr; k-- > 1;)
		if (t->fr[k].ret == ip)
			return k;
	return LSA_NONE;
}

/* Control left the previous block with exit x and reached sb. */
int lsa_loops_transfer(struct lsa_loops *l, struct lsa_thr *t, int x,
		    const struct lsd_sblock *sb)
{
	const struct lsd_sblock *p = t->psb;
	struct lsa_frame *top = &t->fr[t->nfr - 1];
	uint32_t k, tf;

	switch (x) {
	case LSD_EXIT_CALL:
	case LSD_EXIT_ICALL:
		tf = lsa_loops_func_of(l, sb);
		if (l->eager && top->lz == LSA_NONE) {
			/* (the eager pass: the frame pushed knows its owner) */
		} else if (t->npath > top->base && !l->learn) {
			struct lsa_pent *c = &t->path[t->npath - 1];

			if (c->acc == LSA_NONE) {
				uint32_t ai;
				int err = lsa_loops_acc_new(l, &ai);

				if (err)
					return err;
				c->acc = ai;
			}
			l->acc[c->acc].callee = tf;
			l->acc[c->acc].called = 1;
		} else if (t->npath > top->base) {
			/* a learning pass: where the entry's call went */
			t->path[t->npath - 1].acc = tf + 1;
		}
		if (l->memo)
			lsa_cm_call(t, sb);
		return lsa_loops_frame_push(l, t, p->end, tf, 0);
	case LSD_EXIT_RET:
		if (t->deep) {
			t->deep--;
			lsa_fm_dirty(t);	/* (as frame_push() past the most) */
			return 0;
		}
		if (t->nfr > 1 && top->ret == sb->start) {
			uint64_t fpos = top->fpos;
			int err;

			k = t->nfr - 1;
			err = lsa_loops_frame_pop(l, t);
			if (!err && t->cm.nrec)
				err = lsa_cm_return(l, t, k);
			/* (a learning pass's memo: a whole call) */
			if (!err && l->fmemo && l->learn && k == t->nfr)
				err = lsa_fm_ret(l, t, fpos);
			return err;
		}
		lsa_cm_abort(t);
		lsa_fm_dirty(t);	/* decided by the frames below */
		k = frame_by_ret(t, sb->start);
		/* (a second half's excursion: by frames it does not have) */
		if (k == LSA_NONE && t->hw && t->nfr > 1)
			return lsa_hw_taint(t);
		if (k != LSA_NONE) {
			l->st.unwinds++;
			return unwind_to(l, t, k - 1);
		}
		if (top->async)
			return 0;	/* a handler returning to the restorer */
		/* after a hole in the trace a return may be owed to a call
		 * that was lost: no mismatch */
		if (!t->gaps)
			l->st.frame_mismatches++;
		if (t->nfr > 1)
			return lsa_loops_frame_pop(l, t);
		return lsa_loops_flush_all(l, t);	/* returned above the trace's start */
	case LSD_EXIT_FALL:
	case LSD_EXIT_COND_TAKEN:
	case LSD_EXIT_COND_NOT:
	case LSD_EXIT_JUMP:
	case LSD_EXIT_IJUMP:
		/* into another function: a (conditional) tail call, code
		 * falling into the next function, or a longjmp */
		tf = lsa_loops_func_of(l, sb);
		/* A frame entered at code no symbol covers (a PLT stub of
		 * a stripped library, whose jump leads to the function
		 * called): the block that follows makes tf its function
		 * (lsa_loops_block), with the call and the span it opens.
		 * Taking tf here as the one running, without a span, closed
		 * a span never opened, from the thread's first instruction. */
		if (top->cur == LSA_NONE || tf == LSA_NONE || tf == top->cur)
			return 0;
		/* into the middle of a function an older frame runs: longjmp
		 * or an exception's landing pad; to a function's entry: a
		 * tail call (PLT stubs, resolvers) */
		if (x == LSD_EXIT_IJUMP && sb->mod_off != l->funcs[tf].off) {
			lsa_cm_abort(t);	/* decided by the frames below */
			lsa_fm_dirty(t);
			for (k = t->nfr - 1; k-- > 0;)
				if (t->fr[k].cur == tf) {
					if (!k && t->hw)	/* (below the excursion) */
						return lsa_hw_taint(t);
					l->st.unwinds++;
					t->landing = 1;
					return unwind_to(l, t, k);
				}
			/* (a second half's excursion: a frame below it may
			 * run tf) */
			if (t->hw && t->nfr > 1)
				return lsa_hw_taint(t);
		}
		/* a tail call (PLT stubs too): tf's span opens, the
		 * previous tail callee's closes */
		if (l->learn) {
			top->cur = tf;
			return 0;
		}
		if (top->cur != top->func &&
		    span_close(t, top->cur, top->cur_start, 1))
			return -LS_ENOMEM;
		if (tf != top->func) {
			if (lsa_loops_span_open(t, tf))
				return -LS_ENOMEM;
			lsa_loops_frow(t, tf)->calls++;	/* span_open made the row */
			if (t->cm.nrec)
				lsa_cm_event(t, CE_CALLS, tf, 0);
		}
		top = &t->fr[t->nfr - 1];
		top->cur_start = t->insns;
		top->cur = tf;
		return 0;
	case LSD_EXIT_SYSCALL:
		if (sb->start == p->end)
			return 0;
		lsa_fm_dirty(t);
		k = frame_by_ret(t, sb->start);	/* sigreturn */
		if (k == LSA_NONE && t->hw && t->nfr > 1)
			return lsa_hw_taint(t);
		if (k != LSA_NONE && t->fr[k].async) {
			l->st.unwinds++;
			return unwind_to(l, t, k - 1);
		}
		/* elsewhere: a signal handler, run as the system call returns */
		return lsa_loops_frame_push(l, t, p->end, lsa_loops_func_of(l, sb), 1);
	case LSD_EXIT_ASYNC: {
		/* where the interrupted code resumes: the decoder knows it
		 * (the FUP), else after the block */
		uint64_t resume = t->pnext ? t->pnext : p->end;

		lsa_fm_dirty(t);	/* (resume is no block's: not in a trie) */
		if (sb->start == resume)
			return 0;	/* interrupted, resumed at once */
		return lsa_loops_frame_push(l, t, resume, lsa_loops_func_of(l, sb), 1);
	}
	case LSD_EXIT_GAP:
	case LSD_EXIT_END:
		/* The trace has a hole (or tracing paused).  Where it goes on
		 * in the function the top frame runs, the frames stand: the
		 * block is a landing, no iteration.  Elsewhere, calls or
		 * returns were lost: every frame is closed and a new outermost
		 * one opened. */
		t->gaps++;
		lsa_cm_abort(t);
		lsa_fm_dirty(t);
		tf = lsa_loops_func_of(l, sb);
		if (tf != LSA_NONE && tf == top->cur) {
			t->landing = 1;
			return 0;
		}
		if (t->hw && t->nfr > 1)
			return lsa_hw_taint(t);
		l->st.resets++;
		return lsa_loops_flush_all(l, t);
	default:
		return 0;
	}
}

