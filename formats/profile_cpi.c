/* profile_cpi.c - the sampled-CPI records of a profile (version 6: cpi,
 * cpifunc, cpiloop, cpiinsn, cpisrc, cpiline; version 7: cpicall and the
 * cpi record's cmd): adding, dropping, renumbering modules, writing and
 * reading them (formats/profile.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define CPI_GROW(p, name) \
	LS_GROW((p)->name, (p)->n_##name + 1, (p)->cap_##name, 64)

static const char *const family_names[LSP_CPI_NFAM] = { "dynamic", "structural" };
static const char *const unit_names[LSP_CPI_NUNIT] = { "cycles", "ns" };

const char *lsp_cpi_family_name(unsigned f)
{
	return f < LSP_CPI_NFAM ? family_names[f] : "?";
}

int lsp_cpi_family_code(const char *name)
{
	unsigned i;

	for (i = 0; name && i < LSP_CPI_NFAM; i++)
		if (!strcmp(name, family_names[i]))
			return (int)i;
	return -LS_EINVAL;
}

const char *lsp_cpi_unit_name(unsigned u)
{
	return u < LSP_CPI_NUNIT ? unit_names[u] : "?";
}

int lsp_cpi_unit_code(const char *name)
{
	unsigned i;

	for (i = 0; name && i < LSP_CPI_NUNIT; i++)
		if (!strcmp(name, unit_names[i]))
			return (int)i;
	return -LS_EINVAL;
}

static char *dup0(const char *s)
{
	return strdup(s ? s : "");
}

int lsp_set_cpi(struct lsp_profile *p, const struct lsp_cpi *c)
{
	char *ev, *cmd;

	if (!p || !c || c->unit >= LSP_CPI_NUNIT || c->skid_fix > 1)
		return -LS_EINVAL;
	ev = dup0(c->event);
	cmd = dup0(c->cmd);
	if (!ev || !cmd) {
		free(ev), free(cmd);
		return -LS_ENOMEM;
	}
	free(p->cpi.event);
	free(p->cpi.cmd);
	p->cpi = *c;
	p->cpi.event = ev;
	p->cpi.cmd = cmd;
	p->has_cpi = 1;
	return 0;
}

int lsp_add_cpifunc(struct lsp_profile *p, const struct lsp_cpifunc *f)
{
	struct lsp_cpifunc *o;

	if (!p || !f || (f->module != LSP_NONE && f->module >= p->n_modules))
		return -LS_EINVAL;
	if (CPI_GROW(p, cpifuncs) < 0)
		return -LS_ENOMEM;
	o = &p->cpifuncs[p->n_cpifuncs];
	*o = *f;
	if (!(o->name = dup0(f->name)))
		return -LS_ENOMEM;
	p->n_cpifuncs++;
	return 0;
}

int lsp_add_cpiloop(struct lsp_profile *p, const struct lsp_cpiloop *l)
{
	struct lsp_cpiloop *o;

	if (!p || !l || l->family >= LSP_CPI_NFAM || l->func >= p->n_cpifuncs ||
	    (l->loop != LSP_NONE && l->loop >= p->n_loops))
		return -LS_EINVAL;
	if (CPI_GROW(p, cpiloops) < 0)
		return -LS_ENOMEM;
	o = &p->cpiloops[p->n_cpiloops];
	*o = *l;
	o->file = dup0(l->file);
	o->where = dup0(l->where);
	if (!o->file || !o->where) {
		free(o->file), free(o->where);
		return -LS_ENOMEM;
	}
	p->n_cpiloops++;
	return 0;
}

int lsp_add_cpiinsn(struct lsp_profile *p, const struct lsp_cpiinsn *in)
{
	struct lsp_cpiinsn *o;

	if (!p || !in || in->func >= p->n_cpifuncs)
		return -LS_EINVAL;
	if (CPI_GROW(p, cpiinsns) < 0)
		return -LS_ENOMEM;
	o = &p->cpiinsns[p->n_cpiinsns];
	*o = *in;
	o->file = dup0(in->file);
	o->dis = dup0(in->dis);
	if (!o->file || !o->dis) {
		free(o->file), free(o->dis);
		return -LS_ENOMEM;
	}
	p->n_cpiinsns++;
	return 0;
}

int lsp_add_cpisrc(struct lsp_profile *p, const char *path)
{
	char *s;

	if (!p || !path || p->n_cpisrcs >= UINT32_MAX - 1)
		return -LS_EINVAL;
	if (CPI_GROW(p, cpisrcs) < 0 || !(s = strdup(path)))
		return -LS_ENOMEM;
	p->cpisrcs[p->n_cpisrcs] = s;
	return (int)p->n_cpisrcs++;
}

int lsp_add_cpiline(struct lsp_profile *p, const struct lsp_cpiline *l)
{
	if (!p || !l || l->loop >= p->n_loops || l->src >= p->n_cpisrcs)
		return -LS_EINVAL;
	if (CPI_GROW(p, cpilines) < 0)
		return -LS_ENOMEM;
	p->cpilines[p->n_cpilines++] = *l;
	return 0;
}

int lsp_add_cpicall(struct lsp_profile *p, const struct lsp_cpicall *c)
{
	if (!p || !c || c->func >= p->n_cpifuncs || c->callee >= p->n_cpifuncs || !c->count)
		return -LS_EINVAL;
	if (CPI_GROW(p, cpicalls) < 0)
		return -LS_ENOMEM;
	p->cpicalls[p->n_cpicalls++] = *c;
	return 0;
}

struct blk_key {
	uint32_t func;
	uint64_t off;
	size_t row;
};

static int cmp_block(const void *a, const void *b)
{
	const struct blk_key *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

int lsp_cpi_blocks(const struct lsp_profile *p, size_t **rows, size_t *n)
{
	struct blk_key *k;
	size_t i, m = 0;

	*n = 0;
	*rows = malloc((p->n_cpiinsns + 1) * sizeof(**rows));
	k = malloc((p->n_cpiinsns + 1) * sizeof(*k));
	if (!*rows || !k) {
		free(*rows), free(k);
		*rows = NULL;
		return -LS_ENOMEM;
	}
	for (i = 0; i < p->n_cpiinsns; i++)
		if (p->cpiinsns[i].first)
			k[m++] = (struct blk_key){ p->cpiinsns[i].func, p->cpiinsns[i].off, i };
	/* written in this order already; a file read need not be */
	qsort(k, m, sizeof(*k), cmp_block);
	for (i = 0; i < m; i++)
		(*rows)[i] = k[i].row;
	free(k);
	*n = m;
	return 0;
}

