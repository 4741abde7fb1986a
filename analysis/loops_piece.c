/* loops_piece.c - one thread's second pass cut into pieces: what a worker
 * runs of a piece on its own, and why the thread that holds the true
 * state (the joiner) can join the pieces in order (loops_pjoin.c joins
 * them, loops_pieces.c runs the workers).
 *
 * The second pass's decisions take the thread's final knowledge and the
 * frames and paths alone, and those follow from the blocks: the learning
 * pass keeps them at each cut (struct lsa_ksnap).  So a worker starts a
 * piece from the cut's frames and paths, every count 0 but the trips of
 * the open loop entries (which the learning pass counted: a trip count
 * decides a histogram bin, no sum can), and runs every block of the
 * piece as the one pass would.  What the entries and frames open at the
 * cut held before it, the joiner holds.  It goes where the one pass would
 * send it only when one of the moves that hand sums on touches them: a
 * loop back or a landing that pops or charges entries begun before the
 * cut, the end of a frame begun before it.  The worker notes those moves
 * (struct lsa_psn), and the joiner makes them again with what it holds
 * (lsa_loops.pre: the sums alone; the worker counted the entries, trips,
 * calls and blocks).  Those sums only ever go to other entries and frames
 * of the cut, or into rows, which are sums too.  The spans of functions
 * whose frames began before the cut are the joiner's as well (it knows
 * where they began; the worker, whose active spans are the true ones,
 * notes whether each counts).  Then the joiner adds what the worker's
 * frames and entries hold at the piece's end to its own, takes the new
 * ones, and adds the worker's rows to the thread's.  The profile is the
 * one pass's, byte for byte.
 *
 * The eager pass (loops_eager.c) in pieces the same way: its worker
 * starts from the eager state at the cut (lsa_eager_from_snap()), and
 * its moves on the cut's state are an open entry closing, a loop back to
 * one of the cut's heads (what is above it closed, a lazy region above
 * scanned), a lazy region's head turned an open entry, the end of a
 * frame (the hand-over to its calling owner, as frame_pop() makes it),
 * and in lazy regions the path design's loop backs and landings.  The
 * joiner makes each with the sums it holds (lsa_eager_replay(),
 * lsa_loops_frame_pop()) and takes the worker's open entries, frames and
 * lazy regions at the end as the eager pass's.  Each cut's eager state
 * is the one pass's there, whoever made it: the worker before ended
 * where the next began. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define GROWN(p, n, cap, k) (LS_GROW32((p), (n) + (k), (cap), 64) ? -LS_ENOMEM : 0)

void lsa_psn_note(struct lsa_thr *t, int kind, uint32_t at)
{
	struct lsa_psn *sn = t->sn;

	if (LS_GROW32(sn->ev, sn->nev + 1, sn->capev, 256)) {
		sn->err = 1;
		return;
	}
	sn->ev[sn->nev] = (struct lsa_pev){ (uint8_t)kind, 0, 0, at, t->insns };
	if (kind == PE_POP)
		sn->popev = sn->nev;
	sn->nev++;
}

/* ---- the rows a piece added ---- */

/* Moves t's rows into r, t's zeroed.  Its loop and function rows keep
 * their places (the iteration memo's stops add into rows it knows are
 * there); the maps and the graph edges' rows start again.  Returns 0 or
 * -LS_ENOMEM. */
static int rows_take(struct lsa_prows *r, struct lsa_thr *t)
{
	uint32_t i;

	if (lsa_loops_calls_flush(t))
		return -LS_ENOMEM;
	r->lr = malloc((t->nlr ? t->nlr : 1) * sizeof(*r->lr));
	r->fw = malloc((t->nfw ? t->nfw : 1) * sizeof(*r->fw));
	if (!r->lr || !r->fw)
		return -LS_ENOMEM;
	if (t->nlr)
		memcpy(r->lr, t->lr, t->nlr * sizeof(*r->lr));
	if (t->nfw)
		memcpy(r->fw, t->fw, t->nfw * sizeof(*r->fw));
	r->nlr = t->nlr;
	r->nfw = t->nfw;
	r->trips = t->trips;
	r->edges = t->edges;
	r->tails = t->tails;
	r->calls = t->calls;
	r->erows = t->erows;
	if (t->nlr)
		memset(t->lr, 0, t->nlr * sizeof(*t->lr));
	for (i = 0; i < t->nfw; i++)
		t->fw[i].self = t->fw[i].total = t->fw[i].calls = t->fw[i].active = 0;
	t->erows = NULL;
	t->nerows = t->caperows = 0;
	memset(&t->trips, 0, sizeof(t->trips));
	memset(&t->edges, 0, sizeof(t->edges));
	memset(&t->tails, 0, sizeof(t->tails));
	memset(&t->calls, 0, sizeof(t->calls));
	return 0;
}

