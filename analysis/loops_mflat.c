/* loops_mflat.c - the iteration memo's flat iterations (struct lsa_mlog):
 * an outer loop's iteration with inner loops of its frame iterating in
 * it, as one sequence of blocks.
 *
 * The per-block path pops an inner loop's iteration at each of its loop
 * backs, so at the outer loop back the path holds the inner head once
 * (its entry open, with its trips) and only the inner loop's last,
 * unfinished iteration.  While an outer iteration runs through the
 * per-block path, the log keeps what each inner loop back pops (before
 * the scan does), and the inner loops' own memo stays off (it would take
 * inner iterations without a loop back).  At the outer loop back the path
 * and the log give the whole sequence (lsa_memo_flat()), which goes into
 * the outer head's trie like any other iteration (loops_memo.c); later
 * outer iterations are then matched whole, inner iterations in them.
 * The log is checked against the path: every inner entry's trips must be
 * one more than its iterations logged, the inner entries in path order;
 * a log that misses one (a stop, a landing, a frame between) is not
 * used.  Where an outer head's flat iterations keep failing (too long,
 * an inner loop nested in an inner one), it is logged no more.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_err.h"

/* Failures of an outer head's flat iterations past which it is logged
 * no more: each adds 2, each success takes 1 off (struct lsa_mflt). */
#define FLAT_BAD 16
/* Stops that hand inner iterations back, past which a head's flat
 * iterations must have been matched whole FLAT_RATIO times as often:
 * else the inner loops' own memo does better (an inner trip count that
 * varies from one outer iteration to the next, as xz's match finder's
 * byte compares: a flat iteration is matched up to the inner loop's
 * exit, then handed back, inner iterations and all). */
#define FLAT_STOPS 64
#define FLAT_RATIO 8
/* Outer iterations logged (each one's inner iterations block by block),
 * past which as many flat iterations must have been matched whole: else
 * the logs cost more than the flat iterations save (an outer loop whose
 * iterations seldom repeat one logged). */
#define FLAT_LOGS 64

int lsa_memo_log_for(const struct lsa_thr *t, uint32_t ti)
{
	const struct lsa_mlog *g = &t->memo.log;

	/* (the function the frame runs too: a jump into another one, a
	 * tail call, moves frames where the blocks of one function do not) */
	return g->on && g->ti == ti && t->nfr == g->nfr &&
	       t->fr[t->nfr - 1].serial == g->fserial && t->fr[t->nfr - 1].cur == g->cur &&
	       ti < t->npath &&
	       t->path[ti].sb == g->head && t->path[ti].inst == g->inst;
}

/* Head block id's state, the table grown to hold it; NULL when out of
 * memory (the table is a hint: without it, nothing is logged). */
static struct lsa_mflt *flt_of(struct lsa_memo *m, uint32_t id)
{
	size_t n = (size_t)id + 1 < 1024 ? 1024 : ((size_t)id + 1) * 2;
	struct lsa_mflt *p;

	if (id < m->nflt)
		return &m->flt[id];
	if (!(p = realloc(m->flt, n * sizeof(*p))))
		return NULL;
	memset(p + m->nflt, 0, (n - m->nflt) * sizeof(*p));
	m->flt = p;
	m->nflt = n;
	return &m->flt[id];
}

/* Whether head block id's flat iterations are not wanted. */
static int flat_off(const struct lsa_memo *m, uint32_t id)
{
	return id < m->nflt && (m->flt[id].off || m->flt[id].bad >= FLAT_BAD);
}

int lsa_memo_flat_may(const struct lsa_thr *t, uint32_t ti)
{
	return lsa_memo_log_for(t, ti) || !flat_off(&t->memo, t->path[ti].sb->id);
}

/* An outer iteration of head block id is to be logged: counted; 0 where
 * its flat iterations do not pay (then no more). */
static int flat_logged(struct lsa_memo *m, uint32_t id)
{
	struct lsa_mflt *f = flt_of(m, id);

	if (!f)
		return 0;
	if (++f->logs >= FLAT_LOGS && f->iters < f->logs)
		f->off = 1;
	return !f->off;
}

