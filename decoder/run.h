/* run.h - one decoding run over the chunks of a stream (decode.c), and
 * what the fast path (fast.c) shares of it.  Internal to decoder/. */
#ifndef LSD_RUN_H
#define LSD_RUN_H

#include "decoder/decode_int.h"

/* Blocks per call of the batch callback: big enough that the call is
 * amortized, small enough to stay in L1 beside libipt's data. */
#define LSD_BATCH 256

struct lsd_fast;

struct lsd_run {
	struct lsd_decoder *d;
	size_t stream;
	const struct lsd_callbacks *cb;
	void *arg;
	struct lsd_stream_stats *st;
	const struct lsd_sblock *pend;	/* executed, exit not yet known */
	/* pend's end, instructions and last_kind, copied (set_pend()) so
	 * that the hot path need not read the static block. */
	uint64_t pend_end;
	uint32_t pend_ninsn;
	uint8_t pend_kind;
	uint64_t stop_ip;		/* X of the chunk, 0 if none */
	int tailing;			/* holding blocks after X */
	struct lsd_block *tail;
	size_t ntail, captail;
	uint64_t chunk_off;		/* stream offset of the chunk */
	int cbret;			/* non-zero return of a callback */
	int (*blockfn)(void *arg, size_t stream, const struct lsd_block *b);
	int (*batchfn)(void *arg, size_t stream, const struct lsd_block *b, size_t n);
	int (*spanfn)(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns);
	struct lsd_block *batch;	/* LSD_BATCH blocks, with batchfn */
	size_t nbatch;
	uint64_t insns, blocks;		/* hot counters, into *st at the end */
	uint64_t told_insns;		/* r->insns at the last progress call */
	/* libipt's last block, not yet split: the next one may continue it
	 * (see on_block). */
	int held;
	uint64_t held_start, held_last;
	uint32_t held_ninsn;
	uint8_t held_mode;	/* its libipt execution mode (enum pt_exec_mode) */
	/* The thread the blocks belong to, as told to the thread callback
	 * (told: it has been), and a per-CPU stream's switch events. */
	uint32_t pid, tid;
	int told;
	const struct lsd_timeline *tl;
	struct pt_block_decoder *dec;	/* of the chunk being decoded */
	const uint8_t *buf;		/* its bytes */
	size_t len;
	/* Where the run is, so that it can stop at a thread switch and go on
	 * later (lsd_decode_all(): per-CPU streams in time order). */
	size_t first, last, c, nchunks;
	struct lsd_chunkbuf *cbuf;	/* chunk c in slot cur, c + 1 in the other */
	int cur, in_chunk, done;
	int64_t clen, nlen;
	int status;			/* libipt's, between pt_blk_* calls */
	struct lsd_space *sp;		/* the space of the run's thread */
	int pausable, paused;
	int pub;			/* counts chunks for lsd_chunk_starts() */
	uint64_t pubbase;		/* ... the stream's blocks before chunk first */
	uint64_t pause_tsc;		/* the PT time of the switch it stopped at */
	const struct lsd_swent *swev;	/* the switch event of the thread's run */
	/* Deliveries still to drop: a chunk the fast path began and gave
	 * up is decoded again by libipt from its start, and the blocks the
	 * fast path already handed out are not handed out twice. */
	uint64_t skip;
	int fast;			/* try the fast path on each chunk */
	struct lsd_fast *fp;		/* its state, NULL until first used */
};

/* Hands the batch to the batch callback.  Returns 0 or its return. */
int lsd_run_batch_flush(struct lsd_run *r);
/* decode_put.c: handing blocks out. */
/* The block callback, unless the block is one to drop (r->skip).
 * Returns its return (also in r->cbret). */
int lsd_run_call_block(struct lsd_run *r, const struct lsd_block *b);
/* Appends n blocks to the batch, handing it over whenever it is full.
 * Returns 0 or the batch callback's return. */
int lsd_run_batch_put(struct lsd_run *r, const struct lsd_block *b, size_t n);
/* Hands out the blocks held back after the stop IP.  Returns 0 or a
 * callback's return. */
