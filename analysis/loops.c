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

int lsa_loops_acc_new(struct lsa_loops *l, uint32_t *out)
{
	uint32_t i;

	POOL_ALLOC(l, acc, nacc, capacc, freeacc, i);
	memset(&l->acc[i], 0, sizeof(l->acc[i]));
	l->acc[i].kids = LSA_NONE;
	l->acc[i].callee = LSA_NONE;
	*out = i;
	return 0;
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
			lsa_cnt_add(&l->kid[i].tot, tot);
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

void lsa_loops_kids_free(struct lsa_loops *l, uint32_t i)
{
	while (i != LSA_NONE) {
		uint32_t next = l->kid[i].next;

		l->kid[i].next = l->freekid;
		l->freekid = i;
		i = next;
	}
}

/* Moves list src into list *dst. */
int lsa_loops_kids_move(struct lsa_loops *l, uint32_t *dst, uint32_t src)
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

/* Grows two tables by static block id, a and b of *n entries, to hold
 * id, the new entries 0.  Returns 0 or -LS_ENOMEM. */
static int grow_by_id(uint32_t **a, uint32_t **b, size_t *n, uint32_t id)
{
	size_t m = (size_t)id + 1, i;
	uint32_t *x, *y;

	m = m < 1024 ? 1024 : m + m / 2;
	x = ls_reallocarray(*a, m, sizeof(*x));
	if (!x)
		return -LS_ENOMEM;
	*a = x;
	y = ls_reallocarray(*b, m, sizeof(*y));
	if (!y)
		return -LS_ENOMEM;
	*b = y;
	for (i = *n; i < m; i++)
		x[i] = y[i] = 0;
	*n = m;
	return 0;
}

/* By the ids met, not lsd_nsblocks(): the decoder may be adding blocks
 * on another thread (lsd_decode_all_piped). */
static int sb_grow(struct lsa_loops *l, uint32_t id)
{
	size_t m = (size_t)id + 1;
	struct lsa_cnt *c;

	/* as grow_by_id() sizes the others */
	m = m < 1024 ? 1024 : m + m / 2;
	c = ls_reallocarray(l->sbc, m, sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	l->sbc = c;
	memset(c + l->nsb, 0, (m - l->nsb) * sizeof(*c));
	return grow_by_id(&l->sbloop, &l->sbfunc, &l->nsb, id);
}

/* The same for thread t's own tables. */
static int know_grow(struct lsa_thr *t, uint32_t id)
{
	size_t m = (size_t)id + 1, n = t->nk;
	uint32_t *p;

	m = m < 1024 ? 1024 : m + m / 2;	/* as grow_by_id() */
	p = ls_reallocarray(t->inb2, m, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	t->inb2 = p;
	memset(p + n, 0, (m - n) * sizeof(*p));
	return grow_by_id(&t->head, &t->inb, &t->nk, id);
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

/* The loop headed by sb (numbered when new), known to thread t from now
 * on: t's memos holding sb go stale. */
static int loop_of(struct lsa_loops *l, struct lsa_thr *t,
		   const struct lsd_sblock *sb, uint32_t *out)
{
	uint32_t loop;

	if (!l->sbloop[sb->id]) {
		if (LS_GROW32(l->loops, l->nloops + 1, l->caploops, 256))
			return -LS_ENOMEM;
		l->loops[l->nloops].head = sb;
		l->loops[l->nloops].func = lsa_loops_func_of(l, sb);
		l->loops[l->nloops].pidx = LSA_NONE;
		l->sbloop[sb->id] = ++l->nloops;
	}
	loop = l->sbloop[sb->id] - 1;
	if (!t->head[sb->id]) {
		if (loop >= t->nnbody) {
			uint32_t n = t->nnbody;

			if (LS_GROW32(t->nbody, loop + 1, t->nnbody, 64))
				return -LS_ENOMEM;
			memset(t->nbody + n, 0, (t->nnbody - n) * sizeof(*t->nbody));
		}
		t->head[sb->id] = loop + 1;
		lsa_memo_new_head(&t->memo, sb->id);
		lsa_cm_new_head(&t->cm, sb->id);
	}
	*out = loop;
	return 0;
}

/* The cache of the last two loops a block was found in (inb, inb2): a
 * block of a nested loop is asked about its own loop and the one around
 * it in turn, and bodies only grow, so what it holds stays true. */
static void inb_note(struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	t->inb2[sbid] = t->inb[sbid];
	t->inb[sbid] = loop + 1;
}

int lsa_loops_in_body(const struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	return (sbid < t->nk && (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)) ||
	       lsa_kmap_find(&t->body, loop, sbid) != NULL;
}

/* lsa_loops_in_body() for the scan, noting a hit in the cache. */
static int in_body(struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	if (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)
		return 1;
	if (!lsa_kmap_find(&t->body, loop, sbid))
		return 0;
	inb_note(t, loop, sbid);
	return 1;
}

/* Notes that block sbid ran in an iteration of loop in thread t. */
static int body_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
		    uint32_t sbid)
{
	size_t n = t->body.n;

	if (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)
		return 0;
	if (!lsa_kmap_get(&t->body, loop, sbid))
		return -LS_ENOMEM;
	if (t->body.n != n) {
		t->nbody[loop]++;
		if (!lsa_kmap_get(&l->body, loop, sbid))
			return -LS_ENOMEM;
	}
	inb_note(t, loop, sbid);
	return 0;
}

int lsa_loops_entry_ok(const struct lsa_loops *l, const struct lsa_thr *t,
		       uint32_t loop, uint32_t owner)
{
	return !owner || !lsa_loops_in_body(t, loop, l->loops[owner - 1].head->id);
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

struct lsa_frow *lsa_loops_frow_grow(struct lsa_thr *t, uint32_t func)
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

static int mem_grow(struct lsa_thr *t, uint32_t k)
{
	size_t n = (size_t)k + 1 < 1024 ? 1024 : ((size_t)k + 1) * 3 / 2;
	uint32_t *p = ls_reallocarray(t->mem, n, sizeof(*p));

	if (!p)
		return -LS_ENOMEM;
	memset(p + t->nmem, 0xff, (n - t->nmem) * sizeof(*p));
	t->mem = p;
	t->nmem = n;
	return 0;
}

/* (Twice a block on the per-block path: the grow out of line.) */
static inline int mem_set(struct lsa_thr *t, uint32_t k, uint32_t v)
{
	if (k >= t->nmem) {
		if (v == LSA_NONE)
			return 0;
		if (mem_grow(t, k))
			return -LS_ENOMEM;
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
	if ((!t->pre[id] || !t->preo[id]) && k <= UINT32_MAX - t->pre[id]) {
		t->pre[id] += (uint32_t)k;
		t->preo[id] = 0;
		return 0;
	}
	return lsa_kmap_add(&t->pre_more, id, 0, k) ? -LS_ENOMEM : 0;
}

/* Charges one execution of entry e (its block and its calls) to o. */
static int charge(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
		  struct lsa_pent *e)
{
	struct lsa_acc *a = e->acc != LSA_NONE ? &l->acc[e->acc] : NULL;
	int err = 0;

	/* A block that is no loop head yet, run once here: if it turns out
	 * to head a loop, this was an entry of trip count 1 (counted when
	 * the thread ends; see lsa_loops_flush_thread). */
	if (!t->head[e->sb->id] && e->inst == LSA_NONE) {
		uint32_t id = e->sb->id, own = o.inst == LSA_NONE ? 0 :
			      l->inst[o.inst].loop + 1;

		if (id >= t->npre && pre_grow(l, t, id))
			return -LS_ENOMEM;
		/* (past 32 bits a block's count goes on in pre_more) */
		if ((!t->pre[id] || t->preo[id] == own) && t->pre[id] != UINT32_MAX) {
			t->pre[id]++;
			t->preo[id] = own;
		} else if (lsa_kmap_add(&t->pre_more, id, own, 1)) {
			return -LS_ENOMEM;
		}
	}
	if (o.inst != LSA_NONE) {
		struct lsa_inst *in = &l->inst[o.inst];
		uint32_t loop = in->loop, i;

		lsa_cnt_sb(&in->self, l, e->sb);
		if (!a)
			return 0;
		lsa_cnt_add(&in->self, &a->cself);
		lsa_cnt_add(&in->tot, &a->ctot);
		if (a->called)
			err = lsa_kmap_add(&t->calls, (uint64_t)loop << 32 | a->callee,
				       e->sb->id, 1);
		for (i = a->kids; !err && i != LSA_NONE; i = l->kid[i].next) {
			if (l->kid[i].loop == loop)
				lsa_cnt_add(&in->same, &l->kid[i].tot);
			err = lsa_loops_edge_add(t, loop, l->kid[i].loop, l->kid[i].count,
				       l->kid[i].tot.n[0]);
		}
		lsa_loops_kids_free(l, a->kids);
	} else {
		lsa_cnt_sb(&o.fr->fself, l, e->sb);
		if (!a)
			return 0;
		lsa_cnt_add(&o.fr->fself, &a->cself);
		lsa_cnt_add(&o.fr->ftot, &a->ctot);
		err = lsa_loops_kids_move(l, &o.fr->kids, a->kids);
	}
	acc_free(l, e->acc);
	e->acc = LSA_NONE;
	return err;
}

/* Closes loop entry `ii` into its parent p. */
static int close_inst(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		      struct lsa_owner p)
{
	struct lsa_inst *in = &l->inst[ii];
	struct lsa_lrow *r = lsa_loops_lrow(t, in->loop);
	struct lsa_cnt tot = in->self;
	uint64_t trips = in->trips;
	uint32_t loop = in->loop;
	int err;

	if (!r)
		return -LS_ENOMEM;
	lsa_cnt_add(&tot, &in->tot);
	if (!r->entries || trips < r->tmin)
		r->tmin = trips;
	if (trips > r->tmax)
		r->tmax = trips;
	r->entries++;
	r->iterations += trips;
	lsa_cnt_add(&r->self, &in->self);
	/* entries of this loop nested in this entry (recursion) have added
	 * their totals already: count their instructions once */
	lsa_cnt_add(&r->total, &tot);
	lsa_cnt_sub(&r->total, &in->same);
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
		lsa_cnt_add(&l->inst[p.inst].tot, &tot);
		if (l->inst[p.inst].loop == loop)
			lsa_cnt_add(&l->inst[p.inst].same, &tot);
		return lsa_loops_edge_add(t, l->inst[p.inst].loop, loop, 1, tot.n[0]);
	}
	lsa_cnt_add(&p.fr->ftot, &tot);
	return kid_add(l, &p.fr->kids, loop, 1, &tot);
}

static int os_push(struct lsa_thr *t, uint32_t ii)
{
	if (LS_GROW32(t->os, t->nos + 1, t->capos, 64))
		return -LS_ENOMEM;
	t->os[t->nos++] = ii;
	return 0;
}

static struct lsa_owner os_top(struct lsa_thr *t, uint32_t bottom, struct lsa_owner base)
{
	struct lsa_owner o = base;

	if (t->nos > bottom)
		o.inst = t->os[t->nos - 1];
	return o;
}

static int os_pop(struct lsa_loops *l, struct lsa_thr *t, uint32_t bottom,
		  struct lsa_owner base)
{
	uint32_t ii = t->os[--t->nos];

	return close_inst(l, t, ii, os_top(t, bottom, base));
}

/* Is a known loop head, executed once under owner o, an entry of its own
 * loop?  Not when o's head lies in that loop's body: then both are one
 * cycle entered at another block. */
static int trip1(struct lsa_loops *l, const struct lsa_thr *t, struct lsa_owner o,
		 uint32_t loop)
{
	return lsa_loops_entry_ok(l, t, loop, o.inst == LSA_NONE ? 0 :
				  l->inst[o.inst].loop + 1);
}

/* Accounts path entries [lo, npath) to base, then pops them.  Open loop
 * entries and known heads among them take the entries above that belong
 * to their bodies (a prefix); the rest goes to the owner below. */
int lsa_loops_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo, struct lsa_owner base)
{
	uint32_t bottom = t->nos, i;
	int err = 0;

	for (i = lo; i < t->npath && !err; i++) {
		struct lsa_pent *e = &t->path[i];
		struct lsa_owner o;
		uint32_t ii;

		while (t->nos > bottom && !err &&
		       !in_body(t, l->inst[t->os[t->nos - 1]].loop, e->sb->id))
			err = os_pop(l, t, bottom, base);
		if (err)
			break;
		o = os_top(t, bottom, base);
		if (e->inst != LSA_NONE) {
			ii = e->inst;
			e->inst = LSA_NONE;
		} else if (t->head[e->sb->id] &&
			   trip1(l, t, o, t->head[e->sb->id] - 1)) {
			err = lsa_loops_inst_new(l, t->head[e->sb->id] - 1, &ii);
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
	struct lsa_owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	struct lsa_inst *in;
	uint32_t loop, i, tail = t->psb ? t->psb->id : LSA_NONE, leaf = LSA_NONE;
	int err;

	l->st.loop_backs++;
	lsa_cm_abort(t);
	if (h->inst == LSA_NONE) {
		uint32_t ii;

		err = loop_of(l, t, h->sb, &loop);
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
		if (body_add(l, t, loop, t->path[i].sb->id))
			return -LS_ENOMEM;
	/* an iteration the memo can take from now on: into its trie (after
	 * the head's loop is made and the bodies grown, as the scan sees
	 * them) */
	if (lsa_memo_fits(l, t, ti) && lsa_memo_add(l, t, ti, &leaf))
		return -LS_ENOMEM;
	o.inst = h->inst;
	err = lsa_loops_scan(l, t, ti + 1, o);
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
	struct lsa_owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	int err;

	lsa_cm_abort(t);
	err = lsa_loops_scan(l, t, xi + 1, o);

	if (err)
		return err;
	o.inst = t->path[xi].inst;	/* its earlier execution */
	return charge(l, t, o, &t->path[xi]);
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
		if (lsa_loops_frame_push(l, t, 0, LSA_NONE, 0))
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
	if ((sb->id >= l->nsb && sb_grow(l, sb->id)) ||
	    (sb->id >= t->nk && know_grow(t, sb->id)))
		return -LS_ENOMEM;
	l->st.blocks++;
	if (!l->sbc[sb->id].n[0]) {	/* first seen (a block has instructions) */
		int k;

		l->sbc[sb->id].n[0] = sb->ninsn;
		for (k = 0; k < LSP_NCLASS; k++)
			l->sbc[sb->id].n[1 + k] = sb->iclass[k];
	}
	f = lsa_loops_func_of(l, sb);
	if (t->psb) {
		const struct lsa_frame *top = &t->fr[t->nfr - 1];

		/* between blocks of the function the frame runs no frame
		 * moves: transfer() would return at once */
		if (!(LSA_EXITS_LOCAL >> t->pexit & 1) ||
		    (top->cur != LSA_NONE && f != LSA_NONE && f != top->cur)) {
			err = lsa_loops_transfer(l, t, t->pexit, sb);
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
			if (lsa_loops_span_open(t, f))
				return -LS_ENOMEM;
			/* called (not the thread's first frame): the call
			 * frame_push() could not count, its target unnamed */
			if (f != LSA_NONE && t->nfr > 1) {
				lsa_loops_frow(t, f)->calls++;	/* span_open made the row */
				if (t->cm.nrec)
					lsa_cm_event(t, CE_CALLS, f, 0);
			}
		}
	}
	if (t->cm.nrec)
		lsa_cm_block(t, sb, t->pexit);
	t->insns += sb->ninsn;
	if (f != LSA_NONE) {
		struct lsa_frow *r = lsa_loops_frow(t, f);

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
		if (!err && l->memo && t->head[sb->id] && !t->memo.replay)
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
		if (called && lsa_cm_begin(t, &b[i]))
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
		err = lsa_loops_frame_pop(l, t);
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
	free(l->sbc);
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
