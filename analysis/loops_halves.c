/* loops_halves.c - the learning pass of one thread's stream on two cores.
 *
 * The learning pass is the detector's serial part: at two jobs its
 * decode ran on one core and its learner on the other, bounded by the
 * learner (about half of a one-core analysis) and by the blocks copied
 * between the cores.  Here the calling thread, the joiner, decodes and
 * learns the chunks before a cut as one pass does.  A worker
 * (loops_hwork.c) learns the chunks after the cut at once, decoded by a
 * twin of the pass's decoder (decoder/twin.c), from nothing: one frame,
 * the spine, standing for the frame that runs at the cut and, when that
 * returns, for the frames below.
 *
 * A frame the worker pushes above the spine begins an excursion.  A
 * frame begins with an empty path, so what the blocks of an excursion
 * teach (heads, bodies, landings: sets, merged in order) is what one
 * pass learns from them, unless a move there asks the frames below it:
 * a return that matches none of the excursion's frames, a jump into a
 * function only the spine runs, a sigreturn to no handler of its own, a
 * hole the excursion's function does not go on after, a depth past the
 * most.  There the worker stops (a taint).  The spine's own blocks the
 * worker does not learn but logs.  It notes each excursion's first and
 * last block and the facts new to it there, in order; where each chunk
 * begins; and its frames and paths where a chunk begins inside an
 * excursion (for the second pass's cuts).
 *
 * The joiner then takes the worker's log, in order: the spine's blocks it
 * learns itself, on its true frames.  An excursion's first block it
 * learns too (the move, a push, it checks), then takes the excursion's
 * facts in order, and its last block as the one the next block follows.
 * At a chunk inside an excursion its cut is its own frames below the
 * excursion and the worker's above.  So every fact comes in the order
 * one pass learns it (loops are numbered as one pass numbers them).  Its
 * decoder names the twin's blocks as it meets them (lsd_sblock_adopt()),
 * and every one of them at the end, for the second pass, and takes the
 * chunks' starts from the worker's counts (lsd_chunk_starts_put()).
 *
 * Where the worker stopped (a taint, or a log grown past its bounds: a
 * spine that runs and calls on), the joiner decodes and learns the rest
 * itself.  Only a taint inside an excursion the joiner has begun to
 * skip fails the pass (-LS_EINVAL, lsa_loops.hfail): the caller then
 * makes it again whole.  Where the spine runs most of the blocks after
 * the cut (a loop at the spine: bench/'s stencil and spmv), the pass is
 * not cut at all: the worker's probe, a decode that follows calls and
 * returns alone, says so before it learns (loops_halves.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_halves.h"
#include "analysis/loops_piece.h"
#include "ls_buf.h"
#include "ls_err.h"

/* ---- the joiner ---- */

/* The pass's static block that is the twin's sb (NULL: sb NULL, or an
 * error in *err). */
static const struct lsd_sblock *ren(struct lsa_hw *h, const struct lsd_sblock *sb, int *err)
{
	const struct lsd_sblock *x = NULL;
	int e;

	if (!sb)
		return NULL;
	if ((e = lsd_sblock_adopt(h->l->d, h->stream, sb, &x)))
		*err = e;
	return x;
}

/* The pass's function of a block of the worker's function (LSA_NONE:
 * none). */
static uint32_t ren_func(struct lsa_hw *h, const struct lsd_sblock *sb, int *err)
{
	const struct lsd_sblock *x = ren(h, sb, err);

	return x ? lsa_loops_func_sb(h->l, x) : LSA_NONE;
}

/* A block of the worker's log as the pass's.  Returns 0 or an error. */
static int ren_blk(struct lsa_hw *h, const struct hblk *w, struct lsd_block *b)
{
	int err = 0;

	memset(b, 0, sizeof(*b));
	b->sb = ren(h, w->sb, &err);
	if (!err && !b->sb)
		err = -LS_EINVAL;
	if (err)
		return err;
	b->id = b->sb->id;
	b->exit = w->exit;
	b->next = w->next;
	return 0;
}

