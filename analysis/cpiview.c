/* cpiview.c - the sampled CPI as a consumer of the one decode, and its
 * results into the profile's version 6 records (cpiview.h). */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/cpi.h"
#include "analysis/cpiview.h"
#include "analysis/sloops.h"
#include "decoder/iclass.h"
#include "formats/profile.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_cpiview {
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	struct lsa_cpiview_opts o;
	struct lsa_cfg *cfg;
	struct lsa_cpi_stacks *stacks;
	struct lsa_cpi *cpi;
	struct lsa_sloops *sl;
	uint32_t *dyn_loop;	/* cpi loop -> profile loop (the first ndyn) */
	size_t ndyn;
	int32_t *pmod;		/* bundle module -> profile module, -1 unknown */
	csh cs[LSD_MODE_MAX];
	int have_cs;
	int own_cfg;		/* v->cfg is the consumer's own graph */
	/* per cpi instruction, its source line as put_insns() looked it up
	 * (file NULL: none), for put_lines() */
	const char **ifile;
	uint32_t *iline;
};

int lsa_cpiview_new(struct lsa_cpiview **pv, struct lsb_reader *r,
		    struct lsd_symbols *sym, const struct lsa_cpiview_opts *o)
{
	struct lsa_cfg_opts co = { .size = sizeof(co) };
	struct lsa_cfg_observer obs;
	struct lsa_cpiview *v;
	int err;

	if (!pv || !r || !o || o->size < sizeof(*o) || !o->img)
		return -LS_EINVAL;
	*pv = NULL;
	if (!(v = calloc(1, sizeof(*v))))
		return -LS_ENOMEM;
	v->r = r;
	v->sym = sym;
	v->o = *o;
	co.img = o->img;
	co.obs = &obs;
	if ((err = lsa_cpi_stacks_new(&v->stacks)) < 0) {
		lsa_cpiview_free(v);
		return err;
	}
	lsa_cpi_stacks_observer(v->stacks, &obs);
	if ((err = lsa_cfg_new(&v->cfg, sym, &co)) < 0) {
		lsa_cpiview_free(v);
		return err;
	}
	v->own_cfg = 1;
	*pv = v;
	return 0;
}

void lsa_cpiview_free(struct lsa_cpiview *v)
{
	size_t i;

	if (!v)
		return;
	if (v->have_cs)
		for (i = 0; i < LSD_MODE_MAX; i++)
			lsd_cs.close(&v->cs[i]);
	lsa_sloops_free(v->sl);
	lsa_cpi_free(v->cpi);
	if (v->own_cfg)
		lsa_cfg_free(v->cfg);
	lsa_cpi_stacks_free(v->stacks);
	free(v->dyn_loop);
	free(v->pmod);
	free(v->ifile);
	free(v->iline);
	free(v);
}

struct lsa_cfg *lsa_cpiview_graph(struct lsa_cpiview *v)
{
	return v ? v->cfg : NULL;
}

