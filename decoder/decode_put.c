/* decode_put.c - how a decoding run hands out its blocks: the batch or
 * the block callback, the pending block (executed, its exit known when
 * the next block comes), and the tail held back after the chunk's stop
 * IP (decode.c says when).  Shared by libipt's path and the fast path
 * (run.h).
 */
#include <stdlib.h>
#include <string.h>

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

int lsd_run_call_block(struct lsd_run *r, const struct lsd_block *b)
{
	if (r->skip) {
		r->skip--;
		return 0;
	}
	return r->cbret = r->blockfn(r->arg, r->stream, b);
}

int lsd_run_batch_put(struct lsd_run *r, const struct lsd_block *b, size_t n)
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
		return lsd_run_batch_put(r, b, 1);
	if (r->blockfn)
		lsd_run_call_block(r, b);
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
		return lsd_run_batch_put(r, b, n);
	for (i = 0; i < n && r->blockfn && !r->cbret; i++)
		lsd_run_call_block(r, &b[i]);
	return r->cbret;
}

int lsd_run_flush_tail(struct lsd_run *r)
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
	struct lsd_block b = { .sb = sb, .exit = (uint8_t)exit, .id = sb->id, .next = next };

	if (!r->tailing)
		return deliver(r, &b);
	if (r->ntail == r->captail) {
		size_t ncap = r->captail ? r->captail * 2 : 64;
		void *p;

		/* A tail without packets has no loop but `jmp .`; don't let
		 * that grow without bound. */
		if (ncap > 65536)
			return lsd_run_flush_tail(r) ? r->cbret : deliver(r, &b);
		p = ls_reallocarray(r->tail, ncap, sizeof(*r->tail));
		if (!p)
			return -LS_ENOMEM;
		r->tail = p;
		r->captail = ncap;
	}
	r->tail[r->ntail++] = b;
	if (consumed_packet(kind_of(sb), exit))
		return lsd_run_flush_tail(r);
	return 0;
}

int lsd_run_push(struct lsd_run *r, const struct lsd_sblock *sb)
{
	int err = 0;

	if (r->pend)
		err = emit(r, r->pend, lsd_exit_by_kind(r->pend_kind, r->pend_end,
						    sb->start), sb->start);
	set_pend(r, sb);
	if (r->stop_ip && sb->start == r->stop_ip && !r->tailing)
		r->tailing = 1;
	return err;
}

int lsd_run_end_pend(struct lsd_run *r, int exit, uint64_t next)
{
	int err = 0;

	if (r->pend)
		err = emit(r, r->pend, exit, next);
	r->pend = NULL;
	return err;
}
