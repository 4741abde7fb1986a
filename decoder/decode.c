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
#include <stdlib.h>
#include <string.h>

#include "decoder/run.h"
#include "ls_err.h"

/* Hands out the pending block, control having gone on to next, on the
 * hot path (deliver() without the tail).  The batch slot is written field
 * by field: a block built on the stack and copied in was read back before
 * its stores had landed, a store-forwarding stall on every block. */
static inline int put_pend(struct lsd_run *r, uint64_t next)
{
	uint8_t exit = (uint8_t)lsd_exit_by_kind(r->pend_kind, r->pend_end, next);
	int err;

	r->insns += r->pend_ninsn;
	r->blocks++;
	if (r->batchfn) {
		struct lsd_block *e;

		if (r->nbatch == LSD_BATCH && (err = lsd_run_batch_flush(r)) != 0)
			return err;
		e = &r->batch[r->nbatch++];
		e->sb = r->pend;
		e->exit = exit;
		e->id = r->pend->id;
		e->next = next;
	} else if (r->blockfn) {
		struct lsd_block e = { .sb = r->pend, .exit = exit, .id = r->pend->id,
				       .next = next };

		if ((err = lsd_run_call_block(r, &e)) != 0)
			return err;
	}
	return 0;
}

/* The last part of shape c, [.. last], becomes the pending block. */
static inline void pend_shape(struct lsd_run *r, const struct lsd_dcent *c, uint64_t last)
{
	r->pend = lsd_sb(r->d, c->last_id);
	r->pend_end = last + c->nextoff;
	r->pend_ninsn = c->ninsn_last;
	r->pend_kind = c->kind;
}

/* The parts after the first of a shape split in several, all falling
 * through: out of line, most shapes are one static block. */
static __attribute__((noinline)) int push_rest(struct lsd_run *r,
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
		return lsd_run_batch_put(r, pre, n - 1);
	if (r->blockfn) {
		for (i = 0; i + 1 < n; i++)
			if ((err = lsd_run_call_block(r, &pre[i])) != 0)
				return err;
	}
	return 0;
}

/* Pushes the static blocks of the block shape c, [start .. last].  The
 * hot path: nothing held back and the chunk's stop IP not in the block, so
 * the pending block's exit is known, and every part but the last falls
 * through into the next: those are handed out as built once per shape
 * (lsd_decoder.pre), and nothing reads the static blocks themselves. */