static const char *base_of(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

/* The profile module of bundle module m (interned as the loop detector
 * interns it), LSP_NONE for none; -LS_ENOMEM. */
static int64_t module_of(struct lsa_cpiview *v, struct lsp_profile *p, int32_t m)
{
	const struct lsb_module *bm;
	int r;

	if (m < 0 || (size_t)m >= lsb_reader_nmodules(v->r))
		return LSP_NONE;
	if (v->pmod[m] >= 0)
		return v->pmod[m];
	bm = lsb_reader_module(v->r, (size_t)m);
	r = lsp_module_intern(p, bm->build_id, bm->build_id_len, bm->path ? bm->path : "");
	if (r < 0)
		return r;
	v->pmod[m] = r;
	return r;
}

/* Function f's name as the views print it: its symbol's, else
 * "module+0xoff". */
static const char *func_name(const struct lsa_cpiview *v, uint32_t f, char *buf,
			     size_t len)
{
	const struct lsa_cfg_func *fn = lsa_cfg_func(v->cfg, f);
	const struct lsb_module *m;

	if (!fn)
		return "?";
	if (fn->name)
		return fn->name;
	m = fn->module >= 0 ? lsb_reader_module(v->r, (size_t)fn->module) : NULL;
	snprintf(buf, len, "%s+0x%" PRIx64, m && m->path ? base_of(m->path) : "?",
		 fn->start);
	return buf;
}

/* The symbol information of an instruction, vaddr its offset when none. */
static void where(const struct lsa_cpiview *v, const struct lsa_cpi_insn *in,
		  struct lsd_symbol_info *si)
{
	memset(si, 0, sizeof(*si));
	si->vaddr = in->off;
	if (!v->sym || lsd_symbols_lookup(v->sym, in->module, in->off, 1, si) < 0) {
		memset(si, 0, sizeof(*si));
		si->vaddr = in->off;
	}
}

/* Loop i's head (ELF virtual address) and source place: the label of the
 * detected loop with that head (its back branch's line, as every report
 * prints it), else its head's file and line; file NULL and line 0 when
 * unknown.  Its place for the text table: "file:line", else the head as
 * "module+0xoff". */
static void head_of(const struct lsa_cpiview *v, const struct lsp_profile *p, uint32_t i,
		    uint64_t *vaddr, const char **file, uint32_t *line, char *wbuf,
		    size_t wlen)
{
	const struct lsa_cpi_loop *l = lsa_cpi_loop(v->cpi, i);
	const struct lsa_cpi_insn *in;
	const struct lsb_module *m;
	struct lsd_symbol_info si;
	size_t first, k;

	*vaddr = 0;
	*file = NULL;
	*line = 0;
	wbuf[0] = '\0';
	if (!lsa_cpi_block_insns(v->cpi, l->header, &first))
		return;
	in = lsa_cpi_insn(v->cpi, first);
	where(v, in, &si);
	*vaddr = si.vaddr;
	if (si.file && si.file[0] && si.line > 0) {
		*file = si.file;
		*line = (uint32_t)si.line;
	}
	/* A structural loop takes the label of the dynamic loop with its
	 * head (the dynamic loops are the first ndyn). */
	for (k = 0; k < v->ndyn; k++) {
		const struct lsp_loop *pl = &p->loops[v->dyn_loop[k]];

		if (lsa_cpi_loop(v->cpi, k)->header != l->header)
			continue;
		if (pl->file[0] && pl->line) {
			*file = pl->file;
			*line = pl->line;
		}
		break;
	}
	if (*file) {
		snprintf(wbuf, wlen, "%s:%d", base_of(*file), (int)*line);
		return;
	}
	m = in->module >= 0 ? lsb_reader_module(v->r, (size_t)in->module) : NULL;
	snprintf(wbuf, wlen, "%s+0x%" PRIx64, m && m->path ? base_of(m->path) : "",
		 in->off);
}

/* Disassembled at its ELF virtual address (AT&T, as objdump prints it),
 * so branch targets read as the address column does. */
static void disasm(struct lsa_cpiview *v, const struct lsa_cpi_insn *in, uint64_t vaddr,
		   char *buf, size_t len)
{
	uint8_t code[16];
	cs_insn *ci;
	int got = in->len <= sizeof(code) ?
		  lsd_image_read(v->o.img, code, in->len, in->addr) : -1;

	snprintf(buf, len, "(bad)");
	if (!v->have_cs || got <= 0 || in->mode >= LSD_MODE_MAX ||
	    lsd_cs.disasm(v->cs[in->mode], code, (size_t)got, vaddr, 1, &ci) != 1)
		return;
	snprintf(buf, len, "%.31s%s%.159s", ci->mnemonic, ci->op_str[0] ? " " : "",
		 ci->op_str);
	lsd_cs.free(ci, 1);
}

static void agg(struct lsp_cpiagg *to, const struct lsa_cpi_agg *a)
{
	to->samples = a->samples;
	to->cost = a->cost;
	to->insns = a->insns;
}

static int put_funcs(struct lsa_cpiview *v, struct lsp_profile *p)
{
	size_t nf = lsa_cfg_nfuncs(v->cfg), f;
	char nb[256];
	int err;

	for (f = 0; f < nf; f++) {
		const struct lsa_cfg_func *fn = lsa_cfg_func(v->cfg, (uint32_t)f);
		const struct lsa_cpi_func *cf = lsa_cpi_func(v->cpi, (uint32_t)f);
		struct lsp_cpifunc pf;
		int64_t m = module_of(v, p, fn->module);

		if (m < 0)
			return (int)m;
		memset(&pf, 0, sizeof(pf));
		pf.module = (uint32_t)m;
		pf.name = (char *)func_name(v, (uint32_t)f, nb, sizeof(nb));
		agg(&pf.self, &cf->self);
		agg(&pf.total, &cf->total);
		if ((err = lsp_add_cpifunc(p, &pf)) < 0)
			return err;
	}
	return 0;
}

static int put_loops(struct lsa_cpiview *v, struct lsp_profile *p)
{
	size_t n = lsa_cpi_nloops(v->cpi), i;
	char wbuf[300];
	int err;

	for (i = 0; i < n; i++) {
		const struct lsa_cpi_loop *l = lsa_cpi_loop(v->cpi, i);
		struct lsp_cpiloop pl;
		const char *file;

		memset(&pl, 0, sizeof(pl));
		if (l->func >= p->n_cpifuncs)
			return -LS_ECORRUPT;	/* a header the graph has no function of */
		pl.family = (uint32_t)l->family;
		pl.func = l->func;
		pl.parent = l->parent == LSA_CPI_NONE ? LSP_NONE : l->parent;
		head_of(v, p, (uint32_t)i, &pl.vaddr, &file, &pl.line, wbuf, sizeof(wbuf));
		pl.file = (char *)file;
		pl.where = wbuf;
		pl.iterations = l->iterations;
		agg(&pl.self, &l->self);
		agg(&pl.total, &l->total);
		pl.top_samples = l->top_samples;
		pl.top_cost = l->top_cost;
		pl.loop = i < v->ndyn ? v->dyn_loop[i] : LSP_NONE;
		if ((err = lsp_add_cpiloop(p, &pl)) < 0)
			return err;
	}
	return 0;
}

static int put_insns(struct lsa_cpiview *v, struct lsp_profile *p)
{
	size_t nf = lsa_cfg_nfuncs(v->cfg), f, k, i, first, n, ni = lsa_cpi_ninsns(v->cpi);
	char dis[200];
	int err;

	v->ifile = calloc(ni + 1, sizeof(*v->ifile));
	v->iline = calloc(ni + 1, sizeof(*v->iline));
	if (!v->ifile || !v->iline)
		return -LS_ENOMEM;
	for (f = 0; f < nf; f++) {
		const struct lsa_cfg_func *fn = lsa_cfg_func(v->cfg, (uint32_t)f);

		for (k = 0; k < fn->nblocks; k++) {
			n = lsa_cpi_block_insns(v->cpi, fn->blocks[k], &first);
			for (i = 0; i < n; i++) {
				const struct lsa_cpi_insn *in = lsa_cpi_insn(v->cpi, first + i);
				struct lsd_symbol_info si;
				struct lsp_cpiinsn pi;

				where(v, in, &si);
				if (si.file && si.line > 0) {
					v->ifile[first + i] = si.file;
					v->iline[first + i] = (uint32_t)si.line;
				}
				disasm(v, in, si.vaddr, dis, sizeof(dis));
				memset(&pi, 0, sizeof(pi));
				pi.func = (uint32_t)f;
				pi.first = !i;
				pi.off = in->off;
				pi.vaddr = si.vaddr;
				pi.file = (char *)si.file;
				pi.line = si.line > 0 ? (uint32_t)si.line : 0;
				pi.dis = dis;
				pi.execs = in->execs;
				pi.samples = in->samples;
				pi.raw_samples = in->raw_samples;
				pi.cost = in->cost;
				pi.raw_cost = in->raw_cost;
				if ((err = lsp_add_cpiinsn(p, &pi)) < 0)
					return err;
			}
		}
	}
	return 0;
}

/* The calls of call block b (its cpi instructions from first) to each
 * callee block, for `export --callgrind`'s calls= lines: the callee
 * instructions the graph keeps per call block split over its callees by
 * their calls (all of them for one callee; the last gets the rest). */
static int put_block_calls(struct lsa_cpiview *v, struct lsp_profile *p, uint32_t f,
			   uint32_t b, size_t first)
{
	const struct lsa_cfg_block *cb = lsa_cfg_block(v->cfg, b);
	const uint32_t *list;
	size_t i, n = lsa_cfg_edges_of(v->cfg, b, 1, &list), efirst;
	uint64_t calls = 0, given = 0, share;
	int err;

	for (i = 0; i < n; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(v->cfg, list[i]);

		if (e->kind == LSA_CFG_CALL && e->to != LSA_CFG_NONE)
			calls += e->count;
	}
	for (i = 0; i < n && calls; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(v->cfg, list[i]);
		struct lsp_cpicall pc;

		if (e->kind != LSA_CFG_CALL || e->to == LSA_CFG_NONE)
			continue;
		if (!lsa_cfg_func(v->cfg, lsa_cfg_block(v->cfg, e->to)->func) ||
		    !lsa_cpi_block_insns(v->cpi, e->to, &efirst))
			continue;
		given += share = calls == e->count ? cb->callee_insns :
			 (uint64_t)((double)cb->callee_insns * e->count / calls);
		if (given > cb->callee_insns)
			share -= given - cb->callee_insns;
		pc.func = f;
		pc.block = lsa_cpi_insn(v->cpi, first)->off;
		pc.callee = lsa_cfg_block(v->cfg, e->to)->func;
		pc.entry = lsa_cpi_insn(v->cpi, efirst)->off;
		pc.count = e->count;
		pc.insns = share;
		if ((err = lsp_add_cpicall(p, &pc)) < 0)
			return err;
	}
	return 0;
}

/* The calls of every call block, in the order of the cpiinsn rows. */
static int put_calls(struct lsa_cpiview *v, struct lsp_profile *p)
{
	size_t nf = lsa_cfg_nfuncs(v->cfg), f, k, first;
	int err;

	for (f = 0; f < nf; f++) {
		const struct lsa_cfg_func *fn = lsa_cfg_func(v->cfg, (uint32_t)f);

		for (k = 0; k < fn->nblocks; k++)
			if (lsa_cpi_block_insns(v->cpi, fn->blocks[k], &first) &&
			    (err = put_block_calls(v, p, (uint32_t)f, fn->blocks[k], first)) < 0)
				return err;
	}
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct lsp_cpiline *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The source lines of each detected loop's body (nested loops included,
 * callees not), summed per line, for the HTML report: the files in the
 * order the executed instructions first name them. */
static int put_lines(struct lsa_cpiview *v, struct lsp_profile *p)
{
	size_t n = lsa_cpi_ninsns(v->cpi), i, k, b, j, first, m, nrows, w;
	uint32_t *src = malloc((n + 1) * sizeof(*src)), *line = malloc((n + 1) * sizeof(*line));
	struct lsp_cpiline *rows = NULL;
	size_t caprows = 0;
	int err = 0;

	if (!src || !line) {
		err = -LS_ENOMEM;
		goto out;
	}
	/* put_insns() looked every instruction up (those of a function) */
	for (i = 0; i < n && err >= 0; i++) {
		src[i] = LSP_NONE;
		if (!v->ifile[i])
			continue;
		for (k = 0; k < p->n_cpisrcs; k++)	/* a handful of files */
			if (!strcmp(p->cpisrcs[k], v->ifile[i]))
				break;
		if (k == p->n_cpisrcs && (err = lsp_add_cpisrc(p, v->ifile[i])) < 0)
			break;
		src[i] = (uint32_t)k;
		line[i] = v->iline[i];
	}
	for (k = 0; k < v->ndyn && err >= 0; k++) {
		const struct lsa_cpi_loop *l = lsa_cpi_loop(v->cpi, k);

		nrows = 0;
		for (b = 0; b < l->nblocks && err >= 0; b++) {
			m = lsa_cpi_block_insns(v->cpi, l->blocks[b], &first);
			for (j = first; j < first + m; j++) {
				const struct lsa_cpi_insn *in = lsa_cpi_insn(v->cpi, j);

				if (src[j] == LSP_NONE)
					continue;
				if (LS_GROW(rows, nrows + 1, caprows, 1024)) {
					err = -LS_ENOMEM;
					break;
				}
				rows[nrows++] = (struct lsp_cpiline){ v->dyn_loop[k], src[j],
					line[j], in->execs, in->execs, in->cost };
			}
		}
		/* one row per line: sorted, summed */
		if (nrows > 1)
			qsort(rows, nrows, sizeof(*rows), cmp_line);
		for (j = 0, w = 0; j < nrows; j++) {
			if (w && !cmp_line(&rows[w - 1], &rows[j])) {
				rows[w - 1].insns += rows[j].insns;
				rows[w - 1].cost += rows[j].cost;
				if (rows[j].execs > rows[w - 1].execs)
					rows[w - 1].execs = rows[j].execs;
			} else {
				rows[w++] = rows[j];
			}
		}
		for (j = 0; j < w && err >= 0; j++)
			err = lsp_add_cpiline(p, &rows[j]);
	}
out:
	free(rows);
	free(src);
	free(line);
	return err < 0 ? err : 0;
}

static int put_all(struct lsa_cpiview *v, struct lsp_profile *p)
{
	struct lsa_cpi_stats st;
	struct lsp_cpi c;
	size_t i;
	int err, fam;

	lsa_cpi_get_stats(v->cpi, &st);
	memset(&c, 0, sizeof(c));
	c.unit = st.unit == LSA_CPI_NS ? LSP_CPI_NS : LSP_CPI_CYCLES;
	c.event = (char *)(st.event ? st.event : "");
	c.skid_fix = !v->o.no_skid_fix;
	c.samples = st.samples;
	c.attributed = st.attributed;
	c.unmapped = st.unmapped;
	c.no_module = st.no_module;
	c.not_executed = st.not_executed;
	c.no_pred = st.no_pred;
	c.cost = st.cost;
	c.cost_attributed = st.cost_attributed;
	c.insns = st.insns;
	c.cmd = (char *)lsb_reader_meta(v->r, "cmdline");
	c.calls = 1;
	for (fam = 0; fam < LSP_CPI_NFAM; fam++) {
		struct lsa_cpi_agg out;

		lsa_cpi_outside(v->cpi, fam, &out);
		agg(&c.outside[fam], &out);
	}
	lsp_cpi_drop(p);
	if (!(v->pmod = malloc((lsb_reader_nmodules(v->r) + 1) * sizeof(*v->pmod))))
		return -LS_ENOMEM;
	for (i = 0; i < lsb_reader_nmodules(v->r); i++)
		v->pmod[i] = -1;
	for (i = 0; i < LSD_MODE_MAX; i++)
		if (lsd_cs_open_mode(&v->cs[i], LSD_CS_ATT, (int)i) < 0)
			break;
	if (i == LSD_MODE_MAX) {
		v->have_cs = 1;
	} else {
		while (i--)
			lsd_cs.close(&v->cs[i]);
	}
	if ((err = lsp_set_cpi(p, &c)) < 0 || (err = put_funcs(v, p)) < 0 ||
	    (err = put_loops(v, p)) < 0 || (err = put_insns(v, p)) < 0 ||
	    (err = put_calls(v, p)) < 0 || (v->stacks && (err = put_lines(v, p)) < 0)) {
		lsp_cpi_drop(p);
		return err;
	}
	return 0;
}

static int cpiview_finish(void *arg, struct lsp_profile *p)
{
	struct lsa_cpiview *v = arg;
	struct lsa_cpi_opts co = { .size = sizeof(co), .no_skid_fix = v->o.no_skid_fix,
				   .img = v->o.img, .debug_dir = v->o.debug_dir };
	int err;

	/* the loop ids the views print are the sorted profile's */
	if ((err = lsa_cfg_finish(v->cfg)) < 0 || (err = lsp_sort(p)) < 0 ||
	    (err = lsa_cpi_new(&v->cpi, v->cfg, v->r, &co)) < 0 ||
	    (err = lsa_cpi_add_loops(v->cpi, v->cfg, v->r, p, &v->dyn_loop, &v->ndyn,
				       &v->sl)) < 0 ||
	    (err = lsa_cpi_finish(v->cpi)) < 0 ||
	    (err = lsa_cpi_chains(v->cpi, v->stacks)) < 0)
		return err;
	return put_all(v, p);
}

int lsa_cpiview_put(struct lsp_profile *p, const struct lsa_cfg *c, struct lsb_reader *r,
		    struct lsd_symbols *sym, const struct lsa_cpiview_opts *o)
{
	struct lsa_cpi_opts co = { .size = sizeof(co) };
	struct lsa_cpiview *v;
	int err;

	if (!p || !c || !r || !o || o->size < sizeof(*o) || !o->img)
		return -LS_EINVAL;
	if (!(v = calloc(1, sizeof(*v))))
		return -LS_ENOMEM;
	v->r = r;
	v->sym = sym;
	v->o = *o;
	v->cfg = (struct lsa_cfg *)c;	/* read only: not own_cfg */
	co.no_skid_fix = o->no_skid_fix;
	co.img = o->img;
	co.debug_dir = o->debug_dir;
	/* no loops, no stacks: instructions and functions' self figures */
	if ((err = lsa_cpi_new(&v->cpi, c, r, &co)) >= 0 &&
	    (err = lsa_cpi_finish(v->cpi)) >= 0)
		err = put_all(v, p);
	lsa_cpiview_free(v);
	return err;
}

void lsa_cpiview_consumer(struct lsa_cpiview *v, struct lsa_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "sampled CPI";
	c->cb = &lsa_cfg_callbacks;
	c->arg = v->cfg;
	c->finish = cpiview_finish;
	c->finish_arg = v;
}
