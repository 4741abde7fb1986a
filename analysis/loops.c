/* loops.c - the loop detector over the executed static block stream.
 *
 * LoopProf (Moseley et al. 3.2-3.5) with these refinements, all for exact
 * counts:
 * - Frames follow the block stream's calls and returns.  A return goes to
 *   the frame whose return address it matches; an indirect jump into a
 *   function that an older frame is executing unwinds to it (longjmp,
 *   exceptions); a direct jump to another function is a tail call.  A
 *   signal pushes a frame that ends where the interrupted code resumes.
 * - An open loop entry ends when its head leaves the path; the entries
 *   above the head that are blocks of the loop's body (seen in one of its
 *   iterations) are its last iteration, the rest belongs to the enclosing
 *   loop.  So early exits cost no off-by-one, and the last iteration of a
 *   rotated loop is counted in the loop.
 * - A known loop head executed once in an iteration of an enclosing loop
 *   (or a frame) is an entry with trip count 1.
 * - Loop totals count nested entries of the same loop (recursion) once.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static void cnt_add(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	for (k = 0; k < LSA_NC; k++)
		a->n[k] += b->n[k];
}

static void cnt_sub(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	for (k = 0; k < LSA_NC; k++)
		a->n[k] -= b->n[k];
}

/* ---- pools: indices, never pointers, survive their growth ---- */

#define POOL_ALLOC(l, arr, n, cap, freel, out) do {			\
	if ((l)->freel != LSA_NONE) {					\
		(out) = (l)->freel;					\
		(l)->freel = (l)->arr[(out)].next;			\
	} else {							\
		if (LS_GROW32((l)->arr, (l)->n + 1, (l)->cap, 256))	\
			return -LS_ENOMEM;				\
		(out) = (l)->n++;					\
	}								\
} while (0)

static int acc_new(struct lsa_loops *l, uint32_t *out)
{
	uint32_t i;

	POOL_ALLOC(l, acc, nacc, capacc, freeacc, i);
	memset(&l->acc[i], 0, sizeof(l->acc[i]));
	l->acc[i].kids = LSA_NONE;
	l->acc[i].callee = LSA_NONE;
	*out = i;
	return 0;
}

int lsa_loops_acc_new(struct lsa_loops *l, uint32_t *out)
{
	return acc_new(l, out);
}

static void acc_free(struct lsa_loops *l, uint32_t i)
{
	if (l->acc[i].nsq && !--l->sqlive)
		l->nsq = 0;
	l->acc[i].nsq = 0;
	l->acc[i].next = l->freeacc;
	l->freeacc = i;
}

int lsa_loops_inst_new(struct lsa_loops *l, uint32_t loop, uint32_t *out)
{
	uint32_t i;

	POOL_ALLOC(l, inst, ninst, capinst, freeinst, i);
	memset(&l->inst[i], 0, sizeof(l->inst[i]));
	l->inst[i].loop = loop;
	l->inst[i].tail = LSA_NONE;
	*out = i;
	return 0;
}

static void inst_free(struct lsa_loops *l, uint32_t i)
{
	l->inst[i].next = l->freeinst;
	l->freeinst = i;
}

/* Adds (loop, count, total) to the kid list *head (merging same loops). */
static int kid_add(struct lsa_loops *l, uint32_t *head, uint32_t loop,
		   uint64_t count, const struct lsa_cnt *tot)
{
	uint32_t i;

	for (i = *head; i != LSA_NONE; i = l->kid[i].next)
		if (l->kid[i].loop == loop) {
			l->kid[i].count += count;
			cnt_add(&l->kid[i].tot, tot);
			return 0;
		}
	POOL_ALLOC(l, kid, nkid, capkid, freekid, i);
	l->kid[i].loop = loop;
	l->kid[i].count = count;
	l->kid[i].tot = *tot;
	l->kid[i].next = *head;
	*head = i;
	return 0;
}

static void kids_free(struct lsa_loops *l, uint32_t i)
{
	while (i != LSA_NONE) {
		uint32_t next = l->kid[i].next;

		l->kid[i].next = l->freekid;
		l->freekid = i;
		i = next;
	}
}

/* Moves list src into list *dst. */
static int kids_move(struct lsa_loops *l, uint32_t *dst, uint32_t src)
{
	while (src != LSA_NONE) {
		uint32_t next = l->kid[src].next;
		int err = kid_add(l, dst, l->kid[src].loop, l->kid[src].count,
				  &l->kid[src].tot);

		if (err)
			return err;
		l->kid[src].next = l->freekid;
		l->freekid = src;
		src = next;
	}
	return 0;
}

/* ---- per static block tables ---- */

/* By the ids met, not lsd_nsblocks(): the decoder may be adding blocks
 * on another thread (lsd_decode_all_piped). */
