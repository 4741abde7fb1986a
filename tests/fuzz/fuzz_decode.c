/* fuzz_decode.c - libFuzzer entry point for the block-stream decoder.
 *
 * The input is the PT of one thread.  The code it runs through comes from
 * a recorded bundle named by $LSD_FUZZ_BUNDLE (t0301 records
 * testdata/calls; fuzz_tmpl.h): its metadata, its embedded modules up to
 * 64 KB (the program and the vDSO) and their mmap events are written
 * with the input as the only stream (cut into chunks at the first PSB
 * from 256 bytes on) into a tiny bundle in a temporary file, which is
 * decoded whole (lsd_decode_stream) and chunk by chunk
 * (lsd_decode_chunk), then fed once more to the loop detector and the
 * executed CFG together (lsa_loops_analyze_with, its second pass from the
 * first's tape): the profile must read
 * back (lsp_check), equal byte for byte the detector's per-block path's
 * (no iteration memo) and its second pass's in pieces of 7 blocks, and
 * the structural loops be found, else abort().
 * Decoded three times more by the fast path (block by block and in
 * batches, where it copies its chains, and in runs, where it hands them
 * out where they are kept) and once by libipt's block decoder alone
 * (lsd_opts.reference), every callback, in order, and every stream's
 * counts must be the same, else abort().
 * A template whose first stream is per CPU (t0301 makes one with
 * lsb_percpu) makes the input a per-CPU stream, with the template's switch
 * sideband and time.* conversion: the decoder then follows the switches
 * and the analyses see the threads side by side (lsd_decode_all).
 * ($LSD_FUZZ_KEEP names a file to keep the input's bundle in.)
 * Without $LSD_FUZZ_BUNDLE the input decodes against
 * an empty image.  Build with `make fuzz` for libFuzzer, or link with
 * replay.c (as `make check` does).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cfg.h"
#include "analysis/loops.h"
#include "analysis/sloops.h"
#include "decoder/decode.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "fuzz_tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_tmpl T;

static int write_bundle(const char *path, const uint8_t *pt, size_t len)
{
	const struct lsb_stream *t = &T.streams[0];
	struct lsb_stream s = { .id = 1, .kind = LSB_STREAM_THREAD, .cpu = -1,
				.pid = t->pid, .tid = t->tid };
	struct lsb_writer *w;

	/* the input is the template's first stream, thread or CPU */
	if (t->kind == LSB_STREAM_CPU) {
		s.kind = LSB_STREAM_CPU;
		s.cpu = t->cpu;
	}
	/* (chunks cut at the first PSB from 256 bytes on: an input with
	 * PSBs that far apart makes several, whose pieces two jobs replay
	 * from the learning pass's tape, chunk by chunk) */
	if (fz_tmpl_open(&T, &w, path, 256) < 0)
		return -1;
	lsb_writer_stream(w, &s);
	lsb_writer_pt(w, 1, pt, len);
	lsb_writer_stream_end(w, 1);
	return fz_tmpl_close(w) < 0 ? -1 : 0;
}

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	(void)stream;
	/* touch what the decoder hands out */
	*(uint64_t *)arg += b->sb->ninsn + b->exit + (b->next & 1) +
			    (b->sb->last - b->sb->start);
	return 0;
}

static int on_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	(void)stream;
	*(uint64_t *)arg += l->bytes + l->insns;
	return 0;
}

/* A digest of every callback in order: the fast path and libipt's
 * block decoder must make the same calls. */
struct digest {
	uint64_t h, n;
	/* runs: the blocks handed out so far (by static block id), and the
	 * runs marked again (lsd_bspan.again) with a block not among them */
	uint8_t *seen;
	size_t nseen;
	uint64_t lies;
};

static void mix(struct digest *g, uint64_t v)
{
	g->h = (g->h ^ v) * 0x100000001b3ull;
	g->n++;
}

static int dg_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct digest *g = arg;

	mix(g, stream);
	mix(g, b->sb->start);
	mix(g, b->sb->last);
	mix(g, b->sb->ninsn);
	mix(g, b->exit);
	mix(g, b->next);
	return 0;
}

/* The same blocks taken in batches, and in runs: the fast path hands
 * chains out by reference to a consumer with the spans callback, and
 * copies them for any other; both must make libipt's calls. */
static int dg_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dg_block(arg, stream, &b[i]);
	return 0;
}

static int dg_spans(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns)
{
	struct digest *g = arg;
	size_t i, j;

	for (i = 0; i < ns; i++) {
		for (j = 0; j < s[i].n; j++) {
			uint32_t id = s[i].b[j].id;

			if (id >= g->nseen) {
				size_t n = 2 * (size_t)id + 64;
				uint8_t *p = realloc(g->seen, n);

				if (!p)
					abort();
				memset(p + g->nseen, 0, n - g->nseen);
				g->seen = p;
				g->nseen = n;
			}
			if (s[i].again && !g->seen[id])
				g->lies++;
			g->seen[id] = 1;
		}
		dg_blocks(arg, stream, s[i].b, s[i].n);
	}
	return 0;
}

