/* memocheck.c - the loop detector's iteration memo against its per-block
 * path, on block streams made to be hard for it.
 *
 *   memocheck [-s SEED] [-n MAXBLOCKS] [-e RATE | -x] [-y] [-k [-E] | -L | -S] FILE.lsc
 *
 * Decodes the bundle's streams (up to -n blocks, default 2M), then builds
 * a perturbed stream from them with a seeded generator: windows of the
 * last blocks replayed many times (loops whose iterations repeat, then
 * vary: a block dropped, two swapped, an exit changed to any kind, a call
 * or return made up), blocks moved to a second thread now and then.  The
 * stream goes, in batches of random sizes, to two detectors: one with the
 * memo, one with lsa_loops_opts.reference (every block through the
 * per-block path).  Their profiles must be the same bytes, sorted as
 * every command writes them (lsp_sort(): the loops renumbered in their
 * canonical order; a learning pass whose memo takes iterations may meet
 * two loops' first loop backs in the other order, which numbers them
 * otherwise); the memo must have taken blocks (else the check says
 * nothing).  With -e, the stream is
 * the decoded one with an edit at one block in RATE on average instead
 * (the call memo's case: calls that repeat, then one that does not): a
 * block dropped, doubled (a loop back inside a call), swapped with the
 * next, its exit changed to any kind, or moved to the second thread; the
 * memos must then have taken blocks (either).  With -x, the decoded
 * stream with nested loops made of it now and then, on one thread: the
 * last blocks replayed as an inner loop (a few trips, then left in the
 * middle of one more: an early exit) and that, with up to 8 blocks before
 * it, as an outer loop of a few trips whose inner trip count stays or
 * varies from one outer iteration to the next, each left early the same
 * way (the memo's stops: iterations handed back after a call, inside
 * one, at any block; calls inside, as the stream has them).  With -y the detectors name
 * functions (the bundle's symbols): spans and calls are counted.  With -k
 * each detector makes two passes, as lsa_loops_analyze() does: the first
 * learns the threads' loops, the second knows them from the start (no
 * trie goes stale for a loop found later), and the first pass's own memo
 * (whole iterations, struct lsa_fmemo) must have taken blocks.  The
 * second pass is the memos' (lsa_loops_opts.no_eager: what the pieces of
 * three jobs or more run); with -E it is the eager pass
 * (analysis/loops_eager.c, what analyze runs with one or two jobs), which
 * must then have taken every
 * block of it.  Prints
 * TAP lines and "memo_blocks N of M".  Exit status 0 when both hold.  With MEMOCHECK_KEEP
 * set, a difference leaves both profiles in memo.lsprof and ref.lsprof.
 * With -L (to find where a -k difference begins), the two learning
 * passes alone run side by side, their frames and paths compared at
 * every batch end where the memo is not matching (-S: made to stop at
 * every one, which may hide what it finds); the first difference is
 * printed, exit status 1.  -n then narrows it down (the edits of a
 * shorter stream are the same up to its end).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

struct held {
	struct lsd_block *b;
	size_t n, max;
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static int hold(void *arg, size_t s, const struct lsd_block *b)
{
	struct held *h = arg;

	(void)s;
	if (h->n < h->max)
		h->b[h->n++] = *b;
	return 0;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "memocheck: %s: %s\n", what, ls_errstr(err));
	exit(2);
}

struct out {
	struct lsd_block *b;
	uint8_t *stream;
	size_t n, cap;
};

static void put(struct out *o, const struct lsd_block *b, uint8_t stream)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 1 << 16;
		o->b = realloc(o->b, o->cap * sizeof(*o->b));
		o->stream = realloc(o->stream, o->cap);
		if (!o->b || !o->stream)
			die("memory", -LS_ENOMEM);
	}
	o->b[o->n] = *b;
	o->stream[o->n++] = stream;
}

/* The perturbed stream: see the top of the file. */
static void perturb(const struct held *h, struct out *o)
{
	uint8_t s = 0;
	size_t j;

	for (j = 0; j < h->n; j++) {
		struct lsd_block x = h->b[j];

		if (!rnd(400))
			x.exit = (uint8_t)rnd(LSD_EXIT_MAX);
		put(o, &x, s);
		if (!rnd(40) && o->n > 1) {
			size_t w = 1 + rnd(12), reps = 1 + rnd(40), r, k, from;

			if (w > o->n)
				w = o->n;
			from = o->n - w;
			for (r = 0; r < reps; r++)
				for (k = 0; k < w; k++) {
					struct lsd_block y = o->b[from + k];

					if (!rnd(60))
						continue;	/* dropped */
					if (!rnd(80))
						y = o->b[from + rnd((uint32_t)w)];
					if (!rnd(200))
						y.exit = (uint8_t)rnd(LSD_EXIT_MAX);
					put(o, &y, s);
				}
		}
		if (!rnd(3000))
			s ^= 1;
	}
}

