/* pipe_int.h - the queue of decoder/pipe.c, for the decoders that
 * move callbacks between threads (pipe.c, pipe_adapt.c). */
#ifndef LSD_PIPE_INT_H
#define LSD_PIPE_INT_H

#include <pthread.h>
#include <stdint.h>

#include "decoder/decode.h"

#define NBUF 4
/* With the tee's thread, three threads share what may be two cores: the
 * ring must outlast the scheduler's time slices (a few ms, 10^5 to 10^6
 * blocks), or the decode stalls whenever a consumer is off its core.
 * `analyze -j2 --cfg` on xz -6 (the graph beside the learning pass),
 * wall, best of 5: 3.92 s with 4 buffers, 3.76 with 16, 3.48 with 48;
 * in a later run 32 and 48 alike (3.25 and 3.23 s), so 32 (512 KiB
 * each). */
#define NBUF_TEE 32
#define NBLK 16384
#define NEV 1024
#define NCONS 2		/* consumers of the buffers: the caller, the tee's */

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
	unsigned nbuf;		/* buffers in the ring */
	unsigned tail;		/* the buffer being filled (ring of nbuf) */
	uint64_t pub;		/* buffers published so far */
	uint64_t took[NCONS];	/* ... and taken by each consumer */
	uint64_t ends_sent, ends_done[NCONS];
	unsigned ncons;		/* consumers with a thread of their own */
	int cerr;		/* a callback's error: decoding stops */
	int pstop;		/* the decoding thread's copy of it: it then
				 * writes no buffer (it may own none) */
	int perr;		/* lsd_decode_all()'s return */
	int done;
	struct lsd_decoder *d;
	const struct lsd_callbacks *cb[NCONS];	/* cb[1] NULL: no tee */
	void *arg[NCONS];
	struct lsd_stream_stats *st;
};

/* The queue for d's calls to cb (and tee, may be NULL), with no buffers
 * yet (p->nbuf, p->buf are the caller's to set). */
void lsd_pipe_init(struct pipe *p, struct lsd_decoder *d, const struct lsd_callbacks *cb,
		   void *arg, const struct lsd_callbacks *tee, void *tee_arg,
		   struct lsd_stream_stats *st);
/* Frees what lsd_pipe_init() and the caller set up (p->buf too). */
void lsd_pipe_fini(struct pipe *p);
/* Hands the buffer being filled to the consumers; waits for a free one.
 * Returns a consumer's callback error, if any (then nothing more is
 * written). */
int lsd_pipe_publish(struct pipe *p);
/* Ends the consumers' loops once they took every buffer published. */
void lsd_pipe_done(struct pipe *p);
/* Consumer k's loop (side: the tee's calls too): replays each buffer
 * published, in order, until lsd_pipe_done().  Returns the first error
 * of any consumer. */
int lsd_pipe_consume(struct pipe *p, unsigned k, int side);
/* lsd_pipe_consume(arg, 0, 0), as a thread's start. */
void *lsd_pipe_cons0_main(void *arg);
/* Blocks b[0 .. n) to cb: the batch whole where cb takes batches, else
 * block by block.  Returns cb's first error. */
static inline int lsd_pipe_call_blocks(const struct lsd_callbacks *cb, void *arg,
				       size_t stream, const struct lsd_block *b, size_t n)
{
	size_t k;
	int err = 0;

	if (cb->blocks)
		return cb->blocks(arg, stream, b, n);
	for (k = 0; k < n && !err && cb->block; k++)
		err = cb->block(arg, stream, &b[k]);
	return err;
}
/* The decoder's callbacks with the queue as arg: each call becomes an
 * event in the buffer being filled (stream_end waits for its replay). */
extern const struct lsd_callbacks lsd_pipe_callbacks;

/* The adaptive pipe's windows (pipe_adapt.c): the blocks between two
 * after the first, at most; and the cost a block of each side must pass
 * for the calls to go through the ring (ns).  Measured (bench/'s five
 * programs, analyze -j2 wall, medians of 5, ns a block of decode / of
 * the learning pass's detector in a window): the stencil (1.0 / 0.8) is
 * 0.55 s piped and 0.50 here; spmv (1.7 / 2.3) 1.39 piped and 1.61
 * here; thresholds of 0 and 1 ns gave the same times on sqlite3, bzip2
 * and xz, 2 and 3 ns lost spmv's pipe. */
#define LSD_ADAPT_FIRST (1u << 22)
#define LSD_ADAPT_EVERY (1u << 26)
#define LSD_ADAPT_COPY_NS 1

/* When the next window comes: the blocks between windows now, and what
 * the last one chose (1 piped, 0 here, -1 none yet). */
struct lsd_adapt_iv {
	uint64_t every;
	int chose;
};

/* A window of n blocks took ns nanoseconds, cb_ns of them in the calls:
 * returns 1 where the calls go through the ring until the next window
 * (each side dearer than LSD_ADAPT_COPY_NS a block), else 0, and sets
 * *left to the blocks before that window: iv->every, which then doubles
 * up to LSD_ADAPT_EVERY, or LSD_ADAPT_FIRST where this choice is not
 * the last one's.  Never fails. */
int lsd_adapt_choose(struct lsd_adapt_iv *iv, uint64_t n, uint64_t ns, uint64_t cb_ns,
		     uint64_t *left);

#endif