static int sb_grow(struct lsa_loops *l, uint32_t id)
{
	size_t n = (size_t)id + 1, i;
	uint32_t *a, *b, *c;

	n = n < 1024 ? 1024 : n + n / 2;
	a = ls_reallocarray(l->sbloop, n, sizeof(*a));
	if (!a)
		return -LS_ENOMEM;
	l->sbloop = a;
	b = ls_reallocarray(l->sbfunc, n, sizeof(*b));
	if (!b)
		return -LS_ENOMEM;
	l->sbfunc = b;
	c = ls_reallocarray(l->sbbody, n, sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	l->sbbody = c;
	for (i = l->nsb; i < n; i++)
		a[i] = b[i] = c[i] = 0;
	l->nsb = n;
	return 0;
}

/* The function containing static block sb (LSA_NONE if unknown). */
uint32_t lsa_loops_func_of(struct lsa_loops *l, const struct lsd_sblock *sb)
{
	struct lsd_symbol_info info;
	uint64_t *v;
	uint32_t f;

	if (l->sbfunc[sb->id])
		return l->sbfunc[sb->id] - 2;
	l->sbfunc[sb->id] = 1;
	if (!l->sym || sb->module < 0 ||
	    lsd_symbols_lookup(l->sym, sb->module, sb->mod_off, 0, &info) < 0 ||
	    !info.function)
		return LSA_NONE;
	v = lsa_kmap_get(&l->funcidx, (uint64_t)sb->module + 1, info.func_start);
	if (!v)
		return LSA_NONE;	/* out of memory: unnamed, counts stay exact */
	if (!*v) {
		if (LS_GROW32(l->funcs, l->nfuncs + 1, l->capfuncs, 256))
			return LSA_NONE;
		l->funcs[l->nfuncs].module = sb->module;
		l->funcs[l->nfuncs].off = info.func_start;
		l->funcs[l->nfuncs].pidx = LSA_NONE;
		*v = ++l->nfuncs;
	}
	f = (uint32_t)(*v - 1);
	l->sbfunc[sb->id] = f + 2;
	return f;
}

/* The loop headed by sb, created when new. */
static int loop_of(struct lsa_loops *l, const struct lsd_sblock *sb, uint32_t *out)
{
	if (!l->sbloop[sb->id]) {
		if (LS_GROW32(l->loops, l->nloops + 1, l->caploops, 256))
			return -LS_ENOMEM;
		l->loops[l->nloops].head = sb;
		l->loops[l->nloops].func = lsa_loops_func_of(l, sb);
		l->loops[l->nloops].pidx = LSA_NONE;
		l->loops[l->nloops].nbody = 0;
		l->sbloop[sb->id] = ++l->nloops;
		for (size_t i = 0; i < l->nthr; i++) {
			lsa_memo_new_head(&l->thr[i].memo, sb->id);
			lsa_cm_new_head(&l->thr[i].cm, sb->id);
		}
	}
	*out = l->sbloop[sb->id] - 1;
	return 0;
}

int lsa_loops_in_body(const struct lsa_loops *l, uint32_t loop, uint32_t sbid)
{
	return l->sbbody[sbid] == loop + 1 ||
	       lsa_kmap_find(&l->body, loop, sbid) != NULL;
}

/* Notes that block sbid ran in an iteration of loop.  The per-block cache
 * of the last loop saves the set lookup inside innermost loops. */
static int body_add(struct lsa_loops *l, uint32_t loop, uint32_t sbid)
{
	size_t n = l->body.n;

	if (l->sbbody[sbid] == loop + 1)
		return 0;
	if (!lsa_kmap_get(&l->body, loop, sbid))
		return -LS_ENOMEM;
	if (l->body.n != n)
		l->loops[loop].nbody++;
	l->sbbody[sbid] = loop + 1;
	return 0;
}

int lsa_loops_entry_ok(const struct lsa_loops *l, uint32_t loop, uint32_t owner)
{
	return !owner || !lsa_loops_in_body(l, loop, l->loops[owner - 1].head->id);
}

/* ---- per thread rows ---- */

struct lsa_lrow *lsa_loops_lrow(struct lsa_thr *t, uint32_t loop)
{
	if (loop >= t->nlr) {
		uint32_t n = loop < 64 ? 128 : loop * 2;
		struct lsa_lrow *p = ls_reallocarray(t->lr, n, sizeof(*p));

		if (!p)
			return NULL;
		memset(p + t->nlr, 0, (n - t->nlr) * sizeof(*p));
		t->lr = p;
		t->nlr = n;
	}
	return &t->lr[loop];
}

static struct lsa_frow *frow_grow(struct lsa_thr *t, uint32_t func);

/* Thread t's row of function func, grown when new; NULL: out of memory.
 * Inline: a block of a named function takes one per block. */
static inline struct lsa_frow *frow(struct lsa_thr *t, uint32_t func)
{
	return func < t->nfw ? &t->fw[func] : frow_grow(t, func);
}

static struct lsa_frow *frow_grow(struct lsa_thr *t, uint32_t func)
{
	if (func >= t->nfw) {
		uint32_t n = func < 256 ? 512 : func * 2;
		struct lsa_frow *p = ls_reallocarray(t->fw, n, sizeof(*p));

		if (!p)
			return NULL;
		memset(p + t->nfw, 0, (n - t->nfw) * sizeof(*p));
		t->fw = p;
		t->nfw = n;
	}
	return &t->fw[func];
}

struct lsa_frow *lsa_loops_frow(struct lsa_thr *t, uint32_t func)
{
	return frow(t, func);
}

int lsa_loops_edge_add(struct lsa_thr *t, uint32_t parent, uint32_t child,
		       uint64_t count, uint64_t total)
{
	uint64_t *v = lsa_kmap_get(&t->edges,
				   parent == LSA_NONE ? 0 : (uint64_t)parent + 1, child);

	if (!v)
		return -LS_ENOMEM;
	if (!*v) {
		if (LS_GROW(t->erows, t->nerows + 1, t->caperows, 64))
			return -LS_ENOMEM;
		t->erows[t->nerows].count = t->erows[t->nerows].total = 0;
		*v = ++t->nerows;
	}
	t->erows[*v - 1].count += count;
	t->erows[*v - 1].total += total;
	return 0;
}

static int tail_flush(struct lsa_thr *t, struct lsa_inst *in)
{
	int err = 0;

	if (in->tail != LSA_NONE && in->tail_run)
		err = lsa_kmap_add(&t->tails, in->loop, in->tail, in->tail_run);
	in->tail = LSA_NONE;
	in->tail_run = 0;
	return err;
}

/* ---- membership: static block id -> topmost path entry ----
 * A dense array per thread: static block ids are dense and the threads
 * open at once are few (one per stream), so this costs 4 bytes per
 * executed static block and saves a hash lookup per executed block. */

static uint32_t mem_get(const struct lsa_thr *t, uint32_t k)
{
	return k < t->nmem ? t->mem[k] : LSA_NONE;
}

static int mem_set(struct lsa_thr *t, uint32_t k, uint32_t v)
{
	if (k >= t->nmem) {
		size_t n = (size_t)k + 1 < 1024 ? 1024 : ((size_t)k + 1) * 3 / 2;
		uint32_t *p;

		if (v == LSA_NONE)
			return 0;
		p = ls_reallocarray(t->mem, n, sizeof(*p));
		if (!p)
			return -LS_ENOMEM;
		memset(p + t->nmem, 0xff, (n - t->nmem) * sizeof(*p));
		t->mem = p;
		t->nmem = n;
	}
	t->mem[k] = v;
	return 0;
}

/* ---- path ---- */

int lsa_loops_path_push(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb)
{
	struct lsa_pent *e;
	int err;

	if (LS_GROW32(t->path, t->npath + 1, t->cappath, 256))
		return -LS_ENOMEM;
	e = &t->path[t->npath];
	e->sb = sb;
	e->prev = mem_get(t, sb->id);
	e->inst = LSA_NONE;
	e->acc = LSA_NONE;
	err = mem_set(t, sb->id, t->npath);
	if (err)
		return err;
	t->npath++;
	if (t->npath > l->st.max_path)
		l->st.max_path = t->npath;
	return 0;
}

/* ---- accounting ---- */

/* Who receives accounted work: an open loop entry, or a frame's level. */
struct owner {
	uint32_t inst;		/* LSA_NONE: the frame */
	struct lsa_frame *fr;
};

static int pre_grow(struct lsa_loops *l, struct lsa_thr *t, uint32_t id)
{
	size_t n = l->nsb > id ? l->nsb : (size_t)id + 1;
	uint32_t *p = ls_reallocarray(t->pre, n, sizeof(*p)), *q;

	if (!p)
		return -LS_ENOMEM;
	t->pre = p;
	q = ls_reallocarray(t->preo, n, sizeof(*q));
	if (!q)
		return -LS_ENOMEM;
	t->preo = q;
	memset(p + t->npre, 0, (n - t->npre) * sizeof(*p));
	memset(q + t->npre, 0, (n - t->npre) * sizeof(*q));
	t->npre = n;
	return 0;
}

int lsa_loops_pre_once(struct lsa_loops *l, struct lsa_thr *t, uint32_t id,
		       uint64_t k)
{
	if (id >= t->npre && pre_grow(l, t, id))
		return -LS_ENOMEM;
	if (!t->pre[id] || !t->preo[id]) {
		t->pre[id] += (uint32_t)k;
		t->preo[id] = 0;
		return 0;
	}
	return lsa_kmap_add(&t->pre_more, id, 0, k) ? -LS_ENOMEM : 0;
}

/* Charges one execution of entry e (its block and its calls) to o. */
static int charge(struct lsa_loops *l, struct lsa_thr *t, struct owner o,
		  struct lsa_pent *e)
{
	struct lsa_acc *a = e->acc != LSA_NONE ? &l->acc[e->acc] : NULL;
	int err = 0;

	/* A block that is no loop head yet, run once here: if it turns out
	 * to head a loop, this was an entry of trip count 1 (counted when
	 * the thread ends; see lsa_loops_flush_thread). */
	if (!l->sbloop[e->sb->id] && e->inst == LSA_NONE) {
		uint32_t id = e->sb->id, own = o.inst == LSA_NONE ? 0 :
			      l->inst[o.inst].loop + 1;

		if (id >= t->npre && pre_grow(l, t, id))
			return -LS_ENOMEM;
		if (!t->pre[id] || t->preo[id] == own) {
			t->pre[id]++;
			t->preo[id] = own;
		} else if (lsa_kmap_add(&t->pre_more, id, own, 1)) {
			return -LS_ENOMEM;
		}
	}
	if (o.inst != LSA_NONE) {
		struct lsa_inst *in = &l->inst[o.inst];
		uint32_t loop = in->loop, i;

		lsa_cnt_sb(&in->self, e->sb);
		if (!a)
			return 0;
		cnt_add(&in->self, &a->cself);
		cnt_add(&in->tot, &a->ctot);
		if (a->called)
			err = lsa_kmap_add(&t->calls, (uint64_t)loop << 32 | a->callee,
				       e->sb->id, 1);
		for (i = a->kids; !err && i != LSA_NONE; i = l->kid[i].next) {
			if (l->kid[i].loop == loop)
				cnt_add(&in->same, &l->kid[i].tot);
			err = lsa_loops_edge_add(t, loop, l->kid[i].loop, l->kid[i].count,
				       l->kid[i].tot.n[0]);
		}
		kids_free(l, a->kids);
	} else {
		lsa_cnt_sb(&o.fr->fself, e->sb);
		if (!a)
			return 0;
		cnt_add(&o.fr->fself, &a->cself);
		cnt_add(&o.fr->ftot, &a->ctot);
		err = kids_move(l, &o.fr->kids, a->kids);
	}
	acc_free(l, e->acc);
	e->acc = LSA_NONE;
	return err;
}

/* Closes loop entry `ii` into its parent p. */
static int close_inst(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		      struct owner p)
{
	struct lsa_inst *in = &l->inst[ii];
	struct lsa_lrow *r = lsa_loops_lrow(t, in->loop);
	struct lsa_cnt tot = in->self;
	uint64_t trips = in->trips;
	uint32_t loop = in->loop;
	int err;

	if (!r)
		return -LS_ENOMEM;
	cnt_add(&tot, &in->tot);
	if (!r->entries || trips < r->tmin)
		r->tmin = trips;
	if (trips > r->tmax)
		r->tmax = trips;
	r->entries++;
	r->iterations += trips;
	cnt_add(&r->self, &in->self);
	/* entries of this loop nested in this entry (recursion) have added
	 * their totals already: count their instructions once */
	cnt_add(&r->total, &tot);
	cnt_sub(&r->total, &in->same);
	if (trips < l->o.trip_limit) {
		err = lsa_kmap_add(&t->trips, loop, trips, 1);
	} else {
		r->over_e++;
		r->over_s += trips;
		err = 0;
	}
	if (!err)
		err = tail_flush(t, in);
	inst_free(l, ii);
	if (err)
		return err;
	if (p.inst != LSA_NONE) {
		cnt_add(&l->inst[p.inst].tot, &tot);
		if (l->inst[p.inst].loop == loop)
			cnt_add(&l->inst[p.inst].same, &tot);
		return lsa_loops_edge_add(t, l->inst[p.inst].loop, loop, 1, tot.n[0]);
	}
	cnt_add(&p.fr->ftot, &tot);
	return kid_add(l, &p.fr->kids, loop, 1, &tot);
}

static int os_push(struct lsa_thr *t, uint32_t ii)
{
	if (LS_GROW32(t->os, t->nos + 1, t->capos, 64))
		return -LS_ENOMEM;
	t->os[t->nos++] = ii;
	return 0;
}

static struct owner os_top(struct lsa_thr *t, uint32_t bottom, struct owner base)
{
	struct owner o = base;

	if (t->nos > bottom)
		o.inst = t->os[t->nos - 1];
	return o;
}

static int os_pop(struct lsa_loops *l, struct lsa_thr *t, uint32_t bottom,
		  struct owner base)
{
	uint32_t ii = t->os[--t->nos];

	return close_inst(l, t, ii, os_top(t, bottom, base));
}

/* Is a known loop head, executed once under owner o, an entry of its own
 * loop?  Not when o's head lies in that loop's body: then both are one
 * cycle entered at another block. */
static int trip1(struct lsa_loops *l, struct owner o, uint32_t loop)
{
	return lsa_loops_entry_ok(l, loop, o.inst == LSA_NONE ? 0 :
				  l->inst[o.inst].loop + 1);
}

/* Accounts path entries [lo, npath) to base, then pops them.  Open loop
 * entries and known heads among them take the entries above that belong
 * to their bodies (a prefix); the rest goes to the owner below. */
static int scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo, struct owner base)
{
	uint32_t bottom = t->nos, i;
	int err = 0;

	for (i = lo; i < t->npath && !err; i++) {
		struct lsa_pent *e = &t->path[i];
		struct owner o;
		uint32_t ii;

		while (t->nos > bottom && !err &&
		       !lsa_loops_in_body(l, l->inst[t->os[t->nos - 1]].loop, e->sb->id))
			err = os_pop(l, t, bottom, base);
		if (err)
			break;
		o = os_top(t, bottom, base);
		if (e->inst != LSA_NONE) {
			ii = e->inst;
			e->inst = LSA_NONE;
		} else if (l->sbloop[e->sb->id] &&
			   trip1(l, o, l->sbloop[e->sb->id] - 1)) {
			err = lsa_loops_inst_new(l, l->sbloop[e->sb->id] - 1, &ii);
			if (err)
				break;
			l->inst[ii].trips = 1;
		} else {
			err = charge(l, t, o, e);
			continue;
		}
		err = os_push(t, ii);
		if (!err)
			err = charge(l, t, os_top(t, bottom, base), e);
	}
	while (!err && t->nos > bottom)
		err = os_pop(l, t, bottom, base);
	/* pop, restoring the membership table */
	while (t->npath > lo) {
		struct lsa_pent *e = &t->path[--t->npath];
		int e2 = mem_set(t, e->sb->id, e->prev);

		if (e->acc != LSA_NONE)
			acc_free(l, e->acc);
		if (e->inst != LSA_NONE)
			inst_free(l, e->inst);
		if (!err)
			err = e2;
	}
	t->nos = bottom;
	return err;
}

