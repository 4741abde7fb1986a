/* plan_guess.c - static edge weights without a profile (Eichenberger and
 * Lobo 2.2: Ball and Larus' predictions, 60% to the predicted edge, every
 * loop run 10 times; 2.4: +10% on outputs of multi-output vertices). */
#include <stdlib.h>
#include <string.h>

#include "analysis/dom.h"
#include "analysis/plan_int.h"
#include "ls_err.h"

#define ENTRY_WEIGHT	100.0
#define LOOP_TRIPS	10.0
#define PREDICTED	0.6

int lsa_plang_kind(const struct lsa_plang *g, size_t i)
{
	return lsa_cfg_edge(g->c, g->e[i].cfg_edge)->kind;
}

struct guess {
	struct lsa_plang *g;
	struct lsa_dom dom;
	uint32_t *loop;		/* innermost loop header of a node, or NONE */
	uint32_t *parent;	/* for a header: the enclosing loop's header */
	uint8_t *header;
	double *freq;
};

/* 1 if node t is inside the loop headed by h. */
static int in_loop(const struct guess *q, uint32_t t, uint32_t h)
{
	uint32_t l;

	if (t == 0)
		return 0;
	for (l = q->loop[t]; l != LSA_DOM_NONE; l = q->parent[l])
		if (l == h)
			return 1;
	return 0;
}

/* Dominators over the blocks from a root (node 0, outside) with an edge
 * to every entered block; exits are left out so outside is no loop. */
static int dominators(struct guess *q)
{
	struct lsa_plang *g = q->g;
	uint32_t *so = calloc(g->n + 1, sizeof(*so)), *po = calloc(g->n + 1, sizeof(*po));
	uint32_t *s = malloc((g->ne + 1) * sizeof(*s)), *p = malloc((g->ne + 1) * sizeof(*p));
	uint32_t *fs = calloc(g->n + 1, sizeof(*fs)), *fp = calloc(g->n + 1, sizeof(*fp));
	struct lsa_dom_graph dg;
	size_t i;
	int err = -LS_ENOMEM;

	if (!so || !po || !s || !p || !fs || !fp)
		goto out;
	for (i = 0; i < g->ne; i++)
		if (g->e[i].to != 0)
			so[g->e[i].from + 1]++, po[g->e[i].to + 1]++;
	for (i = 0; i < g->n; i++)
		so[i + 1] += so[i], po[i + 1] += po[i];
	for (i = 0; i < g->ne; i++)
		if (g->e[i].to != 0) {
			s[so[g->e[i].from] + fs[g->e[i].from]++] = g->e[i].to;
			p[po[g->e[i].to] + fp[g->e[i].to]++] = g->e[i].from;
		}
	dg.n = g->n, dg.root = 0;
	dg.succ_off = so, dg.succ = s, dg.pred_off = po, dg.pred = p;
	err = lsa_dom_compute(&q->dom, &dg);
out:
	free(so), free(po), free(s), free(p), free(fs), free(fp);
	return err;
}

/* Natural loops, headers in reverse postorder (outer before inner), so
 * the last header to claim a node is its innermost loop. */
static int loops(struct guess *q)
{
	struct lsa_plang *g = q->g;
	uint32_t *stack = malloc((g->n + 1) * sizeof(*stack));
	uint32_t *mark = calloc(g->n, sizeof(*mark));
	uint32_t r, k;
	size_t i;

	if (!stack || !mark) {
		free(stack), free(mark);
		return -LS_ENOMEM;
	}
	for (i = 0; i < g->ne; i++) {
		uint32_t a = g->e[i].from, h = g->e[i].to;

		if (a && h && lsa_dom_dominates(&q->dom, h, a))
			q->header[h] = 1;
	}
	for (r = 1; r < q->dom.nreached; r++) {
		uint32_t h = q->dom.rpo[r], sp = 0;

		if (!q->header[h])
			continue;
		q->parent[h] = q->loop[h];
		q->loop[h] = h;
		mark[h] = h + 1;
		/* The tails of h's back edges, then their predecessors up to h. */
		for (k = g->in_off[h]; k < g->in_off[h + 1]; k++) {
			uint32_t a = g->e[g->in[k]].from;

			if (a && mark[a] != h + 1 && lsa_dom_dominates(&q->dom, h, a)) {
				mark[a] = h + 1;
				stack[sp++] = a;
			}
		}
		while (sp) {
			uint32_t v = stack[--sp];

			q->loop[v] = h;
			for (k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
				uint32_t a = g->e[g->in[k]].from;

				if (a && mark[a] != h + 1 && q->dom.rpo_num[a] != LSA_DOM_NONE) {
					mark[a] = h + 1;
					stack[sp++] = a;
				}
			}
		}
	}
	free(stack), free(mark);
	return 0;
}

/* Does node v end in a call (its output is the call's return edge)? */
static int ends_in_call(const struct lsa_plang *g, uint32_t v)
{
	uint32_t k;

	for (k = g->out_off[v]; v && k < g->out_off[v + 1]; k++)
		if (lsa_plang_kind(g, g->out[k]) == LSA_CFG_CALLRET)
			return 1;
	return 0;
}

