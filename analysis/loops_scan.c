/* loops_scan.c - the loop detector's accounting: what a scan of a frame's
 * path charges to whom (LoopProf's path walk), the loop entries it opens
 * and closes, and the pools of entries, call contributions and child
 * loops it works with (loops.c keeps the paths and finds the loops). */
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
	struct lsa_acc *a;
	uint32_t i;
	int k;

	POOL_ALLOC(l, acc, nacc, capacc, freeacc, i);
	/* field by field, as lsa_loops_inst_new() */
	a = &l->acc[i];
	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		a->cself.n[k] = a->ctot.n[k] = 0;
	a->kids = LSA_NONE;
	a->callee = LSA_NONE;
	a->called = 0;
	a->next = a->sq = a->nsq = 0;
	*out = i;
	return 0;
}

void lsa_loops_acc_free(struct lsa_loops *l, uint32_t i)
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
	struct lsa_inst *in;
	int k;

	POOL_ALLOC(l, inst, ninst, capinst, freeinst, i);
	/* field by field: a memset of the whole was a `rep stos`, whose
	 * start-up cost more than the stores (one per loop entry, one per
	 * path entry that calls) */
	in = &l->inst[i];
	in->loop = loop;
	in->tail = LSA_NONE;
	in->tail_run = in->trips = 0;
	in->next = 0;
	in->pidx = LSA_NONE;
	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		in->self.n[k] = in->tot.n[k] = in->same.n[k] = 0;
	*out = i;
	return 0;
}

void lsa_loops_inst_free(struct lsa_loops *l, uint32_t i)
{
	l->inst[i].next = l->freeinst;
	l->freeinst = i;
}

/* Adds (loop, count, total) to the kid list *head (merging same loops).
 * tot may be a kid's own (lsa_loops_kids_move): copied before the pool
 * can move. */
static int kid_add(struct lsa_loops *l, uint32_t *head, uint32_t loop,
		   uint64_t count, const struct lsa_cnt *tot)
{
	struct lsa_cnt c = *tot;
	uint32_t i;

	for (i = *head; i != LSA_NONE; i = l->kid[i].next)
		if (l->kid[i].loop == loop) {
			l->kid[i].count += count;
			lsa_cnt_add(&l->kid[i].tot, &c);
			return 0;
		}
	POOL_ALLOC(l, kid, nkid, capkid, freekid, i);
	l->kid[i].loop = loop;
	l->kid[i].count = count;
	l->kid[i].tot = c;
	l->kid[i].next = *head;
	*head = i;
	return 0;
}