/* Control went back to path entry ti of the top frame: one iteration. */
static int loop_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti)
{
	struct lsa_pent *h = &t->path[ti];
	struct owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	struct lsa_inst *in;
	uint32_t loop, i, tail = t->psb ? t->psb->id : LSA_NONE, leaf = LSA_NONE;
	int err;

	l->st.loop_backs++;
	lsa_cm_abort(t);
	if (h->inst == LSA_NONE) {
		uint32_t ii;

		err = loop_of(l, h->sb, &loop);
		if (!err)
			err = lsa_loops_inst_new(l, loop, &ii);
		if (err)
			return err;
		h = &t->path[ti];
		h->inst = ii;
		l->inst[ii].trips = 1;
	}
	loop = l->inst[h->inst].loop;
	for (i = ti; i < t->npath; i++)
		if (body_add(l, loop, t->path[i].sb->id))
			return -LS_ENOMEM;
	/* an iteration the memo can take from now on: into its trie (after
	 * the head's loop is made and the bodies grown, as the scan sees
	 * them) */
	if (lsa_memo_fits(l, t, ti) && lsa_memo_add(l, t, ti, &leaf))
		return -LS_ENOMEM;
	o.inst = h->inst;
	err = scan(l, t, ti + 1, o);
	if (!err)
		err = charge(l, t, o, &t->path[ti]);
	if (err)
		return err;
	in = &l->inst[t->path[ti].inst];
	in->trips++;
	if (tail != in->tail) {
		err = tail_flush(t, in);
		in->tail = tail;
	}
	in->tail_run++;
	if (!err && leaf != LSA_NONE)
		lsa_memo_start(l, t, t->path[ti].inst, leaf);
	return err;
}

