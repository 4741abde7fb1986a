/* ptbench.c - the cost of our decoder beside libipt's block decoder alone,
 * in one process, on the same streams with the same image.
 *
 *   ptbench [-r REPEAT] FILE.lsc
 *   ptbench -i FILE.lsc
 *
 * -i: libipt's block decoder alone, once, its counts printed (pt_bytes,
 * insns, blocks, ipt_s): for an instruction count of libipt's side
 * (callgrind), without our decodes beside it.
 *
 * libipt alone: the image of decoder/image.h built (libipt cannot decode
 * without it; our open builds the same), then pt_blk over each whole
 * stream (end_on_call, end_on_jump, as decoder/decode.c configures it),
 * events drained, instructions and blocks counted.  Ours: lsd_open() (image
 * and the block heads) once, then lsd_decode_stream() (the decode)
 * with a block callback that does nothing; then the same again (a new
 * decoder) with a batch callback (struct lsd_callbacks.blocks) that does
 * nothing.  Each repetition runs both,
 * one after the other, each with a new image (libipt's block cache
 * starts cold on both sides: a kept image would warm libipt's only).
 * Times are CPU seconds of this thread (one core); of REPEAT runs
 * (default 5) the best is reported, so other load on the machine counts
 * as little as possible, and the ratios of the medians beside.  Prints
 * one line:
 *   pt_bytes B insns N blocks K sblocks S ipt_s T pass2_s T open_s T
 *   ipt_mbs X pass2_mbs X ipt_insn_s X pass2_insn_s X pass2_blocks_s X
 *   ipt_blocks_s X
 *   ratio_pass2 R ratio_total R ratio_pass2_med R ratio_total_med R
 *   batch_s T ratio_batch R ratio_batch_med R open_cold_s T
 *   ref_s T ratio_ref R ratio_ref_med R fast_chunks N libipt_chunks N
 *   ipt_med_s T
 * ratio_pass2 = pass2 / libipt; ratio_total = (open + pass2) / (libipt's
 * image + libipt), ipt_image_s the image's build;
 * ratio_batch = pass2 with the batch callback / libipt; ref_s the same
 * decode on the reference path (lsd_opts.reference: libipt's block decoder
 * on every chunk), ratio_ref = ref_s / libipt; pass2 and batch run the
 * fast path, and fast_chunks / libipt_chunks say how many chunks it took
 * and left to libipt (of one decode).  open comes with
 * the heads cache warm after the first repetition (as it is for any
 * bundle decoded a second time on this machine); open_cold_s is the first
 * repetition's, when LOOPSCOPE_CACHE starts empty.
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decoder/decode.h"
#include "decoder/image.h"
#include "formats/bundle.h"
#include "ls_err.h"
#include "tests/tools/ptoracle.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *read_stream(struct lsb_reader *r, size_t s, size_t *plen)
{
	size_t n = lsb_reader_nchunks(r, s), i, total = 0, off = 0;
	uint8_t *buf;

	for (i = 0; i < n; i++)
		total += lsb_reader_chunk(r, s, i)->raw_size;
	buf = malloc(total ? total : 1);
	for (i = 0; buf && i < n; i++) {
		int64_t got = lsb_reader_read_chunk(r, lsb_reader_chunk(r, s, i),
						    buf + off, total - off);

		if (got < 0) {
			free(buf);
			return NULL;
		}
		off += (size_t)got;
	}
	*plen = off;
	return buf;
}

#define MAX_REPEAT 64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int nop_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	(void)arg;
	(void)stream;
	(void)b;
	(void)n;
	return 0;
}

/* Our decoder over every stream, a new decoder (cold caches); adds the
 * open time to *topen and returns the decode time, or < 0. */
static double ours(struct lsb_reader *r, const struct lsd_opts *o,
		   const struct lsd_callbacks *cb, double *topen, uint64_t *insns,
		   uint64_t *blocks, size_t *nsb);

static double ours(struct lsb_reader *r, const struct lsd_opts *o,
		   const struct lsd_callbacks *cb, double *topen, uint64_t *insns,
		   uint64_t *blocks, size_t *nsb);

