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
 *
 * This file keeps the paths and finds the loops; loops_scan.c charges a
 * scanned path, loops_frames.c moves the frames, loops_thread.c keeps
 * the threads, loops_memo.c (its stops in loops_mstop.c) and loops_cmemo.c
 * are the memos, loops_rows.c keeps a thread's rows and loops_out.c
 * writes them.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* ---- per static block tables ---- */

/* Grows two tables by static block id, a and b of *n entries, to hold
 * id, the new entries 0.  Returns 0 or -LS_ENOMEM. */
static int grow_by_id(uint32_t **a, uint32_t **b, size_t *n, uint32_t id)
{
	size_t m = (size_t)id + 1;
	uint32_t *x, *y;

	m = m < 1024 ? 1024 : m + m / 2;
	/* (ls_zgrow(): the new room zero, its pages mapped in at once) */
	x = ls_zgrow(*a, *n, m, sizeof(*x));
	if (!x)
		return -LS_ENOMEM;
	*a = x;
	y = ls_zgrow(*b, *n, m, sizeof(*y));
	if (!y)
		return -LS_ENOMEM;
	*b = y;
	*n = m;
	return 0;
}

/* By the ids met, not lsd_nsblocks(): the decoder may be adding blocks
 * on another thread (lsd_decode_all_piped). */
