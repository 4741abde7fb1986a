/* cgraph.c - the executed CFG's functions, blocks and edges into the
 * profile (lsa_cgraph_put), and back into a graph (lsa_cgraph_cfg). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg_int.h"
#include "analysis/cgraph.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_cgraph {
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsa_cfg *cfg;
	int shared;		/* cfg is another consumer's */
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

/* Whether path names the module: its path or its file name. */
int lsa_cgraph_path_match(const char *path, const char *name)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	return path && (!strcmp(path, name) || (base && !strcmp(base + 1, name)));
}

/* The bundle module named like the command line's first word, or -1. */
static int program_of(struct lsb_reader *r)
{
	const char *cmd = lsb_reader_meta(r, "cmdline"), *base;
	char exe[512];
	size_t n, i;

	if (!cmd || (n = strcspn(cmd, " ")) >= sizeof(exe))
		return -1;
	memcpy(exe, cmd, n);
	exe[n] = '\0';
	base = strrchr(exe, '/');
	for (i = 0; i < lsb_reader_nmodules(r); i++)
		if (lsa_cgraph_path_match(lsb_reader_module(r, i)->path, base ? base + 1 : exe))
			return (int)i;
	return -1;
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

/* The block's function as a cfunc (fm caches them by graph function).
 * Returns its index or a negative LS_E* code. */
static int cfunc_of(const struct lsa_cfg *c, const struct lsa_cfg_block *b, uint32_t m,
		    int *fm, struct lsp_profile *p)
{
	const struct lsa_cfg_func *f = lsa_cfg_func(c, b->func);

	if (!f)
		return -LS_EINVAL;
	if (fm[b->func] < 0)
		fm[b->func] = lsp_add_cfunc(p, m, f->start, f->name);
	return fm[b->func];
}

/* "file:line" of the code at (module m, off) as reports print it (the
 * file's base name), "-" unknown. */
static void src_of(struct lsd_symbols *sym, int32_t m, uint64_t off, char *buf, size_t len)
{
	struct lsd_symbol_info info;
	const char *b;

	snprintf(buf, len, "-");
	if (sym && lsd_symbols_lookup(sym, m, off, 1, &info) >= 0 && info.file) {
		b = strrchr(info.file, '/');
		snprintf(buf, len, "%s:%d", b ? b + 1 : info.file, info.line);
	}
}

static int put_blocks(const struct lsa_cfg *c, struct lsb_reader *r, struct lsd_symbols *sym,
		      struct lsp_profile *p, int *pm, int *fm)
{
	char src[512];
	size_t nmod = lsb_reader_nmodules(r), i;
	int err = 0;

	for (i = 0; i < lsa_cfg_nblocks(c) && err >= 0; i++) {
		const struct lsa_cfg_block *b = lsa_cfg_block(c, (uint32_t)i);
		const struct lsd_sblock *sb = b->sb;
		struct lsp_cblock o;

		if (!sb || !b->count || sb->module < 0 || (size_t)sb->module >= nmod)
			continue;
		if (pm[sb->module] < 0 && (err = pm[sb->module] = module_of(r, p, sb->module)) < 0)
			break;
		o.module = (uint32_t)pm[sb->module];
		if ((err = cfunc_of(c, b, o.module, fm, p)) < 0)
			break;
		o.func = (uint32_t)err;
		o.off = sb->mod_off;
		o.end = sb->mod_off + (sb->end - sb->start);
		o.last = sb->mod_off + (sb->last - sb->start);
		o.ninsn = sb->ninsn;
		o.count = b->count;
		o.callee = b->callee_insns;
		src_of(sym, sb->module, sb->mod_off, src, sizeof(src));
		o.src = src;
		err = lsp_add_cblock(p, &o);
	}
	return err;
}

int lsa_cgraph_put(const struct lsa_cfg *c, struct lsb_reader *r, struct lsd_symbols *sym,
		   struct lsp_profile *p)
{
	size_t nmod = lsb_reader_nmodules(r), i;
	int *pm = malloc((nmod + 1) * sizeof(*pm));
	int *fm = malloc((lsa_cfg_nfuncs(c) + 1) * sizeof(*fm));
	int err = -LS_ENOMEM, prog;

	if (!pm || !fm)
		goto out;
	for (i = 0; i < nmod; i++)
		pm[i] = -1;
	for (i = 0; i < lsa_cfg_nfuncs(c); i++)
		fm[i] = -1;
	lsp_cgraph_drop(p);
	p->has_cgraph = 1;
	err = put_blocks(c, r, sym, p, pm, fm);
	for (i = 0; i < lsa_cfg_nedges(c) && err >= 0; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);
		struct lsp_cedge o;
		int kf, kt;

		kf = end_of(c, e->from, pm, &o.fmod, &o.foff);
		kt = end_of(c, e->to, pm, &o.tmod, &o.toff);
		o.kind = e->kind;
		o.why = e->why;
		o.flags = e->flags & LSA_CFG_F_XFER ? LSP_CF_XFER : 0;
		o.count = e->count;
		if (e->flags & LSA_CFG_F_UNREACHED) {
			const struct lsd_sblock *sb = lsa_cfg_block(c, e->from)->sb;

			if (!kf)
				continue;
			/* the target by its offset: it may never have run */
			o.flags = LSP_CF_UNREACHED;
			o.tmod = o.fmod;
			o.toff = sb->mod_off + (e->to_addr - sb->start);
		} else if (!e->count || (!kf && !kt)) {
			continue;	/* between code no module holds */
		}
		err = lsp_add_cedge(p, &o);
	}
	prog = err >= 0 ? program_of(r) : -1;
	if (prog >= 0 && pm[prog] >= 0)
		p->cg_program = (uint32_t)pm[prog];
out:
	free(pm), free(fm);
	return err < 0 ? err : 0;
}