/* Fails the pass: it is made again whole (lsa_loops.hfail). */
static int fail(struct lsa_hw *h)
{
	h->l->hfail = 1;
	return -LS_EINVAL;
}

/* The excursion begins with e's block: the joiner makes the move itself,
 * which must push one frame.  Returns 0 or an error. */
static int j_begin(struct lsa_hw *h, struct lsa_thr *t, const struct hev *e)
{
	struct lsa_loops *l = h->l;
	uint32_t nfr0 = t->nfr;
	struct lsd_block b;
	int err;

	/* the block through the per-block path, the cut before it taken */
	if ((err = ren_blk(h, &e->blk, &b)) || (err = lsa_loops_learn_stop(l, t)) ||
	    (err = lsa_loops_blocks(l, h->stream, &b, 1)) || (err = lsa_loops_learn_stop(l, t)))
		return err == -LS_EINVAL ? fail(h) : err;
	h->jq++;
	if (t->nfr != nfr0 + 1 || t->deep) {
		/* (a move the worker took for a push and the true frames
		 * for another: the rest is the joiner's) */
		h->off = 1;
		return 0;
	}
	/* no iteration kept across what the joiner does not see */
	lsa_fm_dirty(t);
	h->jin = 1;
	h->wgaps0 = e->gaps;
	h->nexc++;
	return 0;
}

/* The excursion's facts, in order, its last block, its holes.  Returns 0
 * or an error. */
static int j_end(struct lsa_hw *h, struct lsa_thr *t, const struct hev *e)
{
	struct lsa_loops *l = h->l;
	struct lsd_block last;
	struct hfact *fa;
	size_t i;
	int err = 0;

	if (t->nfr + e->maxfr - 2 >= LSA_MAX_FRAMES)
		return fail(h);	/* (one pass went deep there) */
	if (!(fa = malloc((e->nf ? e->nf : 1) * sizeof(*fa))))
		return -LS_ENOMEM;
	pthread_mutex_lock(&h->mu);
	memcpy(fa, h->fa + e->f0, e->nf * sizeof(*fa));
	pthread_mutex_unlock(&h->mu);
	for (i = 0; i < e->nf && !err; i++) {
		const struct lsd_sblock *a = ren(h, fa[i].a, &err), *b = ren(h, fa[i].b, &err);
		uint32_t loop;

		if (!err && (!a || (fa[i].kind == LSA_HF_BODY && !b)))
			err = -LS_EINVAL;
		if (err)
			break;
		switch (fa[i].kind) {
		case LSA_HF_HEAD:
			err = lsa_loops_know_head(l, t, a, &loop);
			break;
		case LSA_HF_BODY:
			err = lsa_loops_know_head(l, t, a, &loop);
			if (!err)
				err = lsa_loops_know_body(l, t, loop, b->id);
			break;
		default:
			err = lsa_loops_sb_see(l, t, a);
			if (!err)
				err = lsa_kmap_add(&t->land, 0, a->id, 1);
			break;
		}
	}
	free(fa);
	if (!err)
		err = ren_blk(h, &e->blk, &last);
	if (err)
		return err == -LS_EINVAL ? fail(h) : err;
	t->psb = last.sb;
	t->pexit = last.exit;
	t->pnext = last.next;
	t->landing = 0;
	t->gaps += e->gaps - h->wgaps0;
	h->jin = 0;
	return 0;
}

/* The cut at e's chunk: the joiner's frames below the excursion, the
 * worker's above.  Returns 0 or an error. */
