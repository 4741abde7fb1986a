/* loops_pjoin.c - the joins of one thread's second pass in pieces: the
 * joiner makes again the moves a piece's worker noted, with the sums it
 * holds, takes the frames and entries the piece ended with, and adds the
 * piece's rows to the thread's (why that is the one pass's profile:
 * loops_piece.c, which runs a piece on its worker). */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static uint32_t loop_at(const struct lsa_loops *l, const struct lsd_sblock *head)
{
	return head && head->id < l->nsb && l->sbloop[head->id] ?
	       l->sbloop[head->id] - 1 : LSA_NONE;
}

/* The joiner's function of a worker's function f. */
static uint32_t func_at(struct lsa_loops *l, const struct lsa_pres *res, uint64_t f)
{
	if (f >= res->nfsb || !res->fsb[f])
		return LSA_NONE;
	return lsa_loops_func_sb(l, res->fsb[f]);
}

/* Adds the rows res holds into thread t of l.  Returns 0, -LS_ENOMEM, or
 * -LS_EINVAL where a loop of them is none of l's. */
static int rows_join(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_pres *res)
{
	const struct lsa_prows *r = &res->rows;
	uint32_t i, *lm;
	size_t k;
	int err = 0;

	lm = malloc((r->nlr ? r->nlr : 1) * sizeof(*lm));
	if (!lm)
		return -LS_ENOMEM;
	for (i = 0; i < r->nlr; i++)
		lm[i] = i < res->nlhead ? loop_at(l, res->lhead[i]) : LSA_NONE;
	for (i = 0; i < r->nlr && !err; i++) {
		const struct lsa_lrow *s = &r->lr[i];
		struct lsa_lrow *d;

		if (!s->entries && !s->iterations && !s->self.n[0] && !s->total.n[0])
			continue;
		if (lm[i] == LSA_NONE || !(d = lsa_loops_lrow(t, lm[i]))) {
			err = lm[i] == LSA_NONE ? -LS_EINVAL : -LS_ENOMEM;
			break;
		}
		if (s->entries && (!d->entries || s->tmin < d->tmin))
			d->tmin = s->tmin;
		if (s->tmax > d->tmax)
			d->tmax = s->tmax;
		d->entries += s->entries;
		d->iterations += s->iterations;
		d->over_e += s->over_e;
		d->over_s += s->over_s;
		lsa_cnt_add(&d->self, &s->self);
		lsa_cnt_add(&d->total, &s->total);
	}
	for (k = 0; k < r->trips.cap && !err; k++) {
		const struct lsa_kent *e = &r->trips.t[k];

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		err = e->a < r->nlr && lm[e->a] != LSA_NONE ?
		      lsa_loops_trip_add(t, lm[e->a], e->b, e->v) : -LS_EINVAL;
	}
	for (k = 0; k < r->tails.cap && !err; k++) {
		const struct lsa_kent *e = &r->tails.t[k];

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		err = e->a < r->nlr && lm[e->a] != LSA_NONE ?
		      (lsa_kmap_add(&t->tails, lm[e->a], e->b, e->v) ? -LS_ENOMEM : 0) :
		      -LS_EINVAL;
	}
	for (k = 0; k < r->calls.cap && !err; k++) {
		const struct lsa_kent *e = &r->calls.t[k];
		uint32_t loop = (uint32_t)(e->a >> 32), callee = (uint32_t)e->a;

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		if (loop >= r->nlr || lm[loop] == LSA_NONE) {
			err = -LS_EINVAL;
			break;
		}
		if (callee != LSA_NONE)
			callee = func_at(l, res, callee);
		if (lsa_kmap_add(&t->calls, (uint64_t)lm[loop] << 32 | callee, e->b, e->v))
			err = -LS_ENOMEM;
	}
	for (k = 0; k < r->edges.cap && !err; k++) {
		const struct lsa_kent *e = &r->edges.t[k];
		uint32_t parent = LSA_NONE;

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		if (e->a && (e->a - 1 >= r->nlr || (parent = lm[e->a - 1]) == LSA_NONE))
			err = -LS_EINVAL;
		else if (e->b >= r->nlr || lm[e->b] == LSA_NONE)
			err = -LS_EINVAL;
		else
			err = lsa_loops_edge_add(t, parent, lm[e->b], r->erows[e->v - 1].count,
						 r->erows[e->v - 1].total);
	}
	for (i = 0; i < r->nfw && !err; i++) {
		const struct lsa_frow *s = &r->fw[i];
		struct lsa_frow *d;
		uint32_t f;

		if (!s->self && !s->total && !s->calls)
			continue;
		f = func_at(l, res, i);
		if (f == LSA_NONE)
			continue;	/* (no name: its rows are written nowhere) */
		if (!(d = lsa_loops_frow(t, f))) {
			err = -LS_ENOMEM;
			break;
		}
		d->self += s->self;
		d->total += s->total;
		d->calls += s->calls;
	}
	free(lm);
	return err;
}