/* A non-local jump (longjmp) came back to entry xi of the top frame: not
 * an iteration, the path above it was abandoned. */
static int land(struct lsa_loops *l, struct lsa_thr *t, uint32_t xi)
{
	struct owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	int err;

	lsa_cm_abort(t);
	err = scan(l, t, xi + 1, o);

	if (err)
		return err;
	o.inst = t->path[xi].inst;	/* its earlier execution */
	return charge(l, t, o, &t->path[xi]);
}

/* ---- frames ---- */

static int frame_push(struct lsa_loops *l, struct lsa_thr *t, uint64_t ret,
		      uint32_t func, int async)
{
	struct lsa_frame *f;

	if (t->nfr >= LSA_MAX_FRAMES || async)
		lsa_cm_abort(t);
	if (t->nfr >= LSA_MAX_FRAMES) {
		t->deep++;
		return 0;
	}
	if (LS_GROW32(t->fr, t->nfr + 1, t->capfr, 64))
		return -LS_ENOMEM;
	f = &t->fr[t->nfr++];
	memset(f, 0, sizeof(*f));
	f->base = t->npath;
	f->func = f->cur = func;
	f->kids = LSA_NONE;
	f->ret = ret;
	f->start = t->insns;
	f->async = async;
	if (t->nfr > l->st.max_frames)
		l->st.max_frames = t->nfr;
	if (func != LSA_NONE) {
		struct lsa_frow *r = frow(t, func);

		if (!r)
			return -LS_ENOMEM;
		r->calls++;
		r->active++;
		if (t->cm.nrec) {
			lsa_cm_event(t, CE_CALLS, func, 0);
			lsa_cm_event(t, CE_OPEN, func, 0);
		}
	}
	return 0;
}

