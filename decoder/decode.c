/* decode.c - libipt's block decoder over a bundle's PT streams, chunk by
 * chunk, turned into the stream of executed static blocks.
 *
 * Chunks are decoded on their own: each starts at a PSB.  A decoder that
 * reaches the end of chunk k keeps going along the deterministic path
 * after the chunk's last packet, past the point X where chunk k+1 starts
 * (the IP of the FUP in its PSB+).  Those blocks belong to chunk k+1, so
 * chunk k stops at its last arrival at X after its last packet: the blocks
 * from there on are held back and dropped at the end of the chunk.  The
 * chunks of a stream then concatenate to exactly the whole stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

/* Blocks per call of the batch callback: big enough that the call is
 * amortized, small enough to stay in L1 beside libipt's data. */
#define LSD_BATCH 256

struct run {
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
	struct lsd_block *batch;	/* LSD_BATCH blocks, with batchfn */
	size_t nbatch;
	uint64_t insns, blocks;		/* hot counters, into *st at the end */
	/* libipt's last block, not yet split: the next one may continue it
	 * (see on_block). */
	int held;
	uint64_t held_start, held_last;
	uint32_t held_ninsn;
};

static const char *const exit_names[LSD_EXIT_MAX] = {
	"fall", "taken", "not-taken", "jump", "ijump", "call", "icall", "ret",
	"syscall", "async", "gap", "end",
};

const char *lsd_exit_name(int exit)
{
	return exit >= 0 && exit < LSD_EXIT_MAX ? exit_names[exit] : "?";
}

const char *lsd_iclass_name(int ic)
{
	static const char *const names[LSD_IC_MAX] = {
		"load", "store", "branch", "call", "ret", "int", "fp", "simd", "other",
	};

	return ic >= 0 && ic < LSD_IC_MAX ? names[ic] : "?";
}

static int kind_of(const struct lsd_sblock *sb)
{
	return sb->last_kind;
}

/* A block whose exit needed a packet (TNT bit, TIP, PGD). */
static int consumed_packet(int kind, int exit)
{
	switch (kind) {
	case LSD_K_COND: case LSD_K_IJMP: case LSD_K_ICALL: case LSD_K_RET:
	case LSD_K_FAR:
		return 1;
	default:
		return exit == LSD_EXIT_ASYNC || exit == LSD_EXIT_GAP ||
		       exit == LSD_EXIT_END || exit == LSD_EXIT_SYSCALL;
	}
}

static void set_pend(struct run *r, const struct lsd_sblock *sb)
{
	r->pend = sb;
	if (sb) {
		r->pend_end = sb->end;
		r->pend_ninsn = sb->ninsn;
		r->pend_kind = sb->last_kind;
	}
}

/* Hands the batch to the batch callback.  Called before any other
 * callback that follows the batch's blocks in the stream. */
static int batch_flush(struct run *r)
{
	if (r->nbatch && !r->cbret)
		r->cbret = r->batchfn(r->arg, r->stream, r->batch, r->nbatch);
	r->nbatch = 0;
	return r->cbret;
}

/* Appends n blocks to the batch, handing it over whenever it is full. */
static int batch_put(struct run *r, const struct lsd_block *b, size_t n)
{
	while (n) {
		size_t k = LSD_BATCH - r->nbatch;

		if (!k && batch_flush(r))
			return r->cbret;
		k = LSD_BATCH - r->nbatch;
		if (k > n)
			k = n;
		memcpy(r->batch + r->nbatch, b, k * sizeof(*b));
		r->nbatch += k;
		b += k;
		n -= k;
	}
	return 0;
}

static int deliver(struct run *r, const struct lsd_block *b)
{
	if (r->cbret)
		return r->cbret;
	r->insns += b->sb->ninsn;
	r->blocks++;
	if (r->batchfn)
		return batch_put(r, b, 1);
	if (r->blockfn)
		r->cbret = r->blockfn(r->arg, r->stream, b);
	return r->cbret;
}

