/* twincheck.c BUNDLE - chunks decoded by a twin decoder (decoder/twin.c,
 * lsd_decode_chunks()) against the whole decode, on one bundle.
 *
 * The oracle is lsd_decode_all() on the first decoder: every block of
 * each stream decoded alone (its static block, exit and next IP) kept in
 * order.  Then, for each such stream:
 *   - lsd_chunk_starts() is whole: an entry for each chunk and the end,
 *     the first 0, the last the stream's blocks, none decreasing;
 *   - a twin decodes every chunk on its own, every two chunks, and the
 *     stream in three parts; each range's blocks, named by
 *     lsd_sbmap_find() in the first decoder's static blocks, must be the
 *     oracle's from (*v)[first] to (*v)[last + 1], block for block;
 *   - a twin that shares the first decoder's static blocks
 *     (lsd_twin_share(), the share taken after the whole decode) must
 *     hand out the oracle's blocks as they are, the same static block
 *     records (pointer and id), on the same ranges;
 *   - the twin reads from the bundle only the chunks the first decoder
 *     did not keep from its open's scan (lsd_chunk_reads()): the others
 *     it takes where the first keeps them;
 *   - a twin given a share taken before the first decoder decoded
 *     anything (no static block in it) stops at its first block with
 *     -LS_EUNSUP and hands out none: it makes no block of its own.
 * Prints one line per check ("ok" or "FAIL"); exits 1 on a failure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "formats/bundle.h"
#include "ls_err.h"

struct rec {
	const struct lsd_sblock *sb;
	uint64_t next;
	uint8_t exit;
};

struct seq {
	struct rec *r;
	size_t n, cap;
	size_t stream;
	/* checking: the oracle, where the range starts, the map */
	const struct seq *want;
	size_t at, end;
	const struct lsd_sbmap *map;	/* NULL: a sharing twin's, as they are */
	int bad;
	size_t got;
};

static int fails;
/* The chunks of each stream the first decoder kept from its open's scan
 * (a prefix: the decode's count of them), and the chunks the twin's
 * ranges took that are not among them: those it must read itself. */
static size_t kept_n, unkept, nchunks;

static void check(int ok, const char *what, size_t s, size_t a, size_t b)
{
	printf("%s stream %zu chunks %zu-%zu: %s\n", ok ? "ok" : "FAIL", s, a, b, what);
	fails += !ok;
}

static int put(struct seq *q, const struct lsd_block *b)
{
	q->got++;
	if (q->want) {		/* a twin's: compare, in the first's terms */
		const struct lsd_sblock *sb = q->map ? lsd_sbmap_find(q->map, b->sb) : b->sb;
		const struct rec *w;

		if (q->at >= q->end) {
			q->bad = 1;
			return 0;
		}
		w = &q->want->r[q->at++];
		if (sb != w->sb || b->next != w->next || b->exit != w->exit ||
		    (!q->map && b->id != w->sb->id))
			q->bad = 1;
		return 0;
	}
	if (q->n == q->cap) {
		void *p = realloc(q->r, (q->cap = q->cap ? 2 * q->cap : 4096) * sizeof(*q->r));

		if (!p)
			return -LS_ENOMEM;
		q->r = p;
	}
	q->r[q->n++] = (struct rec){ b->sb, b->next, b->exit };
	return 0;
}

static int c_blocks(void *a, size_t s, const struct lsd_block *b, size_t n)
{
	struct seq *q = a;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		if (s == q->stream)
			err = put(q, &b[i]);
	return err;
}

static int c_block(void *a, size_t s, const struct lsd_block *b)
{
	return c_blocks(a, s, b, 1);
}

static int c_loss(void *a, size_t s, const struct lsd_loss *l)
{
	(void)a, (void)s, (void)l;
	return 0;
}

static const struct lsd_callbacks cbs = {
	.block = c_block,
	.blocks = c_blocks,
	.loss = c_loss,
};

/* The twin's blocks of chunks [a, b] of stream s against the oracle's. */
static void range(struct lsd_decoder *tw, const struct seq *want, const uint64_t *v,
		  const struct lsd_sbmap *map, size_t s, size_t a, size_t b)
{
	struct seq q = { .stream = s, .want = want, .at = v[a], .end = v[b + 1], .map = map };
	int err = lsd_decode_chunks(tw, s, a, b, &cbs, &q, NULL);
	size_t c;

	/* (and chunk b + 1, where there is one: a chunk's decode stops at
	 * the IP the next chunk's PSB+ gives, decode_run.c) */
	for (c = a; c <= b + 1 && c < nchunks; c++)
		unkept += c >= kept_n;

	check(!err && !q.bad && q.at == q.end,
	      map ? "the twin's blocks are the whole decode's" :
		    "the sharing twin's blocks are the whole decode's, the same records", s, a, b);
}

