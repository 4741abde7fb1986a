/* tapecheck.c - a tape's replay against the decode it recorded, block by
 * block (decoder/tape.c), for t0222.
 *
 *   tapecheck [-c] FILE.lsc [MAX_BYTES]
 *
 * Decodes the bundle once through a tape of at most MAX_BYTES (default
 * the analysis's bound), replays the tape, and decodes the bundle a
 * second time without one.  Each of the three streams of calls is folded
 * into a hash of every field the callbacks get (each block's static
 * block, id, exit and next; each loss, stream begin and end, thread) in
 * order, with its count of blocks and of calls (the hash does not see
 * where a call ends: a second decode may batch its blocks otherwise, a
 * replay must not).  Prints
 *   decoded B calls C hash H
 *   replayed B calls C hash H    (or "replayed none": the tape dropped
 *                                 the decode, or there was none: the
 *                                 reference path, LOOPSCOPE_TAPE_MAX=0)
 *   again B calls C hash H
 *   tape_words W tape_refs R pt_bytes P
 * where R counts the decoder's runs the tape named rather than wrote
 * out (lsd_tape_refs()) and P the bundle's PT bytes.  With -c the tape
 * is recorded chunk by chunk (lsd_tape_chunked()), and each stream's
 * chunks are replayed alone (lsd_tape_replay_chunks()), one at a time,
 * then two at a time, then all of them: each time their blocks and
 * losses, in order, must be the whole replay's (folded without the
 * streams' begins, ends and threads), and each chunk's blocks the
 * decoder's count (lsd_chunk_starts()).  Prints
 *   chunks N ones B calls C hash H pairs B calls C hash H all B ...
 *   whole B calls C hash H
 * or "chunks none" where a stream's chunks do not replay alone.  Exits 1
 * where a replay or second decode differs from the first, 2 on errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "decoder/tape.h"
#include "formats/bundle.h"
#include "ls_err.h"

struct fold {
	uint64_t h, blocks, calls;
};

static void mix(struct fold *f, uint64_t v)
{
	f->h = (f->h ^ v) * 0x100000001b3ull;
	f->h ^= f->h >> 29;
}

static int f_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct fold *f = arg;
	size_t i;

	f->calls++;
	for (i = 0; i < n; i++) {
		mix(f, stream);
		mix(f, (uintptr_t)b[i].sb);
		mix(f, (uint64_t)b[i].id << 8 | b[i].exit);
		mix(f, b[i].next);
	}
	f->blocks += n;
	return 0;
}

static int f_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct fold *f = arg;

	f->calls++;
	mix(f, stream ^ 0x10000);
	mix(f, l->offset);
	mix(f, l->bytes);
	mix(f, l->insns);
	return 0;
}

static int f_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct fold *f = arg;

	f->calls++;
	mix(f, stream ^ 0x20000);
	mix(f, s ? s->id : UINT64_MAX);
	return 0;
}

static int f_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct fold *f = arg;

	f->calls++;
	mix(f, stream ^ 0x30000);
	mix(f, st->blocks);
	mix(f, st->insns);
	return 0;
}

static int f_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct fold *f = arg;

	f->calls++;
	mix(f, stream ^ 0x40000);
	mix(f, (uint64_t)pid << 32 | tid);
	return 0;
}

static const struct lsd_callbacks fold_cb = {
	.blocks = f_blocks,
	.loss = f_loss,
	.stream_begin = f_begin,
	.stream_end = f_end,
	.thread = f_thread,
};

/* Blocks and losses alone: what a chunk's replay makes. */
static const struct lsd_callbacks fold_bl = {
	.blocks = f_blocks,
	.loss = f_loss,
};

/* Counts the blocks of one replay of chunks. */
struct cnt {
	struct fold *f;
	uint64_t n;
};

static int c_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct cnt *c = arg;

	c->n += n;
	return f_blocks(c->f, stream, b, n);
}

static int c_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct cnt *c = arg;

	return f_loss(c->f, stream, l);
}

static const struct lsd_callbacks cnt_cb = {
	.blocks = c_blocks,
	.loss = c_loss,
};

/* Every stream's chunks replayed k at a time (k 0: all at once) into f.
 * Returns 0, 1 where a replay's blocks are not the decoder's count, or
 * 2 on errors; -1 where the chunks do not replay alone. */
static int by_chunks(struct lsb_reader *r, struct lsd_decoder *d, struct lsd_tape *tape,
		     struct lsd_tape_player *pl, size_t k, struct fold *f)
{
	size_t i, c, nc;
	int err;

	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const uint64_t *v;

		nc = lsb_reader_nchunks(r, i);
		if (!nc)
			continue;
		if (lsd_chunk_starts(d, i, &v) != nc + 1 || !lsd_tape_has_chunks(tape, i, 0, nc - 1))
			return -1;
		for (c = 0; c < nc; c += k ? k : nc) {
			size_t last = k && c + k - 1 < nc - 1 ? c + k - 1 : nc - 1;
			struct cnt cn = { f, 0 };

			if ((err = lsd_tape_replay_chunks(pl, i, c, last, &cnt_cb, &cn)) < 0) {
				fprintf(stderr, "tapecheck: chunks %zu-%zu of stream %zu: %s\n", c,
					last, i, ls_errstr(err));
				return 2;
			}
			if (cn.n != v[last + 1] - v[c]) {
				fprintf(stderr, "tapecheck: chunks %zu-%zu of stream %zu: %" PRIu64
					" blocks, the decoder counted %" PRIu64 "\n", c, last, i, cn.n,
					v[last + 1] - v[c]);
				return 1;
			}
		}
	}
	return 0;
}