int lsd_run_flush_tail(struct lsd_run *r);
/* sb was entered: the pending block goes out with its exit, sb becomes
 * the pending one.  Returns 0, -LS_ENOMEM or a callback's return. */
int lsd_run_push(struct lsd_run *r, const struct lsd_sblock *sb);
/* The pending block ends with exit, control at next.  Returns as
 * lsd_run_push(). */
int lsd_run_end_pend(struct lsd_run *r, int exit, uint64_t next);

/* The exit of each kind of last instruction; a conditional branch's
 * depends on where control went. */
static const uint8_t lsd_exit_of_kind[8] = {
	[LSD_K_OTHER] = LSD_EXIT_FALL, [LSD_K_COND] = LSD_EXIT_COND_TAKEN,
	[LSD_K_JMP] = LSD_EXIT_JUMP, [LSD_K_IJMP] = LSD_EXIT_IJUMP,
	[LSD_K_CALL] = LSD_EXIT_CALL, [LSD_K_ICALL] = LSD_EXIT_ICALL,
	[LSD_K_RET] = LSD_EXIT_RET, [LSD_K_FAR] = LSD_EXIT_SYSCALL,
};

/* The exit of the pending block, given where control went next.  A table,
 * not a switch: the kinds alternate too much for a jump to predict. */
static inline int lsd_exit_by_kind(int kind, uint64_t end, uint64_t next)
{
	if (kind == LSD_K_COND && next == end)
		return LSD_EXIT_COND_NOT;
	return lsd_exit_of_kind[kind & 7];
}

/* decode.c: one chunk with libipt's block decoder (or the fast path). */
/* A loss of the bytes [at, resync) of the chunk, found by libipt's
 * error; ip: where it failed, 0 for the last instruction decoded.
 * Returns 0 or an error (-LS_ENOMEM, a callback's return). */
int lsd_run_report_loss(struct lsd_run *r, uint64_t at, uint64_t resync, int error,
			uint64_t ip);
/* Tells the thread callback who runs, if it has not been told.  Returns
 * 0 or its return. */
int lsd_run_tell_thread(struct lsd_run *r);
/* Starts decoding chunk r->c: with the fast path where it may go, else
 * with libipt's block decoder (r->dec).  Returns 0 or a fatal error
 * (-LS_ENOMEM, a callback's return); may pause (r->paused). */
int lsd_run_chunk_begin(struct lsd_run *r);
/* Decodes the chunk libipt's decoder started until its end, or until the
 * run pauses at a thread switch.  Returns 0 or a fatal error; decode
 * errors become losses. */
int lsd_run_chunk_go(struct lsd_run *r);
/* The end of the chunk: what it holds back for the next chunk, or not.
 * Returns 0 or an error as lsd_run_chunk_go(). */
int lsd_run_chunk_end(struct lsd_run *r);

/* Hands out n finished blocks in order, as if each had been delivered
 * (counted in r->insns and r->blocks by the caller).  Returns 0 or a
 * callback's non-zero return. */
int lsd_run_put(struct lsd_run *r, const struct lsd_block *b, size_t n);

/* The fast path over chunk r->c, in r->buf[0 .. r->len): decodes it
 * without libipt where every packet is one it models exactly, handing
 * out the same blocks libipt's block decoder would.  Returns 0 when the
 * chunk is done (the state left as chunk_go() leaves it: nothing held,
 * nothing pending; blocks after the chunk's stop IP dropped),
 * LSD_FAST_BAIL when it met something it leaves to libipt (r->skip then
 * holds the blocks it handed out; nothing else was changed), or a
 * negative LS_E* / callback error. */
#define LSD_FAST_BAIL 1
int lsd_fast_chunk(struct lsd_run *r);
/* Frees what lsd_fast_chunk() kept in r. */
void lsd_fast_release(struct lsd_run *r);
/* Frees the decoder's fast-path block table (decoder close). */
void lsd_fast_free(struct lsd_decoder *d);

#endif
