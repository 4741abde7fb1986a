/* loops_mstop.c - the iteration memo's stop (loops_memo.c matches): what
 * the passes matched owe, multiplied out node by node and per term node
 * (struct lsa_msum), and the unfinished iteration handed back to the
 * per-block path: the frame's own blocks pushed and its leaf calls
 * applied as block_go() would leave them, the rest block by block.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Adds k times sb's counts to c. */
static void cnt_addk(struct lsa_cnt *c, const struct lsa_loops *l,
		     const struct lsd_sblock *sb, uint64_t k)
{
	const struct lsa_cnt *x = &l->sbc[sb->id];
	int j;

	if (k == 1) {	/* (most nodes of a stop: the adds vectorize) */
		lsa_cnt_add(c, x);
		return;
	}
	for (j = 0; j < LSA_NC; j++)
		c->n[j] += k * x->n[j];
}

/* What close_inst() counts of the entries a pass opened and closed
 * (struct lsa_mrec), k passes of term sum s: rows, trip counts, back
 * branches.  Returns 0 or -LS_ENOMEM. */
static int close_recs(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_msum *s,
		      uint64_t k)
{
	const struct lsa_memo *m = &t->memo;
	uint32_t i, j;
	int err = 0;

	for (i = s->rec; i < s->rec + s->nrec && !err; i++) {
		const struct lsa_mrec *e = &m->rec[i];
		struct lsa_lrow *r = lsa_loops_lrow(t, e->loop);

		if (!r)
			return -LS_ENOMEM;
		err = lsa_loops_entries_add(l, t, r, e->loop, e->trips, k);
		for (j = e->tl; j < e->tl + e->ntl && !err; j++)
			err = lsa_loops_tail_add(t, e->loop, m->tl[j].id, k * m->tl[j].runs);
		l->st.loop_backs += k * (e->trips - 1);
	}
	return err;
}

/* What k passes through node v owe: what charge() and, for the entries
 * of trip count 1 the node is charged into, close_inst() add, k times. */
static int apply(struct lsa_loops *l, struct lsa_thr *t, uint32_t v, uint64_t k)
{
	struct lsa_memo *m = &t->memo;
	const struct lsa_mnode *x = &m->node[v];
	const struct lsd_sblock *sb = x->sb;
	struct lsa_inst *in = &l->inst[m->inst];
	uint32_t loop = in->loop;
	int err = 0;

	/* (the blocks, the instructions, the frame function's and the
	 * entry's own counts, the deepest path: by the terms, struct
	 * lsa_msum) */
	if (lsa_mk_in_leaf(x->kind)) {
		/* a leaf's block: its function's exclusive and, outside
		 * every open span of it, inclusive instructions; its call */
		if (t->nfr + 1 > l->st.max_frames)
			l->st.max_frames = t->nfr + 1;
		if (x->fn != LSA_NONE) {
			struct lsa_frow *r = &t->fw[x->fn];

			r->self += k * sb->ninsn;
			if (!r->active)
				r->total += k * sb->ninsn;
			if (x->kind == MK_CALLEE)
				r->calls += k;
		}
		if (x->kind == MK_CALLEE &&
		    (err = lsa_loops_calls_add(t, (uint64_t)(x->own - 1) << 32 | x->fn,
					m->node[x->parent].sb->id, k)))
			return err;
	}
	if (x->chain) {
		/* charged to the innermost entry of trip count 1: its self,
		 * the totals of each open one, each graph edge's total, and
		 * through the outermost the totals of the iteration's entry */
		const uint32_t *c = &m->chain[x->chain + 1];
		uint32_t n = m->chain[x->chain], j, parent = loop;

		cnt_addk(&in->tot, l, sb, k);
		for (j = 0; j < n && !err; j++) {
			struct lsa_lrow *r = lsa_loops_lrow(t, c[j]);

			if (!r)
				return -LS_ENOMEM;
			cnt_addk(&r->total, l, sb, k);
			if (j == n - 1)
				cnt_addk(&r->self, l, sb, k);
			err = lsa_loops_edge_add(t, parent, c[j], 0, k * sb->ninsn);
			parent = c[j];
		}
		if (err)
			return err;
	}
	if (x->opens) {
		/* an entry opened: its edge from the entry it is in (what
		 * its trips decide, the term's entries) */
		uint32_t n = m->chain[x->chain];

		err = lsa_loops_edge_add(t, n > 1 ? m->chain[x->chain + n - 1] : loop,
					 x->opens - 1, k, 0);
		if (err)
			return err;
	}
	if (x->term) {
		/* back to the head: an iteration, its back branch the block
		 * before (the runs of one tail are summed per tail in the
		 * end, however they were grouped) */
		uint32_t tail = x->parent == m->root ? sb->id : m->node[x->parent].sb->id;
		const struct lsa_msum *s = &m->sum[x->sum - 1];
		int j;

		if (s->nrec && (err = close_recs(l, t, s, k)))
			return err;
		if (s->flat) {
			m->fk += k;
			l->st.memo_flat += k;
		}
		if (s->mdepth && m->ti + s->mdepth + 1 > l->st.max_path)
			l->st.max_path = m->ti + s->mdepth + 1;
		l->st.blocks += k * s->blocks;
		l->st.memo_blocks += k * s->blocks;
		t->insns += k * s->insns;
		if (m->cur != LSA_NONE)
			t->fw[m->cur].self += k * s->fself;
		for (j = 0; j < LSA_NC; j++)
			in->self.n[j] += k * s->self.n[j];
		l->st.loop_backs += k;
		in->trips += k;
		if (tail == in->tail)
			in->tail_run += k;
		else
			return lsa_loops_tail_add(t, loop, tail, k);
		return 0;
	}
	if (!x->pre || !lsa_loops_pre_on(l))
		return 0;
	if (x->more || k > UINT32_MAX - t->pre[sb->id])
		return lsa_loops_more_add(t, sb->id, x->pown, k);
	t->pre[sb->id] += (uint32_t)k;
	return 0;
}