/* Inclusive instructions of function f: a span of the thread's
 * instructions opens when a frame enters f and closes when it leaves;
 * only the outermost open span of f counts (recursion once). */
static int span_open(struct lsa_thr *t, uint32_t f)
{
	struct lsa_frow *r;

	if (f == LSA_NONE)
		return 0;
	r = frow(t, f);
	if (!r)
		return -LS_ENOMEM;
	r->active++;
	if (t->cm.nrec)
		lsa_cm_event(t, CE_OPEN, f, 0);
	return 0;
}

static int span_close(struct lsa_thr *t, uint32_t f, uint64_t start)
{
	struct lsa_frow *r;

	if (f == LSA_NONE)
		return 0;
	r = frow(t, f);
	if (!r)
		return -LS_ENOMEM;
	if (r->active <= 1)
		r->total += t->insns - start;
	if (r->active)
		r->active--;
	if (t->cm.nrec)
		lsa_cm_event(t, CE_CLOSE, f, t->insns - start);
	return 0;
}

/* Whether the top frame, about to end, was a call the memo can take as
 * part of an iteration: a return to where it was called from, its blocks
 * all of the function called (no tail call), none heading a loop, no
 * call of its own, no loop entered.  Its blocks are then appended to
 * l->sq; returns their number (0: not such a frame, or no memory). */
static uint32_t leaf_call(struct lsa_loops *l, struct lsa_thr *t)
{
	const struct lsa_frame *f = &t->fr[t->nfr - 1];
	uint32_t n = t->npath - f->base, i;

	if (!l->memo || t->nfr < 2 || f->async || f->cur != f->func || !n ||
	    n > 64 || f->kids != LSA_NONE || f->ftot.n[0] || f->fself.n[0] ||
	    f->base <= t->fr[t->nfr - 2].base || !t->psb || t->pexit != LSD_EXIT_RET)
		return 0;
	for (i = f->base; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];

		if (e->acc != LSA_NONE || e->inst != LSA_NONE || l->sbloop[e->sb->id] ||
		    lsa_loops_func_of(l, e->sb) != f->func)
			return 0;
	}
	if (l->nsq + n > l->capsq) {
		uint32_t nc = l->capsq ? l->capsq * 2 : 1024;
		void *p;

		while (nc < l->nsq + n)
			nc *= 2;
		p = ls_reallocarray(l->sq, nc, sizeof(*l->sq));
		if (!p)
			return 0;
		l->sq = p;
		l->capsq = nc;
	}
	for (i = f->base; i < t->npath; i++)
		l->sq[l->nsq++] = t->path[i].sb;
	return n;
}

/* Ends the top frame: accounts its path and hands its frame level to the
 * entry that called it (or, for the outermost frame, to the thread). */
static int frame_pop(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	struct owner o = { LSA_NONE, f };
	uint32_t leaf;
	int err;

	if (t->deep) {
		t->deep--;
		return 0;
	}
	leaf = leaf_call(l, t);
	t->cm.leaf = leaf;
	err = scan(l, t, f->base, o);
	if (err)
		return err;
	f = &t->fr[t->nfr - 1];
	err = span_close(t, f->func, f->start);
	if (!err && f->cur != f->func)
		err = span_close(t, f->cur, f->cur_start);
	if (err)
		return err;
	if (t->nfr > 1 && f->base > t->fr[t->nfr - 2].base) {
		struct lsa_pent *c = &t->path[f->base - 1];
		struct lsa_acc *a;

		if (c->acc == LSA_NONE) {
			uint32_t ai;

			err = acc_new(l, &ai);
			if (err)
				return err;
			c = &t->path[f->base - 1];
			c->acc = ai;
		}
		f = &t->fr[t->nfr - 1];
		a = &l->acc[c->acc];
		/* the first frame the entry's call made, a leaf: its
		 * blocks, for the memo (anything more: not a leaf call) */
		if (leaf && !a->nsq && a->called && !a->cself.n[0] &&
		    a->kids == LSA_NONE && !a->ctot.n[0]) {
			a->sq = l->nsq - leaf;
			a->nsq = leaf;
			l->sqlive++;
		} else {
			l->nsq -= leaf;
			if (a->nsq) {
				a->nsq = 0;
				l->sqlive--;
			}
			if (!l->sqlive)
				l->nsq = 0;
		}
		cnt_add(&a->cself, &f->fself);
		cnt_add(&a->ctot, &f->ftot);
		err = kids_move(l, &l->acc[c->acc].kids, f->kids);
		t->nfr--;
		return err;
	}
	if (t->nfr > 1) {	/* no calling entry: to the frame below */
		struct lsa_frame *b = &t->fr[t->nfr - 2];

		l->nsq -= leaf;
		cnt_add(&b->fself, &f->fself);
		cnt_add(&b->ftot, &f->ftot);
		err = kids_move(l, &b->kids, f->kids);
		t->nfr--;
		return err;
	}
	/* the outermost frame: what is left is outside every loop */
	l->nsq -= leaf;
	cnt_add(&t->outside, &f->fself);
	for (uint32_t i = f->kids; i != LSA_NONE; i = l->kid[i].next) {
		err = lsa_loops_edge_add(t, LSA_NONE, l->kid[i].loop, l->kid[i].count,
			       l->kid[i].tot.n[0]);
		if (err)
			return err;
	}
	kids_free(l, f->kids);
	t->nfr--;
	return 0;
}