static int j_snap(struct lsa_hw *h, struct lsa_thr *t, const struct hev *e)
{
	struct lsa_loops *l = h->l;
	const struct hsnap *w = e->s;
	const struct lsa_frame *x = &t->fr[t->nfr - 1];
	struct lsa_ksnap s;
	uint32_t i, nf = t->nfr - 1, np = x->base;
	int err = 0;

	if (e->at + h->base != t->nblk)
		return fail(h);
	if (!w || !lsa_know_cut_at(l, t, e->chunk))
		return 0;
	memset(&s, 0, sizeof(s));
	s.nfr = nf + w->nfr;
	s.npe = np + w->npe;
	s.fr = malloc((s.nfr ? s.nfr : 1) * sizeof(*s.fr));
	s.pe = malloc((s.npe ? s.npe : 1) * sizeof(*s.pe));
	if (!s.fr || !s.pe) {
		free(s.fr);
		free(s.pe);
		return -LS_ENOMEM;
	}
	s.at = t->nblk;
	s.chunk = e->chunk;
	s.deep = t->deep + w->deep;
	s.gaps = t->gaps + w->gaps - h->wgaps0;
	s.pnext = w->pnext;
	s.psb = ren(h, w->psb, &err);
	s.pexit = w->pexit;
	s.landing = w->landing;
	for (i = 0; i < nf; i++) {
		const struct lsa_frame *f = &t->fr[i];

		s.fr[i] = (struct lsa_sfr){ f->ret, f->base, f->func, f->cur, f->async };
	}
	for (i = 0; i < w->nfr; i++) {
		const struct hsfr *f = &w->fr[i];

		s.fr[nf + i] = (struct lsa_sfr){ f->ret, f->base + np, ren_func(h, f->func, &err),
						 ren_func(h, f->cur, &err), f->async };
	}
	for (i = 0; i < np; i++) {
		const struct lsa_pent *pe = &t->path[i];

		s.pe[i] = (struct lsa_spe){ pe->sb, pe->lb, pe->acc };
	}
	for (i = 0; i < w->npe; i++) {
		const struct hspe *pe = &w->pe[i];
		uint32_t c = LSA_NONE;

		if (pe->call == 1)
			c = 0;
		else if (pe->call == 2)
			c = ren_func(h, pe->callee, &err) + 1;
		s.pe[np + i] = (struct lsa_spe){ ren(h, pe->sb, &err), pe->lb, c };
	}
	if (err) {
		free(s.fr);
		free(s.pe);
		return err == -LS_EINVAL ? fail(h) : err;
	}
	return lsa_know_snap_put(l, t, &s);
}

/* Chunk e->chunk begins here: its start, counted by the worker.  Inside
 * an excursion the joiner takes no cut of its own there (the worker's
 * snapshot, if any, comes next).  Returns 0 or an error. */
static int j_chunk(struct lsa_hw *h, struct lsa_thr *t, const struct hev *e)
{
	int err = lsd_chunk_starts_put(h->l->d, h->stream, e->chunk, h->base + e->at);

	if (err)
		return err == -LS_EINVAL ? fail(h) : err;
	if (h->jin)
		t->cnext = e->chunk + 1;
	return 0;
}

/* The spine's next k blocks, learned.  Returns 0 or an error. */
static int j_spine(struct lsa_hw *h, size_t k)
{
	size_t i;
	int err = 0;

	if (k > h->capjb) {
		void *p = ls_reallocarray(h->jb, k, sizeof(*h->jb));
		void *q = ls_reallocarray(h->jw, k, sizeof(*h->jw));

		if (p)
			h->jb = p;
		if (q)
			h->jw = q;
		if (!p || !q)
			return -LS_ENOMEM;
		h->capjb = k;
	}
	pthread_mutex_lock(&h->mu);
	if (h->nsp - h->sphead < k) {
		err = -LS_EINVAL;
	} else {
		memcpy(h->jw, h->sp + h->sphead, k * sizeof(*h->jw));
		h->sphead += k;
	}
	pthread_mutex_unlock(&h->mu);
	for (i = 0; i < k && !err; i++)
		err = ren_blk(h, &h->jw[i], &h->jb[i]);
	if (!err)
		err = lsa_loops_blocks(h->l, h->stream, h->jb, k);
	if (err)
		return err == -LS_EINVAL ? fail(h) : err;
	h->jq += k;
	return 0;
}

/* The second part from the worker's log, until it ends or the joiner
 * must decode the rest (h->off).  Returns 0 or an error. */
