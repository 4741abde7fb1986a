/* loops_follow.c - the second pass begun beside the learning pass.
 *
 * Where the learning pass of one thread's stream runs on one core (its
 * spine runs the loops, so its halves do not pay: bench/'s stencil), the
 * other core idled until it ended.  The second pass needs the knowledge
 * of the whole trace, but a program's facts (heads, body pairs,
 * landings: sets that only grow) stop coming early where a few loops run
 * over and over.  So a worker runs the second pass from the stream's
 * start behind the learning pass, with a copy of what it knew at a cut,
 * on the chunks it took already, decoded by a twin that hands out the
 * learning pass's own static blocks as they were at a cut
 * (lsd_twin_reshare()).  Wherever the learning pass learns a fact after
 * the copy, the worker starts over with a new one.  When the learning
 * pass ends knowing what the worker's copy knows, the worker's state is
 * the second pass's own: it goes on to the next cut and hands its piece
 * to the second pass's joiner (loops_dpieces.c) as the pieces before
 * that cut; otherwise it is dropped.  Memory: one second pass's state,
 * one copy of the knowledge, whatever the trace's length.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_follow.h"
#include "ls_err.h"

/* When the worker begins: after FO_STABLE cuts in a row or more that
 * learned nothing, at least half of the cuts so far (a program in one
 * steady phase: its start up learns at every cut, and one whose facts
 * come in phases would start it over), whose blocks the learner took at
 * least half as repeats (the loops of a steady phase, not an
 * interpreter's paths).  And the starts over past which it stops for
 * good (facts about blocks it ran keep coming).  Measured on bench/'s
 * programs (facts at each chunk's cut; cumulative repeats): the stencil
 * and spmv learn nothing after their first cut, 98% and 76% of their
 * blocks repeats; bzip2 learns at cuts 1-5, 11-12, 15 and 24-25 (the
 * compression, then the check's decompression), sqlite3 at cuts 7 to 10,
 * 2% repeats.  A worker begun in bzip2's quiet stretches started over
 * and its work was lost, and with it the decode's second thread: `-j2`
 * 1.87 s against 1.34 (min of 9 in turns). */
#define FO_STABLE 2
#define FO_AGAIN_DIV 2
#define FO_RESTARTS 2	/* (its first start counted) */

enum { FO_WAIT, FO_HOLD, FO_ON, FO_OFF };

struct lsa_follow {
	pthread_mutex_t mu, symlock;
	pthread_cond_t cv;
	pthread_t th;
	int started;
	struct lsa_pmodel m;	/* the learning pass's, its knowledge not */
	size_t stream, kslot, nchunk;
	/* Handed by the learning pass (under mu): a later copy of what it
	 * knows (taken on, or started over with), a later share of its
	 * blocks and the chunks it covers, where to end (SIZE_MAX: not
	 * yet), stop. */
	struct lsa_know *knext;
	uint64_t flast;		/* lsa_know_facts() of the latest handed */
	/* The learning pass's own (its thread's): facts at the last cut and
	 * the cuts since that learned none, the cuts so far (at every
	 * chunk, or every 2nd, 4th ... where the snapshots were thinned),
	 * and whether the worker runs. */
	uint64_t fprev, stable, ncut;
	uint64_t nblk0, again0, sblocks, sagain;
	int state;		/* (FO_ON and FO_OFF: the worker was begun) */
	int step;		/* the learning pass waits at each cut (tests) */
	struct lsd_sbshare *snext;
	size_t avail, target;
	int quit;
	/* The worker's (read by others once it is done, or under mu) */
	struct lsa_know *k;
	struct lsd_decoder *tw;
	struct lsa_pworker w;
	int winit, wbegun;
	size_t pos;		/* chunks [0, pos) taken */
	size_t claimed;		/* ... or under way */
	uint64_t got, losses;
	int err, done;
	int busy;		/* taking knowledge on, or starting over */
	struct lsa_pres res;
	uint64_t restarts, shares, chunks, more;
};

int lsa_follow_can(const struct lsa_loops *l)
{
	const char *e = getenv("LOOPSCOPE_FOLLOW");

	if (!l || !l->learn || !l->snap_chunks || l->o.jobs < 2 || (e && !strcmp(e, "0")) ||
	    !lsa_loops_one_stream(l, 2))
		return 0;
	return e && !strcmp(e, "step") ? 3 : e && !strcmp(e, "1") ? 2 : 1;
}

/* ---- the worker ---- */

static int fo_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsa_follow *fo = arg;

	(void)stream;
	fo->got += n;
	return lsa_pw_blocks(&fo->w, b, n);
}

