/* loops_rows.h - a thread's rows (struct lsa_lrow, lsa_frow) and what
 * adds to them: the loops' entries, trips, tails, edges and calls, the
 * functions' instructions, the counts of blocks run before they were
 * known as heads.  Part of loops_int.h, which includes it where the
 * thread's state is defined; internal to analysis/. */
#ifndef LSA_LOOPS_ROWS_H
#define LSA_LOOPS_ROWS_H

/* lsa_loops_lrow() where the rows must grow. */
struct lsa_lrow *lsa_loops_lrow_grow(struct lsa_thr *t, uint32_t loop);
/* Thread t's row of loop, grown when new; NULL: out of memory. */
static inline struct lsa_lrow *lsa_loops_lrow(struct lsa_thr *t, uint32_t loop)
{
	return loop < t->nlr ? &t->lr[loop] : lsa_loops_lrow_grow(t, loop);
}
/* lsa_loops_edge_add() of an edge other than child's last. */
int lsa_loops_edge_add_slow(struct lsa_thr *t, uint32_t parent, uint32_t child,
			    uint64_t count, uint64_t total);
/* Adds count entries of child under parent (LSA_NONE: none) with total
 * instructions to t's loop call graph.  Inline: a loop is mostly entered
 * from one parent, whose edge its row keeps.  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_edge_add(struct lsa_thr *t, uint32_t parent, uint32_t child,
				     uint64_t count, uint64_t total)
{
	/* (parents are loops: fewer than LSA_NONE of them) */
	uint32_t a = parent == LSA_NONE ? 0 : parent + 1;
	struct lsa_lrow *r = child < t->nlr ? &t->lr[child] : NULL;

	if (!r || !r->erow || r->epar != a)
		return lsa_loops_edge_add_slow(t, parent, child, count, total);
	t->erows[r->erow - 1].count += count;
	t->erows[r->erow - 1].total += total;
	return 0;
}

/* a += b, counter by counter. */
static inline void lsa_cnt_add(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	LSA_UNROLL
	for (k = 0; k < LSA_NC; k++)
		a->n[k] += b->n[k];
}

/* a -= b, counter by counter. */
static inline void lsa_cnt_sub(struct lsa_cnt *a, const struct lsa_cnt *b)
{
	int k;

	for (k = 0; k < LSA_NC; k++)
		a->n[k] -= b->n[k];
}

/* Grows t's function rows to hold func; NULL: out of memory. */
struct lsa_frow *lsa_loops_frow_grow(struct lsa_thr *t, uint32_t func);

/* Thread t's row of function func, grown when new; NULL: out of memory.
 * Inline: a block of a named function takes one per block. */
static inline struct lsa_frow *lsa_loops_frow(struct lsa_thr *t, uint32_t func)
{
	return func < t->nfw ? &t->fw[func] : lsa_loops_frow_grow(t, func);
}

/* Adds k entries of trip count trips (below the trip limit) of loop to
 * t's histogram.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_trip_add(struct lsa_thr *t, uint32_t loop, uint64_t trips, uint64_t k);
/* Counts k entries of trip count trips of loop in its row r of thread t:
 * entries, iterations, the least and greatest trip count, and the
 * histogram (or, from the trip limit on, its overflow).  What closing an
 * entry counts besides its instructions.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_entries_add(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_lrow *r,
			  uint32_t loop, uint64_t trips, uint64_t k);
/* k entries of trip count trips in row r: entries, iterations, the
 * least and greatest trip count (lsa_loops_entries_add()'s first step). */
static inline void lsa_lrow_entries(struct lsa_lrow *r, uint64_t trips, uint64_t k)
{
	if (!r->entries || trips < r->tmin)
		r->tmin = trips;
	if (trips > r->tmax)
		r->tmax = trips;
	r->entries += k;
	r->iterations += k * trips;
}
/* lsa_loops_entries_add() of one entry.  Inline where its count goes to
 * a bin of the row (every close of the eager pass comes here: 3.4M
 * times on 300 KB of xz's text).  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_entry_add(const struct lsa_loops *l, struct lsa_thr *t,
				      struct lsa_lrow *r, uint32_t loop, uint64_t trips)
{
	if (trips >= LSA_TSMALL || trips >= l->o.trip_limit)
		return lsa_loops_entries_add(l, t, r, loop, trips, 1);
	lsa_lrow_entries(r, trips, 1);
	r->tsm[trips]++;
	return 0;
}
/* Adds k iterations of loop whose back branch was block tail.  Returns 0
 * or -LS_ENOMEM. */
int lsa_loops_tail_add(struct lsa_thr *t, uint32_t loop, uint32_t tail, uint64_t k);

