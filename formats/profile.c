/* profile.c - the in-memory loop profile: allocation, interning of
 * modules, functions and loops, row appends, and merging profiles.
 *
 * Interning is O(1): one open-addressing hash table per keyed array,
 * holding indexes into the array.  The tables live behind p->index so the
 * arrays stay plain arrays that reports and the detector read directly.
 * Each table remembers how many elements it has indexed; an array that
 * grew or shrank behind our back (a caller appending directly) makes the
 * table rebuild itself on the next lookup, so lookups are never wrong.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsp_htab {
	uint32_t *slot;		/* array index, LSP_NONE when empty */
	size_t cap;		/* power of two, or 0 */
	size_t n;		/* elements of the array it indexes */
};

struct lsp_index {
	struct lsp_htab mod, func, loop;
};

static const char *const class_names[LSP_NCLASS] = {
	"load", "store", "branch", "call", "ret", "int", "fp", "simd", "other",
};

const char *lsp_class_name(unsigned c)
{
	return c < LSP_NCLASS ? class_names[c] : "?";
}

/* 64-bit mix (splitmix64's finalizer): offsets are aligned and close
 * together, so the low bits alone would collide. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t hash_bytes(const void *data, size_t n, uint64_t h)
{
	const unsigned char *s = data;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;	/* FNV-1a */
	return mix(h);
}

static uint64_t mod_hash(const uint8_t *id, size_t len, const char *path)
{
	/* Modules without a build-id are told apart by path. */
	if (len)
		return hash_bytes(id, len, 0xcbf29ce484222325ULL);
	return hash_bytes(path ? path : "", strlen(path ? path : ""), 0x84222325ULL);
}

static int mod_eq(const struct lsp_module *m, const uint8_t *id, size_t len,
		  const char *path)
{
	if (m->build_id_len != len)
		return 0;
	if (len)
		return !memcmp(m->build_id, id, len);
	return !strcmp(m->path ? m->path : "", path ? path : "");
}

static uint64_t key_hash(uint32_t module, uint64_t off)
{
	return mix(off ^ ((uint64_t)module << 48) ^ module);
}

static int htab_grow(struct lsp_htab *t, size_t want)
{
	size_t cap = 16;
	uint32_t *s;

	while (cap < 2 * want)
		cap *= 2;
	if (cap <= t->cap)
		return 0;
	s = malloc(cap * sizeof(*s));
	if (!s)
		return -LS_ENOMEM;
	memset(s, 0xff, cap * sizeof(*s));
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	t->n = 0;		/* the caller re-inserts everything */
	return 0;
}

static void htab_put(struct lsp_htab *t, uint64_t h, uint32_t idx)
{
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slot[i] != LSP_NONE)
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = idx;
}

static struct lsp_index *index_of(struct lsp_profile *p)
{
	if (!p->index)
		p->index = calloc(1, sizeof(*p->index));
	return p->index;
}

/* Makes table t index all n elements, room for one more; returns 0 or
 * -LS_ENOMEM.  hashes(i) gives element i's hash. */
#define SYNC(t, cnt, hash_i)                                                  \
	do {                                                                \
		size_t i_;                                                  \
		if ((t)->n != (cnt) || 2 * ((cnt) + 1) > (t)->cap) {            \
			if ((t)->cap < 2 * ((cnt) + 1)) {                     \
				if (htab_grow((t), (cnt) + 1) < 0)            \
					return -LS_ENOMEM;                  \
			} else {                                            \
				memset((t)->slot, 0xff,                     \
				       (t)->cap * sizeof(*(t)->slot));      \
			}                                                   \
			for (i_ = 0; i_ < (cnt); i_++)                        \
				htab_put((t), (hash_i), (uint32_t)i_);      \
			(t)->n = (cnt);                                       \
		}                                                           \
	} while (0)

int lsp_new(struct lsp_profile **pp, uint32_t trip_limit)
{
	struct lsp_profile *p;

	if (!pp)
		return -LS_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	p->version = LSP_VERSION;
	p->trip_limit = trip_limit ? trip_limit : LSP_TRIP_LIMIT;
	p->nruns = 1;
	p->cg_program = LSP_NONE;
	*pp = p;
	return 0;
}

