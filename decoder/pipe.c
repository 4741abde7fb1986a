/* pipe.c - lsd_decode_all() on a second thread, the callbacks on the
 * caller's, through a bounded queue; and two analyses of one decode
 * (lsd_decode_all_tee()), the second on a third thread if asked.
 *
 * The decoding thread turns every callback into an event in one of a few
 * fixed buffers (blocks copied, losses and stream statistics by value);
 * the calling thread takes the buffers in order and makes the same calls,
 * with the same arguments, in the same order.  So an analysis sees what
 * lsd_decode_all() would show it, while the next blocks are decoded
 * (and their chunks decompressed) on the other core.  At a stream's end
 * the decoder waits until the stream_end callback has returned, so that
 * callback may use the decoder and the reader.  Memory: NBUF buffers
 * (NBUF_TEE with a third thread, 16 MiB), whatever the trace's length.
 *
 * A second consumer (the tee's) replays the same buffers on a thread of
 * its own; a buffer is refilled once both took it, and a stream's end
 * waits for both stream_end callbacks.
 *
 * pipe_adapt.c moves the callbacks between the decoding thread and the
 * queue's consumer as the costs it times say (pipe_int.h shares the
 * queue).
 */
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "decoder/decode.h"
#include "decoder/pipe_int.h"

/* The least of the consumers' counts (under mu). */
static uint64_t least(const struct pipe *p, const uint64_t *v)
{
	uint64_t m = v[0];
	unsigned k;

	for (k = 1; k < p->ncons; k++)
		if (v[k] < m)
			m = v[k];
	return m;
}

/* Hands the buffer being filled to the caller's thread; waits for a free
 * one.  Returns the callbacks' error, if any. */
int lsd_pipe_publish(struct pipe *p)
{
	struct pbuf *b = &p->buf[p->tail];
	int err;

	if (p->pstop)
		return p->pstop;
	if (!b->nev)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->ends_sent += b->ends;
	p->tail = (p->tail + 1) % p->nbuf;
	p->pub++;
	pthread_cond_broadcast(&p->filled);
	/* the next buffer is free once every consumer took it */
	while (p->pub - least(p, p->took) == p->nbuf && !p->cerr)
		pthread_cond_wait(&p->emptied, &p->mu);
	err = p->cerr;
	pthread_mutex_unlock(&p->mu);
	if (err)
		return p->pstop = err;
	b = &p->buf[p->tail];
	/* (the ring's first round: a buffer never written, its pages mapped
	 * in at once rather than a fault each) */
	if (p->pub < p->nbuf)
		ls_prefault(b, sizeof(*b));
	b->nblk = b->nev = b->ends = 0;
	return 0;
}

/* A new event of this kind and stream in the buffer being filled
 * (published first if full). */
static int event(struct pipe *p, uint8_t kind, size_t stream, struct pev **out)
{
	struct pbuf *b = &p->buf[p->tail];
	int err;

	if (p->pstop)
		return p->pstop;
	if (b->nev == NEV && (err = lsd_pipe_publish(p)))
		return err;
	b = &p->buf[p->tail];
	*out = &b->ev[b->nev++];
	(*out)->kind = kind;
	(*out)->stream = stream;
	return 0;
}

static int p_blocks(void *arg, size_t stream, const struct lsd_block *blk, size_t n)
{
	struct pipe *p = arg;
	int err;

	if (p->pstop)
		return p->pstop;
	while (n) {
		struct pbuf *b = &p->buf[p->tail];
		struct pev *e = b->nev ? &b->ev[b->nev - 1] : NULL;
		size_t k;

		if (b->nblk == NBLK && (err = lsd_pipe_publish(p)))
			return err;
		b = &p->buf[p->tail];
		e = b->nev ? &b->ev[b->nev - 1] : NULL;
		if (!e || e->kind != EV_BLOCKS || e->stream != stream ||
		    e->u.b.first + e->u.b.n != b->nblk) {
			if ((err = event(p, EV_BLOCKS, stream, &e)))
				return err;
			b = &p->buf[p->tail];	/* event() may have published */
			e->u.b.first = b->nblk;
			e->u.b.n = 0;
		}
		k = NBLK - b->nblk < n ? NBLK - b->nblk : n;
		memcpy(&b->blk[b->nblk], blk, k * sizeof(*blk));
		b->nblk += (uint32_t)k;
		e->u.b.n += (uint32_t)k;
		blk += k;
		n -= k;
	}
	return 0;
}

