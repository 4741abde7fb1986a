/* tape.c - one decode's callbacks, recorded and replayed (tape.h).
 *
 * The tape is a list of segments of 32-bit words, each mapped on its own
 * (2 MiB aligned, huge pages asked for), zero where nothing was written:
 * a record that does not fit where the last one ended goes at the start
 * of the next segment, and a zero word tells the replay to go there.
 * A record is its header (op | count << 4), the stream, then:
 *   blocks   a run of count blocks: one word a block, static block id
 *            << 4 | exit; the last block's next (two words); the number
 *            of blocks whose next is not the following block's start, and
 *            for each its index and next (three words)
 *   spans    count spans of the decoder's (lsd_bspan), their blocks in
 *            one call: the number of blocks, then each span's tag, id << 2
 *            | kind: a chain's or trail's whole array given now and named
 *            id from then on (SP_DEF: its number of blocks, a run), given
 *            before (SP_REF: the tag alone), its first blocks (SP_PART:
 *            their number), or other blocks (SP_RUN, the number of
 *            blocks for id: a run)
 *   loss     struct lsd_loss, word by word
 *   begin    struct lsb_stream, word by word (count 1: none was given)
 *   end      struct lsd_stream_stats, word by word
 *   thread   pid, tid
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decoder/decode_int.h"
#include "decoder/fast_int.h"
#include "decoder/tape.h"
#include "formats/bundle.h"
#include "ls_err.h"

enum { TP_BLOCKS = 1, TP_LOSS, TP_BEGIN, TP_END, TP_THREAD, TP_SPANS };
enum { SP_REF, SP_DEF, SP_RUN, SP_PART };

/* Words of a segment: 8 MiB, four huge pages. */
#define SEG_WORDS ((size_t)2 << 20)
#define SEG_BYTES (SEG_WORDS * sizeof(uint32_t))
#define HUGE_ALIGN ((size_t)2 << 20)
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
#define CHECK_WORDS ((size_t)1 << 18)
/* Static block ids and exits a block word holds. */
#define ID_LIMIT (1u << 28)
_Static_assert(LSD_EXIT_MAX <= 16, "an exit in four bits");

/* Words a struct takes on the tape. */
#define WORDS(T) ((sizeof(T) + 3) / 4)

struct seg {
	struct seg *next;
	uint32_t *w;		/* SEG_WORDS words, zeroed by the kernel */
	void *map;
	size_t map_len;
};

/* An id's blocks as last given on the tape (the replay's). */
struct tdef {
	struct lsd_block *b;
	uint32_t n, cap;
};

