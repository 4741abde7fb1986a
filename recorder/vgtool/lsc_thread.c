/* lsc_thread.c - per-thread PT streams and the dirty helpers.
 *
 * Each thread's PT bytes collect in its chunk buffer from one PSB to the
 * next; at a PSB (or when the thread's trace ends) the chunk becomes one
 * LSW_PT record, so every record starts at a PSB and decodes on its own.
 * Everything that must happen at a block entry (thread start, TIP.PGE
 * after a syscall or signal, PSB insertion) is flagged in lsc_hot.pending
 * and done by lsc_h_pending(), which the IR calls only when the flag is
 * set.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "lsc_out.h"
#include "lsc_thread.h"

/* Chunks grow past psb_period by at most one block's packets before the
 * next block entry inserts the PSB; the slack is generous.
 */
#define LSC_CHUNK_SLACK	(64u << 10)
#define LSC_MEM_BUF	(64u << 10)

struct lsc_hot lsc_hot;
UInt lsc_psb_period = 4096;
Bool lsc_dead;

static struct lsc_thread *lsc_threads;
static UInt lsc_nthreads;
static ThreadId lsc_cur_tid;	/* whose state is in lsc_hot, 0 if none */

int lsc_thread_init(UInt nthreads)
{
	lsc_nthreads = nthreads;
	lsc_threads = VG_(calloc)("lsc.threads", nthreads,
				  sizeof(*lsc_threads));
	lsc_hot.enc.tnt = 1;
	return 0;
}

struct lsc_hot *lsc_thread_hot(ThreadId tid)
{
	return tid == lsc_cur_tid ? &lsc_hot : &lsc_threads[tid].hot;
}

void lsc_thread_create(ThreadId parent, ThreadId child)
{
	struct lsc_thread *t;
	UInt cap = lsc_psb_period + LSC_CHUNK_SLACK;

	tl_assert(child < lsc_nthreads);
	/* A reused slot may still be the one lsc_hot belongs to. */
	if (child == lsc_cur_tid)
		lsc_cur_tid = 0;
	t = &lsc_threads[child];
	if (!t->chunk)
		t->chunk = VG_(malloc)("lsc.chunk", cap);
	if (!t->mem && lsc_clo_mem)
		t->mem = VG_(malloc)("lsc.mem", LSC_MEM_BUF);
	t->used = True;
	t->started = False;
	t->exited = False;
	t->os_tid = 0;
	t->parent_os_tid = parent && parent < lsc_nthreads ?
			   lsc_threads[parent].os_tid : 0;
	t->mem_len = 0;
	t->mem_prev[0] = t->mem_prev[1] = t->mem_prev[2] = 0;
	lsc_ptenc_init(&t->hot.enc, t->chunk, cap);
	t->hot.enc.retcomp = lsc_clo_retcomp;
	t->hot.icount = 0;
	t->hot.pending = LSC_PEND_START;
}

void lsc_thread_switch(ThreadId tid)
{
	if (tid == lsc_cur_tid)
		return;
	if (lsc_cur_tid)
		lsc_threads[lsc_cur_tid].hot = lsc_hot;
	if (!lsc_threads[tid].used)
		lsc_thread_create(0, tid);
	lsc_hot = lsc_threads[tid].hot;
	lsc_cur_tid = tid;
}

static void lsc_chunk_out(struct lsc_thread *t, struct lsc_hot *h)
{
	if (h->enc.len && !lsc_dead)
		lsc_out_record(LSW_PT, (UInt)t->os_tid, h->enc.buf,
			       (UInt)h->enc.len, NULL, 0);
	h->enc.len = 0;
}

static void lsc_mem_out(struct lsc_thread *t)
{
	if (t->mem_len && !lsc_dead)
		lsc_out_record(LSW_MEMACC, (UInt)t->os_tid, t->mem, t->mem_len,
			       NULL, 0);
	t->mem_len = 0;
	t->mem_prev[0] = t->mem_prev[1] = t->mem_prev[2] = 0;
}

static void lsc_check_len(struct lsc_hot *h)
{
	if (h->enc.len >= lsc_psb_period)
		h->pending |= LSC_PEND_PSB;
}

static void lsc_err(int err)
{
	static Bool said;

	if (err >= 0 || said)
		return;
	said = True;
	lsc_out_lost++;
	VG_(umsg)("loopscope: PT chunk buffer overflow, trace is damaged\n");
}

void lsc_thread_flush(ThreadId tid)
{
	struct lsc_thread *t = &lsc_threads[tid];
	struct lsc_hot *h = lsc_thread_hot(tid);

	if (!t->used || !t->started || t->exited)
		return;
	lsc_err(lsc_ptenc_tnt_flush(&h->enc));
	lsc_chunk_out(t, h);
	lsc_mem_out(t);
	h->pending |= LSC_PEND_PSB;
}