/* Closes every frame and opens a fresh outermost one. */
static int flush_all(struct lsa_loops *l, struct lsa_thr *t)
{
	int err = 0;

	lsa_cm_abort(t);
	t->deep = 0;
	while (t->nfr && !err)
		err = frame_pop(l, t);
	if (!err)
		err = frame_push(l, t, 0, LSA_NONE, 0);
	return err;
}

/* Pops frames until frame k is on top. */
static int unwind_to(struct lsa_loops *l, struct lsa_thr *t, uint32_t k)
{
	int err = 0;

	lsa_cm_abort(t);
	t->deep = 0;
	while (t->nfr > k + 1 && !err)
		err = frame_pop(l, t);
	return err;
}

/* The frame below the top whose return address is ip, or LSA_NONE. */
static uint32_t frame_by_ret(const struct lsa_thr *t, uint64_t ip)
{
	uint32_t k;

	for (k = t->nfr; k-- > 1;)
		if (t->fr[k].ret == ip)
			return k;
	return LSA_NONE;
}

/* Control left the previous block with exit x and reached sb. */
static int transfer(struct lsa_loops *l, struct lsa_thr *t, int x,
		    const struct lsd_sblock *sb)
{
	const struct lsd_sblock *p = t->psb;
	struct lsa_frame *top = &t->fr[t->nfr - 1];
	uint32_t k, tf;

	switch (x) {
	case LSD_EXIT_CALL:
	case LSD_EXIT_ICALL:
		tf = lsa_loops_func_of(l, sb);
		if (t->npath > top->base) {
			struct lsa_pent *c = &t->path[t->npath - 1];

			if (c->acc == LSA_NONE) {
				uint32_t ai;
				int err = acc_new(l, &ai);

				if (err)
					return err;
				c->acc = ai;
			}
			l->acc[c->acc].callee = tf;
			l->acc[c->acc].called = 1;
		}
		if (l->memo)
			lsa_cm_call(l, t, sb);
		return frame_push(l, t, p->end, tf, 0);
	case LSD_EXIT_RET:
		if (t->deep) {
			t->deep--;
			return 0;
		}
		if (t->nfr > 1 && top->ret == sb->start) {
			int err;

			k = t->nfr - 1;
			err = frame_pop(l, t);
			if (!err && t->cm.nrec)
				err = lsa_cm_return(l, t, k, t->cm.leaf);
			return err;
		}
		lsa_cm_abort(t);
		k = frame_by_ret(t, sb->start);
		if (k != LSA_NONE) {
			l->st.unwinds++;
			return unwind_to(l, t, k - 1);
		}
		if (top->async)
			return 0;	/* a handler returning to the restorer */
		/* after a hole in the trace a return may be owed to a call
		 * that was lost: no mismatch */
		if (!t->gaps)
			l->st.frame_mismatches++;
		if (t->nfr > 1)
			return frame_pop(l, t);
		return flush_all(l, t);	/* returned above the trace's start */
	case LSD_EXIT_FALL:
	case LSD_EXIT_COND_TAKEN:
	case LSD_EXIT_COND_NOT:
	case LSD_EXIT_JUMP:
	case LSD_EXIT_IJUMP:
		/* into another function: a (conditional) tail call, code
		 * falling into the next function, or a longjmp */
		tf = lsa_loops_func_of(l, sb);
		/* A frame entered at code no symbol covers (a PLT stub of
		 * a stripped library, whose jump leads to the function
		 * called): the block that follows makes tf its function
		 * (lsa_loops_block), with the call and the span it opens.
		 * Taking tf here as the one running, without a span, closed
		 * a span never opened, from the thread's first instruction. */
		if (top->cur == LSA_NONE || tf == LSA_NONE || tf == top->cur)
			return 0;
		/* into the middle of a function an older frame runs: longjmp
		 * or an exception's landing pad; to a function's entry: a
		 * tail call (PLT stubs, resolvers) */
		if (x == LSD_EXIT_IJUMP && sb->mod_off != l->funcs[tf].off)
			lsa_cm_abort(t);	/* decided by the frames below */
		if (x == LSD_EXIT_IJUMP && sb->mod_off != l->funcs[tf].off)
			for (k = t->nfr - 1; k-- > 0;)
				if (t->fr[k].cur == tf) {
					l->st.unwinds++;
					t->landing = 1;
					return unwind_to(l, t, k);
				}
		/* a tail call (PLT stubs too): tf's span opens, the
		 * previous tail callee's closes */
		if (top->cur != top->func &&
		    span_close(t, top->cur, top->cur_start))
			return -LS_ENOMEM;
		if (tf != top->func) {
			if (span_open(t, tf))
				return -LS_ENOMEM;
			frow(t, tf)->calls++;	/* span_open made the row */
			if (t->cm.nrec)
				lsa_cm_event(t, CE_CALLS, tf, 0);
		}
		top = &t->fr[t->nfr - 1];
		top->cur_start = t->insns;
		top->cur = tf;
		return 0;
	case LSD_EXIT_SYSCALL:
		if (sb->start == p->end)
			return 0;
		k = frame_by_ret(t, sb->start);	/* sigreturn */
		if (k != LSA_NONE && t->fr[k].async) {
			l->st.unwinds++;
			return unwind_to(l, t, k - 1);
		}
		/* elsewhere: a signal handler, run as the system call returns */
		return frame_push(l, t, p->end, lsa_loops_func_of(l, sb), 1);
	case LSD_EXIT_ASYNC: {
		/* where the interrupted code resumes: the decoder knows it
		 * (the FUP), else after the block */
		uint64_t resume = t->pnext ? t->pnext : p->end;

		if (sb->start == resume)
			return 0;	/* interrupted, resumed at once */
		return frame_push(l, t, resume, lsa_loops_func_of(l, sb), 1);
	}
	case LSD_EXIT_GAP:
	case LSD_EXIT_END:
		/* The trace has a hole (or tracing paused).  Where it goes on
		 * in the function the top frame runs, the frames stand: the
		 * block is a landing, no iteration.  Elsewhere, calls or
		 * returns were lost: every frame is closed and a new outermost
		 * one opened. */
		t->gaps++;
		lsa_cm_abort(t);
		tf = lsa_loops_func_of(l, sb);
		if (tf != LSA_NONE && tf == top->cur) {
			t->landing = 1;
			return 0;
		}
		l->st.resets++;
		return flush_all(l, t);
	default:
		return 0;
	}
}