static int flush_tail(struct run *r)
{
	size_t i;
	int err = 0;

	for (i = 0; i < r->ntail && !err; i++)
		err = deliver(r, &r->tail[i]);
	r->ntail = 0;
	r->tailing = 0;
	return err;
}

static int emit(struct run *r, const struct lsd_sblock *sb, int exit, uint64_t next)
{
	struct lsd_block b = { sb, (uint8_t)exit, next };

	if (!r->tailing)
		return deliver(r, &b);
	if (r->ntail == r->captail) {
		size_t ncap = r->captail ? r->captail * 2 : 64;
		void *p;

		/* A tail without packets has no loop but `jmp .`; don't let
		 * that grow without bound. */
		if (ncap > 65536)
			return flush_tail(r) ? r->cbret : deliver(r, &b);
		p = realloc(r->tail, ncap * sizeof(*r->tail));
		if (!p)
			return -LS_ENOMEM;
		r->tail = p;
		r->captail = ncap;
	}
	r->tail[r->ntail++] = b;
	if (consumed_packet(kind_of(sb), exit))
		return flush_tail(r);
	return 0;
}

/* The exit of each kind of last instruction; a conditional branch's
 * depends on where control went. */
static const uint8_t exit_of_kind[8] = {
	[LSD_K_OTHER] = LSD_EXIT_FALL, [LSD_K_COND] = LSD_EXIT_COND_TAKEN,
	[LSD_K_JMP] = LSD_EXIT_JUMP, [LSD_K_IJMP] = LSD_EXIT_IJUMP,
	[LSD_K_CALL] = LSD_EXIT_CALL, [LSD_K_ICALL] = LSD_EXIT_ICALL,
	[LSD_K_RET] = LSD_EXIT_RET, [LSD_K_FAR] = LSD_EXIT_SYSCALL,
};

/* The exit of the pending block, given where control went next.  A table,
 * not a switch: the kinds alternate too much for a jump to predict. */
static inline int exit_by_kind(int kind, uint64_t end, uint64_t next)
{
	if (kind == LSD_K_COND && next == end)
		return LSD_EXIT_COND_NOT;
	return exit_of_kind[kind & 7];
}

static int push(struct run *r, const struct lsd_sblock *sb)
{
	int err = 0;

	if (r->pend)
		err = emit(r, r->pend, exit_by_kind(r->pend_kind, r->pend_end,
						    sb->start), sb->start);
	set_pend(r, sb);
	if (r->stop_ip && sb->start == r->stop_ip && !r->tailing)
		r->tailing = 1;
	return err;
}

static int end_pend(struct run *r, int exit, uint64_t next)
{
	int err = 0;

	if (r->pend)
		err = emit(r, r->pend, exit, next);
	r->pend = NULL;
	return err;
}

static int report_loss(struct run *r, uint64_t at, uint64_t resync, int error);

/* Hands out the pending block, control having gone on to next, on the
 * hot path (deliver() without the tail).  The batch slot is written field
 * by field: a block built on the stack and copied in was read back before
 * its stores had landed, a store-forwarding stall on every block. */
static inline int put_pend(struct run *r, uint64_t next)
{
	uint8_t exit = (uint8_t)exit_by_kind(r->pend_kind, r->pend_end, next);
	int err;

	r->insns += r->pend_ninsn;
	r->blocks++;
	if (r->batchfn) {
		struct lsd_block *e;

		if (r->nbatch == LSD_BATCH && (err = batch_flush(r)) != 0)
			return err;
		e = &r->batch[r->nbatch++];
		e->sb = r->pend;
		e->exit = exit;
		e->next = next;
	} else if (r->blockfn) {
		struct lsd_block e = { r->pend, exit, next };

		if ((err = r->blockfn(r->arg, r->stream, &e)) != 0)
			return r->cbret = err;
	}
	return 0;
}