void lsp_free(struct lsp_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_modules; i++)
		free(p->modules[i].path);
	for (i = 0; i < p->n_funcs; i++) {
		free(p->funcs[i].name);
		free(p->funcs[i].file);
	}
	for (i = 0; i < p->n_loops; i++) {
		free(p->loops[i].file);
		free(p->loops[i].head_file);
		free(p->loops[i].inlined_from);
	}
	free(p->modules);
	free(p->threads);
	free(p->funcs);
	free(p->loops);
	free(p->lstats);
	free(p->trips);
	free(p->edges);
	for (i = 0; i < p->n_tails; i++)
		free(p->tails[i].file);
	free(p->tails);
	free(p->calls);
	free(p->fstats);
	free(p->verdicts);
	for (i = 0; i < p->n_deps; i++) {
		free(p->deps[i].note);
		free(p->deps[i].var);
		free(p->deps[i].src_file);
		free(p->deps[i].dst_file);
	}
	free(p->deps);
	lsp_sview_drop(p);
	lsp_cgraph_drop(p);
	lsp_cpi_drop(p);
	free(p->source);
	for (i = 0; i < p->n_parts; i++)
		free(p->parts[i].bundle);
	free(p->parts);
	lsp_index_drop(p);
	free(p);
}

void lsp_index_drop(struct lsp_profile *p)
{
	if (p->index) {
		free(p->index->mod.slot);
		free(p->index->func.slot);
		free(p->index->loop.slot);
		free(p->index);
	}
	p->index = NULL;
}

/* Room for one more element in an LSP_ARRAY; indexes stay below
 * LSP_NONE. */