/* Does edge i leave the function, or go to a block that only does? */
static int returns(const struct lsa_plang *g, size_t i)
{
	uint32_t t = g->e[i].to, k, n = 0;

	if (t == 0)
		return 1;
	for (k = g->out_off[t]; k < g->out_off[t + 1]; k++) {
		const struct lsa_plan_edge *o = &g->e[g->out[k]];

		if (!o->instr)
			continue;
		if (o->to != 0)
			return 0;
		n++;
	}
	return n > 0;
}

/* Which of the two instrumentable outputs a, b of a branch is predicted
 * (Ball and Larus, in their order; the fall-through when none applies). */
static size_t predict(const struct guess *q, size_t a, size_t b)
{
	const struct lsa_plang *g = q->g;
	uint32_t ta = g->e[a].to, tb = g->e[b].to;
	int ka, kb;

	if (ends_in_call(g, ta) != ends_in_call(g, tb))
		return ends_in_call(g, ta) ? b : a;
	if (returns(g, a) != returns(g, b))
		return returns(g, a) ? b : a;
	if ((ta && q->header[ta]) != (tb && q->header[tb]))
		return ta && q->header[ta] ? a : b;
	ka = lsa_plang_kind(g, a), kb = lsa_plang_kind(g, b);
	if ((ka == LSA_CFG_NOTTAKEN || ka == LSA_CFG_FALL) !=
	    (kb == LSA_CFG_NOTTAKEN || kb == LSA_CFG_FALL))
		return kb == LSA_CFG_NOTTAKEN || kb == LSA_CFG_FALL ? b : a;
	return a;
}

/* Shares node v's weight f among its instrumentable outputs. */
static void spread(struct guess *q, uint32_t v, double f)
{
	struct lsa_plang *g = q->g;
	uint32_t k, n = 0, nexit = 0, h = v ? q->loop[v] : LSA_DOM_NONE;
	size_t two[2] = { 0, 0 };

	for (k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
		struct lsa_plan_edge *o = &g->e[g->out[k]];

		if (!o->instr)
			continue;
		if (n < 2)
			two[n] = g->out[k];
		n++;
		nexit += h != LSA_DOM_NONE && !in_loop(q, o->to, h);
	}
	for (k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
		size_t i = g->out[k];
		struct lsa_plan_edge *o = &g->e[i];
		double p;

		if (!o->instr)
			p = 0;
		else if (nexit && nexit < n)	/* a loop's exit test */
			p = in_loop(q, o->to, h) ? (1 - 1 / LOOP_TRIPS) / (n - nexit) :
						   1 / LOOP_TRIPS / nexit;
		else if (n == 2 && v != 0)
			p = predict(q, two[0], two[1]) == i ? PREDICTED : 1 - PREDICTED;
		else if (v == 0)
			p = 0;	/* entries weigh ENTRY_WEIGHT each: set below */
		else
			p = 1.0 / n;
		o->guess = v == 0 ? (o->instr ? ENTRY_WEIGHT : 0) : f * p;
	}
}

int lsa_plang_guess(struct lsa_plang *g)
{
	struct guess q;
	size_t i;
	uint32_t r, k;
	int err;

	memset(&q, 0, sizeof(q));
	q.g = g;
	q.loop = malloc(g->n * sizeof(*q.loop));
	q.parent = malloc(g->n * sizeof(*q.parent));
	q.header = calloc(g->n, 1);
	q.freq = calloc(g->n, sizeof(*q.freq));
	err = -LS_ENOMEM;
	if (!q.loop || !q.parent || !q.header || !q.freq)
		goto out;
	for (k = 0; k < g->n; k++)
		q.loop[k] = q.parent[k] = LSA_DOM_NONE;
	if ((err = dominators(&q)) < 0 || (err = loops(&q)) < 0)
		goto out;
	for (i = 0; i < g->ne; i++)
		g->e[i].guess = 0;
	spread(&q, 0, 0);
	/* Reverse postorder: every forward input is known before its target;
	 * retreating inputs (back edges, irreducible entries) are left out. */
	for (r = 1; r < q.dom.nreached; r++) {
		uint32_t v = q.dom.rpo[r];
		double f = 0;

		for (k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
			const struct lsa_plan_edge *e = &g->e[g->in[k]];

			if (e->from == 0 || q.dom.rpo_num[e->from] < r)
				f += e->guess;
		}
		if (q.header[v])
			f *= LOOP_TRIPS;
		q.freq[v] = f;
		spread(&q, v, f);
	}
	for (i = 0; i < g->ne; i++)
		g->e[i].modified = g->e[i].guess *
			(g->outdeg[g->e[i].from] >= 2 && g->e[i].instr ? 1.1 : 1.0);
	err = 0;
out:
	lsa_dom_release(&q.dom);
	free(q.loop), free(q.parent), free(q.header), free(q.freq);
	return err;
}