/* The decoded stream with sparse edits (-e): see the top of the file. */
static void edit(const struct held *h, struct out *o, uint32_t rate)
{
	uint8_t s = 0;
	size_t j;

	for (j = 0; j < h->n; j++) {
		struct lsd_block x = h->b[j];

		if (rnd(rate)) {
			put(o, &x, s);
			continue;
		}
		switch (rnd(5)) {
		case 0:
			break;	/* dropped */
		case 1:
			put(o, &x, s);
			put(o, &x, s);
			break;
		case 2:
			if (j + 1 < h->n)
				put(o, &h->b[++j], s);
			put(o, &x, s);
			break;
		case 3:
			x.exit = (uint8_t)rnd(LSD_EXIT_MAX);
			put(o, &x, s);
			break;
		default:
			put(o, &x, s ^ 1);
			break;
		}
	}
}

/* Nested loops left early (-x): see the top of the file. */
static void nests(const struct held *h, struct out *o)
{
	struct lsd_block win[20];
	size_t j, k;

	for (j = 0; j < h->n; j++) {
		size_t p, w, t, outer, r, cut;

		put(o, &h->b[j], 0);
		if (rnd(40) || o->n < 20)
			continue;
		/* the last p + w blocks: p before an inner loop of w */
		p = rnd(9);
		w = 1 + rnd(11);
		for (k = 0; k < p + w; k++)
			win[k] = o->b[o->n - (p + w) + k];
		t = rnd(6);		/* the inner loop's trips after its first */
		outer = rnd(3) ? rnd(6) : 0;	/* the outer loop's, after its first */
		for (r = 0; r <= outer; r++) {
			/* the inner trip count stays, or varies */
			size_t tr = r && !rnd(2) ? rnd(6) : t;

			if (r)		/* back to the outer head: its prefix */
				for (k = 0; k < p + w; k++)
					put(o, &win[k], 0);
			for (; tr; tr--)
				for (k = p; k < p + w; k++)
					put(o, &win[k], 0);
			/* left in the middle of one more iteration */
			cut = rnd((uint32_t)w + 1);
			for (k = p; k < p + cut; k++)
				put(o, &win[k], 0);
		}
	}
}

/* The next batch of o from block i: its length, at most 64 blocks of
 * one stream, drawn from rng (which feed() sets the same for every
 * run). */
static size_t batch_at(const struct out *o, size_t i)
{
	size_t n = 1 + rnd(64), k;

	for (k = 1; k < n && i + k < o->n && o->stream[i + k] == o->stream[i]; k++)
		;
	return k;
}

/* Feeds o to l in batches of random sizes (the same for every run). */
static void feed(struct lsa_loops *l, const struct out *o)
{
	uint64_t save = rng;
	size_t i = 0, k;
	int err;

	rng = 12345;
	for (; i < o->n; i += k) {
		k = batch_at(o, i);
		if ((err = lsa_loops_callbacks.blocks(l, o->stream[i], &o->b[i], k)) < 0)
			die("detector", err);
	}
	if ((err = lsa_loops_finish(l)) < 0)
		die("finish", err);
	rng = save;
}

/* -L: the two learning passes (the memo's, the per-block path's) fed o
 * side by side, batch for batch as feed() cuts it, their frames and
 * paths compared after every batch where the memo is not matching
 * (stop: made to stop there, as at a thread switch, and compared after
 * every batch).  Prints where they first differ, both states; returns 1
 * then, else 0.  (How the learning memo's bugs of 2026-12-02 were
 * found: the first difference, then a trace of that batch.) */
