/* cpi_agg.c - loops and functions of the sampled-CPI combiner: natural
 * loop bodies, nesting and self sums (cpi.h); totals: cpi_chain.c. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int lsa_cpi_natural_body(const struct lsa_cfg *c, uint32_t header,
			 const uint32_t *tails, size_t ntails, uint32_t **out)
{
	size_t nb = lsa_cfg_nblocks(c), n = 0, k;
	const struct lsa_cfg_block *h = lsa_cfg_block(c, header);
	uint8_t *mark;
	uint32_t *list;

	if (!out || !h || !h->sb || (ntails && !tails))
		return -LS_EINVAL;
	*out = NULL;
	mark = calloc(nb, 1);
	list = malloc(nb * sizeof(*list));
	if (!mark || !list) {
		free(mark);
		free(list);
		return -LS_ENOMEM;
	}
	mark[header] = 1;
	list[n++] = header;
	for (k = 0; k < ntails; k++) {
		const struct lsa_cfg_block *t = lsa_cfg_block(c, tails[k]);

		if (t && t->func == h->func && !mark[tails[k]]) {
			mark[tails[k]] = 1;
			list[n++] = tails[k];
		}
	}
	/* Backwards from the tails; the header is marked, so the walk
	 * stops there.  list[1 .. n) is the work list as it grows. */
	for (k = 1; k < n; k++) {
		const uint32_t *l;
		size_t m = lsa_cfg_edges_of(c, list[k], 0, &l), j;

		for (j = 0; j < m; j++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(c, l[j]);
			const struct lsa_cfg_block *f;

			if (e->from == LSA_CFG_NONE || !lsa_cfg_is_flow(e) ||
			    mark[e->from])
				continue;
			f = lsa_cfg_block(c, e->from);
			if (!f || f->func != h->func)
				continue;
			mark[e->from] = 1;
			list[n++] = e->from;
		}
	}
	free(mark);
	qsort(list, n, sizeof(*list), cmp_u32);
	*out = list;
	return (int)n;
}

int lsa_cpi_loop_add(struct lsa_cpi *p, int family, uint32_t header,
		     const uint32_t *blocks, size_t nblocks)
{
	const struct lsa_cfg_block *h = lsa_cfg_block(p->cfg, header);
	struct lsa_cpi_loop *l;

	if (!h || !h->sb || family < 0 || family >= LSA_CPI_NFAMILIES ||
	    !nblocks || !blocks || nblocks > UINT32_MAX)
		return -LS_EINVAL;
	if (LS_GROW(p->loops, p->nloops + 1, p->caploops, 64))
		return -LS_ENOMEM;
	l = &p->loops[p->nloops];
	memset(l, 0, sizeof(*l));
	l->blocks = malloc(nblocks * sizeof(*l->blocks));
	if (!l->blocks)
		return -LS_ENOMEM;
	memcpy(l->blocks, blocks, nblocks * sizeof(*blocks));
	qsort(l->blocks, nblocks, sizeof(*blocks), cmp_u32);
	l->family = family;
	l->func = h->func;
	l->header = header;
	l->nblocks = (uint32_t)nblocks;
	l->parent = LSA_CPI_NONE;
	l->iterations = h->count;
	return (int)p->nloops++;
}

static int has_block(const struct lsa_cpi_loop *l, uint32_t b)
{
	return bsearch(&b, l->blocks, l->nblocks, sizeof(b), cmp_u32) != NULL;
}

/* Innermost loop per block (the smallest body holding it) and each
 * loop's parent (the smallest larger loop of its function and family
 * holding its header). */
static void nest(struct lsa_cpi *p, size_t nb)
{
	size_t i, j, k;

	for (i = 0; i < p->nloops; i++) {
		struct lsa_cpi_loop *l = &p->loops[i];
		uint32_t *bl = p->blockloop + (size_t)l->family * nb;

		for (k = 0; k < l->nblocks; k++) {
			uint32_t b = l->blocks[k], cur = bl[b];

			if (cur == LSA_CPI_NONE || p->loops[cur].nblocks > l->nblocks)
				bl[b] = (uint32_t)i;
		}
	}
	for (i = 0; i < p->nloops; i++) {
		struct lsa_cpi_loop *l = &p->loops[i];

		for (j = 0; j < p->nloops; j++) {
			const struct lsa_cpi_loop *m = &p->loops[j];

			if (j == i || m->family != l->family || m->func != l->func ||
			    m->nblocks <= l->nblocks || !has_block(m, l->header))
				continue;
			if (l->parent == LSA_CPI_NONE ||
			    p->loops[l->parent].nblocks > m->nblocks)
				l->parent = (uint32_t)j;
		}
	}
}

