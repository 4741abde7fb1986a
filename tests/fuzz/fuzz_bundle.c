/* fuzz_bundle.c - libFuzzer entry point for the bundle reader.
 *
 * The reader works on files (pread), so the input goes to a temporary
 * file first; then everything is opened, read and walked.  Build with
 * clang -fsanitize=fuzzer,address for libFuzzer, or link with replay.c
 * (as `make check` does) to run a corpus under ASan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
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
		for (i = 0; i < lsb_reader_nstreams(r); i++)
			for (k = 0; k < lsb_reader_nchunks(r, i); k++) {
				const struct lsb_chunk *c = lsb_reader_chunk(r, i, k);

				if (c->raw_size <= sizeof(buf))
					lsb_reader_read_chunk(r, c, buf, sizeof(buf));
			}
		for (i = 0; i < lsb_reader_nmodules(r); i++)
			if (lsb_reader_module_data(r, i, &mod, &len) == 0)
				free(mod);
		lsb_reader_events(r, on_ev, &sink);
		lsb_reader_samples(r, on_smp, &sink);
		lsb_reader_memacc(r, on_mem, &sink);
		lsb_reader_verify(r);
	}
	lsb_reader_close(r);
	unlink(path);
	return (int)(sink & 0);
}
