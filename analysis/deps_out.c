/* deps_out.c - from conflict records to named dependences: Prospector's
 * heuristics (section 3.2), a verdict per loop, variable names. */
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Data symbols (STT_OBJECT) of one module, by address. */
struct dsym {
	uint64_t start, size;
	char *name;
};

struct dmod {
	int tried, have_bias;
	uint64_t bias;		/* runtime address - ELF virtual address */
	struct dsym *s;
	size_t n;
};

struct deps_data {
	struct dmod *m;
	size_t n;
};

static int by_start(const void *a, const void *b)
{
	const struct dsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Adds e's object symbols (its .symtab) to m.  Returns whether e has a
 * .symtab. */
static int dmod_scan(struct dmod *m, Elf *e, size_t *cap)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		found = 1;
		cnt = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < cnt; k++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)k, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    !sym.st_size || !(nm = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			if (LS_GROW(m->s, m->n + 1, *cap, 64))
				return found;
			m->s[m->n].start = sym.st_value;
			m->s[m->n].size = sym.st_size;
			if (!(m->s[m->n].name = strdup(nm)))
				return found;
			m->n++;
		}
	}
	return found;
}

/* Reads the object symbols of module i: from the files its symbols read
 * (a separate debug file's .symtab first: a stripped program's globals
 * are named there), else from the bundle's copy. */
static void dmod_load(struct lsa_deps *D, struct dmod *m, size_t i)
{
	Elf *own = NULL, *dbg = NULL, *e;
	void *data = NULL;
	size_t len = 0, cap = 0;

	m->tried = 1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	if (D->sym && lsd_symbols_elf(D->sym, (int)i, &own, &dbg) >= 0) {
		if (!dmod_scan(m, dbg, &cap))
			dmod_scan(m, own, &cap);
	} else if (lsb_reader_module_data(D->r, i, &data, &len) >= 0) {
		if ((e = elf_memory(data, len))) {
			dmod_scan(m, e, &cap);
			elf_end(e);
		}
		free(data);
	}
	if (m->n)
		qsort(m->s, m->n, sizeof(*m->s), by_start);
}

/* The data symbol holding runtime address a, *off its offset; NULL. */
static const char *data_name(struct lsa_deps *D, uint64_t a, uint64_t *off)
{
	size_t i;

	for (i = 0; D->data && i < D->data->n; i++) {
		struct dmod *m = &D->data->m[i];
		uint64_t v = a - m->bias;
		size_t lo = 0, hi;

		if (!m->have_bias)
			continue;
		if (!m->tried)
			dmod_load(D, m, i);
		hi = m->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->s[mid].start <= v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && v < m->s[lo - 1].start + m->s[lo - 1].size) {
			*off = v - m->s[lo - 1].start;
			return m->s[lo - 1].name;
		}
	}
	return NULL;
}

/* Learns the load bias of sb's module (for data symbols). */
static void note_bias(struct lsa_deps *D, const struct lsd_sblock *sb, uint64_t vaddr)
{
	if (!D->data || sb->module < 0 || (size_t)sb->module >= D->data->n)
		return;
	D->data->m[sb->module].bias = sb->start - vaddr;
	D->data->m[sb->module].have_bias = 1;
}

/* File, line and ELF address of the instruction at ip of sb. */
static void where_ip(struct lsa_deps *D, const struct lsd_sblock *sb, uint64_t ip,
		     const char **file, uint32_t *line, uint64_t *vaddr, const char **fn)
{
	struct lsd_symbol_info in;

	*file = "";
	*line = 0;
	*vaddr = 0;
	if (fn)
		*fn = "";
	memset(&in, 0, sizeof(in));
	if (!D->sym || !sb || sb->module < 0 ||
	    lsd_symbols_lookup(D->sym, sb->module, sb->mod_off + (ip - sb->start), 1, &in) < 0)
		return;
	if (in.file)
		*file = in.file;
	*line = in.line > 0 ? (uint32_t)in.line : 0;
	*vaddr = in.vaddr;
	if (fn && in.function)
		*fn = in.function;
	if (in.vaddr)
		note_bias(D, sb, in.vaddr - (ip - sb->start));
}