static int dg_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct digest *g = arg;

	mix(g, stream ^ 0x1000);
	mix(g, l->offset);
	mix(g, l->bytes);
	mix(g, l->insns);
	mix(g, (uint64_t)(int64_t)l->error);
	return 0;
}

static int dg_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct digest *g = arg;

	mix(g, stream ^ 0x2000);
	mix(g, pid);
	mix(g, tid);
	return 0;
}

static void dg_stats(struct digest *g, const struct lsd_stream_stats *st)
{
	mix(g, st->insns);
	mix(g, st->blocks);
	mix(g, st->losses);
	mix(g, st->lost_bytes);
	mix(g, st->lost_insns);
	mix(g, st->syscalls);
	mix(g, st->async);
	mix(g, st->enables);
	mix(g, st->switches);
}

/* The decode of bundle r, whole and chunk by chunk, as a digest, by the
 * fast path or (reference) by libipt alone; how: block by block (0), in
 * batches (1, as analyze takes them), in runs (2, the spans callback). */
static struct digest digest_of(struct lsb_reader *r, int reference, int how)
{
	struct lsd_opts o = { .size = sizeof(o), .reference = reference };
	struct lsd_callbacks cb = { .block = dg_block, .loss = dg_loss,
				    .thread = dg_thread };
	struct digest g = { 0xcbf29ce484222325ull, 0, NULL, 0, 0 };
	struct lsd_stream_stats st[8];
	struct lsd_decoder *d;
	size_t i, k, n = lsb_reader_nstreams(r);

	if (how) {
		cb.block = NULL;
		cb.blocks = dg_blocks;
		cb.spans = how == 2 ? dg_spans : NULL;
	}

	if (lsd_open(&d, r, &o) < 0)
		return g;
	if (n <= 8) {
		memset(st, 0, sizeof(st));
		mix(&g, (uint64_t)(int64_t)lsd_decode_all(d, &cb, &g, st));
		for (i = 0; i < n; i++)
			dg_stats(&g, &st[i]);
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < lsb_reader_nchunks(r, i); k++) {
			memset(st, 0, sizeof(st[0]));
			mix(&g, (uint64_t)(int64_t)lsd_decode_chunk(d, i, k, &cb, &g, st));
			dg_stats(&g, st);
		}
	}
	lsd_close(d);
	free(g.seen);
	g.seen = NULL;
	return g;
}