static void show(const char *what, const struct fold *f)
{
	printf("%s %" PRIu64 " calls %" PRIu64 " hash %016" PRIx64 "\n", what, f->blocks,
	       f->calls, f->h);
}

/* The same calls (calls: in the same batches too). */
static int same(const struct fold *a, const struct fold *b, int calls)
{
	return a->h == b->h && a->blocks == b->blocks && (!calls || a->calls == b->calls);
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d = NULL;
	struct lsd_tape *tape = NULL;
	struct lsd_opts o;
	struct fold f1 = { 0, 0, 0 }, f2 = { 0, 0, 0 }, f3 = { 0, 0, 0 };
	struct lsd_stream_stats *st;
	int chunked = argc > 1 && !strcmp(argv[1], "-c");
	size_t max;
	uint64_t pt = 0;
	int err, bad = 0;

	argc -= chunked;
	argv += chunked;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: tapecheck [-c] FILE.lsc [MAX_BYTES]\n");
		return 2;
	}
	max = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : LSD_TAPE_MAX;
	if (lsb_reader_open(&r, argv[1]) < 0) {
		fprintf(stderr, "tapecheck: %s\n", r ? lsb_reader_errmsg(r) : argv[1]);
		lsb_reader_close(r);
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	if ((err = lsd_open(&d, r, &o)) < 0 || (err = lsd_tape_new(&tape, d, max)) < 0) {
		fprintf(stderr, "tapecheck: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	/* (one entry a stream) */
	if (!(st = calloc(lsb_reader_nstreams(r) + 1, sizeof(*st)))) {
		fprintf(stderr, "tapecheck: out of memory\n");
		return 2;
	}
	/* (no tape: LOOPSCOPE_TAPE_MAX=0, or the reference path) */
	if (tape && chunked)
		lsd_tape_chunked(tape);
	if (tape)
		lsd_tape_to(tape, &fold_cb, &f1);
	if ((err = tape ? lsd_decode_all(d, &lsd_tape_callbacks, tape, st) :
			  lsd_decode_all(d, &fold_cb, &f1, st)) < 0) {
		fprintf(stderr, "tapecheck: decode: %s\n", ls_errstr(err));
		return 2;
	}
	show("decoded", &f1);
	if (lsd_tape_whole(tape)) {
		if ((err = lsd_tape_replay(tape, &fold_cb, &f2)) < 0) {
			fprintf(stderr, "tapecheck: replay: %s\n", ls_errstr(err));
			return 2;
		}
		show("replayed", &f2);
		bad |= !same(&f1, &f2, 1);
	} else {
		chunked = 0;
		printf("replayed none\n");
	}
	if ((err = lsd_decode_all(d, &fold_cb, &f3, st)) < 0) {
		fprintf(stderr, "tapecheck: second decode: %s\n", ls_errstr(err));
		return 2;
	}
	show("again", &f3);
	bad |= !same(&f1, &f3, 0);
	if (chunked) {
		struct fold whole = { 0, 0, 0 }, fk[3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
		struct lsd_tape_player *pl = NULL;
		static const size_t ks[3] = { 1, 2, 0 };
		int rc = 0;

		if ((err = lsd_tape_replay(tape, &fold_bl, &whole)) < 0 ||
		    (err = lsd_tape_player_new(&pl, tape)) < 0) {
			fprintf(stderr, "tapecheck: %s\n", ls_errstr(err));
			return 2;
		}
		for (int j = 0; j < 3 && !rc; j++)
			rc = by_chunks(r, d, tape, pl, ks[j], &fk[j]);
		lsd_tape_player_free(pl);
		if (rc == 2)
			return 2;
		if (rc < 0) {
			printf("chunks none\n");
		} else {
			printf("chunks ones %" PRIu64 " calls %" PRIu64 " hash %016" PRIx64
			       " pairs %" PRIu64 " calls %" PRIu64 " hash %016" PRIx64
			       " all %" PRIu64 " calls %" PRIu64 " hash %016" PRIx64 "\n",
			       fk[0].blocks, fk[0].calls, fk[0].h, fk[1].blocks, fk[1].calls,
			       fk[1].h, fk[2].blocks, fk[2].calls, fk[2].h);
			show("whole", &whole);
			bad |= rc || !same(&whole, &fk[0], 1) || !same(&whole, &fk[1], 1) ||
			       !same(&whole, &fk[2], 1);
		}
	}
	for (size_t i = 0; i < lsb_reader_nstreams(r); i++)
		for (size_t c = 0; c < lsb_reader_nchunks(r, i); c++)
			pt += lsb_reader_chunk(r, i, c)->raw_size;
	printf("tape_words %zu tape_refs %zu pt_bytes %" PRIu64 "\n", lsd_tape_words(tape),
	       lsd_tape_refs(tape), pt);
	free(st);
	lsd_tape_free(tape);
	lsd_close(d);
	lsb_reader_close(r);
	return bad;
}