static void var_name(struct lsa_deps *D, const struct deps_rec *r, struct lsa_deps_dep *o)
{
	const struct deps_ent *w = &r->where;
	const char *nm;
	uint64_t off;

	if (w->odepth >= 0) {
		const char *f, *fn, *local = NULL;
		uint32_t ln;
		uint64_t va;

		where_ip(D, w->ofn, w->ofn ? w->ofn->start : 0, &f, &ln, &va, &fn);
		o->storage = LSA_ST_STACK;
		if (w->ofn && va)
			local = deps_dwarf_local(D, w->ofn->module, va, w->cfaoff);
		if (local)
			snprintf(o->var, sizeof(o->var), "%s:%s%s", fn[0] ? fn : "?", local,
				 r->multi ? "[]" : "");
		else
			snprintf(o->var, sizeof(o->var), "%s:cfa-0x%" PRIx64 "%s",
				 fn[0] ? fn : "?", (uint64_t)-w->cfaoff, r->multi ? "[]" : "");
	} else if ((nm = data_name(D, r->addr, &off))) {
		o->storage = LSA_ST_GLOBAL;
		if (r->multi)
			snprintf(o->var, sizeof(o->var), "%s[]", nm);
		else if (off)
			snprintf(o->var, sizeof(o->var), "%s+0x%" PRIx64, nm, off);
		else
			snprintf(o->var, sizeof(o->var), "%s", nm);
	} else if (r->asite) {
		/* Named by its allocation: the call's file:line and function
		 * (the call ends just before the return address). */
		const struct lsd_sblock *sb = lsd_sblock_at(D->d, r->asite - 1);
		const char *f, *fn, *base;
		uint32_t ln;
		uint64_t va;

		o->storage = LSA_ST_OTHER;
		o->alloc_ip = r->asite - 1;
		where_ip(D, sb, r->asite - 1, &f, &ln, &va, &fn);
		base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		if (r->multi)
			snprintf(o->var, sizeof(o->var), "heap@%s:%u(%s)[]", base[0] ? base : "?",
				 ln, fn[0] ? fn : "?");
		else if (r->addr != r->abase)
			snprintf(o->var, sizeof(o->var), "heap@%s:%u(%s)+0x%" PRIx64,
				 base[0] ? base : "?", ln, fn[0] ? fn : "?", r->addr - r->abase);
		else
			snprintf(o->var, sizeof(o->var), "heap@%s:%u(%s)", base[0] ? base : "?", ln,
				 fn[0] ? fn : "?");
	} else {
		o->storage = LSA_ST_OTHER;
		snprintf(o->var, sizeof(o->var), "%s0x%" PRIx64, r->multi ? "heap[] " : "heap ",
			 r->addr);
	}
}

/* --- heuristics --------------------------------------------------------- */

static const struct lsa_deps *g_sort;	/* qsort has no context in C11 */

static int by_group(const void *a, const void *b)
{
	const struct deps_rec *x = &g_sort->rec[*(const uint32_t *)a];
	const struct deps_rec *y = &g_sort->rec[*(const uint32_t *)b];

	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	if (x->multi != y->multi)
		return x->multi - y->multi;
	if (x->rel != y->rel)
		return x->rel - y->rel;
	if (x->vkey != y->vkey)
		return x->vkey < y->vkey ? -1 : 1;
	return x->kind - y->kind;
}

/* Whether site s + 1's instruction is in loop's header block. */
static int in_header(const struct lsa_deps *D, uint32_t loop, uint32_t s)
{
	const struct lsa_cfg_block *hb =
		lsa_cfg_block(D->c, lsa_sloops_get(D->sl, loop)->header);
	uint64_t ip = D->site[s - 1].ip;

	return hb && hb->sb && ip >= hb->sb->start && ip < hb->sb->end;
}

