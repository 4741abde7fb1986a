/* cgraph.c - the executed CFG's blocks and edges into the profile. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cgraph.h"
#include "ls_err.h"

struct lsa_cgraph {
	struct lsb_reader *r;
	struct lsa_cfg *cfg;
};

/* The profile module of bundle module m, interned as the loop detector
 * interns it (by build-id, else path).  Returns it or -LS_ENOMEM. */
static int module_of(struct lsb_reader *r, struct lsp_profile *p, int32_t m)
{
	const struct lsb_module *bm = lsb_reader_module(r, m);

	return bm ? lsp_module_intern(p, bm->build_id, bm->build_id_len,
				      bm->path ? bm->path : "")
		  : -LS_EINVAL;
}

/* End of an edge: the block's (module, off); outside when id is none or
 * its code is no bundled module's.  Returns 1 for a block, 0 outside. */
static int end_of(const struct lsa_cfg *c, uint32_t id, const int *pm, uint32_t *m,
		  uint64_t *off)
{
	const struct lsa_cfg_block *b = id == LSA_CFG_NONE ? NULL : lsa_cfg_block(c, id);

	*m = LSP_NONE;
	*off = 0;
	if (!b || !b->sb || b->sb->module < 0 || pm[b->sb->module] < 0)
		return 0;
	*m = (uint32_t)pm[b->sb->module];
	*off = b->sb->mod_off;
	return 1;
}

int lsa_cgraph_put(const struct lsa_cfg *c, struct lsb_reader *r, struct lsp_profile *p)
{
	size_t nmod = lsb_reader_nmodules(r), i;
	int *pm = malloc((nmod + 1) * sizeof(*pm));
	int err = 0;

	if (!pm)
		return -LS_ENOMEM;
	for (i = 0; i < nmod; i++)
		pm[i] = -1;
	lsp_cgraph_drop(p);
	for (i = 0; i < lsa_cfg_nblocks(c) && err >= 0; i++) {
		const struct lsa_cfg_block *b = lsa_cfg_block(c, (uint32_t)i);
		struct lsp_cblock o;

		if (!b->sb || !b->count || b->sb->module < 0 || (size_t)b->sb->module >= nmod)
			continue;
		if (pm[b->sb->module] < 0 &&
		    (err = pm[b->sb->module] = module_of(r, p, b->sb->module)) < 0)
			break;
		o.module = (uint32_t)pm[b->sb->module];
		o.off = b->sb->mod_off;
		o.end = b->sb->mod_off + (b->sb->end - b->sb->start);
		o.ninsn = b->sb->ninsn;
		o.count = b->count;
		o.callee = b->callee_insns;
		err = lsp_add_cblock(p, &o);
	}
	for (i = 0; i < lsa_cfg_nedges(c) && err >= 0; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);
		struct lsp_cedge o;
		int kf, kt;

		if (!e->count)
			continue;
		kf = end_of(c, e->from, pm, &o.fmod, &o.foff);
		kt = end_of(c, e->to, pm, &o.tmod, &o.toff);
		if (!kf && !kt)
			continue;	/* between code no module holds */
		o.kind = e->kind;
		o.why = e->why;
		o.flags = e->flags & LSA_CFG_F_XFER ? LSP_CF_XFER : 0;
		o.count = e->count;
		err = lsp_add_cedge(p, &o);
	}
	free(pm);
	return err < 0 ? err : 0;
}

int lsa_cgraph_new(struct lsa_cgraph **pg, struct lsb_reader *r,
		   struct lsd_symbols *sym, const struct lsd_image *img)
{
	struct lsa_cfg_opts co = { .size = sizeof(co), .img = img };
	struct lsa_cgraph *g;
	int err;

	if (!pg || !r)
		return -LS_EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -LS_ENOMEM;
	g->r = r;
	if ((err = lsa_cfg_new(&g->cfg, sym, &co)) < 0) {
		free(g);
		return err;
	}
	*pg = g;
	return 0;
}

void lsa_cgraph_free(struct lsa_cgraph *g)
{
	if (!g)
		return;
	lsa_cfg_free(g->cfg);
	free(g);
}

static int cgraph_finish(void *arg, struct lsp_profile *p)
{
	struct lsa_cgraph *g = arg;
	int err;

	if ((err = lsa_cfg_finish(g->cfg)) < 0)
		return err;
	return lsa_cgraph_put(g->cfg, g->r, p);
}

void lsa_cgraph_consumer(struct lsa_cgraph *g, struct lsa_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "control-flow graph";
	c->cb = &lsa_cfg_callbacks;
	c->arg = g->cfg;
	c->finish = cgraph_finish;
	c->finish_arg = g;
}
