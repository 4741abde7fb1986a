/* unit_ptheads.c - the heads a stream's packets name, kept in the bundle
 * as it is written (PTHEADS: formats/bundle.md, decoder/ptheads.c).
 *
 * Where the numbers come from: the packets written here.  Stream 1 has
 * three chunks (the writer cuts at the first PSB from chunk_size, 4096
 * bytes, on); chunk k is a PSB, PSBEND, a TIP.PGE to pge[k], a FUP to
 * fup[k], a TIP to tip[k] and a TIP.PGD to pgd[k] (bundle.md's chunk
 * rule; Intel SDM 33.4.2: each IP packet with a full 6-byte IP, IPBytes
 * 011b), then PAD to 4,100 bytes.  The heads are every TIP.PGE, FUP and
 * TIP target and no TIP.PGD's (decoder/heads.c), each named once here
 * except 0x401000, named by chunks 0 and 2: eight distinct addresses.
 * Chunk 1 alone names 0x402200, 0x402300 and 0x402400.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode_int.h"
#include "formats/bundle.h"
#include "formats/bundle_int.h"
#include "ls_err.h"
#include "tap.h"

static const uint64_t pge[3] = { 0x401000, 0x402200, 0x401000 };
static const uint64_t fup[3] = { 0x401100, 0x402300, 0x403300 };
static const uint64_t tip[3] = { 0x401200, 0x402400, 0x403400 };
static const uint64_t pgd[3] = { 0x409000, 0x409100, 0x409200 };
/* sorted, without repeats */
static const uint64_t heads[8] = { 0x401000, 0x401100, 0x401200, 0x402200, 0x402300,
				   0x402400, 0x403300, 0x403400 };
#define NHEADS 8
#define CHUNK 4100

