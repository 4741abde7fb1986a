/* sloops.c - natural loops from dominators, OptiWISE's merge/split rule
 * for loops sharing a header, irreducible regions (see sloops.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/dom.h"
#include "analysis/sloops.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_sloops {
	struct lsa_sloop *loops;
	size_t n, cap;
	struct lsa_sloop_irr *irr;
	size_t nirr, capirr;
	uint64_t back_edges, dom_passes;
};

/* One function's graph: node 0 is the virtual root, node i + 1 the
 * function's block i. */
struct fgraph {
	const struct lsa_cfg *c;
	const struct lsa_cfg_func *f;
	uint32_t n, cap;	/* nodes; scratch arrays hold cap */
	uint32_t *succ_off, *succ, *pred_off, *pred;
	uint64_t *succ_cnt;	/* count of each succ[] edge */
	uint8_t *rooted;	/* node gets a root edge */
	struct lsa_dom dom;
	/* scratch */
	uint32_t *mark, stamp, *work, *stack, *next;
};

/* A back edge's natural loop, before merging. */
struct bloop {
	uint32_t header, tail;	/* nodes */
	uint64_t count;
	uint32_t nbody;
	uint32_t *body;		/* nodes, sorted */
};

static uint32_t node_of(const struct fgraph *g, uint32_t id)
{
	const struct lsa_cfg_block *b = lsa_cfg_block(g->c, id);

	return b && b->func == g->f - lsa_cfg_func(g->c, 0) ? b->local + 1 : 0;
}

static uint32_t block_of(const struct fgraph *g, uint32_t node)
{
	return g->f->blocks[node - 1];
}

/* Intra-procedural flow edges of the function plus the root edges. */
static int build_graph(struct fgraph *g)
{
	uint32_t n = g->n, v, m = 0;
	uint32_t *fill = NULL;
	int pass;

	free(g->succ), free(g->pred), free(g->succ_cnt);
	g->succ = g->pred = NULL;
	g->succ_cnt = NULL;
	memset(g->succ_off, 0, (n + 1) * sizeof(uint32_t));
	memset(g->pred_off, 0, (n + 1) * sizeof(uint32_t));
	for (pass = 0; pass < 2; pass++) {
		for (v = 1; v < n; v++) {
			const uint32_t *l;
			size_t ne = lsa_cfg_edges_of(g->c, block_of(g, v), 1, &l), i;

			for (i = 0; i < ne; i++) {
				const struct lsa_cfg_edge *e = lsa_cfg_edge(g->c, l[i]);
				uint32_t w;

				if (!lsa_cfg_is_flow(e) || e->kind > LSA_CFG_CALLRET ||
				    !(w = node_of(g, e->to)))
					continue;
				if (pass == 0) {
					g->succ_off[v + 1]++;
					g->pred_off[w + 1]++;
					m++;
				} else {
					g->succ[g->succ_off[v] + fill[v]] = w;
					g->succ_cnt[g->succ_off[v] + fill[v]++] = e->count;
					g->pred[g->pred_off[w] + fill[n + w]++] = v;
				}
			}
			if (!g->rooted[v])
				continue;
			if (pass == 0) {
				g->succ_off[1]++;
				g->pred_off[v + 1]++;
				m++;
			} else {
				g->succ[fill[0]] = v;
				g->succ_cnt[fill[0]++] = 0;
				g->pred[g->pred_off[v] + fill[n + v]++] = 0;
			}
		}
		if (pass == 0) {
			for (v = 0; v < n; v++) {
				g->succ_off[v + 1] += g->succ_off[v];
				g->pred_off[v + 1] += g->pred_off[v];
			}
			g->succ = malloc((m + 1) * sizeof(uint32_t));
			g->pred = malloc((m + 1) * sizeof(uint32_t));
			g->succ_cnt = malloc((m + 1) * sizeof(uint64_t));
			fill = calloc(2 * (size_t)n, sizeof(uint32_t));
			if (!g->succ || !g->pred || !g->succ_cnt || !fill) {
				free(fill);
				return -LS_ENOMEM;
			}
		}
	}
	/* The root's own edges were written at fill[0], its slots start at 0. */
	free(fill);
	return 0;
}

