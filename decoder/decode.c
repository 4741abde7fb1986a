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
#include "decoder/run.h"
#include "formats/profile.h"
#include "ls_buf.h"
#include "ls_err.h"


static const char *const exit_names[LSD_EXIT_MAX] = {
	"fall", "taken", "not-taken", "jump", "ijump", "call", "icall", "ret",
	"syscall", "async", "gap", "end",
};

const char *lsd_exit_name(int exit)
{
	return exit >= 0 && exit < LSD_EXIT_MAX ? exit_names[exit] : "?";
}

/* The profile stores the decoder's class counts as they are, in this
 * order; the names live with the profile format. */
_Static_assert(LSP_NCLASS == LSD_IC_MAX, "profile and decoder instruction classes differ");

const char *lsd_iclass_name(int ic)
{
	return ic >= 0 ? lsp_class_name((unsigned)ic) : "?";
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

static void set_pend(struct lsd_run *r, const struct lsd_sblock *sb)
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
static int batch_flush(struct lsd_run *r)
{
	size_t k = 0;

	if (r->skip) {
		k = r->skip < r->nbatch ? (size_t)r->skip : r->nbatch;
		r->skip -= k;
	}
	if (r->nbatch > k && !r->cbret)
		r->cbret = r->batchfn(r->arg, r->stream, r->batch + k, r->nbatch - k);
	r->nbatch = 0;
	return r->cbret;
}

int lsd_run_batch_flush(struct lsd_run *r)
{
	return r->batchfn ? batch_flush(r) : r->cbret;
}

/* The block callback, unless the block is one to drop (r->skip). */
static int call_block(struct lsd_run *r, const struct lsd_block *b)
{
	if (r->skip) {
		r->skip--;
		return 0;
	}
	return r->cbret = r->blockfn(r->arg, r->stream, b);
}

/* Appends n blocks to the batch, handing it over whenever it is full. */
static int batch_put(struct lsd_run *r, const struct lsd_block *b, size_t n)
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

static int deliver(struct lsd_run *r, const struct lsd_block *b)
{
	if (r->cbret)
		return r->cbret;
	r->insns += b->sb->ninsn;
	r->blocks++;
	if (r->batchfn)
		return batch_put(r, b, 1);
	if (r->blockfn)
		call_block(r, b);
	return r->cbret;
}

int lsd_run_put(struct lsd_run *r, const struct lsd_block *b, size_t n)
{
	size_t i;

	if (r->cbret)
		return r->cbret;
	if (r->batchfn && !r->nbatch && !r->skip) {
		/* As they are: no copy into the batch. */
		if (n)
			r->cbret = r->batchfn(r->arg, r->stream, b, n);
		return r->cbret;
	}
	if (r->batchfn)
		return batch_put(r, b, n);
	for (i = 0; i < n && r->blockfn && !r->cbret; i++)
		call_block(r, &b[i]);
	return r->cbret;
}

static int flush_tail(struct lsd_run *r)
{
	size_t i;
	int err = 0;

	for (i = 0; i < r->ntail && !err; i++)
		err = deliver(r, &r->tail[i]);
	r->ntail = 0;
	r->tailing = 0;
	return err;
}

static int emit(struct lsd_run *r, const struct lsd_sblock *sb, int exit, uint64_t next)
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
		p = ls_reallocarray(r->tail, ncap, sizeof(*r->tail));
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

static int push(struct lsd_run *r, const struct lsd_sblock *sb)
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

static int end_pend(struct lsd_run *r, int exit, uint64_t next)
{
	int err = 0;

	if (r->pend)
		err = emit(r, r->pend, exit, next);
	r->pend = NULL;
	return err;
}

static int report_loss(struct lsd_run *r, uint64_t at, uint64_t resync, int error,
		       uint64_t ip);

/* Hands out the pending block, control having gone on to next, on the
 * hot path (deliver() without the tail).  The batch slot is written field
 * by field: a block built on the stack and copied in was read back before
 * its stores had landed, a store-forwarding stall on every block. */
static inline int put_pend(struct lsd_run *r, uint64_t next)
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

		if ((err = call_block(r, &e)) != 0)
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
		return batch_put(r, pre, n - 1);
	if (r->blockfn) {
		for (i = 0; i + 1 < n; i++)
			if ((err = call_block(r, &pre[i])) != 0)
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

/* Our execution mode of libipt's: unknown is taken for 64-bit. */
static uint8_t mode_of(int ptem)
{
	return ptem == ptem_32bit ? LSD_MODE_32 : ptem == ptem_16bit ? LSD_MODE_16
		: LSD_MODE_64;
}

/* The cached shape [start .. last] of libipt execution mode ptem, split
 * now if it is new.  Returns it, or NULL with *err set (-LS_EDECODE: its
 * code is unreadable).  A shape is known by its addresses alone: code run
 * in two modes at one address keeps the first mode's split. */
static const struct lsd_dcent *shape_of(struct lsd_decoder *d, uint64_t start,
					uint64_t last, uint32_t ninsn, int ptem,
					int *err)
{
	const struct lsd_dcent *c = lsd_split_hit(d, start, last);
	struct lsd_sblock *const *ids;
	int n;

	if (c)
		return c;
	d->mode = mode_of(ptem);
	n = lsd_split(d, start, last, ninsn, &ids, NULL);
	d->mode = LSD_MODE_64;
	/* lsd_split() leaves the shape in the cache. */
	if (n > 0 && (c = lsd_split_hit(d, start, last)) != NULL)
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
			n = report_loss(r, 0, 0, -pte_bad_insn, 0);
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
	r->held_mode = (uint8_t)b->mode;
	lsd_split_prefetch(r->d, b->ip);
	return 0;
}

static int follow(struct lsd_run *r, uint64_t tsc, int running);
static int tell_thread(struct lsd_run *r);

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
		return err || r->paused ? err : tell_thread(r);
	}
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
		struct lsd_loss l = { r->chunk_off, 0, 0, -pte_overflow, last_ip(r) };
		uint64_t at = 0, sync = 0;
		int err;

		/* At the OVF packet, not at the chunk's start. */
		if (r->dec && pt_blk_get_offset(r->dec, &at) >= 0) {
			pt_blk_get_sync_offset(r->dec, &sync);
			l.offset += ovf_offset(r->buf, r->len, sync, at);
		}
		err = end_pend(r, LSD_EXIT_GAP, 0);

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

/* Tells the thread callback who runs, if it has not been told. */
static int tell_thread(struct lsd_run *r)
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
	if ((err = end_pend(r, LSD_EXIT_GAP, 0)) != 0)
		return err;
	if (r->batchfn && batch_flush(r))
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
	return tell_thread(r);
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
	return err || r->paused ? err : tell_thread(r);
}

