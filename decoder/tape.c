/* tape.c - one decode's callbacks, recorded (tape.h; tape_play.c
 * replays them, tape_int.h says what a record holds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decoder/fast_int.h"
#include "decoder/tape_int.h"
#include "formats/bundle.h"
#include "ls_buf.h"
#include "ls_err.h"

/* A tape pays where it holds a word for at least LSD_TAPE_PT_PER_WORD
 * bytes of PT: a word costs about 20 ns to record, fault in and replay,
 * a PT byte about 6 ns to decode.  sqlite3's 5,000 rows, its packets
 * mostly TIPs (a word per 7.8 bytes): 0.38 s of CPU without a tape, 0.33
 * with; the stencil and spmv, long chains of conditional branches (a
 * word per 1.3 bytes): 0.60 and 1.82 s without, 0.69 and 2.05 with; xz
 * and bzip2 on 300 KB (a word per 0.7 and 0.6 bytes) the same with or
 * without (2026-12-05).  It is checked after CHECK_FIRST words, then
 * every CHECK_WORDS: the first hand-out of each chain and trail is
 * written out whole (sqlite3's first 2^18 words have a PT byte for every
 * 4, its whole tape 7.8). */
#define CHECK_FIRST ((size_t)1 << 20)
/* Chunk by chunk (two jobs), a first look after CHECK_EARLY words, with
 * a bound of PT_PER_WORD_EARLY bytes a word: recorded on the decoding
 * thread, the tape of the stencil and spmv of bench/ (a word per 1.3
 * bytes, dropped at CHECK_FIRST) cost their analysis 2 to 5% of wall,
 * where the decode is the slower side of the pipe. */
#define CHECK_EARLY ((size_t)1 << 16)
#define PT_PER_WORD_EARLY 2
#define CHECK_WORDS ((size_t)1 << 18)

int lsd_tape_new(struct lsd_tape **pt, struct lsd_decoder *d, size_t max)
{
	const char *env = getenv("LOOPSCOPE_TAPE_MAX");
	struct lsd_tape *t;

	*pt = NULL;
	if (env && *env >= '0' && *env <= '9') {	/* (not "-1": no bound) */
		char *end;
		unsigned long long v = strtoull(env, &end, 10);

		if (!*end && v <= SIZE_MAX)
			max = (size_t)v;
	}
	/* (the reference path decodes each pass: the oracle stays apart) */
	if (!max || d->o.reference)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -LS_ENOMEM;
	t->d = d;
	t->maxseg = (max + SEG_BYTES - 1) / SEG_BYTES;
	t->check = CHECK_FIRST;
	t->pt_total = lsd_pt_bytes(d);
	*pt = t;
	return 0;
}

/* A new segment at the tail.  Returns 0, or -1 past the bound or without
 * memory. */
static int seg_add(struct lsd_tape *t)
{
	size_t len = SEG_BYTES + HUGE_ALIGN;
	struct seg *s;
	uintptr_t a;
	void *m;

	if (t->nseg >= t->maxseg || !(s = calloc(1, sizeof(*s))))
		return -1;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		free(s);
		return -1;
	}
	a = ((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);
#ifdef MADV_HUGEPAGE
	/* (where the kernel says no, small pages: the same tape) */
	madvise((void *)a, SEG_BYTES, MADV_HUGEPAGE);
#endif
	s->map = m;
	s->map_len = len;
	s->w = (uint32_t *)a;
	if (t->tail)
		t->tail->next = s;
	else
		t->head = s;
	t->tail = s;
	t->nseg++;
	t->w = s->w;
	t->wend = s->w + SEG_WORDS;
	return 0;
}

static void segs_free(struct lsd_tape *t)
{
	struct seg *s, *n;

	for (s = t->head; s; s = n) {
		n = s->next;
		munmap(s->map, s->map_len);
		free(s);
	}
	t->head = t->tail = NULL;
	t->w = t->wend = NULL;
	t->nseg = 0;
}

/* The tape is left off from here on: its memory goes back at once. */
static void drop_for(struct lsd_tape *t, enum lsd_tape_drop why)
{
	if (!t->dropped)
		t->dropped = why;
	segs_free(t);
}

static void drop(struct lsd_tape *t)
{
	drop_for(t, LSD_TAPE_OTHER);
}

