/* loops_pieces.c - the second pass over a thread's stream on several
 * cores: its blocks cut where the learning pass kept the frames and paths
 * (struct lsa_ksnap), each piece run by a worker of its own side by side
 * (loops_piece.c), the pieces joined in order by the calling thread into
 * the thread's true state.  The profile is the one pass's, byte for byte.
 *
 * The decode's blocks are copied into a ring of segments; a worker takes
 * the next piece and runs its segments as they come, each freed once run,
 * so memory stays a few segments and the pieces' results (their notes,
 * their rows, the frames and paths they ended with), whatever the trace's
 * length.  Where the workers have a piece waiting already, the decoding
 * thread runs the next one itself, its blocks as they come (no copy):
 * the eager pass of two jobs has one worker and the decoding thread.   Per-CPU streams (whose threads switch), and streams of which
 * the learning pass kept nothing, go to the detector as they come. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Blocks of a segment; segments at most (pieces longer than those of all
 * workers together run one after the other, as they are read). */
#define SEG_BLOCKS (1u << 16)
#define SEG_MAX 64

enum { S_FREE, S_FILL, S_READY };
enum { P_NEW, P_BUSY, P_DONE };

struct seg {
	struct lsd_block *b;
	size_t n;
	int state;
	int last, end;		/* its piece's last; the thread's last */
};

struct piece {
	size_t stream, kslot;
	const struct lsa_ksnap *snap;	/* where it begins (NULL: the start) */
	uint64_t seg0;		/* its first segment */
	int state;
	int inl;		/* run by the decoding thread itself */
	int err;
	struct lsa_pres res;
};

struct wk_arg;

struct lsa_pieces {
	struct lsa_loops *l;	/* the second pass: the joiner's */
	struct seg *sg;		/* segment k is sg[k % nsg] */
	size_t nsg;
	uint64_t sgn;		/* segments begun */
	struct piece *pc;	/* piece k is pc[k % npc] */
	size_t npc;
	uint64_t pjoin, pmade, ptake;	/* pieces joined, begun, taken */
	struct lsa_pworker *w;
	struct lsa_pworker *wi;	/* the decoding thread's own */
	pthread_t *th;
	size_t nw, nth;		/* workers; threads running them (0: inline) */
	pthread_mutex_t mu, symlock;
	pthread_cond_t work, space, done;
	int quit;
	uint64_t fail_at;	/* (tests: the join that fails, LOOPSCOPE_PIECE_FAIL) */
	int locks;
	struct wk_arg *args;
	/* the stream being cut */
	int on;			/* its blocks go into pieces */
	size_t stream;
	const struct lsa_ksnap *snaps;
	size_t nsnap, next;	/* its cuts; the next one */
	uint64_t nblk;		/* its blocks so far */
	int open;		/* a piece of it is being filled */
	uint64_t insns;		/* the thread's instructions the joins reached */
};

static void lock(struct lsa_pieces *ps)
{
	if (ps->nth)
		pthread_mutex_lock(&ps->mu);
}

static void unlock(struct lsa_pieces *ps)
{
	if (ps->nth)
		pthread_mutex_unlock(&ps->mu);
}

/* ---- the workers ---- */

struct wk_arg {
	struct lsa_pieces *ps;
	struct lsa_pworker *w;
};

/* Runs piece p on w, its segments as they come (mu held, and held on
 * return). */
static void run_piece(struct lsa_pieces *ps, struct lsa_pworker *w, struct piece *p)
{
	uint64_t k = p->seg0;
	int err, last = 0, end = 0;

	pthread_mutex_unlock(&ps->mu);
	err = lsa_pw_begin(w, p->kslot, p->snap);
	pthread_mutex_lock(&ps->mu);
	while (!last) {
		struct seg *s = &ps->sg[k % ps->nsg];

		while (!ps->quit && (k >= ps->sgn || s->state != S_READY))
			pthread_cond_wait(&ps->work, &ps->mu);
		if (ps->quit) {		/* the decode stopped: no more */
			p->err = -LS_EINVAL;
			p->state = P_DONE;
			return;
		}
		last = s->last;
		end = s->end;
		pthread_mutex_unlock(&ps->mu);
		if (!err && s->n)
			err = lsa_pw_blocks(w, s->b, s->n);
		pthread_mutex_lock(&ps->mu);
		s->state = S_FREE;
		s->n = 0;
		pthread_cond_broadcast(&ps->space);
		k++;
	}
	pthread_mutex_unlock(&ps->mu);
	if (!err)
		err = lsa_pw_end(w, end, &p->res);
	pthread_mutex_lock(&ps->mu);
	p->err = err;
	p->state = P_DONE;
	pthread_cond_broadcast(&ps->done);
}

