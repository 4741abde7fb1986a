/* fuzz_bundle.c - libFuzzer entry point for the bundle reader.
 *
 * The reader works on files (pread), so the input goes to a temporary
 * file first; then everything is opened, read and walked.  Then once
 * more with every checksum made right and the index dropped (so the
 * reader scans): a mutant then reaches the parsing of the sections behind
 * their CRCs instead of stopping at them.  Build with `make fuzz` for
 * libFuzzer, or link with replay.c (as `make check` does) to run a
 * corpus under ASan/UBSan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle.h"
#include "formats/bundle_int.h"
#include "ls_buf.h"
#include "ls_crc32.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_ev(const struct lsb_event *ev, void *arg)
{
	/* touch what the reader hands out */
	*(size_t *)arg += ev->name ? strlen(ev->name) : 0;
	return 0;
}

static int on_smp(const struct lsb_sample *s, void *arg)
{
	uint32_t k;

	for (k = 0; k < s->nr_callchain; k++)
		*(size_t *)arg += (size_t)s->callchain[k];
	return 0;
}

static int on_mem(uint32_t stream, const void *enc, size_t len, void *arg)
{
	(void)stream;
	*(size_t *)arg += len ? ((const uint8_t *)enc)[len - 1] : 0;
	return 0;
}

static size_t read_all(const uint8_t *data, size_t size)
{
	static uint8_t buf[1 << 20];
	char path[] = "/tmp/fuzz_bundle.XXXXXX";
	struct lsb_reader *r;
	struct lsb_stats st;
	size_t i, k, len, sink = 0;
	void *mod;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (lsb_reader_open(&r, path) >= 0) {
		lsb_reader_stats(r, &st);
		for (i = 0; i < lsb_reader_nmeta(r); i++) {
			const char *key, *val;

			lsb_reader_meta_at(r, i, &key, &val);
			sink += strlen(key) + strlen(val);
		}
		for (i = 0; i < lsb_reader_nstreams(r); i++) {
			uint64_t *ips = NULL;
			size_t nips = 0;

			for (k = 0; k < lsb_reader_nchunks(r, i); k++) {
				const struct lsb_chunk *c = lsb_reader_chunk(r, i, k);

				if (c->raw_size <= sizeof(buf))
					lsb_reader_read_chunk(r, c, buf, sizeof(buf));
				sink += (size_t)lsb_reader_chunk_ok(r, c);
			}
			/* the heads the stream's packets name: ascending, or
			 * none */
			if (lsb_reader_pt_heads(r, i, &ips, &nips) == 1)
				for (k = 1; k < nips; k++)
					if (ips[k] <= ips[k - 1])
						abort();
			free(ips);
		}
		for (i = 0; i < lsb_reader_nmodules(r); i++) {
			uint64_t stored, mlen;
			uint32_t pcrc;
			int named = lsb_reader_module_stored(r, i, &pcrc, &stored, &mlen) == 0;

			if (lsb_reader_module_data(r, i, &mod, &len) == 0) {
				/* what names the bytes (decoder/image.c's
				 * cache) says their length */
				if (named && mlen != len)
					abort();
				free(mod);
			}
		}
		lsb_reader_events(r, on_ev, &sink);
		lsb_reader_samples(r, on_smp, &sink);
		lsb_reader_memacc(r, on_mem, &sink);
		lsb_reader_verify(r);
	}
	lsb_reader_close(r);
	unlink(path);
	return sink;
}

/* The input with the file header's and every section's checksums made
 * right, cut before its INDEX (or where the sections stop).  Returns the
 * length kept, 0 when there is no file header to fix. */
static size_t fix_crcs(uint8_t *b, size_t size)
{
	size_t hs, off;

	if (size < LSB_FILE_HDR)
		return 0;
	hs = ls_le32(b + LSB_FH_SIZE);
	if (hs < LSB_FILE_HDR || hs > LSB_FILE_HDR_MAX || hs > size)
		return 0;
	ls_st32(b + hs - 4, ls_crc32(0, b, hs - 4));
	for (off = hs; size - off >= LSB_SEC_HDR; ) {
		uint8_t *h = b + off;
		uint64_t stored = ls_le64(h + LSB_SH_STORED);

		if (ls_le32(h) != LSB_SEC_MAGIC || ls_le16(h + LSB_SH_TYPE) == LSB_SEC_INDEX ||
		    stored > size - off - LSB_SEC_HDR)
			break;
		ls_st32(h + LSB_SH_PCRC, ls_crc32(0, h + LSB_SEC_HDR, (size_t)stored));
		ls_st32(h + LSB_SH_HCRC, ls_crc32(0, h, LSB_SH_HCRC));
		off += LSB_SEC_HDR + (size_t)stored;
	}
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, sink = read_all(data, size);
	uint8_t *b = malloc(size ? size : 1);

	if (!b)
		return 0;
	memcpy(b, data, size);
	n = fix_crcs(b, size);
	if (n)
		sink += read_all(b, n);
	free(b);
	/* keep sink alive without printing */
	return (int)(sink & 0);
}
