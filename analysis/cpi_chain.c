/* cpi_chain.c - inclusive ("total") figures of the sampled-CPI combiner
 * along each thread's exact call stack (cpi.h, lsa_cpi_chains()).
 *
 * The trace is decoded a second time through a graph builder whose
 * observer (cfg.h) reports every executed block with the frames of its
 * thread.  Every frame holds a position (its call block, the current
 * block on top), and a position holds its function and the loops of its
 * nest (innermost loop and its parents, per family): an item is active
 * while some position holds it, however many (recursion counts once).
 * Three clocks run per thread: instructions, cost and samples; a block
 * execution advances them after its position moved, and an item gains
 * what the clocks ran while it was active.
 *
 * A block's cost is spread over its executions in order, the k-th of n
 * getting floor((k+1)c/n) - floor(kc/n), so the parts are integers that
 * add up to c exactly: an item active at every execution of a block gets
 * its cost whole.  Samples (fractional after the skid fix) advance by
 * s/n.  So a sample is credited, per its instruction, to the loops and
 * functions on the call stacks in proportion to how often the trace ran
 * that instruction under each, which is exact where an instruction runs
 * under one stack only and the cost model of the whole combiner (one
 * cost per execution of an instruction) elsewhere.
 *
 * The top loop of a moment is the outermost loop (root of the nest) held
 * by the lowest frame holding any loop of the family; positions below
 * the top frame never move while it exists, so it changes only when the
 * top frame moves, is pushed or popped.  No top loop: outside every loop.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define NF LSA_CPI_NFAMILIES
#define NOLEVEL SIZE_MAX

struct clocks {
	uint64_t w;	/* cost */
	uint64_t i;	/* instructions */
	double s;	/* samples */
};

struct thr {
	struct clocks now;
	uint32_t *pos;		/* pos[0 .. depth]: blocks, LSA_CPI_NONE none */
	size_t depth, cap;
	size_t lowest[NF];	/* lowest level holding a loop, NOLEVEL */
	uint32_t top[NF];	/* its root loop, LSA_CPI_NONE: outside */
	struct clocks top_at[NF];
};

struct chain {
	struct lsa_cpi *p;
	size_t nb, nitems;	/* items: loops, then functions */
	uint64_t *bcost, *bseen;
	double *bsamp;
	uint32_t *act;		/* positions holding each item */
	struct clocks *snap, *inc;
	struct thr *thr;
	size_t nthr;
	uint32_t cur;		/* the thread whose clocks run, or NONE */
};

static uint32_t bfunc(const struct chain *ch, uint32_t b)
{
	return lsa_cfg_block(ch->p->cfg, b)->func;
}

static uint32_t bloop(const struct chain *ch, int fam, uint32_t b)
{
	return ch->p->blockloop[(size_t)fam * ch->nb + b];
}

static void touch(struct chain *ch, size_t x, int up)
{
	const struct clocks *c = &ch->thr[ch->cur].now;

	if (up) {
		if (ch->act[x]++ == 0)
			ch->snap[x] = *c;
		return;
	}
	if (!ch->act[x] || --ch->act[x])
		return;
	ch->inc[x].w += c->w - ch->snap[x].w;
	ch->inc[x].i += c->i - ch->snap[x].i;
	ch->inc[x].s += c->s - ch->snap[x].s;
}

/* Position b takes (up) or lets go of its function and loops. */
static void hold(struct chain *ch, uint32_t b, int up)
{
	uint32_t f = bfunc(ch, b), l;
	size_t guard;
	int fam;

	if (f != LSA_CFG_NONE)
		touch(ch, ch->p->nloops + f, up);
	for (fam = 0; fam < NF; fam++)
		for (l = bloop(ch, fam, b), guard = ch->p->nloops;
		     l != LSA_CPI_NONE && guard--; l = ch->p->loops[l].parent)
			touch(ch, l, up);
}

static int same_items(const struct chain *ch, uint32_t a, uint32_t b)
{
	int fam;

	if (bfunc(ch, a) != bfunc(ch, b))
		return 0;
	for (fam = 0; fam < NF; fam++)
		if (bloop(ch, fam, a) != bloop(ch, fam, b))
			return 0;
	return 1;
}

static uint32_t root(const struct lsa_cpi *p, uint32_t l)
{
	size_t guard = p->nloops;

	while (l != LSA_CPI_NONE && p->loops[l].parent != LSA_CPI_NONE && guard--)
		l = p->loops[l].parent;
	return l;
}

static void close_top(struct chain *ch, struct thr *t, int fam)
{
	uint64_t dw = t->now.w - t->top_at[fam].w, di = t->now.i - t->top_at[fam].i;
	double ds = t->now.s - t->top_at[fam].s;
	uint32_t x = t->top[fam];

	if (x == LSA_CPI_NONE) {
		ch->p->outside[fam].cost += dw;
		ch->p->outside[fam].insns += di;
		ch->p->outside[fam].samples += ds;
	} else {
		ch->p->loops[x].top_cost += dw;
		ch->p->loops[x].top_samples += ds;
	}
	t->top_at[fam] = t->now;
}