static int p_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return p_blocks(arg, stream, b, 1);
}

static int p_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct pev *e;
	int err = event(arg, EV_LOSS, stream, &e);

	if (err)
		return err;
	e->u.loss = *l;
	return 0;
}

static int p_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct pev *e;
	int err = event(arg, EV_BEGIN, stream, &e);

	if (err)
		return err;
	e->u.s = s;	/* the reader's: stays valid */
	return 0;
}

static int p_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct pev *e;
	int err = event(arg, EV_THREAD, stream, &e);

	if (err)
		return err;
	e->u.th.pid = pid;
	e->u.th.tid = tid;
	return 0;
}

/* The stream's end: the decoder waits until its callback has run. */
static int p_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct pipe *p = arg;
	struct pev *e;
	uint64_t want;
	int err = event(p, EV_END, stream, &e);

	if (err)
		return err;
	memset(&e->u.st, 0, sizeof(e->u.st));
	if (st)
		e->u.st = *st;
	p->buf[p->tail].ends++;
	want = p->ends_sent + p->buf[p->tail].ends;
	if ((err = lsd_pipe_publish(p)))
		return err;
	pthread_mutex_lock(&p->mu);
	while (least(p, p->ends_done) < want && !p->cerr)
		pthread_cond_wait(&p->acked, &p->mu);
	err = p->cerr;
	pthread_mutex_unlock(&p->mu);
	if (err)
		p->pstop = err;
	return err;
}

const struct lsd_callbacks lsd_pipe_callbacks = {
	.block = p_block,
	.blocks = p_blocks,
	.loss = p_loss,
	.stream_begin = p_begin,
	.stream_end = p_end,
	.thread = p_thread,
};

static void *producer(void *arg)
{
	struct pipe *p = arg;
	int err = lsd_decode_all(p->d, &lsd_pipe_callbacks, p, p->st), e2;

	e2 = lsd_pipe_publish(p);
	pthread_mutex_lock(&p->mu);
	p->perr = err ? err : e2;
	p->done = 1;
	pthread_cond_broadcast(&p->filled);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The calls one buffer holds, to cb with arg; returns the first error. */
static int replay(const struct lsd_callbacks *cb, void *arg, const struct pbuf *b)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < b->nev && !err; i++) {
		const struct pev *e = &b->ev[i];

		switch (e->kind) {
		case EV_BLOCKS:
			err = lsd_pipe_call_blocks(cb, arg, e->stream, &b->blk[e->u.b.first],
						   e->u.b.n);
			break;
		case EV_LOSS:
			if (cb->loss)
				err = cb->loss(arg, e->stream, &e->u.loss);
			break;
		case EV_BEGIN:
			if (cb->stream_begin)
				err = cb->stream_begin(arg, e->stream, e->u.s);
			break;
		case EV_END:
			if (cb->stream_end)
				err = cb->stream_end(arg, e->stream, &e->u.st);
			break;
		case EV_THREAD:
			if (cb->thread)
				err = cb->thread(arg, e->stream, e->u.th.pid, e->u.th.tid);
			break;
		}
	}
	return err;
}

/* Consumer k's loop: replays each published buffer in order (both
 * callback sets when k is 0 and the tee's has no thread: side), until
 * the decoder is done.  After an error anywhere the rest is drained
 * unseen.  Returns the first error of any consumer. */
