/* loops_dpieces.c - the eager second pass over a thread's stream on
 * several cores, each piece decoded by the worker that runs it.
 *
 * loops_pieces.c cuts the blocks of one decode into pieces and copies
 * them to the workers: on two cores the copies cost as much as the
 * decode, and a worker's blocks come from the other core's cache (xz -6:
 * the second pass took 70% more CPU in pieces than on one thread).  Here
 * the learning pass cuts at chunks instead (lsa_loops.snap_chunks: its
 * frames and paths kept where a chunk's blocks begin, lsd_chunk_starts()),
 * and a piece is a run of whole chunks, which any decoder can decode on
 * its own (lsd_decode_chunks()).  A worker decodes its pieces with a twin
 * of the pass's decoder (decoder/twin.c) that hands out the pass's
 * decoder's own static blocks (lsd_twin_share(): the learning pass made
 * every block the pieces meet), so a worker takes its blocks as the twin
 * hands them out; where the share cannot be had, the twin's blocks are
 * named as the pass's decoder's (lsd_sbmap_find()), a copy of each (4 to
 * 6% of the CPU of `analyze -j2` on bench/'s programs).  Where the
 * learning pass recorded its decode on a tape chunk by chunk
 * (lsa_loops.tape, decoder/tape.h), a worker replays its pieces' chunks
 * from it instead, with a player of its own, and opens no twin where the
 * tape holds every piece (sqlite3, whose decode costs several times its
 * replay: `analyze -j2` about 11% less CPU and wall).  The calling
 * thread runs pieces with the pass's decoder itself, and joins them in
 * order (lsa_piece_join()), as loops_pieces.c does.  No block goes from
 * one thread to another.
 *
 * A piece whose blocks are not what the learning pass counted there, or
 * name a static block the pass's decoder has not, fails the pass with
 * -LS_EINVAL and lsa_loops.pfail, as a join that finds a worker's state
 * unlike its own does: the caller makes the pass again on one thread.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "analysis/loops_follow.h"
#include "decoder/tape.h"
#include "ls_buf.h"
#include "ls_err.h"

enum { P_NEW, P_BUSY, P_DONE };

struct dpiece {
	int state;
	int err;
	int named;		/* its twin's blocks were named */
	int taped;		/* replayed from the tape */
	uint64_t losses;
	struct lsa_pres res;
};

struct dwk {
	struct lsa_dpieces *dp;
	struct lsa_pworker w;
	struct lsd_decoder *dec;	/* its twin; NULL: the pass's decoder */
	int shared;		/* dec hands out the pass's decoder's blocks */
	/* its player of the learning pass's tape (lsa_loops.tape; NULL:
	 * none), and whether the piece under way is replayed (its blocks
	 * the pass's decoder's) */
	struct lsd_tape_player *pl;
	int taped;
	int gone;		/* (a thread whose twin did not open: none) */
	/* the twin's static block id -> the pass's decoder's */
	const struct lsd_sblock **xl;
	size_t nxl;
	struct lsd_block *buf;
	size_t cap;
	/* the piece under way: blocks and losses so far, a block not named */
	uint64_t got, losses;
	int bad;
};

struct lsa_dpieces {
	struct lsa_loops *l;
	struct lsd_sbshare *share;	/* the pass's decoder's blocks, or */
	struct lsd_sbmap *map;		/* ... their names */
	/* the stream under way */
	size_t stream, kslot;
	const struct lsa_ksnap *snaps;
	size_t nsnap, npiece, nchunk;
	const uint64_t *v;	/* lsd_chunk_starts() */
	int on;
	struct dpiece *pc;	/* piece k is pc[k % npc] */
	size_t npc;
	uint64_t ptake, pjoin;
	uint64_t insns;		/* the thread's instructions the joins reached */
	uint64_t fail_at;	/* (tests: the join that fails, LOOPSCOPE_PIECE_FAIL) */
	int taped_all;		/* the tape holds every chunk of every stream */
	pthread_mutex_t mu, symlock;
	pthread_cond_t work, done;
	int quit;
	struct dwk *wk;		/* wk[0]: the calling thread's */
	size_t nwk;
	pthread_t *th;
	size_t nth;
	/* the following pass's piece (loops_follow.c): pieces [0, tm) of
	 * stream tstream, its result and losses */
	size_t tm, tstream;
	const struct lsa_pres *tres;
	uint64_t tlosses;
};

