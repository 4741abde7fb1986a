/* teecheck.c BUNDLE - lsd_decode_all_tee() (decoder/pipe.c) against
 * lsd_decode_all(), on one bundle.
 *
 * The oracle is lsd_decode_all() with one consumer: a digest of every
 * callback in its order (kind, stream, and for blocks each static
 * block's id with the exit and the next IP; losses' offset and IP;
 * threads' pid and tid; stream ends' counts).  The tee gives two
 * consumers that digest the same way, on 0, 1 and 2 threads (and
 * lsd_decode_all_piped() one), one block by block and one by batches
 * (blocks digest one by one, so the batches' cuts do not count): each
 * must see the oracle's digest.  Then a callback error: either consumer
 * fails at its k-th call, for k at a few places through the decode, and
 * every way must return that error.  Then a consumer of runs (spans)
 * that stops wanting them (want_spans) after k runs, alone and beside a
 * batch consumer (decoder/fan.c): it must see the oracle's digest through
 * spans and blocks together, and where it wants none from the start, no
 * run at all.  Prints one line per check ("ok" or "FAIL"); exits 1 on a
 * failure. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decoder/decode.h"
#include "formats/bundle.h"
#include "ls_err.h"

struct dig {
	uint64_t h, calls, blocks;
	uint64_t fail_at;	/* the call that returns -LS_EEXIST, 0 none */
};

static int fails;

static int mix(struct dig *g, uint64_t v)
{
	g->h = (g->h ^ v) * 0x100000001b3ull;
	return 0;
}

/* One more call: the k-th fails if asked. */
static int counted(struct dig *g)
{
	return ++g->calls == g->fail_at ? -LS_EEXIST : 0;
}

static int call(struct dig *g, uint64_t kind, size_t stream)
{
	mix(g, kind << 32 | stream);
	return counted(g);
}

/* Blocks digest one by one, whatever batches they came in (the pipe
 * cuts its own). */
static void blk(struct dig *g, size_t stream, const struct lsd_block *b)
{
	mix(g, (uint64_t)1 << 32 | stream);
	mix(g, (uint64_t)b->sb->id << 8 | b->exit);
	mix(g, b->next);
	g->blocks++;
}

static int d_blocks(void *a, size_t s, const struct lsd_block *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		blk(a, s, &b[i]);
	return counted(a);
}

static int d_block(void *a, size_t s, const struct lsd_block *b)
{
	blk(a, s, b);
	return counted(a);
}

static int d_loss(void *a, size_t s, const struct lsd_loss *l)
{
	mix(a, l->offset);
	mix(a, l->ip);
	return call(a, 2, s);
}

static int d_begin(void *a, size_t s, const struct lsb_stream *st)
{
	(void)st;
	return call(a, 3, s);
}

static int d_end(void *a, size_t s, const struct lsd_stream_stats *st)
{
	if (st) {
		mix(a, st->insns);
		mix(a, st->blocks);
		mix(a, st->losses);
	}
	return call(a, 4, s);
}

static int d_thread(void *a, size_t s, uint32_t pid, uint32_t tid)
{
	mix(a, (uint64_t)pid << 32 | tid);
	return call(a, 5, s);
}

static const struct lsd_callbacks by_batch = {
	.blocks = d_blocks, .loss = d_loss, .stream_begin = d_begin,
	.stream_end = d_end, .thread = d_thread,
};
static const struct lsd_callbacks by_block = {
	.block = d_block, .loss = d_loss, .stream_begin = d_begin,
	.stream_end = d_end, .thread = d_thread,
};

/* A consumer of runs: wants them until it took `upto` of them (the
 * runs of the spans call that reached it included), then none. */
struct sdig {
	struct dig g;
	uint64_t spans, upto;
};

static int s_spans(void *a, size_t st, const struct lsd_bspan *sp, size_t ns)
{
	struct sdig *x = a;
	size_t i, j;

	for (i = 0; i < ns; i++)
		for (j = 0; j < sp[i].n; j++)
			blk(&x->g, st, &sp[i].b[j]);
	x->spans += ns;
	return counted(&x->g);
}