/* Notes for the records of one address of one loop, ix[0 .. n). */
static void note_group(const struct lsa_deps *D, const uint32_t *ix, size_t n, uint8_t *note)
{
	unsigned kinds = 0;
	uint32_t wsite = 0;
	int one_write = 1, header = 0, dist1 = 0, li = 0, rmw = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct deps_rec *r = &D->rec[ix[i]];
		uint32_t w = r->kind == LSA_DEP_RAW ? r->src : r->dst;
		uint32_t rd = r->kind == LSA_DEP_RAW ? r->dst : r->kind == LSA_DEP_WAR ? r->src : 0;

		kinds |= 1u << r->kind;
		if (wsite && w != wsite)
			one_write = 0;
		wsite = w;
		if (rd && in_header(D, r->loop, rd))
			header = 1;
		if (r->kind == LSA_DEP_RAW && r->dmin == 1)
			dist1 = 1;
		if (r->li)
			li = 1;
	}
	/* The writing instruction reads the variable too (add $1, mem). */
	for (i = 0; i < n; i++) {
		const struct deps_rec *r = &D->rec[ix[i]];

		if ((r->kind == LSA_DEP_RAW && r->dst == wsite) ||
		    (r->kind == LSA_DEP_WAR && r->src == wsite))
			rmw = 1;
	}
	for (i = 0; i < n; i++) {
		const struct deps_rec *r = &D->rec[ix[i]];
		uint8_t v = LSA_NOTE_NONE;

		if (r->rel == REL_DEEPER)
			v = LSA_NOTE_CALLEE;
		else if (!r->multi && kinds == 7 && one_write && dist1 && header && rmw)
			/* All three kinds on one variable, written by one
			 * instruction that reads it (a constant step, as far
			 * as the trace shows without values), read by the
			 * loop's test: an induction variable. */
			v = LSA_NOTE_IV;
		else if (!r->multi && kinds == 7 && one_write && dist1 && !header && !li)
			/* ... not read by the test, nor used in the iteration
			 * after its update: an accumulator. */
			v = LSA_NOTE_RED;
		else if (!(kinds & 1u << LSA_DEP_RAW) && (kinds & 1u << LSA_DEP_WAW) && li)
			/* A carried WAW, then uses inside the iteration only. */
			v = r->rel == REL_SAME ? LSA_NOTE_TEMP : LSA_NOTE_TEMP_OUT;
		note[ix[i]] = v;
	}
}

/* How each (note, kind) weighs on the verdict. */
static int weight(int note, int kind)
{
	switch (note) {
	case LSA_NOTE_NONE:
		return kind == LSA_DEP_RAW ? LSA_V_NOT :
		       kind == LSA_DEP_WAR ? LSA_V_DUPLICATE : LSA_V_PRIVATIZE;
	case LSA_NOTE_RED:
		return LSA_V_REDUCTION;
	case LSA_NOTE_TEMP_OUT:
		return LSA_V_PRIVATIZE;
	default:
		return LSA_V_PARALLEL;
	}
}

static int by_dep(const void *a, const void *b)
{
	const struct lsa_deps_dep *x = a, *y = b;

	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->src_ip != y->src_ip)
		return x->src_ip < y->src_ip ? -1 : 1;
	if (x->dst_ip != y->dst_ip)
		return x->dst_ip < y->dst_ip ? -1 : 1;
	/* A total order, so that the tables' order (compacted or not)
	 * does not show. */
	if (strcmp(x->var, y->var))
		return strcmp(x->var, y->var);
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->note != y->note)
		return x->note - y->note;
	return x->dmin < y->dmin ? -1 : x->dmin > y->dmin;
}

static int by_heat(const void *a, const void *b)
{
	const struct lsa_deps_loop *x = a, *y = b;
	int px = x->verdict != LSA_V_NOT, py = y->verdict != LSA_V_NOT;

	if (px != py)
		return py - px;
	if (x->coverage != y->coverage)
		return x->coverage > y->coverage ? -1 : 1;
	return x->head_ip < y->head_ip ? -1 : x->head_ip > y->head_ip;
}

static int by_heat_ix(const void *a, const void *b)
{
	return by_heat(&g_sort->loops[*(const uint32_t *)a],
		       &g_sort->loops[*(const uint32_t *)b]);
}

/* Sorts the loops by heat, their dependences along.  Returns 0 or
 * -LS_ENOMEM. */
