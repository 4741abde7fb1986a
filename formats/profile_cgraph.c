/* profile_cgraph.c - the graph records of a profile (version 5: cblock,
 * cedge): adding, ordering and summing, reading and writing them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* analysis/cfg.h's kinds and whys, in its order (it uses these names). */
static const char *const ckind_names[LSP_CKIND_MAX] = {
	"fall", "taken", "nottaken", "jump", "ijump", "sysret", "callret",
	"call", "ret", "in", "out",
};

static const char *const cwhy_names[LSP_CWHY_MAX] = {
	"-", "call", "ret", "xfer", "start", "end", "gap", "resume", "async",
	"syscall", "unmatched", "unwound", "noreturn",
};

static int code_of(const char *const *names, unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -LS_EINVAL;
}

const char *lsp_ckind_name(unsigned k)
{
	return k < LSP_CKIND_MAX ? ckind_names[k] : "?";
}

int lsp_ckind_code(const char *name)
{
	return code_of(ckind_names, LSP_CKIND_MAX, name);
}

const char *lsp_cwhy_name(unsigned w)
{
	return w < LSP_CWHY_MAX ? cwhy_names[w] : "?";
}

int lsp_cwhy_code(const char *name)
{
	return code_of(cwhy_names, LSP_CWHY_MAX, name);
}

int lsp_add_cfunc(struct lsp_profile *p, uint32_t module, uint64_t off, const char *name)
{
	struct lsp_cfunc *f;

	if (!p || module >= p->n_modules)
		return -LS_EINVAL;
	if (p->n_cfuncs >= INT32_MAX ||
	    LS_GROW(p->cfuncs, p->n_cfuncs + 1, p->cap_cfuncs, 64) < 0)
		return -LS_ENOMEM;
	f = &p->cfuncs[p->n_cfuncs];
	f->module = module;
	f->off = off;
	if (!(f->name = strdup(name ? name : "")))
		return -LS_ENOMEM;
	p->has_cgraph = 1;
	return (int)p->n_cfuncs++;
}

int lsp_add_cblock(struct lsp_profile *p, const struct lsp_cblock *b)
{
	if (!p || !b || b->module >= p->n_modules || b->end <= b->off || !b->ninsn ||
	    b->last < b->off || b->last >= b->end || b->func >= p->n_cfuncs ||
	    p->cfuncs[b->func].module != b->module)
		return -LS_EINVAL;
	if (LS_GROW(p->cblocks, p->n_cblocks + 1, p->cap_cblocks, 64) < 0)
		return -LS_ENOMEM;
	p->cblocks[p->n_cblocks] = *b;
	if (!(p->cblocks[p->n_cblocks].src = strdup(b->src ? b->src : "-")))
		return -LS_ENOMEM;
	p->n_cblocks++;
	p->has_cgraph = 1;
	return 0;
}

int lsp_add_cedge(struct lsp_profile *p, const struct lsp_cedge *e)
{
	if (!p || !e || (e->fmod != LSP_NONE && e->fmod >= p->n_modules) ||
	    (e->tmod != LSP_NONE && e->tmod >= p->n_modules) ||
	    e->kind >= LSP_CKIND_MAX || e->why >= LSP_CWHY_MAX ||
	    e->flags > (LSP_CF_XFER | LSP_CF_UNREACHED))
		return -LS_EINVAL;
	if (LS_GROW(p->cedges, p->n_cedges + 1, p->cap_cedges, 64) < 0)
		return -LS_ENOMEM;
	p->cedges[p->n_cedges++] = *e;
	p->has_cgraph = 1;
	return 0;
}