static int lockstep(struct lsd_decoder *d, struct lsb_reader *r, struct lsd_symbols *sym,
		    const struct out *o, int stop, const char *name)
{
	struct lsa_loops_opts om = { .size = sizeof(om) }, orf = om;
	struct lsa_loops *lm, *lr;
	struct lsp_profile *pm, *pr;
	struct lsa_know *km, *kr;
	size_t i = 0, k, same = 0, checks = 0;
	int err, diff = 0;

	orf.reference = 1;
	if ((err = lsp_new(&pm, 0)) < 0 || (err = lsp_new(&pr, 0)) < 0 ||
	    (err = lsa_loops_new(&lm, d, r, sym, pm, 0, &om)) < 0 ||
	    (err = lsa_loops_new(&lr, d, r, sym, pr, 0, &orf)) < 0 ||
	    (err = lsa_loops_learn(lm, &km)) < 0 || (err = lsa_loops_learn(lr, &kr)) < 0)
		die("detector", err);
	rng = 12345;
	for (; i < o->n && !diff; i += k) {
		char *tm, *tr;

		k = batch_at(o, i);
		if ((err = lsa_loops_callbacks.blocks(lm, o->stream[i], &o->b[i], k)) < 0 ||
		    (err = lsa_loops_callbacks.blocks(lr, o->stream[i], &o->b[i], k)) < 0 ||
		    (err = lsa_loops_describe(lm, stop, &tm)) < 0 ||
		    (err = lsa_loops_describe(lr, 0, &tr)) < 0)
			die("detector", err);
		if (!strstr(tm, "matching")) {
			checks++;
			if (strcmp(tm, tr)) {
				printf("not ok 1 - %s: the learning passes' frames and paths differ "
				       "after block %zu (the same after block %zu)\n", name, i + k, same);
				printf("# the memo's:\n%s# the per-block path's:\n%s", tm, tr);
				diff = 1;
			}
			same = i + k;
		}
		free(tm);
		free(tr);
	}
	if (!diff)
		printf("ok 1 - %s: the learning passes' frames and paths agree at %zu batch ends "
		       "(%zu blocks)\n", name, checks, o->n);
	lsa_loops_free(lm);
	lsa_loops_free(lr);
	lsa_know_free(km);
	lsa_know_free(kr);
	lsp_free(pm);
	lsp_free(pr);
	return diff;
}

/* Runs one detector over o; the profile's text in *buf.  know: a first
 * pass learns the threads' loops, which the second knows from the start
 * (as lsa_loops_analyze() runs it), each pass on the same path. */
static void run(struct lsd_decoder *d, struct lsb_reader *r, struct lsd_symbols *sym,
		const struct out *o, int reference, int know, int eager, char **buf,
		size_t *len, struct lsa_loops_stats *st, struct lsa_loops_stats *lst)
{
	struct lsa_loops_opts lo = { .size = sizeof(lo), .reference = reference,
				     .no_eager = !eager };
	struct lsa_know *k = NULL;
	struct lsp_profile *p;
	struct lsa_loops *l;
	FILE *f;
	int err;

	if ((err = lsp_new(&p, 0)) < 0)
		die("profile", err);
	if (know) {
		if ((err = lsa_loops_new(&l, d, r, sym, p, 0, &lo)) < 0 ||
		    (err = lsa_loops_learn(l, &k)) < 0)
			die("detector", err);
		feed(l, o);
		lsa_loops_get_stats(l, lst);
		lsa_loops_free(l);
	}
	if ((err = lsa_loops_new(&l, d, r, sym, p, 0, &lo)) < 0)
		die("detector", err);
	lsa_loops_know(l, k);
	feed(l, o);
	lsa_loops_get_stats(l, st);
	lsa_loops_free(l);
	lsa_know_free(k);
	if ((err = lsp_sort(p)) < 0)
		die("profile", err);
	f = open_memstream(buf, len);
	if (!f || lsp_write_file(p, f, "memocheck", NULL, 0) < 0)
		die("profile", -LS_EIO);
	fclose(f);
	lsp_free(p);
}

