/* unit_consume.c - analysis/consume.h: the block stream fanned out to
 * consumers in order, batches whole to those that take batches and block
 * by block to the others, the decoder's runs by reference to those that
 * take them and copied once for the others, the first error ending it,
 * and finish in the order they were added.  Expected values are counted by hand below. */
#include <string.h>

#include "analysis/consume.h"
#include "ls_err.h"
#include "tap.h"

struct log {
	char s[128];		/* one letter per call, in order */
	size_t n;
	int fail_at;		/* the call that returns -LS_EDECODE, 0 none */
};

static int put(struct log *l, char c)
{
	if (l->n + 1 < sizeof(l->s))
		l->s[l->n++] = c;
	return l->fail_at && (int)l->n == l->fail_at ? -LS_EDECODE : 0;
}

static int one(void *a, size_t st, const struct lsd_block *b)
{
	(void)st, (void)b;
	return put(a, 'b');
}

static int batch(void *a, size_t st, const struct lsd_block *b, size_t n)
{
	(void)st, (void)b;
	return put(a, (char)('0' + n));
}

static int loss(void *a, size_t st, const struct lsd_loss *l)
{
	(void)st, (void)l;
	return put(a, 'l');
}

static int fin(void *a, struct lsp_profile *p)
{
	(void)p;
	return put(a, 'f');
}

static const struct lsd_callbacks by_block = { .block = one, .loss = loss };
static const struct lsd_callbacks by_batch = { .blocks = batch };

/* A consumer of runs by reference: 's' and the number of runs; the
 * batch consumer's copy is checked against them by sum_exit. */
static const struct lsd_bspan *seen;
static int spans(void *a, size_t st, const struct lsd_bspan *s, size_t ns)
{
	(void)st;
	seen = s;
	put(a, 's');
	return put(a, (char)('0' + ns));
}

static unsigned sum;
static int sum_exit(void *a, size_t st, const struct lsd_block *b, size_t n)
{
	size_t i;

	(void)st;
	for (i = 0; i < n; i++)
		sum = sum * 31 + b[i].exit;
	return put(a, (char)('0' + n));
}

static const struct lsd_callbacks by_spans = { .blocks = batch, .spans = spans };
static const struct lsd_callbacks by_sum = { .blocks = sum_exit };

int main(void)
{
	struct lsa_consumers set;
	struct lsa_consumer c;
	struct log a, b, shared;
	struct lsd_block blk[3];
	struct lsp_profile *p;
	int i;

	memset(&set, 0, sizeof(set));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&shared, 0, sizeof(shared));
	memset(blk, 0, sizeof(blk));
	if (lsp_new(&p, 0) < 0)
		return 1;
	memset(&c, 0, sizeof(c));
	c.cb = &by_block, c.arg = &a, c.finish = fin, c.finish_arg = &shared;
	TAP_EQ(lsa_consumers_add(&set, &c), 0, "a block-by-block consumer");
	c.cb = &by_batch, c.arg = &b, c.finish = fin, c.finish_arg = NULL;
	TAP_EQ(lsa_consumers_add(&set, &c), 0, "a batch consumer (finish gets arg)");
	/* a batch of 3, a single block, a loss */
	TAP_EQ(lsa_consumers_callbacks.blocks(&set, 0, blk, 3), 0, "a batch of 3");
	TAP_EQ(lsa_consumers_callbacks.block(&set, 0, blk), 0, "one block");
	TAP_EQ(lsa_consumers_callbacks.loss(&set, 0, NULL), 0, "a loss");
	TAP_OK(!strcmp(a.s, "bbbbl"), "block by block: 3 + 1 blocks, then the loss ('%s')", a.s);
	TAP_OK(!strcmp(b.s, "31"), "batches: one of 3, one of 1, no loss callback ('%s')", b.s);
	TAP_EQ(lsa_consumers_finish(&set, p), 0, "finish");
	TAP_OK(!strcmp(shared.s, "f") && !strcmp(b.s, "31f"),
	       "finish_arg for the first, arg for the second");
	/* the first consumer fails at its 7th call: the second no longer runs */
	a.fail_at = 7;
	b.n = 0;
	memset(b.s, 0, sizeof(b.s));
	TAP_EQ(lsa_consumers_callbacks.blocks(&set, 0, blk, 3), -LS_EDECODE,
	       "an error in the middle of a batch is returned");
	TAP_OK(!strcmp(a.s, "bbbblbb") && !b.n, "... after the failing call, nothing ('%s', '%s')",
	       a.s, b.s);
	/* Runs by reference (the decoder's spans): as they are to a consumer
	 * that takes them, copied into one batch for the others, block by
	 * block to the third; runs of 2 and 3 blocks, each array with room
	 * for one more (lsd_spans_copy() copies in units of two). */
	{
		struct lsa_consumers s2;
		struct lsd_block r1[3], r2[4];
		struct lsd_bspan sp[2] = { { r1, 2, 0, 0 }, { r2, 3, 1, 0 } };
		struct log x, y, z;
		unsigned want = 0;

		memset(&s2, 0, sizeof(s2));
		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		memset(&z, 0, sizeof(z));
		memset(r1, 0, sizeof(r1));
		memset(r2, 0, sizeof(r2));
		r1[0].exit = 1, r1[1].exit = 2, r2[0].exit = 3, r2[1].exit = 4, r2[2].exit = 5;
		for (i = 1; i <= 5; i++)
			want = want * 31 + (unsigned)i;
		memset(&c, 0, sizeof(c));
		c.cb = &by_spans, c.arg = &x;
		lsa_consumers_add(&s2, &c);
		c.cb = &by_sum, c.arg = &y;
		lsa_consumers_add(&s2, &c);
		c.cb = &by_block, c.arg = &z;
		lsa_consumers_add(&s2, &c);
		TAP_OK(lsa_consumers_callbacks.spans != NULL, "the set takes runs by reference");
		TAP_EQ(lsa_consumers_callbacks.spans(&s2, 0, sp, 2), 0, "two runs, 5 blocks");
		TAP_OK(!strcmp(x.s, "s2") && seen == sp, "the runs as they are to the first ('%s')",
		       x.s);
		TAP_OK(!strcmp(y.s, "5") && sum == want,
		       "one batch of the 5 blocks in order to the second ('%s')", y.s);
		TAP_OK(!strcmp(z.s, "bbbbb"), "block by block to the third ('%s')", z.s);
		lsa_consumers_release(&s2);
		TAP_OK(!s2.fan.buf && !s2.fan.capbuf, "released");
		TAP_EQ(lsa_consumers_callbacks.spans(&s2, 0, sp, 1), 0, "usable after");
		TAP_OK(!strcmp(y.s, "52"), "... a batch of 2 ('%s')", y.s);
		lsa_consumers_release(&s2);
	}
	memset(&c, 0, sizeof(c));
	c.cb = &by_batch, c.arg = &b, c.finish = fin, c.finish_arg = NULL;
	for (i = (int)set.n; i < LSA_CONSUMERS_MAX; i++)
		lsa_consumers_add(&set, &c);
	TAP_EQ(lsa_consumers_add(&set, &c), -LS_EINVAL, "at most LSA_CONSUMERS_MAX");
	c.cb = NULL;
	memset(&set, 0, sizeof(set));
	TAP_EQ(lsa_consumers_add(&set, &c), -LS_EINVAL, "a consumer without callbacks");
	lsp_free(p);
	return TAP_DONE();
}