/* An exit that enters a node of this kind, as the trie matched it (the
 * per-block path treats all of them alike). */
static uint8_t exit_into(const struct lsa_mnode *x)
{
	return x->kind == MK_CALLEE ? LSD_EXIT_CALL :
	       x->kind == MK_RETURN ? LSD_EXIT_RET : LSD_EXIT_FALL;
}

/* Whether block_go() would take block sb of the memo's frame, entered
 * by an exit that moves no frame, as one that only counts and is pushed:
 * the frame's function known (one span for all its blocks), no call
 * recorded, not on the frame's path (no loop back).  If so its counts
 * are added and it is the previous block; the caller pushes it. */
static int replay_frame(struct lsa_loops *l, struct lsa_thr *t,
			const struct lsd_sblock *sb)
{
	const struct lsa_frame *top = &t->fr[t->nfr - 1];
	uint32_t idx = sb->id < t->nmem ? t->mem[sb->id] : LSA_NONE;

	if (t->memo.cur == LSA_NONE || top->cur != t->memo.cur || t->cm.nrec ||
	    (idx != LSA_NONE && idx >= top->base))
		return 0;
	l->st.blocks++;
	t->insns += sb->ninsn;
	t->fw[top->cur].self += sb->ninsn;
	t->psb = sb;
	t->landing = 0;
	return 1;
}

/* Whether block_go() would take the leaf call of nodes part[j .. np)
 * (its first block entered by a call, then its own blocks; part[j - 1]
 * the block it returned to) as a call that pushes a frame, whose blocks
 * only count and are pushed, and whose return pops it as a leaf: with no
 * call being recorded (t->cm.nrec 0) and room for the frame, it does
 * here what the call's transfer(), its blocks and frame_pop() do (the
 * calling entry's contribution and its leaf blocks, the function's row,
 * the blocks' runs at frame level), without the frame; the return's
 * block is then pushed as replay_frame() pushes it.  Returns 1 if so, 0
 * if not (nothing done), -LS_ENOMEM. */
static int replay_leaf(struct lsa_loops *l, struct lsa_thr *t,
		       const uint32_t *part, uint32_t j, uint32_t np)
{
	const struct lsa_memo *m = &t->memo;
	const struct lsa_frame *top = &t->fr[t->nfr - 1];
	uint32_t fn = m->node[part[np - 1]].fn, n = np - j, i, k;
	struct lsa_pent *c = &t->path[t->npath - 1];
	struct lsa_cnt self = { { 0 } };
	struct lsa_frow *r = NULL;
	struct lsa_acc *a;

	uint32_t idx = lsa_loops_mem_get(t, m->node[part[j - 1]].sb->id);

	/* (the block returned to then goes as replay_frame() takes it) */
	if (t->cm.nrec || t->nfr >= LSA_MAX_FRAMES || t->npath <= top->base ||
	    t->memo.cur == LSA_NONE || top->cur != t->memo.cur ||
	    m->node[part[j - 1]].kind != MK_RETURN ||
	    (idx != LSA_NONE && idx >= top->base))
		return 0;
	if (fn != LSA_NONE && !(r = lsa_loops_frow(t, fn)))
		return -LS_ENOMEM;
	if (c->acc == LSA_NONE) {
		uint32_t ai;

		if (lsa_loops_acc_new(l, &ai))
			return -LS_ENOMEM;
		c = &t->path[t->npath - 1];
		c->acc = ai;
	}
	if (LS_GROW32(l->sq, l->nsq + n, l->capsq, 1024))
		return -LS_ENOMEM;
	for (i = np; i-- > j;) {
		const struct lsd_sblock *sb = m->node[part[i]].sb;

		lsa_cnt_sb(&self, l, sb);
		l->sq[l->nsq + (np - 1 - i)] = sb;
		if (lsa_loops_pre_add(l, t, sb->id, 0, 1))
			return -LS_ENOMEM;
	}
	l->st.blocks += n;
	if (t->nfr + 1 > l->st.max_frames)
		l->st.max_frames = t->nfr + 1;
	if (t->npath + n > l->st.max_path)
		l->st.max_path = t->npath + n;
	if (r) {
		r->calls++;
		r->self += self.n[0];
		if (!r->active)		/* the span the frame opened and closed */
			r->total += self.n[0];
	}
	t->insns += self.n[0];
	t->cm.leaf = n;
	/* the calling entry's part of transfer() and frame_pop() */
	a = &l->acc[c->acc];
	a->callee = fn;
	a->called = 1;
	if (!a->nsq && !a->cself.n[0] && a->kids == LSA_NONE && !a->ctot.n[0]) {
		a->sq = l->nsq;
		a->nsq = n;
		l->nsq += n;
		l->sqlive++;
	} else {
		lsa_loops_sq_drop(l, a);
	}
	for (k = 0; k < LSA_NC; k++)
		a->cself.n[k] += self.n[k];
	t->psb = m->node[part[j]].sb;
	t->landing = 0;
	return 1;
}