static int reorder(struct lsa_deps *D)
{
	size_t nl = D->nloops, i, j, k = 0;
	uint32_t *ord = malloc((nl ? nl : 1) * sizeof(*ord));
	struct lsa_deps_loop *nlp = malloc((nl ? nl : 1) * sizeof(*nlp));
	struct lsa_deps_dep *nd = malloc((D->ndeps ? D->ndeps : 1) * sizeof(*nd));

	if (!ord || !nlp || !nd) {
		free(ord);
		free(nlp);
		free(nd);
		return -LS_ENOMEM;
	}
	for (i = 0; i < nl; i++)
		ord[i] = (uint32_t)i;
	g_sort = D;
	qsort(ord, nl, sizeof(*ord), by_heat_ix);
	for (i = 0; i < nl; i++) {
		const struct lsa_deps_loop *L = &D->loops[ord[i]];

		nlp[i] = *L;
		nlp[i].first = (uint32_t)k;
		for (j = 0; j < L->ndeps; j++) {
			nd[k] = D->deps[L->first + j];
			nd[k++].loop = (uint32_t)i;
		}
	}
	free(ord);
	free(D->loops);
	free(D->deps);
	D->loops = nlp;
	D->deps = nd;
	return 0;
}

int lsa_deps_results(struct lsa_deps *D)
{
	size_t ns = lsa_sloops_count(D->sl), i, j, nl = 0;
	uint32_t *ix = NULL, *lmap = NULL;
	uint8_t *note = NULL;
	int err = -LS_ENOMEM;

	lsa_deps_results_free(D);
	D->data = calloc(1, sizeof(*D->data));
	if (D->data) {
		D->data->n = lsb_reader_nmodules(D->r);
		D->data->m = calloc(D->data->n ? D->data->n : 1, sizeof(*D->data->m));
	}
	ix = malloc((D->nrec ? D->nrec : 1) * sizeof(*ix));
	note = calloc(D->nrec ? D->nrec : 1, 1);
	lmap = malloc((ns ? ns : 1) * sizeof(*lmap));
	D->loops = calloc(ns ? ns : 1, sizeof(*D->loops));
	D->deps = calloc(D->nrec ? D->nrec : 1, sizeof(*D->deps));
	if (!D->data || !D->data->m || !ix || !note || !lmap || !D->loops || !D->deps)
		goto out;
	for (i = 0; i < ns; i++) {
		const struct lsa_sloop *s = lsa_sloops_get(D->sl, i);
		const struct lsa_cfg_block *hb = lsa_cfg_block(D->c, s->header);
		struct lsa_deps_loop *L;

		lmap[i] = UINT32_MAX;
		if (!D->lpc[i].entries || !hb || !hb->sb)
			continue;
		L = &D->loops[nl];
		lmap[i] = (uint32_t)nl++;
		L->sloop = (uint32_t)i;
		L->head_ip = hb->sb->start;
		L->module = hb->sb->module;
		L->head_off = hb->sb->mod_off;
		L->coverage = s->coverage;
		L->entries = D->lpc[i].entries;
		L->iterations = D->lpc[i].iterations;
		where_ip(D, hb->sb, hb->sb->start, &L->file, &L->line, &L->head_vaddr, &L->func);
	}
	D->nloops = nl;
	/* Heuristics per (loop, address). */
	for (i = 0; i < D->nrec; i++)
		ix[i] = (uint32_t)i;
	g_sort = D;
	qsort(ix, D->nrec, sizeof(*ix), by_group);
	for (i = 0; i < D->nrec; i = j) {
		const struct deps_rec *a = &D->rec[ix[i]];

		for (j = i + 1; j < D->nrec; j++) {
			const struct deps_rec *b = &D->rec[ix[j]];

			if (b->loop != a->loop || b->multi || a->multi || b->rel != a->rel ||
			    b->vkey != a->vkey)
				break;
		}
		note_group(D, ix + i, j - i, note);
	}
	for (i = 0; i < D->nrec; i++) {
		const struct deps_rec *r = &D->rec[i];
		struct lsa_deps_dep *o = &D->deps[D->ndeps];
		uint64_t best = 0;
		uint32_t k;

		if (lmap[r->loop] == UINT32_MAX)
			continue;
		D->ndeps++;
		o->loop = lmap[r->loop];
		o->kind = r->kind;
		o->note = note[i];
		o->src_ip = D->site[r->src - 1].ip;
		o->dst_ip = D->site[r->dst - 1].ip;
		where_ip(D, D->site[r->src - 1].sb, o->src_ip, &o->src_file, &o->src_line,
			 &o->src_vaddr, NULL);
		where_ip(D, D->site[r->dst - 1].sb, o->dst_ip, &o->dst_file, &o->dst_line,
			 &o->dst_vaddr, NULL);
		o->count = r->count;
		o->dmin = r->dmin;
		memcpy(o->dist, r->dist, sizeof(o->dist));
		for (k = 0; k <= LSA_DEPS_DIST; k++)
			if (r->dist[k] > best) {
				best = r->dist[k];
				o->dtyp = k;
			}
		o->li = r->li;
		o->addr = r->addr;
		o->multi = r->multi;
		var_name(D, r, o);
	}
	qsort(D->deps, D->ndeps, sizeof(*D->deps), by_dep);
	/* Verdicts: the heaviest weight of a loop's dependences. */
	for (i = 0; i < D->ndeps; i++) {
		struct lsa_deps_loop *L = &D->loops[D->deps[i].loop];
		int w = weight(D->deps[i].note, D->deps[i].kind);

		if (!L->ndeps)
			L->first = (uint32_t)i;
		L->ndeps++;
		if (w != LSA_V_PARALLEL)
			L->needs |= (uint8_t)(1u << w);
		if (w > L->verdict)
			L->verdict = (uint8_t)w;
	}
	for (i = 0; i < D->ndeps; i++) {
		struct lsa_deps_dep *o = &D->deps[i];
		const struct lsa_deps_loop *L = &D->loops[o->loop];

		o->decides = L->verdict != LSA_V_PARALLEL &&
			     weight(o->note, o->kind) == L->verdict;
	}
	/* Hot and parallelizable first; dependences follow their loop. */
	if ((err = reorder(D)) < 0)
		goto out;
	err = 0;
out:
	free(ix);
	free(note);
	free(lmap);
	return err;
}

