/* lsb_merge.c - one bundle from several (formats/bundle.h), as if their
 * processes had been recorded together:
 *   lsb_merge OUT.lsc IN1.lsc IN2.lsc ...
 * The streams, modules (once per build-id) and trace-run events of every
 * input go to OUT; the pids and tids of input k (from 0) are moved up by
 * k * 5000000, above any Linux pid, so the processes stay distinct even
 * when the inputs reused a pid.  Meta data is the first input's.  Samples
 * and memory-access records are not copied.  Exit 0, or 2 on error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "ls_err.h"
#include "lsb_copy.h"

static int merge_one(struct lsb_writer *w, const char *path, uint32_t k,
		     uint32_t *next_id)
{
	struct lsb_reader *r = NULL;
	uint32_t shift = k * LSB_COPY_PID_STEP;
	uint8_t *buf = NULL;
	size_t cap = 0, i, j;
	int err = lsb_reader_open(&r, path);

	if (err < 0 || (k == 0 && (err = lsb_copy_meta(r, w)) < 0) ||
	    (err = lsb_copy_modules(r, w)) < 0)
		goto out;
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		struct lsb_stream s = *lsb_reader_stream(r, i);

		s.id = (*next_id)++;
		s.pid = lsb_copy_moved(s.pid, shift);
		s.tid = lsb_copy_moved(s.tid, shift);
		if ((err = lsb_writer_stream(w, &s)) < 0)
			goto out;
		for (j = 0; j < lsb_reader_nchunks(r, i); j++) {
			int64_t n = lsb_copy_chunk(r, i, j, &buf, &cap);

			if (n < 0 || (err = lsb_writer_pt(w, s.id, buf, (size_t)n)) < 0) {
				err = n < 0 ? (int)n : err;
				goto out;
			}
		}
		if ((err = lsb_writer_stream_end(w, s.id)) < 0)
			goto out;
	}
	err = lsb_copy_events(r, w, shift);
out:
	if (err < 0)
		fprintf(stderr, "lsb_merge: %s: %s\n", path,
			r ? lsb_reader_errmsg(r) : ls_errstr(err));
	free(buf);
	lsb_reader_close(r);
	return err;
}

int main(int argc, char **argv)
{
	struct lsb_writer *w = NULL;
	uint32_t next_id = 0;
	int i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: lsb_merge OUT.lsc IN.lsc...\n");
		return 2;
	}
	if ((err = lsb_writer_open(&w, argv[1], NULL)) < 0) {
		fprintf(stderr, "lsb_merge: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	for (i = 2; i < argc; i++)
		if (merge_one(w, argv[i], (uint32_t)(i - 2), &next_id) < 0)
			return 2;
	if ((err = lsb_writer_close(w)) < 0) {
		fprintf(stderr, "lsb_merge: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	return 0;
}
