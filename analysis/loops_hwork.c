/* loops_hwork.c - the worker of the learning pass in halves: the
 * chunks after the cut, learned from a twin decoder as excursions above
 * the spine, and the log the joiner takes them from (loops_halves.c says
 * how the two go together). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_halves.h"
#include "analysis/loops_piece.h"
#include "ls_buf.h"
#include "ls_err.h"

/* ---- the worker ---- */

static size_t hsnap_bytes(const struct hsnap *s)
{
	return sizeof(*s) + s->nfr * sizeof(*s->fr) + s->npe * sizeof(*s->pe);
}

/* Frees what event e holds (h->mu held). */
void lsa_hw_ev_free(struct lsa_hw *h, struct hev *e)
{
	if (e->s) {
		h->snapbytes -= hsnap_bytes(e->s);
		free(e->s->fr);
		free(e->s->pe);
		free(e->s);
		e->s = NULL;
	}
}

/* Appends e (h->mu held).  Returns 0 or -LS_ENOMEM. */
static int ev_put(struct lsa_hw *h, const struct hev *e)
{
	/* (the events taken go: the queue holds those to come) */
	if (h->evhead >= 4096 && h->evhead * 2 >= h->nev) {
		memmove(h->ev, h->ev + h->evhead, (h->nev - h->evhead) * sizeof(*h->ev));
		h->nev -= h->evhead;
		h->evhead = 0;
	}
	if (LS_GROW(h->ev, h->nev + 1, h->capev, 256))
		return -LS_ENOMEM;
	h->ev[h->nev++] = *e;
	return 0;
}

static int ev_add(struct lsa_hw *h, const struct hev *e)
{
	int err;

	pthread_mutex_lock(&h->mu);
	err = ev_put(h, e);
	if (h->nev - h->evhead > HW_EVMAX)
		h->stopping = 1;
	pthread_mutex_unlock(&h->mu);
	return err;
}

/* Where block b of the batch under way is (the worker's blocks before
 * it); 0 if it is none of the batch's (a block the memo hands back). */
static int at(const struct lsa_hw *h, const struct lsd_block *b, uint64_t *p)
{
	if (!h->batch || b < h->batch || b >= h->batch + h->nb)
		return 0;
	*p = h->bpos + (uint64_t)(b - h->batch);
	return 1;
}

int lsa_hw_taint(struct lsa_thr *t)
{
	t->hw->taint = 1;
	return -LS_EEOF;
}

int lsa_hw_fact(struct lsa_thr *t, int kind, const struct lsd_sblock *a,
		const struct lsd_sblock *b)
{
	struct lsa_hw *h = t->hw;
	int err = 0;

	if (!h->open) {		/* (the spine learns nothing) */
		h->bad = 1;
		return 0;
	}
	pthread_mutex_lock(&h->mu);
	if (LS_GROW(h->fa, h->nfa + 1, h->capfa, 1024))
		err = -LS_ENOMEM;
	else
		h->fa[h->nfa++] = (struct hfact){ kind, a, b };
	pthread_mutex_unlock(&h->mu);
	return err;
}

/* Spine block b for the joiner.  Returns 1 (the spine's), or
 * -LS_ENOMEM. */
static int spine_put(struct lsa_hw *h, const struct lsd_block *b)
{
	if (LS_GROW(h->lsp, h->nlsp + 1, h->caplsp, 1024))
		return -LS_ENOMEM;
	h->lsp[h->nlsp++] = (struct hblk){ b->sb, b->next, b->exit };
	return 1;
}

/* Hands the spine blocks over (h->mu held).  Returns 0 or -LS_ENOMEM. */
static int spine_flush(struct lsa_hw *h)
{
	if (!h->nlsp)
		return 0;
	if (h->sphead >= 4096 && h->sphead * 2 >= h->nsp) {
		memmove(h->sp, h->sp + h->sphead, (h->nsp - h->sphead) * sizeof(*h->sp));
		h->nsp -= h->sphead;
		h->sphead = 0;
	}
	if (LS_GROW(h->sp, h->nsp + h->nlsp, h->capsp, 4096))
		return -LS_ENOMEM;
	memcpy(h->sp + h->nsp, h->lsp, h->nlsp * sizeof(*h->sp));
	h->nsp += h->nlsp;
	h->nlsp = 0;
	if (h->nsp - h->sphead > HW_SPMAX)
		h->stopping = 1;
	return 0;
}