#define GROW(p, name) \
	((p)->n_##name >= LSP_NONE ? -LS_ENOMEM : \
	 LS_GROW((p)->name, (p)->n_##name + 1, (p)->cap_##name, 16))

static char *dupstr(const char *s)
{
	return strdup(s ? s : "");
}

int lsp_module_intern(struct lsp_profile *p, const uint8_t *build_id,
		      size_t len, const char *path)
{
	struct lsp_index *x;
	struct lsp_module *m;
	size_t i;

	if (!p || len > LSP_BUILD_ID_MAX || (len && !build_id))
		return -LS_EINVAL;
	x = index_of(p);
	if (!x)
		return -LS_ENOMEM;
	SYNC(&x->mod, p->n_modules,
	     mod_hash(p->modules[i_].build_id, p->modules[i_].build_id_len,
		      p->modules[i_].path));
	i = (size_t)mod_hash(build_id, len, path) & (x->mod.cap - 1);
	for (; x->mod.slot[i] != LSP_NONE; i = (i + 1) & (x->mod.cap - 1))
		if (mod_eq(&p->modules[x->mod.slot[i]], build_id, len, path))
			return (int)x->mod.slot[i];
	if (p->n_modules >= INT32_MAX || GROW(p, modules) < 0)
		return -LS_ENOMEM;
	m = &p->modules[p->n_modules];
	memset(m, 0, sizeof(*m));
	if (len)
		memcpy(m->build_id, build_id, len);
	m->build_id_len = (uint8_t)len;
	m->path = dupstr(path);
	if (!m->path)
		return -LS_ENOMEM;
	x->mod.slot[i] = (uint32_t)p->n_modules;
	x->mod.n = ++p->n_modules;
	return (int)(p->n_modules - 1);
}

int lsp_func_intern(struct lsp_profile *p, uint32_t module, uint64_t off,
		    uint64_t vaddr, const char *name, const char *file,
		    uint32_t line)
{
	struct lsp_index *x;
	struct lsp_func *f;
	size_t i;

	if (!p || module >= p->n_modules)
		return -LS_EINVAL;
	x = index_of(p);
	if (!x)
		return -LS_ENOMEM;
	SYNC(&x->func, p->n_funcs, key_hash(p->funcs[i_].module, p->funcs[i_].off));
	i = (size_t)key_hash(module, off) & (x->func.cap - 1);
	for (; x->func.slot[i] != LSP_NONE; i = (i + 1) & (x->func.cap - 1)) {
		f = &p->funcs[x->func.slot[i]];
		if (f->module == module && f->off == off)
			return (int)x->func.slot[i];
	}
	if (p->n_funcs >= INT32_MAX || GROW(p, funcs) < 0)
		return -LS_ENOMEM;
	f = &p->funcs[p->n_funcs];
	memset(f, 0, sizeof(*f));
	f->module = module;
	f->off = off;
	f->vaddr = vaddr;
	f->line = line;
	f->name = dupstr(name);
	f->file = dupstr(file);
	if (!f->name || !f->file) {
		free(f->name);
		free(f->file);
		return -LS_ENOMEM;
	}
	x->func.slot[i] = (uint32_t)p->n_funcs;
	x->func.n = ++p->n_funcs;
	return (int)(p->n_funcs - 1);
}

int lsp_loop_intern(struct lsp_profile *p, uint32_t module, uint64_t head_off,
		    uint64_t head_vaddr, uint32_t func, const char *file,
		    uint32_t line)
{
	struct lsp_index *x;
	struct lsp_loop *l;
	size_t i;

	if (!p || module >= p->n_modules || (func != LSP_NONE && func >= p->n_funcs))
		return -LS_EINVAL;
	x = index_of(p);
	if (!x)
		return -LS_ENOMEM;
	SYNC(&x->loop, p->n_loops, key_hash(p->loops[i_].module, p->loops[i_].head_off));
	i = (size_t)key_hash(module, head_off) & (x->loop.cap - 1);
	for (; x->loop.slot[i] != LSP_NONE; i = (i + 1) & (x->loop.cap - 1)) {
		l = &p->loops[x->loop.slot[i]];
		if (l->module == module && l->head_off == head_off)
			return (int)x->loop.slot[i];
	}
	if (p->n_loops >= INT32_MAX || GROW(p, loops) < 0)
		return -LS_ENOMEM;
	l = &p->loops[p->n_loops];
	memset(l, 0, sizeof(*l));
	l->module = module;
	l->head_off = head_off;
	l->head_vaddr = head_vaddr;
	l->func = func;
	l->line = line;
	l->file = dupstr(file);
	l->head_line = line;
	l->head_file = dupstr(file);
	l->inlined_from = dupstr("");
	if (!l->file || !l->head_file || !l->inlined_from)
		return -LS_ENOMEM;
	x->loop.slot[i] = (uint32_t)p->n_loops;
	x->loop.n = ++p->n_loops;
	return (int)(p->n_loops - 1);
}

int lsp_loop_set_lines(struct lsp_profile *p, uint32_t i, const char *file,
		       uint32_t line, const char *head_file, uint32_t head_line)
{
	struct lsp_loop *l;
	char *f, *h;

	if (!p || i >= p->n_loops || !file || !head_file)
		return -LS_EINVAL;
	l = &p->loops[i];
	f = dupstr(file);
	h = dupstr(head_file);
	if (!f || !h) {
		free(f);
		free(h);
		return -LS_ENOMEM;
	}
	free(l->file);
	free(l->head_file);
	l->file = f;
	l->line = line;
	l->head_file = h;
	l->head_line = head_line;
	return 0;
}

int lsp_loop_set_range(struct lsp_profile *p, uint32_t i, uint32_t first_line,
		       uint32_t last_line, const char *inlined_from)
{
	char *s;

	if (!p || i >= p->n_loops || !inlined_from)
		return -LS_EINVAL;
	if (!(s = dupstr(inlined_from)))
		return -LS_ENOMEM;
	free(p->loops[i].inlined_from);
	p->loops[i].inlined_from = s;
	p->loops[i].first_line = first_line;
	p->loops[i].last_line = last_line;
	return 0;
}

int lsp_thread_add(struct lsp_profile *p, const struct lsp_thread *t)
{
	if (!p || !t)
		return -LS_EINVAL;
	if (p->n_threads >= INT32_MAX || GROW(p, threads) < 0)
		return -LS_ENOMEM;
	p->threads[p->n_threads] = *t;
	return (int)p->n_threads++;
}

#define ADD_ROW(p, name, row)                          \
	do {                                           \
		if (!(p) || !(row))                    \
			return -LS_EINVAL;             \
		if (GROW(p, name) < 0)                 \
			return -LS_ENOMEM;             \
		(p)->name[(p)->n_##name++] = *(row);   \
		return 0;                              \
	} while (0)

int lsp_part_add(struct lsp_profile *p, uint32_t run, const char *bundle,
		 uint32_t shard, uint32_t nshards)
{
	struct lsp_part *q;

	if (!p || !bundle || !*bundle || shard >= nshards || run >= p->nruns)
		return -LS_EINVAL;
	if (GROW(p, parts) < 0)
		return -LS_ENOMEM;
	q = &p->parts[p->n_parts];
	q->run = run;
	q->shard = shard;
	q->nshards = nshards;
	if (!(q->bundle = strdup(bundle)))
		return -LS_ENOMEM;
	p->n_parts++;
	return 0;
}

int lsp_add_lstat(struct lsp_profile *p, const struct lsp_lstat *s)
{
	ADD_ROW(p, lstats, s);
}

int lsp_add_trip(struct lsp_profile *p, const struct lsp_trip *t)
{
	ADD_ROW(p, trips, t);
}

int lsp_add_edge(struct lsp_profile *p, const struct lsp_edge *e)
{
	ADD_ROW(p, edges, e);
}

int lsp_add_tail(struct lsp_profile *p, const struct lsp_tail *t)
{
	struct lsp_tail *o;

	if (!p || !t)
		return -LS_EINVAL;
	if (GROW(p, tails) < 0)
		return -LS_ENOMEM;
	o = &p->tails[p->n_tails];
	*o = *t;
	if (!(o->file = strdup(t->file ? t->file : "")))
		return -LS_ENOMEM;
	p->n_tails++;
	return 0;
}

int lsp_add_call(struct lsp_profile *p, const struct lsp_call *c)
{
	ADD_ROW(p, calls, c);
}

int lsp_add_fstat(struct lsp_profile *p, const struct lsp_fstat *f)
{
	ADD_ROW(p, fstats, f);
}

static const char *const verdict_names[LSP_V_MAX] = {
	"parallelizable", "reduction", "privatization", "duplicate-array",
	"not-parallelizable"
};

const char *lsp_verdict_name(unsigned v)
{
	return v < LSP_V_MAX ? verdict_names[v] : "?";
}

int lsp_verdict_code(const char *name)
{
	int i;

	for (i = 0; name && i < LSP_V_MAX; i++)
		if (!strcmp(name, verdict_names[i]))
			return i;
	return -LS_EINVAL;
}

const char *lsp_dep_kind_name(unsigned k)
{
	static const char *const n[] = { "RAW", "WAR", "WAW" };

	return k < 3 ? n[k] : "?";
}

int lsp_set_verdict(struct lsp_profile *p, const struct lsp_verdict *v)
{
	size_t i;

	if (!p || !v || v->verdict >= LSP_V_MAX || v->loop >= p->n_loops)
		return -LS_EINVAL;
	for (i = 0; i < p->n_verdicts; i++)
		if (p->verdicts[i].loop == v->loop) {
			struct lsp_verdict *o = &p->verdicts[i];

			if (v->verdict > o->verdict)
				o->verdict = v->verdict;
			o->needs |= v->needs;
			return 0;
		}
	ADD_ROW(p, verdicts, v);
}

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static char *dup0(const char *s)
{
	return strdup(s ? s : "");
}

int lsp_dep_push(struct lsp_profile *p, const struct lsp_dep *d)
{
	struct lsp_dep *o;

	if (GROW(p, deps) < 0)
		return -LS_ENOMEM;
	o = &p->deps[p->n_deps];
	*o = *d;
	o->note = dup0(d->note);
	o->var = dup0(d->var);
	o->src_file = dup0(d->src_file);
	o->dst_file = dup0(d->dst_file);
	if (!o->note || !o->var || !o->src_file || !o->dst_file) {
		free(o->note);
		free(o->var);
		free(o->src_file);
		free(o->dst_file);
		return -LS_ENOMEM;
	}
	p->n_deps++;
	return 0;
}

int lsp_add_dep(struct lsp_profile *p, const struct lsp_dep *d)
{
	struct lsp_dep *o;
	size_t i;

	if (!p || !d || d->kind > 2 || d->loop >= p->n_loops)
		return -LS_EINVAL;
	for (i = 0; i < p->n_deps; i++) {
		o = &p->deps[i];
		if (o->loop != d->loop || o->kind != d->kind || o->src_vaddr != d->src_vaddr ||
		    o->dst_vaddr != d->dst_vaddr || !same_str(o->var, d->var))
			continue;
		if (d->count > o->count)
			o->dtyp = d->dtyp;
		o->count += d->count;
		if (d->dmin < o->dmin)
			o->dmin = d->dmin;
		o->decides |= d->decides;
		return 0;
	}
	return lsp_dep_push(p, d);
}

/* Maps an index of src to dst's, keeping LSP_NONE. */
static uint32_t remap(const uint32_t *map, uint32_t i)
{
	return i == LSP_NONE ? LSP_NONE : map[i];
}

/* src's graph records appended to dst's (lsp_sort() sums rows of one
 * key); the program is kept where both name one module.  Returns 0,
 * -LS_EINVAL, -LS_ENOMEM. */
static int merge_cgraph(struct lsp_profile *dst, const struct lsp_profile *src,
			const uint32_t *mmap)
{
	uint32_t fbase = (uint32_t)dst->n_cfuncs, prog = remap(mmap, src->cg_program);
	size_t i;
	int err = 0;

	dst->cg_program = dst->has_cgraph && dst->cg_program != prog ? LSP_NONE : prog;
	dst->has_cgraph = 1;
	for (i = 0; i < src->n_cfuncs && err >= 0; i++)
		err = lsp_add_cfunc(dst, mmap[src->cfuncs[i].module], src->cfuncs[i].off,
				    src->cfuncs[i].name);
	for (i = 0; i < src->n_cblocks && err >= 0; i++) {
		struct lsp_cblock b = src->cblocks[i];

		b.module = mmap[b.module];
		b.func += fbase;
		err = lsp_add_cblock(dst, &b);
	}
	for (i = 0; i < src->n_cedges && err >= 0; i++) {
		struct lsp_cedge e = src->cedges[i];

		e.fmod = remap(mmap, e.fmod);
		e.tmod = remap(mmap, e.tmod);
		err = lsp_add_cedge(dst, &e);
	}
	return err < 0 ? err : 0;
}

static int merge_rows(struct lsp_profile *dst, const struct lsp_profile *src,
		      const uint32_t *mmap, const uint32_t *fmap,
		      const uint32_t *lmap, uint32_t tbase)
{
	size_t i;
	int err = 0;

	for (i = 0; i < src->n_lstats && !err; i++) {
		struct lsp_lstat s = src->lstats[i];

		s.loop = remap(lmap, s.loop);
		s.thread += tbase;
		err = lsp_add_lstat(dst, &s);
	}
	for (i = 0; i < src->n_trips && !err; i++) {
		struct lsp_trip t = src->trips[i];

		t.loop = remap(lmap, t.loop);
		t.thread += tbase;
		err = lsp_add_trip(dst, &t);
	}
	for (i = 0; i < src->n_edges && !err; i++) {
		struct lsp_edge e = src->edges[i];

		e.parent = remap(lmap, e.parent);
		e.child = remap(lmap, e.child);
		e.thread += tbase;
		err = lsp_add_edge(dst, &e);
	}
	for (i = 0; i < src->n_tails && !err; i++) {
		struct lsp_tail t = src->tails[i];

		t.loop = remap(lmap, t.loop);
		t.thread += tbase;
		err = lsp_add_tail(dst, &t);
	}
	for (i = 0; i < src->n_calls && !err; i++) {
		struct lsp_call c = src->calls[i];

		c.loop = remap(lmap, c.loop);
		c.module = remap(mmap, c.module);
		c.callee = remap(fmap, c.callee);
		c.thread += tbase;
		err = lsp_add_call(dst, &c);
	}
	for (i = 0; i < src->n_fstats && !err; i++) {
		struct lsp_fstat f = src->fstats[i];

		f.func = remap(fmap, f.func);
		f.thread += tbase;
		err = lsp_add_fstat(dst, &f);
	}
	for (i = 0; i < src->n_verdicts && !err; i++) {
		struct lsp_verdict v = src->verdicts[i];

		v.loop = remap(lmap, v.loop);
		err = lsp_set_verdict(dst, &v);
	}
	for (i = 0; i < src->n_deps && !err; i++) {
		struct lsp_dep d = src->deps[i];

		d.loop = remap(lmap, d.loop);
		err = lsp_add_dep(dst, &d);
	}
	return err;
}

int lsp_merge(struct lsp_profile *dst, const struct lsp_profile *src)
{
	return lsp_merge_count(dst, src, NULL);
}

int lsp_merge_count(struct lsp_profile *dst, const struct lsp_profile *src,
		    size_t *unlabeled)
{
	uint32_t *mmap = NULL, *fmap = NULL, *lmap = NULL, *runmap = NULL, tbase, nnew;
	struct lsp_best *dbest = NULL, *sbest = NULL;
	uint8_t *both = NULL;
	size_t i;
	int err = 0, r;

	if (!dst || !src || dst == src)
		return -LS_EINVAL;
	if (dst->trip_limit != src->trip_limit)
		return -LS_EINVAL;
	if (lsp_part_conflict(dst, src, NULL, NULL))
		return -LS_EEXIST;
	/* +1: malloc(0) may return NULL. */
	mmap = malloc((src->n_modules + 1) * sizeof(*mmap));
	fmap = malloc((src->n_funcs + 1) * sizeof(*fmap));
	lmap = malloc((src->n_loops + 1) * sizeof(*lmap));
	runmap = malloc(((size_t)src->nruns + 1) * sizeof(*runmap));
	both = calloc(src->n_loops + 1, 1);
	if (!mmap || !fmap || !lmap || !runmap || !both ||
	    (err = lsp_best_tails(dst, &dbest)) < 0 ||
	    (err = lsp_best_tails(src, &sbest)) < 0) {
		err = err ? err : -LS_ENOMEM;
		goto out;
	}
	nnew = lsp_part_runs(dst, src, runmap);
	/* structural loops belong to one whole bundle: a sum has none; nor
	 * has it the costs of one sampling run */
	lsp_sview_drop(dst);
	lsp_cpi_drop(dst);
	for (i = 0; i < src->n_modules; i++) {
		const struct lsp_module *m = &src->modules[i];

		if ((r = lsp_module_intern(dst, m->build_id, m->build_id_len, m->path)) < 0)
			goto fail;
		mmap[i] = (uint32_t)r;
	}
	for (i = 0; i < src->n_funcs; i++) {
		const struct lsp_func *f = &src->funcs[i];

		if ((r = lsp_func_intern(dst, mmap[f->module], f->off, f->vaddr,
					 f->name, f->file, f->line)) < 0)
			goto fail;
		fmap[i] = (uint32_t)r;
	}
	for (i = 0; i < src->n_loops; i++) {
		const struct lsp_loop *l = &src->loops[i];
		size_t n0 = dst->n_loops;

		if ((r = lsp_loop_intern(dst, mmap[l->module], l->head_off,
					 l->head_vaddr, remap(fmap, l->func),
					 l->file, l->line)) < 0)
			goto fail;
		lmap[i] = (uint32_t)r;
		both[i] = (size_t)r < n0;
		/* A loop new to dst takes src's lines. */
		if ((size_t)r + 1 == dst->n_loops && n0 <= (size_t)r &&
		    ((r = lsp_loop_set_lines(dst, lmap[i], l->file, l->line,
					     l->head_file, l->head_line)) < 0 ||
		     (r = lsp_loop_set_range(dst, lmap[i], l->first_line, l->last_line,
					     l->inlined_from)) < 0))
			goto fail;
	}
	/* The graph records sum (lsp_sort() adds rows of one key) when every
	 * input has them; an empty dst (merge's start) takes src's. */
	if (dst->n_threads && !dst->has_cgraph != !src->has_cgraph)
		lsp_cgraph_drop(dst);
	else if (src->has_cgraph && (err = merge_cgraph(dst, src, mmap)) < 0)
		goto out;
	tbase = (uint32_t)dst->n_threads;
	for (i = 0; i < src->n_threads; i++) {
		struct lsp_thread t = src->threads[i];

		t.run = runmap[t.run];
		if ((r = lsp_thread_add(dst, &t)) < 0)
			goto fail;
	}
	if ((err = merge_rows(dst, src, mmap, fmap, lmap, tbase)) < 0)
		goto out;
	dst->nruns += nnew;
	if (!dst->source && src->source && !(dst->source = strdup(src->source)))
		err = -LS_ENOMEM;
	if (!err)
		err = lsp_part_join(dst, src, runmap);
	if (!err)
		err = lsp_merge_labels(dst, src, lmap, both, dbest, sbest, unlabeled);
	if (!err)
		err = lsp_sort(dst);
	goto out;
fail:
	err = r;
out:
	free(mmap);
	free(fmap);
	free(lmap);
	free(runmap);
	free(both);
	free(dbest);
	free(sbest);
	return err;
}