/* ---- the joiner ---- */

/* Kid list res->kid[at .. at + n) onto list *head of l.  Returns 0,
 * -LS_ENOMEM or -LS_EINVAL. */
static int kids_get(struct lsa_loops *l, const struct lsa_pres *res, uint32_t at,
		    uint32_t n, uint32_t *head)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct lsa_pkid *k = &res->kid[at + i];
		uint32_t loop = loop_at(l, k->head);

		err = loop == LSA_NONE ? -LS_EINVAL :
		      lsa_loops_kid_add(l, head, loop, k->count, &k->tot);
	}
	return err;
}

/* The moves the worker noted, made with what t holds (l->pre).  Returns
 * 0, -LS_ENOMEM or -LS_EINVAL. */
static int replay(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_pres *res,
		  uint64_t insns)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < res->nev && !err; i++) {
		const struct lsa_pev *ev = &res->ev[i];
		struct lsa_owner o;
		struct lsa_frame *f;
		struct lsa_frow *r;
		uint32_t k;

		if (!t->nfr)
			return -LS_EINVAL;
		o.fr = &t->fr[t->nfr - 1];
		o.inst = LSA_NONE;
		switch (ev->kind) {
		case PE_BACK:
		case PE_LAND:
			if (ev->at >= t->npath || ev->at < o.fr->base)
				return -LS_EINVAL;
			k = ev->at;
			if (ev->kind == PE_BACK && t->path[k].inst == LSA_NONE) {
				uint32_t h = lsa_loops_head(t, t->path[k].sb->id), ii;

				if (!h)
					return -LS_EINVAL;
				if ((err = lsa_loops_inst_new(l, h - 1, &ii)))
					return err;
				t->path[k].inst = ii;
			}
			if (ev->kind == PE_BACK)
				o.inst = t->path[k].inst;
			err = lsa_loops_scan(l, t, k + 1, o);
			o.fr = &t->fr[t->nfr - 1];
			o.inst = t->path[k].inst;
			if (!err)
				err = lsa_loops_charge(l, t, o, &t->path[k]);
			break;
		case PE_POP:
		case PE_SPAN:
			if (ev->at != t->nfr - 1)
				return -LS_EINVAL;
			f = o.fr;
			/* spans the worker found counting: from where this
			 * frame's began */
			if ((ev->kind == PE_SPAN || ev->sc) && f->cur != LSA_NONE) {
				if (!(r = lsa_loops_frow(t, f->cur)))
					return -LS_ENOMEM;
				r->total += insns + ev->insns - f->cur_start;
			}
			f = &t->fr[t->nfr - 1];
			if (ev->kind == PE_POP && ev->sf && f->func != LSA_NONE) {
				if (!(r = lsa_loops_frow(t, f->func)))
					return -LS_ENOMEM;
				r->total += insns + ev->insns - f->start;
			}
			if (ev->kind == PE_POP)
				err = lsa_loops_frame_pop(l, t);
			break;
		case PE_CLOSE:
		case PE_EBACK:
		case PE_UNLAZY:
			err = lsa_eager_replay(l, t, ev->kind, ev->at);
			break;
		default:
			return -LS_EINVAL;
		}
	}
	return err;
}

/* The frames and entries the piece ended with: added to t's where t has
 * them (the cut's), taken where new.  Returns 0, -LS_ENOMEM or
 * -LS_EINVAL. */