static int sb_grow(struct lsa_loops *l, uint32_t id)
{
	size_t m = (size_t)id + 1;
	struct lsa_cnt *c;
	struct lsa_cnt32 *c32;

	/* as grow_by_id() sizes the others */
	m = m < 1024 ? 1024 : m + m / 2;
	c = ls_zgrow(l->sbc, l->nsb, m, sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	l->sbc = c;
	if (!(c32 = ls_zgrow(l->sbc32, l->nsb, m, sizeof(*c32))))
		return -LS_ENOMEM;
	l->sbc32 = c32;
	return grow_by_id(&l->sbloop, &l->sbfunc, &l->nsb, id);
}

/* The same for thread t's own tables. */
static int know_grow(struct lsa_thr *t, uint32_t id)
{
	size_t m = (size_t)id + 1, n = t->nk;
	uint32_t *p;
	uint8_t *f8;

	m = m < 1024 ? 1024 : m + m / 2;	/* as grow_by_id() */
	/* (ls_zgrow(): the new room zero, its pages mapped in at once) */
	p = ls_zgrow(t->inb2, n, m, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	t->inb2 = p;
	p = ls_zgrow(t->notb, n, m, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	t->notb = p;
	if (!(f8 = ls_zgrow(t->nbl, n, m, 1)))
		return -LS_ENOMEM;
	t->nbl = f8;
	if (t->lflag) {		/* (the eager pass's: landings known) */
		uint8_t *f = ls_zgrow(t->lflag, n, m, 1);

		if (!f)
			return -LS_ENOMEM;
		t->lflag = f;
	}
	if (t->ecls) {		/* (the eager pass's; inb's new ids are 0 too) */
		uint64_t *e = ls_zgrow(t->ecls, n, m, sizeof(*e));

		if (!e)
			return -LS_ENOMEM;
		t->ecls = e;
		p = ls_zgrow(t->eret, n, m, sizeof(*p));
		if (!p)
			return -LS_ENOMEM;
		t->eret = p;
	}
	return grow_by_id(&t->head, &t->inb, &t->nk, id);
}

/* The detector's and thread t's tables by block id, grown to hold id
 * (the per-block path asks it of every block).  Returns 0 or
 * -LS_ENOMEM. */
static inline int ids_grow(struct lsa_loops *l, struct lsa_thr *t, uint32_t id)
{
	return (id >= l->nsb && sb_grow(l, id)) || (id >= t->nk && know_grow(t, id)) ?
	       -LS_ENOMEM : 0;
}

uint32_t lsa_loops_func_lookup(struct lsa_loops *l, const struct lsd_sblock *sb)
{
	struct lsd_symbol_info info;
	uint64_t *v;
	uint32_t f;
	int found;

	if (l->sbfunc[sb->id])
		return l->sbfunc[sb->id] - 2;
	l->sbfunc[sb->id] = 1;
	if (!l->sym || sb->module < 0)
		return LSA_NONE;
	if (l->symlock)
		pthread_mutex_lock(l->symlock);
	found = lsd_symbols_lookup(l->sym, sb->module, sb->mod_off, 0, &info) >= 0 &&
		info.function;
	if (l->symlock)
		pthread_mutex_unlock(l->symlock);
	if (!found)
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
		l->funcs[l->nfuncs].sb = sb;
		*v = ++l->nfuncs;
	}
	f = (uint32_t)(*v - 1);
	l->sbfunc[sb->id] = f + 2;
	return f;
}

/* Block sb's instructions and classes into l->sbc, where it is first
 * seen (a block has instructions): before any charge or memo can read
 * them. */
static inline void sbc_fill(struct lsa_loops *l, const struct lsd_sblock *sb)
{
	int k;

	if (l->sbc[sb->id].n[0])
		return;
	l->sbc[sb->id].n[0] = l->sbc32[sb->id].n[0] = sb->ninsn;
	for (k = 0; k < LSP_NCLASS; k++)
		l->sbc[sb->id].n[1 + k] = l->sbc32[sb->id].n[1 + k] = sb->iclass[k];
	for (k = 0; k < LSA_NC; k++) {
		if (l->sbc32[sb->id].n[k] > l->sbc_max) {
			l->sbc_max = l->sbc32[sb->id].n[k];
			l->erun_max = UINT32_MAX / ((size_t)l->sbc_max + 1);
			if (l->erun_max > l->erun_cap)
				l->erun_max = l->erun_cap;
		}
	}
}

int lsa_loops_sb_see(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *sb)
{
	if (ids_grow(l, t, sb->id))
		return -LS_ENOMEM;
	sbc_fill(l, sb);
	return 0;
}

uint32_t lsa_loops_func_sb(struct lsa_loops *l, const struct lsd_sblock *sb)
{
	if (sb->id >= l->nsb && sb_grow(l, sb->id))
		return LSA_NONE;
	return lsa_loops_func_of(l, sb);
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
		l->loops[l->nloops].hid = sb->id;
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
		if (t->hw && lsa_hw_fact(t, LSA_HF_HEAD, sb, NULL))
			return -LS_ENOMEM;
		if (t->ecls)	/* (the eager pass: a head now) */
			lsa_ecls_set(t, sb->id, 0);
		l->st.know_new += l->know != NULL;
		lsa_memo_new_head(&t->memo, sb->id);
		lsa_cm_new_head(&t->cm, sb->id);
	}
	*out = loop;
	return 0;
}

int lsa_loops_in_body(const struct lsa_thr *t, uint32_t loop, uint32_t sbid)
{
	if (sbid < t->nk && (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1))
		return 1;
	/* (a body's blocks are all below nk: body_add() indexes inb by them) */
	return sbid < t->nk && t->nbl[sbid] > 2 && lsa_kmap_find(&t->body, loop, sbid) != NULL;
}

/* body_add() where the block is not one of the last two loops' noted
 * for it. */
static int body_add_slow(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
			 uint32_t sbid)
{
	size_t n = t->body.n;

	if (!lsa_kmap_get(&t->body, loop, sbid))
		return -LS_ENOMEM;
	if (t->notb[sbid] == loop + 1)
		t->notb[sbid] = 0;
	if (t->body.n != n) {
		t->nbody[loop]++;
		if (t->nbl[sbid] < 3)
			t->nbl[sbid]++;
		l->st.know_new += l->know != NULL;
		if (t->hw && lsa_hw_fact(t, LSA_HF_BODY, l->loops[loop].head,
					 lsd_sblock(l->d, sbid)))
			return -LS_ENOMEM;
		if (!lsa_kmap_get(&l->body, loop, sbid))
			return -LS_ENOMEM;
	}
	lsa_loops_inb_note(t, loop, sbid);
	return 0;
}

/* Notes that block sbid ran in an iteration of loop in thread t.
 * Inline: both passes note every block on the path at a loop back, and
 * most were noted before (the call's own cost was most of it). */
static inline int body_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
			   uint32_t sbid)
{
	if (t->inb[sbid] == loop + 1 || t->inb2[sbid] == loop + 1)
		return 0;
	return body_add_slow(l, t, loop, sbid);
}

/* Block sb heads a loop in thread t from the start (loops_know.c): *loop
 * gets its number.  Returns 0 or -LS_ENOMEM. */
int lsa_loops_know_head(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb, uint32_t *loop)
{
	int err = ids_grow(l, t, sb->id);

	return err ? err : loop_of(l, t, sb, loop);
}