/* The ranges of stream s (nc chunks) that range() checks. */
static void ranges(struct lsd_decoder *tw, const struct seq *want, const uint64_t *v,
		   const struct lsd_sbmap *map, size_t s, size_t nc)
{
	size_t c;

	for (c = 0; c < nc; c++)
		range(tw, want, v, map, s, c, c);
	for (c = 0; c + 1 < nc; c += 2)
		range(tw, want, v, map, s, c, c + 1);
	if (nc >= 3) {
		range(tw, want, v, map, s, 0, nc / 3 - 1);
		range(tw, want, v, map, s, nc / 3, 2 * nc / 3 - 1);
		range(tw, want, v, map, s, 2 * nc / 3, nc - 1);
	}
}

/* A twin of d sharing s (NULL on failure, said). */
static struct lsd_decoder *sharing(struct lsd_decoder *d, const struct lsd_sbshare *sh)
{
	struct lsd_decoder *tw;
	int err;

	if ((err = lsd_open_twin(&tw, d)))
		return NULL;
	err = lsd_twin_share(tw, sh);
	check(!err, "a twin takes the share", 0, 0, 0);
	if (err) {
		lsd_close(tw);
		return NULL;
	}
	return tw;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r;
	struct lsd_decoder *d, *tw;
	struct lsd_sbmap *map;
	struct lsd_sbshare *early = NULL, *sh;
	size_t s;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: twincheck BUNDLE\n");
		return 2;
	}
	if ((err = lsb_reader_open(&r, argv[1])) || (err = lsd_open(&d, r, NULL))) {
		fprintf(stderr, "twincheck: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	/* (no static block yet: a share of none) */
	if (!lsd_nsblocks(d) && (err = lsd_sbshare_new(&early, d))) {
		fprintf(stderr, "twincheck: %s: share: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	for (s = 0; s < lsb_reader_nstreams(r); s++) {
		size_t nc = lsb_reader_nchunks(r, s), n, c;
		struct seq want = { .stream = s };
		struct lsd_stream_stats st;
		const uint64_t *v;
		int mono = 1;

		if (lsd_stream_alone(d, s) <= 0)
			continue;
		memset(&st, 0, sizeof(st));
		if ((err = lsd_decode_stream(d, s, &cbs, &want, &st))) {
			fprintf(stderr, "twincheck: %s: stream %zu: %s\n", argv[1], s,
				ls_errstr(err));
			return 2;
		}
		n = lsd_chunk_starts(d, s, &v);
		check(n == nc + 1, "an entry for each chunk and the end", s, 0, nc - 1);
		if (n != nc + 1)
			continue;
		for (c = 0; c < nc; c++)
			mono &= v[c] <= v[c + 1];
		check(!v[0] && v[nc] == want.n && mono,
		      "from 0 to the stream's blocks, none decreasing", s, 0, nc - 1);
		if ((err = lsd_open_twin(&tw, d)) || (err = lsd_sbmap_new(&map, d))) {
			fprintf(stderr, "twincheck: %s: twin: %s\n", argv[1], ls_errstr(err));
			return 2;
		}
		kept_n = (size_t)st.kept;
		unkept = 0;
		nchunks = nc;
		ranges(tw, &want, v, map, s, nc);
		/* (the chunks' starts are the oracle's: read by the twin, they
		 * would be decoded whole again) */
		check(lsd_chunk_reads(tw) == unkept,
		      "the twin read only the chunks its first decoder did not keep", s, 0, nc - 1);
		lsd_sbmap_free(map);
		lsd_close(tw);
		if ((err = lsd_sbshare_new(&sh, d))) {
			fprintf(stderr, "twincheck: %s: share: %s\n", argv[1], ls_errstr(err));
			return 2;
		}
		if ((tw = sharing(d, sh)) != NULL) {
			ranges(tw, &want, v, NULL, s, nc);
			lsd_close(tw);
		}
		lsd_sbshare_free(sh);
		/* the share of none: the first chunk with blocks stops at once */
		for (c = 0; early && c < nc && v[c] == v[c + 1]; c++)
			;
		if (early && c < nc && (tw = sharing(d, early)) != NULL) {
			struct seq q = { .stream = s };

			err = lsd_decode_chunks(tw, s, c, c, &cbs, &q, NULL);
			check(err == -LS_EUNSUP && !q.got,
			      "a twin sharing no block stops at once (-LS_EUNSUP)", s, c, c);
			lsd_close(tw);
		}
		free(want.r);
	}
	lsd_sbshare_free(early);
	lsd_close(d);
	lsb_reader_close(r);
	printf("%s\n", fails ? "FAIL" : "all ok");
	return fails ? 1 : 0;
}
