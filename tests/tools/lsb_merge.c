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

#define PID_STEP 5000000u

struct ev_ctx {
	struct lsb_writer *w;
	uint32_t shift;
	int err;
};

static uint32_t moved(uint32_t id, uint32_t shift)
{
	return id ? id + shift : 0;
}

static int copy_event(const struct lsb_event *ev, void *arg)
{
	struct ev_ctx *c = arg;
	struct lsb_event e = *ev;

	if (ev->run != LSB_RUN_TRACE)
		return 0;
	e.pid = moved(ev->pid, c->shift);
	e.tid = moved(ev->tid, c->shift);
	if (ev->type == LSB_EV_FORK)
		e.arg = moved(ev->arg, c->shift);
	else if (ev->type == LSB_EV_THREAD_START)
		e.arg = moved(ev->arg, c->shift);	/* parent tid */
	c->err = lsb_writer_event(c->w, &e);
	return c->err < 0;
}

static int merge_one(struct lsb_writer *w, const char *path, uint32_t k,
		     uint32_t *next_id)
{
	struct lsb_reader *r = NULL;
	struct ev_ctx c = { w, k * PID_STEP, 0 };
	void *buf = NULL;
	size_t i, j;
	int err = lsb_reader_open(&r, path);

	if (err < 0)
		goto out;
	for (i = 0; k == 0 && i < lsb_reader_nmeta(r); i++) {
		const char *key, *value;

		if (lsb_reader_meta_at(r, i, &key, &value) >= 0 &&
		    (err = lsb_writer_meta(w, key, value)) < 0)
			goto out;
	}
	for (i = 0; i < lsb_reader_nmodules(r); i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		void *data = NULL;
		size_t len = 0;

		if ((m->flags & LSB_MOD_EMBEDDED) &&
		    (err = lsb_reader_module_data(r, i, &data, &len)) < 0)
			goto out;
		err = lsb_writer_module(w, m, data, len);
		free(data);
		if (err < 0)
			goto out;
	}
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		struct lsb_stream s = *lsb_reader_stream(r, i);

		s.id = (*next_id)++;
		s.pid = moved(s.pid, c.shift);
		s.tid = moved(s.tid, c.shift);
		if ((err = lsb_writer_stream(w, &s)) < 0)
			goto out;
		for (j = 0; j < lsb_reader_nchunks(r, i); j++) {
			const struct lsb_chunk *ch = lsb_reader_chunk(r, i, j);
			int64_t n;
			void *p = realloc(buf, ch->raw_size ? ch->raw_size : 1);

			if (!p) {
				err = -LS_ENOMEM;
				goto out;
			}
			buf = p;
			n = lsb_reader_read_chunk(r, ch, buf, ch->raw_size);
			if (n < 0 || (err = lsb_writer_pt(w, s.id, buf, (size_t)n)) < 0) {
				err = n < 0 ? (int)n : err;
				goto out;
			}
		}
		if ((err = lsb_writer_stream_end(w, s.id)) < 0)
			goto out;
	}
	err = lsb_reader_events(r, copy_event, &c);
	if (c.err < 0)
		err = c.err;
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