/* Block sbid is in loop's body in thread t from the start.  Returns 0 or
 * -LS_ENOMEM. */
int lsa_loops_know_body(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
			uint32_t sbid)
{
	int err = ids_grow(l, t, sbid);

	return err ? err : body_add(l, t, loop, sbid);
}

int lsa_loops_know_lands(struct lsa_loops *l, struct lsa_thr *t, const uint32_t *id,
			 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids_grow(l, t, id[i]))
			return -LS_ENOMEM;
	if (!t->lflag && !(t->lflag = calloc(t->nk ? t->nk : 1, 1)))
		return -LS_ENOMEM;
	for (i = 0; i < n; i++)
		t->lflag[id[i]] = 1;
	return 0;
}

int lsa_loops_entry_ok(const struct lsa_loops *l, const struct lsa_thr *t,
		       uint32_t loop, uint32_t owner)
{
	return !owner || !lsa_loops_in_body(t, loop, l->loops[owner - 1].hid);
}

/* ---- membership (lsa_loops_mem_get/set in loops_int.h) ---- */

int lsa_loops_mem_grow(struct lsa_thr *t, uint32_t k)
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

/* ---- path ---- */

/* lsa_loops_path_push(), inline: block_go() pushes most blocks it takes. */
static inline int path_push(struct lsa_loops *l, struct lsa_thr *t,
			    const struct lsd_sblock *sb)
{
	struct lsa_pent *e;
	int err;

	if (LS_GROW32(t->path, t->npath + 1, t->cappath, 256))
		return -LS_ENOMEM;
	e = &t->path[t->npath];
	e->sb = sb;
	e->prev = lsa_loops_mem_get(t, sb->id);
	e->inst = LSA_NONE;
	e->acc = LSA_NONE;
	e->lb = 0;
	e->ei = LSA_NONE;
	err = lsa_loops_mem_set(t, sb->id, t->npath);
	if (err)
		return err;
	t->npath++;
	if (t->npath > l->st.max_path)
		l->st.max_path = t->npath;
	return 0;
}

int lsa_loops_path_push(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb)
{
	return path_push(l, t, sb);
}
/* Control went back to path entry ti of the top frame: one iteration. */
int lsa_loops_loop_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti)
{
	struct lsa_pent *h = &t->path[ti];
	struct lsa_owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	struct lsa_inst *in;
	uint32_t loop, i, tail = t->psb ? t->psb->id : LSA_NONE, leaf = LSA_NONE;
	int err, fits = 0, quiet;

	l->st.loop_backs++;
	lsa_cm_abort(t);
	if (t->sn && ti < t->sn->snp) {	/* a piece's: what the cut's entries held */
		if (t->sn->snp > ti + 1 || t->sn->pacc[ti])
			lsa_psn_note(t, PE_BACK, ti);
		t->sn->pacc[ti] = 0;
	}
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
	/* an inner iteration of an outer one logged (before the scan pops
	 * it; its own memo stays off meanwhile) */
	quiet = lsa_memo_quiet(t, ti);
	if (quiet)
		lsa_memo_log_back(l, t, ti);
	/* an iteration the memo can take from now on: into its trie (after
	 * the head's loop is made and the bodies grown, as the scan sees
	 * them); not while a stop hands blocks back, nor inside an outer
	 * iteration logged */
	if ((!t->sn || t->sn->snp <= ti + 1) && !t->memo.replay && !quiet)
		fits = lsa_memo_fits(l, t, ti);
	if (fits && lsa_memo_add(l, t, ti, fits == 2, &leaf))
		return -LS_ENOMEM;
	o.inst = h->inst;
	err = lsa_loops_scan(l, t, ti + 1, o);
	if (!err)
		err = lsa_loops_charge(l, t, o, &t->path[ti]);
	if (err)
		return err;
	in = &l->inst[t->path[ti].inst];
	in->trips++;
	if (tail != in->tail) {
		err = lsa_loops_tail_flush(t, in);
		in->tail = tail;
	}
	in->tail_run++;
	if (!err && (fits == 2 || t->memo.log.on))
		lsa_memo_log_set(t, ti, fits);
	if (!err && leaf != LSA_NONE)
		lsa_memo_start(l, t, t->path[ti].inst, leaf);
	return err;
}

/* A non-local jump (longjmp) came back to entry xi of the top frame: not
 * an iteration, the path above it was abandoned. */