size_t lsp_cpi_block_row(const struct lsp_profile *p, const size_t *rows, size_t n,
			 uint32_t func, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first row at or after (func, off) */
		size_t mid = lo + (hi - lo) / 2;
		const struct lsp_cpiinsn *m = &p->cpiinsns[rows[mid]];

		if (m->func < func || (m->func == func && m->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && p->cpiinsns[rows[lo]].func == func && p->cpiinsns[rows[lo]].off == off)
		return rows[lo];
	return SIZE_MAX;
}

void lsp_cpi_drop(struct lsp_profile *p)
{
	size_t i;

	for (i = 0; i < p->n_cpifuncs; i++)
		free(p->cpifuncs[i].name);
	for (i = 0; i < p->n_cpiloops; i++)
		free(p->cpiloops[i].file), free(p->cpiloops[i].where);
	for (i = 0; i < p->n_cpiinsns; i++)
		free(p->cpiinsns[i].file), free(p->cpiinsns[i].dis);
	for (i = 0; i < p->n_cpisrcs; i++)
		free(p->cpisrcs[i]);
	free(p->cpifuncs), free(p->cpiloops), free(p->cpiinsns);
	free(p->cpisrcs), free(p->cpilines), free(p->cpicalls);
	free(p->cpi.event);
	free(p->cpi.cmd);
	memset(&p->cpi, 0, sizeof(p->cpi));
	p->cpifuncs = NULL, p->cpiloops = NULL, p->cpiinsns = NULL;
	p->cpisrcs = NULL, p->cpilines = NULL, p->cpicalls = NULL;
	p->n_cpifuncs = p->n_cpiloops = p->n_cpiinsns = p->n_cpisrcs = p->n_cpilines = 0;
	p->n_cpicalls = 0;
	p->cap_cpifuncs = p->cap_cpiloops = p->cap_cpiinsns = 0;
	p->cap_cpisrcs = p->cap_cpilines = p->cap_cpicalls = 0;
	p->has_cpi = 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct lsp_cpiline *x = a, *y = b;

	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void lsp_cpi_remap(struct lsp_profile *p, const uint32_t *mm, const uint32_t *lm)
{
	size_t i;

	for (i = 0; i < p->n_cpifuncs; i++)
		if (p->cpifuncs[i].module != LSP_NONE)
			p->cpifuncs[i].module = mm[p->cpifuncs[i].module];
	for (i = 0; i < p->n_cpiloops; i++)
		if (p->cpiloops[i].loop != LSP_NONE)
			p->cpiloops[i].loop = lm[p->cpiloops[i].loop];
	for (i = 0; i < p->n_cpilines; i++)
		p->cpilines[i].loop = lm[p->cpilines[i].loop];
	/* rows by loop: the loops' new order (keys are unique) */
	if (p->n_cpilines > 1)
		qsort(p->cpilines, p->n_cpilines, sizeof(*p->cpilines), cmp_line);
}

/* Writing.  Reals as %.17g, which reads back to the same double. */

static void put_agg(FILE *f, const struct lsp_cpiagg *a)
{
	fprintf(f, "\t%.17g\t%" PRIu64 "\t%" PRIu64, a->samples, a->cost, a->insns);
}

size_t lsp_put_cpi(const struct lsp_profile *p, FILE *f)
{
	const struct lsp_cpi *c = &p->cpi;
	size_t i;
	int k;

	if (!p->has_cpi)
		return 0;
	fprintf(f, "cpi\t%s\t", lsp_cpi_unit_name(c->unit));
	lsp_put_str(f, c->event);
	fprintf(f, "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
		PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, c->skid_fix,
		c->samples, c->attributed, c->unmapped, c->no_module, c->not_executed,
		c->no_pred, c->cost, c->cost_attributed, c->insns);
	for (k = 0; k < LSP_CPI_NFAM; k++)
		put_agg(f, &c->outside[k]);
	fputc('\t', f);
	lsp_put_str(f, c->cmd);
	fputc('\n', f);
	for (i = 0; i < p->n_cpifuncs; i++) {
		const struct lsp_cpifunc *fn = &p->cpifuncs[i];

		fprintf(f, "cpifunc\t%zu\t", i);
		if (fn->module == LSP_NONE)
			fputc('-', f);
		else
			fprintf(f, "%" PRIu32, fn->module);
		fputc('\t', f);
		lsp_put_str(f, fn->name);
		put_agg(f, &fn->self);
		put_agg(f, &fn->total);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_cpiloops; i++) {
		const struct lsp_cpiloop *l = &p->cpiloops[i];

		fprintf(f, "cpiloop\t%zu\t%s\t%" PRIu32 "\t", i, lsp_cpi_family_name(l->family),
			l->func);
		if (l->parent == LSP_NONE)
			fputc('-', f);
		else
			fprintf(f, "%" PRIu32, l->parent);
		fprintf(f, "\t0x%" PRIx64 "\t", l->vaddr);
		lsp_put_str(f, l->file);
		fprintf(f, "\t%" PRIu32 "\t", l->line);
		lsp_put_str(f, l->where);
		fprintf(f, "\t%" PRIu64, l->iterations);
		put_agg(f, &l->self);
		put_agg(f, &l->total);
		fprintf(f, "\t%.17g\t%" PRIu64 "\t", l->top_samples, l->top_cost);
		if (l->loop == LSP_NONE)
			fputc('-', f);
		else
			fprintf(f, "%" PRIu32, l->loop);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_cpiinsns; i++) {
		const struct lsp_cpiinsn *in = &p->cpiinsns[i];

		fprintf(f, "cpiinsn\t%" PRIu32 "\t%" PRIu32 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t",
			in->func, in->first, in->off, in->vaddr);
		lsp_put_str(f, in->file);
		fprintf(f, "\t%" PRIu32 "\t", in->line);
		lsp_put_str(f, in->dis);
		fprintf(f, "\t%" PRIu64 "\t%.17g\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			in->execs, in->samples, in->raw_samples, in->cost, in->raw_cost);
	}
	for (i = 0; i < p->n_cpisrcs; i++) {
		fprintf(f, "cpisrc\t%zu\t", i);
		lsp_put_str(f, p->cpisrcs[i]);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_cpilines; i++) {
		const struct lsp_cpiline *l = &p->cpilines[i];

		fprintf(f, "cpiline\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%"
			PRIu64 "\t%" PRIu64 "\n", l->loop, l->src, l->line, l->execs, l->insns,
			l->cost);
	}
	for (i = 0; i < p->n_cpicalls; i++) {
		const struct lsp_cpicall *cc = &p->cpicalls[i];

		fprintf(f, "cpicall\t%" PRIu32 "\t0x%" PRIx64 "\t%" PRIu32 "\t0x%" PRIx64 "\t%"
			PRIu64 "\t%" PRIu64 "\n", cc->func, cc->block, cc->callee, cc->entry,
			cc->count, cc->insns);
	}
	return 1 + p->n_cpifuncs + p->n_cpiloops + p->n_cpiinsns + p->n_cpisrcs +
	       p->n_cpilines + p->n_cpicalls;
}

/* Reading. */

/* Fields i, i+1, i+2 as an aggregate. */
static int rd_agg(struct lsp_rd *r, int i, struct lsp_cpiagg *a)
{
	int err;

	if ((err = lsp_rd_real(r, i, "bad samples", &a->samples)) ||
	    (err = lsp_rd_u64(r, i + 1, "bad cost", &a->cost)) ||
	    (err = lsp_rd_u64(r, i + 2, "bad instruction count", &a->insns)))
		return err;
	return 0;
}

/* self within total (samples: to a rounding of the sums), total within
 * what was attributed and executed. */
static int rd_self_total(struct lsp_rd *r, int i, const struct lsp_cpiagg *self,
			 const struct lsp_cpiagg *total)
{
	const struct lsp_cpi *c = &r->p->cpi;

	if (self->cost > total->cost || self->insns > total->insns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "self above total", r->f[i]);
	if (total->cost > c->cost_attributed || total->insns > c->insns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "total above the attributed cost or "
				  "the instructions of 'cpi'", r->f[i + 3]);
	return 0;
}

static int rd_cpi_rec(struct lsp_rd *r)
{
	struct lsp_cpi c;
	uint64_t sum;
	int err, u, k;

	if (r->p->has_cpi)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "cpi");
	memset(&c, 0, sizeof(c));
	if ((u = lsp_cpi_unit_code(r->f[1])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown unit", r->f[1]);
	c.unit = (uint32_t)u;
	if ((err = lsp_rd_str(r, 2, "event")) ||
	    (err = lsp_rd_u32(r, 3, "bad skid_fix", &c.skid_fix)) ||
	    (err = lsp_rd_u64(r, 4, "bad count", &c.samples)) ||
	    (err = lsp_rd_u64(r, 5, "bad count", &c.attributed)) ||
	    (err = lsp_rd_u64(r, 6, "bad count", &c.unmapped)) ||
	    (err = lsp_rd_u64(r, 7, "bad count", &c.no_module)) ||
	    (err = lsp_rd_u64(r, 8, "bad count", &c.not_executed)) ||
	    (err = lsp_rd_u64(r, 9, "bad count", &c.no_pred)) ||
	    (err = lsp_rd_u64(r, 10, "bad cost", &c.cost)) ||
	    (err = lsp_rd_u64(r, 11, "bad cost", &c.cost_attributed)) ||
	    (err = lsp_rd_u64(r, 12, "bad instruction count", &c.insns)))
		return err;
	for (k = 0; k < LSP_CPI_NFAM; k++)
		if ((err = rd_agg(r, 13 + 3 * k, &c.outside[k])))
			return err;
	if (c.skid_fix > 1)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad skid_fix", r->f[3]);
	/* every sample is counted in exactly one of the four */
	sum = c.attributed + c.unmapped + c.no_module + c.not_executed;
	if (sum < c.attributed || sum != c.samples)
		return lsp_rd_bad(r, -LS_ECORRUPT, "the samples are not attributed, "
				  "unmapped, no module and not executed, summed:", r->f[4]);
	if (c.no_pred > c.attributed)
		return lsp_rd_bad(r, -LS_ECORRUPT, "no_pred above attributed", r->f[9]);
	if (c.cost_attributed > c.cost)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cost_attributed above cost", r->f[11]);
	for (k = 0; k < LSP_CPI_NFAM; k++)
		if (c.outside[k].cost > c.cost_attributed || c.outside[k].insns > c.insns)
			return lsp_rd_bad(r, -LS_ECORRUPT, "outside above the attributed "
					  "cost or the instructions", r->f[14 + 3 * k]);
	/* version 7: the command line, and the cpicall rows follow */
	if (r->version >= 7 && (err = lsp_rd_str(r, 19, "cmd")))
		return err;
	c.event = r->f[2];
	c.cmd = r->version >= 7 ? r->f[19] : "";
	c.calls = r->version >= 7;
	return lsp_set_cpi(r->p, &c);
}

static int rd_cpifunc(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cpifunc f;
	uint64_t idx;
	int err;

	if ((err = lsp_rd_u64(r, 1, "bad index", &idx)))
		return err;
	if (idx != p->n_cpifuncs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	if ((err = lsp_rd_idx(r, 2, "module", p->n_modules, 1, &f.module)) ||
	    (err = lsp_rd_str(r, 3, "name")) || (err = rd_agg(r, 4, &f.self)) ||
	    (err = rd_agg(r, 7, &f.total)) ||
	    (err = rd_self_total(r, 4, &f.self, &f.total)))
		return err;
	f.name = r->f[3];
	return lsp_add_cpifunc(p, &f);
}

static int rd_cpiloop(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cpiloop l;
	uint64_t idx, parent;
	int err, fam;

	memset(&l, 0, sizeof(l));
	if ((err = lsp_rd_u64(r, 1, "bad index", &idx)))
		return err;
	if (idx != p->n_cpiloops)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	if (!idx)
		r->cpiloop_line = r->line;
	if ((fam = lsp_cpi_family_code(r->f[2])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown family", r->f[2]);
	l.family = (uint32_t)fam;
	/* the parent may come after its loop: checked after the end record */
	if (!strcmp(r->f[4], "-"))
		l.parent = LSP_NONE;
	else if ((err = lsp_rd_u64(r, 4, "bad cpiloop index", &parent)))
		return err;
	else if (parent >= UINT32_MAX || parent == idx)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad cpiloop index", r->f[4]);
	else
		l.parent = (uint32_t)parent;
	if ((err = lsp_rd_idx(r, 3, "cpifunc", p->n_cpifuncs, 0, &l.func)) ||
	    (err = lsp_rd_hex(r, 5, "bad address", &l.vaddr)) ||
	    (err = lsp_rd_str(r, 6, "file")) ||
	    (err = lsp_rd_u32(r, 7, "bad line", &l.line)) ||
	    (err = lsp_rd_str(r, 8, "where")) ||
	    (err = lsp_rd_u64(r, 9, "bad count", &l.iterations)) ||
	    (err = rd_agg(r, 10, &l.self)) || (err = rd_agg(r, 13, &l.total)) ||
	    (err = rd_self_total(r, 10, &l.self, &l.total)) ||
	    (err = lsp_rd_real(r, 16, "bad samples", &l.top_samples)) ||
	    (err = lsp_rd_u64(r, 17, "bad cost", &l.top_cost)) ||
	    (err = lsp_rd_idx(r, 18, "loop", p->n_loops, 1, &l.loop)))
		return err;
	/* a dynamic loop is a detected loop's, once; a structural one none */
	if ((l.family == LSP_CPI_DYNAMIC) != (l.loop != LSP_NONE))
		return lsp_rd_bad(r, -LS_ECORRUPT, "family and loop disagree", r->f[18]);
	if (l.loop != LSP_NONE &&
	    (err = lsp_rd_key(&r->keys, LSP_R_CPILOOP, l.loop, 0, 0)) <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "a second cpiloop of loop",
					      r->f[18]);
	l.file = r->f[6];
	l.where = r->f[8];
	return lsp_add_cpiloop(p, &l);
}

static int rd_cpiinsn(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	const struct lsp_cpiinsn *prev = p->n_cpiinsns ? &p->cpiinsns[p->n_cpiinsns - 1] : NULL;
	struct lsp_cpiinsn in;
	int err;

	if ((err = lsp_rd_idx(r, 1, "cpifunc", p->n_cpifuncs, 0, &in.func)) ||
	    (err = lsp_rd_u32(r, 2, "bad first", &in.first)) ||
	    (err = lsp_rd_hex(r, 3, "bad offset", &in.off)) ||
	    (err = lsp_rd_hex(r, 4, "bad address", &in.vaddr)) ||
	    (err = lsp_rd_str(r, 5, "file")) ||
	    (err = lsp_rd_u32(r, 6, "bad line", &in.line)) ||
	    (err = lsp_rd_str(r, 7, "disassembly")) ||
	    (err = lsp_rd_u64(r, 8, "bad count", &in.execs)) ||
	    (err = lsp_rd_real(r, 9, "bad samples", &in.samples)) ||
	    (err = lsp_rd_u64(r, 10, "bad count", &in.raw_samples)) ||
	    (err = lsp_rd_u64(r, 11, "bad cost", &in.cost)) ||
	    (err = lsp_rd_u64(r, 12, "bad cost", &in.raw_cost)))
		return err;
	if (in.first > 1)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad first", r->f[2]);
	/* rows by function; a function's first row starts a block, and the
	 * instructions of a block ran as often as each other */
	if (prev && prev->func > in.func)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cpiinsn out of order", r->f[1]);
	if (!in.first && (!prev || prev->func != in.func))
		return lsp_rd_bad(r, -LS_ECORRUPT, "a function's first instruction "
				  "starts no block", r->f[2]);
	if (!in.first && prev->execs != in.execs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "executions differ within a block",
				  r->f[8]);
	if (!in.execs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "an instruction never executed", r->f[8]);
	if (in.raw_samples > p->cpi.attributed || in.cost > p->cpi.cost_attributed ||
	    in.raw_cost > p->cpi.cost_attributed)
		return lsp_rd_bad(r, -LS_ECORRUPT, "above the attributed samples or cost",
				  r->f[10]);
	in.file = r->f[5];
	in.dis = r->f[7];
	return lsp_add_cpiinsn(p, &in);
}

static int rd_cpisrc(struct lsp_rd *r)
{
	uint64_t idx;
	int err;

	if ((err = lsp_rd_u64(r, 1, "bad index", &idx)))
		return err;
	if (idx != r->p->n_cpisrcs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	if ((err = lsp_rd_str(r, 2, "path")))
		return err;
	if (!r->f[2][0])
		return lsp_rd_bad(r, -LS_ECORRUPT, "empty source path", NULL);
	err = lsp_add_cpisrc(r->p, r->f[2]);
	return err < 0 ? err : 0;
}

static int rd_cpiline(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cpiline l;
	int err;

	if ((err = lsp_rd_idx(r, 1, "loop", p->n_loops, 0, &l.loop)) ||
	    (err = lsp_rd_idx(r, 2, "cpisrc", p->n_cpisrcs, 0, &l.src)) ||
	    (err = lsp_rd_u32(r, 3, "bad line", &l.line)) ||
	    (err = lsp_rd_u64(r, 4, "bad count", &l.execs)) ||
	    (err = lsp_rd_u64(r, 5, "bad count", &l.insns)) ||
	    (err = lsp_rd_u64(r, 6, "bad cost", &l.cost)))
		return err;
	if (!l.line)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad line", r->f[3]);
	if (l.execs > l.insns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "executions above the instructions",
				  r->f[4]);
	if (l.cost > p->cpi.cost_attributed)
		return lsp_rd_bad(r, -LS_ECORRUPT, "above the attributed cost", r->f[6]);
	/* rows by loop, source and line, each once */
	if (p->n_cpilines && cmp_line(&p->cpilines[p->n_cpilines - 1], &l) >= 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "cpiline out of order or repeated",
				  r->f[3]);
	return lsp_add_cpiline(p, &l);
}

/* A cpicall row: its call block is a block of its function at or after
 * the previous row's (r->cpicall_at, the cpiinsn row found), each
 * (block, callee, entry) once; the instructions of a block's calls
 * within the run's.  The entry is checked after the end record. */
static int rd_cpicall(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_cpicall c;
	size_t at = r->cpicall_at;
	uint64_t sum;
	int err;

	if ((err = lsp_rd_idx(r, 1, "cpifunc", p->n_cpifuncs, 0, &c.func)) ||
	    (err = lsp_rd_hex(r, 2, "bad offset", &c.block)) ||
	    (err = lsp_rd_idx(r, 3, "cpifunc", p->n_cpifuncs, 0, &c.callee)) ||
	    (err = lsp_rd_hex(r, 4, "bad offset", &c.entry)) ||
	    (err = lsp_rd_u64(r, 5, "bad count", &c.count)) ||
	    (err = lsp_rd_u64(r, 6, "bad instruction count", &c.insns)))
		return err;
	if (!p->n_cpicalls)
		r->cpicall_line = r->line;
	if (!c.count)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad count", r->f[5]);
	while (at < p->n_cpiinsns && !(p->cpiinsns[at].first && p->cpiinsns[at].func == c.func &&
				       p->cpiinsns[at].off == c.block))
		at++;
	if (at == p->n_cpiinsns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "no block of the cpifunc there, or "
				  "cpicall out of order:", r->f[2]);
	if ((err = lsp_rd_key(&r->keys, LSP_R_CPICALL, at, c.callee, c.entry)) <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "a second cpicall of the "
					      "block to", r->f[4]);
	sum = (at == r->cpicall_at && p->n_cpicalls ? r->cpicall_sum : 0) + c.insns;
	if (sum < c.insns || sum > p->cpi.insns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "the block's calls above the instructions "
				  "of 'cpi'", r->f[6]);
	r->cpicall_at = at;
	r->cpicall_sum = sum;
	return lsp_add_cpicall(p, &c);
}

int lsp_rd_cpi(struct lsp_rd *r, int t)
{
	if (t == LSP_R_CPI)
		return rd_cpi_rec(r);
	if (!r->p->has_cpi)
		return lsp_rd_bad(r, -LS_ECORRUPT, "record before 'cpi':", r->f[0]);
	switch (t) {
	case LSP_R_CPIFUNC: return rd_cpifunc(r);
	case LSP_R_CPILOOP: return rd_cpiloop(r);
	case LSP_R_CPIINSN: return rd_cpiinsn(r);
	case LSP_R_CPISRC: return rd_cpisrc(r);
	case LSP_R_CPILINE: return rd_cpiline(r);
	case LSP_R_CPICALL: return rd_cpicall(r);
	default: return lsp_rd_bad(r, -LS_ECORRUPT, "unknown record", r->f[0]);
	}
}

int lsp_rd_check_cpi(struct lsp_rd *r)
{
	const struct lsp_profile *p = r->p;
	size_t i, *rows, n;

	for (i = 0; i < p->n_cpiloops; i++) {
		uint32_t q = p->cpiloops[i].parent;

		if (q != LSP_NONE && (q >= p->n_cpiloops || q == i ||
				      p->cpiloops[q].family != p->cpiloops[i].family)) {
			char v[24];

			snprintf(v, sizeof(v), "%" PRIu32, q);
			r->line = r->cpiloop_line + i;
			return lsp_rd_bad(r, -LS_ECORRUPT, "bad parent (no cpiloop of the "
					  "family, or itself)", v);
		}
	}
	if (!p->n_cpicalls)
		return 0;
	/* the entry of a call is a block of the callee */
	if (lsp_cpi_blocks(p, &rows, &n) < 0)
		return -LS_ENOMEM;
	for (i = 0; i < p->n_cpicalls; i++) {
		const struct lsp_cpicall *c = &p->cpicalls[i];

		if (lsp_cpi_block_row(p, rows, n, c->callee, c->entry) == SIZE_MAX) {
			char v[24];

			free(rows);
			snprintf(v, sizeof(v), "0x%" PRIx64, c->entry);
			r->line = r->cpicall_line + i;
			return lsp_rd_bad(r, -LS_ECORRUPT, "no block of the callee at", v);
		}
	}
	free(rows);
	return 0;
}
