/* fuzz_perfdata.c - libFuzzer entry point for the perf.data reader and
 * the perf.data import behind `loopscope import`.
 *
 * The reader works on files, so the input goes to a temporary file (on
 * tmpfs when there is one).  Every record is read, AUXTRACE payloads
 * streamed, and the attrs, build-ids and features touched; then the same
 * file is converted into a bundle (lsr_perf_convert, no embedding, so
 * nothing outside the input is read), and a conversion that succeeded
 * must give a bundle that reads back and verifies, else abort().  Build
 * with `make fuzz` for libFuzzer, or link with replay.c (as `make check`
 * does) to run a corpus under ASan/UBSan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle.h"
#include "formats/perfdata.h"
#include "recorder/perf_convert.h"
#include "fuzz_tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t walk(const char *path)
{
	static uint8_t aux[4096];
	struct lspd_file *f = NULL;
	struct lspd_record rec;
	uint64_t sink = 0;
	size_t i;
	int64_t n;
	int feat;

	if (lspd_open(&f, path) >= 0) {
		while (lspd_next(f, &rec) > 0) {
			sink += rec.type + rec.size;
			if (rec.type == 9)	/* SAMPLE: its callchain points into the record */
				for (i = 0; i < rec.u.sample.nr_callchain; i++)
					sink += rec.u.sample.callchain[i];
			if (rec.type == LSPD_REC_AUXTRACE)
				while ((n = lspd_read_aux(f, aux, sizeof(aux))) > 0)
					sink += aux[n - 1];
		}
		for (i = 0; i < lspd_nattrs(f); i++)
			sink += lspd_attr(f, i)->name ? strlen(lspd_attr(f, i)->name) : 0;
		for (i = 0; i < lspd_nbuild_ids(f); i++) {
			const struct lspd_build_id *b = lspd_build_id(f, i);

			sink += b->filename ? strlen(b->filename) : 0;
			if (b->filename && !lspd_find_build_id(f, b->filename))
				abort();
		}
		for (feat = 0; feat < LSPD_FEAT_MAX; feat++)
			sink += lspd_feature_string(f, feat) ? 1 : 0;
	}
	/* the message of whatever failed must be a string */
	sink += strlen(lspd_errmsg(f));
	lspd_close(f);
	return sink;
}

/* perf.data at path into a bundle, which must read back if it converted. */
static void convert(const char *path)
{
	struct lsb_writer_opts wo = { .size = sizeof(wo), .chunk_size = 4096, .zstd_level = 1 };
	struct lsr_convert_opts co = { .size = sizeof(co), .run = LSB_RUN_TRACE };
	struct lsr_convert_stats st;
	struct lsb_reader *r = NULL;
	struct lsb_writer *w;
	char out[64], msg[512];
	int err, cerr;

	if (fz_tmp_path(out, sizeof(out), "perfdata_out") < 0)
		return;
	if (lsb_writer_open(&w, out, &wo) < 0) {
		unlink(out);
		return;
	}
	err = lsr_perf_convert(w, path, &co, &st, msg, sizeof(msg));
	cerr = lsb_writer_close(w);
	if (err >= 0 && cerr >= 0) {
		if (lsb_reader_open(&r, out) < 0 || lsb_reader_verify(r) < 0) {
			fprintf(stderr, "fuzz_perfdata: a converted bundle does not read back\n");
			abort();
		}
	}
	lsb_reader_close(r);
	unlink(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	uint64_t sink;
	FILE *f;
	int ok;

	if (fz_tmp_path(path, sizeof(path), "perfdata") < 0)
		return 0;
	f = fopen(path, "wb");
	ok = f && fwrite(data, 1, size, f) == size;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		unlink(path);
		return 0;
	}
	sink = walk(path);
	convert(path);
	unlink(path);
	/* keep sink alive without printing */
	return sink == 1 ? 0 : 0;
}