int lsa_loops_land(struct lsa_loops *l, struct lsa_thr *t, uint32_t xi)
{
	struct lsa_owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	int err;

	lsa_cm_abort(t);
	t->memo.log.on = 0;
	if (t->sn && xi < t->sn->snp) {
		lsa_psn_note(t, PE_LAND, xi);
		t->sn->pacc[xi] = 0;
	}
	err = lsa_loops_scan(l, t, xi + 1, o);

	if (err)
		return err;
	o.inst = t->path[xi].inst;	/* its earlier execution */
	return lsa_loops_charge(l, t, o, &t->path[xi]);
}

int lsa_loops_cur_set(struct lsa_loops *l, struct lsa_thr *t, uint32_t f)
{
	struct lsa_frame *top = &t->fr[t->nfr - 1];

	(void)l;
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
	return 0;
}

/* lsa_loops_block_one(); returns 1 (not 0) after a block that called.
 * always_inline: lsa_loops_blocks() runs it for every block the memos
 * do not take, and the call's own cost was a tenth of it. */
static inline __attribute__((always_inline)) int
block_go(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsd_sblock *sb = b->sb;
	uint32_t idx, f;
	int err;

	if (!sb)
		return -LS_EINVAL;
	if (ids_grow(l, t, sb->id))
		return -LS_ENOMEM;
	l->st.blocks++;
	sbc_fill(l, sb);
	f = lsa_loops_func_of(l, sb);
	if ((err = lsa_loops_enter(l, t, sb, f)))
		return err;
	idx = lsa_loops_mem_get(t, sb->id);
	if (idx != LSA_NONE && idx >= t->fr[t->nfr - 1].base) {
		err = t->landing ? lsa_loops_land(l, t, idx) : lsa_loops_loop_back(l, t, idx);
	} else {
		err = path_push(l, t, sb);
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

/* ---- the learning pass ---- */

/* A loop back to path entry ti (of function f) in a learning pass: what
 * it teaches (the head, the blocks of the iteration), then the path above
 * the head popped (the scan of a learning pass charges nothing). */
static int learn_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, uint32_t f)
{
	struct lsa_owner o = { LSA_NONE, &t->fr[t->nfr - 1] };
	uint32_t loop, i;
	int err;

	l->st.loop_backs++;
	/* (a second pass charges the head here: its call's counts taken) */
	t->path[ti].lb++;
	t->path[ti].acc = LSA_NONE;
	err = loop_of(l, t, t->path[ti].sb, &loop);
	for (i = ti; i < t->npath && !err; i++)
		err = body_add(l, t, loop, t->path[i].sb->id);
	if (!err)
		err = lsa_fm_back(l, t, ti, f);
	return err ? err : lsa_loops_scan(l, t, ti + 1, o);
}

/* block_go() of a learning pass: the frames and paths alone, none of the
 * accounting.  Returns the path entry + 1 whose iteration begins after
 * the block (pushed, or looped back to), 0 (a landing), or an error. */
static inline __attribute__((always_inline)) int
learn_go(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b)
{
	const struct lsd_sblock *sb = b->sb;
	struct lsa_frame *top;
	uint32_t idx, f, k, nfr0 = t->nfr;
	int err;

	if (!sb)
		return -LS_EINVAL;
	if (ids_grow(l, t, sb->id))
		return -LS_ENOMEM;
	l->st.blocks++;
	lsa_fm_put(&t->fm, b);
	f = lsa_loops_func_of(l, sb);
	if (lsa_loops_moves(t, f)) {
		err = lsa_loops_transfer(l, t, t->pexit, sb);
		if (err)
			return err;
	}
	top = &t->fr[t->nfr - 1];
	if (top->cur == LSA_NONE) {	/* as block_go() */
		top->cur = f;
		if (top->func == LSA_NONE)
			top->func = f;
	}
	/* a second half's learner: the spine's blocks are the joiner's */
	if (__builtin_expect(t->hw != NULL, 0) && (err = lsa_hw_moved(l, t, b, nfr0))) {
		if (err < 0)
			return err;
		t->psb = sb;
		t->pexit = b->exit;
		t->pnext = b->next;
		t->landing = 0;
		return 0;
	}
	idx = lsa_loops_mem_get(t, sb->id);
	if (idx != LSA_NONE && idx >= top->base) {
		if (t->landing) {
			struct lsa_owner o = { LSA_NONE, top };
			size_t nl = t->land.n;

			/* (where landings come, for the eager pass) */
			err = lsa_kmap_add(&t->land, 0, sb->id, 1);
			if (!err && t->hw && t->land.n != nl)
				err = lsa_hw_fact(t, LSA_HF_LAND, sb, NULL);
			if (!err)
				err = lsa_loops_scan(l, t, idx + 1, o);
			t->path[idx].acc = LSA_NONE;	/* (as learn_back()) */
			k = 0;
		} else {
			err = learn_back(l, t, idx, f);
			k = idx + 1;
		}
	} else {
		err = path_push(l, t, sb);
		k = t->npath;
	}
	if (!err && k)
		err = lsa_fm_mark(t, k - 1, f);
	t->psb = sb;
	t->pexit = b->exit;
	t->pnext = b->next;
	t->landing = 0;
	return err ? err : (int)k;
}

int lsa_loops_learn_one(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b)
{
	return learn_go(l, t, b);
}

/* After the block of path entry ti, the last taken (nx the next, NULL:
 * not known yet): matching may begin, with its loop's iterations
 * (most blocks taken head no loop) or with the call it makes. */
static inline void learn_begin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
			       const struct lsd_block *nx)
{
	if (t->head[t->path[ti].sb->id])
		lsa_fm_begin(l, t, ti, nx);
	if (!t->fm.on && (unsigned)t->pexit - LSD_EXIT_CALL < 2)
		lsa_fm_cbegin(l, t, ti, nx);
}