int lsa_hw_moved(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
		 uint32_t nfr0)
{
	struct lsa_hw *h = t->hw;
	uint64_t p;
	struct hev e = { 0 };

	(void)l;
	if (t->nfr > 1) {
		if (nfr0 > 1) {
			if (t->nfr > h->maxfr)
				h->maxfr = t->nfr;
			return 0;
		}
		if (!at(h, b, &p)) {
			h->bad = 1;
			return -LS_EEOF;
		}
		e.kind = HE_BEGIN;
		e.at = p;
		e.gaps = t->gaps;
		e.blk = (struct hblk){ b->sb, b->next, b->exit };
		h->open = 1;
		h->ob = p;
		h->of0 = h->nfa;
		h->maxfr = t->nfr;
		return ev_add(h, &e);
	}
	if (!h->open && !h->stopping)
		return spine_put(h, b);
	if (!at(h, b, &p)) {
		h->bad = 1;
		return -LS_EEOF;
	}
	if (h->open) {		/* the excursion ended: b is the spine's */
		int err;

		e.kind = HE_END;
		e.at = p;
		e.gaps = t->gaps;
		e.maxfr = h->maxfr;
		e.blk = (struct hblk){ t->psb, t->pnext, t->pexit };
		pthread_mutex_lock(&h->mu);
		e.f0 = h->of0;
		e.nf = h->nfa - h->of0;
		err = ev_put(h, &e);
		if (h->nev - h->evhead > HW_EVMAX)
			h->stopping = 1;
		pthread_mutex_unlock(&h->mu);
		h->open = 0;
		if (err)
			return err;
	}
	if (h->stopping) {	/* the joiner learns from b on */
		pthread_mutex_lock(&h->mu);
		h->fin_at = p;
		pthread_mutex_unlock(&h->mu);
		return -LS_EEOF;
	}
	return spine_put(h, b);
}

/* The worker's function f as a block of it (NULL: none). */
static const struct lsd_sblock *func_sb(const struct lsa_loops *lw, uint32_t f)
{
	return f == LSA_NONE || f >= lw->nfuncs ? NULL : lw->funcs[f].sb;
}

/* The worker's frames and paths of its open excursion, at chunk c's
 * start (its memo stopped).  Returns 0 or -LS_ENOMEM. */
static int w_snap(struct lsa_hw *h, size_t c)
{
	struct lsa_thr *t = h->t;
	struct hev e = { 0 };
	struct hsnap *s;
	uint32_t i, b0 = t->fr[1].base;
	size_t bytes;
	int err;

	bytes = sizeof(*s) + (t->nfr - 1) * sizeof(*s->fr) + (t->npath - b0) * sizeof(*s->pe);
	pthread_mutex_lock(&h->mu);
	bytes = h->snapbytes + bytes > LSA_SNAP_BYTES / 2 ? 0 : bytes;
	pthread_mutex_unlock(&h->mu);
	if (!bytes)
		return 0;	/* (a longer piece of the second pass) */
	if (!(s = calloc(1, sizeof(*s))))
		return -LS_ENOMEM;
	s->nfr = t->nfr - 1;
	s->npe = t->npath - b0;
	s->fr = malloc((s->nfr ? s->nfr : 1) * sizeof(*s->fr));
	s->pe = malloc((s->npe ? s->npe : 1) * sizeof(*s->pe));
	e.s = s;
	if (!s->fr || !s->pe) {
		free(s->fr);
		free(s->pe);
		free(s);
		return -LS_ENOMEM;
	}
	s->deep = t->deep;
	s->gaps = t->gaps;
	s->pnext = t->pnext;
	s->psb = t->psb;
	s->pexit = t->pexit;
	s->landing = t->landing;
	for (i = 0; i < s->nfr; i++) {
		const struct lsa_frame *f = &t->fr[i + 1];

		s->fr[i] = (struct hsfr){ f->ret, f->base - b0, f->async,
					  func_sb(h->lw, f->func), func_sb(h->lw, f->cur) };
	}
	for (i = 0; i < s->npe; i++) {
		const struct lsa_pent *pe = &t->path[b0 + i];

		s->pe[i] = (struct hspe){ pe->sb, NULL, pe->lb, 0 };
		if (pe->acc != LSA_NONE) {
			s->pe[i].call = pe->acc ? 2 : 1;
			s->pe[i].callee = pe->acc ? func_sb(h->lw, pe->acc - 1) : NULL;
		}
	}
	e.kind = HE_SNAP;
	e.at = h->pos;
	e.chunk = c;
	e.gaps = t->gaps;
	pthread_mutex_lock(&h->mu);
	h->snapbytes += bytes;
	err = ev_put(h, &e);
	if (err)
		lsa_hw_ev_free(h, &e);
	pthread_mutex_unlock(&h->mu);
	return err;
}