/* The log begins for outer entry ti, of loop entry inst. */
static void log_start(struct lsa_thr *t, uint32_t ti, uint32_t inst)
{
	struct lsa_mlog *g = &t->memo.log;

	g->on = 1;
	g->ti = ti;
	g->nfr = t->nfr;
	g->fserial = t->fr[t->nfr - 1].serial;
	g->cur = t->fr[t->nfr - 1].cur;
	g->head = t->path[ti].sb;
	g->inst = inst;
	lsa_memo_log_clear(&t->memo);
}

void lsa_memo_flat_done(struct lsa_thr *t, uint32_t id, int ok)
{
	struct lsa_mflt *f = flt_of(&t->memo, id);

	if (f && ok && f->bad)
		f->bad--;
	else if (f && !ok && f->bad < FLAT_BAD)
		f->bad += 2;
}

int lsa_memo_flat_stop(struct lsa_thr *t, uint32_t id, uint64_t iters, int back)
{
	struct lsa_memo *m = &t->memo;
	struct lsa_mflt *f = flt_of(m, id);

	if (!f || f->off)
		return 0;
	f->iters += iters;
	f->stops += back;
	if (f->stops < FLAT_STOPS || f->iters >= (uint64_t)f->stops * FLAT_RATIO)
		return 0;
	f->off = 1;
	return 1;
}

void lsa_memo_log_clear(struct lsa_memo *m)
{
	m->log.nit = m->log.nseg = 0;
	m->log.dead = 0;
}

void lsa_memo_log_set(struct lsa_thr *t, uint32_t ti, int fits)
{
	struct lsa_memo *m = &t->memo;
	struct lsa_mlog *g = &m->log;
	const struct lsa_pent *h = &t->path[ti];

	if (fits == 2 && !flat_off(m, h->sb->id) && flat_logged(m, h->sb->id)) {
		log_start(t, ti, h->inst);
	} else if (lsa_memo_log_for(t, ti)) {
		/* an iteration without inner loops: the next one is logged
		 * still (inner loops may iterate in it); one not for the
		 * memo: not */
		g->on = fits == 1;
		lsa_memo_log_clear(m);
	}
}

/* Appends block sb of kind to the log; 0 when full. */
static int log_put(struct lsa_mlog *g, const struct lsd_sblock *sb, int kind)
{
	if (g->nit == LSA_MEMO_MAX)
		return 0;
	g->it[g->nit] = sb;
	g->kind[g->nit++] = (uint8_t)kind;
	return 1;
}

/* Appends the blocks of leaf call a; 0 when full. */
static int log_leaf(const struct lsa_loops *l, struct lsa_mlog *g, const struct lsa_acc *a)
{
	uint32_t k;

	for (k = 0; a && k < a->nsq; k++)
		if (!log_put(g, l->sq[a->sq + k], k ? MK_LEAF : MK_CALLEE))
			return 0;
	return 1;
}

void lsa_memo_log_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t p)
{
	struct lsa_mlog *g = &t->memo.log;
	const struct lsa_acc *a = NULL;
	struct lsa_mseg *q;
	uint32_t i;

	if (g->nseg == LSA_MEMO_MAX)
		goto dead;
	q = &g->seg[g->nseg];
	q->p = p;
	q->at = g->nit;
	/* the leaf the head's run before called, the entries above it:
	 * what memo_fits() asks of an iteration's, of each */
	for (i = p; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];
		const struct lsd_sblock *next = i + 1 < t->npath ? t->path[i + 1].sb :
						t->path[p].sb;

		if (i > p && (e->inst != LSA_NONE || lsa_loops_func_of(l, e->sb) != g->cur ||
			      !log_put(g, e->sb, a ? MK_RETURN : MK_FRAME)))
			goto dead;
		a = lsa_loops_leaf_of(l, e);
		if (e->acc != LSA_NONE &&
		    (!a || next->start != e->sb->end || lsa_memo_leaf_heads(l, t, a) ||
		     !log_leaf(l, g, a)))
			goto dead;
	}
	/* the back branch: the last entry's block, or its leaf's last */
	if (t->psb != (a ? l->sq[a->sq + a->nsq - 1] : t->path[t->npath - 1].sb))
		goto dead;
	q->n = g->nit - q->at;
	q->tail = t->psb->id;
	g->nseg++;
	return;
