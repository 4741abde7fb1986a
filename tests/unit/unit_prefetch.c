/* unit_prefetch.c - chunks read ahead on threads of their own
 * (decoder/prefetch.c): taken in order, each is the bytes written, on
 * one to four threads; the threads are at most the chunks (nine asked
 * for six chunks: six), and fewer where the chunks are large (two slots
 * a thread, PF_MEM = 2 x 64 MiB in all: chunks of 36 MiB leave room for
 * one thread, of 20 MiB for three); a chunk asked out of order is the
 * caller's to read (LSD_PF_MISS); the threads stop before every chunk
 * is taken; a single chunk starts none.
 *
 * Where the numbers come from: the bundles written here.  Each chunk is
 * a PSB and then one byte repeated (chunk k's: 3 k + 3, no byte of a
 * PSB), and the writer cuts a chunk at the first PSB after chunk_size
 * bytes (the piece's size, 32 MiB at most): so chunk k is the PSB and
 * the piece written after it, its raw size 16 + the piece's, as the
 * bundle's index says too. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode_int.h"
#include "formats/bundle.h"
#include "ls_err.h"
#include "tap.h"

static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

/* A bundle at path of one thread's stream: n chunks, each a PSB and
 * piece bytes of its own.  Returns 0 or -1. */
static int bundle(const char *path, size_t n, size_t piece)
{
	/* (chunk_size at most half the largest chunk: the writer cuts at
	 * the first PSB from chunk_size on) */
	struct lsb_writer_opts o = { .size = sizeof(o),
		.chunk_size = piece < LSB_MAX_CHUNK / 2 ? (uint32_t)piece : LSB_MAX_CHUNK / 2,
		.zstd_level = 1 };
	struct lsb_stream s = { 1, LSB_STREAM_THREAD, 100, 100, -1, 0 };
	struct lsb_writer *w;
	uint8_t *b = malloc(piece);
	size_t k;
	int err = !b || lsb_writer_open(&w, path, &o) < 0;

	if (!err)
		err = lsb_writer_stream(w, &s) < 0;
	for (k = 0; !err && k < n; k++) {
		memset(b, (int)(3 * k + 3), piece);
		err = lsb_writer_pt(w, 1, psb, sizeof(psb)) < 0 ||
		      lsb_writer_pt(w, 1, b, piece) < 0;
	}
	if (!err)
		err = lsb_writer_stream_end(w, 1) < 0;
	if (b && lsb_writer_close(w) < 0)
		err = 1;
	free(b);
	return err ? -1 : 0;
}

/* Chunk k's bytes as written: the PSB, then piece bytes of 3 k + 3. */
static int chunk_ok(const uint8_t *p, int64_t len, size_t k, size_t piece)
{
	size_t i;

	if (len != (int64_t)(sizeof(psb) + piece) || memcmp(p, psb, sizeof(psb)))
		return 0;
	for (i = sizeof(psb); i < (size_t)len; i++)
		if (p[i] != (uint8_t)(3 * k + 3))
			return 0;
	return 1;
}

/* Reads the n chunks of path's stream ahead on up to asked threads:
 * the threads it took, every chunk as written, all taken. */
static void check(const char *path, size_t n, size_t piece, unsigned asked, unsigned want)
{
	struct lsb_reader *r;
	struct lsd_prefetch *pf;
	uint8_t *p = NULL;
	size_t cap = 0, k, good = 0;

	if (lsb_reader_open(&r, path) < 0) {
		TAP_OK(0, "%s opens", path);
		return;
	}
	TAP_EQ(lsb_reader_nchunks(r, 0), n, "%zu chunks of %zu bytes: in the index", n, piece);
	TAP_EQ(lsd_prefetch_start(&pf, r, 0, 0, n - 1, asked), 0,
	       "%zu chunks of %zu bytes, %u threads asked: started", n, piece, asked);
	TAP_EQ(lsd_prefetch_threads(pf), want, "... on %u threads", want);
	for (k = 0; k < n; k++) {
		int64_t len = lsd_prefetch_take(pf, 0, k, &p, &cap);

		good += chunk_ok(p, len, k, piece);
	}
	TAP_EQ(good, n, "... every chunk taken in order is the bytes written");
	TAP_EQ(lsd_prefetch_stop(pf), n, "... and each came from a thread");
	free(p);
	lsb_reader_close(r);
}

int main(void)
{
	char path[] = "/tmp/unit_prefetch_XXXXXX";
	struct lsb_reader *r;
	struct lsd_prefetch *pf;
	uint8_t *p = NULL;
	size_t cap = 0;
	int fd = mkstemp(path);

	if (fd < 0) {
		printf("not ok 1 - mkstemp\n");
		return 1;
	}
	close(fd);

	/* 1 MiB chunks: as many threads as asked, up to the chunks */
	TAP_EQ(bundle(path, 6, 1u << 20), 0, "six chunks of 1 MiB written");
	check(path, 6, 1u << 20, 1, 1);
	check(path, 6, 1u << 20, 2, 2);
	check(path, 6, 1u << 20, 4, 4);
	check(path, 6, 1u << 20, 9, 6);

	/* out of order: the caller's own read; the threads end at stop */
	if (lsb_reader_open(&r, path) == 0) {
		TAP_EQ(lsd_prefetch_start(&pf, r, 0, 0, 5, 2), 0, "started again");
		TAP_EQ(lsd_prefetch_take(pf, 0, 1, &p, &cap), LSD_PF_MISS,
		       "chunk 1 before chunk 0: the caller reads it");
		TAP_EQ(lsd_prefetch_take(pf, 0, 0, &p, &cap), (int64_t)(16 + (1u << 20)),
		       "chunk 0 then comes");
		TAP_EQ(lsd_prefetch_stop(pf), 1, "stopped with four chunks not taken: one taken");
		TAP_EQ(lsd_prefetch_start(&pf, r, 0, 5, 5, 2), -LS_EINVAL,
		       "a single chunk: nothing to read ahead");
		lsb_reader_close(r);
	}

	/* large chunks: fewer threads, the slots within PF_MEM */
	TAP_EQ(bundle(path, 4, 20u << 20), 0, "four chunks of 20 MiB written");
	check(path, 4, 20u << 20, 4, 3);
	TAP_EQ(bundle(path, 3, 36u << 20), 0, "three chunks of 36 MiB written");
	check(path, 3, 36u << 20, 4, 1);

	free(p);
	unlink(path);
	return TAP_DONE();
}