/* ---- a piece ---- */

/* Twin w's blocks b[0 .. n), named by the pass's decoder, into w->buf.
 * Returns it, or NULL (a block not named: w->bad; no memory). */
static const struct lsd_block *name_blocks(struct dwk *w, const struct lsd_block *b,
					   size_t n)
{
	size_t i;

	if (n > w->cap) {
		void *p = ls_reallocarray(w->buf, n, sizeof(*w->buf));

		if (!p)
			return NULL;
		w->buf = p;
		w->cap = n;
	}
	for (i = 0; i < n; i++) {
		const struct lsd_sblock *sb;
		uint32_t id = b[i].id;

		if (id >= w->nxl) {
			size_t nn = w->nxl ? w->nxl : 1024;
			void *p;

			while (nn <= id)
				nn *= 2;
			if (!(p = ls_reallocarray(w->xl, nn, sizeof(*w->xl))))
				return NULL;
			w->xl = p;
			memset(w->xl + w->nxl, 0, (nn - w->nxl) * sizeof(*w->xl));
			w->nxl = nn;
		}
		if (!(sb = w->xl[id]) &&
		    !(sb = w->xl[id] = lsd_sbmap_find(w->dp->map, b[i].sb))) {
			w->bad = 1;
			return NULL;
		}
		w->buf[i] = b[i];
		w->buf[i].sb = sb;
		w->buf[i].id = sb->id;
	}
	return w->buf;
}

static int wk_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct dwk *w = arg;

	(void)stream;
	w->got += n;
	if (w->dec && !w->shared && !w->taped && !(b = name_blocks(w, b, n)))
		return w->bad ? -LS_EINVAL : -LS_ENOMEM;
	return lsa_pw_blocks(&w->w, b, n);
}

static int wk_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return wk_blocks(arg, stream, b, 1);
}

static int wk_loss(void *arg, size_t stream, const struct lsd_loss *ls)
{
	struct dwk *w = arg;

	(void)stream, (void)ls;
	w->losses++;
	return 0;
}

/* The piece's blocks alone: the stream's begin, thread and end are the
 * joiner's. */
static const struct lsd_callbacks wk_callbacks = {
	.block = wk_block,
	.blocks = wk_blocks,
	.loss = wk_loss,
};

/* Runs piece j of the stream under way on w, into p.  Returns 0, an
 * error, or -LS_EINVAL (its blocks are not those the learning pass
 * counted, or one is not named). */
static int run_piece(struct dwk *w, uint64_t j, struct dpiece *p)
{
	struct lsa_dpieces *dp = w->dp;
	const struct lsa_ksnap *snap = j ? &dp->snaps[j - 1] : NULL;
	size_t first = snap ? snap->chunk : 0;
	size_t last = j < dp->nsnap ? dp->snaps[j].chunk - 1 : dp->nchunk - 1;
	int err;

	w->got = w->losses = 0;
	w->bad = 0;
	if ((err = lsa_pw_begin(&w->w, dp->kslot, snap)))
		return err;
	p->taped = w->pl && lsd_tape_has_chunks(dp->l->tape, dp->stream, first, last);
	if (p->taped) {
		/* (the learning pass's decode, as it went: no decode here) */
		w->taped = 1;
		err = lsd_tape_replay_chunks(w->pl, dp->stream, first, last, &wk_callbacks, w);
		w->taped = 0;
	} else {
		err = lsd_decode_chunks(w->dec ? w->dec : dp->l->d, dp->stream, first, last,
				       &wk_callbacks, w, NULL);
		if (err == -LS_EUNSUP && w->shared)
			err = -LS_EINVAL;	/* (a block the pass's decoder has not) */
	}
	if (!err && w->got != dp->v[last + 1] - dp->v[first])
		err = -LS_EINVAL;
	if (!err)
		err = lsa_pw_end(&w->w, j + 1 == dp->npiece, &p->res);
	p->losses = w->losses;
	return err;
}