/* The last part of shape c, [.. last], becomes the pending block. */
static inline void pend_shape(struct run *r, const struct lsd_dcent *c, uint64_t last)
{
	r->pend = lsd_sb(r->d, c->last_id);
	r->pend_end = last + c->nextoff;
	r->pend_ninsn = c->ninsn_last;
	r->pend_kind = c->kind;
}

/* The parts after the first of a shape split in several, all falling
 * through: out of line, most shapes are one static block. */
static __attribute__((noinline)) int push_rest(struct run *r,
					       const struct lsd_dcent *c)
{
	const struct lsd_block *pre = r->d->pre + c->first;
	const uint32_t *partn = r->d->partn + c->first;
	uint32_t i, n = c->nparts;
	int err = 0;

	for (i = 0; i + 1 < n; i++)
		r->insns += partn[i];
	r->blocks += n - 1;
	if (r->batchfn)
		return batch_put(r, pre, n - 1);
	if (r->blockfn) {
		for (i = 0; i + 1 < n; i++)
			if ((err = r->blockfn(r->arg, r->stream, &pre[i])) != 0)
				return r->cbret = err;
	}
	return 0;
}

/* Pushes the static blocks of the block shape c, [start .. last].  The
 * hot path: nothing held back and the chunk's stop IP not in the block, so
 * the pending block's exit is known, and every part but the last falls
 * through into the next: those are handed out as built once per shape
 * (lsd_decoder.pre), and nothing reads the static blocks themselves. */
static int push_shape(struct run *r, const struct lsd_dcent *c, uint64_t start,
		      uint64_t last)
{
	const struct lsd_block *pre = r->d->pre + c->first;
	uint32_t n = c->nparts, i;
	int err = 0;

	if (r->tailing || r->cbret || (r->stop_ip >= start && r->stop_ip <= last)) {
		for (i = 0; i < n; i++)
			if ((err = push(r, pre[i].sb)) != 0)
				return err;
		return 0;
	}
	if (r->pend && (err = put_pend(r, start)) != 0)
		return err;
	if (n > 1 && (err = push_rest(r, c)) != 0)
		return err;
	pend_shape(r, c, last);
	return 0;
}

/* The cached shape [start .. last], split now if it is new.  Returns it,
 * or NULL with *err set (-LS_EDECODE: its code is unreadable). */
static const struct lsd_dcent *shape_of(struct lsd_decoder *d, uint64_t start,
					uint64_t last, uint32_t ninsn, int *err)
{
	const struct lsd_dcent *c = lsd_split_hit(d, start, last);
	struct lsd_sblock *const *ids;
	int n;

	if (c)
		return c;
	n = lsd_split(d, start, last, ninsn, &ids, NULL);
	/* lsd_split() leaves the shape in the cache. */
	if (n > 0 && (c = lsd_split_hit(d, start, last)) != NULL)
		return c;
	*err = n < 0 ? n : -LS_EDECODE;
	return NULL;
}

/* Splits the held block and pushes its static blocks. */
static int flush_held(struct run *r)
{
	const struct lsd_dcent *c;
	int err = 0;

	if (!r->held)
		return 0;
	r->held = 0;
	c = shape_of(r->d, r->held_start, r->held_last, r->held_ninsn, &err);
	return c ? push_shape(r, c, r->held_start, r->held_last) : err;
}

/* libipt sometimes ends a block without a branch (before an instruction an
 * event binds to, say) and goes on with the next instruction in a new one.
 * Where that instruction is no head, the two are one straight run: they
 * are joined before the split, so static blocks start at heads only and do
 * not depend on where libipt cut.  One split lookup per libipt block.
 * Kept out of line: the hot path (on_block()) handles the common case. */