void lsp_cgraph_drop(struct lsp_profile *p)
{
	size_t i;

	for (i = 0; i < p->n_cfuncs; i++)
		free(p->cfuncs[i].name);
	for (i = 0; i < p->n_cblocks; i++)
		free(p->cblocks[i].src);
	free(p->cfuncs), free(p->cblocks), free(p->cedges);
	p->cfuncs = NULL, p->cblocks = NULL, p->cedges = NULL;
	p->n_cfuncs = p->cap_cfuncs = 0;
	p->n_cblocks = p->cap_cblocks = p->n_cedges = p->cap_cedges = 0;
	p->has_cgraph = 0;
	p->cg_program = LSP_NONE;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* LSP_NONE (outside) sorts first. */
static int cmp_mod(uint32_t a, uint32_t b)
{
	return a == b ? 0 : a == LSP_NONE ? -1 : b == LSP_NONE ? 1 : cmp_u64(a, b);
}

static int cblock_cmp(const void *x, const void *y)
{
	const struct lsp_cblock *a = x, *b = y;

	return a->module != b->module ? cmp_u64(a->module, b->module) : cmp_u64(a->off, b->off);
}

static int cedge_cmp(const void *x, const void *y)
{
	const struct lsp_cedge *a = x, *b = y;
	int c;

	if ((c = cmp_mod(a->fmod, b->fmod)) || (c = cmp_u64(a->foff, b->foff)) ||
	    (c = cmp_mod(a->tmod, b->tmod)) || (c = cmp_u64(a->toff, b->toff)) ||
	    (c = cmp_u64(a->kind, b->kind)) || (c = cmp_u64(a->why, b->why)))
		return c;
	return cmp_u64(a->flags, b->flags);
}

static uint32_t remod(const uint32_t *mm, uint32_t m)
{
	return m == LSP_NONE ? LSP_NONE : mm[m];
}

/* qsort has no context argument in C11: the functions being ordered are
 * reached through this pointer (one sort at a time). */
static const struct lsp_cfunc *sort_funcs;

static int cfunc_cmp(const void *x, const void *y)
{
	const struct lsp_cfunc *a = &sort_funcs[*(const uint32_t *)x];
	const struct lsp_cfunc *b = &sort_funcs[*(const uint32_t *)y];

	return a->module != b->module ? cmp_u64(a->module, b->module) : cmp_u64(a->off, b->off);
}

/* The functions by (module, off), one row a key (merged runs name it
 * alike, else returns 1); fm[old] = new.  Returns 0, 1, -LS_ENOMEM. */
static int sort_cfuncs(struct lsp_profile *p, uint32_t *fm)
{
	uint32_t *ord = malloc((p->n_cfuncs + 1) * sizeof(*ord));
	struct lsp_cfunc *nf = malloc((p->n_cfuncs + 1) * sizeof(*nf));
	size_t i, n = 0;
	int ret = 0;

	if (!ord || !nf) {
		free(ord), free(nf);
		return -LS_ENOMEM;
	}
	for (i = 0; i < p->n_cfuncs; i++)
		ord[i] = (uint32_t)i;
	sort_funcs = p->cfuncs;
	qsort(ord, p->n_cfuncs, sizeof(*ord), cfunc_cmp);
	for (i = 0; i < p->n_cfuncs; i++) {
		struct lsp_cfunc *f = &p->cfuncs[ord[i]];

		if (n && !cfunc_cmp(&ord[i], &ord[i - 1])) {
			ret |= strcmp(nf[n - 1].name, f->name) != 0;
			free(f->name);
		} else {
			nf[n++] = *f;
		}
		fm[ord[i]] = (uint32_t)(n - 1);
	}
	free(ord);
	free(p->cfuncs);
	p->cfuncs = nf;
	p->n_cfuncs = p->cap_cfuncs = n;
	return ret;
}

/* A way one run left unreached that another took is no longer unreached
 * (the graph of both adds it only when one way was never taken): drops
 * those rows.  p->cedges is sorted, so a block's edges are together. */
static void drop_taken_ways(struct lsp_profile *p)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < p->n_cedges; i = j) {
		unsigned taken = 0;

		for (j = i; j < p->n_cedges && p->cedges[j].fmod == p->cedges[i].fmod &&
			    p->cedges[j].foff == p->cedges[i].foff; j++)
			if (!(p->cedges[j].flags & LSP_CF_UNREACHED))
				taken |= 1u << p->cedges[j].kind;
		for (k = i; k < j; k++)
			if (!(p->cedges[k].flags & LSP_CF_UNREACHED &&
			      taken & 1u << p->cedges[k].kind))
				p->cedges[n++] = p->cedges[k];
	}
	p->n_cedges = n;
}

