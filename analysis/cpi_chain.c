/* cpi_chain.c - inclusive ("total") figures of the sampled-CPI combiner
 * along each thread's exact call stack (cpi.h, lsa_cpi_chains()), from
 * the stacks counted while the graph was built (cpi_stack.c).
 *
 * A position (a frame's block: its call block, the current block on top)
 * holds its function and the loops of its nest (innermost loop and its
 * parents, per family); an item is active while some position holds it,
 * however many (recursion counts once).  A count says block b ran e
 * times on a stack whose call blocks are those of its node: the items
 * active at those executions are what the node's call blocks and b hold,
 * so each item is credited e executions of b.  Summed per block, an item
 * active at e of its n executions gets e / n of the block's cost
 * (floor(c e / n), integers; all of it when e = n), its samples and e
 * times its instructions.  That is exact where an instruction runs under
 * one stack only, and the cost model of the whole combiner (one cost per
 * execution of an instruction) elsewhere.
 *
 * The top loop of a moment is the outermost loop (root of the nest) held
 * by the lowest frame holding any loop of the family: the first call
 * block of the node in a loop, else the block's own.  No top loop:
 * outside every loop.  The tops and the outside share every execution,
 * so their parts of a block's cost are split by largest remainder and
 * add up to it exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi_int.h"
#include "ls_err.h"

#define NF LSA_CPI_NFAMILIES

struct acc {
	uint64_t *e;		/* per item (or loop): executions this block */
	uint8_t *in;		/* in list[] */
	uint32_t *list;
	size_t n;
};

struct chain {
	struct lsa_cpi *p;
	const struct lsa_cpi_node *nodes;
	size_t nnodes, nb, nitems;
	size_t *stamp, now;	/* per item: the count that credited it last */
	struct acc items, tops[NF];
	uint64_t out[NF];	/* executions outside every loop, this block */
	uint32_t *ntop[NF];	/* per node: top loop of its call blocks */
};

static uint32_t bloop(const struct chain *ch, int fam, uint32_t b)
{
	return ch->p->blockloop[(size_t)fam * ch->nb + b];
}

static uint32_t root(const struct lsa_cpi *p, uint32_t l)
{
	size_t guard = p->nloops;

	while (l != LSA_CPI_NONE && p->loops[l].parent != LSA_CPI_NONE && guard--)
		l = p->loops[l].parent;
	return l;
}

static void acc_add(struct acc *a, uint32_t x, uint64_t e)
{
	if (!a->in[x]) {
		a->in[x] = 1;
		a->e[x] = 0;
		a->list[a->n++] = x;
	}
	a->e[x] += e;
}

static void credit(struct chain *ch, size_t x, uint64_t e)
{
	if (ch->stamp[x] == ch->now)
		return;
	ch->stamp[x] = ch->now;
	acc_add(&ch->items, (uint32_t)x, e);
}

/* Position b holds its function and loops: credited e executions. */
static void hold(struct chain *ch, uint32_t b, uint64_t e)
{
	uint32_t f = lsa_cfg_block(ch->p->cfg, b)->func, l;
	size_t guard;
	int fam;

	if (f != LSA_CFG_NONE)
		credit(ch, ch->p->nloops + f, e);
	for (fam = 0; fam < NF; fam++)
		for (l = bloop(ch, fam, b), guard = ch->p->nloops;
		     l != LSA_CPI_NONE && guard--; l = ch->p->loops[l].parent)
			credit(ch, l, e);
}

static void count_in(struct chain *ch, const struct lsa_cpi_count *k)
{
	uint32_t n;
	int fam;

	ch->now++;
	for (n = k->node; n && n < ch->nnodes; n = ch->nodes[n].parent)
		hold(ch, ch->nodes[n].callblk, k->count);
	hold(ch, k->block, k->count);
	for (fam = 0; fam < NF; fam++) {
		uint32_t t = k->node < ch->nnodes ? ch->ntop[fam][k->node] : LSA_CPI_NONE;

		if (t == LSA_CPI_NONE)
			t = root(ch->p, bloop(ch, fam, k->block));
		if (t == LSA_CPI_NONE)
			ch->out[fam] += k->count;
		else
			acc_add(&ch->tops[fam], t, k->count);
	}
}

/* x's part of cost c over n executions, e of them; all when e = n. */
static uint64_t part(uint64_t c, uint64_t e, uint64_t n)
{
	return e == n ? c : (uint64_t)(((unsigned __int128)c * e) / n);
}

static double spart(double s, uint64_t e, uint64_t n)
{
	return e == n ? s : s * (double)e / (double)n;
}

/* The tops and the outside of family fam share block b's cost c. */
static void split_tops(struct chain *ch, int fam, uint64_t c, double s, uint64_t n,
		       uint64_t ni)
{
	struct acc *a = &ch->tops[fam];
	struct lsa_cpi *p = ch->p;
	uint64_t given = 0, left, rout, pout;
	size_t i;

	/* floors first; the remainders in a->e afterwards */
	pout = (uint64_t)(((unsigned __int128)c * ch->out[fam]) / n);
	rout = (uint64_t)(((unsigned __int128)c * ch->out[fam]) % n);
	given += pout;
	for (i = 0; i < a->n; i++) {
		uint32_t t = a->list[i];
		unsigned __int128 q = (unsigned __int128)c * a->e[t];

		p->loops[t].top_cost += (uint64_t)(q / n);
		p->loops[t].top_samples += spart(s, a->e[t], n);
		given += (uint64_t)(q / n);
		a->e[t] = (uint64_t)(q % n);
	}
	/* one unit each to the largest remainders (ties: the outside, then
	 * the loops in the order they came) */
	for (left = c - given; left; left--) {
		uint64_t best = rout;
		size_t bi = SIZE_MAX;

		for (i = 0; i < a->n; i++)
			if (a->e[a->list[i]] > best)
				best = a->e[a->list[i]], bi = i;
		if (bi == SIZE_MAX) {
			pout++;
			rout = 0;
		} else {
			p->loops[a->list[bi]].top_cost++;
			a->e[a->list[bi]] = 0;
		}
	}
	p->outside[fam].cost += pout;
	p->outside[fam].insns += ni * ch->out[fam];
	p->outside[fam].samples += spart(s, ch->out[fam], n);
	for (i = 0; i < a->n; i++)
		a->in[a->list[i]] = 0;
	a->n = 0;
	ch->out[fam] = 0;
}

