/* knuth.c - maximum-weight spanning tree placement and reconstruction. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/knuth.h"
#include "ls_err.h"

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];	/* path halving */
		x = up[x];
	}
	return x;
}

/* qsort has no context argument in C11: the edges being sorted are
 * passed through this file-scope pointer (the library is used from one
 * thread per call). */
static const struct lsa_knuth_edge *sort_edges;

static int by_weight_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t wx = sort_edges[x].weight, wy = sort_edges[y].weight;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

int lsa_knuth_place(uint32_t n, const struct lsa_knuth_edge *e, size_t ne,
		    uint8_t *probe)
{
	size_t *ord, i;
	uint32_t *up;
	int nprobe = 0;

	for (i = 0; i < ne; i++)
		if (e[i].from >= n || e[i].to >= n)
			return -LS_EINVAL;
	ord = malloc((ne ? ne : 1) * sizeof(*ord));
	up = malloc((n ? n : 1) * sizeof(*up));
	if (!ord || !up) {
		free(ord), free(up);
		return -LS_ENOMEM;
	}
	for (i = 0; i < ne; i++)
		ord[i] = i;
	for (i = 0; i < n; i++)
		up[i] = (uint32_t)i;
	sort_edges = e;
	qsort(ord, ne, sizeof(*ord), by_weight_desc);
	for (i = 0; i < ne; i++) {
		size_t k = ord[i];
		uint32_t a = uf_find(up, e[k].from), b = uf_find(up, e[k].to);

		if (a == b) {
			probe[k] = 1;
			nprobe++;
		} else {
			probe[k] = 0;
			up[a] = b;
		}
	}
	free(ord), free(up);
	return nprobe;
}

int lsa_knuth_solve(uint32_t n, const struct lsa_knuth_edge *e, size_t ne,
		    const uint8_t *probe, uint64_t *count)
{
	/* Per node: the number of incident tree edges not yet solved and
	 * the net known flow (in - out); incident lists in CSR form. */
	uint32_t *unk = calloc(n ? n : 1, sizeof(*unk));
	int64_t *net = calloc(n ? n : 1, sizeof(*net));
	uint32_t *off = calloc((size_t)n + 1, sizeof(*off));
	uint32_t *inc = malloc((2 * ne + 1) * sizeof(*inc));
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof(*queue));
	uint8_t *done = calloc(ne ? ne : 1, 1);
	uint32_t qh = 0, qt = 0, v;
	size_t i, solved = 0, ntree = 0;
	int err = 0;

	if (!unk || !net || !off || !inc || !queue || !done) {
		err = -LS_ENOMEM;
		goto out;
	}
	for (i = 0; i < ne; i++) {
		if (e[i].from >= n || e[i].to >= n) {
			err = -LS_EINVAL;
			goto out;
		}
		if (probe[i]) {
			net[e[i].to] += (int64_t)count[i];
			net[e[i].from] -= (int64_t)count[i];
			done[i] = 1;
			continue;
		}
		ntree++;
		unk[e[i].from]++, unk[e[i].to]++;
		off[e[i].from + 1]++, off[e[i].to + 1]++;
	}
	for (v = 0; v < n; v++)
		off[v + 1] += off[v];
	{
		uint32_t *fill = calloc(n ? n : 1, sizeof(*fill));

		if (!fill) {
			err = -LS_ENOMEM;
			goto out;
		}
		for (i = 0; i < ne; i++)
			if (!probe[i]) {
				inc[off[e[i].from] + fill[e[i].from]++] = (uint32_t)i;
				inc[off[e[i].to] + fill[e[i].to]++] = (uint32_t)i;
			}
		free(fill);
	}
	for (v = 0; v < n; v++)
		if (unk[v] == 1)
			queue[qt++] = v;
	while (qh < qt) {
		uint32_t x = queue[qh++], k, other;
		int64_t val;
		size_t ei = ne;

		if (unk[x] != 1)
			continue;
		for (k = off[x]; k < off[x + 1]; k++)
			if (!done[inc[k]]) {
				ei = inc[k];
				break;
			}
		if (ei == ne)
			continue;
		/* Conservation at x: the one unknown edge closes the balance. */
		val = e[ei].to == x ? -net[x] : net[x];
		if (e[ei].from == e[ei].to || val < 0) {
			err = -LS_ECORRUPT;
			goto out;
		}
		count[ei] = (uint64_t)val;
		done[ei] = 1;
		solved++;
		net[e[ei].to] += val;
		net[e[ei].from] -= val;
		unk[e[ei].from]--, unk[e[ei].to]--;
		other = e[ei].from == x ? e[ei].to : e[ei].from;
		if (unk[other] == 1)
			queue[qt++] = other;
		if (qt > n) {	/* every node enters at most twice */
			memmove(queue, queue + qh, (qt - qh) * sizeof(*queue));
			qt -= qh;
			qh = 0;
		}
	}
	if (solved != ntree)
		err = -LS_EINVAL;	/* the tree edges hold a cycle */
