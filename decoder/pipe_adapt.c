/* pipe_adapt.c - lsd_decode_all() with the callbacks on the decoding
 * thread or on one of their own, whichever costs less as it runs
 * (lsd_decode_all_adapt()). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "decoder/decode.h"
#include "decoder/decode_int.h"
#include "decoder/fast_int.h"
#include "decoder/pipe_int.h"
#include "decoder/tape.h"

/*
 * The decode on the calling thread, cb's calls either on it too or on a
 * second thread through the ring (consumer 0), whichever a timed window
 * of blocks says costs less.  A pipe saves min(decode, cb) per block and
 * costs the copies (the block written here, read there from the other
 * core's cache); so the window measures both sides on this thread, and
 * the calls move only where each side costs more per block than
 * LSD_ADAPT_COPY_NS.  What a program does changes as it runs (its loader,
 * then its own loops), so the window comes back, after LSD_ADAPT_FIRST
 * blocks, then after twice as many each time up to LSD_ADAPT_EVERY, and
 * after LSD_ADAPT_FIRST again where a window chose otherwise than the one
 * before (a phase changed: the next may have too); the ring is drained
 * first, so the calls keep their order whichever thread makes them.
 * (bzip2 -9 of bench/ at two jobs: its learning pass is cheap to learn
 * in some stretches of 2^19 blocks, 0.4 to 0.8 ns a block on either
 * side, and dear in the next, 2.5 to 3.5; with the interval grown
 * undisturbed, a window in a cheap stretch kept the calls here for the
 * next 2^26 blocks, 0.28 s of its 0.65 s learning pass on one core.
 * Wall, 9 runs in turns: 0.95 / 0.96 s, min / median, to 0.87 / 0.89.)
 *
 * The first blocks (a loader's, a program's start up: code met for the
 * first time) cost the decode and the calls most: chains and static
 * blocks built, a detector learning new loops.  A window there ran
 * sqlite3's dearest 2^19 blocks on one thread, 38 ms of its 0.2 s at two
 * jobs.  So a decode of LSD_ADAPT_PIPED_PT bytes of PT or more begins
 * with the calls on the thread, its first window after LSD_ADAPT_FIRST
 * blocks; a shorter one begins with the window, as most of it fits
 * there, and starts no thread for what does.
 */
/* (LSD_ADAPT_FIRST, _EVERY and _COPY_NS: pipe_int.h, with the choice) */
#define ADAPT_WINDOW (1u << 19)