/* Root edges: blocks entered by calls, jumps between functions, thread
 * starts, and the function's entry; then, until every block is reached,
 * blocks entered from outside at all, then any block left. */
static int dominators(struct fgraph *g)
{
	uint32_t v, round;
	int err;

	for (v = 1; v < g->n; v++) {
		uint32_t id = block_of(g, v);
		const uint32_t *l;
		size_t ne = lsa_cfg_edges_of(g->c, id, 0, &l), i;

		g->rooted[v] = lsa_cfg_block(g->c, id)->sb->mod_off == g->f->start;
		for (i = 0; i < ne; i++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(g->c, l[i]);

			if (e->kind == LSA_CFG_IN && (e->why == LSA_CFG_W_CALL ||
			    e->why == LSA_CFG_W_XFER || e->why == LSA_CFG_W_START))
				g->rooted[v] = 1;
		}
	}
	for (round = 0;; round++) {
		struct lsa_dom_graph dg;

		if ((err = build_graph(g)) < 0)
			return err;
		dg.n = g->n;
		dg.root = 0;
		dg.succ_off = g->succ_off, dg.succ = g->succ;
		dg.pred_off = g->pred_off, dg.pred = g->pred;
		lsa_dom_release(&g->dom);
		if ((err = lsa_dom_compute(&g->dom, &dg)) < 0)
			return err;
		if (g->dom.nreached == g->n || round == 2)
			return 0;
		for (v = 1; v < g->n; v++) {
			const uint32_t *l;

			if (g->dom.idom[v] != LSA_DOM_NONE)
				continue;
			if (round == 1) {
				g->rooted[v] = 1;
				continue;
			}
			{
				size_t ne = lsa_cfg_edges_of(g->c, block_of(g, v), 0, &l), i;

				for (i = 0; i < ne; i++)
					if (lsa_cfg_edge(g->c, l[i])->kind == LSA_CFG_IN)
						g->rooted[v] = 1;
			}
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The natural loop of tail -> header: the header and every node reaching
 * the tail backwards without passing the header. */
static int natural_loop(struct fgraph *g, struct bloop *bl)
{
	uint32_t sp = 0, n = 0, k;

	g->stamp++;
	g->mark[bl->header] = g->stamp;
	g->work[n++] = bl->header;
	if (g->mark[bl->tail] != g->stamp) {
		g->mark[bl->tail] = g->stamp;
		g->work[n++] = bl->tail;
		g->stack[sp++] = bl->tail;
	}
	while (sp) {
		uint32_t v = g->stack[--sp];

		for (k = g->pred_off[v]; k < g->pred_off[v + 1]; k++) {
			uint32_t p = g->pred[k];

			if (p && g->mark[p] != g->stamp) {
				g->mark[p] = g->stamp;
				g->work[n++] = p;
				g->stack[sp++] = p;
			}
		}
	}
	bl->body = malloc(n * sizeof(uint32_t));
	if (!bl->body)
		return -LS_ENOMEM;
	memcpy(bl->body, g->work, n * sizeof(uint32_t));
	qsort(bl->body, n, sizeof(uint32_t), cmp_u32);
	bl->nbody = n;
	return 0;
}

/* a's body a strict subset of b's (both sorted). */
static int strict_subset(const struct bloop *a, const struct bloop *b)
{
	uint32_t i = 0, j = 0;

	if (a->nbody >= b->nbody)
		return 0;
	while (i < a->nbody && j < b->nbody) {
		if (a->body[i] == b->body[j])
			i++, j++;
		else if (a->body[i] > b->body[j])
			j++;
		else
			return 0;
	}
	return i == a->nbody;
}

static struct lsa_sloop *new_loop(struct lsa_sloops *s)
{
	if (LS_GROW(s->loops, s->n + 1, s->cap, 32))
		return NULL;
	memset(&s->loops[s->n], 0, sizeof(s->loops[0]));
	return &s->loops[s->n++];
}

/* One loop from the union of the set's loops cur[0..ncur). */
static int emit_union(struct lsa_sloops *s, struct fgraph *g, struct bloop *bl,
		      const uint32_t *cur, uint32_t ncur)
{
	struct lsa_sloop *L = new_loop(s);
	uint32_t i, k, n = 0;

	if (!L)
		return -LS_ENOMEM;
	L->func = (uint32_t)(g->f - lsa_cfg_func(g->c, 0));
	L->header = block_of(g, bl[cur[0]].header);
	L->parent = LSA_SLOOP_NONE;
	L->tails = malloc(ncur * sizeof(uint32_t));
	L->tail_counts = malloc(ncur * sizeof(uint64_t));
	if (!L->tails || !L->tail_counts)
		return -LS_ENOMEM;
	g->stamp++;
	for (i = 0; i < ncur; i++) {
		L->tails[i] = block_of(g, bl[cur[i]].tail);
		L->tail_counts[i] = bl[cur[i]].count;
		for (k = 0; k < bl[cur[i]].nbody; k++) {
			uint32_t v = bl[cur[i]].body[k];

			if (g->mark[v] != g->stamp) {
				g->mark[v] = g->stamp;
				g->work[n++] = v;
			}
		}
	}
	L->ntails = ncur;
	qsort(g->work, n, sizeof(uint32_t), cmp_u32);
	L->blocks = malloc(n * sizeof(uint32_t));
	if (!L->blocks)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++)
		L->blocks[i] = block_of(g, g->work[i]);	/* nodes follow addresses */
	L->nblocks = n;
	return 0;
}

/* OptiWISE algorithm 2 over the k back-edge loops bl[set[0..k)] sharing
 * one header: peel the outermost level, then the nested ones. */
static int merge_split(struct lsa_sloops *s, struct fgraph *g, struct bloop *bl,
		       uint32_t *set, uint32_t k, double t)
{
	uint32_t *cur = malloc(k * sizeof(uint32_t)), *inner = malloc(k * sizeof(uint32_t));
	int err = 0;

	if (!cur || !inner) {
		free(cur), free(inner);
		return -LS_ENOMEM;
	}
	while (k && !err) {
		uint32_t i, j, ncur = 0, ninner = 0;

		for (i = 0; i < k; i++) {
			uint64_t sup = 0;
			int nsup = 0;

			for (j = 0; j < k; j++)
				if (j != i && strict_subset(&bl[set[i]], &bl[set[j]])) {
					sup += bl[set[j]].count;
					nsup++;
				}
			if (nsup && (double)bl[set[i]].count >= t * (double)sup)
				inner[ninner++] = set[i];
			else
				cur[ncur++] = set[i];
		}
		if (!ncur) {	/* cannot happen with positive counts; be safe */
			memcpy(cur, inner, ninner * sizeof(uint32_t));
			ncur = ninner;
			ninner = 0;
		}
		err = emit_union(s, g, bl, cur, ncur);
		memcpy(set, inner, ninner * sizeof(uint32_t));
		k = ninner;
	}
	free(cur), free(inner);
	return err;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct lsa_sloop *x = a, *y = b;

	if (x->nblocks != y->nblocks)
		return x->nblocks > y->nblocks ? -1 : 1;
	return x->header < y->header ? -1 : x->header > y->header;
}

/* Parents, depths and counts of the function's loops s->loops[first..). */
static void loop_stats(struct lsa_sloops *s, struct fgraph *g, size_t first,
		       uint64_t all_insns)
{
	const struct lsa_cfg *c = g->c;
	uint32_t *owner = g->next;	/* per node: innermost loop so far */
	size_t i, k;

	if (s->n > first)
		qsort(&s->loops[first], s->n - first, sizeof(s->loops[0]), by_size_desc);
	for (k = 0; k < g->n; k++)
		owner[k] = LSA_SLOOP_NONE;
	for (i = first; i < s->n; i++) {
		struct lsa_sloop *L = &s->loops[i];
		uint32_t h = node_of(g, L->header);
		const uint32_t *l;
		size_t ne;

		L->parent = owner[h];
		L->depth = L->parent == LSA_SLOOP_NONE ? 1 : s->loops[L->parent].depth + 1;
		g->stamp++;
		for (k = 0; k < L->nblocks; k++) {
			const struct lsa_cfg_block *b = lsa_cfg_block(c, L->blocks[k]);
			uint32_t v = node_of(g, L->blocks[k]);

			owner[v] = (uint32_t)i;
			g->mark[v] = g->stamp;
			L->static_insns += b->sb->ninsn;
			L->total_insns += b->count * b->sb->ninsn + b->callee_insns;
		}
		L->iterations = lsa_cfg_block(c, L->header)->count;
		ne = lsa_cfg_edges_of(c, L->header, 0, &l);
		for (k = 0; k < ne; k++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(c, l[k]);

			if (lsa_cfg_is_flow(e) && (e->from == LSA_CFG_NONE ||
			    g->mark[node_of(g, e->from)] != g->stamp))
				L->invocations += e->count;
		}
		L->iters_per_inv = L->invocations ?
				   (double)L->iterations / (double)L->invocations : 0;
		L->coverage = all_insns ? 100.0 * (double)L->total_insns / (double)all_insns : 0;
	}
	for (k = 1; k < g->n; k++)
		if (owner[k] != LSA_SLOOP_NONE) {
			const struct lsa_cfg_block *b = lsa_cfg_block(c, block_of(g, (uint32_t)k));

			s->loops[owner[k]].self_insns += b->count * b->sb->ninsn;
		}
}

/* Tarjan's strongly connected components, iteratively, over the real
 * nodes; comp[v] gets the component number. */
static void scc(struct fgraph *g, uint32_t *comp)
{
	uint32_t *idx = g->work, *low = g->mark, *stk = g->stack, *nx = g->next;
	uint32_t *call = malloc(g->n * sizeof(uint32_t));
	uint32_t counter = 0, sp = 0, cs, ncomp = 0, r, v;

	if (!call)
		return;
	for (v = 0; v < g->n; v++)
		idx[v] = comp[v] = LSA_DOM_NONE;
	for (r = 1; r < g->n; r++) {
		if (idx[r] != LSA_DOM_NONE)
			continue;
		cs = 0;
		call[cs++] = r;
		idx[r] = low[r] = counter++;
		nx[r] = g->succ_off[r];
		stk[sp++] = r;
		while (cs) {
			uint32_t x = call[cs - 1];

			if (nx[x] < g->succ_off[x + 1]) {
				uint32_t w = g->succ[nx[x]++];

				if (idx[w] == LSA_DOM_NONE) {
					idx[w] = low[w] = counter++;
					nx[w] = g->succ_off[w];
					stk[sp++] = w;
					call[cs++] = w;
				} else if (comp[w] == LSA_DOM_NONE && idx[w] < low[x]) {
					low[x] = idx[w];
				}
				continue;
			}
			cs--;
			if (low[x] == idx[x]) {
				uint32_t w;

				do {
					w = stk[--sp];
					comp[w] = ncomp;
				} while (w != x);
				ncomp++;
			}
			if (cs && low[x] < low[call[cs - 1]])
				low[call[cs - 1]] = low[x];
		}
	}
	free(call);
	g->stamp = 0;	/* mark[] was used as low[] */
	memset(g->mark, 0, g->cap * sizeof(uint32_t));
}

/* Retreating edges whose target does not dominate their source. */
static int irreducible(struct lsa_sloops *s, struct fgraph *g)
{
	uint8_t *state = calloc(g->n, 1);
	uint32_t *comp = malloc(g->n * sizeof(uint32_t));
	uint8_t *bad = NULL;	/* per node: target of an irreducible edge */
	uint32_t sp = 0, nbad = 0, v, k;
	int err = 0;

	if (!state || !comp) {
		err = -LS_ENOMEM;
		goto out;
	}
	g->stack[sp++] = 0;
	state[0] = 1;
	g->next[0] = g->succ_off[0];
	while (sp) {
		uint32_t x = g->stack[sp - 1];

		if (g->next[x] < g->succ_off[x + 1]) {
			uint32_t w = g->succ[g->next[x]++];

			if (state[w] == 0) {
				state[w] = 1;
				g->next[w] = g->succ_off[w];
				g->stack[sp++] = w;
			} else if (state[w] == 1 && !lsa_dom_dominates(&g->dom, w, x)) {
				if (!bad && !(bad = calloc(g->n, 1))) {
					err = -LS_ENOMEM;
					goto out;
				}
				bad[w] = 1;
				nbad++;
			}
			continue;
		}
		state[x] = 2;
		sp--;
	}
	if (!nbad)
		goto out;
	scc(g, comp);
	memset(state, 0, g->n);
	for (k = 1; k < g->n; k++) {
		uint32_t cn = comp[k], nb = 0, nen = 0;
		struct lsa_sloop_irr *ir;

		if (!bad[k] || cn == LSA_DOM_NONE || state[k])
			continue;
		if (LS_GROW(s->irr, s->nirr + 1, s->capirr, 8)) {
			err = -LS_ENOMEM;
			goto out;
		}
		ir = &s->irr[s->nirr++];
		memset(ir, 0, sizeof(*ir));
		ir->func = (uint32_t)(g->f - lsa_cfg_func(g->c, 0));
		for (v = 1; v < g->n; v++)
			nb += comp[v] == cn;
		ir->blocks = malloc(nb * sizeof(uint32_t));
		ir->entries = malloc(nb * sizeof(uint32_t));
		if (!ir->blocks || !ir->entries) {
			err = -LS_ENOMEM;
			goto out;
		}
		for (v = 1; v < g->n; v++) {
			uint32_t p;
			int entry = 0;

			if (comp[v] != cn)
				continue;
			state[v] = 1;
			ir->blocks[ir->nblocks++] = block_of(g, v);
			ir->insns += lsa_cfg_block(g->c, block_of(g, v))->count *
				     lsa_cfg_block(g->c, block_of(g, v))->sb->ninsn;
			for (p = g->pred_off[v]; p < g->pred_off[v + 1]; p++)
				if (g->pred[p] == 0 || comp[g->pred[p]] != cn)
					entry = 1;
			if (entry)
				ir->entries[nen++] = block_of(g, v);
		}
		ir->nentries = nen;
	}
out:
	free(state), free(comp), free(bad);
	return err;
}

static int by_header(const void *a, const void *b)
{
	const struct bloop *x = a, *y = b;

	if (x->header != y->header)
		return x->header < y->header ? -1 : 1;
	return x->tail < y->tail ? -1 : x->tail > y->tail;
}

static int do_function(struct lsa_sloops *s, struct fgraph *g, double t,
		       uint64_t all_insns)
{
	struct bloop *bl = NULL;
	uint32_t nbl = 0, cap = 0, v, k, i, j, *set = NULL;
	size_t first = s->n;
	int err;

	if ((err = dominators(g)) < 0)
		return err;
	s->dom_passes += g->dom.passes;
	for (v = 1; v < g->n; v++)
		for (k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
			uint32_t h = g->succ[k];

			if (!lsa_dom_dominates(&g->dom, h, v))
				continue;
			if (LS_GROW32(bl, nbl + 1, cap, 8)) {
				err = -LS_ENOMEM;
				goto out;
			}
			bl[nbl].header = h;
			bl[nbl].tail = v;
			bl[nbl].count = g->succ_cnt[k];
			bl[nbl].body = NULL;
			if ((err = natural_loop(g, &bl[nbl++])) < 0)
				goto out;
		}
	s->back_edges += nbl;
	if (nbl)	/* bl is NULL then, which qsort must not get */
		qsort(bl, nbl, sizeof(*bl), by_header);
	set = malloc((nbl ? nbl : 1) * sizeof(uint32_t));
	if (!set) {
		err = -LS_ENOMEM;
		goto out;
	}
	for (i = 0; i < nbl; i = j) {
		for (j = i; j < nbl && bl[j].header == bl[i].header; j++)
			set[j - i] = j;
		if ((err = merge_split(s, g, bl, set, j - i, t)) < 0)
			goto out;
	}
	loop_stats(s, g, first, all_insns);
	err = irreducible(s, g);
out:
	for (i = 0; i < nbl; i++)
		free(bl[i].body);
	free(bl), free(set);
	return err;
}

int lsa_sloops_find(struct lsa_sloops **ps, const struct lsa_cfg *c,
		    const struct lsa_sloops_opts *o)
{
	struct lsa_sloops *s;
	struct lsa_cfg_stats st;
	double t = o && o->merge_t > 0 ? o->merge_t : LSA_SLOOPS_T;
	uint32_t maxn = 1;
	size_t fi;
	int err = 0;

	if (!ps || !c || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	*ps = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return -LS_ENOMEM;
	lsa_cfg_get_stats(c, &st);
	for (fi = 0; fi < lsa_cfg_nfuncs(c); fi++)
		if (lsa_cfg_func(c, (uint32_t)fi)->nblocks + 1 > maxn)
			maxn = lsa_cfg_func(c, (uint32_t)fi)->nblocks + 1;
	{
		struct fgraph g = { .c = c, .cap = maxn };

		g.succ_off = malloc(((size_t)maxn + 1) * sizeof(uint32_t));
		g.pred_off = malloc(((size_t)maxn + 1) * sizeof(uint32_t));
		g.rooted = malloc(maxn);
		g.mark = calloc(maxn, sizeof(uint32_t));
		g.work = malloc(maxn * sizeof(uint32_t));
		g.stack = malloc(maxn * sizeof(uint32_t));
		g.next = malloc(maxn * sizeof(uint32_t));
		if (!g.succ_off || !g.pred_off || !g.rooted || !g.mark || !g.work ||
		    !g.stack || !g.next)
			err = -LS_ENOMEM;
		for (fi = 0; !err && fi < lsa_cfg_nfuncs(c); fi++) {
			g.f = lsa_cfg_func(c, (uint32_t)fi);
			g.n = g.f->nblocks + 1;
			err = do_function(s, &g, t, st.insns);
		}
		lsa_dom_release(&g.dom);
		free(g.succ_off), free(g.pred_off), free(g.rooted), free(g.mark);
		free(g.work), free(g.stack), free(g.next);
		free(g.succ), free(g.pred), free(g.succ_cnt);
	}
	if (err < 0) {
		lsa_sloops_free(s);
		return err;
	}
	*ps = s;
	return 0;
}

size_t lsa_sloops_count(const struct lsa_sloops *s)
{
	return s->n;
}

const struct lsa_sloop *lsa_sloops_get(const struct lsa_sloops *s, size_t i)
{
	return i < s->n ? &s->loops[i] : NULL;
}

size_t lsa_sloops_nirreducible(const struct lsa_sloops *s)
{
	return s->nirr;
}

const struct lsa_sloop_irr *lsa_sloops_irreducible(const struct lsa_sloops *s,
						   size_t i)
{
	return i < s->nirr ? &s->irr[i] : NULL;
}

void lsa_sloops_counts(const struct lsa_sloops *s, uint64_t *back_edges,
		       uint64_t *dom_passes)
{
	*back_edges = s->back_edges;
	*dom_passes = s->dom_passes;
}

void lsa_sloops_free(struct lsa_sloops *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->loops[i].tails);
		free(s->loops[i].tail_counts);
		free(s->loops[i].blocks);
	}
	for (i = 0; i < s->nirr; i++) {
		free(s->irr[i].blocks);
		free(s->irr[i].entries);
	}
	free(s->loops), free(s->irr);
	free(s);
}