static int push_shape(struct lsd_run *r, const struct lsd_dcent *c, uint64_t start,
		      uint64_t last)
{
	const struct lsd_block *pre = r->d->pre + c->first;
	uint32_t n = c->nparts, i;
	int err = 0;

	if (r->tailing || r->cbret || (r->stop_ip >= start && r->stop_ip <= last)) {
		for (i = 0; i < n; i++)
			if ((err = lsd_run_push(r, pre[i].sb)) != 0)
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

/* Our execution mode of libipt's: unknown is taken for 64-bit. */
static uint8_t mode_of(int ptem)
{
	return ptem == ptem_32bit ? LSD_MODE_32 : ptem == ptem_16bit ? LSD_MODE_16
		: LSD_MODE_64;
}

/* The cached shape [start .. last] of libipt execution mode ptem, split
 * now if it is new.  Returns it, or NULL with *err set (-LS_EDECODE: its
 * code is unreadable).  A shape is known by its addresses and its mode:
 * code run in two modes at one address has static blocks of each, so that
 * what a block is does not depend on which mode came first (the fast
 * path makes 64-bit blocks ahead of their run). */
static const struct lsd_dcent *shape_of(struct lsd_decoder *d, uint64_t start,
					uint64_t last, uint32_t ninsn, int ptem,
					int *err)
{
	uint8_t m = mode_of(ptem);
	const struct lsd_dcent *c = lsd_split_hit(d, start, last, m);
	struct lsd_sblock *const *ids;
	int n;

	if (c)
		return c;
	d->mode = m;
	n = lsd_split(d, start, last, ninsn, &ids, NULL);
	d->mode = LSD_MODE_64;
	/* lsd_split() leaves the shape in the cache. */
	if (n > 0 && (c = lsd_split_hit(d, start, last, m)) != NULL)
		return c;
	*err = n < 0 ? n : -LS_EDECODE;
	return NULL;
}

/* Splits the held block and pushes its static blocks. */
static int flush_held(struct lsd_run *r)
{
	const struct lsd_dcent *c;
	int err = 0;

	if (!r->held)
		return 0;
	r->held = 0;
	c = shape_of(r->d, r->held_start, r->held_last, r->held_ninsn, r->held_mode, &err);
	return c ? push_shape(r, c, r->held_start, r->held_last) : err;
}

/* libipt sometimes ends a block without a branch (before an instruction an
 * event binds to, say) and goes on with the next instruction in a new one.
 * Where that instruction is no head, the two are one straight run: they
 * are joined before the split, so static blocks start at heads only and do
 * not depend on where libipt cut.  One split lookup per libipt block.
 * Kept out of line: the hot path (on_block()) handles the common case. */
static __attribute__((noinline)) int on_block_slow(struct lsd_run *r,
						   const struct pt_block *b)
{
	if (r->held) {
		struct lsd_decoder *d = r->d;
		const struct lsd_dcent *c;
		int n = 0;

		c = shape_of(d, r->held_start, r->held_last, r->held_ninsn, r->held_mode, &n);
		if (c && c->kind == LSD_K_OTHER && b->ip == r->held_last + c->nextoff &&
		    b->mode == r->held_mode &&
		    !lsd_addrset_has(&d->sp->heads, b->ip)) {
			r->held_last = b->end_ip;
			r->held_ninsn += b->ninsn;
			return 0;
		}
		r->held = 0;
		if (c)
			n = push_shape(r, c, r->held_start, r->held_last);
		else if (n == -LS_EDECODE)	/* its code is unreadable: a loss */
			n = lsd_run_report_loss(r, 0, 0, -pte_bad_insn, 0);
		if (n < 0 || r->cbret)
			return n < 0 ? n : r->cbret;
	}
	r->held = 1;
	r->held_start = b->ip;
	r->held_last = b->end_ip;
	r->held_ninsn = b->ninsn;
	r->held_mode = (uint8_t)b->mode;
	lsd_split_prefetch(r->d, b->ip);
	return 0;
}

/* A block from libipt, inline in the decode loop.  The common case, the
 * held block's shape cached and ending in a branch (so no join), nothing
 * held back, the chunk's stop IP not in it: its static blocks go out at
 * once, reading only the one cache entry; all else goes to
 * on_block_slow(). */
static inline int on_block(struct lsd_run *r, const struct pt_block *b)
{
	const struct lsd_dcent *c;
	uint64_t start = r->held_start, last = r->held_last;
	int err;

	if (!r->held || !b->ninsn)
		return b->ninsn ? on_block_slow(r, b) : 0;
	c = lsd_split_hit(r->d, start, last, mode_of(r->held_mode));
	if (!c)
		c = lsd_split_known(r->d, start, last, mode_of(r->held_mode));
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
	r->held_mode = (uint8_t)b->mode;
	lsd_split_prefetch(r->d, b->ip);
	return 0;
}

static int follow(struct lsd_run *r, uint64_t tsc, int running);

/* The offset of the last OVF packet in [from, to) of buf, or to if none:
 * libipt reports an overflow once it has read the FUP after it, and a
 * loss belongs at the packet that says so.  The span is a PSB period. */
static uint64_t ovf_offset(const uint8_t *buf, size_t len, uint64_t from, uint64_t to)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet p;
	uint64_t off = from, at = to;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return to;
	if (pt_pkt_sync_set(pd, from) >= 0) {
		while (pt_pkt_get_offset(pd, &off) >= 0 && off < to &&
		       pt_pkt_next(pd, &p, sizeof(p)) >= 0)
			if (p.type == ppt_ovf)
				at = off;
	}
	pt_pkt_free_decoder(pd);
	return at;
}

/* The last instruction decoded: the held block's, else the pending
 * block's (0 if neither: nothing decoded since the last gap). */
static uint64_t last_ip(const struct lsd_run *r)
{
	return r->held ? r->held_last : r->pend ? r->pend->last : 0;
}

static int on_event(struct lsd_run *r, const struct pt_event *ev)
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
	case ptev_enabled: {
		int err = r->tl && ev->has_tsc ? follow(r, ev->tsc, 0) : 0;

		r->st->enables++;
		return err || r->paused ? err : lsd_run_tell_thread(r);
	}
	case ptev_disabled:
		if (r->pend && r->pend->last_kind == LSD_K_FAR) {
			r->st->syscalls++;
			return lsd_run_end_pend(r, LSD_EXIT_SYSCALL, 0);
		}
		return lsd_run_end_pend(r, LSD_EXIT_END, 0);
	case ptev_async_disabled:
		r->st->async++;
		return lsd_run_end_pend(r, LSD_EXIT_ASYNC, ev->variant.async_disabled.at);
	case ptev_async_branch:
		r->st->async++;
		return lsd_run_end_pend(r, LSD_EXIT_ASYNC, ev->variant.async_branch.to);
	case ptev_overflow: {
		struct lsd_loss l = { r->chunk_off, 0, 0, -pte_overflow, last_ip(r) };
		uint64_t at = 0, sync = 0;
		int err;

		/* At the OVF packet, not at the chunk's start. */
		if (r->dec && pt_blk_get_offset(r->dec, &at) >= 0) {
			pt_blk_get_sync_offset(r->dec, &sync);
			l.offset += ovf_offset(r->buf, r->len, sync, at);
		}
		err = lsd_run_end_pend(r, LSD_EXIT_GAP, 0);

		r->st->losses++;
		if (!err && r->batchfn)
			err = lsd_run_batch_flush(r);
		if (!err && r->cb && r->cb->loss)
			err = r->cbret = r->cb->loss(r->arg, r->stream, &l);
		return err;
	}
	default:
		return 0;
	}
}