static int fo_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return fo_blocks(arg, stream, b, 1);
}

static int fo_loss(void *arg, size_t stream, const struct lsd_loss *ls)
{
	struct lsa_follow *fo = arg;

	(void)stream, (void)ls;
	fo->losses++;
	return 0;
}

/* The stream's blocks alone: its begin, thread and end are the
 * joiner's (as a piece's, loops_dpieces.c). */
static const struct lsd_callbacks fo_callbacks = {
	.block = fo_block,
	.blocks = fo_blocks,
	.loss = fo_loss,
};

/* Whether the worker ran block id (its detector saw it). */
static int ran(void *arg, uint32_t id)
{
	const struct lsa_loops *wl = ((struct lsa_follow *)arg)->w.l;

	return id < wl->nsb && wl->sbc[id].n[0] != 0;
}

/* The worker goes on knowing k (a later copy of the same pass's than
 * its own) where what k knows more names no block it ran: a pass that
 * knew it all along gave the blocks it ran what it gave them, and gives
 * those it has not run what k says (heads, body pairs and landings
 * added to its tables, as at a start).  Returns 1 (k taken), 0 (no: it
 * starts over), or an error. */
static int learn_more(struct lsa_follow *fo, struct lsa_know *k, size_t kslot)
{
	int r;

	if (!fo->wbegun || kslot != fo->w.kslot)
		return 0;
	if ((r = lsa_know_new_avoid(k, fo->k, kslot, ran, fo)) != 1)
		return r;
	fo->w.l->know = k;
	if ((r = lsa_know_give_slot(fo->w.l, fo->w.t, kslot)) != 0) {
		fo->w.l->know = fo->k;
		return r;
	}
	lsa_know_free(fo->k);
	fo->k = k;
	return 1;
}

/* The worker starts over with knowledge k of thread slot
 * kslot, from the stream's start.  Returns 0 or an error. */
static int restart(struct lsa_follow *fo, struct lsa_know *k, size_t kslot)
{
	struct lsa_pmodel m = fo->m;

	if (fo->winit)
		lsa_pw_free(&fo->w);
	fo->winit = fo->wbegun = 0;
	lsa_know_free(fo->k);
	fo->k = k;
	fo->got = fo->losses = 0;
	m.know = k;
	if (lsa_pw_init_model(&fo->w, &m, &fo->symlock))
		return -LS_ENOMEM;
	fo->winit = 1;
	fo->wbegun = 1;
	return lsa_pw_begin(&fo->w, kslot, NULL);
}

static void *fo_main(void *arg)
{
	struct lsa_follow *fo = arg;
	int err = 0;

	pthread_mutex_lock(&fo->mu);
	while (!fo->quit && !err) {
		if (fo->knext) {
			struct lsa_know *k = fo->knext;
			size_t kslot = fo->kslot;

			int r;

			fo->knext = NULL;
			/* (what it knows and has done change meanwhile) */
			fo->busy = 1;
			pthread_mutex_unlock(&fo->mu);
			r = learn_more(fo, k, kslot);
			if (r < 0)
				lsa_know_free(k);
			err = r < 0 ? r : r ? 0 : restart(fo, k, kslot);
			pthread_mutex_lock(&fo->mu);
			if (!r)
				fo->pos = fo->claimed = 0;
			fo->restarts += !r;
			fo->more += r > 0;
			fo->busy = 0;
			pthread_cond_broadcast(&fo->cv);
		} else if (fo->snext) {
			struct lsd_sbshare *s = fo->snext;

			fo->snext = NULL;
			pthread_mutex_unlock(&fo->mu);
			/* (the twin opened here, at the first: it reads its
			 * decoder's heads, which stay as the open made them) */
			if (!fo->tw && !(err = lsd_open_twin(&fo->tw, fo->m.d)))
				err = lsd_twin_share(fo->tw, s);
			else if (!err)
				err = lsd_twin_reshare(fo->tw, s);
			lsd_sbshare_free(s);
			pthread_mutex_lock(&fo->mu);
			fo->shares++;
			pthread_cond_broadcast(&fo->cv);
		} else if (fo->wbegun && fo->target != SIZE_MAX && fo->pos == fo->target) {
			pthread_mutex_unlock(&fo->mu);
			err = lsa_pw_end(&fo->w, fo->target == fo->nchunk, &fo->res);
			pthread_mutex_lock(&fo->mu);
			fo->done = !err;
			break;
		} else if (fo->wbegun &&
			   fo->pos < (fo->target != SIZE_MAX ? fo->target : fo->avail)) {
			size_t c = fo->pos;

			fo->claimed = c + 1;
			pthread_mutex_unlock(&fo->mu);
			err = lsd_decode_chunks(fo->tw, fo->stream, c, c, &fo_callbacks, fo, NULL);
			pthread_mutex_lock(&fo->mu);
			fo->pos = c + 1;
			fo->chunks++;
			pthread_cond_broadcast(&fo->cv);
		} else {
			pthread_cond_wait(&fo->cv, &fo->mu);
		}
	}
	fo->err = err;
	pthread_cond_broadcast(&fo->cv);
	pthread_mutex_unlock(&fo->mu);
	return NULL;
}