static int j_second(struct lsa_hw *h, struct lsa_thr *t)
{
	for (;;) {
		uint64_t q = h->jq, lim, end;
		struct hev e = { 0 };
		int have, fin, err = 0;

		pthread_mutex_lock(&h->mu);
		while (q >= h->mark && !h->fin) {
			h->jwant = q + HW_WAKE;
			h->jwait = 1;
			pthread_cond_wait(&h->cv, &h->mu);
		}
		h->jwait = 0;
		fin = h->fin;
		lim = fin ? h->fin_at : h->mark;
		have = h->evhead < (fin ? h->nevok : h->nev);
		if (have)
			e = h->ev[h->evhead];
		pthread_mutex_unlock(&h->mu);
		if (have && e.at == q) {
			if (e.kind == HE_CHUNK)
				err = j_chunk(h, t, &e);
			else if (!h->jin)
				err = e.kind == HE_BEGIN ? j_begin(h, t, &e) : fail(h);
			else if (e.kind == HE_SNAP)
				err = j_snap(h, t, &e);
			else
				err = e.kind == HE_END ? j_end(h, t, &e) : fail(h);
			pthread_mutex_lock(&h->mu);
			lsa_hw_ev_free(h, &h->ev[h->evhead]);
			h->evhead++;
			pthread_mutex_unlock(&h->mu);
			if (err || h->off)
				return err;
			continue;
		}
		end = have && e.at < lim ? e.at : lim;
		if (end > q) {
			if (h->jin) {	/* the excursion's blocks: the worker's */
				t->nblk += end - q;
				h->nskip += end - q;
				h->jq = end;
			} else if ((err = j_spine(h, (size_t)(end - q < 4096 ? end - q : 4096)))) {
				return err;
			}
			continue;
		}
		if (!fin)
			continue;	/* (an event to come here) */
		if (h->jin)
			return fail(h);	/* (the worker stopped inside it) */
		/* the worker's log ends here: at the stream's end, or the
		 * rest is the joiner's */
		h->off = !h->whole;
		return 0;
	}
}

/* ---- the pass ---- */

/* The first part's decode: the pass's own callbacks, but its thread goes
 * on after the cut. */
static int h1_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	(void)arg, (void)stream, (void)st;
	return 0;
}

/* The rest decoded by the joiner, from where the worker's log ended: the
 * blocks of its first chunk before that skipped. */
static int off_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsa_hw *h = arg;

	if (h->nskip_off) {
		size_t k = h->nskip_off < n ? (size_t)h->nskip_off : n;

		h->nskip_off -= k;
		b += k;
		n -= k;
	}
	return n ? lsa_loops_blocks(h->l, stream, b, n) : 0;
}

static int off_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return off_blocks(arg, stream, b, 1);
}

static int off_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsa_hw *h = arg;

	return lsa_loops_callbacks.stream_end(h->l, stream, st);
}

static const struct lsd_callbacks off_callbacks = {
	.block = off_block,
	.blocks = off_blocks,
	.stream_end = off_end,
};

/* The joiner decodes the stream from its block h->base + h->jq on.
 * Returns 0 or an error. */
static int j_off(struct lsa_hw *h)
{
	struct lsa_loops *l = h->l;
	const uint64_t *v;
	size_t n = lsd_chunk_starts(l->d, h->stream, &v), c;
	uint64_t at = h->base + h->jq;

	/* (the chunks' starts are known up to there) */
	for (c = n; c-- > 0;)
		if (v[c] <= at)
			break;
	if (c >= h->nc)
		return fail(h);
	h->nskip_off = at - v[c];
	return lsd_decode_chunks(l->d, h->stream, c, h->nc - 1, &off_callbacks, h, NULL);
}

static void hw_free(struct lsa_hw *h)
{
	size_t i;

	if (h->started) {
		pthread_mutex_lock(&h->mu);
		h->quit = 1;
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->th, NULL);
	}
	if (h->t)
		h->t->hw = NULL;
	lsa_loops_free(h->lw);
	lsa_know_free(h->kw);
	lsd_close(h->tw);
	for (i = h->evhead; i < h->nev; i++)
		lsa_hw_ev_free(h, &h->ev[i]);
	free(h->ev);
	free(h->fa);
	free(h->sp);
	free(h->lsp);
	free(h->jb);
	free(h->jw);
	h->l->symlock = NULL;
	pthread_mutex_destroy(&h->mu);
	pthread_mutex_destroy(&h->symlock);
	pthread_cond_destroy(&h->cv);
	free(h);
}