/* Tells the thread callback who runs, if it has not been told. */
int lsd_run_tell_thread(struct lsd_run *r)
{
	if (r->told)
		return 0;
	r->told = 1;
	if (r->cb && r->cb->thread)
		r->cbret = r->cb->thread(r->arg, r->stream, r->pid, r->tid);
	return r->cbret;
}

/* Hands out everything of the run so far: the held and the pending
 * block (tracing is off at an enable; only after a sync that found it on
 * does a block end unfinished here) and the batch. */
static int flush_all(struct lsd_run *r)
{
	int err;

	if ((err = flush_held(r)) != 0 && err != -LS_EDECODE)
		return err;
	if ((err = lsd_run_end_pend(r, LSD_EXIT_GAP, 0)) != 0)
		return err;
	if (r->batchfn && lsd_run_batch_flush(r))
		return r->cbret;
	return 0;
}

/* The thread on the stream changes to e's (a per-CPU stream's sideband
 * says so at an enable or a sync, see switch.c): what the old one ran is
 * handed out first, then the image and static blocks become the new
 * thread's process's. */
static int switch_thread(struct lsd_run *r, const struct lsd_swent *e)
{
	struct lsd_decoder *d = r->d;
	int err;

	if ((err = flush_all(r)) != 0)
		return err;
	if (r->told)
		r->st->switches++;
	r->pid = e->pid;
	r->tid = e->tid;
	r->told = 0;
	r->sp = d->sp = &d->spaces[lsd_space_of(d, e->pid)];
	if (r->dec)
		pt_blk_set_image(r->dec, d->sp->img->pt);
	return 0;
}