/* Takes the next piece, if one may go (dp->mu held, and held on return):
 * runs it on w.  Returns 1 if it ran one. */
static int take(struct lsa_dpieces *dp, struct dwk *w)
{
	struct dpiece *p;
	uint64_t j;

	if (!dp->on || dp->ptake >= dp->npiece || dp->ptake - dp->pjoin >= dp->npc)
		return 0;
	j = dp->ptake++;
	p = &dp->pc[j % dp->npc];
	p->state = P_BUSY;
	pthread_mutex_unlock(&dp->mu);
	p->err = run_piece(w, j, p);
	p->named = w->dec && !w->shared && !p->taped;
	pthread_mutex_lock(&dp->mu);
	p->state = P_DONE;
	pthread_cond_broadcast(&dp->done);
	return 1;
}

static void *wk_main(void *arg)
{
	struct dwk *w = arg;
	struct lsa_dpieces *dp = w->dp;

	/* (beside the calling thread's first piece; none where the tape
	 * holds every piece) */
	if (dp->taped_all)
		goto run;
	w->gone = lsd_open_twin(&w->dec, dp->l->d) != 0;
	if (!w->gone && dp->share) {
		/* (a twin that cannot share has no names for its blocks) */
		w->shared = lsd_twin_share(w->dec, dp->share) == 0;
		w->gone = !w->shared;
	}
run:
	pthread_mutex_lock(&dp->mu);
	while (!dp->quit && !w->gone)
		if (!take(dp, w))
			pthread_cond_wait(&dp->work, &dp->mu);
	pthread_mutex_unlock(&dp->mu);
	return NULL;
}

/* ---- the joiner ---- */

/* Joins piece p into thread t.  Returns as lsa_piece_join(), or the
 * piece's error. */
static int join(struct lsa_dpieces *dp, struct dpiece *p, struct lsa_thr *t)
{
	struct lsa_loops *l = dp->l;
	int err = p->err;

	if (!err) {
		t->losses += p->losses;
		err = dp->pjoin + 1 == dp->fail_at ? -LS_EINVAL :
		      lsa_piece_join(l, t, &p->res, &dp->insns);
		l->st.pieces++;
		l->st.pieces_named += (uint64_t)p->named;
		l->st.pieces_taped += (uint64_t)p->taped;
	}
	/* (a worker's state unlike the joiner's, or blocks unlike the
	 * learning pass's: the pass again) */
	if (err == -LS_EINVAL)
		l->pfail = 1;
	lsa_prows_release(&p->res.rows);
	return err;
}

/* Stream i in pieces at the learning pass's cuts, snaps[0 .. nsnap) of
 * thread slot kslot.  Returns 0 or the first error. */
static int stream_pieces(struct lsa_dpieces *dp, size_t i)
{
	struct lsa_loops *l = dp->l;
	struct lsa_thr *t;
	size_t first = 0;
	int err = 0;

	if (!(t = lsa_loops_thread(l, i)))
		return -LS_ENOMEM;
	dp->insns = 0;
	/* the following pass's one piece for the first ones (no worker
	 * takes a piece of this stream before dp->on) */
	if (dp->tm && i == dp->tstream) {
		t->losses += dp->tlosses;
		if ((err = lsa_piece_join(l, t, dp->tres, &dp->insns))) {
			if (err == -LS_EINVAL)
				l->pfail = 1;
			return err;
		}
		l->st.pieces++;
		l->st.follow_pieces += dp->tm;
		first = dp->tm;
	}
	pthread_mutex_lock(&dp->mu);
	dp->stream = i;
	dp->kslot = (size_t)(t - l->thr);
	dp->npiece = dp->nsnap + 1;
	dp->ptake = dp->pjoin = first;
	dp->on = 1;
	pthread_cond_broadcast(&dp->work);
	while (dp->pjoin < dp->npiece) {
		struct dpiece *p = &dp->pc[dp->pjoin % dp->npc];

		if (p->state == P_DONE) {
			pthread_mutex_unlock(&dp->mu);
			/* (after an error: the rest waited for, not joined) */
			if (!err)
				err = join(dp, p, t);
			pthread_mutex_lock(&dp->mu);
			p->state = P_NEW;
			dp->pjoin++;
			if (err)	/* no more taken */
				dp->npiece = dp->ptake;
			pthread_cond_broadcast(&dp->work);
		} else if (!take(dp, &dp->wk[0])) {
			pthread_cond_wait(&dp->done, &dp->mu);
		}
	}
	dp->on = 0;
	pthread_mutex_unlock(&dp->mu);
	return err;
}