struct adapt {
	struct pipe p;
	const struct lsd_callbacks *cb;
	void *arg;
	pthread_t side;
	int have_side;		/* consumer 0's thread runs */
	int no_side;		/* ... and none can be made: all here */
	int piped;		/* cb's calls go through the ring */
	int timing;		/* in a window */
	uint64_t left;		/* blocks to the window's end, or the next */
	struct lsd_adapt_iv iv;	/* when the next window comes */
	uint64_t force;		/* switch every this many blocks (tests) */
	uint64_t n, t0, tcb;	/* window: blocks, start, ns in cb's calls */
	struct lsd_pipe_stats *ps;
	struct lsd_block *flat;	/* a_spans()'s blocks, where they stay here */
	size_t capflat;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cb's calls through the ring (1) or here (0).  Returns an error of cb's. */
static int adapt_mode(struct adapt *a, int piped)
{
	struct pipe *p = &a->p;
	int err;

	if (piped == a->piped)
		return 0;
	if (piped) {
		if (a->no_side || __atomic_load_n(&a->p.d->hold, __ATOMIC_ACQUIRE))
			return 0;
		if (!p->buf) {
			if (!(p->buf = calloc(p->nbuf, sizeof(*p->buf))))
				return 0;	/* (no memory for the ring: all here) */
			/* (the first, as lsd_pipe_publish() does the rest) */
			ls_prefault(p->buf, sizeof(*p->buf));
		}
		if (!a->have_side) {
			if (pthread_create(&a->side, NULL, lsd_pipe_cons0_main, p)) {
				a->no_side = 1;
				return 0;
			}
			a->have_side = 1;
		}
		a->piped = 1;
		__atomic_store_n(&p->d->away, 1, __ATOMIC_RELEASE);
		if (a->ps)
			a->ps->to_thread++;
		return 0;
	}
	/* back here: once the other thread made every call before */
	if ((err = lsd_pipe_publish(p)))
		return err;
	pthread_mutex_lock(&p->mu);
	while (p->took[0] != p->pub && !p->cerr)
		pthread_cond_wait(&p->emptied, &p->mu);
	err = p->cerr;
	pthread_mutex_unlock(&p->mu);
	a->piped = 0;
	/* (every call through the ring made: the next are here) */
	__atomic_store_n(&p->d->away, 0, __ATOMIC_RELEASE);
	return err;
}

void lsd_decode_hold(struct lsd_decoder *d, int hold)
{
	if (d)
		__atomic_store_n(&d->hold, !!hold, __ATOMIC_RELEASE);
}

int lsd_decode_here(const struct lsd_decoder *d)
{
	return !d || !__atomic_load_n(&d->away, __ATOMIC_ACQUIRE);
}

int lsd_adapt_choose(struct lsd_adapt_iv *iv, uint64_t n, uint64_t ns, uint64_t cb_ns,
		     uint64_t *left)
{
	uint64_t dec = ns > cb_ns ? ns - cb_ns : 0;
	int piped = cb_ns > LSD_ADAPT_COPY_NS * n && dec > LSD_ADAPT_COPY_NS * n;

	if (iv->chose >= 0 && piped != iv->chose)
		iv->every = LSD_ADAPT_FIRST;	/* (a phase changed: look again soon) */
	iv->chose = piped;
	*left = iv->every;
	if (iv->every < LSD_ADAPT_EVERY)
		iv->every *= 2;
	return piped;
}

/* After n more blocks: a window begins or ends, or (tests) the mode
 * changes. */
static int adapt_tick(struct adapt *a, size_t n)
{
	int err, piped;

	if (n < a->left) {
		a->left -= n;
		return 0;
	}
	if (a->force) {
		a->left = a->force;
		return adapt_mode(a, !a->piped);
	}
	if (!a->timing) {
		if ((err = adapt_mode(a, 0)))
			return err;
		a->timing = 1;
		a->n = a->tcb = 0;
		a->left = ADAPT_WINDOW;
		a->t0 = now_ns();
		return 0;
	}
	a->timing = 0;
	piped = lsd_adapt_choose(&a->iv, a->n, now_ns() - a->t0, a->tcb, &a->left);
	if (a->ps)
		a->ps->windows++;
	return adapt_mode(a, piped);
}

/* Blocks to cb here or through the ring, split where a window begins
 * or ends (or the mode changes), so that each part goes where it
 * should. */
static int a_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct adapt *a = arg;
	const struct lsd_callbacks *cb = a->cb;
	uint64_t t = 0;
	size_t m;
	int err = 0;

	/* held here (lsd_decode_hold()): the ring's calls made first */
	if (a->piped && __atomic_load_n(&a->p.d->hold, __ATOMIC_ACQUIRE))
		err = adapt_mode(a, 0);
	while (n && !err) {
		m = a->left && a->left < n ? (size_t)a->left : n;
		if (a->piped) {
			err = lsd_pipe_callbacks.blocks(&a->p, stream, b, m);
		} else {
			if (a->timing)
				t = now_ns();
			err = lsd_pipe_call_blocks(cb, a->arg, stream, b, m);
			if (a->timing) {
				a->tcb += now_ns() - t;
				a->n += m;
			}
		}
		if (!err)
			err = adapt_tick(a, m);
		b += m;
		n -= m;
	}
	return err;
}

static int a_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return a_blocks(arg, stream, b, 1);
}

/* The decoder's runs (or a tape's in front): into the ring as they are
 * where the calls go there and no window or hold cuts them (copied once,
 * where the decoder's copy of its chains and then the ring's were two);
 * else flattened here for a_blocks(). */
static int a_spans(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns)
{
	struct adapt *a = arg;
	size_t i, n = 0;
	int err = 0;

	for (i = 0; i < ns; i++)
		n += s[i].n;
	if (a->piped && !(a->left && a->left < n) &&
	    !__atomic_load_n(&a->p.d->hold, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < ns && !err; i++)
			err = lsd_pipe_callbacks.blocks(&a->p, stream, s[i].b, s[i].n);
		return err ? err : adapt_tick(a, n);
	}
	if ((err = lsd_spans_flat(&a->flat, &a->capflat, s, ns, &n)))
		return err;
	return a_blocks(a, stream, a->flat, n);
}