static __attribute__((noinline)) int on_block_slow(struct run *r,
						   const struct pt_block *b)
{
	if (r->held) {
		struct lsd_decoder *d = r->d;
		const struct lsd_dcent *c;
		int n = 0;

		c = shape_of(d, r->held_start, r->held_last, r->held_ninsn, &n);
		if (c && c->kind == LSD_K_OTHER && b->ip == r->held_last + c->nextoff &&
		    !lsd_addrset_has(&d->sp->heads, b->ip)) {
			r->held_last = b->end_ip;
			r->held_ninsn += b->ninsn;
			return 0;
		}
		r->held = 0;
		if (c)
			n = push_shape(r, c, r->held_start, r->held_last);
		else if (n == -LS_EDECODE)	/* its code is unreadable: a loss */
			n = report_loss(r, 0, 0, -pte_bad_insn);
		if (n < 0 || r->cbret)
			return n < 0 ? n : r->cbret;
	}
	r->held = 1;
	r->held_start = b->ip;
	r->held_last = b->end_ip;
	r->held_ninsn = b->ninsn;
	lsd_split_prefetch(r->d, b->ip);
	return 0;
}

/* A block from libipt, inline in the decode loop.  The common case, the
 * held block's shape cached and ending in a branch (so no join), nothing
 * held back, the chunk's stop IP not in it: its static blocks go out at
 * once, reading only the one cache entry; all else goes to
 * on_block_slow(). */
static inline int on_block(struct run *r, const struct pt_block *b)
{
	const struct lsd_dcent *c;
	uint64_t start = r->held_start, last = r->held_last;
	int err;

	if (!r->held || !b->ninsn)
		return b->ninsn ? on_block_slow(r, b) : 0;
	c = lsd_split_hit(r->d, start, last);
	if (!c)
		c = lsd_split_known(r->d, start, last);
	if (!c || c->kind == LSD_K_OTHER || r->tailing || r->cbret ||
	    r->stop_ip - start <= last - start)
		return on_block_slow(r, b);
	if (r->pend && (err = put_pend(r, start)) != 0)
		return err;
	if (c->nparts > 1 && (err = push_rest(r, c)) != 0)
		return err;
	pend_shape(r, c, last);
	r->held_start = b->ip;
	r->held_last = b->end_ip;
	r->held_ninsn = b->ninsn;
	lsd_split_prefetch(r->d, b->ip);
	return 0;
}

static int on_event(struct run *r, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_disabled:
	case ptev_async_disabled:
	case ptev_async_branch:
	case ptev_overflow: {
		int err = flush_held(r);

		if (err)
			return err;
		break;
	}
	default:
		break;
	}
	switch (ev->type) {
	case ptev_enabled:
		r->st->enables++;
		return 0;
	case ptev_disabled:
		if (r->pend && kind_of(r->pend) == LSD_K_FAR) {
			r->st->syscalls++;
			return end_pend(r, LSD_EXIT_SYSCALL, 0);
		}
		return end_pend(r, LSD_EXIT_END, 0);
	case ptev_async_disabled:
		r->st->async++;
		return end_pend(r, LSD_EXIT_ASYNC, ev->variant.async_disabled.at);
	case ptev_async_branch:
		r->st->async++;
		return end_pend(r, LSD_EXIT_ASYNC, ev->variant.async_branch.to);
	case ptev_overflow: {
		struct lsd_loss l = { r->chunk_off, 0, 0, -pte_overflow };
		int err = end_pend(r, LSD_EXIT_GAP, 0);

		r->st->losses++;
		if (!err && r->batchfn)
			err = batch_flush(r);
		if (!err && r->cb && r->cb->loss)
			err = r->cbret = r->cb->loss(r->arg, r->stream, &l);
		return err;
	}
	default:
		return 0;
	}
}

static int report_loss(struct run *r, uint64_t at, uint64_t resync, int error)
{
	struct lsd_loss l;
	int err;

	err = flush_held(r);
	if (err == -LS_EDECODE)
		err = 0;	/* its bytes are unreadable: part of the loss */
	if (!err)
		err = end_pend(r, LSD_EXIT_GAP, 0);
	if (err)
		return err;
	r->st->losses++;
	l.offset = r->chunk_off + at;
	l.bytes = resync > at ? resync - at : 0;
	l.insns = 0;
	l.error = error;
	r->st->lost_bytes += l.bytes;
	if (r->batchfn && batch_flush(r))
		return r->cbret;
	if (r->cb && r->cb->loss)
		r->cbret = r->cb->loss(r->arg, r->stream, &l);
	return r->cbret;
}