int lsp_cgraph_order(struct lsp_profile *p)
{
	uint32_t *mm = malloc((p->n_modules + 1) * sizeof(*mm));
	size_t i;
	int err;

	if (!mm) {
		lsp_cgraph_drop(p);
		return -LS_ENOMEM;
	}
	for (i = 0; i < p->n_modules; i++)
		mm[i] = (uint32_t)i;
	err = lsp_cgraph_sort(p, mm);
	free(mm);
	return err;
}

int lsp_cgraph_sort(struct lsp_profile *p, const uint32_t *mm)
{
	uint32_t *fm;
	size_t i, n;
	int err;

	if (!p->has_cgraph)
		return 0;
	if (p->cg_program != LSP_NONE)
		p->cg_program = mm[p->cg_program];
	for (i = 0; i < p->n_cfuncs; i++)
		p->cfuncs[i].module = mm[p->cfuncs[i].module];
	for (i = 0; i < p->n_cblocks; i++)
		p->cblocks[i].module = mm[p->cblocks[i].module];
	for (i = 0; i < p->n_cedges; i++) {
		p->cedges[i].fmod = remod(mm, p->cedges[i].fmod);
		p->cedges[i].tmod = remod(mm, p->cedges[i].tmod);
	}
	if (!(fm = malloc((p->n_cfuncs + 1) * sizeof(*fm)))) {
		err = -LS_ENOMEM;
		goto drop;
	}
	err = sort_cfuncs(p, fm);
	for (i = 0; i < p->n_cblocks && !err; i++)
		p->cblocks[i].func = fm[p->cblocks[i].func];
	free(fm);
	if (err)
		goto drop;
	if (p->n_cblocks)
		qsort(p->cblocks, p->n_cblocks, sizeof(*p->cblocks), cblock_cmp);
	if (p->n_cedges)
		qsort(p->cedges, p->n_cedges, sizeof(*p->cedges), cedge_cmp);
	/* Rows of one key (merged runs) sum.  Blocks of one start must have
	 * one extent and function; blocks must not overlap: else the runs
	 * split or grouped the code differently and the graph is not the sum
	 * of theirs. */
	for (i = n = 0; i < p->n_cblocks; i++) {
		struct lsp_cblock *b = &p->cblocks[i], *o = n ? &p->cblocks[n - 1] : NULL;

		if (o && o->module == b->module && o->off == b->off) {
			if (o->end != b->end || o->last != b->last || o->ninsn != b->ninsn ||
			    o->func != b->func || strcmp(o->src, b->src)) {
				free(b->src);
				goto split;
			}
			o->count += b->count;
			o->callee += b->callee;
			free(b->src);
			continue;
		}
		p->cblocks[n++] = *b;
		if (o && o->module == b->module && o->end > b->off)
			goto split;
	}
	p->n_cblocks = n;
	for (i = n = 0; i < p->n_cedges; i++) {
		if (n && !cedge_cmp(&p->cedges[n - 1], &p->cedges[i]))
			p->cedges[n - 1].count += p->cedges[i].count;
		else
			p->cedges[n++] = p->cedges[i];
	}
	p->n_cedges = n;
	drop_taken_ways(p);
	return 0;
split:
	/* rows 0 .. n - 1 are kept, i + 1 .. on not yet looked at */
	for (i++; i < p->n_cblocks; i++)
		free(p->cblocks[i].src);
	p->n_cblocks = n;
	err = 1;
drop:
	lsp_cgraph_drop(p);
	return err;
}