void lsa_prows_release(struct lsa_prows *r)
{
	free(r->lr);
	free(r->fw);
	free(r->erows);
	lsa_kmap_release(&r->trips);
	lsa_kmap_release(&r->edges);
	lsa_kmap_release(&r->tails);
	lsa_kmap_release(&r->calls);
	memset(r, 0, sizeof(*r));
}

void lsa_pres_release(struct lsa_pres *res)
{
	lsa_prows_release(&res->rows);
	free(res->ev);
	free(res->fr);
	free(res->pe);
	free(res->kid);
	free(res->lhead);
	free(res->fsb);
	memset(res, 0, sizeof(*res));
}

/* The joiner's loop of a worker's loop head (LSA_NONE: it has none). */
/* ---- the worker ---- */

/* Frees what t's frames and path hold in l's pools and empties them,
 * membership restored. */
static void thr_drop(struct lsa_loops *l, struct lsa_thr *t)
{
	uint32_t i;

	for (i = t->npath; i-- > 0;) {
		struct lsa_pent *e = &t->path[i];

		t->mem[e->sb->id] = e->prev;
		if (e->acc != LSA_NONE) {
			lsa_loops_kids_free(l, l->acc[e->acc].kids);
			lsa_loops_acc_free(l, e->acc);
		}
		if (e->inst != LSA_NONE)
			lsa_loops_inst_free(l, e->inst);
		if (e->ei != LSA_NONE)	/* (the eager pass's open entries) */
			lsa_loops_inst_free(l, e->ei);
	}
	for (i = 0; i < t->nfr; i++)
		lsa_loops_kids_free(l, t->fr[i].kids);
	t->npath = t->nfr = t->nos = 0;
	l->nsq = 0;
	l->sqlive = 0;
}

void lsa_pw_model(struct lsa_pmodel *m, const struct lsa_loops *l)
{
	m->d = l->d;
	m->r = l->r;
	m->sym = l->sym;
	m->p = l->p;
	m->run = l->run;
	m->o = l->o;
	m->know = l->know;
	m->memo = l->memo;
	m->eager = l->eager;
}

int lsa_pw_init_model(struct lsa_pworker *w, const struct lsa_pmodel *m,
		      pthread_mutex_t *symlock)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->kslot = SIZE_MAX;
	err = lsa_loops_new(&w->l, m->d, m->r, m->sym, m->p, m->run, &m->o);
	if (err)
		return err;
	w->l->know = m->know;
	w->l->memo = m->memo;
	w->l->eager = m->eager;
	w->l->symlock = symlock;
	return 0;
}

int lsa_pw_init(struct lsa_pworker *w, const struct lsa_loops *model,
		pthread_mutex_t *symlock)
{
	struct lsa_pmodel m;

	lsa_pw_model(&m, model);
	return lsa_pw_init_model(w, &m, symlock);
}

void lsa_pw_free(struct lsa_pworker *w)
{
	if (w->t) {
		thr_drop(w->l, w->t);
		w->t->sn = NULL;
	}
	lsa_loops_free(w->l);
	free(w->sn.pacc);
	free(w->sn.ev);
	memset(w, 0, sizeof(*w));
}

/* The worker's function of the learning pass's function f. */
static uint32_t func_learnt(struct lsa_loops *l, uint32_t f)
{
	const struct lsd_sblock *sb = f == LSA_NONE ? NULL : lsa_know_func(l->know, f);

	return sb ? lsa_loops_func_sb(l, sb) : LSA_NONE;
}