/* Room for n words at t->w, or NULL (the tape dropped). */
static uint32_t *room(struct lsd_tape *t, size_t n)
{
	if (t->dropped)
		return NULL;
	if (n > SEG_WORDS) {
		drop(t);
		return NULL;
	}
	if (t->words >= t->check) {
		uint64_t done = t->d->pt_read - t->pt_base;

		/* the words to come, at the rate so far, past the bound; or
		 * more words than the decode they save is worth */
		unsigned per = t->words < CHECK_FIRST ? PT_PER_WORD_EARLY : LSD_TAPE_PT_PER_WORD;

		t->check = t->words < CHECK_FIRST ? CHECK_FIRST : t->words + CHECK_WORDS;
		if (done && (double)t->words * (double)t->pt_total / (double)done >
			    (double)t->maxseg * SEG_WORDS) {
			drop_for(t, LSD_TAPE_BOUND);
			return NULL;
		}
		if (done && t->words > done / per) {
			drop_for(t, LSD_TAPE_WORTH);
			return NULL;
		}
	}
	if ((size_t)(t->wend - t->w) < n && seg_add(t) < 0) {
		drop_for(t, t->nseg >= t->maxseg ? LSD_TAPE_BOUND : LSD_TAPE_OTHER);
		return NULL;
	}
	return t->w;
}

static int seg_mark(struct lsd_tape *t, size_t i, const uint32_t *w, size_t n);

/* A record of op for stream with the nw words of v (a struct) after. */
static void put_struct(struct lsd_tape *t, unsigned op, size_t stream, const void *v, size_t nw,
		       size_t bytes)
{
	uint32_t *w = room(t, 2 + nw);

	if (!w)
		return;
	if (seg_mark(t, stream, w, 0) < 0) {
		drop(t);
		return;
	}
	w[0] = op;
	w[1] = (uint32_t)stream;
	memcpy(w + 2, v, bytes);
	t->w = w + 2 + nw;
	t->words += 2 + nw;
}

/* Blocks b[0 .. n), n >= 1, as a run at w (at most 4 * n + 3 words).
 * Returns the word after it, or NULL where a word cannot hold a block. */
static uint32_t *put_run(uint32_t *w, const struct lsd_block *b, size_t n)
{
	uint32_t *e, ne = 0, big = 0;
	uint64_t pn;
	uint8_t bx = 0;
	size_t j;

	/* One loop writes the words and, where block j - 1's next is not
	 * block j's start, its escape (their place is known: after the
	 * words and the last next); two loops read each block twice.  What
	 * a word cannot hold (an id of 28 bits or more, an exit of more than
	 * four) shows in the union of the ids and of the exits. */
	e = w + n + 3;
	if (!b[0].sb)
		return NULL;
	/* (a block's id is its static block's: every maker of blocks sets
	 * both; pn, the block before's next, starts at the first's start) */
	pn = b[0].sb->start;
	for (j = 0; j < n; j++) {
		const struct lsd_sblock *sb = b[j].sb;

		if (!sb)
			return NULL;
		big |= b[j].id;
		bx |= b[j].exit;
		w[j] = b[j].id << 4 | b[j].exit;
		if (pn != sb->start) {
			e[0] = (uint32_t)(j - 1);
			e[1] = (uint32_t)pn;
			e[2] = (uint32_t)(pn >> 32);
			e += 3;
			ne++;
		}
		pn = b[j].next;
	}
	if (big >= ID_LIMIT || bx >= 16)
		return NULL;
	w[n] = (uint32_t)b[n - 1].next;
	w[n + 1] = (uint32_t)(b[n - 1].next >> 32);
	w[n + 2] = ne;
	return e;
}

static void put_blocks(struct lsd_tape *t, size_t stream, const struct lsd_block *b, size_t n)
{
	uint32_t *w = room(t, 4 * n + 8), *e;

	if (!w)
		return;
	if (n >= ID_LIMIT || stream > UINT32_MAX || seg_mark(t, stream, w, n) < 0 ||
	    !(e = put_run(w + 2, b, n))) {
		drop(t);
		return;
	}
	w[0] = TP_BLOCKS | (uint32_t)n << 4;
	w[1] = (uint32_t)stream;
	t->w = e;
	t->words += (size_t)(e - w);
	t->blocks += n;
}

/* The id of the chain or trail whose array begins at b, or UINT32_MAX
 * (a run moved off its first block, or one in the decoder's own
 * blocks). */
static uint32_t slot_of(const struct lsd_decoder *d, const struct lsd_block *b)
{
	const uintptr_t p = (uintptr_t)b;
	uintptr_t a;
	size_t k;

	if (d->chains) {
		a = (uintptr_t)d->chains + offsetof(struct lsd_fchain, b);
		k = (p - a) / sizeof(struct lsd_fchain);
		if (p >= a && k < (size_t)1 << d->ch_log &&
		    p == a + k * sizeof(struct lsd_fchain))
			return (uint32_t)k;
	}
	if (d->chains && d->trails) {
		a = (uintptr_t)d->trails + offsetof(struct lsd_ftrail, b);
		k = (p - a) / sizeof(struct lsd_ftrail);
		if (p >= a && k < (size_t)1 << d->trail_log &&
		    p == a + k * sizeof(struct lsd_ftrail))
			return (uint32_t)(((size_t)1 << d->ch_log) + k);
	}
	return UINT32_MAX;
}