static void *wk_main(void *arg)
{
	struct wk_arg *a = arg;
	struct lsa_pieces *ps = a->ps;

	pthread_mutex_lock(&ps->mu);
	for (;;) {
		struct piece *p;

		/* (the decoding thread runs its own) */
		while (ps->ptake < ps->pmade && ps->pc[ps->ptake % ps->npc].inl)
			ps->ptake++;
		if (ps->ptake < ps->pmade) {
			p = &ps->pc[ps->ptake++ % ps->npc];
			p->state = P_BUSY;
			run_piece(ps, a->w, p);
			continue;
		}
		if (ps->quit)
			break;
		pthread_cond_wait(&ps->work, &ps->mu);
	}
	pthread_mutex_unlock(&ps->mu);
	return NULL;
}

/* ---- the joiner ---- */

/* Joins the oldest piece, waiting for its worker.  Returns as
 * lsa_piece_join(), or the worker's error. */
static int join_one(struct lsa_pieces *ps)
{
	struct piece *p = &ps->pc[ps->pjoin % ps->npc];
	struct lsa_thr *t;
	int err;

	if (ps->nth) {
		pthread_mutex_lock(&ps->mu);
		while (p->state != P_DONE)
			pthread_cond_wait(&ps->done, &ps->mu);
		pthread_mutex_unlock(&ps->mu);
	}
	/* (the piece is the joiner's alone until it is free again) */
	err = p->err;
	if (!err && !(t = lsa_loops_thread(ps->l, p->stream)))
		err = -LS_ENOMEM;
	if (!err) {
		err = ps->pjoin + 1 == ps->fail_at ? -LS_EINVAL :
		      lsa_piece_join(ps->l, t, &p->res, &ps->insns);
		ps->l->st.pieces++;
		/* (a worker's state unlike the joiner's: the pass again) */
		if (err == -LS_EINVAL)
			ps->l->pfail = 1;
	}
	lsa_prows_release(&p->res.rows);
	lock(ps);
	p->state = P_NEW;
	ps->pjoin++;
	unlock(ps);
	return err;
}

/* The pieces finished, joined (wait: all of them).  Returns 0 or the
 * first error. */
static int join_done(struct lsa_pieces *ps, int wait)
{
	int err = 0, e;

	while (ps->pjoin < ps->pmade) {
		int st;

		/* (under the lock: its worker writes it) */
		lock(ps);
		st = ps->pc[ps->pjoin % ps->npc].state;
		unlock(ps);
		if (!wait && st != P_DONE)
			break;
		if ((e = join_one(ps)) && !err)
			err = e;
	}
	return err;
}

/* The segment being filled handed to the worker (last: its piece's
 * last, end: the thread's too). */
static void seg_put(struct lsa_pieces *ps, int last, int end)
{
	struct seg *s = &ps->sg[(ps->sgn - 1) % ps->nsg];

	pthread_mutex_lock(&ps->mu);
	s->last = last;
	s->end = end;
	s->state = S_READY;
	pthread_cond_broadcast(&ps->work);
	pthread_mutex_unlock(&ps->mu);
}

/* A new segment to fill.  Returns it, or NULL (no thread: the inline
 * worker takes blocks as they come). */
static struct seg *seg_new(struct lsa_pieces *ps)
{
	struct seg *s = &ps->sg[ps->sgn % ps->nsg];

	pthread_mutex_lock(&ps->mu);
	while (s->state != S_FREE)
		pthread_cond_wait(&ps->space, &ps->mu);
	s->state = S_FILL;
	s->n = 0;
	ps->sgn++;
	pthread_mutex_unlock(&ps->mu);
	return s;
}

/* A piece of the stream begins at cut snap (NULL: its start).  Returns 0
 * or an error. */
static int piece_new(struct lsa_pieces *ps, const struct lsa_ksnap *snap)
{
	struct lsa_thr *t;
	struct piece *p;
	int err;

	if (ps->pmade - ps->pjoin == ps->npc && (err = join_one(ps)))
		return err;
	if (!(t = lsa_loops_thread(ps->l, ps->stream)))
		return -LS_ENOMEM;
	p = &ps->pc[ps->pmade % ps->npc];
	p->stream = ps->stream;
	p->kslot = (size_t)(t - ps->l->thr);
	p->snap = snap;
	p->err = 0;
	p->state = P_NEW;
	/* The decoding thread runs a piece itself where the workers have
	 * one waiting already (and where there are none): it then decodes
	 * less ahead, which the workers' time needs no more, and copies
	 * nothing. */
	lock(ps);
	{
		uint64_t k, wait = 0;

		for (k = ps->ptake; k < ps->pmade; k++)
			wait += !ps->pc[k % ps->npc].inl;
		p->inl = !ps->nth || wait > 0;
	}
	unlock(ps);
	if (!p->inl) {
		seg_new(ps);
		p->seg0 = ps->sgn - 1;
	}
	lock(ps);
	ps->pmade++;
	if (ps->nth)
		pthread_cond_broadcast(&ps->work);
	unlock(ps);
	if (p->inl) {
		p->state = P_BUSY;
		p->err = lsa_pw_begin(ps->wi, p->kslot, snap);
	}
	ps->open = 1;
	return 0;
}