int lsa_loops_kid_add(struct lsa_loops *l, uint32_t *head, uint32_t loop,
		      uint64_t count, const struct lsa_cnt *tot)
{
	return kid_add(l, head, loop, count, tot);
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
	/* into an empty list: the list itself (its loops are distinct; what
	 * a list holds is summed, in no order) */
	if (*dst == LSA_NONE) {
		*dst = src;
		return 0;
	}
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

int lsa_loops_pre_add_slow(struct lsa_loops *l, struct lsa_thr *t, uint32_t id,
			   uint32_t own, uint64_t k)
{
	if (id >= t->npre && pre_grow(l, t, id))
		return -LS_ENOMEM;
	if ((!t->pre[id] || t->preo[id] == own) && k <= UINT32_MAX - t->pre[id]) {
		t->pre[id] += (uint32_t)k;
		t->preo[id] = own;
		return 0;
	}
	return lsa_loops_more_add(t, id, own, k);
}

int lsa_loops_more_add_slow(struct lsa_thr *t, uint32_t id, uint32_t own, uint64_t k)
{
	struct lsa_pmc *c;

	/* (a count of 0 still makes its key: as the map alone did) */
	if (!k)
		return lsa_kmap_add(&t->pre_more, id, own, k) ? -LS_ENOMEM : 0;
	if (!t->pmc && !(t->pmc = calloc((size_t)1 << LSA_PMC_LOG, sizeof(*t->pmc))))
		return -LS_ENOMEM;
	c = &t->pmc[lsa_loops_pmc_slot(id, own)];
	if (c->k && (c->id != id || c->own != own)) {
		if (lsa_kmap_add(&t->pre_more, c->id, c->own, c->k))
			return -LS_ENOMEM;
		c->k = 0;
	}
	if (!c->k) {
		c->id = id;
		c->own = own;
	}
	c->k += k;
	return 0;
}

int lsa_loops_more_put(struct lsa_thr *t)
{
	size_t i;

	for (i = 0; t->pmc && i < (size_t)1 << LSA_PMC_LOG; i++)
		if (t->pmc[i].k) {
			if (lsa_kmap_add(&t->pre_more, t->pmc[i].id, t->pmc[i].own,
					 t->pmc[i].k))
				return -LS_ENOMEM;
			t->pmc[i].k = 0;
		}
	return 0;
}

/* charge() of an entry that made calls: what they contributed (struct
 * lsa_acc) goes to o, and the entry's contribution is freed. */
static int charge_acc(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
		      struct lsa_pent *e)
{
	const struct lsa_acc *a = &l->acc[e->acc];
	int err = lsa_loops_give(l, t, o, &a->cself, &a->ctot, a->kids, a->called, a->callee,
				 e->sb->id);

	lsa_loops_acc_free(l, e->acc);
	e->acc = LSA_NONE;
	return err;
}

/* What charge() does besides the counts, by the pass: a joiner of
 * pieces charges what the entries held before the cut alone; a single
 * pass keeps run-once counts; a pass that knows neither. */
enum { CH_KNOW, CH_ONCE, CH_JOIN };

static inline int charge_mode(const struct lsa_loops *l)
{
	return l->pre ? CH_JOIN : lsa_loops_pre_on(l) ? CH_ONCE : CH_KNOW;
}

/* Charges one execution of entry e (its block and its calls) to o, in
 * charge_mode(l) (the scan reads it once: its stores keep the compiler
 * from keeping l's fields in registers).  Inline, the common case alone
 * (a block that made no call, its run-once count in place): the scan
 * does this for every entry.  always_inline: with three callers GCC
 * calls it, which cost xz's analysis 3% more Ir. */
static inline __attribute__((always_inline)) int
charge(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
       struct lsa_pent *e, int mode)
{
	if (__builtin_expect(mode == CH_JOIN, 0))
		return e->acc == LSA_NONE ? 0 : charge_acc(l, t, o, e);
	/* A block that is no loop head yet, run once here: if it turns out
	 * to head a loop, this was an entry of trip count 1 (a single
	 * pass's count: asked first, so that a pass that knows reads
	 * nothing for it) */
	if (mode == CH_ONCE && !t->head[e->sb->id] && e->inst == LSA_NONE) {
		int err = lsa_loops_pre_add(l, t, e->sb->id, o.inst == LSA_NONE ? 0 :
					    l->inst[o.inst].loop + 1, 1);

		if (err)
			return err;
	}
	if (o.inst != LSA_NONE)
		lsa_cnt_sb(&l->inst[o.inst].self, l, e->sb);
	else
		lsa_cnt_sb(&o.fr->fself, l, e->sb);
	return e->acc == LSA_NONE ? 0 : charge_acc(l, t, o, e);
}

int lsa_loops_charge(struct lsa_loops *l, struct lsa_thr *t, struct lsa_owner o,
		     struct lsa_pent *e)
{
	return charge(l, t, o, e, charge_mode(l));
}

/* Closes loop entry `ii` into its parent p. */
static int close_inst(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		      struct lsa_owner p)
{
	struct lsa_inst *in = &l->inst[ii];
	struct lsa_lrow *r;
	struct lsa_cnt tot = in->self;
	uint64_t trips = in->trips;
	uint32_t loop = in->loop;
	int err;

	r = lsa_loops_lrow(t, in->loop);
	if (!r)
		return -LS_ENOMEM;
	/* (a count with no instructions is all 0: a block has one, and an
	 * innermost entry has no nested totals, most have no recursion) */
	if (in->tot.n[0])
		lsa_cnt_add(&tot, &in->tot);
	/* (a joiner of pieces: the sums alone; the worker that saw the
	 * entry end counted it, with its trips) */
	err = l->pre ? 0 : lsa_loops_entries_add(l, t, r, loop, trips, 1);
	lsa_cnt_add(&r->self, &in->self);
	/* entries of this loop nested in this entry (recursion) have added
	 * their totals already: count their instructions once */
	lsa_cnt_add(&r->total, &tot);
	if (in->same.n[0])
		lsa_cnt_sub(&r->total, &in->same);
	if (!err && !l->pre)
		err = lsa_loops_tail_flush(t, in);
	if (in->pidx != LSA_NONE)	/* (the eager pass's: its head stays) */
		t->path[in->pidx].ei = LSA_NONE;
	lsa_loops_inst_free(l, ii);
	if (err)
		return err;
	return lsa_loops_owner_take(l, t, p.inst != LSA_NONE ? &l->inst[p.inst] : NULL, p.fr,
				    loop, !l->pre, &tot);
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

/* Pops path entries [lo, npath), restoring their blocks' membership and
 * freeing what they hold, nothing charged.  (Entries of one frame: each
 * block is on them once, so the order does not matter.) */
void lsa_loops_drop(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo)
{
	uint32_t i;

	for (i = lo; i < t->npath; i++) {
		struct lsa_pent *e = &t->path[i];

		t->mem[e->sb->id] = e->prev;
		if (e->acc != LSA_NONE && !l->learn)	/* (a callee there) */
			lsa_loops_acc_free(l, e->acc);
		if (e->inst != LSA_NONE)
			lsa_loops_inst_free(l, e->inst);
	}
	t->npath = lo;
	if (t->sn && lo < t->sn->snp)	/* a piece's: the cut's entries left */
		t->sn->snp = lo;
}

/* Accounts path entries [lo, npath) to base, then pops them.  Open loop
 * entries and known heads among them take the entries above that belong
 * to their bodies (a prefix); the rest goes to the owner below.  The
 * entries are of one frame, so each block is on them once: its
 * membership is restored as it is met (nothing the scan asks reads it),
 * not in a second pass. */
int lsa_loops_close(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		     struct lsa_owner p)
{
	return close_inst(l, t, ii, p);
}

int lsa_loops_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo, struct lsa_owner base)
{
	return lsa_loops_scan_b(l, t, lo, base, t->nos);
}

int lsa_loops_scan_b(struct lsa_loops *l, struct lsa_thr *t, uint32_t lo,
		     struct lsa_owner base, uint32_t bottom)
{
	uint32_t i;
	const int mode = charge_mode(l);
	int err = 0;

	if (l->learn) {		/* nothing charged: the entries popped */
		lsa_loops_drop(l, t, lo);
		return 0;
	}
	for (i = lo; i < t->npath && !err; i++) {
		struct lsa_pent *e = &t->path[i];
		struct lsa_owner o;
		uint32_t ii;

		/* (pushed: its block is in the table, no grow) */
		t->mem[e->sb->id] = e->prev;
		while (t->nos > bottom && !err &&
		       !lsa_loops_in_body_note(t, l->inst[t->os[t->nos - 1]].loop, e->sb->id))
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
			err = charge(l, t, o, e, mode);
			continue;
		}
		err = os_push(t, ii);
		if (!err)
			err = charge(l, t, os_top(t, bottom, base), e, mode);
	}
	while (!err && t->nos > bottom)
		err = os_pop(l, t, bottom, base);
	/* stopped by an error: every entry popped, what they hold freed */
	if (err)
		lsa_loops_drop(l, t, lo);
	t->npath = lo;
	t->nos = bottom;
	if (t->sn && lo < t->sn->snp)	/* a piece's: the cut's entries left */
		t->sn->snp = lo;
	if (t->sn && bottom < t->sn->sno)
		t->sn->sno = bottom;
	return err;
}