/* A spans record of s[0 .. ns), n blocks: a chain's or trail's whole
 * array handed out before (again) is named by its id, as a word; given
 * whole for the first time since its slot was built, it is given with
 * its id (and is that id's from then on); other runs are given. */
static void put_spans(struct lsd_tape *t, size_t stream, const struct lsd_bspan *s, size_t ns,
		      size_t n)
{
	uint32_t *w = room(t, 3 + 5 * ns + 4 * n), *e;	/* (the most a span takes) */
	size_t i;

	if (!w)
		return;
	if (ns >= ID_LIMIT || n > UINT32_MAX || stream > UINT32_MAX ||
	    seg_mark(t, stream, w, n) < 0) {
		drop(t);
		return;
	}
	w[0] = TP_SPANS | (uint32_t)ns << 4;
	w[1] = (uint32_t)stream;
	w[2] = (uint32_t)n;
	e = w + 3;
	if (!t->keyn) {		/* (the decoder's tables are made by now) */
		const struct lsd_decoder *d = t->d;

		t->nkey = d->chains ? ((size_t)1 << d->ch_log) +
				      (d->trails ? (size_t)1 << d->trail_log : 0) : 0;
		if (!(t->keyn = calloc(t->nkey ? t->nkey : 1, sizeof(*t->keyn))) ||
		    (t->chunked && !(t->ep = calloc(t->nkey ? t->nkey : 1, sizeof(*t->ep))))) {
			drop(t);
			return;
		}
	}
	for (i = 0; i < ns && e; i++) {
		uint32_t id = s[i].whole || s[i].again ? slot_of(t->d, s[i].b) : UINT32_MAX;
		/* (chunk by chunk: an id not given in this epoch is given
		 * again where the whole of it comes; a part of it is a run) */
		int stale = id != UINT32_MAX && t->ep && t->ep[id] != t->epoch;

		if (id != UINT32_MAX && (s[i].whole || (stale && s[i].n == t->keyn[id]))) {
			t->keyn[id] = (uint32_t)s[i].n;
			if (t->ep)
				t->ep[id] = t->epoch;
			*e++ = id << 2 | SP_DEF;
			*e++ = (uint32_t)s[i].n;
			e = put_run(e, s[i].b, s[i].n);
		} else if (id != UINT32_MAX && !stale && s[i].n <= t->keyn[id]) {
			/* (again: the same records, the slot not built since) */
			t->refs++;
			if (s[i].n == t->keyn[id]) {
				*e++ = id << 2 | SP_REF;
			} else {
				*e++ = id << 2 | SP_PART;
				*e++ = (uint32_t)s[i].n;
			}
		} else {
			*e++ = (uint32_t)s[i].n << 2 | SP_RUN;
			e = put_run(e, s[i].b, s[i].n);
		}
	}
	if (!e) {
		drop(t);
		return;
	}
	t->w = e;
	t->words += (size_t)(e - w);
	t->blocks += n;
}

static int rec_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsd_tape *t = arg;

	if (n)
		put_blocks(t, stream, b, n);
	return t->cb->blocks(t->arg, stream, b, n);
}

/* The decoder's runs by reference: recorded as spans, and copied in
 * order for cb (as the decoder copies them where no one takes spans). */
static int rec_spans(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns)
{
	struct lsd_tape *t = arg;
	size_t n = 0, i;
	int err;

	/* (as they are, where cb takes runs) */
	if (t->cb->spans) {
		for (i = 0; i < ns; i++)
			n += s[i].n;
		if (n && !t->dropped)
			put_spans(t, stream, s, ns, n);
		return t->cb->spans(t->arg, stream, s, ns);
	}
	if ((err = lsd_spans_flat(&t->out, &t->capout, s, ns, &n)))
		return err;
	if (n && !t->dropped)
		put_spans(t, stream, s, ns, n);
	return t->cb->blocks(t->arg, stream, t->out, n);
}

/* Runs are wanted while the tape records them: once it is dropped, the
 * decoder copies its chains as it takes them (bzip2's first pass 4%
 * less CPU than runs made and then flattened here). */
static int rec_want(void *arg)
{
	const struct lsd_tape *t = arg;

	return !t->dropped;
}

static int rec_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct lsd_tape *t = arg;

	put_struct(t, TP_LOSS, stream, l, WORDS(*l), sizeof(*l));
	return t->cb->loss ? t->cb->loss(t->arg, stream, l) : 0;
}

static int rec_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct lsd_tape *t = arg;
	static const struct lsb_stream none;

	/* (no stream: its count 1, and none passed on) */
	put_struct(t, TP_BEGIN | (s ? 0 : 1u << 4), stream, s ? s : &none, WORDS(*s),
		   sizeof(*s));
	return t->cb->stream_begin ? t->cb->stream_begin(t->arg, stream, s) : 0;
}