void lsa_snap_thread(struct lsa_thr *t, const struct lsa_ksnap *s)
{
	t->deep = s ? s->deep : 0;
	t->gaps = s ? s->gaps : 0;
	t->psb = s ? s->psb : NULL;
	t->pexit = s ? s->pexit : 0;
	t->pnext = s ? s->pnext : 0;
	t->landing = s ? s->landing : 0;
}

void lsa_frame_blank(struct lsa_thr *t, struct lsa_frame *f, uint32_t base, uint64_t ret,
		     int async)
{
	/* every field: the frames' array is grown and reused uninitialized,
	 * and a field left as it was (the hand-over's hto, the memo's
	 * serial) would be read as the frame's */
	memset(f, 0, sizeof(*f));
	f->base = base;
	f->ret = ret;
	f->async = async;
	f->kids = f->func = f->cur = LSA_NONE;
	f->serial = ++t->nserial;
	/* the eager pass's as a frame pushed in a frame of no open entry */
	f->osb = t->nos;
	f->lz = LSA_NONE;
	f->hto = LSA_HTO_PATH;
	f->cinst = f->cblk = f->ccallee = LSA_NONE;
	f->called = !async;
}

int lsa_snap_frame(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_sfr *x,
		   uint32_t base)
{
	struct lsa_frame *f = &t->fr[t->nfr];

	/* (the eager pass's worker decides the hand-over: loops_epiece.c) */
	lsa_frame_blank(t, f, base, x->ret, x->async);
	f->func = func_learnt(l, x->func);
	f->cur = func_learnt(l, x->cur);
	f->start = f->cur_start = LSA_MARK;
	f->ccallee = f->func;
	/* the spans open: span_close() counts the outermost */
	if (lsa_loops_span_open(t, f->func) ||
	    (f->cur != f->func && lsa_loops_span_open(t, f->cur)))
		return -LS_ENOMEM;
	t->nfr++;
	return 0;
}

int lsa_snap_entry(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_spe *x)
{
	uint32_t p = t->npath - 1, loop = lsa_loops_head(t, x->sb->id), k;
	int err;

	if (x->lb) {
		if (!loop)
			return -LS_EINVAL;
		if ((err = lsa_loops_inst_new(l, loop - 1, &k)))
			return err;
		l->inst[k].trips = x->lb + 1;
		t->path[p].inst = k;
	}
	if (x->callee1 != LSA_NONE) {
		if ((err = lsa_loops_acc_new(l, &k)))
			return err;
		l->acc[k].callee = x->callee1 ? func_learnt(l, x->callee1 - 1) : LSA_NONE;
		l->acc[k].called = 1;
		t->path[p].acc = k;
	}
	return 0;
}

/* lsa_pw_begin() of an eager pass: the state made from the snapshot
 * (loops_epiece.c).  Returns 0, -LS_ENOMEM or -LS_EINVAL. */
static int pw_begin_eager(struct lsa_loops *l, struct lsa_thr *t, struct lsa_psn *sn,
			  const struct lsa_ksnap *s)
{
	uint32_t i;
	int err;

	if ((err = lsa_eager_from_snap(l, t, s)))
		return err;
	if (t->npath > sn->npacc) {
		uint8_t *p = realloc(sn->pacc, t->npath);

		if (!p)
			return -LS_ENOMEM;
		sn->pacc = p;
		sn->npacc = t->npath;
	}
	for (i = 0; i < t->npath; i++)
		sn->pacc[i] = t->path[i].acc != LSA_NONE;
	sn->snf = t->nfr;
	sn->snp = t->npath;
	sn->sno = t->nos;
	sn->quiet = 0;
	sn->nev = 0;
	sn->popev = LSA_NONE;
	sn->err = 0;
	return 0;
}