/* A loss of the bytes [at, resync) of the chunk, found by libipt's error;
 * ip: where it failed, 0 for the last instruction decoded. */
static int report_loss(struct lsd_run *r, uint64_t at, uint64_t resync, int error,
		       uint64_t ip)
{
	struct lsd_loss l;
	int err;

	l.ip = ip ? ip : last_ip(r);
	if ((err = tell_thread(r)) != 0)
		return err;
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

/* Starts decoding chunk r->c, whose clen bytes are in r->cbuf slot
 * r->cur: a decoder, synced at the first PSB.  Returns 0 or a fatal error
 * (ENOMEM, or a callback's non-zero return); may pause (r->paused). */
static int chunk_start(struct lsd_run *r)
{
	struct pt_config cfg = r->d->base;
	uint64_t sync = 0;
	int st, err = 0;

	r->buf = r->cbuf->p[r->cur];
	r->len = (size_t)r->clen;
	cfg.begin = (uint8_t *)r->buf;
	cfg.end = (uint8_t *)r->buf + r->len;
	r->dec = pt_blk_alloc_decoder(&cfg);
	if (!r->dec)
		return -LS_ENOMEM;
	pt_blk_set_image(r->dec, r->d->sp->img->pt);
	st = pt_blk_sync_forward(r->dec);
	if (st < 0 && st != -pte_eos) {
		/* No PSB at all: the whole chunk is lost. */
		err = report_loss(r, 0, r->len, st, 0);
	} else if (st >= 0 && pt_blk_get_sync_offset(r->dec, &sync) >= 0 && sync) {
		/* bytes before the first PSB */
		err = report_loss(r, 0, sync, -pte_nosync, 0);
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
static int chunk_begin(struct lsd_run *r)
{
	if (r->fast && !r->pend && !r->held && !r->tailing && !r->ntail) {
		struct lsd_stream_stats st = *r->st;
		uint64_t insns = r->insns, blocks = r->blocks;
		int err;

		r->buf = r->cbuf->p[r->cur];
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
static __attribute__((noinline)) int chunk_go(struct lsd_run *r)
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
			err = report_loss(r, 0, 0, -pte_bad_insn, 0);
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
			err = report_loss(r, at, resync, error,
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

/* The IP of the FUP in the PSB+ at the start of buf, or 0 if tracing was
 * off there. */
static uint64_t psb_fup_ip(const uint8_t *buf, size_t len)
{
	uint64_t ip = 0, tsc;

	return lsd_psb_read(buf, len, 0, &ip, &tsc) > 0 ? ip : 0;
}

static lsd_progress_fn *progress_fn;
static void *progress_arg;

void lsd_set_progress(lsd_progress_fn *fn, void *arg)
{
	progress_fn = fn;
	progress_arg = arg;
}

int64_t lsd_read_chunk(struct lsd_decoder *d, size_t s, size_t c,
		       struct lsd_chunkbuf *b, int k)
{
	const struct lsb_chunk *ch = lsb_reader_chunk(d->r, s, c);
	int64_t len;

	if (!ch || ch->raw_size > LSB_MAX_CHUNK)
		return -LS_ECORRUPT;
	if (d->pf && (len = lsd_prefetch_take(d->pf, s, c, &b->p[k], &b->cap[k])) >= 0)
		return len;
	if (b->cap[k] < ch->raw_size) {
		void *p = realloc(b->p[k], ch->raw_size ? ch->raw_size : 1);

		if (!p)
			return -LS_ENOMEM;
		b->p[k] = p;
		b->cap[k] = ch->raw_size;
	}
	return lsb_reader_read_chunk(d->r, ch, b->p[k], b->cap[k]);
}

/* The end of chunk c: what it holds back for the next chunk, or not. */
static int chunk_end(struct lsd_run *r)
{
	int err = flush_held(r);

	if (err == -LS_EDECODE)
		err = report_loss(r, 0, 0, -pte_bad_insn, 0);
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
	return err;
}

/* Decodes chunks [first, last] of the run's stream, from where it
 * stopped: until they end (r->done) or it pauses at a thread switch. */
static int run_go(struct lsd_run *r)
{
	struct lsd_decoder *d = r->d;
	size_t s = r->stream;
	int err = 0;

	while (!err && !r->done) {
		if (!r->in_chunk) {
			const struct lsb_chunk *ch;

			if (r->c > r->last || r->c >= r->nchunks) {
				if (r->last + 1 >= r->nchunks)	/* cut without a disable */
					err = end_pend(r, LSD_EXIT_GAP, 0);
				r->done = 1;
				break;
			}
			ch = lsb_reader_chunk(d->r, s, r->c);
			if (r->c == r->first)
				r->clen = lsd_read_chunk(d, s, r->c, r->cbuf, r->cur);
			r->stop_ip = 0;
			r->nlen = 0;
			if (r->c + 1 < r->nchunks) {
				r->nlen = lsd_read_chunk(d, s, r->c + 1, r->cbuf, !r->cur);
				if (r->nlen > 0)
					r->stop_ip = psb_fup_ip(r->cbuf->p[!r->cur],
								(size_t)r->nlen);
			}
			r->chunk_off = ch->stream_offset;
			r->in_chunk = 1;
			if (r->clen < 0) {
				/* An unreadable chunk: a gap of its size. */
				err = report_loss(r, 0, ch->raw_size, -pte_internal, 0);
			} else {
				r->st->pt_bytes += (uint64_t)r->clen;
				err = chunk_begin(r);
			}
		}
		if (!err && r->dec)
			err = chunk_go(r);
		if (err || r->paused)
			break;
		err = chunk_end(r);
		if (progress_fn) {
			progress_fn(progress_arg, d->r, r->clen > 0 ? (uint64_t)r->clen : 0,
				    r->insns - r->told_insns);
			r->told_insns = r->insns;
		}
		r->skip = 0;
		r->in_chunk = 0;
		r->cur = !r->cur;
		r->clen = r->nlen;
		r->c++;
	}
	if (err && r->dec) {
		pt_blk_free_decoder(r->dec);
		r->dec = NULL;
	}
	return err;
}

/* Sets up run r over chunks [first, last] of stream i and begins it.
 * Returns 0 or an error (-LS_ENOMEM, a callback's return). */
static int run_begin(struct lsd_run *r, struct lsd_decoder *d, size_t i,
		     size_t first, size_t last, const struct lsd_callbacks *cb,
		     void *arg, struct lsd_stream_stats *st, struct lsd_chunkbuf *cbuf)
{
	memset(st, 0, sizeof(*st));
	memset(r, 0, sizeof(*r));
	r->d = d;
	r->stream = i;
	r->cb = cb;
	r->arg = arg;
	r->st = st;
	r->blockfn = cb ? cb->block : NULL;
	r->batchfn = cb ? cb->blocks : NULL;
	r->first = r->c = first;
	r->last = last;
	r->nchunks = lsb_reader_nchunks(d->r, i);
	r->cbuf = cbuf;
	r->sp = d->sp = &d->spaces[d->stream_space[i]];
	r->pid = d->stream_tid[i].pid;
	r->tid = d->stream_tid[i].tid;
	r->tl = d->tl && d->tl[i].n ? &d->tl[i] : NULL;
	/* Per-CPU streams follow thread switches at enables and syncs:
	 * libipt's block decoder does that. */
	r->fast = !d->o.reference && !r->tl;
	if (r->batchfn && !(r->batch = malloc(LSD_BATCH * sizeof(*r->batch))))
		return -LS_ENOMEM;
	if (cb && cb->stream_begin &&
	    (r->cbret = cb->stream_begin(arg, i, lsb_reader_stream(d->r, i))) != 0)
		return r->cbret;
	/* A per-CPU stream tells its thread where the first sync or enable
	 * finds it (tell_thread()), others at once. */
	return r->tl ? 0 : tell_thread(r);
}

/* Ends run r (err: how it went so far): the last batch, the stream_end
 * callback.  Returns err or the first error of these. */
static int run_end(struct lsd_run *r, int err)
{
	r->done = 1;
	if (!err && r->batchfn)
		err = batch_flush(r);
	if (!err)
		err = tell_thread(r);
	r->st->insns += r->insns;
	r->st->blocks += r->blocks;
	if (r->dec)
		pt_blk_free_decoder(r->dec);
	r->dec = NULL;
	free(r->tail);
	free(r->batch);
	lsd_fast_release(r);
	r->tail = NULL;
	r->batch = NULL;
	if (!err && r->cb && r->cb->stream_end)
		err = r->cb->stream_end(r->arg, r->stream, r->st);
	return err;
}

static int run_stream(struct lsd_decoder *d, size_t i, size_t first,
		      size_t last, const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st)
{
	struct lsd_stream_stats local;
	struct lsd_run r;
	int err;

	if (!d || i >= lsb_reader_nstreams(d->r))
		return -LS_EINVAL;
	/* A whole stream, read ahead on a thread where the caller allows
	 * one (the chunks are read in order; a single chunk gains nothing). */
	if (d->o.jobs > 1 && first < last)
		(void)lsd_prefetch_start(&d->pf, lsb_reader_path(d->r), i, first, last);
	err = run_begin(&r, d, i, first, last, cb, arg, st ? st : &local, &d->cbuf);
	if (!err)
		err = run_go(&r);
	/* Before stream_end, which may want the count. */
	r.st->read_ahead = lsd_prefetch_stop(d->pf);
	d->pf = NULL;
	return run_end(&r, err);
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

/* Goes on with paused run r: its thread first. */
static int run_resume(struct lsd_run *r)
{
	int err;

	r->paused = 0;
	r->d->sp = r->sp;
	if ((err = tell_thread(r)) != 0)
		return err;
	return run_go(r);
}

/* Streams outside the shard the options ask for. */
#define SKIP(d, i) ((d)->o.streams && !(d)->o.streams[i])

int lsd_decode_all(struct lsd_decoder *d, const struct lsd_callbacks *cb,
		   void *arg, struct lsd_stream_stats *st)
{
	size_t n, i, k, nrun = 0;
	struct lsd_stream_stats *local = NULL;
	struct lsd_run *runs = NULL;
	struct lsd_chunkbuf *bufs = NULL;
	int err = 0;

	if (!d)
		return -LS_EINVAL;
	n = lsb_reader_nstreams(d->r);
	if (!st && !(st = local = calloc(n ? n : 1, sizeof(*st))))
		return -LS_ENOMEM;
	/* Streams of one thread, and per-CPU ones without PT time: one after
	 * the other, in order. */
	for (i = 0; i < n && !err; i++)
		if ((!d->tl || !d->tl[i].n) && !SKIP(d, i))
			err = run_stream(d, i, 0, SIZE_MAX - 1, cb, arg, &st[i]);
	for (i = 0; i < n; i++)
		nrun += d->tl && d->tl[i].n && !SKIP(d, i);
	if (err || !nrun)
		goto out;
	runs = calloc(nrun, sizeof(*runs));
	bufs = calloc(nrun, sizeof(*bufs));
	if (!runs || !bufs) {
		err = -LS_ENOMEM;
		goto out;
	}
	/* Each per-CPU stream up to its first thread, then always the one
	 * whose next thread starts first: a thread's runs on several CPUs
	 * come in the order they ran. */
	for (i = 0, k = 0; i < n && !err; i++) {
		if (!d->tl || !d->tl[i].n || SKIP(d, i))
			continue;
		err = run_begin(&runs[k], d, i, 0, SIZE_MAX - 1, cb, arg, &st[i], &bufs[k]);
		runs[k].pausable = 1;
		if (!err)
			err = run_go(&runs[k]);
		if (err || runs[k].done)
			err = run_end(&runs[k], err);
		k++;
	}
	while (!err) {
		struct lsd_run *next = NULL;

		for (k = 0; k < nrun; k++)
			if (runs[k].paused && (!next || runs[k].pause_tsc < next->pause_tsc))
				next = &runs[k];
		if (!next)
			break;
		err = run_resume(next);
		if (err || next->done)
			err = run_end(next, err);
	}
out:
	for (k = 0; runs && k < nrun; k++) {
		if (runs[k].d && !runs[k].done)	/* stopped by an error */
			(void)run_end(&runs[k], err);
		free(bufs[k].p[0]);
		free(bufs[k].p[1]);
	}
	free(runs);
	free(bufs);
	free(local);
	return err;
}
