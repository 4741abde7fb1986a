/* spine.c - how much of one thread's block stream a chunk-parallel loop
 * detector would still have to run in order (doc/performance.md, "Where
 * the detector's time goes").
 *
 *   spine FILE.lsc N...
 *
 * Cut each stream's blocks into N pieces of equal block counts.  A piece
 * other than the first starts inside frames it does not know: a worker can
 * run every call that the piece makes and returns from on its own (the
 * call's effect on its caller is a summary: instructions, classes, the
 * top-level loops it entered), but the blocks of the frames that were open
 * at the piece's start, or of their callers once it returns below them,
 * meet paths begun before the piece, and must be replayed in order on the
 * true state when the pieces are joined.  Those are the "spine": a block
 * is on it when the call depth at the block is the least the piece has
 * reached so far (depth from the blocks' call and return exits).  Prints
 * per stream and N: blocks, spine blocks and their share, calls made from
 * spine blocks (summaries to apply in order), and the bound on the speed-up
 * if the spine cost what a block costs now and the rest split evenly:
 * 1 / (spine share + 1 / N).  Exits 2 on errors, and when no stream
 * decoded a block (a bundle truncated before its PT).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "formats/bundle.h"
#include "ls_err.h"

#define MAXN 16

struct ctx {
	int pass;
	uint64_t *blocks;	/* pass 1: per stream */
	size_t nstreams;
	int ns[MAXN];		/* the piece counts asked */
	int nn;
	/* pass 2, per N: where the stream is */
	uint64_t seen;
	int64_t depth[MAXN], min[MAXN];
	uint64_t spine[MAXN], calls[MAXN];
	int piece[MAXN];
};

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct ctx *c = arg;
	int i;

	if (stream >= c->nstreams)
		return -LS_EINVAL;
	if (c->pass == 1) {
		c->blocks[stream]++;
		return 0;
	}
	for (i = 0; i < c->nn; i++) {
		uint64_t total = c->blocks[stream];
		int p = (int)(c->seen * (uint64_t)c->ns[i] / (total ? total : 1));

		if (p != c->piece[i]) {	/* a new piece: its start is unknown */
			c->piece[i] = p;
			c->min[i] = c->depth[i];
		}
		if (p > 0) {
			if (c->depth[i] < c->min[i])
				c->min[i] = c->depth[i];
			if (c->depth[i] == c->min[i]) {
				c->spine[i]++;
				if (b->exit == LSD_EXIT_CALL || b->exit == LSD_EXIT_ICALL)
					c->calls[i]++;
			}
		}
		if (b->exit == LSD_EXIT_CALL || b->exit == LSD_EXIT_ICALL)
			c->depth[i]++;
		else if (b->exit == LSD_EXIT_RET)
			c->depth[i]--;
	}
	c->seen++;
	return 0;
}

static int on_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	struct ctx *c = arg;
	int i;

	(void)stream;
	(void)s;
	c->seen = 0;
	for (i = 0; i < c->nn; i++) {
		c->depth[i] = c->min[i] = 0;
		c->spine[i] = c->calls[i] = 0;
		c->piece[i] = 0;
	}
	return 0;
}

static int on_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct ctx *c = arg;
	int i;

	(void)st;
	if (c->pass == 1 || !c->blocks[stream])
		return 0;
	for (i = 0; i < c->nn; i++) {
		double share = (double)c->spine[i] / (double)c->blocks[stream];

		printf("stream %zu N %d blocks %" PRIu64 " spine %" PRIu64
		       " (%.1f%%) spine-calls %" PRIu64 " bound %.2f\n",
		       stream, c->ns[i], c->blocks[stream], c->spine[i], 100 * share,
		       c->calls[i], 1 / (share + 1.0 / c->ns[i]));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d = NULL;
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsd_callbacks cb = { .block = on_block, .stream_begin = on_begin,
				    .stream_end = on_end };
	struct ctx c;
	int i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: spine FILE.lsc N...\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	for (i = 2; i < argc && c.nn < MAXN; i++) {
		c.ns[c.nn] = atoi(argv[i]);
		if (c.ns[c.nn] < 1) {
			fprintf(stderr, "spine: %s: not a piece count\n", argv[i]);
			return 2;
		}
		c.nn++;
	}
	if ((err = lsb_reader_open(&r, argv[1])) < 0 || (err = lsd_open(&d, r, &o)) < 0) {
		fprintf(stderr, "spine: %s: %s\n", argv[1], ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	c.nstreams = lsb_reader_nstreams(r);
	c.blocks = calloc(c.nstreams ? c.nstreams : 1, sizeof(*c.blocks));
	err = c.blocks ? 0 : -LS_ENOMEM;
	for (c.pass = 1; c.pass <= 2 && err >= 0; c.pass++)
		err = lsd_decode_all(d, &cb, &c, NULL);
	if (err < 0)
		fprintf(stderr, "spine: %s: %s\n", argv[1], ls_errstr(err));
	for (i = 0; err >= 0 && (size_t)i < c.nstreams && !c.blocks[i]; i++)
		;
	if (err >= 0 && (size_t)i == c.nstreams) {
		/* a truncated bundle, say: nothing to measure is no figure */
		fprintf(stderr, "spine: %s: no blocks decoded\n", argv[1]);
		err = -LS_ENOENT;
	}
	free(c.blocks);
	lsd_close(d);
	lsb_reader_close(r);
	return err < 0 ? 2 : 0;
}
