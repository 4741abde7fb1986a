/* plan.c - probe plans per function: trees under four weightings, the
 * reconstruction check, and each placement's cost over the recorded run. */
#include <stdlib.h>
#include <string.h>

#include "analysis/knuth.h"
#include "analysis/plan_int.h"
#include "ls_err.h"

void lsa_plan_costs_default(struct lsa_plan_costs *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->probe_lat = 5;	/* 1 + 2 + 1 + 1, section 2.3 */
	c->update_lat = 4;	/* 2 + 1 + 1, section 3.2 */
	c->swp_lat = 2;		/* II of figure 7b, section 4.1 */
	c->width = 8;		/* Tinker-8 */
}

const char *lsa_plan_weights_name(int w)
{
	static const char *const n[] = { "unit", "guess", "modified", "exact" };

	return w >= 0 && w < LSA_PLAN_NWEIGHTS ? n[w] : "?";
}

const char *lsa_plan_scheme_name(int s)
{
	static const char *const n[] = { "along", "before", "after" };

	return s >= 0 && s < LSA_PLAN_NSCHEMES ? n[s] : "?";
}

/* No probe can sit where control arrives from, or leaves to, a gap, a
 * signal or a system call that resumed elsewhere. */
static int instrumentable(const struct lsa_cfg_edge *e)
{
	if (e->kind != LSA_CFG_IN && e->kind != LSA_CFG_OUT)
		return 1;
	switch (e->why) {
	case LSA_CFG_W_GAP: case LSA_CFG_W_RESUME: case LSA_CFG_W_ASYNC:
	case LSA_CFG_W_SYSCALL: case LSA_CFG_W_UNMATCHED:
		return 0;
	default:
		return 1;
	}
}

static int in_func(const struct lsa_cfg *c, uint32_t id, uint32_t fi)
{
	return id != LSA_CFG_NONE && lsa_cfg_block(c, id)->func == fi;
}

static uint32_t node_of(const struct lsa_cfg *c, uint32_t id)
{
	return id == LSA_CFG_NONE ? 0 : lsa_cfg_block(c, id)->local + 1;
}

static int by_tie_order(const void *pa, const void *pb)
{
	const struct lsa_plan_edge *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->cfg_edge < b->cfg_edge ? -1 : a->cfg_edge > b->cfg_edge;
}

/* The function's edges, as lsa_knuth_func takes them: each block's
 * outputs inside the function or to outside, and its entries. */
static int collect(const struct lsa_cfg *c, uint32_t fi, struct lsa_plang *g)
{
	const struct lsa_cfg_func *f = lsa_cfg_func(c, fi);
	size_t i, k, cap = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		g->ne = 0;
		for (i = 0; i < f->nblocks; i++) {
			uint32_t id = f->blocks[i];
			int dir;

			for (dir = 1; dir >= 0; dir--) {
				const uint32_t *l;
				size_t n = lsa_cfg_edges_of(c, id, dir, &l);

				for (k = 0; k < n; k++) {
					const struct lsa_cfg_edge *e = lsa_cfg_edge(c, l[k]);
					struct lsa_plan_edge *pe;
					int take = dir ? e->kind == LSA_CFG_OUT ||
							 (e->kind <= LSA_CFG_CALLRET &&
							  !(e->flags & LSA_CFG_F_XFER) &&
							  in_func(c, e->to, fi)) :
						   e->kind == LSA_CFG_IN;

					if (!take)
						continue;
					if (pass) {
						pe = &g->e[g->ne];
						memset(pe, 0, sizeof(*pe));
						pe->cfg_edge = l[k];
						pe->from = node_of(c, e->from);
						pe->to = node_of(c, e->to);
						pe->count = e->count;
						pe->instr = (uint8_t)instrumentable(e);
					}
					g->ne++;
				}
			}
		}
		if (!pass) {
			cap = g->ne ? g->ne : 1;
			if (!(g->e = calloc(cap, sizeof(*g->e))))
				return -LS_ENOMEM;
		}
	}
	qsort(g->e, g->ne, sizeof(*g->e), by_tie_order);
	return 0;
}