int lsa_pw_begin(struct lsa_pworker *w, size_t kslot, const struct lsa_ksnap *s)
{
	static const struct lsa_sfr start = { 0, 0, LSA_NONE, LSA_NONE, 0 };
	struct lsa_loops *l = w->l;
	struct lsa_psn *sn = &w->sn;
	struct lsa_thr *t;
	uint32_t i, nfr = s ? s->nfr : 1, npe = s ? s->npe : 0;
	int err;

	/* a thread per knowledge; its memos' tries kept from piece to piece */
	if (w->kslot != kslot) {
		if (w->t)
			thr_drop(l, w->t);
		w->t = NULL;
		w->kslot = SIZE_MAX;
		if (!(t = lsa_loops_wk_thread(l, kslot)))
			return -LS_ENOMEM;
		w->t = t;
		w->kslot = kslot;
	}
	t = w->t;
	thr_drop(l, t);
	t->sn = sn;
	t->insns = 0;
	memset(&t->outside, 0, sizeof(t->outside));
	if (l->eager)
		return pw_begin_eager(l, t, sn, s);
	lsa_snap_thread(t, s);
	if (LS_GROW32(t->fr, nfr, t->capfr, 64))
		return -LS_ENOMEM;
	if (npe > sn->npacc) {
		uint8_t *p = realloc(sn->pacc, npe);

		if (!p)
			return -LS_ENOMEM;
		sn->pacc = p;
		sn->npacc = npe;
	}
	for (i = 0; i < nfr; i++) {
		const struct lsa_sfr *x = s ? &s->fr[i] : &start;

		if ((err = lsa_snap_frame(l, t, x, x->base)))
			return err;
	}
	for (i = 0; i < npe; i++) {
		const struct lsa_spe *x = &s->pe[i];

		sn->pacc[i] = x->callee1 != LSA_NONE;
		if ((err = lsa_loops_sb_see(l, t, x->sb)) ||
		    (err = lsa_loops_path_push(l, t, x->sb)) || (err = lsa_snap_entry(l, t, x)))
			return err;
	}
	sn->snf = nfr;
	sn->snp = npe;
	sn->nev = 0;
	sn->popev = LSA_NONE;
	sn->err = 0;
	return 0;
}

int lsa_pw_blocks(struct lsa_pworker *w, const struct lsd_block *b, size_t n)
{
	return lsa_loops_thr_blocks(w->l, w->t, b, n);
}

/* Kid list k of w's detector into res.  Returns 0 or -LS_ENOMEM. */
static int kids_put(const struct lsa_loops *l, uint32_t k, struct lsa_pres *res,
		    uint32_t *at, uint32_t *n)
{
	*at = res->nkid;
	for (; k != LSA_NONE; k = l->kid[k].next) {
		if (GROWN(res->kid, res->nkid, res->capkid, 1))
			return -LS_ENOMEM;
		res->kid[res->nkid].head = l->loops[l->kid[k].loop].head;
		res->kid[res->nkid].count = l->kid[k].count;
		res->kid[res->nkid++].tot = l->kid[k].tot;
	}
	*n = res->nkid - *at;
	return 0;
}

/* What the joiner needs to read res's numbers: the worker's loop heads
 * and a block of each of its functions, as they are now (the worker goes
 * on, its tables growing).  Returns 0 or -LS_ENOMEM. */
static int names_take(const struct lsa_loops *l, struct lsa_pres *res)
{
	uint32_t i;

	res->nlhead = res->nfsb = 0;
	if (GROWN(res->lhead, res->nlhead, res->caplhead, l->nloops) ||
	    GROWN(res->fsb, res->nfsb, res->capfsb, l->nfuncs))
		return -LS_ENOMEM;
	for (i = 0; i < l->nloops; i++)
		res->lhead[i] = l->loops[i].head;
	for (i = 0; i < l->nfuncs; i++)
		res->fsb[i] = l->funcs[i].sb;
	res->nlhead = l->nloops;
	res->nfsb = l->nfuncs;
	return 0;
}