/* Runs are wanted while the calls go through the ring (asked at each
 * chunk): on this thread the decoder's copy of its chains costs less
 * than runs flattened here. */
static int a_want(void *arg)
{
	const struct adapt *a = arg;

	return a->piped;
}

static int a_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct adapt *a = arg;

	if (a->piped)
		return lsd_pipe_callbacks.loss(&a->p, stream, l);
	return a->cb->loss ? a->cb->loss(a->arg, stream, l) : 0;
}

static int a_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct adapt *a = arg;

	if (a->piped)
		return lsd_pipe_callbacks.stream_begin(&a->p, stream, s);
	return a->cb->stream_begin ? a->cb->stream_begin(a->arg, stream, s) : 0;
}

static int a_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct adapt *a = arg;

	if (a->piped)
		return lsd_pipe_callbacks.stream_end(&a->p, stream, st);
	return a->cb->stream_end ? a->cb->stream_end(a->arg, stream, st) : 0;
}

static int a_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct adapt *a = arg;

	if (a->piped)
		return lsd_pipe_callbacks.thread(&a->p, stream, pid, tid);
	return a->cb->thread ? a->cb->thread(a->arg, stream, pid, tid) : 0;
}

static const struct lsd_callbacks adapt_callbacks = {
	.block = a_block,
	.blocks = a_blocks,
	.spans = a_spans,
	.want_spans = a_want,
	.loss = a_loss,
	.stream_begin = a_begin,
	.stream_end = a_end,
	.thread = a_thread,
};

int lsd_decode_all_adapt(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			 void *arg, struct lsd_stream_stats *st,
			 struct lsd_pipe_stats *ps)
{
	return lsd_decode_all_adapt_tape(d, cb, arg, st, ps, NULL);
}

int lsd_decode_all_adapt_tape(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			      void *arg, struct lsd_stream_stats *st,
			      struct lsd_pipe_stats *ps, struct lsd_tape *tape)
{
	struct adapt a;
	const char *v = getenv("LOOPSCOPE_PIPE_SWITCH");
	int err, e2;

	if (!d || !cb)
		return -LS_EINVAL;
	memset(&a, 0, sizeof(a));
	lsd_pipe_init(&a.p, d, cb, arg, NULL, NULL, st);
	a.p.nbuf = NBUF;
	a.cb = cb;
	a.arg = arg;
	a.ps = ps;
	if (ps)
		memset(ps, 0, sizeof(*ps));
	a.iv.every = LSD_ADAPT_FIRST;
	a.iv.chose = -1;
	if (v && *v)
		a.force = strtoull(v, NULL, 10);
	if (!a.force && lsd_pt_bytes(d) >= LSD_ADAPT_PIPED_PT) {
		/* on the thread at once, the first window later */
		a.left = LSD_ADAPT_FIRST;
		a.iv.every = 2 * LSD_ADAPT_FIRST;
		err = adapt_mode(&a, 1);
		a.iv.chose = a.piped;
		if (ps && a.piped)
			ps->piped_first++;
	} else {
		/* the first window at once (forced: the first switch) */
		a.left = a.force;
		err = adapt_tick(&a, 0);
	}
	/* (the tape in front: recorded on this thread, whichever makes
	 * cb's calls) */
	if (!err && tape) {
		lsd_tape_to(tape, &adapt_callbacks, &a);
		err = lsd_decode_all(d, &lsd_tape_callbacks, tape, st);
	} else if (!err) {
		err = lsd_decode_all(d, &adapt_callbacks, &a, st);
	}
	/* the calls still in the ring are made, whatever happened */
	e2 = a.piped ? lsd_pipe_publish(&a.p) : 0;
	if (a.have_side) {
		lsd_pipe_done(&a.p);
		pthread_join(a.side, NULL);
	}
	if (!err)
		err = e2 ? e2 : a.p.cerr;
	lsd_pipe_fini(&a.p);
	free(a.flat);
	return err;
}