/* After a replay of at least one block (the previous one, t->psb):
 * whether it was pushed on the path, not a loop back (which gives its
 * entry an open loop), and heads a loop; sets memo.rehead if so.
 * Returns err. */
static int pushed_head(struct lsa_thr *t, int err)
{
	const struct lsa_pent *e = t->npath ? &t->path[t->npath - 1] : NULL;

	t->memo.rehead = !err && e && e->sb == t->psb && e->inst == LSA_NONE &&
			 lsa_loops_head(t, e->sb->id);
	return err;
}

/* What the stop tells of the root's flat iterations (m->fk of them
 * applied; back: inner iterations handed back); where they do not pay,
 * the head's trie is dropped (made again without them). */
static void flat_stop(struct lsa_thr *t, int back)
{
	struct lsa_memo *m = &t->memo;
	uint32_t id = m->node[m->root].sb->id;

	if (lsa_memo_flat_stop(t, id, m->fk, back) && id < m->nrootof)
		m->rootof[id] = 0;
	m->fk = 0;
}

int lsa_loops_memo_stop(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_memo *m = &t->memo;
	uint32_t part[LSA_MEMO_MAX + 1], np = 0, v, i;
	uint8_t px = t->pexit;
	uint64_t pn = t->pnext, lb;
	int err = 0, took = m->ndirty > 0;

	m->rehead = 0;
	if (!m->on)
		return 0;
	m->on = 0;
	/* the outer iteration logged begins again at its head (not an
	 * inner loop's: the log went dead before its memo began) */
	if (m->ti == m->log.ti)
		lsa_memo_log_clear(m);
	/* the iteration under way is not charged yet */
	for (v = m->at; v != m->root; v = m->node[v].parent) {
		m->node[v].count -= m->node[v].cnt;
		part[np++] = v;
	}
	m->fk = 0;
	for (i = 0; i < m->ndirty; i++) {
		uint32_t d = m->dirty[i];
		uint64_t k = m->node[d].count;

		m->node[d].count = 0;
		if (k && !err)
			err = apply(l, t, d, k);
	}
	m->ndirty = 0;
	if (err)
		return err;
	if (m->fk)
		flat_stop(t, 0);
	if (!np) {
		/* a frame of unknown function restarts its span at every
		 * block (lsa_loops_block_one): as it would have at the head
		 * the memo took last */
		if (took && m->cur == LSA_NONE && t->fr[t->nfr - 1].func == LSA_NONE)
			t->fr[t->nfr - 1].start = t->insns - t->psb->ninsn;
		return 0;
	}
	/* its blocks go through the per-block path, after the head, with
	 * the exits the trie matched them by (the last one's its own) */
	t->psb = m->node[m->root].sb;
	t->pexit = exit_into(&m->node[part[np - 1]]);
	/* the frame's own blocks and the leaf calls it makes: what
	 * block_go() does with them, without its checks */
	while (np && !err) {
		const struct lsa_mnode *x = &m->node[part[np - 1]];
		uint32_t j = np - 1;
		int r;

		if (x->kind == MK_CALLEE) {
			/* a whole call: its blocks, then the block it
			 * returned to */
			while (j && m->node[part[j - 1]].kind == MK_LEAF)
				j--;
			if (!j || (r = replay_leaf(l, t, part, j, np)) == 0)
				break;
			if (r < 0)
				return r;
			np = j;
			t->pexit = LSD_EXIT_RET;
			x = &m->node[part[np - 1]];
		}
		if (x->kind == MK_CALLEE || x->kind == MK_LEAF ||
		    !replay_frame(l, t, x->sb))
			break;
		np--;
		t->pexit = np ? exit_into(&m->node[part[np - 1]]) : px;
		t->pnext = np ? 0 : pn;
		err = lsa_loops_path_push(l, t, t->psb);
	}
	m->replay = 1;
	lb = l->st.loop_backs;
	while (np && !err) {
		struct lsd_block b;

		v = part[--np];
		b.sb = m->node[v].sb;
		b.id = b.sb->id;
		b.exit = np ? exit_into(&m->node[part[np - 1]]) : px;
		b.next = np ? 0 : pn;
		err = lsa_loops_block_one(l, t, &b);
	}
	m->replay = 0;
	/* inner iterations redone: a flat iteration left part-way */
	if (!err && l->st.loop_backs != lb)
		flat_stop(t, 1);
	return pushed_head(t, err);
}