static void add_agg(struct lsa_cpi_agg *a, double samples, uint64_t cost)
{
	a->samples += samples;
	a->cost += cost;
}

/* Self figures: each part of a sample goes to its instruction's function
 * and innermost loop per family.  Totals follow the call stacks of the
 * trace (cpi_chain.c). */
static void on_fragment(void *arg, uint32_t insn, double samples, uint64_t cost)
{
	struct lsa_cpi *p = arg;
	size_t nb = lsa_cfg_nblocks(p->cfg);
	uint32_t b = p->insns[insn].block, f = lsa_cfg_block(p->cfg, b)->func;
	int fam;

	if (f != LSA_CFG_NONE)
		add_agg(&p->funcs[f].self, samples, cost);
	for (fam = 0; fam < LSA_CPI_NFAMILIES; fam++) {
		uint32_t in = p->blockloop[(size_t)fam * nb + b];

		if (in != LSA_CPI_NONE)
			add_agg(&p->loops[in].self, samples, cost);
	}
}

/* Executed instructions of the blocks each loop is innermost for, and
 * of each function's own blocks. */
static void count_insns(struct lsa_cpi *p, size_t nb)
{
	size_t i, nf = lsa_cfg_nfuncs(p->cfg);
	uint32_t b;
	int fam;

	for (b = 0; b < nb; b++) {
		const struct lsa_cfg_block *x = lsa_cfg_block(p->cfg, b);

		if (!x->sb || !x->count)
			continue;
		for (fam = 0; fam < LSA_CPI_NFAMILIES; fam++) {
			uint32_t l = p->blockloop[(size_t)fam * nb + b];

			if (l != LSA_CPI_NONE)
				p->loops[l].self.insns += x->count * x->sb->ninsn;
		}
	}
	for (i = 0; i < nf; i++)
		p->funcs[i].self.insns = lsa_cfg_func(p->cfg, (uint32_t)i)->insns;
}

int lsa_cpi_finish(struct lsa_cpi *p)
{
	size_t nb = lsa_cfg_nblocks(p->cfg), nf = lsa_cfg_nfuncs(p->cfg), i;
	int err = 0;

	free(p->blockloop);
	free(p->funcs);
	p->have_chains = 0;
	p->blockloop = malloc((nb ? nb : 1) * LSA_CPI_NFAMILIES * sizeof(uint32_t));
	p->funcs = calloc(nf ? nf : 1, sizeof(*p->funcs));
	if (!p->blockloop || !p->funcs)
		return -LS_ENOMEM;
	for (i = 0; i < nb * LSA_CPI_NFAMILIES; i++)
		p->blockloop[i] = LSA_CPI_NONE;
	memset(p->outside, 0, sizeof(p->outside));
	for (i = 0; i < p->nloops; i++) {
		struct lsa_cpi_loop *l = &p->loops[i];

		memset(&l->self, 0, sizeof(l->self));
		memset(&l->total, 0, sizeof(l->total));
		l->top_cost = 0;
		l->top_samples = 0;
		l->parent = LSA_CPI_NONE;
	}
	nest(p, nb);
	count_insns(p, nb);
	for (i = 0; i < p->nsamples && err >= 0; i++)
		err = lsa_cpi_fragments(p, &p->samples[i], on_fragment, p);
	return err < 0 ? err : 0;
}

size_t lsa_cpi_nloops(const struct lsa_cpi *p)
{
	return p->nloops;
}

const struct lsa_cpi_loop *lsa_cpi_loop(const struct lsa_cpi *p, size_t i)
{
	return i < p->nloops ? &p->loops[i] : NULL;
}

uint32_t lsa_cpi_block_loop(const struct lsa_cpi *p, int family, uint32_t id)
{
	size_t nb = lsa_cfg_nblocks(p->cfg);

	if (!p->blockloop || id >= nb || family < 0 || family >= LSA_CPI_NFAMILIES)
		return LSA_CPI_NONE;
	return p->blockloop[(size_t)family * nb + id];
}

void lsa_cpi_outside(const struct lsa_cpi *p, int family, struct lsa_cpi_agg *out)
{
	if (family < 0 || family >= LSA_CPI_NFAMILIES)
		memset(out, 0, sizeof(*out));
	else
		*out = p->outside[family];
}

const struct lsa_cpi_func *lsa_cpi_func(const struct lsa_cpi *p, uint32_t f)
{
	return p->funcs && f < lsa_cfg_nfuncs(p->cfg) ? &p->funcs[f] : NULL;
}