/* The profile's text; NULL when out of memory. */
static char *profile_text(const struct lsp_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (lsp_write_file(p, f, "fuzz", NULL, 0) < 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* The loop profile analyzed with options lo, sorted as every command
 * writes a profile, must be p (sorted) byte for byte, else abort()
 * saying which it was (what).  (Unsorted, rows of a loop's maps come in
 * the order its hash table holds them, which the order they were met
 * in decides: a second pass in pieces meets them otherwise.) */
static void same_profile(struct lsd_decoder *d, struct lsb_reader *r,
			 const struct lsp_profile *p, const struct lsa_loops_opts *lo,
			 const char *what)
{
	struct lsp_profile *q = NULL;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;

	if (lsp_new(&q, 16) < 0 || lsa_loops_analyze(d, r, NULL, q, lo, NULL) < 0 ||
	    lsp_sort(q) < 0)
		goto out;
	a = profile_text(p, &la);
	b = profile_text(q, &lb);
	if (a && b && (la != lb || memcmp(a, b, la))) {
		fprintf(stderr, "fuzz_decode: %s\n", what);
		abort();
	}
out:
	free(a);
	free(b);
	lsp_free(q);
}

/* The detector's per-block path (no iteration memo) with each pass
 * decoding (no tape: LOOPSCOPE_TAPE_MAX=0), its eager second pass beside
 * the decode (two jobs), and its second pass in pieces (three jobs, a cut
 * every 7 blocks, the pieces one after the other on this thread:
 * LOOPSCOPE_PIECE_BLOCKS and LOOPSCOPE_PIECE_WORKERS, set once), must give
 * profile p (one job: the second pass replays the first's tape) byte for
 * byte. */
static void same_other_ways(struct lsd_decoder *d, struct lsb_reader *r,
			    const struct lsp_profile *p)
{
	struct lsa_loops_opts ref = { .size = sizeof(ref), .reference = 1 };
	struct lsa_loops_opts two = { .size = sizeof(two), .jobs = 2 };
	struct lsa_loops_opts pieces = { .size = sizeof(pieces), .jobs = 3 };

	setenv("LOOPSCOPE_TAPE_MAX", "0", 1);
	same_profile(d, r, p, &ref,
		     "the memo's loop profile differs from the per-block path's");
	unsetenv("LOOPSCOPE_TAPE_MAX");
	same_profile(d, r, p, &two,
		     "the loop profile of two jobs differs from one's");
	setenv("LOOPSCOPE_PIECE_BLOCKS", "7", 0);
	setenv("LOOPSCOPE_PIECE_WORKERS", "0", 0);
	same_profile(d, r, p, &pieces,
		     "the loop profile in pieces differs from the one pass's");
}

/* The loop detector and the CFG over whatever the decoder makes of the
 * input: errors are fine (out of memory), broken invariants are not.
 * Returns the loop profile's digest when one is asked for (fz_digest),
 * else 0. */
static uint64_t analyses(struct lsd_decoder *d, struct lsb_reader *r)
{
	struct lsa_loops_opts lo = { .size = sizeof(lo) };
	struct lsa_cfg_opts co = { .size = sizeof(co) };
	struct lsp_profile *p = NULL;
	struct lsa_cfg *c = NULL;
	struct lsa_sloops *s = NULL;
	char msg[256];
	uint64_t h = 0;

	if (lsp_new(&p, 16) < 0 || lsa_cfg_new(&c, NULL, &co) < 0)
		goto out;
	if (lsa_loops_analyze_with(d, r, NULL, p, &lo, NULL, &lsa_cfg_callbacks, c) < 0)
		goto out;
	if (lsp_check(p, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fuzz_decode: the loop profile does not read back: %s\n", msg);
		abort();
	}
	if (lsp_sort(p) < 0)
		goto out;
	same_other_ways(d, r, p);
	if (lsa_cfg_finish(c) >= 0 && lsa_sloops_find(&s, c, NULL) < 0)
		abort();
	if (fz_want_digest())
		h = fz_profile_digest(p) ^ lsa_sloops_count(s);
out:
	lsa_sloops_free(s);
	lsa_cfg_free(c);
	lsp_free(p);
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lsd_opts o = { .size = sizeof(o), .iclasses = 1 };
	struct lsd_callbacks cb = { .block = on_block, .loss = on_loss };
	struct lsd_stream_stats st;
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d;
	uint64_t sink = 0, prof = 0;
	size_t i, k;

	if (!T.loaded)
		fz_tmpl_load(&T, "LSD_FUZZ_BUNDLE", 0, FZ_MAX_MODULE, "decode");
	if (!T.path[0])
		return 0;
	/* the input's bundle, for a look with loopscope dump and analyze,
	 * with and without LOOPSCOPE_REFERENCE=1 */
	if (getenv("LSD_FUZZ_KEEP"))
		write_bundle(getenv("LSD_FUZZ_KEEP"), data, size);
	if (write_bundle(T.path, data, size) < 0 || lsb_reader_open(&r, T.path) < 0) {
		lsb_reader_close(r);
		return 0;
	}
	if (lsd_open(&d, r, &o) >= 0) {
		for (i = 0; i < lsb_reader_nstreams(r); i++) {
			lsd_decode_stream(d, i, &cb, &sink, &st);
			for (k = 0; k < lsb_reader_nchunks(r, i); k++)
				lsd_decode_chunk(d, i, k, &cb, &sink, &st);
		}
		for (i = 0; i < lsd_nsblocks(d); i++)
			sink += lsd_sblock(d, i)->ninsn;
		prof = analyses(d, r);
		lsd_close(d);
	}
	{
		struct digest ref = digest_of(r, 1, 0), fast = digest_of(r, 0, 0),
			      batches = digest_of(r, 0, 1), runs = digest_of(r, 0, 2), scan;

		/* the heads the bundle keeps against the open's scan's */
		setenv("LOOPSCOPE_PTHEADS", "0", 1);
		scan = digest_of(r, 0, 0);
		unsetenv("LOOPSCOPE_PTHEADS");
		if (scan.h != fast.h || scan.n != fast.n) {
			fprintf(stderr, "fuzz_decode: the decode with the bundle's heads "
				"differs from the one with the scan's (%llu calls against "
				"%llu)\n", (unsigned long long)fast.n,
				(unsigned long long)scan.n);
			abort();
		}

		if (fast.h != ref.h || fast.n != ref.n || batches.h != ref.h ||
		    batches.n != ref.n || runs.h != ref.h || runs.n != ref.n || runs.lies) {
			fprintf(stderr, "fuzz_decode: the fast path's decode differs from "
				"libipt's (%llu calls, %llu in batches, %llu in runs, "
				"against %llu; %llu runs said again with a block "
				"not handed out before)\n", (unsigned long long)fast.n,
				(unsigned long long)batches.n, (unsigned long long)runs.n,
				(unsigned long long)ref.n, (unsigned long long)runs.lies);
			abort();
		}
		fz_digest(fast.h ^ fast.n, prof);
	}
	lsb_reader_close(r);
	/* keep sink alive without printing */
	return sink == 1 ? 0 : 0;
}