static struct lsa_sref *sref_of(struct lsa_loops *l, size_t stream)
{
	if (stream >= l->nsref) {
		size_t n = stream + 8, i;
		struct lsa_sref *p = ls_reallocarray(l->sref, n, sizeof(*p));

		if (!p)
			return NULL;
		for (i = l->nsref; i < n; i++) {
			p[i].slot = LSA_NONE;
			p[i].cpu = 0;
		}
		l->sref = p;
		l->nsref = n;
	}
	return &l->sref[stream];
}

/* A new thread slot, zeroed.  Returns its index, or LSA_NONE. */
static uint32_t slot_new(struct lsa_loops *l, uint32_t pid, uint32_t tid)
{
	struct lsa_thr *t;

	if (LS_GROW(l->thr, l->nthr + 1, l->capthr, 8))
		return LSA_NONE;
	t = &l->thr[l->nthr];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return (uint32_t)l->nthr++;
}

int lsa_loops_stream_begin(struct lsa_loops *l, size_t stream, int cpu,
			   uint32_t pid, uint32_t tid)
{
	struct lsa_sref *r = sref_of(l, stream);

	if (!r)
		return -LS_ENOMEM;
	r->cpu = (uint8_t)!!cpu;
	r->slot = cpu ? LSA_NONE : slot_new(l, pid, tid);
	return cpu || r->slot != LSA_NONE ? 0 : -LS_ENOMEM;
}

int lsa_loops_set_thread(struct lsa_loops *l, size_t stream, uint32_t pid,
			 uint32_t tid)
{
	struct lsa_sref *r = sref_of(l, stream);
	size_t i;

	if (!r)
		return -LS_ENOMEM;
	if (!r->cpu) {
		struct lsa_thr *t = lsa_loops_slot(l, stream);

		if (!t)
			return -LS_ENOMEM;
		t->pid = pid;
		t->tid = tid;
		return 0;
	}
	/* Few threads, and this runs at switches only. */
	for (i = 0; i < l->nthr; i++)
		if (l->thr[i].shared && !l->thr[i].done &&
		    l->thr[i].pid == pid && l->thr[i].tid == tid)
			break;
	if (i == l->nthr) {
		if ((i = slot_new(l, pid, tid)) == LSA_NONE)
			return -LS_ENOMEM;
		l->thr[i].shared = 1;
	}
	r->slot = (uint32_t)i;
	return 0;
}

struct lsa_thr *lsa_loops_slot(struct lsa_loops *l, size_t stream)
{
	struct lsa_sref *r = sref_of(l, stream);

	if (!r)
		return NULL;
	if (r->slot == LSA_NONE) {
		/* Blocks before any thread was named: the stream's own. */
		if ((r->slot = slot_new(l, 0, 0)) == LSA_NONE)
			return NULL;
		l->thr[r->slot].shared = r->cpu;
	}
	return &l->thr[r->slot];
}

struct lsa_thr *lsa_loops_thread(struct lsa_loops *l, size_t stream)
{
	struct lsa_thr *t = lsa_loops_slot(l, stream);

	if (!t)
		return NULL;
	if (!t->used) {
		t->used = 1;
		if (frame_push(l, t, 0, LSA_NONE, 0))
			return NULL;
	}
	return t;
}

/* lsa_loops_block_one(); returns 1 (not 0) after a block that called. */
static int block_go(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsd_sblock *sb = b->sb;
	uint32_t idx, f;
	int err;

	if (!sb)
		return -LS_EINVAL;
	if (sb->id >= l->nsb && sb_grow(l, sb->id))
		return -LS_ENOMEM;
	l->st.blocks++;
	f = lsa_loops_func_of(l, sb);
	if (t->psb) {
		const struct lsa_frame *top = &t->fr[t->nfr - 1];

		/* between blocks of the function the frame runs no frame
		 * moves: transfer() would return at once */
		if (!(LSA_EXITS_LOCAL >> t->pexit & 1) ||
		    (top->cur != LSA_NONE && f != LSA_NONE && f != top->cur)) {
			err = transfer(l, t, t->pexit, sb);
			if (err)
				return err;
		}
	}
	if (t->fr[t->nfr - 1].cur == LSA_NONE) {
		/* a frame whose function was unknown: the one it runs */
		struct lsa_frame *top = &t->fr[t->nfr - 1];

		top->cur = f;
		if (top->func == LSA_NONE) {
			top->func = f;
			top->start = t->insns;
			if (span_open(t, f))
				return -LS_ENOMEM;
			/* called (not the thread's first frame): the call
			 * frame_push() could not count, its target unnamed */
			if (f != LSA_NONE && t->nfr > 1) {
				frow(t, f)->calls++;	/* span_open made the row */
				if (t->cm.nrec)
					lsa_cm_event(t, CE_CALLS, f, 0);
			}
		}
	}
	if (t->cm.nrec)
		lsa_cm_block(l, t, sb, t->pexit);
	t->insns += sb->ninsn;
	if (f != LSA_NONE) {
		struct lsa_frow *r = frow(t, f);

		if (!r)
			return -LS_ENOMEM;
		r->self += sb->ninsn;
	}
	idx = mem_get(t, sb->id);
	if (idx != LSA_NONE && idx >= t->fr[t->nfr - 1].base) {
		err = t->landing ? land(l, t, idx) : loop_back(l, t, idx);
	} else {
		err = lsa_loops_path_push(l, t, sb);
		/* a loop entered whose iterations the memo knows */
		if (!err && l->memo && l->sbloop[sb->id] && !t->memo.replay)
			lsa_memo_head(l, t);
	}
	t->psb = sb;
	t->pexit = b->exit;
	t->pnext = b->next;
	t->landing = 0;
	return err ? err : (unsigned)b->exit - LSD_EXIT_CALL < 2;
}