static size_t ip_pkt(uint8_t *p, uint8_t op, uint64_t ip)
{
	size_t i;

	p[0] = (uint8_t)(3 << 5 | op);	/* IPBytes 011b: sext-48 */
	for (i = 0; i < 6; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	return 7;
}

/* Writes the bundle at path, its heads kept where keep; returns 0 or -1. */
static int bundle(const char *path, int keep)
{
	struct lsd_pt_heads *h = keep ? lsd_pt_heads_new() : NULL;
	struct lsb_writer_opts o = { .size = sizeof(o), .chunk_size = 4096, .zstd_level = 1,
				     .heads = keep ? lsd_pt_heads_cb : NULL, .heads_arg = h };
	struct lsb_stream s = { 1, LSB_STREAM_THREAD, 100, 100, -1, 0 };
	struct lsb_writer *w;
	uint8_t c[CHUNK];
	size_t k, n;
	int err = (keep && !h) || lsb_writer_open(&w, path, &o) < 0;

	if (!err)
		err = lsb_writer_stream(w, &s) < 0;
	for (k = 0; !err && k < 3; k++) {
		memset(c, 0, sizeof(c));
		for (n = 0; n < 16; n += 2)
			c[n] = 0x02, c[n + 1] = 0x82;
		c[16] = 0x02, c[17] = 0x23;	/* PSBEND */
		n = 18;
		n += ip_pkt(c + n, 0x11, pge[k]);
		n += ip_pkt(c + n, 0x1d, fup[k]);
		n += ip_pkt(c + n, 0x0d, tip[k]);
		n += ip_pkt(c + n, 0x01, pgd[k]);
		err = lsb_writer_pt(w, 1, c, sizeof(c)) < 0;
	}
	if (!err)
		err = lsb_writer_stream_end(w, 1) < 0;
	if (!(keep && !h) && lsb_writer_close(w) < 0)
		err = 1;
	lsd_pt_heads_free(h);
	return err ? -1 : 0;
}

/* Inverts the byte at `at` of the payload of section nth (from 0) of
 * type typ in the file at path.  Returns 0 or -1. */
static int flip(const char *path, unsigned typ, int nth, size_t at)
{
	FILE *f = fopen(path, "r+b");
	uint8_t h[LSB_SEC_HDR], b;
	long off = LSB_FILE_HDR;
	int ret = -1;

	while (f && !fseek(f, off, SEEK_SET) && fread(h, 1, sizeof(h), f) == sizeof(h)) {
		uint64_t st = ls_le64(h + LSB_SH_STORED);

		if (ls_le16(h + LSB_SH_TYPE) == typ && nth-- == 0) {
			if (st <= at)
				break;
			if (!fseek(f, off + LSB_SEC_HDR + (long)at, SEEK_SET) && fread(&b, 1, 1, f) == 1 &&
			    !fseek(f, off + LSB_SEC_HDR + (long)at, SEEK_SET)) {
				b ^= 0xff;
				ret = fwrite(&b, 1, 1, f) == 1 ? 0 : -1;
			}
			break;
		}
		off += LSB_SEC_HDR + (long)st;
	}
	if (f)
		fclose(f);
	return ret;
}

/* Whether the open found every head: has[] all set. */
static int all_of(const int has[NHEADS])
{
	int i, all = 1;

	for (i = 0; i < NHEADS; i++)
		all &= has[i];
	return all;
}

/* The decoder's heads of stream 0 after its open: has[i] whether it holds
 * heads[i]; the count of streams whose heads came from the bundle. */
static int open_heads(const char *path, int has[NHEADS], int *from_bundle)
{
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsb_reader *r;
	struct lsd_decoder *d;
	const struct lsd_addrset *set;
	int i;

	if (lsb_reader_open(&r, path) < 0)
		return -1;
	if (lsd_open_msg(&d, r, &o, NULL, 0) < 0) {
		lsb_reader_close(r);
		return -1;
	}
	set = &d->spaces[d->stream_space[0]].heads;
	for (i = 0; i < NHEADS; i++)
		has[i] = lsd_addrset_has(set, heads[i]);
	*from_bundle = (int)lsd_heads_from_bundle(d);
	lsd_close(d);
	lsb_reader_close(r);
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/unit_ptheads.XXXXXX", path[300];
	struct lsb_reader *r;
	uint64_t *ips = NULL;
	size_t n = 0, i;
	int has[NHEADS], fb = -1, all;

	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/h.lsc", dir);

	/* written with the callback: the nine distinct heads, once each */
	TAP_EQ(bundle(path, 1), 0, "bundle written, heads kept");
	TAP_EQ(lsb_reader_open(&r, path), 0, "reader opens");
	TAP_EQ(lsb_reader_nchunks(r, 0), 3, "three chunks");
	TAP_EQ(lsb_reader_pt_heads(r, 0, &ips, &n), 1, "its PTHEADS section read");
	TAP_OK(n == NHEADS && !memcmp(ips, heads, sizeof(*ips) * NHEADS),
	       "the heads: every TIP.PGE, FUP and TIP target, sorted, once (%zu)", n);
	free(ips);
	for (i = 0, all = 1; i < 3; i++)
		all &= lsb_reader_chunk_ok(r, lsb_reader_chunk(r, 0, i)) == 1;
	TAP_OK(all, "every chunk reads back intact");
	lsb_reader_close(r);
	TAP_EQ(open_heads(path, has, &fb), 0, "decoder opens");
	TAP_OK(all_of(has) && fb == 1, "the open took the bundle's heads (%d), all of them", fb);

	/* a chunk's stored bytes damaged: the open scans the others */
	TAP_EQ(bundle(path, 1), 0, "bundle written again");
	TAP_EQ(flip(path, LSB_SEC_PTCHUNK, 1, 5), 0, "a byte of chunk 1 inverted");
	TAP_EQ(lsb_reader_open(&r, path), 0, "reader opens");
	TAP_EQ(lsb_reader_chunk_ok(r, lsb_reader_chunk(r, 0, 1)), 0, "chunk 1 does not read back");
	TAP_EQ(lsb_reader_chunk_ok(r, lsb_reader_chunk(r, 0, 2)), 1, "chunk 2 does");
	lsb_reader_close(r);
	TAP_EQ(open_heads(path, has, &fb), 0, "decoder opens");
	TAP_OK(fb == 0 && has[0] && has[1] && has[2] && !has[3] && !has[4] && !has[5] &&
	       has[6] && has[7], "the open scanned: chunk 1's own heads (0x4022xx to "
	       "0x4024xx) are not there, the others are (from the bundle: %d)", fb);

	/* the section damaged: the open scans */
	TAP_EQ(bundle(path, 1), 0, "bundle written again");
	TAP_EQ(flip(path, LSB_SEC_PTHEADS, 0, 1), 0, "a byte of its PTHEADS inverted");
	TAP_EQ(lsb_reader_open(&r, path), 0, "reader opens");
	TAP_EQ(lsb_reader_pt_heads(r, 0, &ips, &n), -LS_ECORRUPT, "the section is damaged");
	lsb_reader_close(r);
	TAP_EQ(open_heads(path, has, &fb), 0, "decoder opens");
	TAP_OK(all_of(has) && fb == 0, "the open scanned, and found them all (%d)", fb);

	/* written without the callback: no section, the scan */
	TAP_EQ(bundle(path, 0), 0, "bundle written without heads");
	TAP_EQ(lsb_reader_open(&r, path), 0, "reader opens");
	TAP_EQ(lsb_reader_pt_heads(r, 0, &ips, &n), 0, "no PTHEADS section");
	lsb_reader_close(r);
	TAP_EQ(open_heads(path, has, &fb), 0, "decoder opens");
	TAP_OK(all_of(has) && fb == 0, "the open scanned, and found them all (%d)", fb);

	unlink(path);
	rmdir(dir);
	printf("1..%d\n", tap_n);
	return TAP_DONE();
}