/* LOOPSCOPE_HALVES: "0" never, "1" wherever it can (the tests: any
 * stream of two chunks, whatever the spine), else where it pays. */
static int halves_env(void)
{
	const char *e = getenv("LOOPSCOPE_HALVES");

	return e && !strcmp(e, "0") ? 0 : e && !strcmp(e, "1") ? 2 : 1;
}

int lsa_halves_can(const struct lsa_loops *l)
{
	int e = halves_env();

	if (!l || !l->learn || !l->snap_chunks || l->o.jobs < 2 || !e)
		return 0;
	return lsa_loops_one_stream(l, e == 2 ? 2 : HW_MINCHUNKS);
}

int lsa_halves_run(struct lsa_loops *l)
{
	struct lsd_callbacks h1 = lsa_loops_callbacks;
	struct lsa_hw *h;
	struct lsa_thr *t;
	int err = 0, go;
	size_t i;

	if (!lsa_halves_can(l))
		return 1;
	if (!(h = calloc(1, sizeof(*h))))
		return -LS_ENOMEM;
	h->l = l;
	h->stream = 0;
	h->force = halves_env() == 2;
	h->nc = lsb_reader_nchunks(l->r, 0);
	/* The joiner decodes and learns the chunks before the cut, the
	 * worker those after it, with the spine's blocks left to the
	 * joiner: near the middle the two end together. */
	h->c0 = h->nc * lsa_env_num("LOOPSCOPE_HALVES_AT", 45) / 100;
	if (h->c0 < 1)
		h->c0 = 1;
	if (h->c0 >= h->nc)
		h->c0 = h->nc - 1;
	if (pthread_mutex_init(&h->mu, NULL) || pthread_mutex_init(&h->symlock, NULL) ||
	    pthread_cond_init(&h->cv, NULL)) {
		free(h);
		return -LS_ENOMEM;
	}
	l->symlock = &h->symlock;
	h->probe = h->force;	/* (forced: no probe) */
	if (pthread_create(&h->th, NULL, lsa_hw_main, h)) {
		hw_free(h);
		return 1;
	}
	h->started = 1;
	/* whether the spine leaves the worker enough to learn */
	pthread_mutex_lock(&h->mu);
	while (!h->probe)
		pthread_cond_wait(&h->cv, &h->mu);
	go = h->probe > 0;
	l->st.halves_probe += h->pwin;
	l->st.halves_no += !go;
	pthread_mutex_unlock(&h->mu);
	if (!go) {
		hw_free(h);
		return 1;
	}
	h1.stream_end = h1_end;
	err = lsd_decode_chunks(l->d, 0, 0, h->c0 - 1, &h1, l, NULL);
	if (!err && !(t = lsa_loops_thread(l, 0)))
		err = -LS_ENOMEM;
	if (!err) {
		const uint64_t *v;

		if (lsd_chunk_starts(l->d, 0, &v) != h->c0 + 1 || v[h->c0] != t->nblk)
			err = fail(h);
		else
			h->base = v[h->c0];
	}
	if (!err)
		err = j_second(h, t);
	if (!err && h->off) {
		pthread_mutex_lock(&h->mu);
		h->quit = 1;
		pthread_mutex_unlock(&h->mu);
		err = j_off(h);
	} else if (!err) {
		err = lsa_loops_callbacks.stream_end(l, 0, NULL);
	}
	if (h->started) {
		pthread_join(h->th, NULL);
		h->started = 0;
	}
	/* every block the twin made, named by the pass's decoder: the
	 * second pass's workers name theirs by it */
	for (i = 0; !err && i < lsd_nsblocks(h->tw); i++) {
		const struct lsd_sblock *x;

		err = lsd_sblock_adopt(l->d, 0, lsd_sblock(h->tw, i), &x);
	}
	l->st.halves_exc += h->nexc;
	l->st.halves_skip += h->nskip;
	l->st.halves_off += h->off;
	hw_free(h);
	return err;
}
