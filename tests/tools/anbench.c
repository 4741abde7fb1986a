/* anbench.c - the loop detector's speed, side by side in one process:
 *   decode   the decoder alone (a no-op block callback),
 *   detector the detector alone, one pass, replaying blocks held in
 *            memory (the first -n blocks of the streams, default 8M),
 *   learn    the same blocks through a learning pass (lsa_loops_learn():
 *            the structure alone, its memo of whole iterations),
 *   know     ... and through the pass that knows what it learned (the
 *            second of analyze's two), both in batches of up to 512
 *            blocks of a stream, as the decoder hands them,
 *   both     decode + detector in lsa_loops_analyze()'s two passes (what
 *            `loopscope analyze` does: the loops learned, then profiled).
 * CPU seconds of this thread, best of -r runs.  Prints key/value pairs:
 *   blocks N decode_s S detector_blocks M detector_s S learn_s S know_s S
 *   both_s S decode_blocks_s X detector_blocks_s Y both_blocks_s Z
 *
 *   anbench [-r REPEAT] [-n MAXBLOCKS] FILE.lsc
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/loops.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

struct held {
	struct lsd_block *b;
	uint32_t *stream;
	size_t n, max;
	uint64_t seen;
};

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int nop(void *arg, size_t s, const struct lsd_block *b)
{
	(void)s;
	(void)b;
	((struct held *)arg)->seen++;
	return 0;
}

static int hold(void *arg, size_t s, const struct lsd_block *b)
{
	struct held *h = arg;

	if (h->n < h->max) {
		h->b[h->n] = *b;
		h->stream[h->n++] = (uint32_t)s;
	}
	return 0;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "anbench: %s: %s\n", what, ls_errstr(err));
	exit(2);
}

/* Feeds the held blocks to l in batches of one stream (up to 512), ends
 * its threads; CPU seconds. */
static double feed(struct lsa_loops *l, const struct held *h)
{
	double t0 = cpu();
	size_t i = 0, k;
	int err;

	while (i < h->n) {
		for (k = 1; k < 512 && i + k < h->n && h->stream[i + k] == h->stream[i]; k++)
			;
		if ((err = lsa_loops_callbacks.blocks(l, h->stream[i], &h->b[i], k)) < 0)
			die("detector", err);
		i += k;
	}
	if ((err = lsa_loops_finish(l)) < 0)
		die("detector", err);
	return cpu() - t0;
}

int main(int argc, char **argv)
{
	struct lsd_opts o = { .size = sizeof(o), .iclasses = 1 };
	struct lsa_loops_opts lo = { .size = sizeof(lo) };
	double best[5] = { 1e30, 1e30, 1e30, 1e30, 1e30 };
	struct held h = { 0 };
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym;
	size_t i, ns;
	int c, rep = 1, k, err;

	h.max = 8u << 20;
	while ((c = getopt(argc, argv, "r:n:")) != -1) {
		if (c == 'r')
			rep = atoi(optarg);
		else if (c == 'n')
			h.max = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: anbench [-r REPEAT] [-n MAXBLOCKS] FILE.lsc\n");
		return 2;
	}
	if ((err = lsb_reader_open(&r, argv[optind])) < 0)
		die(argv[optind], err);
	if ((err = lsd_open(&d, r, &o)) < 0)
		die("decoder", err);
	if ((err = lsd_symbols_open(&sym, r, NULL)) < 0)
		die("symbols", err);
	ns = lsb_reader_nstreams(r);
	h.b = malloc(h.max * sizeof(*h.b));
	h.stream = malloc(h.max * sizeof(*h.stream));
	if (!h.b || !h.stream)
		die("memory", -LS_ENOMEM);
	{
		struct lsd_callbacks cb = { .block = hold };

		for (i = 0; i < ns; i++)
			if ((err = lsd_decode_stream(d, i, &cb, &h, NULL)) < 0)
				die("decode", err);
	}
	for (k = 0; k < rep; k++) {
		struct lsd_callbacks cb = { .block = nop };
		struct lsa_know *kn = NULL;
		struct lsp_profile *p;
		struct lsa_loops *l;
		double t0;

		h.seen = 0;
		t0 = cpu();
		for (i = 0; i < ns; i++)
			if ((err = lsd_decode_stream(d, i, &cb, &h, NULL)) < 0)
				die("decode", err);
		t0 = cpu() - t0;
		if (t0 < best[0])
			best[0] = t0;

		if ((err = lsp_new(&p, 0)) < 0 ||
		    (err = lsa_loops_new(&l, d, r, sym, p, 0, &lo)) < 0)
			die("detector", err);
		t0 = cpu();
		for (i = 0; i < h.n; i++)
			if ((err = lsa_loops_block(l, h.stream[i], &h.b[i])) < 0)
				die("detector", err);
		t0 = cpu() - t0;
		if (t0 < best[1])
			best[1] = t0;
		lsa_loops_free(l);
		lsp_free(p);

		/* the two passes apart, over the held blocks */
		if ((err = lsp_new(&p, 0)) < 0 ||
		    (err = lsa_loops_new(&l, d, r, sym, p, 0, &lo)) < 0 ||
		    (err = lsa_loops_learn(l, &kn)) < 0)
			die("detector", err);
		t0 = feed(l, &h);
		if (t0 < best[3])
			best[3] = t0;
		lsa_loops_free(l);
		if ((err = lsa_loops_new(&l, d, r, sym, p, 0, &lo)) < 0)
			die("detector", err);
		lsa_loops_know(l, kn);
		t0 = feed(l, &h);
		if (t0 < best[4])
			best[4] = t0;
		lsa_loops_free(l);
		lsa_know_free(kn);
		lsp_free(p);

		if ((err = lsp_new(&p, 0)) < 0)
			die("profile", err);
		t0 = cpu();
		if ((err = lsa_loops_analyze(d, r, sym, p, &lo, NULL)) < 0)
			die("analyze", err);
		t0 = cpu() - t0;
		if (t0 < best[2])
			best[2] = t0;
		lsp_free(p);
	}
	printf("blocks %" PRIu64 " decode_s %.3f detector_blocks %zu detector_s %.3f"
	       " learn_s %.3f know_s %.3f both_s %.3f decode_blocks_s %.4g"
	       " detector_blocks_s %.4g both_blocks_s %.4g\n", h.seen, best[0], h.n,
	       best[1], best[3], best[4], best[2], h.seen / best[0], h.n / best[1],
	       h.seen / best[2]);
	free(h.b);
	free(h.stream);
	lsd_symbols_close(sym);
	lsd_close(d);
	lsb_reader_close(r);
	return 0;
}