static void retop(struct chain *ch, struct thr *t, int fam)
{
	uint32_t x = t->lowest[fam] == NOLEVEL ? LSA_CPI_NONE :
		     root(ch->p, bloop(ch, fam, t->pos[t->lowest[fam]]));

	if (x == t->top[fam])
		return;
	close_top(ch, t, fam);
	t->top[fam] = x;
}

/* The top frame of t moves to block b (LSA_CPI_NONE: to no block). */
static void move(struct chain *ch, struct thr *t, uint32_t b)
{
	uint32_t a = t->pos[t->depth];
	int fam;

	if (a == b)
		return;
	if (a == LSA_CPI_NONE || b == LSA_CPI_NONE || !same_items(ch, a, b)) {
		if (b != LSA_CPI_NONE)
			hold(ch, b, 1);		/* first, so shared items stay */
		if (a != LSA_CPI_NONE)
			hold(ch, a, 0);
	}
	t->pos[t->depth] = b;
	for (fam = 0; fam < NF; fam++) {
		if (t->lowest[fam] != NOLEVEL && t->lowest[fam] < t->depth)
			continue;
		t->lowest[fam] = b != LSA_CPI_NONE && bloop(ch, fam, b) != LSA_CPI_NONE ?
				 t->depth : NOLEVEL;
		retop(ch, t, fam);
	}
}

/* Another thread's blocks come: the current one's items stop (its clocks
 * stop too), ctx's start again where its clocks stand. */
static int load(struct chain *ch, uint32_t ctx)
{
	struct thr *t;
	size_t k;
	int fam;

	if (ctx == ch->cur)
		return 0;
	if (ch->cur != LSA_CPI_NONE) {
		t = &ch->thr[ch->cur];
		for (k = 0; k <= t->depth; k++)
			if (t->pos[k] != LSA_CPI_NONE)
				hold(ch, t->pos[k], 0);
		for (fam = 0; fam < NF; fam++)
			close_top(ch, t, fam);
		ch->cur = LSA_CPI_NONE;
	}
	if (ctx == LSA_CPI_NONE)
		return 0;
	if (ctx >= ch->nthr) {
		size_t n = ctx + 8, i;
		struct thr *nt = realloc(ch->thr, n * sizeof(*nt));

		if (!nt)
			return -LS_ENOMEM;
		for (i = ch->nthr; i < n; i++) {
			memset(&nt[i], 0, sizeof(nt[i]));
			for (fam = 0; fam < NF; fam++) {
				nt[i].lowest[fam] = NOLEVEL;
				nt[i].top[fam] = LSA_CPI_NONE;
			}
		}
		ch->thr = nt;
		ch->nthr = n;
	}
	t = &ch->thr[ctx];
	if (!t->pos) {
		t->cap = 64;
		if (!(t->pos = malloc(t->cap * sizeof(*t->pos))))
			return -LS_ENOMEM;
		t->pos[0] = LSA_CPI_NONE;
	}
	ch->cur = ctx;
	for (k = 0; k <= t->depth; k++)
		if (t->pos[k] != LSA_CPI_NONE)
			hold(ch, t->pos[k], 1);
	for (fam = 0; fam < NF; fam++)
		t->top_at[fam] = t->now;
	return 0;
}

/* The walk of thread ctx, its clocks running. */
static struct thr *enter(struct chain *ch, uint32_t ctx, int *err)
{
	*err = ctx == LSA_CPI_NONE ? -LS_EINVAL : load(ch, ctx);
	return *err < 0 ? NULL : &ch->thr[ctx];
}

static int on_block(void *arg, uint32_t ctx, uint32_t id)
{
	struct chain *ch = arg;
	struct thr *t;
	uint64_t n, k;
	int err;

	if (id >= ch->nb || !lsa_cfg_block(ch->p->cfg, id)->sb)
		return -LS_ECORRUPT;	/* the first decode never ran it */
	if (!(t = enter(ch, ctx, &err)))
		return err;
	move(ch, t, id);
	n = lsa_cfg_block(ch->p->cfg, id)->count;
	k = ch->bseen[id]++;
	if (k >= n)
		return -LS_ECORRUPT;
	t->now.i += lsa_cfg_block(ch->p->cfg, id)->sb->ninsn;
	if (ch->bcost[id]) {
		unsigned __int128 c = ch->bcost[id];

		t->now.w += (uint64_t)((c * (k + 1)) / n - (c * k) / n);
	}
	t->now.s += ch->bsamp[id] / (double)n;
	return 0;
}