int main(int argc, char **argv)
{
	struct lsd_opts o = { .size = sizeof(o), .iclasses = 1 };
	struct lsd_callbacks cb = { .block = hold };
	struct lsa_loops_stats sm, sr, lsm = { 0 }, lsr = { 0 };
	struct held h = { 0 };
	struct out ob = { 0 };
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym = NULL;
	char *pm = NULL, *pr = NULL;
	size_t lm, lr, i;
	uint32_t rate = 0;
	int c, err, bad = 0, names = 0, nest = 0, know = 0, lock = 0, eager = 0;

	rng = 1;
	h.max = 2u << 20;
	while ((c = getopt(argc, argv, "s:n:e:xykELS")) != -1) {
		if (c == 's')
			rng = strtoull(optarg, NULL, 0) * 2654435761u + 1;
		else if (c == 'n')
			h.max = strtoull(optarg, NULL, 0);
		else if (c == 'e')
			rate = (uint32_t)strtoul(optarg, NULL, 0);
		else if (c == 'y')
			names = 1;
		else if (c == 'x')
			nest = 1;
		else if (c == 'k')
			know = 1;
		else if (c == 'E')
			eager = 1;
		else if (c == 'L' || c == 'S')
			lock = c == 'S' || lock == 2 ? 2 : 1;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: memocheck [-s SEED] [-n MAXBLOCKS] [-e RATE | -x] [-y] [-k [-E] | -L | -S] "
			"FILE.lsc\n");
		return 2;
	}
	if ((err = lsb_reader_open(&r, argv[optind])) < 0)
		die(argv[optind], err);
	if ((err = lsd_open(&d, r, &o)) < 0)
		die("decoder", err);
	h.b = malloc(h.max * sizeof(*h.b));
	if (!h.b)
		die("memory", -LS_ENOMEM);
	for (i = 0; i < lsb_reader_nstreams(r); i++)
		if ((err = lsd_decode_stream(d, i, &cb, &h, NULL)) < 0)
			die("decode", err);
	if (names && lsd_symbols_open(&sym, r, NULL) < 0)
		sym = NULL;
	if (nest)
		nests(&h, &ob);
	else if (rate)
		edit(&h, &ob, rate);
	else
		perturb(&h, &ob);
	if (lock) {
		bad = lockstep(d, r, sym, &ob, lock == 2, argv[optind]);
		goto out;
	}
	run(d, r, sym, &ob, 0, know, eager, &pm, &lm, &sm, &lsm);
	run(d, r, sym, &ob, 1, know, 0, &pr, &lr, &sr, &lsr);
	if (lm == lr && !memcmp(pm, pr, lm)) {
		printf("ok 1 - %s: the memo's profile equals the per-block path's (%zu blocks)\n",
		       argv[optind], ob.n);
	} else {
		printf("not ok 1 - %s: the memo's profile differs from the per-block path's\n",
		       argv[optind]);
		for (i = 0; i < lm && i < lr && pm[i] == pr[i]; i++)
			;
		printf("#   first difference at byte %zu\n", i);
		if (getenv("MEMOCHECK_KEEP")) {
			FILE *f = fopen("memo.lsprof", "w");

			if (f) {
				fwrite(pm, 1, lm, f);
				fclose(f);
			}
			if ((f = fopen("ref.lsprof", "w"))) {
				fwrite(pr, 1, lr, f);
				fclose(f);
			}
		}
		bad = 1;
	}
	if (eager && know) {
		if (sm.eager_blocks == sm.blocks && !sr.eager_blocks)
			printf("ok 2 - %s: the eager pass took all %" PRIu64 " blocks\n",
			       argv[optind], sm.blocks);
		else {
			printf("not ok 2 - %s: the eager pass took %" PRIu64 " of %" PRIu64
			       " blocks, the reference's %" PRIu64 "\n", argv[optind],
			       sm.eager_blocks, sm.blocks, sr.eager_blocks);
			bad = 1;
		}
	} else if ((rate ? sm.memo_blocks + sm.cmemo_blocks : sm.memo_blocks) &&
	    !sr.memo_blocks && !sr.cmemo_blocks && sm.blocks == sr.blocks) {
		printf("ok 2 - %s: the memo took blocks\n", argv[optind]);
	} else {
		printf("not ok 2 - %s: the memo took %" PRIu64 " blocks, the reference %" PRIu64
		       " (of %" PRIu64 " and %" PRIu64 ")\n", argv[optind], sm.memo_blocks,
		       sr.memo_blocks, sm.blocks, sr.blocks);
		bad = 1;
	}
	if (know && (sm.know_new || sr.know_new)) {
		printf("not ok 3 - %s: the second passes met %" PRIu64 " and %" PRIu64
		       " facts their first did not learn\n", argv[optind], sm.know_new,
		       sr.know_new);
		bad = 1;
	} else if (know) {
		printf("ok 3 - %s: the second passes knew every loop and body block\n",
		       argv[optind]);
	}
	/* (the learning pass's memo: whole iterations, any loop) */
	if (know && lsm.learn_memo_blocks && !lsr.learn_memo_blocks) {
		printf("ok 4 - %s: the learning pass's memo took %" PRIu64 " blocks in %" PRIu64
		       " iterations\n", argv[optind], lsm.learn_memo_blocks, lsm.learn_memo_iters);
	} else if (know) {
		printf("not ok 4 - %s: the learning passes' memos took %" PRIu64 " and %" PRIu64
		       " blocks\n", argv[optind], lsm.learn_memo_blocks, lsr.learn_memo_blocks);
		bad = 1;
	}
	printf("# memo_blocks %" PRIu64 " of %" PRIu64 ", cmemo_blocks %" PRIu64 " in %"
	       PRIu64 " calls, memo_flat %" PRIu64 "\n", sm.memo_blocks, sm.blocks,
	       sm.cmemo_blocks, sm.cmemo_calls, sm.memo_flat);
out:
	free(pm);
	free(pr);
	free(ob.b);
	free(ob.stream);
	free(h.b);
	lsd_symbols_close(sym);
	lsd_close(d);
	lsb_reader_close(r);
	return bad;
}