void lsc_thread_verify(ThreadId tid)
{
	struct lsc_thread *t = &lsc_threads[tid];
	struct lsw_verify rec;

	if (!lsc_clo_verify || !t->used || !t->started || t->exited ||
	    lsc_dead)
		return;
	rec.seq = lsc_out_next_seq();
	rec.insns = lsc_thread_hot(tid)->icount;
	lsc_out_record(LSW_VERIFY, (UInt)t->os_tid, &rec, sizeof(rec),
		       NULL, 0);
}

void lsc_h_pending(HWord ip, HWord at_rep)
{
	struct lsc_thread *t = &lsc_threads[lsc_cur_tid];
	struct lsc_hot *h = &lsc_hot;
	struct lsw_thread rec;

	if (lsc_dead || !lsc_cur_tid) {
		h->pending = 0;
		h->enc.tnt = 1;
		return;
	}
	/* Blocks with few branches flush a nearly full TNT word here. */
	if (h->enc.tnt >> LSC_TNT_EARLY) {
		lsc_err(lsc_ptenc_tnt_flush(&h->enc));
		lsc_check_len(h);
	}
	if (h->pending & LSC_PEND_START) {
		lsc_emit_startup_maps();
		t->os_tid = VG_(gettid)();
		t->started = True;
		VG_(memset)(&rec, 0, sizeof(rec));
		rec.seq = lsc_out_next_seq();
		rec.parent_tid = (UInt)t->parent_os_tid;
		lsc_out_record(LSW_THREAD_START, (UInt)t->os_tid, &rec,
			       sizeof(rec), NULL, 0);
		/* Stream start: PSB+ with tracing disabled, then PGE. */
		lsc_err(lsc_ptenc_psb(&h->enc, ip));
		h->pending &= ~(ULong)(LSC_PEND_START | LSC_PEND_PSB);
		h->pending |= LSC_PEND_PGE;
	}
	/* Not inside a rep loop: a FUP there would make the decoder count
	 * the rep instruction again.
	 */
	if ((h->pending & LSC_PEND_PSB) && !at_rep) {
		lsc_err(lsc_ptenc_tnt_flush(&h->enc));
		lsc_chunk_out(t, h);
		lsc_err(lsc_ptenc_psb(&h->enc, ip));
		h->pending &= ~(ULong)LSC_PEND_PSB;
	}
	if (h->pending & LSC_PEND_PGE) {
		lsc_err(lsc_ptenc_pge(&h->enc, ip));
		h->pending &= ~(ULong)LSC_PEND_PGE;
	}
}

void lsc_h_tnt_flush(void)
{
	if (lsc_dead) {
		lsc_hot.enc.tnt = 1;
		return;
	}
	lsc_err(lsc_ptenc_tnt_flush(&lsc_hot.enc));
	lsc_check_len(&lsc_hot);
}

void lsc_h_tip(HWord ip)
{
	if (lsc_dead)
		return;
	lsc_err(lsc_ptenc_tip(&lsc_hot.enc, ip));
	lsc_check_len(&lsc_hot);
}

/* A return without return compression (--lsc-retcomp=no): the encoder
 * writes the TIP; the inline IR of lsc_instr.c does the compressed case.
 */
void lsc_h_ret(HWord ip)
{
	if (lsc_dead)
		return;
	lsc_err(lsc_ptenc_ret(&lsc_hot.enc, ip));
	lsc_check_len(&lsc_hot);
}

void lsc_h_pgd(void)
{
	if (lsc_dead)
		return;
	if (lsc_hot.enc.enabled)
		lsc_err(lsc_ptenc_pgd(&lsc_hot.enc));
	lsc_hot.pending |= LSC_PEND_PGE;
	lsc_check_len(&lsc_hot);
}

static UInt lsc_uleb(UChar *p, ULong v)
{
	UInt n = 0;

	do {
		p[n] = (UChar)(v & 0x7f);
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static UInt lsc_sleb(UChar *p, Long v)
{
	UInt n = 0;
	Bool more = True;

	while (more) {
		UChar b = (UChar)(v & 0x7f);

		v >>= 7;
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)))
			more = False;
		else
			b |= 0x80;
		p[n++] = b;
	}
	return n;
}

void lsc_h_mem(HWord daddr, HWord size_w, HWord iaddr)
{
	struct lsc_thread *t = &lsc_threads[lsc_cur_tid];
	ULong idx = lsc_hot.icount;
	UChar *p;

	if (lsc_dead || !t->mem || !t->started)
		return;
	if (t->mem_len + 40 > LSC_MEM_BUF)
		lsc_mem_out(t);
	p = t->mem + t->mem_len;
	p += lsc_uleb(p, idx - t->mem_prev[0]);
	p += lsc_sleb(p, (Long)(iaddr - t->mem_prev[1]));
	p += lsc_sleb(p, (Long)(daddr - t->mem_prev[2]));
	*p++ = (UChar)size_w;
	t->mem_prev[0] = idx;
	t->mem_prev[1] = iaddr;
	t->mem_prev[2] = daddr;
	t->mem_len = (UInt)(p - t->mem);
}