/* Decodes one chunk's bytes.  Returns 0 or a fatal error (ENOMEM, or a
 * callback's non-zero return); decode errors become losses. */
static int decode_buf(struct run *r, const uint8_t *buf, size_t len)
{
	struct pt_config cfg = r->d->base;
	struct pt_block_decoder *dec;
	int st, err = 0;

	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_blk_alloc_decoder(&cfg);
	if (!dec)
		return -LS_ENOMEM;
	pt_blk_set_image(dec, r->d->sp->img->pt);
	st = pt_blk_sync_forward(dec);
	if (st < 0 && st != -pte_eos) {
		/* No PSB at all: the whole chunk is lost. */
		err = report_loss(r, 0, len, st);
	} else if (st >= 0) {
		uint64_t sync = 0;

		pt_blk_get_sync_offset(dec, &sync);
		if (sync)	/* bytes before the first PSB */
			err = report_loss(r, 0, sync, -pte_nosync);
	}
	while (!err && st >= 0) {
		struct pt_block b;

		while (st >= 0 && (st & pts_event_pending)) {
			struct pt_event ev;

			st = pt_blk_event(dec, &ev, sizeof(ev));
			if (st >= 0 && (err = on_event(r, &ev)) != 0)
				break;
		}
		if (err || st < 0)
			break;
		memset(&b, 0, sizeof(b));
		st = pt_blk_next(dec, &b, sizeof(b));
		/* libipt hands out the instructions it decoded even when it
		 * then fails. */
		if ((err = on_block(r, &b)) != 0) {
			if (err != -LS_EDECODE)
				break;
			err = report_loss(r, 0, 0, -pte_bad_insn);
			if (err)
				break;
		}
		if (st == -pte_eos)
			break;
		if (st < 0) {
			uint64_t at = 0, resync = len;

			pt_blk_get_offset(dec, &at);
			st = pt_blk_sync_forward(dec);
			if (st >= 0)
				pt_blk_get_sync_offset(dec, &resync);
			err = report_loss(r, at, resync, st >= 0 || st == -pte_eos ?
					  -pte_bad_query : st);
		}
	}
	pt_blk_free_decoder(dec);
	return err;
}

/* The IP of the FUP in the PSB+ at the start of buf, or 0 if tracing was
 * off there. */
static uint64_t psb_fup_ip(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet p;
	uint64_t ip = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return 0;
	if (pt_pkt_sync_set(pd, 0) >= 0) {
		while (pt_pkt_next(pd, &p, sizeof(p)) >= 0 && p.type != ppt_psbend) {
			if (p.type == ppt_fup && p.payload.ip.ipc != pt_ipc_suppressed) {
				ip = p.payload.ip.ip;
				break;
			}
		}
	}
	pt_pkt_free_decoder(pd);
	return ip;
}

/* (decode_int.h) */
int64_t lsd_read_chunk(struct lsd_decoder *d, size_t s, size_t c, int k)
{
	const struct lsb_chunk *ch = lsb_reader_chunk(d->r, s, c);
	int64_t n;

	if (!ch || ch->raw_size > LSB_MAX_CHUNK)
		return -LS_ECORRUPT;
	if (d->bufcap[k] < ch->raw_size) {
		void *p = realloc(d->buf[k], ch->raw_size ? ch->raw_size : 1);

		if (!p)
			return -LS_ENOMEM;
		d->buf[k] = p;
		d->bufcap[k] = ch->raw_size;
	}
	n = lsb_reader_read_chunk(d->r, ch, d->buf[k], d->bufcap[k]);
	return n;
}