/* One more timed decode with cb and o into *v and *best, its counts
 * checked against the first decode's.  Returns 0, or -1. */
static int batch_run(struct lsb_reader *r, const struct lsd_opts *o,
		     const struct lsd_callbacks *cb, uint64_t insns, uint64_t blocks,
		     const char *what, double *v, double *best)
{
	double topen = 0;
	uint64_t ni, nb;
	size_t nsb;
	double t = ours(r, o, cb, &topen, &ni, &nb, &nsb);

	if (t < 0)
		return -1;
	if (ni != insns || nb != blocks)
		fprintf(stderr, "ptbench: %s saw %" PRIu64 " instructions, the first "
			"decode %" PRIu64 "\n", what, ni, insns);
	*v = t;
	if (t < *best)
		*best = t;
	return 0;
}

/* Chunks decoded by the fast path and by libipt, over every decode. */
static uint64_t fast_chunks, libipt_chunks;

static int nop_block(void *arg, size_t stream, const struct lsd_block *b)
{
	(void)arg;
	(void)stream;
	(void)b;
	return 0;
}

int main(int argc, char **argv)
{
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsd_callbacks cb = { .block = nop_block }, bcb = { .blocks = nop_blocks };
	struct lsb_reader *r = NULL;
	struct lsd_image img;
	double ipt = 1e99, pass2 = 1e99, open = 1e99, batch = 1e99, t, topen;
	double img_s = 1e99, v_img[MAX_REPEAT];
	double open_cold = 0;
	double v_ipt[MAX_REPEAT], v_pass2[MAX_REPEAT], v_total[MAX_REPEAT];
	double v_batch[MAX_REPEAT], v_ref[MAX_REPEAT], ref = 1e99;
	struct lsd_opts oref = { .size = sizeof(oref), .reference = 1 };
	uint64_t bytes = 0, insns = 0, blocks = 0, ipt_insns = 0, ipt_blocks = 0;
	uint64_t binsns, bblocks;
	size_t s, nsb = 0;
	int rep, repeat = 5, ipt_only = 0;

	if (argc == 3 && !strcmp(argv[1], "-i")) {
		ipt_only = 1;
		repeat = 1;
		argv++;
		argc--;
	} else if (argc == 4 && !strcmp(argv[1], "-r")) {
		repeat = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr, "usage: ptbench [-r REPEAT] FILE.lsc | -i FILE.lsc\n");
		return 2;
	}
	if (lsb_reader_open(&r, argv[1]) < 0) {
		fprintf(stderr, "ptbench: %s\n", r ? lsb_reader_errmsg(r) : argv[1]);
		lsb_reader_close(r);
		return 2;
	}
	for (rep = 0; rep < repeat; rep++) {
		uint64_t ni = 0, nb = 0, nbytes = 0, decerr = 0;

		/* libipt needs the image as much as we do: its build counts
		 * beside our open (which builds the same), not beside the
		 * decode. */
		t = now();
		if (lsd_image_build(&img, r, 0, LSB_RUN_TRACE) < 0) {
			fprintf(stderr, "ptbench: cannot build the image\n");
			return 2;
		}
		t = now() - t;
		v_img[rep] = t;
		if (t < img_s)
			img_s = t;
		t = now();
		for (s = 0; s < lsb_reader_nstreams(r); s++) {
			size_t len;
			uint8_t *buf = read_stream(r, s, &len);

			if (!buf)
				return 2;
			ptoracle_blocks(buf, len, img.pt, &ni, &nb, &decerr);
			nbytes += len;
			free(buf);
		}
		t = now() - t;
		lsd_image_release(&img);
		v_ipt[rep] = t;
		if (t < ipt)
			ipt = t;
		ipt_insns = ni;
		ipt_blocks = nb;
		bytes = nbytes;
		if (ipt_only) {
			printf("pt_bytes %" PRIu64 " insns %" PRIu64 " blocks %" PRIu64
			       " ipt_s %.4f\n", bytes, ipt_insns, ipt_blocks, ipt);
			lsb_reader_close(r);
			return 0;
		}

		topen = 0;
		t = ours(r, &o, &cb, &topen, &insns, &blocks, &nsb);
		if (t < 0)
			return 2;
		if (!rep)
			open_cold = topen;
		if (topen < open)
			open = topen;
		v_pass2[rep] = t;
		v_total[rep] = topen + t;
		if (t < pass2)
			pass2 = t;
		/* The batch callback, then the reference path (libipt's
		 * block decoder on every chunk) with it. */
		if (batch_run(r, &o, &bcb, insns, blocks, "the batch callback",
			      &v_batch[rep], &batch) < 0 ||
		    batch_run(r, &oref, &bcb, insns, blocks, "the reference path",
			      &v_ref[rep], &ref) < 0)
			return 2;
		fast_chunks = libipt_chunks = 0;
		(void)ours(r, &o, &bcb, &topen, &binsns, &bblocks, &nsb);
	}
	if (ipt_insns != insns)
		fprintf(stderr, "ptbench: libipt decoded %" PRIu64 " instructions, "
			"we %" PRIu64 "\n", ipt_insns, insns);
	printf("pt_bytes %" PRIu64 " insns %" PRIu64 " blocks %" PRIu64 " sblocks %zu"
	       " ipt_s %.4f pass2_s %.4f open_s %.4f ipt_mbs %.1f pass2_mbs %.1f"
	       " ipt_insn_s %.3g pass2_insn_s %.3g pass2_blocks_s %.3g"
	       " ipt_blocks_s %.3g ratio_pass2 %.2f ratio_total %.2f ipt_image_s %.4f",
	       bytes, insns, blocks, nsb, ipt, pass2, open,
	       (double)bytes / ipt / 1e6, (double)bytes / pass2 / 1e6,
	       (double)ipt_insns / ipt, (double)insns / pass2,
	       (double)blocks / pass2, (double)ipt_blocks / ipt, pass2 / ipt,
	       (open + pass2) / (img_s + ipt),
	       img_s);
	t = median(v_ipt, repeat);
	printf(" ipt_med_s %.4f", t);
	printf(" ratio_pass2_med %.2f ratio_total_med %.2f",
	       median(v_pass2, repeat) / t,
	       median(v_total, repeat) / (t + median(v_img, repeat)));
	printf(" batch_s %.4f ratio_batch %.2f ratio_batch_med %.2f open_cold_s %.4f",
	       batch, batch / ipt, median(v_batch, repeat) / t, open_cold);
	printf(" ref_s %.4f ratio_ref %.2f ratio_ref_med %.2f fast_chunks %" PRIu64
	       " libipt_chunks %" PRIu64 "\n", ref, ref / ipt,
	       median(v_ref, repeat) / t, fast_chunks, libipt_chunks);
	lsb_reader_close(r);
	return 0;
}

static double ours(struct lsb_reader *r, const struct lsd_opts *o,
		   const struct lsd_callbacks *cb, double *topen, uint64_t *insns,
		   uint64_t *blocks, size_t *nsb)
{
	struct lsd_decoder *d = NULL;
	double t = now();
	size_t s;
	int err;

	err = lsd_open(&d, r, o);
	*topen += now() - t;
	if (err < 0) {
		fprintf(stderr, "ptbench: lsd_open: %s\n", ls_errstr(err));
		return -1;
	}
	*insns = *blocks = 0;
	t = now();
	for (s = 0; s < lsb_reader_nstreams(r); s++) {
		struct lsd_stream_stats st;

		memset(&st, 0, sizeof(st));
		err = lsd_decode_stream(d, s, cb, NULL, &st);
		if (err < 0) {
			fprintf(stderr, "ptbench: decode: %s\n", ls_errstr(err));
			lsd_close(d);
			return -1;
		}
		*insns += st.insns;
		*blocks += st.blocks;
		fast_chunks += st.fast_chunks;
		libipt_chunks += st.libipt_chunks;
	}
	t = now() - t;
	*nsb = lsd_nsblocks(d);
	lsd_close(d);
	return t;
}