ULong lsc_alloc_npend;

void lsc_h_alloc_in(HWord kind, HWord sp, HWord a0, HWord a1)
{
	struct lsc_thread *t = &lsc_threads[lsc_cur_tid];

	if (lsc_dead || !t->mem || !t->started || t->nalloc == LSC_ALLOC_DEPTH)
		return;
	t->alloc_sp[t->nalloc] = sp;
	t->alloc_ret[t->nalloc] = *(const ULong *)sp;
	t->alloc_size[t->nalloc] = kind == 2 ? (ULong)a0 * a1 : kind == 3 ? a1 : a0;
	t->nalloc++;
	lsc_alloc_npend++;
}

void lsc_h_alloc_out(HWord sp, HWord rax)
{
	struct lsc_thread *t = &lsc_threads[lsc_cur_tid];
	UInt n;
	UChar *p;

	if (lsc_dead || !t->nalloc)
		return;
	/* Calls a longjmp unwound (their frames are below sp) are gone. */
	while (t->nalloc && t->alloc_sp[t->nalloc - 1] < sp) {
		t->nalloc--;
		lsc_alloc_npend--;
	}
	if (!t->nalloc || t->alloc_sp[t->nalloc - 1] != sp)
		return;
	n = --t->nalloc;
	lsc_alloc_npend--;
	if (!rax || !t->mem)
		return;
	/* An allocation record: the call's return address as iaddr, the
	 * block as daddr, size byte 0, then the block's size. */
	if (t->mem_len + 50 > LSC_MEM_BUF)
		lsc_mem_out(t);
	p = t->mem + t->mem_len;
	p += lsc_uleb(p, lsc_hot.icount - t->mem_prev[0]);
	p += lsc_sleb(p, (Long)(t->alloc_ret[n] - t->mem_prev[1]));
	p += lsc_sleb(p, (Long)(rax - t->mem_prev[2]));
	*p++ = 0;
	p += lsc_uleb(p, t->alloc_size[n]);
	t->mem_prev[0] = lsc_hot.icount;
	t->mem_prev[1] = t->alloc_ret[n];
	t->mem_prev[2] = rax;
	t->mem_len = (UInt)(p - t->mem);
}

void lsc_thread_exit(ThreadId tid, UInt status)
{
	struct lsc_thread *t;
	struct lsc_hot *h;
	struct lsw_thread rec;

	if (!tid || tid >= lsc_nthreads)
		return;
	t = &lsc_threads[tid];
	h = lsc_thread_hot(tid);
	if (!t->used || t->exited)
		return;
	t->exited = True;
	if (!t->started || lsc_dead)
		return;
	/* Killed or preempted while tracing: disable before the next insn. */
	if (h->enc.enabled)
		lsc_err(lsc_ptenc_async_pgd(&h->enc, VG_(get_IP)(tid)));
	else
		lsc_err(lsc_ptenc_tnt_flush(&h->enc));
	lsc_chunk_out(t, h);
	lsc_mem_out(t);
	VG_(memset)(&rec, 0, sizeof(rec));
	rec.seq = lsc_out_next_seq();
	rec.status = status;
	rec.insns = lsc_clo_verify ? h->icount : 0;
	lsc_out_record(LSW_THREAD_EXIT, (UInt)t->os_tid, &rec, sizeof(rec),
		       NULL, 0);
	lsc_out_flush();
}

void lsc_thread_exit_all(UInt status)
{
	UInt i;

	for (i = 1; i < lsc_nthreads; i++)
		lsc_thread_exit(i, status);
}

void lsc_thread_signal(ThreadId tid, Int signo, Addr ip)
{
	struct lsc_thread *t;
	struct lsc_hot *h;
	struct lsw_signal rec;

	if (!tid || tid >= lsc_nthreads || lsc_dead)
		return;
	t = &lsc_threads[tid];
	h = lsc_thread_hot(tid);
	if (!t->used || !t->started)
		return;
	VG_(memset)(&rec, 0, sizeof(rec));
	rec.seq = lsc_out_next_seq();
	rec.ip = ip;
	rec.signo = (UInt)signo;
	lsc_out_record(LSW_SIGNAL, (UInt)t->os_tid, &rec, sizeof(rec), NULL, 0);
	/* Interrupted between blocks (a signal polled by the scheduler or a
	 * fault): disable at the interrupted IP; the handler's first block
	 * enables again.
	 */
	if (h->enc.enabled)
		lsc_err(lsc_ptenc_async_pgd(&h->enc, ip));
	h->pending |= LSC_PEND_PGE;
	lsc_check_len(h);
}