/* Compressed in and out lists and the instrumentable out-degrees. */
static int index_edges(struct lsa_plang *g)
{
	uint32_t *fo, *fi, v;
	size_t i;

	g->out_off = calloc(g->n + 1, sizeof(uint32_t));
	g->in_off = calloc(g->n + 1, sizeof(uint32_t));
	g->out = malloc((g->ne + 1) * sizeof(uint32_t));
	g->in = malloc((g->ne + 1) * sizeof(uint32_t));
	g->outdeg = calloc(g->n, sizeof(uint32_t));
	fo = calloc(g->n, sizeof(uint32_t));
	fi = calloc(g->n, sizeof(uint32_t));
	if (!g->out_off || !g->in_off || !g->out || !g->in || !g->outdeg || !fo || !fi) {
		free(fo), free(fi);
		return -LS_ENOMEM;
	}
	for (i = 0; i < g->ne; i++) {
		g->out_off[g->e[i].from + 1]++, g->in_off[g->e[i].to + 1]++;
		g->outdeg[g->e[i].from] += g->e[i].instr;
	}
	for (v = 0; v < g->n; v++)
		g->out_off[v + 1] += g->out_off[v], g->in_off[v + 1] += g->in_off[v];
	for (i = 0; i < g->ne; i++) {
		g->out[g->out_off[g->e[i].from] + fo[g->e[i].from]++] = (uint32_t)i;
		g->in[g->in_off[g->e[i].to] + fi[g->e[i].to]++] = (uint32_t)i;
	}
	free(fo), free(fi);
	return 0;
}

static void plang_release(struct lsa_plang *g)
{
	free(g->out_off), free(g->out), free(g->in_off), free(g->in), free(g->outdeg);
}

/* Weight w of edge e as the spanning tree's integer weight: the static
 * weights in thousandths; probe-less edges infinite. */
static uint64_t tree_weight(const struct lsa_plan_edge *e, int w)
{
	if (!e->instr)
		return UINT64_MAX;
	switch (w) {
	case LSA_PLAN_UNIT: return 1;
	case LSA_PLAN_GUESS: return (uint64_t)(e->guess * 1000 + 0.5);
	case LSA_PLAN_MODIFIED: return (uint64_t)(e->modified * 1000 + 0.5);
	default: return e->count == UINT64_MAX ? UINT64_MAX - 1 : e->count;
	}
}

/* Places the probes of weights w and reconstructs every count from them. */
static int tree(struct lsa_plang *g, struct lsa_plan_func *pf, int w,
		struct lsa_knuth_edge *ke, uint8_t *probe, uint64_t *cnt)
{
	size_t i;
	int err;

	for (i = 0; i < g->ne; i++) {
		ke[i].from = g->e[i].from;
		ke[i].to = g->e[i].to;
		ke[i].weight = tree_weight(&g->e[i], w);
	}
	if ((err = lsa_knuth_place(g->n, ke, g->ne, probe)) < 0)
		return err;
	for (i = 0; i < g->ne; i++) {
		g->e[i].probe[w] = probe[i];
		cnt[i] = probe[i] ? g->e[i].count : 0;
		pf->unplaceable[w] += probe[i] && !g->e[i].instr;
	}
	if ((err = lsa_knuth_solve(g->n, ke, g->ne, probe, cnt)) < 0)
		return err;
	for (i = 0; i < g->ne; i++)
		pf->reconstructed[w] += cnt[i] == g->e[i].count;
	return 0;
}

/* Cycles a probe of latency lat adds to a block of len cycles. */
static double stall(double lat, uint32_t len)
{
	return lat > len ? lat - len : 0;
}

/* The cost of weights w, scheme s, pipelined p. */
static void cost(const struct lsa_plang *g, const struct lsa_plan_costs *k,
		 const uint64_t *exec, const uint32_t *len, int w, int s, int p,
		 struct lsa_plan_cost *r)
{
	double P = p ? k->swp_lat : k->probe_lat, U = p ? k->swp_lat : k->update_lat;
	uint32_t v, j;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < g->ne; i++) {
		const struct lsa_plan_edge *e = &g->e[i];

		if (!e->probe[w])
			continue;
		r->profiled++;
		r->counted += e->count;
		if (!e->instr) {	/* no real place: as a block of its own */
			r->executions += e->count;
			r->cycles += P * (double)e->count;
		} else if (e->from == 0 && s != LSA_PLAN_AFTER) {
			/* An entry's prologue: once per entry, in every scheme
			 * (after: at the target's top, below). */
			r->executions += e->count;
			r->cycles += stall(P, len[e->to]) * (double)e->count;
		} else if (s == LSA_PLAN_ALONG) {
			r->executions += e->count;
			if (g->outdeg[e->from] == 1) {
				r->cycles += stall(P, len[e->from]) * (double)e->count;
			} else {
				r->new_blocks++;
				r->cycles += P * (double)e->count;
			}
		}
	}
	if (s == LSA_PLAN_ALONG)
		return;
	for (v = 1; v < g->n; v++) {
		uint32_t m = 0, mo = 0, mi = 0;

		for (j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			const struct lsa_plan_edge *e = &g->e[g->out[j]];

			if (e->probe[w] && e->instr)
				m++, mo += e->to == 0;
		}
		for (j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			const struct lsa_plan_edge *e = &g->e[g->in[j]];

			mi += e->probe[w] && e->instr;
		}
		if (s == LSA_PLAN_BEFORE && m) {
			r->executions += exec[v] * (p ? 1 : m);
			r->cycles += stall(P, len[v]) * (double)exec[v];
		}
		if (s == LSA_PLAN_AFTER && mi) {
			r->executions += exec[v];
			r->cycles += stall(U, len[v]) * (double)exec[v];
		}
		if (s == LSA_PLAN_AFTER && mo) {	/* exits: before */
			r->executions += exec[v];
			r->cycles += stall(P, len[v]) * (double)exec[v];
		}
	}
}

