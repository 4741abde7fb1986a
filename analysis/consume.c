/* consume.c - the block stream fanned out to the registered consumers. */
#include "analysis/consume.h"
#include "ls_err.h"

const struct lsd_callbacks lsa_consumers_none;

int lsa_consumers_add(struct lsa_consumers *s, const struct lsa_consumer *c)
{
	if (!s || !c || !c->cb || s->n >= LSA_CONSUMERS_MAX)
		return -LS_EINVAL;
	s->c[s->n++] = *c;
	return 0;
}

static int fan_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct lsa_consumers *s = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].cb->block)
			err = s->c[i].cb->block(s->c[i].arg, stream, b);
		else if (s->c[i].cb->blocks)
			err = s->c[i].cb->blocks(s->c[i].arg, stream, b, 1);
	return err;
}

/* A batch goes whole to consumers that take batches, block by block to
 * the others. */
static int fan_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct lsa_consumers *s = arg;
	size_t i, k;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++) {
		const struct lsa_consumer *c = &s->c[i];

		if (c->cb->blocks)
			err = c->cb->blocks(c->arg, stream, b, n);
		else if (c->cb->block)
			for (k = 0; k < n && err >= 0; k++)
				err = c->cb->block(c->arg, stream, &b[k]);
	}
	return err;
}

static int fan_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct lsa_consumers *s = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].cb->loss)
			err = s->c[i].cb->loss(s->c[i].arg, stream, l);
	return err;
}

static int fan_begin(void *arg, size_t stream, const struct lsb_stream *st)
{
	struct lsa_consumers *s = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].cb->stream_begin)
			err = s->c[i].cb->stream_begin(s->c[i].arg, stream, st);
	return err;
}

static int fan_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsa_consumers *s = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].cb->stream_end)
			err = s->c[i].cb->stream_end(s->c[i].arg, stream, st);
	return err;
}

static int fan_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct lsa_consumers *s = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].cb->thread)
			err = s->c[i].cb->thread(s->c[i].arg, stream, pid, tid);
	return err;
}

const struct lsd_callbacks lsa_consumers_callbacks = {
	.block = fan_block,
	.blocks = fan_blocks,
	.loss = fan_loss,
	.stream_begin = fan_begin,
	.stream_end = fan_end,
	.thread = fan_thread,
};

int lsa_consumers_finish(struct lsa_consumers *s, struct lsp_profile *p)
{
	size_t i;
	int err = 0;

	if (!s || !p)
		return -LS_EINVAL;
	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].finish)
			err = s->c[i].finish(s->c[i].finish_arg ? s->c[i].finish_arg :
					     s->c[i].arg, p);
	return err;
}