static int on_push(void *arg, uint32_t ctx, uint32_t callblk)
{
	struct chain *ch = arg;
	struct thr *t;
	int err;

	if (callblk >= ch->nb)
		return -LS_ECORRUPT;
	if (!(t = enter(ch, ctx, &err)))
		return err;
	move(ch, t, callblk);
	if (LS_GROW(t->pos, t->depth + 2, t->cap, 16))
		return -LS_ENOMEM;
	t->pos[++t->depth] = LSA_CPI_NONE;
	return 0;
}

static int on_pop(void *arg, uint32_t ctx, uint32_t callblk)
{
	struct chain *ch = arg;
	struct thr *t;
	int err;

	if (callblk >= ch->nb)
		return -LS_ECORRUPT;
	if (!(t = enter(ch, ctx, &err)))
		return err;
	if (!t->depth)
		return -LS_ECORRUPT;	/* the graph pops only frames it pushed */
	move(ch, t, LSA_CPI_NONE);
	t->depth--;
	move(ch, t, callblk);	/* where it stood: no change */
	return 0;
}

static int on_end(void *arg, uint32_t ctx)
{
	struct chain *ch = arg;
	struct thr *t;
	int err;

	if (!(t = enter(ch, ctx, &err)))
		return err;
	while (t->depth) {
		move(ch, t, LSA_CPI_NONE);
		t->depth--;
	}
	move(ch, t, LSA_CPI_NONE);
	return 0;
}

/* Cost and samples of every block, after attribution. */
static int block_sums(struct chain *ch)
{
	size_t b;

	ch->bcost = calloc(ch->nb + 1, sizeof(*ch->bcost));
	ch->bseen = calloc(ch->nb + 1, sizeof(*ch->bseen));
	ch->bsamp = calloc(ch->nb + 1, sizeof(*ch->bsamp));
	ch->act = calloc(ch->nitems + 1, sizeof(*ch->act));
	ch->snap = calloc(ch->nitems + 1, sizeof(*ch->snap));
	ch->inc = calloc(ch->nitems + 1, sizeof(*ch->inc));
	if (!ch->bcost || !ch->bseen || !ch->bsamp || !ch->act || !ch->snap || !ch->inc)
		return -LS_ENOMEM;
	for (b = 0; b < ch->nb; b++) {
		struct lsa_cpi_agg a;

		if (lsa_cpi_block_agg(ch->p, (uint32_t)b, &a) < 0)
			continue;
		ch->bcost[b] = a.cost;
		ch->bsamp[b] = a.samples;
	}
	return 0;
}

static void chain_free(struct chain *ch)
{
	size_t i;

	for (i = 0; i < ch->nthr; i++)
		free(ch->thr[i].pos);
	free(ch->thr);
	free(ch->bcost);
	free(ch->bseen);
	free(ch->bsamp);
	free(ch->act);
	free(ch->snap);
	free(ch->inc);
}

int lsa_cpi_chains(struct lsa_cpi *p, struct lsd_decoder *d)
{
	struct chain ch;
	struct lsa_cfg_observer obs = { .block = on_block, .push = on_push,
					.pop = on_pop, .end = on_end };
	struct lsa_cfg_opts co = { .size = sizeof(co), .obs = &obs };
	struct lsa_cfg *walk = NULL;
	size_t i, nf;
	int err;

	if (!p || !d || !p->blockloop || !p->funcs)
		return -LS_EINVAL;
	memset(&ch, 0, sizeof(ch));
	ch.p = p;
	ch.nb = lsa_cfg_nblocks(p->cfg);
	nf = lsa_cfg_nfuncs(p->cfg);
	ch.nitems = p->nloops + nf;
	ch.cur = LSA_CPI_NONE;
	obs.arg = &ch;
	for (i = 0; i < p->nloops; i++) {
		p->loops[i].top_cost = 0;
		p->loops[i].top_samples = 0;
	}
	memset(p->outside, 0, sizeof(p->outside));
	if ((err = block_sums(&ch)) < 0 ||
	    (err = lsa_cfg_new(&walk, NULL, &co)) < 0 ||
	    (err = lsa_cfg_build(walk, d)) < 0 ||
	    (err = load(&ch, LSA_CPI_NONE)) < 0)
		goto out;
	/* The second decode must run what the first did, block for block. */
	for (i = 0; i < ch.nb; i++)
		if (ch.bseen[i] != lsa_cfg_block(p->cfg, (uint32_t)i)->count) {
			err = -LS_ECORRUPT;
			goto out;
		}
	for (i = 0; i < ch.nitems; i++) {
		struct lsa_cpi_agg *a = i < p->nloops ? &p->loops[i].total :
					&p->funcs[i - p->nloops].total;

		a->cost = ch.inc[i].w;
		a->insns = ch.inc[i].i;
		a->samples = ch.inc[i].s;
	}
	p->have_chains = 1;
out:
	lsa_cfg_free(walk);
	chain_free(&ch);
	return err < 0 ? err : 0;
}