int lsa_plan_func(const struct lsa_cfg *c, uint32_t fi,
		  const struct lsa_plan_costs *k, struct lsa_plan_func *pf)
{
	const struct lsa_cfg_func *f;
	struct lsa_plan_costs def;
	struct lsa_plang g;
	struct lsa_knuth_edge *ke = NULL;
	uint8_t *probe = NULL;
	uint64_t *cnt = NULL, *exec = NULL;
	uint32_t *len = NULL, v;
	int err, w, s, p;

	if (!c || !pf || fi >= lsa_cfg_nfuncs(c))
		return -LS_EINVAL;
	if (!k) {
		lsa_plan_costs_default(&def);
		k = &def;
	}
	if (k->width == 0 || !(k->probe_lat >= 0) || !(k->update_lat >= 0) ||
	    !(k->swp_lat >= 0))
		return -LS_EINVAL;
	f = lsa_cfg_func(c, fi);
	memset(pf, 0, sizeof(*pf));
	memset(&g, 0, sizeof(g));
	pf->func = fi;
	g.c = c;
	g.n = f->nblocks + 1;
	if ((err = collect(c, fi, &g)) < 0 || (err = index_edges(&g)) < 0 ||
	    (err = lsa_plang_guess(&g)) < 0)
		goto out;
	err = -LS_ENOMEM;
	ke = malloc((g.ne + 1) * sizeof(*ke));
	probe = calloc(g.ne + 1, 1);
	cnt = calloc(g.ne + 1, sizeof(*cnt));
	exec = calloc(g.n, sizeof(*exec));
	len = calloc(g.n, sizeof(*len));
	if (!ke || !probe || !cnt || !exec || !len)
		goto out;
	for (v = 1; v < g.n; v++) {
		const struct lsa_cfg_block *b = lsa_cfg_block(c, f->blocks[v - 1]);

		exec[v] = b->count;
		len[v] = (b->sb->ninsn + k->width - 1) / k->width;
	}
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		if ((err = tree(&g, pf, w, ke, probe, cnt)) < 0)
			goto out;
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		for (s = 0; s < LSA_PLAN_NSCHEMES; s++)
			for (p = 0; p < LSA_PLAN_NPIPE; p++)
				cost(&g, k, exec, len, w, s, p, &pf->cost.c[w][s][p]);
	pf->nnodes = g.n;
	pf->nedges = g.ne;
	pf->edges = g.e;
	g.e = NULL;
	err = 0;
out:
	plang_release(&g);
	free(g.e), free(ke), free(probe), free(cnt), free(exec), free(len);
	if (err < 0)
		lsa_plan_func_release(pf);
	return err;
}

void lsa_plan_func_release(struct lsa_plan_func *pf)
{
	if (!pf)
		return;
	free(pf->edges);
	pf->edges = NULL;
	pf->nedges = 0;
}

void lsa_plan_table_add(struct lsa_plan_table *a, const struct lsa_plan_table *b)
{
	int w, s, p;

	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		for (s = 0; s < LSA_PLAN_NSCHEMES; s++)
			for (p = 0; p < LSA_PLAN_NPIPE; p++) {
				struct lsa_plan_cost *x = &a->c[w][s][p];
				const struct lsa_plan_cost *y = &b->c[w][s][p];

				x->profiled += y->profiled;
				x->new_blocks += y->new_blocks;
				x->counted += y->counted;
				x->executions += y->executions;
				x->cycles += y->cycles;
			}
}

void lsa_plan_best(const struct lsa_plan_table *t, int with_exact,
		   int *w, int *s, int *p)
{
	int a, b, d, nw = with_exact ? LSA_PLAN_NWEIGHTS : LSA_PLAN_EXACT;

	*w = *s = *p = 0;
	for (a = 0; a < nw; a++)
		for (b = 0; b < LSA_PLAN_NSCHEMES; b++)
			for (d = 0; d < LSA_PLAN_NPIPE; d++)
				if (t->c[a][b][d].cycles < t->c[*w][*s][*p].cycles)
					*w = a, *s = b, *p = d;
}