/* ---- the learning pass's side ---- */

int lsa_follow_start(struct lsa_follow **ptr, struct lsa_loops *l, int now, int step)
{
	struct lsa_follow *fo;

	*ptr = NULL;
	if (!(fo = calloc(1, sizeof(*fo))))
		return -LS_ENOMEM;
	if (pthread_mutex_init(&fo->mu, NULL) || pthread_mutex_init(&fo->symlock, NULL) ||
	    pthread_cond_init(&fo->cv, NULL)) {
		free(fo);
		return -LS_ENOMEM;
	}
	fo->target = SIZE_MAX;
	fo->flast = fo->fprev = UINT64_MAX;
	fo->stream = 0;
	fo->nchunk = lsb_reader_nchunks(l->r, 0);
	fo->state = now ? FO_ON : FO_WAIT;
	fo->step = step;
	lsa_pw_model(&fo->m, l);
	/* the second pass's: eager, no memo (lsa_loops_know()) */
	fo->m.memo = 0;
	fo->m.eager = 1;
	fo->m.know = NULL;
	if (pthread_create(&fo->th, NULL, fo_main, fo)) {
		lsa_follow_free(fo);
		return -LS_ENOMEM;
	}
	fo->started = 1;
	l->symlock = &fo->symlock;
	*ptr = fo;
	return 0;
}

int lsa_follow_cut(struct lsa_follow *fo, struct lsa_loops *l, const struct lsa_thr *t,
		  size_t stream, size_t chunk)
{
	struct lsa_know *k = NULL;
	struct lsd_sbshare *s = NULL;
	uint64_t f;
	int learned, near, off;

	if (!fo || stream != fo->stream)
		return 0;
	f = lsa_know_facts(l, t);
	fo->ncut++;
	/* the cuts in a row that learned nothing, and how many of their
	 * blocks the learner took as repeats */
	if (f != fo->fprev) {
		fo->fprev = f;
		fo->stable = fo->sblocks = fo->sagain = 0;
	} else {
		fo->stable++;
		fo->sblocks += t->nblk - fo->nblk0;
		fo->sagain += t->fm.again - fo->again0;
	}
	fo->nblk0 = t->nblk;
	fo->again0 = t->fm.again;
	switch (fo->state) {
	case FO_OFF:
		return 0;
	case FO_WAIT:
		/* facts that stopped coming: the calls held on this thread,
		 * the other core the worker's */
		if (fo->stable < FO_STABLE || 2 * fo->stable < fo->ncut ||
		    fo->sagain * FO_AGAIN_DIV < fo->sblocks)
			return 0;
		lsd_decode_hold(l->d, 1);
		fo->state = FO_HOLD;
		/* fall through */
	case FO_HOLD:
		/* (the blocks' share is taken where the decode runs) */
		if (!lsd_decode_here(l->d))
			return 0;
		fo->state = FO_ON;
		break;
	default:
		pthread_mutex_lock(&fo->mu);
		off = fo->restarts > FO_RESTARTS || fo->err;
		if (off)
			fo->quit = 1;
		pthread_cond_broadcast(&fo->cv);
		pthread_mutex_unlock(&fo->mu);
		if (off) {
			/* facts that name what it ran keep coming: the
			 * decode chooses its thread again */
			fo->state = FO_OFF;
			lsd_decode_hold(l->d, 0);
			return 0;
		}
	}
	pthread_mutex_lock(&fo->mu);
	learned = f != fo->flast;
	/* (a share costs the blocks' pages and indexes: taken where the
	 * worker is near the end of what it may take) */
	near = fo->avail <= fo->pos + 2 || fo->step;
	pthread_mutex_unlock(&fo->mu);
	if (learned && (!(k = lsa_know_new()) || lsa_know_take_to(k, l, t))) {
		lsa_know_free(k);
		return 0;
	}
	if ((learned || near) && lsd_sbshare_new(&s, l->d)) {
		lsa_know_free(k);
		return 0;
	}
	pthread_mutex_lock(&fo->mu);
	if (k) {
		lsa_know_free(fo->knext);
		fo->knext = k;
		fo->flast = f;
		fo->kslot = (size_t)(t - l->thr);
	}
	if (s) {
		lsd_sbshare_free(fo->snext);
		fo->snext = s;
		fo->avail = chunk;
	}
	pthread_cond_broadcast(&fo->cv);
	/* (the tests' lock step: the worker takes all it may first) */
	while (fo->step && !fo->quit && !fo->err && (fo->knext || fo->snext || fo->pos < fo->avail))
		pthread_cond_wait(&fo->cv, &fo->mu);
	pthread_mutex_unlock(&fo->mu);
	return 0;
}