void lsa_deps_results_free(struct lsa_deps *D)
{
	size_t i, k;

	if (D->data) {
		for (i = 0; i < D->data->n; i++) {
			for (k = 0; k < D->data->m[i].n; k++)
				free(D->data->m[i].s[k].name);
			free(D->data->m[i].s);
		}
		free(D->data->m);
		free(D->data);
		D->data = NULL;
	}
	free(D->loops);
	free(D->deps);
	D->loops = NULL;
	D->deps = NULL;
	D->nloops = D->ndeps = 0;
}

size_t lsa_deps_nloops(const struct lsa_deps *D)
{
	return D->nloops;
}

const struct lsa_deps_loop *lsa_deps_loop(const struct lsa_deps *D, size_t i)
{
	return i < D->nloops ? &D->loops[i] : NULL;
}

const struct lsa_deps_dep *lsa_deps_dep(const struct lsa_deps *D, size_t i)
{
	return i < D->ndeps ? &D->deps[i] : NULL;
}

const char *lsa_deps_kind_name(int kind)
{
	static const char *const n[] = { "RAW", "WAR", "WAW" };

	return kind >= 0 && kind < LSA_DEP_NKIND ? n[kind] : "?";
}

const char *lsa_deps_note_name(int note)
{
	static const char *const n[] = { "", "IV", "reduction", "temp", "temp-outside",
					 "callee-stack" };

	return note >= 0 && note < LSA_NOTE_MAX ? n[note] : "?";
}

const char *lsa_deps_storage_name(int st)
{
	static const char *const n[] = { "heap", "global", "stack" };

	return st >= 0 && st < LSA_ST_MAX ? n[st] : "?";
}

const char *lsa_deps_verdict_name(int v)
{
	static const char *const n[] = { "parallelizable", "reduction", "privatization",
					 "duplicate-array", "not-parallelizable" };

	return v >= 0 && v < LSA_V_MAX ? n[v] : "?";
}
