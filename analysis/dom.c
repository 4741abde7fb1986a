/* dom.c - Cooper-Harvey-Kennedy dominators over reverse postorder. */
#include <stdlib.h>
#include <string.h>

#include "analysis/dom.h"
#include "ls_err.h"

/* Iterative depth-first search from the root; writes the postorder into
 * order[] and returns its length.  Each stack entry is a node and the
 * index of its next successor to visit, so the order is the one a
 * recursive search would give. */
static uint32_t postorder(const struct lsa_dom_graph *g, uint32_t *order,
			  uint32_t *stack, uint32_t *next, uint8_t *seen)
{
	uint32_t sp = 0, k = 0;

	stack[sp++] = g->root;
	seen[g->root] = 1;
	next[g->root] = g->succ_off[g->root];
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (next[v] < g->succ_off[v + 1]) {
			uint32_t w = g->succ[next[v]++];

			if (!seen[w]) {
				seen[w] = 1;
				next[w] = g->succ_off[w];
				stack[sp++] = w;
			}
			continue;
		}
		order[k++] = v;
		sp--;
	}
	return k;
}

static uint32_t intersect(const uint32_t *idom, const uint32_t *num,
			  uint32_t a, uint32_t b)
{
	/* Postorder numbers here are rpo positions: the dominator has the
	 * smaller one. */
	while (a != b) {
		while (num[a] > num[b])
			a = idom[a];
		while (num[b] > num[a])
			b = idom[b];
	}
	return a;
}

int lsa_dom_compute(struct lsa_dom *dom, const struct lsa_dom_graph *g)
{
	uint32_t *post = NULL, *stack = NULL, *next = NULL;
	uint8_t *seen = NULL;
	uint32_t i, k, n;
	int changed;

	if (!dom || !g || g->root >= g->n || !g->succ_off || !g->pred_off)
		return -LS_EINVAL;
	memset(dom, 0, sizeof(*dom));
	n = g->n;
	dom->n = n;
	dom->idom = malloc(n * sizeof(uint32_t));
	dom->rpo = malloc(n * sizeof(uint32_t));
	dom->rpo_num = malloc(n * sizeof(uint32_t));
	post = malloc(n * sizeof(uint32_t));
	stack = malloc(n * sizeof(uint32_t));
	next = malloc(n * sizeof(uint32_t));
	seen = calloc(n, 1);
	if (!dom->idom || !dom->rpo || !dom->rpo_num || !post || !stack ||
	    !next || !seen) {
		free(post), free(stack), free(next), free(seen);
		lsa_dom_release(dom);
		return -LS_ENOMEM;
	}
	k = postorder(g, post, stack, next, seen);
	for (i = 0; i < n; i++) {
		dom->idom[i] = LSA_DOM_NONE;
		dom->rpo_num[i] = LSA_DOM_NONE;
	}
	for (i = 0; i < k; i++) {
		dom->rpo[i] = post[k - 1 - i];
		dom->rpo_num[dom->rpo[i]] = i;
	}
	dom->nreached = k;
	dom->idom[g->root] = g->root;
	do {
		changed = 0;
		dom->passes++;
		for (i = 1; i < k; i++) {
			uint32_t b = dom->rpo[i], nd = LSA_DOM_NONE, e;

			for (e = g->pred_off[b]; e < g->pred_off[b + 1]; e++) {
				uint32_t p = g->pred[e];

				if (dom->idom[p] == LSA_DOM_NONE)
					continue;	/* not processed yet */
				nd = nd == LSA_DOM_NONE ? p :
				     intersect(dom->idom, dom->rpo_num, p, nd);
			}
			if (nd != dom->idom[b]) {
				dom->idom[b] = nd;
				changed = 1;
			}
		}
	} while (changed);
	free(post), free(stack), free(next), free(seen);
	return 0;
}

int lsa_dom_dominates(const struct lsa_dom *dom, uint32_t a, uint32_t b)
{
	if (a >= dom->n || b >= dom->n || dom->idom[a] == LSA_DOM_NONE ||
	    dom->idom[b] == LSA_DOM_NONE)
		return 0;
	/* Walk up from b; rpo numbers fall strictly along the tree. */
	for (;;) {
		if (b == a)
			return 1;
		if (dom->idom[b] == b || dom->rpo_num[b] < dom->rpo_num[a])
			return 0;
		b = dom->idom[b];
	}
}

void lsa_dom_release(struct lsa_dom *dom)
{
	if (!dom)
		return;
	free(dom->idom);
	free(dom->rpo);
	free(dom->rpo_num);
	memset(dom, 0, sizeof(*dom));
}