struct lsd_tape {
	struct lsd_decoder *d;
	const struct lsd_callbacks *cb;
	void *arg;
	struct seg *head, *tail;
	uint32_t *w, *wend;	/* where the next record goes in tail */
	size_t nseg, maxseg;
	size_t blocks, words, refs;
	size_t check;		/* words at the next look at what is to come */
	/* The arrays named, by id: the decoder's chain slots, then its
	 * trails' (nkey of them, known at the first spans call): the blocks
	 * each was last given with (the record), or its blocks (the
	 * replay). */
	uint32_t *keyn;
	size_t nkey;
	struct tdef *def;
	struct lsd_block *out;	/* a spans call's blocks for cb */
	size_t capout;
	/* raw PT bytes of the streams decoded, and the decoder's count of
	 * those begun when recording began: a decode whose words so far,
	 * for the PT read so far, say the tape will not hold them all, or
	 * are not worth holding, drops it at once rather than at its
	 * bound */
	uint64_t pt_total, pt_base;
	int used;		/* lsd_tape_to() called: a decode recorded */
	int dropped;		/* enum lsd_tape_drop */
	struct lsd_block *buf;	/* the replay's blocks, from buf + 1 */
	size_t capbuf;
};

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
		t->check = t->words + CHECK_WORDS;
		if (done && (double)t->words * (double)t->pt_total / (double)done >
			    (double)t->maxseg * SEG_WORDS) {
			drop_for(t, LSD_TAPE_BOUND);
			return NULL;
		}
		if (done && t->words > done / LSD_TAPE_PT_PER_WORD) {
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

/* A record of op for stream with the nw words of v (a struct) after. */
static void put_struct(struct lsd_tape *t, unsigned op, size_t stream, const void *v, size_t nw,
		       size_t bytes)
{
	uint32_t *w = room(t, 2 + nw);

	if (!w)
		return;
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
	if (n >= ID_LIMIT || stream > UINT32_MAX || !(e = put_run(w + 2, b, n))) {
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
	if (ns >= ID_LIMIT || n > UINT32_MAX || stream > UINT32_MAX) {
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
		if (!(t->keyn = calloc(t->nkey ? t->nkey : 1, sizeof(*t->keyn)))) {
			drop(t);
			return;
		}
	}
	for (i = 0; i < ns && e; i++) {
		uint32_t id = s[i].whole || s[i].again ? slot_of(t->d, s[i].b) : UINT32_MAX;

		if (id != UINT32_MAX && s[i].whole) {
			t->keyn[id] = (uint32_t)s[i].n;
			*e++ = id << 2 | SP_DEF;
			*e++ = (uint32_t)s[i].n;
			e = put_run(e, s[i].b, s[i].n);
		} else if (id != UINT32_MAX && s[i].n <= t->keyn[id]) {
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
	size_t n;
	int err = lsd_spans_flat(&t->out, &t->capout, s, ns, &n);

	if (err)
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

/* t->buf with room for n blocks after its first.  Returns 0 or
 * -LS_ENOMEM. */
static int buf_room(struct lsd_tape *t, size_t n)
{
	size_t c = n < 1024 ? 1024 : n;

	if (n <= t->capbuf)
		return 0;
	free(t->buf);
	/* (the block before the first, and lsd_fchain_out()'s last unit) */
	if (!(t->buf = malloc((c + 2) * sizeof(*t->buf)))) {
		t->capbuf = 0;
		return -LS_ENOMEM;
	}
	t->capbuf = c;
	return 0;
}

/* The run at r (n blocks, n >= 1) into o[0 .. n), their static blocks
 * from flat (by id); o[-1] is written and put back.  Returns the word
 * after the run. */
static const uint32_t *play_run(const struct lsd_sblock *const *flat, const uint32_t *r,
				struct lsd_block *o, size_t n)
{
	struct lsd_block *pv = o - 1;
	const uint64_t keep = pv->next;
	const uint32_t *e;
	uint32_t ne, k;
	size_t j;

	/* (each block's next is the start of the one after, but for the
	 * escapes: set as that one is made, through pv, the block before
	 * o[j] at pv[j]; the first's into the block before, put back: no
	 * test in the loop) */
	for (j = 0; j < n; j++) {
		uint32_t v = r[j];
		const struct lsd_sblock *sb = flat[v >> 4];

		o[j].sb = sb;
		o[j].exit = (uint8_t)(v & 15);
		o[j].id = v >> 4;
		pv[j].next = sb->start;
	}
	pv->next = keep;
	e = r + n;
	o[n - 1].next = e[0] | (uint64_t)e[1] << 32;
	ne = e[2];
	e += 3;
	for (k = 0; k < ne; k++, e += 3)
		o[e[0]].next = e[1] | (uint64_t)e[2] << 32;
	return e;
}

/* The blocks of a record at r (n of them) into t->buf, handed to cb.
 * Returns the callback's return, or -LS_ENOMEM; *next the record after. */
static int play_blocks(struct lsd_tape *t, const struct lsd_sblock *const *flat,
		       const uint32_t *r, size_t n, const struct lsd_callbacks *cb,
		       void *arg, const uint32_t **next)
{
	if (buf_room(t, n))
		return -LS_ENOMEM;
	*next = play_run(flat, r + 2, t->buf + 1, n);
	return cb->blocks(arg, r[1], t->buf + 1, n);
}

/* A spans record at r into t->buf, handed to cb as one call (the arrays
 * given kept by id in t->def).  Returns the callback's return,
 * -LS_ENOMEM, or -LS_EINVAL for an id never given; *next the record
 * after. */
static int play_spans(struct lsd_tape *t, const struct lsd_sblock *const *flat,
		      const uint32_t *r, const struct lsd_callbacks *cb, void *arg,
		      const uint32_t **next)
{
	size_t ns = r[0] >> 4, n = r[2], i, k = 0, m;
	const uint32_t *e = r + 3;
	struct lsd_block *o;

	if (buf_room(t, n))
		return -LS_ENOMEM;
	o = t->buf + 1;
	for (i = 0; i < ns; i++) {
		uint32_t tag = *e++, v = tag >> 2;
		struct tdef *d;

		if ((tag & 3) == SP_RUN) {
			m = v;
			if (m > n - k)
				return -LS_EINVAL;
			e = play_run(flat, e, o + k, m);
			k += m;
			continue;
		}
		if (v >= t->nkey)
			return -LS_EINVAL;
		d = &t->def[v];
		if ((tag & 3) == SP_REF || (tag & 3) == SP_PART) {
			m = (tag & 3) == SP_REF ? d->n : *e++;
			if (!d->b || m > d->n || m > n - k)
				return -LS_EINVAL;
			if (m <= LSD_CH_MAX)	/* (o and d->b have room) */
				lsd_fchain_out(o + k, d->b, (unsigned)m);
			else
				memcpy(o + k, d->b, m * sizeof(*o));
			k += m;
			continue;
		}
		m = *e++;
		if (m > n - k)
			return -LS_EINVAL;
		e = play_run(flat, e, o + k, m);
		if (m > d->cap) {
			free(d->b);
			if (!(d->b = malloc((m + 1) * sizeof(*d->b)))) {
				d->n = d->cap = 0;
				return -LS_ENOMEM;
			}
			d->cap = (uint32_t)m;
		}
		memcpy(d->b, o + k, m * sizeof(*o));
		d->n = (uint32_t)m;
		k += m;
	}
	if (k != n)
		return -LS_EINVAL;
	*next = e;
	return cb->blocks(arg, r[1], o, n);
}

int lsd_tape_replay(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg)
{
	const struct seg *s;
	const struct lsd_sblock **flat;
	size_t i, nsb = t->d->sbt.n;
	int err = 0;

	if (!lsd_tape_whole(t))
		return -LS_EINVAL;
	/* The static blocks by id: one load a block in play_blocks(), not
	 * lsd_sb()'s page and index (sqlite3's replay 9 to 3 instructions a
	 * block for it).  Every id on the tape is of a block made before it
	 * was written. */
	flat = malloc((nsb ? nsb : 1) * sizeof(*flat));
	if (!flat)
		return -LS_ENOMEM;
	if (t->nkey && !t->def && !(t->def = calloc(t->nkey, sizeof(*t->def)))) {
		free(flat);
		return -LS_ENOMEM;
	}
	for (i = 0; i < nsb; i++)
		flat[i] = lsd_sb(t->d, i);
	for (s = t->head; s && !err; s = s->next) {
		const uint32_t *r = s->w, *end = s->w + SEG_WORDS;

		while (!err && r < end && *r) {
			unsigned op = *r & 15;
			size_t stream = r[1];

			switch (op) {
			case TP_BLOCKS:
				err = play_blocks(t, flat, r, *r >> 4, cb, arg, &r);
				break;
			case TP_SPANS:
				err = play_spans(t, flat, r, cb, arg, &r);
				break;
			case TP_LOSS: {
				struct lsd_loss l;

				memcpy(&l, r + 2, sizeof(l));
				r += 2 + WORDS(l);
				if (cb->loss)
					err = cb->loss(arg, stream, &l);
				break;
			}
			case TP_BEGIN: {
				struct lsb_stream bs;

				memcpy(&bs, r + 2, sizeof(bs));
				if (cb->stream_begin)
					err = cb->stream_begin(arg, stream, *r >> 4 ? NULL : &bs);
				r += 2 + WORDS(bs);
				break;
			}
			case TP_END: {
				struct lsd_stream_stats st;

				memcpy(&st, r + 2, sizeof(st));
				r += 2 + WORDS(st);
				if (cb->stream_end)
					err = cb->stream_end(arg, stream, &st);
				break;
			}
			case TP_THREAD:
				if (cb->thread)
					err = cb->thread(arg, stream, r[2], r[3]);
				r += 4;
				break;
			default:
				err = -LS_EINVAL;	/* (never written) */
				break;
			}
		}
	}
	free(flat);
	return err;
}

void lsd_tape_free(struct lsd_tape *t)
{
	if (!t)
		return;
	segs_free(t);
	free(t->buf);
	free(t->out);
	free(t->keyn);
	if (t->def)
		for (size_t i = 0; i < t->nkey; i++)
			free(t->def[i].b);
	free(t->def);
	free(t);
}
