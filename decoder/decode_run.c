/* decode_run.c - decoding runs: a stream's chunks read (ahead, where a
 * thread may), each decoded by decode.c, from one to the next; whole
 * streams, single chunks, and the per-CPU streams side by side in the
 * order their threads ran.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "decoder/run.h"
#include "ls_buf.h"
#include "ls_err.h"

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

int lsd_keep_chunk(struct lsd_decoder *d, size_t s, size_t c, int64_t len)
{
	struct lsd_kept *e;
	size_t cap = d->cbuf.cap[0];

	/* (only a chunk in the buffer's own memory: not a kept one) */
	if (len <= 0 || !d->cbuf.p[0] || d->cbuf.at[0] != d->cbuf.p[0] ||
	    d->kept_bytes > d->keep_max || cap > d->keep_max - d->kept_bytes ||
	    (d->o.streams && !d->o.streams[s]))
		return 0;
	if (!(d->nkept & (d->nkept + 1))) {	/* 0, 1, 3, 7 ..: grow */
		void *np = ls_reallocarray(d->kept, 2 * d->nkept + 1, sizeof(*d->kept));

		if (!np)
			return 0;
		d->kept = np;
	}
	e = &d->kept[d->nkept++];
	e->s = s;
	e->c = c;
	e->p = d->cbuf.p[0];
	e->cap = cap;
	e->len = len;
	d->kept_bytes += cap;
	d->cbuf.p[0] = NULL;
	d->cbuf.cap[0] = 0;
	d->cbuf.at[0] = NULL;
	return 1;
}

/* The kept entry of chunk c of stream s, d's own or its first decoder's
 * (a twin's), or NULL.  Linear: a few dozen entries at most (LSD_KEEP_MAX
 * over chunks of a MiB or more, or short traces). */
static const struct lsd_kept *kept_find(const struct lsd_decoder *d, size_t s, size_t c)
{
	size_t i;

	for (; d; d = d->kfrom)
		for (i = 0; i < d->nkept; i++)
			if (d->kept[i].s == s && d->kept[i].c == c && d->kept[i].p)
				return &d->kept[i];
	return NULL;
}

uint64_t lsd_chunk_reads(const struct lsd_decoder *d)
{
	return d ? d->chunk_reads : 0;
}

uint64_t lsd_pt_bytes(const struct lsd_decoder *d)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; d && i < lsb_reader_nstreams(d->r); i++)
		if (!d->o.streams || d->o.streams[i])
			n += lsb_reader_stream_raw(d->r, i);
	return n;
}

uint64_t lsd_scan_heads(const struct lsd_decoder *d)
{
	return d ? d->scan_heads : 0;
}

uint64_t lsd_scan_read_ahead(const struct lsd_decoder *d, unsigned *threads)
{
	if (threads)
		*threads = d ? d->scan_threads : 0;
	return d ? d->scan_ahead : 0;
}

uint64_t lsd_trail_blocks(const struct lsd_decoder *d)
{
	return d ? d->trail_blocks : 0;
}

uint64_t lsd_trail_rests(const struct lsd_decoder *d)
{
	return d ? d->tr_rests : 0;
}

size_t lsd_kept_end(const struct lsd_decoder *d, size_t s, size_t c)
{
	while (kept_find(d, s, c))
		c++;
	return c;
}

void lsd_kept_release(struct lsd_decoder *d)
{
	size_t i;

	for (i = 0; i < d->nkept; i++)
		free(d->kept[i].p);
	free(d->kept);
	d->kept = NULL;
	d->nkept = d->kept_bytes = 0;
}

int64_t lsd_read_chunk(struct lsd_decoder *d, size_t s, size_t c,
		       struct lsd_chunkbuf *b, int k, uint64_t *nkept)
{
	const struct lsb_chunk *ch = lsb_reader_chunk(d->r, s, c);
	const struct lsd_kept *e;
	int64_t len;

