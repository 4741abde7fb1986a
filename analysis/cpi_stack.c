/* cpi_stack.c - the call stacks of the trace, counted while the graph is
 * built (cpi.h, lsa_cpi_stacks_*), so the CPI totals need no second
 * decode.
 *
 * What a loop's or a function's total needs of a block is how often the
 * block ran while the item was on the stack; which items are is decided
 * by the call blocks of the frames below the block's own, and the top
 * loop by the lowest of them that lies in a loop.  Both depend only on
 * the distinct call blocks in the order they first appear from the
 * bottom, so a stack is kept as that sequence, interned as a node of a
 * tree (a calling-context tree with repeats folded: a call block already
 * on the stack, recursion, leaves the node as it is).  The loops are not
 * known during the decode (they come from its end), so nodes hold call
 * blocks, not items.  Per (node, block) one counter: memory grows with
 * the code and its call paths, not with the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define EMPTY UINT64_MAX

struct slot {
	uint64_t key;		/* node << 32 | block (or callblk), EMPTY */
	uint64_t val;		/* count, or the child node */
};

struct table {
	struct slot *s;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

struct sthr {
	uint32_t *stk;		/* node per frame; stk[0] = 0, the root */
	size_t depth, cap;
};

struct lsa_cpi_stacks {
	struct lsa_cpi_node *nodes;
	size_t nnodes, capnodes;
	struct table trans;	/* (node, call block) -> node */
	struct table cnt;	/* (node, block) -> executions */
	struct sthr *thr;
	size_t nthr;
};

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 31;
	k *= 0x9e3779b97f4a7c15ull;
	k ^= k >> 29;
	return (size_t)k & (cap - 1);
}

static int grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct slot *s = malloc(cap * sizeof(*s));

	if (!s || cap > SIZE_MAX / 2 / sizeof(*s)) {
		free(s);
		return -LS_ENOMEM;
	}
	for (i = 0; i < cap; i++)
		s[i].key = EMPTY;
	for (i = 0; i < t->cap; i++) {
		size_t h;

		if (t->s[i].key == EMPTY)
			continue;
		for (h = hash(t->s[i].key, cap); s[h].key != EMPTY; h = (h + 1) & (cap - 1))
			;
		s[h] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->cap = cap;
	return 0;
}

/* The slot of key, made (value 0) when new; NULL when out of memory. */
static struct slot *find(struct table *t, uint64_t key, int *isnew)
{
	size_t h;

	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return NULL;
	for (h = hash(key, t->cap); t->s[h].key != EMPTY; h = (h + 1) & (t->cap - 1))
		if (t->s[h].key == key) {
			*isnew = 0;
			return &t->s[h];
		}
	t->s[h].key = key;
	t->s[h].val = 0;
	t->n++;
	*isnew = 1;
	return &t->s[h];
}

int lsa_cpi_stacks_new(struct lsa_cpi_stacks **ps)
{
	struct lsa_cpi_stacks *s;

	if (!ps)
		return -LS_EINVAL;
	*ps = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -LS_ENOMEM;
	s->nodes = malloc(64 * sizeof(*s->nodes));
	if (!s->nodes) {
		free(s);
		return -LS_ENOMEM;
	}
	s->capnodes = 64;
	s->nodes[0].parent = LSA_CPI_NONE;	/* the root: no call below */
	s->nodes[0].callblk = LSA_CPI_NONE;
	s->nnodes = 1;
	*ps = s;
	return 0;
}

void lsa_cpi_stacks_free(struct lsa_cpi_stacks *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nthr; i++)
		free(s->thr[i].stk);
	free(s->thr);
	free(s->nodes);
	free(s->trans.s);
	free(s->cnt.s);
	free(s);
}

/* Thread ctx's stack, made when new; NULL when out of memory. */
static struct sthr *thread(struct lsa_cpi_stacks *s, uint32_t ctx)
{
	struct sthr *t;