static int s_want(void *a)
{
	const struct sdig *x = a;

	return x->spans < x->upto;
}

/* (the struct dig first: the digest callbacks take it as their arg) */
static const struct lsd_callbacks by_spans = {
	.blocks = d_blocks, .spans = s_spans, .want_spans = s_want, .loss = d_loss,
	.stream_begin = d_begin, .stream_end = d_end, .thread = d_thread,
};

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		fails++;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_opts o = { .size = sizeof(o) };
	struct dig ref, one, a, b;
	char what[160];
	int th, err, k, side;

	if (argc != 2 || lsb_reader_open(&r, argv[1]) < 0 || lsd_open(&d, r, &o) < 0) {
		fprintf(stderr, "usage: teecheck BUNDLE (a bundle that decodes)\n");
		return 2;
	}
	/* the oracle, block by block (so its blocks hash as the others') */
	memset(&ref, 0, sizeof(ref));
	err = lsd_decode_all(d, &by_block, &ref, NULL);
	printf("decode %d: %" PRIu64 " blocks, %" PRIu64 " calls\n", err, ref.blocks,
	       ref.calls);
	memset(&one, 0, sizeof(one));
	check(lsd_decode_all_piped(d, &by_block, &one, NULL) == err &&
	      one.h == ref.h && one.blocks == ref.blocks, "piped: the same calls");
	for (th = 0; th <= 2; th++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		snprintf(what, sizeof(what), "tee on %d threads: both consumers see "
			 "every block in order", th);
		check(lsd_decode_all_tee(d, &by_block, &a, &by_batch, &b, th, NULL) == err &&
		      a.h == ref.h && a.blocks == ref.blocks &&
		      b.h == ref.h && b.blocks == ref.blocks, what);
	}
	/* runs wanted, then not: the same blocks in the same order, the
	 * chunks after the first that begins unwanted copied to blocks */
	{
		static const uint64_t upto[] = { 0, 1, 1000, UINT64_MAX };
		struct sdig x;
		size_t u;

		for (u = 0; u < sizeof(upto) / sizeof(upto[0]); u++) {
			int e;

			memset(&x, 0, sizeof(x));
			x.upto = upto[u];
			e = lsd_decode_all(d, &by_spans, &x, NULL);
			snprintf(what, sizeof(what), "runs wanted for %" PRIu64 " of them: "
				 "every block in order (%" PRIu64 " runs taken)", upto[u],
				 x.spans);
			check(e == err && x.g.h == ref.h && x.g.blocks == ref.blocks &&
			      (upto[u] || !x.spans), what);
			memset(&x, 0, sizeof(x));
			memset(&b, 0, sizeof(b));
			x.upto = upto[u];
			snprintf(what, sizeof(what), "... beside a batch consumer (tee on 0 "
				 "threads): both see every block in order");
			check(lsd_decode_all_tee(d, &by_spans, &x, &by_batch, &b, 0, NULL) == err &&
			      x.g.h == ref.h && x.g.blocks == ref.blocks && (upto[u] || !x.spans) &&
			      b.h == ref.h && b.blocks == ref.blocks, what);
		}
	}
	/* a callback error anywhere ends every way with it */
	for (side = 0; side < 2; side++)
		for (k = 1; k <= 4; k++) {
			uint64_t at = k == 1 ? 1 : ref.calls * (uint64_t)(k - 1) / 3;

			if (!at)
				continue;
			for (th = 0; th <= 2; th++) {
				memset(&a, 0, sizeof(a));
				memset(&b, 0, sizeof(b));
				(side ? &b : &a)->fail_at = at;
				err = lsd_decode_all_tee(d, &by_block, &a, &by_block, &b,
							 th, NULL);
				snprintf(what, sizeof(what), "the %s consumer fails at "
					 "call %" PRIu64 " of %" PRIu64 " on %d threads: "
					 "that error", side ? "tee's" : "first", at,
					 ref.calls, th);
				check(err == -LS_EEXIST, what);
			}
		}
	lsd_close(d);
	lsb_reader_close(r);
	return fails ? 1 : 0;
}