/* Block b's counts are in: its cost to the items. */
static void block_done(struct chain *ch, uint32_t b)
{
	const struct lsa_cfg_block *cb = lsa_cfg_block(ch->p->cfg, b);
	struct lsa_cpi_agg ba;
	uint64_t n = cb->count, ni = cb->sb->ninsn;
	size_t i;
	int fam;

	if (lsa_cpi_block_agg(ch->p, b, &ba) < 0)
		memset(&ba, 0, sizeof(ba));
	for (i = 0; i < ch->items.n; i++) {
		uint32_t x = ch->items.list[i];
		uint64_t e = ch->items.e[x];
		struct lsa_cpi_agg *a = x < ch->p->nloops ? &ch->p->loops[x].total :
					&ch->p->funcs[x - ch->p->nloops].total;

		a->cost += part(ba.cost, e, n);
		a->insns += ni * e;
		a->samples += spart(ba.samples, e, n);
		ch->items.in[x] = 0;
	}
	ch->items.n = 0;
	for (fam = 0; fam < NF; fam++)
		split_tops(ch, fam, ba.cost, ba.samples, n, ni);
}

static int acc_init(struct acc *a, size_t n)
{
	a->e = calloc(n + 1, sizeof(*a->e));
	a->in = calloc(n + 1, 1);
	a->list = malloc((n + 1) * sizeof(*a->list));
	return a->e && a->in && a->list ? 0 : -LS_ENOMEM;
}

static void acc_free(struct acc *a)
{
	free(a->e);
	free(a->in);
	free(a->list);
}

static int chain_init(struct chain *ch)
{
	size_t i;
	int fam;

	ch->stamp = calloc(ch->nitems + 1, sizeof(*ch->stamp));
	if (!ch->stamp || acc_init(&ch->items, ch->nitems) < 0)
		return -LS_ENOMEM;
	for (fam = 0; fam < NF; fam++) {
		if (acc_init(&ch->tops[fam], ch->p->nloops) < 0 ||
		    !(ch->ntop[fam] = malloc((ch->nnodes + 1) * sizeof(uint32_t))))
			return -LS_ENOMEM;
		/* a node's parent comes before it */
		for (i = 0; i < ch->nnodes; i++) {
			const struct lsa_cpi_node *nd = &ch->nodes[i];
			uint32_t t = LSA_CPI_NONE;

			if (i && nd->parent < i)
				t = ch->ntop[fam][nd->parent];
			if (i && t == LSA_CPI_NONE && nd->callblk < ch->nb)
				t = root(ch->p, bloop(ch, fam, nd->callblk));
			ch->ntop[fam][i] = t;
		}
	}
	return 0;
}

static void chain_free(struct chain *ch)
{
	int fam;

	free(ch->stamp);
	acc_free(&ch->items);
	for (fam = 0; fam < NF; fam++) {
		acc_free(&ch->tops[fam]);
		free(ch->ntop[fam]);
	}
}

int lsa_cpi_chains(struct lsa_cpi *p, const struct lsa_cpi_stacks *s)
{
	struct chain ch;
	struct lsa_cpi_count *k = NULL;
	size_t nk = 0, i, j, nf;
	int err;

	if (!p || !s || !p->blockloop || !p->funcs)
		return -LS_EINVAL;
	memset(&ch, 0, sizeof(ch));
	ch.p = p;
	ch.nb = lsa_cfg_nblocks(p->cfg);
	nf = lsa_cfg_nfuncs(p->cfg);
	ch.nitems = p->nloops + nf;
	ch.nodes = lsa_cpi_stacks_nodes(s, &ch.nnodes);
	for (i = 0; i < p->nloops; i++) {
		p->loops[i].top_cost = 0;
		p->loops[i].top_samples = 0;
		memset(&p->loops[i].total, 0, sizeof(p->loops[i].total));
	}
	for (i = 0; i < nf; i++)
		memset(&p->funcs[i].total, 0, sizeof(p->funcs[i].total));
	memset(p->outside, 0, sizeof(p->outside));
	if ((err = chain_init(&ch)) < 0 || (err = lsa_cpi_stacks_counts(s, &k, &nk)) < 0)
		goto out;
	/* The stacks must have seen what the graph counted, block for block. */
	for (i = 0, j = 0; i < ch.nb; i++) {
		const struct lsa_cfg_block *b = lsa_cfg_block(p->cfg, (uint32_t)i);
		uint64_t seen = 0;
		size_t j0 = j;

		for (; j < nk && k[j].block == i; j++)
			seen += k[j].count;
		if (seen != (b->sb ? b->count : 0)) {
			err = -LS_ECORRUPT;
			goto out;
		}
		if (!seen)
			continue;
		for (; j0 < j; j0++)
			count_in(&ch, &k[j0]);
		block_done(&ch, (uint32_t)i);
	}
	if (j != nk) {
		err = -LS_ECORRUPT;	/* a block the graph does not have */
		goto out;
	}
	p->have_chains = 1;
out:
	free(k);
	chain_free(&ch);
	return err < 0 ? err : 0;
}