static int w_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsa_hw *h = arg;
	int err, quit;

	(void)stream;
	h->batch = b;
	h->nb = n;
	h->bpos = h->pos;
	err = lsa_loops_learn_blocks(h->lw, h->t, b, n);
	h->batch = NULL;
	if (err)
		return err;
	h->pos += n;
	pthread_mutex_lock(&h->mu);
	err = spine_flush(h);
	h->mark = h->pos;
	quit = h->quit;
	if (h->jwait && h->mark >= h->jwant)
		pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return err ? err : quit ? -LS_EEOF : 0;
}

static int w_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return w_blocks(arg, stream, b, 1);
}

/* The chunks' blocks alone: the stream, its thread and its losses are
 * the joiner's. */
static const struct lsd_callbacks w_callbacks = {
	.block = w_block,
	.blocks = w_blocks,
};

static int w_open(struct lsa_hw *h)
{
	const struct lsa_loops *l = h->l;
	int err;

	if ((err = lsd_open_twin(&h->tw, l->d)) ||
	    (err = lsa_loops_new(&h->lw, h->tw, l->r, l->sym, l->p, l->run, &l->o)) ||
	    (err = lsa_loops_learn(h->lw, &h->kw)))
		return err;
	h->lw->symlock = &h->symlock;
	if ((err = lsa_loops_stream_begin(h->lw, h->stream, 0, 0, 0)))
		return err;
	if (!(h->t = lsa_loops_thread(h->lw, h->stream)))
		return -LS_ENOMEM;
	h->t->hw = h;
	return 0;
}

/* Chunk c begins (c == h->nc: the stream ends) after the worker's
 * blocks so far.  Returns 0 or -LS_ENOMEM. */
static int chunk_ev(struct lsa_hw *h, size_t c)
{
	struct hev e = { 0 };

	e.kind = HE_CHUNK;
	e.at = h->pos;
	e.chunk = c;
	return ev_add(h, &e);
}

int lsa_hw_probe_rule(unsigned k, uint64_t w, uint64_t s, uint64_t prev, uint64_t win,
		      uint64_t *share)
{
	*share = w ? (s << 10) / w : 0;
	if (s * HW_SPINE_DIV <= w)
		return 1;
	if ((k && *share >= prev) || w < win || k + 1 >= HW_PROBE_WINDOWS)
		return -1;
	return 0;
}

/* The probe's decode: the blocks from the cut, at the least call depth
 * reached so far (the spine) or above it. */
struct scout {
	uint64_t win;		/* blocks a window */
	uint64_t w, s, prev;	/* this window's blocks, at the spine */
	int64_t depth, low;
	unsigned k;
	int answer;
};

/* The probe's blocks: each counted at the spine where the depth is the
 * least so far, before its exit moves it; a window answered, -LS_EEOF
 * stops the decode. */
static int s_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct scout *sc = arg;
	size_t i;

	(void)stream;
	for (i = 0; i < n; i++) {
		sc->s += sc->depth == sc->low;
		if (b[i].exit == LSD_EXIT_CALL || b[i].exit == LSD_EXIT_ICALL) {
			sc->depth++;
		} else if (b[i].exit == LSD_EXIT_RET && --sc->depth < sc->low) {
			sc->low = sc->depth;
		}
	}
	sc->w += n;
	if (sc->w < sc->win)
		return 0;
	sc->answer = lsa_hw_probe_rule(sc->k++, sc->w, sc->s, sc->prev, sc->win, &sc->prev);
	sc->w = sc->s = 0;
	return sc->answer ? -LS_EEOF : 0;
}