dead:
	g->dead = 1;
}

/* Appends an item to fi[0 .. *n); 0 when the iteration is too long. */
static int fi_put(struct lsa_fitem *fi, uint32_t *n, const struct lsd_sblock *sb,
		  uint32_t p, uint32_t pdepth, int kind, int role)
{
	struct lsa_fitem *it = &fi[*n];

	if (*n == LSA_MEMO_MAX)	/* (blocks, the head's first among them) */
		return 0;
	it->sb = sb;
	it->p = p;
	it->pdepth = (uint16_t)pdepth;
	it->kind = (uint8_t)kind;
	it->role = (uint8_t)role;
	++*n;
	return 1;
}

/* Appends inner entry p's logged iterations (log segments from *s on),
 * each followed by the inner head again; its frame blocks pdepth from
 * d + 1 on.  Returns the iterations appended, -1 when too long. */
static int64_t fi_segs(const struct lsa_mlog *g, uint32_t *s, uint32_t p, uint32_t d,
		       const struct lsd_sblock *hsb, struct lsa_fitem *fi, uint32_t *n)
{
	int64_t segs = 0;

	for (; *s < g->nseg && g->seg[*s].p == p; ++*s, segs++) {
		const struct lsa_mseg *q = &g->seg[*s];
		uint32_t fd = d, lk = 0, k;
		int kind = MK_FRAME;

		for (k = 0; k < q->n; k++) {
			kind = g->kind[q->at + k];
			if (lsa_mk_in_leaf(kind))
				lk++;
			else
				lk = 0, fd++;
			if (!fi_put(fi, n, g->it[q->at + k], p, fd + lk, kind, FI_SEG))
				return -1;
		}
		if (!fi_put(fi, n, hsb, p, d, lsa_mk_in_leaf(kind) ? MK_RETURN : MK_FRAME,
			    FI_HEAD))
			return -1;
	}
	return segs;
}

/* lsa_memo_flat() of a log for entry ti (flat) or none. */
static uint32_t flat_items(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, int flat,
			   struct lsa_fitem *fi)
{
	const struct lsa_mlog *g = &t->memo.log;
	uint32_t n = 0, i, s = 0, k;
	int leaf = 0;

	fi_put(fi, &n, t->path[ti].sb, ti, 0, MK_FRAME, FI_ROOT);
	for (i = ti; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];
		const struct lsa_acc *a;

		if (i > ti) {
			if (!fi_put(fi, &n, e->sb, i, i - ti, leaf ? MK_RETURN : MK_FRAME, FI_OUT))
				return 0;
			if (e->inst != LSA_NONE &&
			    fi_segs(g, &s, i, i - ti, e->sb, fi, &n) + 1 !=
			    (int64_t)l->inst[e->inst].trips)
				return 0;
		}
		a = lsa_loops_leaf_of(l, e);
		for (k = 0; a && k < a->nsq; k++)
			if (!fi_put(fi, &n, l->sq[a->sq + k], i, i - ti + 1 + k,
				    k ? MK_LEAF : MK_CALLEE, i > ti ? FI_OUT : FI_ROOT))
				return 0;
		leaf = a != NULL;
	}
	/* every logged iteration placed: none of an entry gone since */
	return flat && s != g->nseg ? 0 : n;
}

uint32_t lsa_memo_flat(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, int flat,
		       struct lsa_fitem *fi)
{
	uint32_t n;

	if (!flat)
		return flat_items(l, t, ti, 0, fi);
	/* a log not this entry's (its first iteration): none to judge */
	if (!lsa_memo_log_for(t, ti))
		return 0;
	/* one that lost an inner iteration, or too long */
	n = t->memo.log.dead ? 0 : flat_items(l, t, ti, 1, fi);
	if (!n)
		lsa_memo_flat_done(t, t->path[ti].sb->id, 0);
	return n;
}