/* Stream i of the pass: in pieces, where the learning pass cut it at its
 * chunks, else decoded whole.  Returns 0 or the first error. */
static int one_stream(struct lsa_dpieces *dp, size_t i)
{
	struct lsa_loops *l = dp->l;
	struct lsd_callbacks rest = lsa_loops_callbacks;
	const struct lsa_thr *t;
	uint32_t pid, tid;
	int err;

	dp->nchunk = lsb_reader_nchunks(l->r, i);
	if (lsd_chunk_starts(l->d, i, &dp->v) != dp->nchunk + 1)
		return lsd_decode_stream(l->d, i, &lsa_loops_callbacks, l, NULL);
	if ((err = lsa_loops_callbacks.stream_begin(l, i, lsb_reader_stream(l->r, i))))
		return err;
	if (!(t = lsa_loops_slot(l, i)))
		return -LS_ENOMEM;
	dp->snaps = lsa_know_snaps(l->know, (size_t)(t - l->thr), &dp->nsnap);
	if (!dp->nsnap) {	/* (begun: the rest of the calls) */
		rest.stream_begin = NULL;
		return lsd_decode_stream(l->d, i, &rest, l, NULL);
	}
	lsd_stream_thread(l->d, i, &pid, &tid);
	err = lsa_loops_callbacks.thread(l, i, pid, tid);
	if (!err)
		err = stream_pieces(dp, i);
	if (!err)
		err = lsa_loops_callbacks.stream_end(l, i, NULL);
	return err;
}

/* ---- making and freeing ---- */

static void dp_free(struct lsa_dpieces *dp)
{
	size_t i;

	pthread_mutex_lock(&dp->mu);
	dp->quit = 1;
	pthread_cond_broadcast(&dp->work);
	pthread_mutex_unlock(&dp->mu);
	for (i = 0; i < dp->nth; i++)
		pthread_join(dp->th[i], NULL);
	for (i = 0; dp->wk && i < dp->nwk; i++) {
		lsa_pw_free(&dp->wk[i].w);
		lsd_tape_player_free(dp->wk[i].pl);
		lsd_close(dp->wk[i].dec);
		free(dp->wk[i].xl);
		free(dp->wk[i].buf);
	}
	for (i = 0; dp->pc && i < dp->npc; i++)
		lsa_pres_release(&dp->pc[i].res);
	lsd_sbmap_free(dp->map);
	lsd_sbshare_free(dp->share);
	dp->l->symlock = NULL;
	pthread_mutex_destroy(&dp->mu);
	pthread_mutex_destroy(&dp->symlock);
	pthread_cond_destroy(&dp->work);
	pthread_cond_destroy(&dp->done);
	free(dp->wk);
	free(dp->th);
	free(dp->pc);
	free(dp);
}

int lsa_dpieces_can(const struct lsa_loops *l)
{
	size_t i, n = l ? lsb_reader_nstreams(l->r) : 0, most = 0;
	const char *e = getenv("LOOPSCOPE_PIECE_DECODE");

	if (!l || l->o.jobs < 2 || (e && !strcmp(e, "0")))
		return 0;
	for (i = 0; i < n; i++) {
		int a = lsd_stream_alone(l->d, i);

		if (a < 0)
			return 0;
		if (a > 0 && lsb_reader_nchunks(l->r, i) > most)
			most = lsb_reader_nchunks(l->r, i);
	}
	/* A stream of one chunk makes one piece: the blocks copied to
	 * pieces of their own then share the pass. */
	return most > 1;
}

/* The following pass's piece of its stream (dp->tm 0: none).  (The
 * stream's thread slot is the one the learning pass made, which this
 * pass makes at the stream's begin.) */