static int s_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return s_blocks(arg, stream, b, 1);
}

static const struct lsd_callbacks s_callbacks = {
	.block = s_block,
	.blocks = s_blocks,
};

/* The probe (loops_halves.h), on the twin: 1 or -1, as h->probe, its
 * windows in *k.  LOOPSCOPE_HALVES_PROBE: blocks a window (tests),
 * else HW_PROBE. */
static int scout(struct lsa_hw *h, unsigned *k)
{
	struct scout sc;
	size_t c;
	int err = 0;

	memset(&sc, 0, sizeof(sc));
	sc.win = lsa_env_num("LOOPSCOPE_HALVES_PROBE", HW_PROBE);
	if (!sc.win)
		sc.win = 1;
	for (c = h->c0; !err && !sc.answer && c < h->nc; c++)
		err = lsd_decode_chunks(h->tw, h->stream, c, c, &s_callbacks, &sc, NULL);
	if (err && err != -LS_EEOF) {
		sc.answer = -1;
	} else if (!sc.answer) {	/* (the stream ended first) */
		sc.answer = sc.w ? lsa_hw_probe_rule(sc.k, sc.w, sc.s, sc.prev, sc.win,
						     &sc.prev) : 1;
		sc.k += !!sc.w;
	}
	*k = sc.k;
	return sc.answer;
}

void *lsa_hw_main(void *arg)
{
	struct lsa_hw *h = arg;
	size_t c;
	int err = w_open(h);

	if (!err && !h->probe) {
		unsigned k;
		int p = scout(h, &k);

		pthread_mutex_lock(&h->mu);
		h->probe = p;
		h->pwin = k;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
		if (p < 0)
			err = -LS_EEOF;
	}
	for (c = h->c0; !err && c < h->nc; c++) {
		/* where the chunk begins; a cut inside an excursion: the
		 * worker's part of it */
		if (c > h->c0 && !(err = lsa_loops_learn_stop(h->lw, h->t)) &&
		    !(err = chunk_ev(h, c)) && h->open)
			err = w_snap(h, c);
		if (!err)
			err = lsd_decode_chunks(h->tw, h->stream, c, c, &w_callbacks, h, NULL);
	}
	/* the stream's end; inside an excursion: its facts there */
	if (!err && !(err = lsa_loops_learn_stop(h->lw, h->t)))
		err = chunk_ev(h, h->nc);
	if (!err && h->open) {
		struct hev e = { 0 };

		e.kind = HE_END;
		e.at = h->pos;
		e.gaps = h->t->gaps;
		e.maxfr = h->maxfr;
		e.blk = (struct hblk){ h->t->psb, h->t->pnext, h->t->pexit };
		pthread_mutex_lock(&h->mu);
		e.f0 = h->of0;
		e.nf = h->nfa - h->of0;
		err = ev_put(h, &e);
		pthread_mutex_unlock(&h->mu);
		h->open = 0;
	}
	pthread_mutex_lock(&h->mu);
	if (!err) {
		if ((err = spine_flush(h)) == 0) {
			h->fin_at = h->mark = h->pos;
			h->whole = 1;
		}
	} else if (err == -LS_EEOF && !h->taint && !h->bad && h->stopping) {
		/* stopped at a spine block (fin_at): the joiner's from there */
		if ((err = spine_flush(h)) == 0)
			h->mark = h->fin_at;
	}
	h->nevok = h->nev;
	if (err) {
		/* A taint (or a failure) in a batch: the log holds the
		 * batches before it.  The rest is the joiner's, from the
		 * open excursion on if it began before them. */
		h->taint = h->open && h->ob < h->mark;
		h->fin_at = h->taint ? h->ob : h->mark;
		while (h->nevok > h->evhead && h->ev[h->nevok - 1].at >= h->fin_at)
			h->nevok--;
		if (err != -LS_EEOF || h->bad)
			h->werr = err == -LS_EEOF ? -LS_EINVAL : err;
	}
	h->fin = 1;
	if (!h->probe)
		h->probe = h->werr ? -1 : 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