int lsa_loops_learn_blocks(struct lsa_loops *l, struct lsa_thr *t,
			   const struct lsd_block *b, size_t n)
{
	struct lsa_fmemo *m = &t->fm;
	size_t i = 0;
	int r;

	if (!m->log && lsa_fm_alloc(m))
		return -LS_ENOMEM;
	while (i < n) {
		if (m->on) {
			i = lsa_fm_run(t, b, i, n);
			if (m->on)
				break;
			/* left the trie: the iteration's blocks through the
			 * per-block path; matching may begin after them */
			if ((r = lsa_fm_replay(l, t, &b[i])) < 0)
				return r;
			if (r)
				learn_begin(l, t, (uint32_t)r - 1, &b[i]);
			if (m->on)
				continue;
		}
		r = learn_go(l, t, &b[i++]);
		if (r < 0)
			return r;
		if (r)
			learn_begin(l, t, (uint32_t)r - 1, i < n ? &b[i] : NULL);
	}
	return 0;
}

int lsa_loops_learn_stop(struct lsa_loops *l, struct lsa_thr *t)
{
	int r = t->fm.on ? lsa_fm_replay(l, t, NULL) : 0;

	return r < 0 ? r : 0;
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

	if (!l || (n && !b))
		return -LS_EINVAL;
	t = lsa_loops_thread(l, stream);
	if (!t)
		return -LS_ENOMEM;
	l->nin += n;
	if (l->learn && (l->snap || l->snap_chunks) && stream < l->nsref &&
	    !l->sref[stream].cpu)
		return lsa_know_cuts(l, t, stream, b, n);
	return lsa_loops_thr_blocks(l, t, b, n);
}

int lsa_loops_thr_blocks(struct lsa_loops *l, struct lsa_thr *t,
			 const struct lsd_block *b, size_t n)
{
	size_t i = 0, slot;
	int err = 0, called;

	if (l->learn)
		return lsa_loops_learn_blocks(l, t, b, n);
	if (l->eager)
		return lsa_eager_blocks(l, t, b, n);
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
			/* the blocks matched ended at the head of a loop the
			 * stop's replay entered (one nested in the iteration,
			 * which the trie did not have iterating): its own
			 * trie may take its iterations from the first, as
			 * block_go() lets it where it pushes a head */
			if (t->memo.rehead) {
				lsa_memo_head(l, t);
				if (t->memo.on)
					continue;
			}
		}
		if (t->cm.on) {		/* a call the call memo matches */
			i = lsa_cm_run(l, t, b, i, n, &err);
			continue;
		}
		if (called && lsa_cm_begin(t, &b[i]))
			continue;
		/* the blocks no memo takes, one by one, until one calls (a
		 * recorded call may begin) or starts the iteration memo
		 * (block_go() alone starts it, lsa_cm_begin() the call
		 * memo) */
		do
			err = block_go(l, t, &b[i++]);
		while (!err && i < n && !t->memo.on);
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