int lsd_pipe_consume(struct pipe *p, unsigned k, int side)
{
	for (;;) {
		const struct pbuf *b;
		int e = 0, stop;

		pthread_mutex_lock(&p->mu);
		while (p->took[k] == p->pub && !p->done)
			pthread_cond_wait(&p->filled, &p->mu);
		if (p->took[k] == p->pub) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		b = &p->buf[p->took[k] % p->nbuf];
		stop = p->cerr;
		pthread_mutex_unlock(&p->mu);
		if (!stop) {
			e = replay(p->cb[k], p->arg[k], b);
			if (!e && side)
				e = replay(p->cb[1], p->arg[1], b);
		}
		pthread_mutex_lock(&p->mu);
		if (e && !p->cerr) {
			p->cerr = e;
			pthread_cond_broadcast(&p->acked);
		}
		p->ends_done[k] += b->ends;
		p->took[k]++;
		pthread_cond_signal(&p->emptied);
		pthread_cond_signal(&p->acked);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_lock(&p->mu);
	{
		int err = p->cerr;

		pthread_mutex_unlock(&p->mu);
		return err;
	}
}

static void *side_main(void *arg)
{
	lsd_pipe_consume(arg, 1, 0);
	return NULL;
}

/* lsd_decode_all() to cb, or to cb and tee (both on this thread, in
 * that order). */
static int decode_here(struct lsd_decoder *d, const struct lsd_callbacks *cb,
		       void *arg, const struct lsd_callbacks *tee, void *tee_arg,
		       struct lsd_stream_stats *st)
{
	struct lsd_fan f = { { cb, tee }, { arg, tee_arg }, 2, NULL, 0 };
	int err;

	if (!tee)
		return lsd_decode_all(d, cb, arg, st);
	err = lsd_decode_all(d, &lsd_fan_callbacks, &f, st);
	lsd_fan_release(&f);
	return err;
}

void lsd_pipe_init(struct pipe *p, struct lsd_decoder *d, const struct lsd_callbacks *cb,
		      void *arg, const struct lsd_callbacks *tee, void *tee_arg,
		      struct lsd_stream_stats *st)
{
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->cb[0] = cb;
	p->arg[0] = arg;
	p->cb[1] = tee;
	p->arg[1] = tee_arg;
	p->ncons = 1;
	p->st = st;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->emptied, NULL);
	pthread_cond_init(&p->acked, NULL);
}

void lsd_pipe_fini(struct pipe *p)
{
	pthread_cond_destroy(&p->acked);
	pthread_cond_destroy(&p->emptied);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->mu);
	free(p->buf);
}

/* Ends consumers' loops once they took every buffer published. */
void lsd_pipe_done(struct pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->filled);
	pthread_mutex_unlock(&p->mu);
}

void *lsd_pipe_cons0_main(void *arg)
{
	lsd_pipe_consume(arg, 0, 0);
	return NULL;
}

int lsd_decode_all_tee(struct lsd_decoder *d, const struct lsd_callbacks *cb,
		       void *arg, const struct lsd_callbacks *tee, void *tee_arg,
		       int threads, struct lsd_stream_stats *st)
{
	struct pipe p;
	pthread_t th, side;
	int err = 0, have_side = 0;

	if (!d || !cb)
		return -LS_EINVAL;
	if (threads < 1)
		return decode_here(d, cb, arg, tee, tee_arg, st);
	if (!tee && threads >= 2)
		return lsd_decode_all_adapt(d, cb, arg, st, NULL);
	lsd_pipe_init(&p, d, cb, arg, tee, tee_arg, st);
	p.nbuf = tee && threads >= 2 ? NBUF_TEE : NBUF;
	p.buf = calloc(p.nbuf, sizeof(*p.buf));
	if (p.buf)
		ls_prefault(p.buf, sizeof(*p.buf));	/* (the first, as publish() does the rest) */
	if (!p.buf) {
		lsd_pipe_fini(&p);
		return -LS_ENOMEM;
	}
	/* the tee's thread first: the decoder then counts it from its
	 * first buffer on */
	if (tee && threads >= 2 && !pthread_create(&side, NULL, side_main, &p)) {
		have_side = 1;
		p.ncons = 2;
	}
	if (pthread_create(&th, NULL, producer, &p)) {
		/* no decoding thread: the plain decode */
		if (have_side) {
			lsd_pipe_done(&p);
			pthread_join(side, NULL);
		}
		err = decode_here(d, cb, arg, tee, tee_arg, st);
		goto out;
	}
	err = lsd_pipe_consume(&p, 0, tee && !have_side);
	pthread_join(th, NULL);
	if (have_side)
		pthread_join(side, NULL);
	if (!err)
		err = p.cerr ? p.cerr : p.perr;
out:
	lsd_pipe_fini(&p);
	return err;
}

int lsd_decode_all_piped(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			 void *arg, struct lsd_stream_stats *st)
{
	return lsd_decode_all_tee(d, cb, arg, NULL, NULL, 1, st);
}