static int rec_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsd_tape *t = arg;

	put_struct(t, TP_END, stream, st, WORDS(*st), sizeof(*st));
	return t->cb->stream_end ? t->cb->stream_end(t->arg, stream, st) : 0;
}

static int rec_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct lsd_tape *t = arg;
	uint32_t v[2] = { pid, tid };

	put_struct(t, TP_THREAD, stream, v, 2, sizeof(v));
	return t->cb->thread ? t->cb->thread(t->arg, stream, pid, tid) : 0;
}

const struct lsd_callbacks lsd_tape_callbacks = {
	.blocks = rec_blocks,
	.spans = rec_spans,
	.want_spans = rec_want,
	.loss = rec_loss,
	.stream_begin = rec_begin,
	.stream_end = rec_end,
	.thread = rec_thread,
};

void lsd_tape_to(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg)
{
	t->cb = cb;
	t->arg = arg;
	t->used = 1;
	t->pt_base = t->d->pt_read;
}

int lsd_tape_whole(const struct lsd_tape *t)
{
	return t && t->used && !t->dropped;
}

size_t lsd_tape_blocks(const struct lsd_tape *t)
{
	return lsd_tape_whole(t) ? t->blocks : 0;
}

enum lsd_tape_drop lsd_tape_dropped(const struct lsd_tape *t)
{
	return t ? (enum lsd_tape_drop)t->dropped : LSD_TAPE_KEPT;
}

size_t lsd_tape_words(const struct lsd_tape *t)
{
	return lsd_tape_whole(t) ? t->words : 0;
}

size_t lsd_tape_refs(const struct lsd_tape *t)
{
	return lsd_tape_whole(t) ? t->refs : 0;
}

/* ---- chunk by chunk ---- */

void lsd_tape_chunked(struct lsd_tape *t)
{
	if (!t)
		return;
	t->chunked = 1;
	if (t->check > CHECK_EARLY)
		t->check = CHECK_EARLY;
}

/* Before a record of stream i at w with n blocks: the starts of i's
 * chunks it begins (the decoder published them as each chunk began, its
 * blocks before it; a chunk's first record comes after).  Returns 0, or
 * -1 without memory (the tape is dropped). */
static int seg_mark(struct lsd_tape *t, size_t i, const uint32_t *w, size_t n)
{
	struct tstream *ts;
	const uint64_t *v;
	size_t nc;

	if (!t->chunked)
		return 0;
	if (i != t->last_stream) {
		t->epoch++;
		t->last_stream = i;
	}
	if (i >= t->nts) {
		size_t nn = i + 1, k;
		void *p = ls_reallocarray(t->ts, nn, sizeof(*t->ts));

		if (!p)
			return -1;
		t->ts = p;
		for (k = t->nts; k < nn; k++)
			memset(&t->ts[k], 0, sizeof(t->ts[k]));
		t->nts = nn;
	}
	ts = &t->ts[i];
	if (!ts->pos && !ts->bad) {
		ts->nchunks = lsb_reader_nchunks(t->d->r, i);
		if (!(ts->pos = calloc(ts->nchunks + 1, sizeof(*ts->pos))))
			return -1;
	}
	if (!ts->bad) {
		nc = lsd_chunk_starts(t->d, i, &v);
		if (nc > ts->nchunks)
			nc = ts->nchunks;
		while (ts->marked < nc && v[ts->marked] <= ts->nb) {
			/* (a start inside the record before: the decode handed
			 * a chunk's first blocks with the last of the one before) */
			if (v[ts->marked] < ts->nb) {
				ts->bad = 1;
				break;
			}
			ts->pos[ts->marked].s = t->tail;
			ts->pos[ts->marked].off = (size_t)(w - t->tail->w);
			ts->marked++;
			t->epoch++;
		}
	}
	ts->nb += n;
	return 0;
}

int lsd_tape_has_chunks(const struct lsd_tape *t, size_t i, size_t first, size_t last)
{
	const struct tstream *ts;

	if (!lsd_tape_whole(t) || !t->chunked || i >= t->nts)
		return 0;
	ts = &t->ts[i];
	/* (past the last chunk: to the stream's end) */
	return !ts->bad && ts->pos && first <= last && last < ts->nchunks &&
	       last + 1 <= ts->marked && (last + 1 == ts->nchunks || last + 2 <= ts->marked);
}

void lsd_tape_free(struct lsd_tape *t)
{
	if (!t)
		return;
	segs_free(t);
	if (t->own.t)
		lsd_tape_player_fini(&t->own);
	free(t->out);
	free(t->keyn);
	free(t->ep);
	for (size_t i = 0; i < t->nts; i++)
		free(t->ts[i].pos);
	free(t->ts);
	free(t->flat);
	free(t);
}
