/* pipe.c - lsd_decode_all() on a second thread, the callbacks on the
 * caller's, through a bounded queue.
 *
 * The decoding thread turns every callback into an event in one of a few
 * fixed buffers (blocks copied, losses and stream statistics by value);
 * the calling thread takes the buffers in order and makes the same calls,
 * with the same arguments, in the same order.  So an analysis sees what
 * lsd_decode_all() would show it, while the next blocks are decoded
 * (and their chunks decompressed) on the other core.  At a stream's end
 * the decoder waits until the stream_end callback has returned, so that
 * callback may use the decoder and the reader.  Memory: NBUF buffers,
 * whatever the trace's length.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ls_err.h"
#include "decoder/decode.h"

#define NBUF 4
#define NBLK 16384
#define NEV 1024

enum { EV_BLOCKS, EV_LOSS, EV_BEGIN, EV_END, EV_THREAD };

struct pev {
	uint8_t kind;
	size_t stream;
	union {
		struct {
			uint32_t first, n;
		} b;
		struct lsd_loss loss;
		const struct lsb_stream *s;
		struct lsd_stream_stats st;
		struct {
			uint32_t pid, tid;
		} th;
	} u;
};

struct pbuf {
	struct lsd_block blk[NBLK];
	struct pev ev[NEV];
	uint32_t nblk, nev;
	uint32_t ends;		/* EV_END events in it */
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied, acked;
	struct pbuf *buf;
	unsigned head, tail, count;	/* ring of NBUF; count filled */
	uint64_t ends_sent, ends_done;
	int cerr;		/* a callback's error: decoding stops */
	int pstop;		/* the decoding thread's copy of it: it then
				 * writes no buffer (it may own none) */
	int perr;		/* lsd_decode_all()'s return */
	int done;
	struct lsd_decoder *d;
	const struct lsd_callbacks *cb;
	void *arg;
	struct lsd_stream_stats *st;
};

/* Hands the buffer being filled to the caller's thread; waits for a free
 * one.  Returns the callbacks' error, if any. */
static int publish(struct pipe *p)
{
	struct pbuf *b = &p->buf[p->tail];
	int err;

	if (p->pstop)
		return p->pstop;
	if (!b->nev)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->ends_sent += b->ends;
	p->tail = (p->tail + 1) % NBUF;
	p->count++;
	pthread_cond_signal(&p->filled);
	while (p->count == NBUF && !p->cerr)
		pthread_cond_wait(&p->emptied, &p->mu);
	err = p->cerr;
	pthread_mutex_unlock(&p->mu);
	if (err)
		return p->pstop = err;
	b = &p->buf[p->tail];
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
	if (b->nev == NEV && (err = publish(p)))
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

		if (b->nblk == NBLK && (err = publish(p)))
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
	if ((err = publish(p)))
		return err;
	pthread_mutex_lock(&p->mu);
	while (p->ends_done < want && !p->cerr)
		pthread_cond_wait(&p->acked, &p->mu);
	err = p->cerr;
	pthread_mutex_unlock(&p->mu);
	if (err)
		p->pstop = err;
	return err;
}

static const struct lsd_callbacks pipe_callbacks = {
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
	int err = lsd_decode_all(p->d, &pipe_callbacks, p, p->st), e2;

	e2 = publish(p);
	pthread_mutex_lock(&p->mu);
	p->perr = err ? err : e2;
	p->done = 1;
	pthread_cond_signal(&p->filled);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The calls one buffer holds; returns the first error. */
static int replay(struct pipe *p, const struct pbuf *b)
{
	const struct lsd_callbacks *cb = p->cb;
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < b->nev && !err; i++) {
		const struct pev *e = &b->ev[i];

		switch (e->kind) {
		case EV_BLOCKS:
			if (cb->blocks) {
				err = cb->blocks(p->arg, e->stream, &b->blk[e->u.b.first], e->u.b.n);
				break;
			}
			for (j = 0; j < e->u.b.n && !err && cb->block; j++)
				err = cb->block(p->arg, e->stream, &b->blk[e->u.b.first + j]);
			break;
		case EV_LOSS:
			if (cb->loss)
				err = cb->loss(p->arg, e->stream, &e->u.loss);
			break;
		case EV_BEGIN:
			if (cb->stream_begin)
				err = cb->stream_begin(p->arg, e->stream, e->u.s);
			break;
		case EV_END:
			if (cb->stream_end)
				err = cb->stream_end(p->arg, e->stream, &e->u.st);
			break;
		case EV_THREAD:
			if (cb->thread)
				err = cb->thread(p->arg, e->stream, e->u.th.pid, e->u.th.tid);
			break;
		}
	}
	return err;
}

int lsd_decode_all_piped(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			 void *arg, struct lsd_stream_stats *st)
{
	struct pipe p;
	pthread_t th;
	int err = 0;

	if (!d || !cb)
		return -LS_EINVAL;
	memset(&p, 0, sizeof(p));
	p.d = d;
	p.cb = cb;
	p.arg = arg;
	p.st = st;
	p.buf = calloc(NBUF, sizeof(*p.buf));
	if (!p.buf)
		return -LS_ENOMEM;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.filled, NULL);
	pthread_cond_init(&p.emptied, NULL);
	pthread_cond_init(&p.acked, NULL);
	if (pthread_create(&th, NULL, producer, &p)) {
		/* no second thread: the plain decode */
		err = lsd_decode_all(d, cb, arg, st);
		goto out;
	}
	for (;;) {
		const struct pbuf *b;
		int e;

		pthread_mutex_lock(&p.mu);
		while (!p.count && !p.done)
			pthread_cond_wait(&p.filled, &p.mu);
		if (!p.count) {
			pthread_mutex_unlock(&p.mu);
			break;
		}
		b = &p.buf[p.head];
		pthread_mutex_unlock(&p.mu);
		/* after an error the rest is drained unseen */
		e = err ? 0 : replay(&p, b);
		pthread_mutex_lock(&p.mu);
		if (e && !err) {
			err = e;
			p.cerr = e;
			pthread_cond_broadcast(&p.acked);
		}
		p.ends_done += b->ends;
		p.head = (p.head + 1) % NBUF;
		p.count--;
		pthread_cond_signal(&p.emptied);
		pthread_cond_signal(&p.acked);
		pthread_mutex_unlock(&p.mu);
	}
	pthread_join(th, NULL);
	if (!err)
		err = p.perr;
out:
	pthread_cond_destroy(&p.acked);
	pthread_cond_destroy(&p.emptied);
	pthread_cond_destroy(&p.filled);
	pthread_mutex_destroy(&p.mu);
	free(p.buf);
	return err;
}