/* Decodes chunks [first, last] of stream s in one run. */
static int decode_range(struct run *r, size_t s, size_t first, size_t last)
{
	struct lsd_decoder *d = r->d;
	size_t n = lsb_reader_nchunks(d->r, s), c;
	int64_t len, nlen = 0;
	int cur = 0, err = 0;

	if (first >= n)
		return 0;
	len = lsd_read_chunk(d, s, first, cur);
	for (c = first; c <= last && c < n && !err; c++) {
		const struct lsb_chunk *ch = lsb_reader_chunk(d->r, s, c);

		r->stop_ip = 0;
		if (c + 1 < n) {
			nlen = lsd_read_chunk(d, s, c + 1, !cur);
			if (nlen > 0)
				r->stop_ip = psb_fup_ip(d->buf[!cur], (size_t)nlen);
		}
		r->chunk_off = ch->stream_offset;
		if (len < 0) {
			/* An unreadable chunk: a gap of its size. */
			err = report_loss(r, 0, ch->raw_size, -pte_internal);
		} else {
			r->st->pt_bytes += (uint64_t)len;
			err = decode_buf(r, d->buf[cur], (size_t)len);
		}
		if (!err)
			err = flush_held(r);
		if (err == -LS_EDECODE)
			err = report_loss(r, 0, 0, -pte_bad_insn);
		if (!err && r->stop_ip && r->tailing) {
			/* What was held back from X on, the pending block
			 * included, belongs to chunk c+1. */
			r->ntail = 0;
			r->tailing = 0;
			r->pend = NULL;
		} else if (!err && r->stop_ip) {
			/* X was not reached after the last packet: the
			 * pending block continues at X. */
			if (r->pend && r->pend->start == r->stop_ip)
				r->pend = NULL;
			else if (r->pend)
				err = end_pend(r, exit_by_kind(r->pend_kind, r->pend_end,
							       r->stop_ip), r->stop_ip);
		} else if (!err) {
			err = flush_tail(r);
		}
		cur = !cur;
		len = nlen;
	}
	if (!err && last + 1 >= n)
		err = end_pend(r, LSD_EXIT_GAP, 0);	/* cut without a disable */
	return err;
}

static int run_stream(struct lsd_decoder *d, size_t i, size_t first,
		      size_t last, const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st)
{
	struct lsd_stream_stats local;
	struct run r;
	int err;

	if (!d || i >= lsb_reader_nstreams(d->r))
		return -LS_EINVAL;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.stream = i;
	r.cb = cb;
	r.arg = arg;
	r.st = st;
	r.blockfn = cb ? cb->block : NULL;
	r.batchfn = cb ? cb->blocks : NULL;
	d->sp = &d->spaces[d->stream_space[i]];
	if (cb && cb->stream_begin &&
	    (err = cb->stream_begin(arg, i, lsb_reader_stream(d->r, i))) != 0)
		return err;
	if (cb && cb->thread &&
	    (err = cb->thread(arg, i, d->stream_tid[i].pid, d->stream_tid[i].tid)) != 0)
		return err;
	if (r.batchfn && !(r.batch = malloc(LSD_BATCH * sizeof(*r.batch))))
		return -LS_ENOMEM;
	err = decode_range(&r, i, first, last);
	if (!err && r.batchfn)
		err = batch_flush(&r);
	st->insns += r.insns;
	st->blocks += r.blocks;
	free(r.tail);
	free(r.batch);
	if (!err && cb && cb->stream_end)
		err = cb->stream_end(arg, i, st);
	return err;
}

int lsd_decode_stream(struct lsd_decoder *d, size_t i,
		      const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st)
{
	return run_stream(d, i, 0, SIZE_MAX - 1, cb, arg, st);
}

int lsd_decode_chunk(struct lsd_decoder *d, size_t i, size_t chunk,
		     const struct lsd_callbacks *cb, void *arg,
		     struct lsd_stream_stats *st)
{
	return run_stream(d, i, chunk, chunk, cb, arg, st);
}
