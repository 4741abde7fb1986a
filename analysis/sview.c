/* sview.c - the structural loops of one decode into the profile. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/cgraph.h"
#include "analysis/loopcmp.h"
#include "analysis/sloops.h"
#include "analysis/sview.h"
#include "formats/profile_view.h"
#include "ls_err.h"

struct lsa_sview {
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsa_cfg *cfg;
	double merge_t;
	int graph;
	int shared;		/* cfg is another consumer's */
};

int lsa_sview_new(struct lsa_sview **pv, struct lsb_reader *r,
		  struct lsd_symbols *sym, const struct lsa_sview_opts *o)
{
	struct lsa_cfg_opts co = { .size = sizeof(co) };
	struct lsa_sview *v;
	int err;

	if (!pv || !r || !o || o->size < sizeof(*o))
		return -LS_EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -LS_ENOMEM;
	v->r = r;
	v->sym = sym;
	v->merge_t = o->merge_t > 0 ? o->merge_t : LSA_SLOOPS_T;
	co.img = o->img;
	v->graph = o->graph;
	if (o->cfg) {
		v->cfg = o->cfg;
		v->shared = 1;
	} else if ((err = lsa_cfg_new(&v->cfg, sym, &co)) < 0) {
		free(v);
		return err;
	}
	*pv = v;
	return 0;
}

void lsa_sview_free(struct lsa_sview *v)
{
	if (!v)
		return;
	if (!v->shared)
		lsa_cfg_free(v->cfg);
	free(v);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

/* "function+0xoff" ("file+0xoff" where no symbol names the code) and
 * "file:line" of block id, a cblock row of p, as reports print them. */
static void where(const struct lsp_profile *p, uint32_t id, char *fn, size_t fl,
		  const char **src)
{
	const struct lsp_cblock *b = id < p->n_cblocks ? &p->cblocks[id] : NULL;
	const struct lsp_cfunc *f = b ? &p->cfuncs[b->func] : NULL;

	*src = b ? b->src : "-";
	if (!b)
		snprintf(fn, fl, "?");
	else if (*f->name)
		snprintf(fn, fl, "%s+0x%" PRIx64, f->name, b->off - f->off);
	else
		snprintf(fn, fl, "%s+0x%" PRIx64, base(p->modules[b->module].path), b->off);
}

static const int match_of[LSA_CMP_MAX] = {
	[LSA_CMP_SAME] = LSP_SM_SAME, [LSA_CMP_COUNTS] = LSP_SM_COUNTS,
	[LSA_CMP_INNER] = LSP_SM_INNER, [LSA_CMP_NO_DYNAMIC] = LSP_SM_NODYN,
};

/* The loops, in the analysis' order, with their match and back edges. */
static int put_loops(struct lsp_profile *p, const struct lsa_sloops *s,
		     const struct lsa_cmp *rows, size_t nrows)
{
	char fn[256];
	const char *src;
	size_t i, k;
	int err = 0;

	for (i = 0; i < nrows && !err; i++) {
		const struct lsa_cmp *c = &rows[i];
		const struct lsa_sloop *sl;
		struct lsp_sloop o;

		if (c->sloop == LSA_SLOOP_NONE)
			continue;
		sl = lsa_sloops_get(s, c->sloop);
		where(p, sl->header, fn, sizeof(fn), &src);
		memset(&o, 0, sizeof(o));
		o.header = sl->header;
		o.parent = sl->parent == LSA_SLOOP_NONE ? LSP_NONE : sl->parent;
		o.depth = sl->depth;
		o.match = (uint32_t)match_of[c->kind];
		o.loop = c->loop;
		o.head_off = sl->header < p->n_cblocks ? p->cblocks[sl->header].off : 0;
		o.where = fn;
		o.src = (char *)src;
		o.static_insns = sl->static_insns;
		o.iterations = sl->iterations;
		o.invocations = sl->invocations;
		o.self = sl->self_insns;
		o.total = sl->total_insns;
		o.iters_per_inv = sl->iters_per_inv;
		o.coverage = sl->coverage;
		err = lsp_add_sloop(p, &o);
		for (k = 0; k < sl->ntails && !err; k++) {
			struct lsp_stail t = { (uint32_t)(p->n_sloops - 1), sl->tails[k],
					       sl->tail_counts[k] };

			err = lsp_add_stail(p, &t);
		}
	}
	return err;
}

static int put_irreducible(struct lsp_profile *p, const struct lsa_sloops *s)
{
	char fn[256];
	const char *src = "-";
	size_t i, n = lsa_sloops_nirreducible(s);
	uint32_t k;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct lsa_sloop_irr *ir = lsa_sloops_irreducible(s, i);
		struct lsp_sirr o = { ir->nblocks, ir->insns };

		err = lsp_add_sirr(p, &o);
		for (k = 0; k < ir->nentries && !err; k++) {
			struct lsp_sentry e = { (uint32_t)(p->n_sirrs - 1), fn, NULL };

			where(p, ir->entries[k], fn, sizeof(fn), &src);
			e.src = (char *)src;
			err = lsp_add_sentry(p, &e);
		}
	}
	return err;
}

int lsa_sview_put(struct lsp_profile *p, double merge_t)
{
	struct lsa_sloops_opts so = { .size = sizeof(so) };
	struct lsa_sloops *s = NULL;
	struct lsa_cfg *c = NULL;
	struct lsp_view *pv = NULL;
	struct lsa_cmp *rows = NULL;
	size_t nrows = 0;
	int err;

	if (!p)
		return -LS_EINVAL;
	so.merge_t = merge_t > 0 ? merge_t : LSA_SLOOPS_T;
	lsp_sview_drop(p);
	if ((err = lsa_cgraph_cfg(&c, p)) < 0 ||
	    (err = lsa_sloops_find(&s, c, &so)) < 0 ||
	    (err = lsp_view_new(&pv, p, LSP_VIEW_ALL)) < 0 ||
	    (err = lsa_cmp_loops(c, s, pv, &rows, &nrows)) < 0)
		goto out;
	p->has_sview = 1;
	p->smerge_t = so.merge_t;
	if ((err = put_loops(p, s, rows, nrows)) >= 0)
		err = put_irreducible(p, s);
out:
	free(rows);
	lsp_view_free(pv);
	lsa_sloops_free(s);
	lsa_cfg_free(c);
	return err;
}

/* The graph into p's records, and the loops found from them (the same
 * way as from a profile's: lsa_sview_put()); the records stay with
 * --cfg. */
static int sview_finish(void *arg, struct lsp_profile *p)
{
	struct lsa_sview *v = arg;
	int err;

	if ((err = lsa_cfg_finish(v->cfg)) < 0 ||
	    (err = lsa_cgraph_put(v->cfg, v->r, v->sym, p)) < 0)
		return err;
	/* the final order (block ids are cblock rows): lsp_sort() again
	 * leaves it, as no module comes after this */
	if ((err = lsp_sort(p)) < 0 || (err = lsa_sview_put(p, v->merge_t)) < 0)
		return err;
	if (!v->graph)
		lsp_cgraph_drop(p);
	return 0;
}

void lsa_sview_consumer(struct lsa_sview *v, struct lsa_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "structural loops";
	/* a shared graph is fed by its owner's consumer */
	c->cb = v->shared ? &lsa_consumers_none : &lsa_cfg_callbacks;
	c->arg = v->shared ? NULL : v->cfg;
	c->finish = sview_finish;
	c->finish_arg = v;
}