	if (!ch || ch->raw_size > LSB_MAX_CHUNK)
		return -LS_ECORRUPT;
	if ((e = kept_find(d, s, c)) != NULL) {
		/* Read by the open's scan, and kept for every decode
		 * (read only: several may look at it at once). */
		b->at[k] = e->p;
		if (nkept)
			++*nkept;
		return e->len;
	}
	d->chunk_reads++;
	if (d->pf && (len = lsd_prefetch_take(d->pf, s, c, &b->p[k], &b->cap[k])) >= 0) {
		b->at[k] = b->p[k];
		return len;
	}
	if (ls_fresh(&b->p[k], &b->cap[k], ch->raw_size) < 0)
		return -LS_ENOMEM;
	b->at[k] = b->p[k];
	return lsb_reader_read_chunk(d->r, ch, b->p[k], b->cap[k]);
}

/* Sets stream i's count of blocks before chunk c, the next not set.
 * Returns 0, -LS_ENOMEM, or -LS_EINVAL (not the next). */
static int starts_put(struct lsd_decoder *d, size_t i, size_t c, uint64_t v)
{
	struct lsd_cstarts *cs = d->cst ? &d->cst[i] : NULL;
	size_t nc = lsb_reader_nchunks(d->r, i);

	if (!cs || c > nc)
		return -LS_EINVAL;
	if (c != atomic_load_explicit(&cs->n, memory_order_relaxed))
		return -LS_EINVAL;
	if (!cs->v) {
		if (!(cs->v = malloc((nc + 1) * sizeof(*cs->v))))
			return -LS_ENOMEM;
		cs->nc = nc;
	}
	cs->v[c] = v;
	atomic_store_explicit(&cs->n, c + 1, memory_order_release);
	return 0;
}

int lsd_chunk_starts_put(struct lsd_decoder *d, size_t i, size_t c, uint64_t v)
{
	if (!d || i >= lsb_reader_nstreams(d->r))
		return -LS_EINVAL;
	return starts_put(d, i, c, v);
}

/* Stream r->stream's blocks before chunk c (c == r->nchunks: all of
 * them), for lsd_chunk_starts(): by a run from the stream's start (or
 * from a chunk whose start is known), each count once.  Without memory,
 * none. */
static void pub_start(struct lsd_run *r, size_t c)
{
	struct lsd_cstarts *cs = r->d->cst ? &r->d->cst[r->stream] : NULL;

	if (!r->pub || !cs || c < atomic_load_explicit(&cs->n, memory_order_relaxed))
		return;
	if (starts_put(r->d, r->stream, c, r->pubbase + r->blocks))
		r->pub = 0;
}

size_t lsd_chunk_starts(const struct lsd_decoder *d, size_t i, const uint64_t **v)
{
	size_t n;

	*v = NULL;
	if (!d || !d->cst || i >= lsb_reader_nstreams(d->r))
		return 0;
	n = atomic_load_explicit(&d->cst[i].n, memory_order_acquire);
	if (n)
		*v = d->cst[i].v;
	return n;
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
					err = lsd_run_end_pend(r, LSD_EXIT_GAP, 0);
				r->done = 1;
				break;
			}
			ch = lsb_reader_chunk(d->r, s, r->c);
			if (r->c == r->first)
				r->clen = lsd_read_chunk(d, s, r->c, r->cbuf, r->cur, &r->st->kept);
			r->stop_ip = 0;
			r->nlen = 0;
			if (r->c + 1 < r->nchunks) {
				r->nlen = lsd_read_chunk(d, s, r->c + 1, r->cbuf, !r->cur,
							 &r->st->kept);
				if (r->nlen > 0)
					r->stop_ip = psb_fup_ip(r->cbuf->at[!r->cur],
								(size_t)r->nlen);
			}
			r->chunk_off = ch->stream_offset;
			r->in_chunk = 1;
			pub_start(r, r->c);
			if (r->clen < 0) {
				/* An unreadable chunk: a gap of its size. */
				err = lsd_run_report_loss(r, 0, ch->raw_size, -pte_internal, 0);
			} else {
				r->st->pt_bytes += (uint64_t)r->clen;
				d->pt_read += (uint64_t)r->clen;
				err = lsd_run_chunk_begin(r);
			}
		}
		if (!err && r->dec)
			err = lsd_run_chunk_go(r);
		if (err || r->paused)
			break;
		err = lsd_run_chunk_end(r);
		if (progress_fn) {
			progress_fn(progress_arg, d->r, r->clen > 0 ? (uint64_t)r->clen : 0,
				    r->insns - r->told_insns);
			r->told_insns = r->insns;
		}
		/* The blocks libipt made again of a chunk the fast path gave
		 * up on are dropped where the batch goes out: it goes out
		 * now, before the count is cleared (else the blocks already
		 * handed out went out twice). */
		if (!err && r->skip)
			err = lsd_run_batch_flush(r);
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
	r->spanfn = r->batchfn ? cb->spans : NULL;
	r->first = r->c = first;
	r->last = last;
	r->nchunks = lsb_reader_nchunks(d->r, i);
	/* (counts of chunks from the stream's start on, or on from a
	 * chunk whose start a run before counted) */
	if (d->cst && (!first || first < atomic_load_explicit(&d->cst[i].n, memory_order_acquire))) {
		r->pub = 1;
		r->pubbase = first ? d->cst[i].v[first] : 0;
	}
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
	 * finds it (lsd_run_tell_thread()), others at once. */
	return r->tl ? 0 : lsd_run_tell_thread(r);
}

