/* tape.c - one decode's callbacks, recorded and replayed (tape.h).
 *
 * The tape is a list of segments of 32-bit words, each mapped on its own
 * (2 MiB aligned, huge pages asked for), zero where nothing was written:
 * a record that does not fit where the last one ended goes at the start
 * of the next segment, and a zero word tells the replay to go there.
 * A record is its header (op | count << 4), the stream, then:
 *   blocks   one word a block, static block id << 4 | exit; the last
 *            block's next (two words); the number of blocks whose next is
 *            not the following block's start, and for each its index and
 *            next (three words)
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
#include "decoder/tape.h"
#include "formats/bundle.h"
#include "ls_err.h"

enum { TP_BLOCKS = 1, TP_LOSS, TP_BEGIN, TP_END, TP_THREAD };

/* Words of a segment: 8 MiB, four huge pages. */
#define SEG_WORDS ((size_t)2 << 20)
#define SEG_BYTES (SEG_WORDS * sizeof(uint32_t))
#define HUGE_ALIGN ((size_t)2 << 20)
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

struct lsd_tape {
	struct lsd_decoder *d;
	const struct lsd_callbacks *cb;
	void *arg;
	struct seg *head, *tail;
	uint32_t *w, *wend;	/* where the next record goes in tail */
	size_t nseg, maxseg;
	size_t blocks;
	/* raw PT bytes of the streams decoded, and the decoder's count of
	 * those begun when recording began: a decode whose blocks so far,
	 * for the PT read so far, say the tape will not hold them all
	 * drops it at once (xz -6 on 300 KB: 4.8 blocks a PT byte, 59M
	 * blocks) rather than at its bound */
	uint64_t pt_total, pt_base;
	int used;		/* lsd_tape_to() called: a decode recorded */
	int dropped;
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
	for (size_t i = 0; i < lsb_reader_nstreams(d->r); i++) {
		if (d->o.streams && !d->o.streams[i])
			continue;
		for (size_t c = 0; c < lsb_reader_nchunks(d->r, i); c++)
			t->pt_total += lsb_reader_chunk(d->r, i, c)->raw_size;
	}
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
static void drop(struct lsd_tape *t)
{
	t->dropped = 1;
	segs_free(t);
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
	if ((size_t)(t->wend - t->w) < n) {
		uint64_t done = t->d->pt_read - t->pt_base;

		/* a word a block and more: the blocks to come, at the rate
		 * so far, past the bound */
		if ((t->nseg && done &&
		     (double)t->blocks * (double)t->pt_total / (double)done >
		     (double)t->maxseg * SEG_WORDS) || seg_add(t) < 0) {
			drop(t);
			return NULL;
		}
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
}

static void put_blocks(struct lsd_tape *t, size_t stream, const struct lsd_block *b, size_t n)
{
	uint32_t *w = room(t, 4 * n + 8), *e, ne = 0, big = 0;
	uint64_t pn;
	uint8_t bx = 0;
	size_t j;

	if (!w)
		return;
	if (n >= ID_LIMIT || stream > UINT32_MAX) {
		drop(t);
		return;
	}
	w[0] = TP_BLOCKS | (uint32_t)n << 4;
	w[1] = (uint32_t)stream;
	/* One loop writes the words and, where block j - 1's next is not
	 * block j's start, its escape (their place is known: after the
	 * words and the last next); two loops read each block twice.  What
	 * a word cannot hold (an id of 28 bits or more, an exit of more than
	 * four) shows in the union of the ids and of the exits. */
	e = w + 2 + n + 3;
	if (!b[0].sb) {
		drop(t);
		return;
	}
	/* (a block's id is its static block's: every maker of blocks sets
	 * both; pn, the block before's next, starts at the first's start) */
	pn = b[0].sb->start;
	for (j = 0; j < n; j++) {
		const struct lsd_sblock *sb = b[j].sb;

		if (!sb) {
			drop(t);
			return;
		}
		big |= b[j].id;
		bx |= b[j].exit;
		w[2 + j] = b[j].id << 4 | b[j].exit;
		if (pn != sb->start) {
			e[0] = (uint32_t)(j - 1);
			e[1] = (uint32_t)pn;
			e[2] = (uint32_t)(pn >> 32);
			e += 3;
			ne++;
		}
		pn = b[j].next;
	}
	if (big >= ID_LIMIT || bx >= 16) {
		drop(t);
		return;
	}
	w[2 + n] = (uint32_t)b[n - 1].next;
	w[2 + n + 1] = (uint32_t)(b[n - 1].next >> 32);
	w[2 + n + 2] = ne;
	t->w = e;
	t->blocks += n;
}

static int rec_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsd_tape *t = arg;

	if (n)
		put_blocks(t, stream, b, n);
	return t->cb->blocks(t->arg, stream, b, n);
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

/* The blocks of a record at r (n of them) into t->buf, their static
 * blocks from flat (by id), handed to cb.  Returns the callback's return,
 * or -LS_ENOMEM; *next the record after. */
static int play_blocks(struct lsd_tape *t, const struct lsd_sblock *const *flat,
		       const uint32_t *r, size_t n, const struct lsd_callbacks *cb,
		       void *arg, const uint32_t **next)
{
	struct lsd_block *o, *pv;
	const uint32_t *e;
	uint32_t ne, k;
	size_t j;

	if (n > t->capbuf) {
		size_t c = n < 1024 ? 1024 : n;

		free(t->buf);
		if (!(t->buf = malloc((c + 1) * sizeof(*t->buf)))) {
			t->capbuf = 0;
			return -LS_ENOMEM;
		}
		t->capbuf = c;
	}
	/* (each block's next is the start of the one after, but for the
	 * escapes: set as that one is made, through pv, the block before
	 * o[j] at pv[j]; the first's into a slot of its own before the
	 * blocks, t->buf[0]: no test in the loop) */
	pv = t->buf;
	o = t->buf + 1;
	for (j = 0; j < n; j++) {
		uint32_t v = r[2 + j];
		const struct lsd_sblock *sb = flat[v >> 4];

		o[j].sb = sb;
		o[j].exit = (uint8_t)(v & 15);
		o[j].id = v >> 4;
		pv[j].next = sb->start;
	}
	e = r + 2 + n;
	o[n - 1].next = e[0] | (uint64_t)e[1] << 32;
	ne = e[2];
	e += 3;
	for (k = 0; k < ne; k++, e += 3)
		o[e[0]].next = e[1] | (uint64_t)e[2] << 32;
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
	free(t);
}
