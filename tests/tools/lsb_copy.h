/* lsb_copy.h - what the test tools that build one bundle from others
 * (lsb_merge, lsb_percpu) copy alike: meta data, modules, the traced run's
 * events with pids and tids moved, and a stream's chunks.  Header-only:
 * each test tool is one source file. */
#ifndef LS_LSB_COPY_H
#define LS_LSB_COPY_H

#include <stdint.h>
#include <stdlib.h>

#include "formats/bundle.h"
#include "ls_err.h"

/* Input k (from 0) moves its pids and tids up by k * LSB_COPY_PID_STEP,
 * above any Linux pid, so processes stay distinct even when the inputs
 * reused a pid. */
#define LSB_COPY_PID_STEP 5000000u

/* pid/tid 0 (the idle task, or unknown) stays 0. */
static inline uint32_t lsb_copy_moved(uint32_t id, uint32_t shift)
{
	return id ? id + shift : 0;
}

/* Every meta pair of r into w. */
static inline int lsb_copy_meta(struct lsb_reader *r, struct lsb_writer *w)
{
	size_t i;
	int err;

	for (i = 0; i < lsb_reader_nmeta(r); i++) {
		const char *key, *value;

		if (lsb_reader_meta_at(r, i, &key, &value) >= 0 &&
		    (err = lsb_writer_meta(w, key, value)) < 0)
			return err;
	}
	return 0;
}

/* Every module of r into w (the writer keeps one per build-id). */
static inline int lsb_copy_modules(struct lsb_reader *r, struct lsb_writer *w)
{
	size_t i;
	int err;

	for (i = 0; i < lsb_reader_nmodules(r); i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		void *data = NULL;
		size_t len = 0;

		if ((m->flags & LSB_MOD_EMBEDDED) &&
		    (err = lsb_reader_module_data(r, i, &data, &len)) < 0)
			return err;
		err = lsb_writer_module(w, m, data, len);
		free(data);
		if (err < 0)
			return err;
	}
	return 0;
}

struct lsb_copy_ev {
	struct lsb_writer *w;
	uint32_t shift;
	int err;
};

static inline int lsb_copy_event(const struct lsb_event *ev, void *arg)
{
	struct lsb_copy_ev *c = arg;
	struct lsb_event e = *ev;

	if (ev->run != LSB_RUN_TRACE)
		return 0;
	e.pid = lsb_copy_moved(ev->pid, c->shift);
	e.tid = lsb_copy_moved(ev->tid, c->shift);
	/* a child pid, a parent tid */
	if (ev->type == LSB_EV_FORK || ev->type == LSB_EV_THREAD_START)
		e.arg = lsb_copy_moved(ev->arg, c->shift);
	c->err = lsb_writer_event(c->w, &e);
	return c->err < 0;
}

/* The traced run's events of r into w, pids and tids moved by shift.
 * Samples and memory accesses are not copied. */
static inline int lsb_copy_events(struct lsb_reader *r, struct lsb_writer *w,
				  uint32_t shift)
{
	struct lsb_copy_ev c = { w, shift, 0 };
	int err = lsb_reader_events(r, lsb_copy_event, &c);

	return c.err < 0 ? c.err : err;
}

/* Chunk j of stream i into *buf (grown as needed; *cap its size).
 * Returns its byte count or a negative LS_E* code. */
static inline int64_t lsb_copy_chunk(struct lsb_reader *r, size_t i, size_t j,
				     uint8_t **buf, size_t *cap)
{
	const struct lsb_chunk *ch = lsb_reader_chunk(r, i, j);

	if (!ch)
		return -LS_EINVAL;
	if (*cap < ch->raw_size || !*buf) {
		void *p = realloc(*buf, ch->raw_size ? ch->raw_size : 1);

		if (!p)
			return -LS_ENOMEM;
		*buf = p;
		*cap = ch->raw_size ? ch->raw_size : 1;
	}
	return lsb_reader_read_chunk(r, ch, *buf, *cap);
}

#endif