/* Ends run r (err: how it went so far): the last batch, the stream_end
 * callback.  Returns err or the first error of these. */
static int run_end(struct lsd_run *r, int err)
{
	r->done = 1;
	/* The last batch, also where the run stops on an error (its own or
	 * another stream's): block by block its blocks went out already.
	 * Not after a callback's error (batch_flush() keeps it). */
	if (r->batchfn) {
		int e = lsd_run_batch_flush(r);

		if (!err)
			err = e;
	}
	if (!err)
		err = lsd_run_tell_thread(r);
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
	size_t ahead;
	int err;

	if (!d || i >= lsb_reader_nstreams(d->r))
		return -LS_EINVAL;
	ahead = lsd_kept_end(d, i, first);
	/* A whole stream, read ahead on a thread where the caller allows
	 * one (the chunks are read in order; a single chunk or a few, a
	 * piece of another thread's work, gain nothing),
	 * from the first chunk the open's scan did not keep. */
	if (d->o.jobs > 1 && ahead < last && last == SIZE_MAX - 1)
		(void)lsd_prefetch_start(&d->pf, d->r, i, ahead, last, 1);
	err = run_begin(&r, d, i, first, last, cb, arg, st ? st : &local, &d->cbuf);
	if (!err)
		err = run_go(&r);
	if (!err && r.done)
		pub_start(&r, last < r.nchunks ? last + 1 : r.nchunks);
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

int lsd_decode_chunks(struct lsd_decoder *d, size_t i, size_t first, size_t last,
		      const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st)
{
	if (first > last || last >= SIZE_MAX - 1)
		return -LS_EINVAL;
	return run_stream(d, i, first, last, cb, arg, st);
}

/* Goes on with paused run r: its thread first. */
static int run_resume(struct lsd_run *r)
{
	int err;

	r->paused = 0;
	r->d->sp = r->sp;
	if ((err = lsd_run_tell_thread(r)) != 0)
		return err;
	return run_go(r);
}

/* Streams outside the shard the options ask for. */
#define SKIP(d, i) ((d)->o.streams && !(d)->o.streams[i])

int lsd_stream_alone(const struct lsd_decoder *d, size_t i)
{
	if (!d || i >= lsb_reader_nstreams(d->r) || SKIP(d, i))
		return 0;
	return !d->tl || !d->tl[i].n ? 1 : -1;
}

void lsd_stream_thread(const struct lsd_decoder *d, size_t i, uint32_t *pid,
		       uint32_t *tid)
{
	*pid = *tid = 0;
	if (d && i < lsb_reader_nstreams(d->r)) {
		*pid = d->stream_tid[i].pid;
		*tid = d->stream_tid[i].tid;
	}
}

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
		if (lsd_stream_alone(d, i) > 0)
			err = run_stream(d, i, 0, SIZE_MAX - 1, cb, arg, &st[i]);
	for (i = 0; i < n; i++)
		nrun += lsd_stream_alone(d, i) < 0;
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
		if (lsd_stream_alone(d, i) >= 0)
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