/* The block (module, off) in p's sorted blocks, or NULL. */
static const struct lsp_cblock *find_block(const struct lsp_profile *p, uint32_t m,
					   uint64_t off)
{
	struct lsp_cblock key = { .module = m, .off = off };

	if (!p->n_cblocks)
		return NULL;
	return bsearch(&key, p->cblocks, p->n_cblocks, sizeof(key), cblock_cmp);
}

static int rd_cgraph(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	int err;

	if (p->has_cgraph)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cgraph repeated", NULL);
	if ((err = lsp_rd_idx(r, 1, "module", p->n_modules, 1, &p->cg_program)))
		return err;
	p->has_cgraph = 1;
	return 0;
}

static int rd_cfunc(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	const struct lsp_cfunc *o = p->n_cfuncs ? &p->cfuncs[p->n_cfuncs - 1] : NULL;
	uint32_t idx, m;
	uint64_t off;
	int err;

	if ((err = lsp_rd_u32(r, 1, "bad cfunc index", &idx)) ||
	    (err = lsp_rd_idx(r, 2, "module", p->n_modules, 0, &m)) ||
	    (err = lsp_rd_hex(r, 3, "bad offset", &off)) || (err = lsp_rd_str(r, 4, "name")))
		return err;
	if (idx != p->n_cfuncs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad cfunc index", r->f[1]);
	if (o && (o->module > m || (o->module == m && o->off >= off)))
		return lsp_rd_bad(r, -LS_ECORRUPT, "cfunc out of order or repeated", r->f[3]);
	err = lsp_add_cfunc(p, m, off, r->f[4]);
	return err < 0 ? err : 0;
}

static int rd_cblock(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cblock b;
	const struct lsp_cblock *o = p->n_cblocks ? &p->cblocks[p->n_cblocks - 1] : NULL;
	int err;

	memset(&b, 0, sizeof(b));
	if ((err = lsp_rd_idx(r, 1, "module", p->n_modules, 0, &b.module)) ||
	    (err = lsp_rd_hex(r, 2, "bad offset", &b.off)) ||
	    (err = lsp_rd_hex(r, 3, "bad end", &b.end)) ||
	    (err = lsp_rd_hex(r, 4, "bad last", &b.last)) ||
	    (err = lsp_rd_u32(r, 5, "bad instruction count", &b.ninsn)) ||
	    (err = lsp_rd_idx(r, 6, "cfunc", p->n_cfuncs, 0, &b.func)) ||
	    (err = lsp_rd_u64(r, 7, "bad count", &b.count)) ||
	    (err = lsp_rd_u64(r, 8, "bad count", &b.callee)) || (err = lsp_rd_str(r, 9, "source")))
		return err;
	b.src = r->f[9];
	if (b.end <= b.off)
		return lsp_rd_bad(r, -LS_ECORRUPT, "block end not after its start", r->f[3]);
	if (b.last < b.off || b.last >= b.end)
		return lsp_rd_bad(r, -LS_ECORRUPT, "last instruction outside its block", r->f[4]);
	if (!b.ninsn || b.ninsn > b.end - b.off)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad instruction count", r->f[5]);
	if (p->cfuncs[b.func].module != b.module)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cfunc of another module", r->f[6]);
	/* strictly by (module, off), and no two overlap */
	if (o && (cblock_cmp(o, &b) >= 0 || (o->module == b.module && o->end > b.off)))
		return lsp_rd_bad(r, -LS_ECORRUPT, "cblock out of order or overlapping", r->f[2]);
	return lsp_add_cblock(p, &b);
}

/* End i (fields i, i + 1): "-" and 0x0 for outside, else a block (any
 * offset of a module for the target of an unreached edge, unreached). */
static int rd_end(struct lsp_rd *r, int i, int unreached, uint32_t *m, uint64_t *off)
{
	int err;

	if ((err = lsp_rd_idx(r, i, "module", r->p->n_modules, !unreached, m)) ||
	    (err = lsp_rd_hex(r, i + 1, "bad offset", off)))
		return err;
	if (*m == LSP_NONE ? *off != 0 : !unreached && !find_block(r->p, *m, *off))
		return lsp_rd_bad(r, -LS_ECORRUPT, "edge end is no block", r->f[i + 1]);
	return 0;
}

static int rd_cedge(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cedge e;
	int err, k, w;

	memset(&e, 0, sizeof(e));
	if ((err = lsp_rd_u32(r, 7, "bad flags", &e.flags)) ||
	    (err = lsp_rd_u64(r, 8, "bad count", &e.count)))
		return err;
	if (e.flags > (LSP_CF_XFER | LSP_CF_UNREACHED))
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad flags", r->f[7]);
	if ((err = rd_end(r, 1, 0, &e.fmod, &e.foff)) ||
	    (err = rd_end(r, 3, e.flags == LSP_CF_UNREACHED, &e.tmod, &e.toff)))
		return err;
	if ((k = lsp_ckind_code(r->f[5])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown edge kind", r->f[5]);
	if ((w = lsp_cwhy_code(r->f[6])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown edge why", r->f[6]);
	e.kind = (uint32_t)k;
	e.why = (uint32_t)w;
	/* an unreached way is a conditional's, from a block, never taken */
	if (e.flags & LSP_CF_UNREACHED ? e.count || e.flags != LSP_CF_UNREACHED ||
	    e.fmod == LSP_NONE || w || (k != 1 && k != 2) : !e.count)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad count", r->f[8]);
	if (e.fmod == LSP_NONE && e.tmod == LSP_NONE)
		return lsp_rd_bad(r, -LS_ECORRUPT, "edge from outside to outside", r->f[1]);
	if (p->n_cedges && cedge_cmp(&p->cedges[p->n_cedges - 1], &e) >= 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cedge out of order or repeated", r->f[2]);
	return lsp_add_cedge(p, &e);
}

int lsp_rd_cgraph(struct lsp_rd *r, int t)
{
	if (t == LSP_R_CGRAPH)
		return rd_cgraph(r);
	if (!r->p->has_cgraph)
		return lsp_rd_bad(r, -LS_ECORRUPT, "graph record before cgraph", r->f[0]);
	return t == LSP_R_CFUNC ? rd_cfunc(r) : t == LSP_R_CBLOCK ? rd_cblock(r) : rd_cedge(r);
}

static void put_end(FILE *f, uint32_t m, uint64_t off)
{
	if (m == LSP_NONE)
		fputs("\t-\t0x0", f);
	else
		fprintf(f, "\t%" PRIu32 "\t0x%" PRIx64, m, off);
}

size_t lsp_put_cgraph(const struct lsp_profile *p, FILE *f)
{
	size_t i;

	if (!p->has_cgraph)
		return 0;
	fputs("cgraph\t", f);
	if (p->cg_program == LSP_NONE)
		fputs("-\n", f);
	else
		fprintf(f, "%" PRIu32 "\n", p->cg_program);
	for (i = 0; i < p->n_cfuncs; i++) {
		fprintf(f, "cfunc\t%zu\t%" PRIu32 "\t0x%" PRIx64 "\t", i, p->cfuncs[i].module,
			p->cfuncs[i].off);
		lsp_put_str(f, p->cfuncs[i].name);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_cblocks; i++) {
		const struct lsp_cblock *b = &p->cblocks[i];

		fprintf(f, "cblock\t%" PRIu32 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64
			"\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t", b->module, b->off,
			b->end, b->last, b->ninsn, b->func, b->count, b->callee);
		lsp_put_str(f, b->src);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_cedges; i++) {
		const struct lsp_cedge *e = &p->cedges[i];

		fputs("cedge", f);
		put_end(f, e->fmod, e->foff);
		put_end(f, e->tmod, e->toff);
		fprintf(f, "\t%s\t%s\t%" PRIu32 "\t%" PRIu64 "\n", lsp_ckind_name(e->kind),
			lsp_cwhy_name(e->why), e->flags, e->count);
	}
	return 1 + p->n_cfuncs + p->n_cblocks + p->n_cedges;
}