/* Block index of (m, off) in p's sorted blocks, or LSA_CFG_NONE. */
static uint32_t block_idx(const struct lsp_profile *p, uint32_t m, uint64_t off)
{
	size_t lo = 0, hi = p->n_cblocks;

	while (m != LSP_NONE && lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct lsp_cblock *b = &p->cblocks[mid];

		if (b->module == m && b->off == off)
			return (uint32_t)mid;
		if (b->module < m || (b->module == m && b->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return LSA_CFG_NONE;
}

/* Runtime addresses of a graph read from a profile: each module's code
 * at its own 2^48 window, so that address order is (module, off). */
static uint64_t addr_of(uint32_t m, uint64_t off)
{
	return ((uint64_t)m + 1) << 48 | off;
}

static int read_blocks(struct lsa_cfg *c, const struct lsp_profile *p)
{
	size_t i, n = p->n_cblocks;

	c->blk = calloc(n + 1, sizeof(*c->blk));
	c->own_sb = calloc(n + 1, sizeof(*c->own_sb));
	c->by_addr = malloc((n + 1) * sizeof(*c->by_addr));
	if (!c->blk || !c->own_sb || !c->by_addr)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct lsp_cblock *b = &p->cblocks[i];
		struct lsd_sblock *sb = &c->own_sb[i];

		sb->start = addr_of(b->module, b->off);
		sb->last = addr_of(b->module, b->last);
		sb->end = addr_of(b->module, b->end);
		sb->ninsn = b->ninsn;
		sb->id = (uint32_t)i;
		sb->module = (int32_t)b->module;
		sb->mod_off = b->off;
		c->blk[i].sb = sb;
		c->blk[i].count = b->count;
		c->blk[i].callee_insns = b->callee;
		c->by_addr[i] = (uint32_t)i;	/* the rows' order is the addresses' */
		c->st.blocks += b->count;
		c->st.insns += b->count * b->ninsn;
	}
	c->nblk = c->nexec = n;
	return 0;
}

/* The functions that have blocks, in the rows' order, with their blocks
 * by address (as lsa_cfg_finish() groups them). */
static int read_funcs(struct lsa_cfg *c, const struct lsp_profile *p)
{
	size_t i, nf = 0, k = 0;
	uint32_t *first = malloc((p->n_cfuncs + 1) * sizeof(*first));
	uint32_t *fidx = malloc((p->n_cfuncs + 1) * sizeof(*fidx));
	int err = -LS_ENOMEM;

	c->funcs = calloc(p->n_cfuncs + 1, sizeof(*c->funcs));
	c->names = calloc(p->n_cfuncs + 1, sizeof(*c->names));
	c->fblocks = malloc((c->nblk + 1) * sizeof(*c->fblocks));
	if (!first || !fidx || !c->funcs || !c->names || !c->fblocks)
		goto out;
	memset(first, 0, (p->n_cfuncs + 1) * sizeof(*first));
	for (i = 0; i < c->nblk; i++)
		first[p->cblocks[i].func]++;
	for (i = 0; i < p->n_cfuncs; i++) {
		struct lsa_cfg_func *f = &c->funcs[nf];
		const char *name = p->cfuncs[i].name;

		if (!first[i])
			continue;
		f->module = (int32_t)p->cfuncs[i].module;
		f->start = p->cfuncs[i].off;
		f->nblocks = first[i];
		f->blocks = &c->fblocks[k];
		if (*name && !(c->names[nf] = strdup(name)))
			goto out;
		f->name = c->names[nf];
		fidx[i] = (uint32_t)nf++;
		first[i] = (uint32_t)k;	/* from here: the next free slot */
		k += f->nblocks;
	}
	c->nfuncs = nf;
	for (i = 0; i < c->nblk; i++) {
		uint32_t pf = p->cblocks[i].func;
		struct lsa_cfg_func *f = &c->funcs[fidx[pf]];

		c->blk[i].func = fidx[pf];
		c->blk[i].local = (uint32_t)(first[pf] - (uint32_t)(f->blocks - c->fblocks));
		c->fblocks[first[pf]++] = (uint32_t)i;
		f->insns += c->blk[i].count * c->blk[i].sb->ninsn;
	}
	err = 0;
out:
	free(first), free(fidx);
	return err;
}

/* The edges in the rows' order. */
static int read_edges(struct lsa_cfg *c, const struct lsp_profile *p)
{
	size_t i;

	c->edges = malloc((p->n_cedges + 1) * sizeof(*c->edges));
	if (!c->edges)
		return -LS_ENOMEM;
	c->capedges = p->n_cedges + 1;
	for (i = 0; i < p->n_cedges; i++) {
		const struct lsp_cedge *pe = &p->cedges[i];
		struct lsa_cfg_edge *e = &c->edges[c->nedges++];

		memset(e, 0, sizeof(*e));
		e->from = block_idx(p, pe->fmod, pe->foff);
		e->to = block_idx(p, pe->tmod, pe->toff);
		e->kind = (uint8_t)pe->kind;
		e->why = (uint8_t)pe->why;
		e->count = pe->count;
		e->flags = pe->flags & LSP_CF_XFER ? LSA_CFG_F_XFER : 0;
		if (pe->flags & LSP_CF_UNREACHED) {
			e->flags |= LSA_CFG_F_UNREACHED;
			e->to_addr = addr_of(pe->tmod, pe->toff);
		} else if (e->to != LSA_CFG_NONE) {
			e->to_addr = c->blk[e->to].sb->start;
		}
		if (e->kind == LSA_CFG_CALL && e->to != LSA_CFG_NONE)
			c->funcs[c->blk[e->to].func].calls += e->count;
	}
	return 0;
}

int lsa_cgraph_cfg(struct lsa_cfg **pc, const struct lsp_profile *p)
{
	struct lsa_cfg_opts co = { .size = sizeof(co) };
	struct lsa_cfg *c;
	int err;

	if (!pc || !p)
		return -LS_EINVAL;
	if (!p->has_cgraph)
		return -LS_ENOENT;
	if ((err = lsa_cfg_new(&c, NULL, &co)) < 0)
		return err;
	c->finished = 1;
	if ((err = read_blocks(c, p)) < 0 || (err = read_funcs(c, p)) < 0 ||
	    (err = read_edges(c, p)) < 0 || (err = lsa_cfg_index_edges(c)) < 0) {
		lsa_cfg_free(c);
		return err;
	}
	*pc = c;
	return 0;
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
	g->sym = sym;
	if ((err = lsa_cfg_new(&g->cfg, sym, &co)) < 0) {
		free(g);
		return err;
	}
	*pg = g;
	return 0;
}

int lsa_cgraph_new_on(struct lsa_cgraph **pg, struct lsb_reader *r,
		      struct lsd_symbols *sym, struct lsa_cfg *c)
{
	struct lsa_cgraph *g;

	if (!pg || !r || !c)
		return -LS_EINVAL;
	if (!(g = calloc(1, sizeof(*g))))
		return -LS_ENOMEM;
	g->r = r;
	g->sym = sym;
	g->cfg = c;
	g->shared = 1;
	*pg = g;
	return 0;
}

void lsa_cgraph_free(struct lsa_cgraph *g)
{
	if (!g)
		return;
	if (!g->shared)
		lsa_cfg_free(g->cfg);
	free(g);
}

static int cgraph_finish(void *arg, struct lsp_profile *p)
{
	struct lsa_cgraph *g = arg;
	int err;

	if ((err = lsa_cfg_finish(g->cfg)) < 0)
		return err;
	return lsa_cgraph_put(g->cfg, g->r, g->sym, p);
}

void lsa_cgraph_consumer(struct lsa_cgraph *g, struct lsa_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "control-flow graph";
	/* a shared graph is fed by its owner's consumer */
	c->cb = g->shared ? &lsa_consumers_none : &lsa_cfg_callbacks;
	c->arg = g->shared ? NULL : g->cfg;
	c->finish = cgraph_finish;
	c->finish_arg = g;
}
