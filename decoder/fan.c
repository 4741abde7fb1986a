/* fan.c - several analyses' callbacks as one set (struct lsd_fan,
 * decode.h): every callback to each member in the order they were
 * added, a batch whole to members that take batches and block by block
 * to the others, the first error ending it. */
#include <stdlib.h>

#include "decoder/fast_int.h"
#include "ls_err.h"

int lsd_fan_add(struct lsd_fan *f, const struct lsd_callbacks *cb, void *arg)
{
	if (!f || !cb || f->n >= LSD_FAN_MAX)
		return -LS_EINVAL;
	f->cb[f->n] = cb;
	f->arg[f->n++] = arg;
	return 0;
}

/* Blocks b[0 .. n) to member i: whole where it takes batches, else
 * block by block.  Returns its first error. */
static int member_blocks(const struct lsd_fan *f, size_t i, size_t stream,
			 const struct lsd_block *b, size_t n)
{
	const struct lsd_callbacks *cb = f->cb[i];
	size_t k;
	int err = 0;

	if (cb->blocks)
		return cb->blocks(f->arg[i], stream, b, n);
	for (k = 0; cb->block && k < n && err >= 0; k++)
		err = cb->block(f->arg[i], stream, &b[k]);
	return err;
}

static int fan_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	const struct lsd_fan *f = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < f->n && err >= 0; i++)
		err = member_blocks(f, i, stream, b, n);
	return err;
}

/* The decoder's runs: as they are to members with spans, copied into one
 * batch (once) for the others. */
static int fan_spans(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns)
{
	struct lsd_fan *f = arg;
	size_t i, n = 0;
	int err = 0, flat = 0;

	for (i = 0; i < f->n && err >= 0; i++) {
		const struct lsd_callbacks *cb = f->cb[i];

		if (cb->blocks && cb->spans) {
			err = cb->spans(f->arg[i], stream, s, ns);
			continue;
		}
		if (!flat && (err = lsd_spans_flat(&f->buf, &f->capbuf, s, ns, &n)))
			return err;
		flat = 1;
		err = member_blocks(f, i, stream, f->buf, n);
	}
	return err;
}

/* Runs are wanted while a member that takes them wants them. */
static int fan_want(void *arg)
{
	const struct lsd_fan *f = arg;
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct lsd_callbacks *cb = f->cb[i];

		if (cb->blocks && cb->spans && (!cb->want_spans || cb->want_spans(f->arg[i])))
			return 1;
	}
	return 0;
}

void lsd_fan_release(struct lsd_fan *f)
{
	if (!f)
		return;
	free(f->buf);
	f->buf = NULL;
	f->capbuf = 0;
}

static int fan_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return fan_blocks(arg, stream, b, 1);
}

/* The other callbacks: each member's, where it has one. */
#define FAN_EACH(name, call) \
	const struct lsd_fan *f = arg; \
	size_t i; \
	int err = 0; \
	for (i = 0; i < f->n && err >= 0; i++) \
		if (f->cb[i]->name) \
			err = f->cb[i]->call; \
	return err

static int fan_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	FAN_EACH(loss, loss(f->arg[i], stream, l));
}

static int fan_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	FAN_EACH(stream_begin, stream_begin(f->arg[i], stream, s));
}

static int fan_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	FAN_EACH(stream_end, stream_end(f->arg[i], stream, st));
}

static int fan_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	FAN_EACH(thread, thread(f->arg[i], stream, pid, tid));
}

const struct lsd_callbacks lsd_fan_callbacks = {
	.block = fan_block,
	.blocks = fan_blocks,
	.spans = fan_spans,
	.want_spans = fan_want,
	.loss = fan_loss,
	.stream_begin = fan_begin,
	.stream_end = fan_end,
	.thread = fan_thread,
};
