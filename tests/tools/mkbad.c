/* mkbad.c - writes the corrupt bundles of testdata/bad/ (committed, so
 * this runs only when they are to be remade: build/tests/mkbad DIR).
 *
 * Each starts as the same small, valid bundle (one meta key, one stream
 * with two PT chunks, one event) and is damaged in one way.  Offsets are
 * found by walking the 48-byte section headers (formats/bundle.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "ls_buf.h"
#include "ls_crc32.h"

static uint8_t b[1 << 16];
static size_t n;

static int base(const char *tmp)
{
	struct lsb_writer_opts o = { .size = sizeof(o), .chunk_size = 64 };
	struct lsb_stream s = { 1, LSB_STREAM_THREAD, 42, 42, -1, 0 };
	struct lsb_event ev = { .type = LSB_EV_MMAP, .pid = 42, .tid = 42,
				.cpu = -1, .addr = 0x400000, .len = 0x1000,
				.prot = 5, .name = "/bin/true" };
	uint8_t pt[200];
	struct lsb_writer *w;
	FILE *f;
	int i;

	for (i = 0; i < 200; i++)
		pt[i] = (i % 100 < 16) ? (i % 2 ? 0x82 : 0x02) : 0;
	if (lsb_writer_open(&w, tmp, &o) < 0)
		return -1;
	lsb_writer_meta(w, "cmdline", "/bin/true");
	lsb_writer_stream(w, &s);
	lsb_writer_pt(w, 1, pt, sizeof(pt));	/* PSBs at 0, 100: chunks 0-100, 100-200 */
	lsb_writer_event(w, &ev);
	if (lsb_writer_close(w) < 0)
		return -1;
	f = fopen(tmp, "rb");
	if (!f)
		return -1;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	return 0;
}

/* Offset of the k-th section header. */
static size_t sec(int k)
{
	size_t off = 32;

	while (k--)
		off += 48 + (size_t)ls_le64(b + off + 24);
	return off;
}

static int out(const char *dir, const char *name, const uint8_t *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	static uint8_t c[sizeof(b)];
	char tmp[4096];
	size_t off;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkbad DIR\n");
		return 129;
	}
	snprintf(tmp, sizeof(tmp), "%s/.mkbad.tmp", argv[1]);
	if (base(tmp) < 0) {
		fprintf(stderr, "mkbad: cannot write %s\n", tmp);
		return 1;
	}
	remove(tmp);

	memcpy(c, b, n);
	c[1] = 'X';
	rc |= out(argv[1], "bad-magic.lsc", c, n);

	memcpy(c, b, n);
	ls_st16(c + 8, 7);	/* major 7 */
	ls_st32(c + 28, ls_crc32(0, c, 28));
	rc |= out(argv[1], "future-version.lsc", c, n);

	rc |= out(argv[1], "truncated-header.lsc", b, 20);

	/* section order: STREAM, PTCHUNK 0, META, EVENTS, PTCHUNK 1, INDEX */
	memcpy(c, b, n);
	off = sec(1);
	c[off + 48 + 3] ^= 0xff;	/* payload byte of PTCHUNK 0 */
	rc |= out(argv[1], "bad-section-crc.lsc", c, n);

	memcpy(c, b, n);
	off = sec(3);			/* EVENTS */
	ls_st64(c + off + 32, 1ull << 62);
	ls_st32(c + off + 44, ls_crc32(0, c + off, 44));
	rc |= out(argv[1], "oversize-length.lsc", c, n);

	off = sec(4);			/* cut inside PTCHUNK 1's payload */
	rc |= out(argv[1], "truncated-mid-chunk.lsc", b, off + 48 + 10);
	return rc;
}