/* Entry in's run of iterations back from one block (its tail) goes to
 * its loop's tails (lsa_loops_tail_add()), and the run ends.  Inline:
 * most runs are the row's current one, added in place (every close and
 * every change of back branch comes here: 1.9M times per 200 KB of
 * base64 xz).  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_tail_flush(struct lsa_thr *t, struct lsa_inst *in)
{
	int err = 0;

	if (in->tail != LSA_NONE && in->tail_run) {
		if (in->loop < t->nlr && t->lr[in->loop].ctail == in->tail + 1)
			t->lr[in->loop].crun += in->tail_run;
		else
			err = lsa_loops_tail_add(t, in->loop, in->tail, in->tail_run);
	}
	in->tail = LSA_NONE;
	in->tail_run = 0;
	return err;
}
/* Moves what the loop rows hold for the trips and tails maps into them
 * (before they are read).  Returns 0 or -LS_ENOMEM. */
int lsa_loops_maps_put(struct lsa_thr *t);

/* lsa_loops_pre_add() where the fast case does not hold (the table
 * grows, or the count goes to pre_more). */
int lsa_loops_pre_add_slow(struct lsa_loops *l, struct lsa_thr *t, uint32_t id,
			   uint32_t own, uint64_t k);
/* lsa_loops_more_add() where its slot of t->pmc holds another key. */
int lsa_loops_more_add_slow(struct lsa_thr *t, uint32_t id, uint32_t own, uint64_t k);
#define LSA_PMC_LOG 10
static inline size_t lsa_loops_pmc_slot(uint32_t id, uint32_t own)
{
	return (uint32_t)((id * 0x9e3779b1u) ^ (own * 0x85ebca6bu)) >> (32 - LSA_PMC_LOG);
}
/* Adds k to pre_more's (id, own) (through t->pmc).  Returns 0 or
 * -LS_ENOMEM. */
static inline int lsa_loops_more_add(struct lsa_thr *t, uint32_t id, uint32_t own,
				     uint64_t k)
{
	struct lsa_pmc *c = t->pmc ? &t->pmc[lsa_loops_pmc_slot(id, own)] : NULL;

	if (k && c && c->k && c->id == id && c->own == own) {
		c->k += k;
		return 0;
	}
	return lsa_loops_more_add_slow(t, id, own, k);
}
/* Moves what t->pmc holds into pre_more.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_more_put(struct lsa_thr *t);
/* Whether run-once counts (lsa_thr.pre) are kept: a single pass's.  A
 * learning pass writes no rows, and in a pass that knows, a block that
 * heads a loop is known as one before it runs: its runs are entries. */
static inline int lsa_loops_pre_on(const struct lsa_loops *l)
{
	return !l->learn && !l->know;
}

/* Counts k runs of block id, no loop head yet, under owner own (loop + 1,
 * 0: frame level): if it heads a loop later, they were entries of trip
 * count 1 (see lsa_loops_flush_thread).  Its first owner's count is in
 * pre/preo, the others' (and past 32 bits) in pre_more.  Inline: the
 * scan does this for most entries, the call memo for every block of a
 * call it applies.  Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_pre_add(struct lsa_loops *l, struct lsa_thr *t,
				    uint32_t id, uint32_t own, uint64_t k)
{
	if (!lsa_loops_pre_on(l))
		return 0;
	if (id >= t->npre)
		return lsa_loops_pre_add_slow(l, t, id, own, k);
	if ((!t->pre[id] || t->preo[id] == own) && k <= UINT32_MAX - t->pre[id]) {
		t->pre[id] += (uint32_t)k;
		t->preo[id] = own;
		return 0;
	}
	return lsa_loops_more_add(t, id, own, k);
}

/* Counts k calls of key (a, b) in t's calls map: held in its slot
 * while the same key comes again, the one held there before added (the
 * calls of xz's range coder and literal coder from one loop alternate).
 * Returns 0 or -LS_ENOMEM. */
static inline int lsa_loops_calls_add(struct lsa_thr *t, uint64_t a, uint64_t b, uint64_t k)
{
	const unsigned i = (unsigned)(a ^ a >> 32 ^ b) & (LSA_CL_HELD - 1);

	if ((t->cl_on >> i & 1) && t->cl_a[i] == a && t->cl_b[i] == b) {
		t->cl_n[i] += k;
		return 0;
	}
	if ((t->cl_on >> i & 1) && lsa_kmap_add(&t->calls, t->cl_a[i], t->cl_b[i], t->cl_n[i]))
		return -LS_ENOMEM;
	t->cl_a[i] = a;
	t->cl_b[i] = b;
	t->cl_n[i] = k;
	t->cl_on |= 1u << i;
	return 0;
}

/* The calls held by lsa_loops_calls_add() go into t's map.  Returns 0 or
 * -LS_ENOMEM. */
static inline int lsa_loops_calls_flush(struct lsa_thr *t)
{
	unsigned i;

	for (i = 0; i < LSA_CL_HELD; i++)
		if (t->cl_on >> i & 1) {
			if (lsa_kmap_add(&t->calls, t->cl_a[i], t->cl_b[i], t->cl_n[i]))
				return -LS_ENOMEM;
			t->cl_on &= ~(1u << i);
		}
	return 0;
}

#endif