/* Who runs from PT time tsc on.  Each switch event begins a run of a
 * thread on the CPU; a run that may pause (lsd_decode_all()) stops at the
 * next one, even of the same thread, which may have run on another CPU
 * meanwhile; a new thread is told when the run goes on.  Elsewhere only a
 * new thread matters. */
static int follow(struct lsd_run *r, uint64_t tsc, int running)
{
	const struct lsd_swent *e = lsd_switch_at(r->tl, tsc, running);
	int err;

	if (!e || (r->told && e == r->swev))
		return 0;
	r->swev = e;
	if (r->told && e->pid == r->pid && e->tid == r->tid) {
		if (!r->pausable)
			return 0;
		err = flush_all(r);
	} else {
		err = switch_thread(r, e);
	}
	if (err)
		return err;
	if (r->pausable) {
		r->paused = 1;
		r->pause_tsc = tsc;
		return 0;
	}
	return lsd_run_tell_thread(r);
}

/* After a sync: who runs at the PSB, when tracing is on there (where it
 * is off, the enable that follows says).  Only where the thread is not
 * known (cold): at a run's first sync, or after a loss, which may have
 * hidden switches.  Elsewhere the thread can only have changed at an
 * enable, and the time rule is less sure in the middle of a run (see
 * switch.c). */
static int follow_sync(struct lsd_run *r, int status, int cold)
{
	uint64_t off, ip, tsc;
	int err = 0;

	if (status & pts_ip_suppressed)
		return 0;
	if (r->tl && cold && pt_blk_get_sync_offset(r->dec, &off) >= 0 &&
	    (lsd_psb_read(r->buf, r->len, off, &ip, &tsc) & LSD_PSB_TSC))
		err = follow(r, tsc, 1);
	return err || r->paused ? err : lsd_run_tell_thread(r);
}

/* A loss of the bytes [at, resync) of the chunk, found by libipt's error;
 * ip: where it failed, 0 for the last instruction decoded. */
int lsd_run_report_loss(struct lsd_run *r, uint64_t at, uint64_t resync, int error,
		       uint64_t ip)
{
	struct lsd_loss l;
	int err;

	l.ip = ip ? ip : last_ip(r);
	if ((err = lsd_run_tell_thread(r)) != 0)
		return err;
	err = flush_held(r);
	if (err == -LS_EDECODE)
		err = 0;	/* its bytes are unreadable: part of the loss */
	if (!err)
		err = lsd_run_end_pend(r, LSD_EXIT_GAP, 0);
	if (err)
		return err;
	r->st->losses++;
	l.offset = r->chunk_off + at;
	l.bytes = resync > at ? resync - at : 0;
	l.insns = 0;
	l.error = error;
	r->st->lost_bytes += l.bytes;
	if (r->batchfn && lsd_run_batch_flush(r))
		return r->cbret;
	if (r->cb && r->cb->loss)
		r->cbret = r->cb->loss(r->arg, r->stream, &l);
	return r->cbret;
}

/* Starts decoding chunk r->c, whose clen bytes are in r->cbuf slot
 * r->cur: a decoder, synced at the first PSB.  Returns 0 or a fatal error
 * (ENOMEM, or a callback's non-zero return); may pause (r->paused). */
static int chunk_start(struct lsd_run *r)
{
	struct pt_config cfg = r->d->base;
	uint64_t sync = 0;
	int st, err = 0;

	r->buf = r->cbuf->at[r->cur];
	r->len = (size_t)r->clen;
	cfg.begin = (uint8_t *)r->buf;
	cfg.end = (uint8_t *)r->buf + r->len;
	lsd_image_cold(r->d->sp->img);
	r->dec = pt_blk_alloc_decoder(&cfg);
	if (!r->dec)
		return -LS_ENOMEM;
	pt_blk_set_image(r->dec, r->d->sp->img->pt);
	st = pt_blk_sync_forward(r->dec);
	if (st < 0 && st != -pte_eos) {
		/* No PSB at all: the whole chunk is lost. */
		err = lsd_run_report_loss(r, 0, r->len, st, 0);
	} else if (st >= 0 && pt_blk_get_sync_offset(r->dec, &sync) >= 0 && sync) {
		/* bytes before the first PSB */
		err = lsd_run_report_loss(r, 0, sync, -pte_nosync, 0);
	}
	if (!err && st >= 0)
		err = follow_sync(r, st, !r->told);
	r->status = err ? -pte_eos : st;
	return err;
}