	if (ctx >= s->nthr) {
		size_t n = (size_t)ctx + 8;
		struct sthr *nt = realloc(s->thr, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + s->nthr, 0, (n - s->nthr) * sizeof(*nt));
		s->thr = nt;
		s->nthr = n;
	}
	t = &s->thr[ctx];
	if (!t->stk) {
		if (!(t->stk = malloc(16 * sizeof(*t->stk))))
			return NULL;
		t->cap = 16;
		t->stk[0] = 0;
	}
	return t;
}

static int on_block(void *arg, uint32_t ctx, uint32_t id)
{
	struct lsa_cpi_stacks *s = arg;
	struct sthr *t = thread(s, ctx);
	struct slot *sl;
	int isnew;

	if (!t || !(sl = find(&s->cnt, (uint64_t)t->stk[t->depth] << 32 | id, &isnew)))
		return -LS_ENOMEM;
	sl->val++;
	return 0;
}

static int on_push(void *arg, uint32_t ctx, uint32_t callblk)
{
	struct lsa_cpi_stacks *s = arg;
	struct sthr *t = thread(s, ctx);
	struct slot *sl;
	uint32_t cur, n;
	int isnew;

	if (!t || LS_GROW(t->stk, t->depth + 2, t->cap, 16))
		return -LS_ENOMEM;
	cur = t->stk[t->depth];
	if (!(sl = find(&s->trans, (uint64_t)cur << 32 | callblk, &isnew)))
		return -LS_ENOMEM;
	if (isnew) {
		/* a call block already on the stack changes nothing */
		for (n = cur; n && s->nodes[n].callblk != callblk; n = s->nodes[n].parent)
			;
		if (n) {
			sl->val = cur;
		} else {
			if (s->nnodes >= UINT32_MAX - 1 ||
			    LS_GROW(s->nodes, s->nnodes + 1, s->capnodes, 64))
				return -LS_ENOMEM;
			s->nodes[s->nnodes].parent = cur;
			s->nodes[s->nnodes].callblk = callblk;
			sl->val = s->nnodes++;
		}
	}
	t->stk[++t->depth] = (uint32_t)sl->val;
	return 0;
}

static int on_pop(void *arg, uint32_t ctx, uint32_t callblk)
{
	struct lsa_cpi_stacks *s = arg;
	struct sthr *t = thread(s, ctx);

	(void)callblk;
	if (!t)
		return -LS_ENOMEM;
	if (!t->depth)
		return -LS_ECORRUPT;	/* the graph pops only frames it pushed */
	t->depth--;
	return 0;
}

static int on_end(void *arg, uint32_t ctx)
{
	struct lsa_cpi_stacks *s = arg;
	struct sthr *t = thread(s, ctx);

	if (!t)
		return -LS_ENOMEM;
	t->depth = 0;
	return 0;
}

void lsa_cpi_stacks_observer(struct lsa_cpi_stacks *s, struct lsa_cfg_observer *o)
{
	memset(o, 0, sizeof(*o));
	o->arg = s;
	o->block = on_block;
	o->push = on_push;
	o->pop = on_pop;
	o->end = on_end;
}

static int cmp_count(const void *a, const void *b)
{
	const struct lsa_cpi_count *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

int lsa_cpi_stacks_counts(const struct lsa_cpi_stacks *s, struct lsa_cpi_count **out,
			  size_t *n)
{
	struct lsa_cpi_count *c;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	c = malloc((s->cnt.n ? s->cnt.n : 1) * sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	for (i = 0; i < s->cnt.cap; i++) {
		if (s->cnt.s[i].key == EMPTY)
			continue;
		c[k].node = (uint32_t)(s->cnt.s[i].key >> 32);
		c[k].block = (uint32_t)s->cnt.s[i].key;
		c[k].count = s->cnt.s[i].val;
		k++;
	}
	qsort(c, k, sizeof(*c), cmp_count);
	*out = c;
	*n = k;
	return 0;
}

const struct lsa_cpi_node *lsa_cpi_stacks_nodes(const struct lsa_cpi_stacks *s,
						size_t *n)
{
	*n = s->nnodes;
	return s->nodes;
}