/* The decoding thread's piece p ends (end: the thread's last). */
static void inl_end(struct lsa_pieces *ps, struct piece *p, int end)
{
	int err = p->err ? p->err : lsa_pw_end(ps->wi, end, &p->res);

	lock(ps);
	p->err = err;
	p->state = P_DONE;
	unlock(ps);
}

/* Blocks b[0 .. n) of the stream being cut. */
static int cut_blocks(struct lsa_pieces *ps, const struct lsd_block *b, size_t n)
{
	int err;

	while (n) {
		uint64_t cut = ps->next < ps->nsnap ? ps->snaps[ps->next].at : UINT64_MAX;
		size_t k = n;
		struct seg *s;

		struct piece *p;

		if (!ps->open && (err = piece_new(ps, ps->nblk ? &ps->snaps[ps->next - 1] : NULL)))
			return err;
		p = &ps->pc[(ps->pmade - 1) % ps->npc];
		s = p->inl ? NULL : &ps->sg[(ps->sgn - 1) % ps->nsg];
		if (cut - ps->nblk < k)
			k = (size_t)(cut - ps->nblk);
		if (s) {
			if (SEG_BLOCKS - s->n < k)
				k = SEG_BLOCKS - s->n;
			memcpy(s->b + s->n, b, k * sizeof(*b));
			s->n += k;
		} else if (!p->err) {
			p->err = lsa_pw_blocks(ps->wi, b, k);
		}
		b += k;
		n -= k;
		ps->nblk += k;
		if (ps->nblk == cut) {		/* the piece ends at the cut */
			if (s)
				seg_put(ps, 1, 0);
			else
				inl_end(ps, p, 0);
			ps->open = 0;
			ps->next++;
			if ((err = join_done(ps, 0)))
				return err;
		} else if (s && s->n == SEG_BLOCKS) {
			seg_put(ps, 0, 0);
			seg_new(ps);
		}
	}
	return join_done(ps, 0);
}

/* The stream being cut ends: its last piece ends the thread, every piece
 * joined.  Returns 0 or the first error. */
static int cut_end(struct lsa_pieces *ps)
{
	int err = 0, e;

	if (!ps->on)
		return 0;
	/* ended at a cut: a piece of no blocks closes the frames */
	if (!ps->open && ps->nblk && (err = piece_new(ps, &ps->snaps[ps->next - 1])))
		return err;
	if (ps->open) {
		struct piece *p = &ps->pc[(ps->pmade - 1) % ps->npc];

		if (p->inl)
			inl_end(ps, p, 1);
		else
			seg_put(ps, 1, 1);
	}
	ps->open = 0;
	ps->on = 0;
	if ((e = join_done(ps, 1)) && !err)
		err = e;
	return err;
}

static int cb_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsa_pieces *ps = arg;

	if (ps->on && stream == ps->stream)
		return cut_blocks(ps, b, n);
	return lsa_loops_blocks(ps->l, stream, b, n);
}

static int cb_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return cb_blocks(arg, stream, b, 1);
}

static int cb_loss(void *arg, size_t stream, const struct lsd_loss *ls)
{
	struct lsa_pieces *ps = arg;

	return lsa_loops_callbacks.loss(ps->l, stream, ls);
}

static int cb_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct lsa_pieces *ps = arg;
	struct lsa_thr *t;
	int err = cut_end(ps);

	if (!err)
		err = lsa_loops_callbacks.stream_begin(ps->l, stream, s);
	if (err || (s && s->kind == LSB_STREAM_CPU))
		return err;
	/* a thread's own stream: cut where the learning pass kept its
	 * frames and paths */
	if (!(t = lsa_loops_slot(ps->l, stream)))
		return -LS_ENOMEM;
	ps->snaps = lsa_know_snaps(ps->l->know, (size_t)(t - ps->l->thr), &ps->nsnap);
	ps->on = ps->nsnap > 0;
	ps->stream = stream;
	ps->next = 0;
	ps->nblk = 0;
	ps->open = 0;
	ps->insns = 0;
	return 0;
}

static int cb_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct lsa_pieces *ps = arg;

	return lsa_loops_callbacks.thread(ps->l, stream, pid, tid);
}

static int cb_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsa_pieces *ps = arg;
	int err = ps->on && stream == ps->stream ? cut_end(ps) : 0;

	return err ? err : lsa_loops_callbacks.stream_end(ps->l, stream, st);
}