/* Stops the worker's thread. */
static void stop(struct lsa_follow *fo)
{
	if (!fo->started)
		return;
	pthread_mutex_lock(&fo->mu);
	fo->quit = 1;
	pthread_cond_broadcast(&fo->cv);
	pthread_mutex_unlock(&fo->mu);
	pthread_join(fo->th, NULL);
	fo->started = 0;
}

size_t lsa_follow_finish(struct lsa_follow *fo, struct lsd_decoder *d, const struct lsa_know *k,
			 const struct lsa_ksnap *snaps, size_t nsnap, const uint64_t *v,
			 const struct lsa_pres **res, uint64_t *losses)
{
	struct lsd_sbshare *s = NULL;
	size_t m = 0, target;
	int ok;

	*res = NULL;
	if (!fo || !fo->started)
		return 0;
	pthread_mutex_lock(&fo->mu);
	while (fo->busy && !fo->err && !fo->quit)
		pthread_cond_wait(&fo->cv, &fo->mu);
	ok = !fo->busy && !fo->err && !fo->quit && !fo->knext && fo->k && fo->wbegun;
	pthread_mutex_unlock(&fo->mu);
	/* (every block made now: the last share) */
	if (!ok || !v || lsd_sbshare_new(&s, d)) {
		stop(fo);
		return 0;
	}
	pthread_mutex_lock(&fo->mu);
	for (m = 1; m <= nsnap && snaps[m - 1].chunk < fo->claimed; m++)
		;
	target = m <= nsnap ? snaps[m - 1].chunk : fo->nchunk;
	lsd_sbshare_free(fo->snext);
	fo->snext = s;
	fo->target = target;
	pthread_cond_broadcast(&fo->cv);
	while (!fo->done && !fo->err && !fo->quit)
		pthread_cond_wait(&fo->cv, &fo->mu);
	ok = fo->done;
	pthread_mutex_unlock(&fo->mu);
	stop(fo);
	/* Its blocks those the learning pass counted before the cut, and
	 * what it was told of them what the pass learned in the end: a
	 * fact learned after its copy names none of the blocks it ran
	 * (a program's exit learns loops of its own). */
	if (!ok || fo->got != v[target] - v[0] ||
	    lsa_know_new_avoid(k, fo->k, fo->kslot, ran, fo) != 1)
		return 0;
	*res = &fo->res;
	*losses = fo->losses;
	return m;
}

size_t lsa_follow_stream(const struct lsa_follow *fo)
{
	return fo->stream;
}

size_t lsa_follow_slot(struct lsa_follow *fo)
{
	size_t k;

	pthread_mutex_lock(&fo->mu);
	k = fo->kslot;
	pthread_mutex_unlock(&fo->mu);
	return k;
}

void lsa_follow_stats(const struct lsa_follow *fo, uint64_t *begun, uint64_t *restarts,
		      uint64_t *more, uint64_t *shares, uint64_t *chunks)
{
	*begun = fo && fo->state >= FO_ON;
	*more = fo ? fo->more : 0;
	*restarts = fo ? fo->restarts : 0;
	*shares = fo ? fo->shares : 0;
	*chunks = fo ? fo->chunks : 0;
}

void lsa_follow_free(struct lsa_follow *fo)
{
	if (!fo)
		return;
	stop(fo);
	if (fo->winit)
		lsa_pw_free(&fo->w);
	lsa_pres_release(&fo->res);
	lsa_know_free(fo->k);
	lsa_know_free(fo->knext);
	lsd_sbshare_free(fo->snext);
	lsd_close(fo->tw);
	pthread_cond_destroy(&fo->cv);
	pthread_mutex_destroy(&fo->symlock);
	pthread_mutex_destroy(&fo->mu);
	free(fo);
}