static int merge(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_pres *res,
		 uint64_t insns)
{
	uint32_t i;
	int err = 0;

	if (t->nfr != res->snf || t->npath != res->snp || res->snf > res->nfr ||
	    res->snp > res->npe || (l->eager && t->nos != res->sno))
		return -LS_EINVAL;
	for (i = 0; i < res->nfr && !err; i++) {
		const struct lsa_pfr *x = &res->fr[i];
		struct lsa_frame *f;

		if (i >= res->snf) {
			if (LS_GROW32(t->fr, t->nfr + 1, t->capfr, 64))
				return -LS_ENOMEM;
			f = &t->fr[t->nfr++];
			lsa_frame_blank(t, f, x->base, x->ret, x->async);
		}
		f = &t->fr[i];
		if (f->base != x->base)
			return -LS_EINVAL;
		if (x->func != LSA_NONE)
			f->func = func_at(l, res, x->func);
		if (x->cur != LSA_NONE)
			f->cur = func_at(l, res, x->cur);
		if (x->start != LSA_MARK)
			f->start = insns + x->start;
		if (x->cur_start != LSA_MARK)
			f->cur_start = insns + x->cur_start;
		if (l->eager) {
			if (i >= res->snf) {
				f->osb = x->osb;
				f->hto = x->hto;
				f->cblk = x->cblk;
				f->ccallee = x->ccallee == LSA_NONE ? LSA_NONE :
					     func_at(l, res, x->ccallee);
				f->called = x->called;
				f->cinst = x->cinst;	/* (a path entry until below) */
			}
			f->lz = x->lz;
		}
		lsa_cnt_add(&f->fself, &x->fself);
		lsa_cnt_add(&f->ftot, &x->ftot);
		err = kids_get(l, res, x->kid, x->nkid, &t->fr[i].kids);
	}
	for (i = 0; i < res->npe && !err; i++) {
		const struct lsa_ppe *x = &res->pe[i];
		struct lsa_pent *e;
		uint32_t k;

		if (i >= res->snp && ((err = lsa_loops_sb_see(l, t, x->sb)) ||
				      (err = lsa_loops_path_push(l, t, x->sb))))
			return err;
		e = &t->path[i];
		if (e->sb != x->sb)
			return -LS_EINVAL;
		if (x->open) {		/* the eager pass's open entry */
			if (!l->eager)
				return -LS_EINVAL;
			if (e->ei == LSA_NONE) {
				uint32_t loop = loop_at(l, x->loop);

				if (i < res->snp || loop == LSA_NONE)
					return -LS_EINVAL;
				if ((err = lsa_loops_inst_new(l, loop, &k)) ||
				    (err = lsa_eager_os_push(t, k)))
					return err;
				e = &t->path[i];
				e->ei = k;
				l->inst[k].pidx = i;
				l->inst[k].trips = x->trips;
			}
			lsa_cnt_add(&l->inst[e->ei].self, &x->self);
			lsa_cnt_add(&l->inst[e->ei].tot, &x->tot);
			lsa_cnt_add(&l->inst[e->ei].same, &x->same);
		} else if (x->loop) {
			if (e->inst == LSA_NONE) {
				uint32_t loop = loop_at(l, x->loop);

				if (loop == LSA_NONE)
					return -LS_EINVAL;
				if ((err = lsa_loops_inst_new(l, loop, &k)))
					return err;
				e = &t->path[i];
				e->inst = k;
			}
			lsa_cnt_add(&l->inst[e->inst].self, &x->self);
			lsa_cnt_add(&l->inst[e->inst].tot, &x->tot);
			lsa_cnt_add(&l->inst[e->inst].same, &x->same);
		}
		if (x->acc) {
			struct lsa_acc *a;

			if (e->acc == LSA_NONE) {
				if ((err = lsa_loops_acc_new(l, &k)))
					return err;
				e = &t->path[i];
				e->acc = k;
			}
			a = &l->acc[e->acc];
			a->callee = x->callee == LSA_NONE ? LSA_NONE : func_at(l, res, x->callee);
			a->called = (int)x->called;
			lsa_cnt_add(&a->cself, &x->cself);
			lsa_cnt_add(&a->ctot, &x->ctot);
			err = kids_get(l, res, x->kid, x->nkid, &l->acc[e->acc].kids);
		}
	}
	if (err || !l->eager)
		return err;
	/* the new frames' calling owners, by their heads' entries */
	for (i = res->snf; i < res->nfr; i++) {
		struct lsa_frame *f = &t->fr[i];

		if (f->cinst == LSA_NONE)
			continue;
		if (f->cinst >= t->npath || t->path[f->cinst].ei == LSA_NONE)
			return -LS_EINVAL;
		f->cinst = t->path[f->cinst].ei;
	}
	return t->nos == res->nos ? 0 : -LS_EINVAL;
}

int lsa_piece_join(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_pres *res,
		   uint64_t *insns)
{
	int err;

	l->pre = 1;
	err = replay(l, t, res, *insns);
	l->pre = 0;
	if (!err)
		err = merge(l, t, res, *insns);
	if (!err)
		err = rows_join(l, t, res);
	if (err)
		return err;
	lsa_cnt_add(&t->outside, &res->outside);
	*insns += res->insns;
	t->insns = *insns;
	l->st.blocks += res->blocks;
	l->st.eager_blocks += res->eager_blocks;
	l->st.eager_tails += res->eager_tails;
	l->st.eager_nested += res->eager_nested;
	l->st.eager_floops += res->eager_floops;
	return 0;
}