/* Starts decoding chunk r->c: with the fast path where it may go (it
 * then decodes the whole chunk, leaving no libipt decoder), else, or
 * where it gives up, with libipt's block decoder from the chunk's start.
 * Returns as chunk_start(). */
int lsd_run_chunk_begin(struct lsd_run *r)
{
	if (r->fast && !r->pend && !r->held && !r->tailing && !r->ntail) {
		struct lsd_stream_stats st = *r->st;
		uint64_t insns = r->insns, blocks = r->blocks;
		int err;

		r->buf = r->cbuf->at[r->cur];
		r->len = (size_t)r->clen;
		err = lsd_fast_chunk(r);
		if (err != LSD_FAST_BAIL) {
			r->st->fast_chunks++;
			return err;
		}
		/* libipt decodes the chunk again; what the fast path
		 * counted is counted again. */
		*r->st = st;
		r->insns = insns;
		r->blocks = blocks;
	}
	r->st->libipt_chunks++;
	return chunk_start(r);
}

/* Decodes the started chunk until its end, or until the run pauses at a
 * thread switch (the decoder kept in r).  Returns 0 or a fatal error;
 * decode errors become losses. */
int lsd_run_chunk_go(struct lsd_run *r)
{
	struct pt_block_decoder *dec = r->dec;
	int st = r->status, err = 0;

	/* A run pauses at an event or a resync only: checked there. */
	while (!err && st >= 0) {
		struct pt_block b;

		if (st & pts_event_pending) {
			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_blk_event(dec, &ev, sizeof(ev));
				if (st >= 0 && (err = on_event(r, &ev)) != 0)
					break;
				if (r->paused)
					break;
			}
			if (err || st < 0 || r->paused)
				break;
		}
		/* libipt hands out the instructions it decoded even when it
		 * then fails, the whole block, or nothing: no instructions
		 * then, not the last block's again. */
		b.ninsn = 0;
		st = pt_blk_next(dec, &b, sizeof(b));
		if ((err = on_block(r, &b)) != 0) {
			if (err != -LS_EDECODE)
				break;
			err = lsd_run_report_loss(r, 0, 0, -pte_bad_insn, 0);
			if (err)
				break;
		}
		if (st == -pte_eos)
			break;
		if (st < 0) {
			uint64_t at = 0, resync = r->len;
			int error = st;	/* libipt's, before the resync's */

			pt_blk_get_offset(dec, &at);
			st = pt_blk_sync_forward(dec);
			if (st >= 0)
				pt_blk_get_sync_offset(dec, &resync);
			/* ptxed's IP: the failing block's last instruction,
			 * or where it was to start. */
			err = lsd_run_report_loss(r, at, resync, error,
					  b.ninsn ? b.end_ip : b.ip);
			if (!err && st >= 0)
				err = follow_sync(r, st, 1);
			if (r->paused)
				break;
		}
	}
	r->status = st;
	if (r->paused && !err)
		return 0;
	r->dec = NULL;
	pt_blk_free_decoder(dec);
	return err;
}

/* The end of chunk c: what it holds back for the next chunk, or not. */
int lsd_run_chunk_end(struct lsd_run *r)
{
	int err = flush_held(r);

	if (err == -LS_EDECODE)
		err = lsd_run_report_loss(r, 0, 0, -pte_bad_insn, 0);
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
			err = lsd_run_end_pend(r, lsd_exit_by_kind(r->pend_kind, r->pend_end,
						       r->stop_ip), r->stop_ip);
	} else if (!err) {
		err = lsd_run_flush_tail(r);
	}
	return err;
}