int lsa_loops_block_one(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_block *b)
{
	int err = block_go(l, t, b);

	return err > 0 ? 0 : err;
}

int lsa_loops_blocks(struct lsa_loops *l, size_t stream,
		     const struct lsd_block *b, size_t n)
{
	struct lsa_thr *t;
	size_t i = 0, slot;
	int err = 0, called;

	if (!l || (n && !b))
		return -LS_EINVAL;
	t = lsa_loops_thread(l, stream);
	if (!t)
		return -LS_ENOMEM;
	/* Threads share the loop and body tables: a memo checked against
	 * them stops before another thread may change them. */
	slot = (size_t)(t - l->thr) + 1;
	if (l->last != slot) {
		if (l->last && ((err = lsa_loops_memo_stop(l, &l->thr[l->last - 1])) ||
				(err = lsa_cm_stop(l, &l->thr[l->last - 1]))))
			return err;
		l->last = slot;
	}
	/* a call made: a call the memo recorded may begin */
	called = (unsigned)t->pexit - LSD_EXIT_CALL < 2;
	while (i < n && !err) {
		if (t->memo.on) {
			i = lsa_memo_run(t, b, i, n);
			if (t->memo.enter) {
				err = lsa_memo_enter(l, t);
				continue;
			}
			if (i == n)
				break;
			if ((err = lsa_loops_memo_stop(l, t)))
				break;
		}
		if (t->cm.on) {		/* a call the call memo matches */
			i = lsa_cm_run(l, t, b, i, n, &err);
			continue;
		}
		if (called && lsa_cm_begin(l, t, &b[i]))
			continue;
		err = block_go(l, t, &b[i++]);
		called = err > 0;
		if (called)
			err = 0;
	}
	return err;
}

int lsa_loops_block(struct lsa_loops *l, size_t stream, const struct lsd_block *b)
{
	return lsa_loops_blocks(l, stream, b, 1);
}

/* Closes thread t's frames and writes its rows into the profile. */
static int thread_end(struct lsa_loops *l, struct lsa_thr *t)
{
	int err = 0;

	if (!t->used || t->done)
		return 0;
	err = lsa_loops_memo_stop(l, t);
	if (!err)
		err = lsa_cm_stop(l, t);
	if (err)
		return err;
	t->deep = 0;
	while (t->nfr && !err)
		err = frame_pop(l, t);
	if (!err)
		err = lsa_loops_flush_thread(l, t);
	t->done = 1;
	lsa_thr_release(t);
	return err;
}

int lsa_loops_stream_end(struct lsa_loops *l, size_t stream)
{
	if (!l)
		return -LS_EINVAL;
	/* A per-CPU stream's threads may go on in another stream. */
	if (stream >= l->nsref || l->sref[stream].cpu ||
	    l->sref[stream].slot == LSA_NONE)
		return 0;
	return thread_end(l, &l->thr[l->sref[stream].slot]);
}

int lsa_loops_finish(struct lsa_loops *l)
{
	size_t i;
	int err = 0;

	if (!l)
		return -LS_EINVAL;
	for (i = 0; i < l->nthr && !err; i++)
		err = thread_end(l, &l->thr[i]);
	return err;
}

int lsa_loops_new(struct lsa_loops **pl, struct lsd_decoder *d,
		  struct lsb_reader *r, struct lsd_symbols *sym,
		  struct lsp_profile *p, uint32_t run,
		  const struct lsa_loops_opts *o)
{
	struct lsa_loops *l;

	if (!pl || !d || !r || !p || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -LS_ENOMEM;
	l->d = d;
	l->r = r;
	l->sym = sym;
	l->p = p;
	l->run = run;
	if (o)
		l->o = *o;
	if (!l->o.trip_limit)
		l->o.trip_limit = p->trip_limit ? p->trip_limit : LSP_TRIP_LIMIT;
	l->freeacc = l->freeinst = l->freekid = LSA_NONE;
	l->memo = !l->o.reference && !lsd_env_reference();
	*pl = l;
	return 0;
}

void lsa_loops_get_stats(const struct lsa_loops *l, struct lsa_loops_stats *st)
{
	if (l && st)
		*st = l->st;
}

void lsa_loops_free(struct lsa_loops *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nthr; i++)
		lsa_thr_release(&l->thr[i]);
	free(l->thr);
	free(l->sref);
	free(l->sbloop);
	free(l->sbfunc);
	free(l->sbbody);
	free(l->loops);
	free(l->funcs);
	free(l->modidx);
	lsa_kmap_release(&l->funcidx);
	lsa_kmap_release(&l->body);
	lsa_kmap_release(&l->falltail);
	free(l->acc);
	free(l->sq);
	free(l->inst);
	free(l->kid);
	free(l);
}