static void follow_take(struct lsa_dpieces *dp)
{
	struct lsa_loops *l = dp->l;
	size_t i = lsa_follow_stream(l->follow), nsnap;
	const struct lsa_ksnap *snaps = lsa_know_snaps(l->know, lsa_follow_slot(l->follow), &nsnap);
	const uint64_t *v = NULL;

	if (lsd_chunk_starts(l->d, i, &v) != lsb_reader_nchunks(l->r, i) + 1)
		v = NULL;
	dp->tstream = i;
	dp->tm = lsa_follow_finish(l->follow, l->d, l->know, snaps, nsnap, v, &dp->tres,
				   &dp->tlosses);
}

/* Whether l's tape holds every chunk of every stream pieces are made
 * of. */
static int taped_all(const struct lsa_loops *l)
{
	size_t i, n = lsb_reader_nstreams(l->r), nc;

	for (i = 0; i < n; i++)
		if (lsd_stream_alone(l->d, i) > 0 && (nc = lsb_reader_nchunks(l->r, i)) &&
		    !lsd_tape_has_chunks(l->tape, i, 0, nc - 1))
			return 0;
	return 1;
}

int lsa_dpieces_run(struct lsa_loops *l, unsigned workers)
{
	struct lsa_dpieces *dp;
	size_t i, n;
	int err = 0;

	if (!l || !l->know || l->learn)
		return -LS_EINVAL;
	if (!(dp = calloc(1, sizeof(*dp))))
		return -LS_ENOMEM;
	dp->l = l;
	{
		const char *v = getenv("LOOPSCOPE_PIECE_FAIL");

		dp->fail_at = v ? strtoull(v, NULL, 10) : 0;
	}
	if (pthread_mutex_init(&dp->mu, NULL) || pthread_mutex_init(&dp->symlock, NULL) ||
	    pthread_cond_init(&dp->work, NULL) || pthread_cond_init(&dp->done, NULL)) {
		free(dp);
		return -LS_ENOMEM;
	}
	dp->nwk = (size_t)workers + 1;
	dp->npc = dp->nwk + 2;
	dp->wk = calloc(dp->nwk, sizeof(*dp->wk));
	dp->th = calloc(dp->nwk, sizeof(*dp->th));
	dp->pc = calloc(dp->npc, sizeof(*dp->pc));
	if (!dp->wk || !dp->th || !dp->pc)
		err = -LS_ENOMEM;
	/* (the share as the learning pass left the decoder, before any
	 * piece decodes with it) */
	{
		const char *v = getenv("LOOPSCOPE_PIECE_SHARE");

		if (!err && ((v && !strcmp(v, "0")) || lsd_sbshare_new(&dp->share, l->d)))
			err = lsd_sbmap_new(&dp->map, l->d);
	}
	/* the following pass's piece, before any worker runs (it looks
	 * symbols up under a lock of its own) */
	if (!err && l->follow)
		follow_take(dp);
	if (!err)
		l->symlock = &dp->symlock;
	for (i = 0; !err && i < dp->nwk; i++) {
		dp->wk[i].dp = dp;
		err = lsa_pw_init(&dp->wk[i].w, l, &dp->symlock);
		if (err)
			dp->nwk = i;
	}
	/* the tape's players, made here (the first makes its table of
	 * static blocks), before any worker runs; without one, a worker
	 * decodes */
	if (!err && l->tape) {
		for (i = 0; i < dp->nwk; i++)
			if (lsd_tape_player_new(&dp->wk[i].pl, l->tape))
				break;
		dp->taped_all = i == dp->nwk && taped_all(l);
	}
	for (i = 1; !err && i < dp->nwk; i++) {
		if (pthread_create(&dp->th[dp->nth], NULL, wk_main, &dp->wk[i]))
			break;
		dp->nth++;
	}
	/* Each thread's stream on its own, in order, as lsd_decode_all()
	 * decodes them: in pieces where the learning pass cut it. */
	n = lsb_reader_nstreams(l->r);
	for (i = 0; !err && i < n; i++)
		if (lsd_stream_alone(l->d, i) > 0)
			err = one_stream(dp, i);
	dp_free(dp);
	return err;
}