const struct lsd_callbacks lsa_pieces_callbacks = {
	.block = cb_block,
	.blocks = cb_blocks,
	.loss = cb_loss,
	.stream_begin = cb_begin,
	.stream_end = cb_end,
	.thread = cb_thread,
};

/* ---- making and freeing ---- */

void lsa_pieces_free(struct lsa_pieces *ps)
{
	size_t i;

	if (!ps)
		return;
	if (ps->nth) {
		pthread_mutex_lock(&ps->mu);
		ps->quit = 1;
		pthread_cond_broadcast(&ps->work);
		pthread_mutex_unlock(&ps->mu);
		for (i = 0; i < ps->nth; i++)
			pthread_join(ps->th[i], NULL);
	}
	for (i = 0; ps->w && i <= ps->nw; i++)
		lsa_pw_free(&ps->w[i]);
	for (i = 0; ps->sg && i < ps->nsg; i++)
		free(ps->sg[i].b);
	for (i = 0; ps->pc && i < ps->npc; i++)
		lsa_pres_release(&ps->pc[i].res);
	if (ps->locks) {
		pthread_mutex_destroy(&ps->mu);
		pthread_mutex_destroy(&ps->symlock);
		pthread_cond_destroy(&ps->work);
		pthread_cond_destroy(&ps->space);
		pthread_cond_destroy(&ps->done);
	}
	if (ps->l)
		ps->l->symlock = NULL;
	free(ps->w);
	free(ps->th);
	free(ps->args);
	free(ps->sg);
	free(ps->pc);
	free(ps);
}

int lsa_pieces_new(struct lsa_pieces **pps, struct lsa_loops *l, unsigned workers,
		   uint64_t piece_blocks)
{
	uint64_t per = (piece_blocks + SEG_BLOCKS - 1) / SEG_BLOCKS;
	struct lsa_pieces *ps;
	size_t i;
	int err = 0;

	if (!pps || !l || !l->know || l->learn)
		return -LS_EINVAL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -LS_ENOMEM;
	ps->l = l;
	{
		const char *v = getenv("LOOPSCOPE_PIECE_FAIL");

		ps->fail_at = v ? strtoull(v, NULL, 10) : 0;
	}
	ps->nw = workers ? workers : 1;
	ps->npc = ps->nw + 3;
	/* a piece for each worker and one more being read: workers run
	 * side by side only when the pieces after the one a worker runs are
	 * there already (the decode gives them in order) */
	if (per > SEG_MAX / (ps->nw + 1))
		per = SEG_MAX / (ps->nw + 1);
	ps->nsg = workers ? (size_t)((ps->nw + 1) * (per ? per : 1) + 1) : 1;
	if (pthread_mutex_init(&ps->mu, NULL) || pthread_mutex_init(&ps->symlock, NULL) ||
	    pthread_cond_init(&ps->work, NULL) || pthread_cond_init(&ps->space, NULL) ||
	    pthread_cond_init(&ps->done, NULL)) {
		free(ps);
		return -LS_ENOMEM;
	}
	ps->locks = 1;
	ps->pc = calloc(ps->npc, sizeof(*ps->pc));
	ps->sg = calloc(ps->nsg, sizeof(*ps->sg));
	ps->w = calloc(ps->nw + 1, sizeof(*ps->w));
	ps->th = calloc(ps->nw, sizeof(*ps->th));
	ps->args = calloc(ps->nw, sizeof(*ps->args));
	if (!ps->pc || !ps->sg || !ps->w || !ps->th || !ps->args)
		err = -LS_ENOMEM;
	for (i = 0; !err && workers && i < ps->nsg; i++)
		if (!(ps->sg[i].b = malloc(SEG_BLOCKS * sizeof(*ps->sg[i].b))))
			err = -LS_ENOMEM;
	if (!err && workers)
		l->symlock = &ps->symlock;
	for (i = 0; !err && i <= ps->nw; i++)
		if ((err = lsa_pw_init(&ps->w[i], l, workers ? &ps->symlock : NULL)))
			ps->nw = i ? i - 1 : 0;
	ps->wi = &ps->w[ps->nw];
	if (err) {
		lsa_pieces_free(ps);
		return err;
	}
	for (i = 0; workers && i < ps->nw; i++) {
		ps->args[i].ps = ps;
		ps->args[i].w = &ps->w[i];
		if (pthread_create(&ps->th[i], NULL, wk_main, &ps->args[i]))
			break;
		ps->nth++;
	}
	if (workers && !ps->nth) {	/* no thread: all on the caller's */
		for (i = 0; i < ps->nsg; i++)
			free(ps->sg[i].b), ps->sg[i].b = NULL;
		l->symlock = NULL;
		for (i = 0; i <= ps->nw; i++)
			ps->w[i].l->symlock = NULL;
	}
	*pps = ps;
	return 0;
}