int lsa_pw_end(struct lsa_pworker *w, int last, struct lsa_pres *res)
{
	struct lsa_loops *l = w->l;
	struct lsa_thr *t = w->t;
	struct lsa_psn *sn = &w->sn;
	uint32_t i;
	int err;

	res->nev = res->nfr = res->npe = res->nkid = 0;
	lsa_prows_release(&res->rows);
	err = lsa_loops_memo_stop(l, t);
	if (!err)
		err = lsa_cm_stop(l, t);
	/* (a stop's blocks may begin recording a call: it would end in
	 * another piece, on other frames) */
	t->cm.nrec = 0;
	if (!err && last) {	/* the thread's end: every frame closed */
		t->deep = 0;
		while (t->nfr && !err)
			err = lsa_loops_frame_pop(l, t);
	}
	if (!err && sn->err)
		err = -LS_ENOMEM;
	/* the back branches' runs of the entries still open: counted here
	 * (the next piece's begin none) */
	for (i = 0; i < t->npath && !err; i++)
		if (t->path[i].inst != LSA_NONE)
			err = lsa_loops_tail_flush(t, &l->inst[t->path[i].inst]);
	for (i = 0; i < t->nos && !err; i++)
		err = lsa_loops_tail_flush(t, &l->inst[t->os[i]]);
	if (!err)
		err = lsa_loops_maps_put(t);
	if (!err)
		err = names_take(l, res);
	if (!err)
		err = rows_take(&res->rows, t);
	if (!err && (GROWN(res->ev, 0, res->capev, sn->nev) ||
		     GROWN(res->fr, 0, res->capfr, t->nfr) ||
		     GROWN(res->pe, 0, res->cappe, t->npath)))
		err = -LS_ENOMEM;
	if (err)
		return err;
	if (sn->nev)
		memcpy(res->ev, sn->ev, sn->nev * sizeof(*res->ev));
	res->nev = sn->nev;
	res->snf = sn->snf;
	res->snp = sn->snp;
	res->sno = sn->sno;
	res->nos = t->nos;
	for (i = 0; i < t->nfr && !err; i++) {
		const struct lsa_frame *f = &t->fr[i];
		struct lsa_pfr *x = &res->fr[i];

		x->ret = f->ret;
		x->start = f->start;
		x->cur_start = f->cur_start;
		x->base = f->base;
		x->func = f->func;
		x->cur = f->cur;
		x->async = f->async;
		x->fself = f->fself;
		x->ftot = f->ftot;
		if (l->eager) {		/* (the memos' pass has none) */
			x->osb = f->osb;
			x->lz = f->lz;
			x->hto = f->hto;
			x->cinst = f->cinst == LSA_NONE ? LSA_NONE : l->inst[f->cinst].pidx;
			x->cblk = f->cblk;
			x->ccallee = f->ccallee;
			x->called = f->called;
		}
		err = kids_put(l, f->kids, res, &x->kid, &x->nkid);
	}
	res->nfr = t->nfr;
	for (i = 0; i < t->npath && !err; i++) {
		const struct lsa_pent *e = &t->path[i];
		struct lsa_ppe *x = &res->pe[i];

		memset(x, 0, sizeof(*x));
		x->sb = e->sb;
		if (e->inst != LSA_NONE || e->ei != LSA_NONE) {
			const struct lsa_inst *in = &l->inst[e->inst != LSA_NONE ? e->inst : e->ei];

			x->open = e->ei != LSA_NONE;
			x->trips = in->trips;
			x->loop = l->loops[in->loop].head;
			x->self = in->self;
			x->tot = in->tot;
			x->same = in->same;
		}
		if (e->acc != LSA_NONE) {
			const struct lsa_acc *a = &l->acc[e->acc];

			x->acc = 1;
			x->callee = a->callee;
			x->called = (uint32_t)a->called;
			x->cself = a->cself;
			x->ctot = a->ctot;
			err = kids_put(l, a->kids, res, &x->kid, &x->nkid);
		}
	}
	res->npe = t->npath;
	res->outside = t->outside;
	res->insns = t->insns;
	res->blocks = l->st.blocks;
	res->eager_blocks = l->st.eager_blocks;
	res->eager_tails = l->st.eager_tails;
	res->eager_nested = l->st.eager_nested;
	res->eager_floops = l->st.eager_floops;
	l->st.blocks = l->st.eager_blocks = l->st.eager_tails = l->st.eager_nested = 0;
	l->st.eager_floops = 0;
	return err;
}