out:
	free(unk), free(net), free(off), free(inc), free(queue), free(done);
	return err;
}

static int in_func(const struct lsa_cfg *c, uint32_t id, uint32_t fi)
{
	return id != LSA_CFG_NONE && lsa_cfg_block(c, id)->func == fi;
}

int lsa_knuth_func(const struct lsa_cfg *c, uint32_t fi, struct lsa_knuth_func *kf)
{
	const struct lsa_cfg_func *f = lsa_cfg_func(c, fi);
	struct lsa_knuth_edge *ke = NULL;
	size_t cap = 0, i, k;
	int err = -LS_ENOMEM, pass;

	if (!f || !kf)
		return -LS_EINVAL;
	memset(kf, 0, sizeof(*kf));
	kf->func = fi;
	/* Pass 0 counts, pass 1 fills: each edge once, from its source
	 * block, or from its target block for IN edges. */
	for (pass = 0; pass < 2; pass++) {
		kf->nedges = 0;
		for (i = 0; i < f->nblocks; i++) {
			uint32_t id = f->blocks[i];
			int dir;

			for (dir = 1; dir >= 0; dir--) {
				const uint32_t *l;
				size_t n = lsa_cfg_edges_of(c, id, dir, &l);

				for (k = 0; k < n; k++) {
					const struct lsa_cfg_edge *e = lsa_cfg_edge(c, l[k]);
					int take;

					if (dir)
						take = e->kind == LSA_CFG_OUT ||
						       (e->kind <= LSA_CFG_CALLRET &&
							!(e->flags & LSA_CFG_F_XFER) &&
							in_func(c, e->to, fi));
					else
						take = e->kind == LSA_CFG_IN;
					if (!take)
						continue;
					if (pass) {
						ke[kf->nedges].from = e->from == LSA_CFG_NONE ? 0 :
							lsa_cfg_block(c, e->from)->local + 1;
						ke[kf->nedges].to = e->to == LSA_CFG_NONE ? 0 :
							lsa_cfg_block(c, e->to)->local + 1;
						ke[kf->nedges].weight = e->count;
						kf->edges[kf->nedges] = l[k];
					}
					kf->nedges++;
				}
			}
		}
		if (pass == 0) {
			cap = kf->nedges ? kf->nedges : 1;
			ke = malloc(cap * sizeof(*ke));
			kf->edges = malloc(cap * sizeof(*kf->edges));
			kf->probe = calloc(cap, 1);
			kf->solved = calloc(cap, sizeof(*kf->solved));
			if (!ke || !kf->edges || !kf->probe || !kf->solved)
				goto out;
		}
	}
	err = lsa_knuth_place(f->nblocks + 1, ke, kf->nedges, kf->probe);
	if (err < 0)
		goto out;
	kf->nprobes = (size_t)err;
	for (i = 0; i < kf->nedges; i++)
		kf->solved[i] = kf->probe[i] ? ke[i].weight : 0;
	err = lsa_knuth_solve(f->nblocks + 1, ke, kf->nedges, kf->probe, kf->solved);
	if (err < 0)
		goto out;
	for (i = 0; i < kf->nedges; i++)
		kf->mismatches += kf->solved[i] != ke[i].weight;
out:
	free(ke);
	if (err < 0)
		lsa_knuth_func_release(kf);
	return err < 0 ? err : 0;
}

void lsa_knuth_func_release(struct lsa_knuth_func *kf)
{
	if (!kf)
		return;
	free(kf->edges), free(kf->probe), free(kf->solved);
	kf->edges = NULL, kf->probe = NULL, kf->solved = NULL;
}
