/* cpubench.c - what following per-CPU streams costs, side by side:
 *   cpubench [-r REPEAT] FILE.lsc
 * opens a decoder (lsd_open: image, heads) and decodes every stream with
 * lsd_decode_all() to a no-op batch callback, each REPEAT times (default
 * 3), a new decoder each time; prints the best CPU seconds of this thread:
 *   open_s S decode_s S blocks N insns N switches N
 * bench/percpu.sh runs it on a per-thread bundle and on the same threads
 * spread over CPUs by tests/tools/lsb_percpu.c. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "decoder/decode.h"
#include "formats/bundle.h"
#include "ls_err.h"

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int nop(void *arg, size_t s, const struct lsd_block *b, size_t n)
{
	(void)arg, (void)s, (void)b, (void)n;
	return 0;
}

int main(int argc, char **argv)
{
	struct lsd_callbacks cb = { .blocks = nop };
	struct lsd_opts o = { .size = sizeof(o) };
	double best_open = 1e9, best_dec = 1e9;
	uint64_t blocks = 0, insns = 0, sw = 0;
	int rep = 3, c, k;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c != 'r' || (rep = atoi(optarg)) < 1) {
			fprintf(stderr, "usage: cpubench [-r REPEAT] FILE.lsc\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: cpubench [-r REPEAT] FILE.lsc\n");
		return 2;
	}
	for (k = 0; k < rep; k++) {
		struct lsb_reader *r = NULL;
		struct lsd_decoder *d = NULL;
		struct lsd_stream_stats *st;
		double t0, t1, t2;
		size_t i, n;
		int err;

		if ((err = lsb_reader_open(&r, argv[optind])) < 0) {
			fprintf(stderr, "cpubench: %s: %s\n", argv[optind], ls_errstr(err));
			return 1;
		}
		n = lsb_reader_nstreams(r);
		st = calloc(n + 1, sizeof(*st));
		t0 = cpu();
		err = lsd_open(&d, r, &o);
		t1 = cpu();
		if (!st || err < 0 || lsd_decode_all(d, &cb, NULL, st) < 0) {
			fprintf(stderr, "cpubench: %s: cannot decode\n", argv[optind]);
			return 1;
		}
		t2 = cpu();
		best_open = t1 - t0 < best_open ? t1 - t0 : best_open;
		best_dec = t2 - t1 < best_dec ? t2 - t1 : best_dec;
		blocks = insns = sw = 0;
		for (i = 0; i < n; i++) {
			blocks += st[i].blocks;
			insns += st[i].insns;
			sw += st[i].switches;
		}
		free(st);
		lsd_close(d);
		lsb_reader_close(r);
	}
	printf("open_s %.4f decode_s %.4f blocks %" PRIu64 " insns %" PRIu64
	       " switches %" PRIu64 "\n", best_open, best_dec, blocks, insns, sw);
	return 0;
}
