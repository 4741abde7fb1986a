/* loops_freplay.c - the learning pass's memo: where matching stops, the
 * blocks of the unfinished iteration it took go through the per-block
 * path as the log keeps them (loops_fmatch.c matches them). */
#include "analysis/loops_int.h"

/* Matching ends (stopped, or stopped here): the blocks of the unfinished
 * iteration it took are log[*from .. *to), as the log keeps them, to go
 * through the per-block path (the log's end back at *from).  nx: the
 * block that comes next, NULL where none does yet (a cut, the thread's
 * end); a call dropped last whose return that is not is put back, its
 * frame not popped yet.  Returns 1 where that path would only push them
 * (LSA_FN_PUSH), else 0. */
static int fm_end(struct lsa_thr *t, const struct lsd_block *nx, uint64_t *from, uint64_t *to)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_flv *v = &m->lv[0];
	int push = !m->top && m->rq >= m->rhi && (m->node[v->at].flags & LSA_FN_PUSH);

	m->on = 0;
	m->cfin = 0;
	if (m->rq < m->rhi)
		lsa_fm_requeue(m, m->pos);	/* (pending blocks after the end) */
	*to = m->rq < m->rhi ? m->rhi : m->pos;
	/* The call dropped last, its calling block last taken: its frame
	 * pops as the next block comes, where that is the call's return
	 * address; the call applied whole leaves the state that return
	 * will.  Else (no next block yet, or one elsewhere: an unwind) its
	 * blocks go back after it (where they are, never written over: the
	 * log's end has stayed before them since). */
	if (m->ce && (!nx || nx->sb->start != lsa_fm_at(m, m->cs - 1)->sb->end)) {
		struct lsa_flog *h = lsa_fm_at(m, *to - 1);
		uint64_t k = m->ce - m->cs, j;

		h->fl = m->cfl;
		h->cx = m->ccx;
		for (j = 0; j < k; j++)
			lsa_fm_copy(m, *to + j, m->cs + j);
		*to += k;
		push = 0;
	}
	m->ce = 0;
	*from = v->s;
	m->pos = v->s;
	m->rq = m->rhi = 0;
	m->top = 0;
	return push;
}

/* A call collapsed after the top path entry (to ce), whose frame came
 * and went: the entry notes where it went (as lsa_loops_transfer() does
 * in a learning pass), and the next block follows a call applied. */
static void fm_applied(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *ce)
{
	const struct lsa_frame *top = &t->fr[t->nfr - 1];

	if (t->npath > top->base)
		t->path[t->npath - 1].acc = lsa_loops_func_of(l, ce) + 1;
	t->pexit = LSA_EXIT_APPLIED;
}

/* The per-block path takes the blocks of the unfinished iteration as
 * the log keeps them (fm_end()).  There, the iterations of nested loops
 * and the calls matched whole are collapsed into the entries they
 * followed, which that path leaves as they would: the path and frames
 * as they left them, the entry given its loop backs (LSA_FL_LB) and the
 * call it made (LSA_FL_CALL: the calling entry notes where it went, and
 * the next block follows a call already applied).  Blocks that path
 * would only push (LSA_FN_PUSH) are pushed here, without its lookups. */
int lsa_fm_replay(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *nx)
{
	struct lsa_fmemo *m = &t->fm;
	uint64_t p, to;
	int push = fm_end(t, nx, &p, &to), r = 0;
	uint32_t f = push ? lsa_loops_func_of(l, t->path[m->ti].sb) : 0;
	const struct lsa_flog *h = lsa_fm_at(m, p - 1);

	/* The head's entry, as the last iteration matched whole left it:
	 * its block's last run, the call that followed it (as below). */
	t->psb = h->sb;
	t->pexit = lsa_fm_cx(h);
	t->pnext = lsa_fm_next(m, p - 1);
	t->landing = 0;
	if (h->fl & LSA_FL_CALL)	/* (the head's entry is the top one) */
		fm_applied(l, t, m->cev[(p - 1) & (LSA_FM_LOG - 1)]);
	for (; p < to; p++) {
		struct lsa_flog g = *lsa_fm_at(m, p);
		size_t k = p & (LSA_FM_LOG - 1);
		uint64_t lb = g.fl & LSA_FL_LB ? m->lbv[k] : 0;
		const struct lsd_sblock *ce = g.fl & LSA_FL_CALL ? m->cev[k] : NULL;

		if (push) {
			r = lsa_loops_path_push(l, t, g.sb);
			if (!r)
				r = lsa_fm_mark_at(t, t->npath - 1, f, p + 1);
			if (r)
				return r;
			m->pos = p + 1;
			l->st.blocks++;
			t->psb = g.sb;
			t->pexit = lsa_fm_cx(&g);
			t->pnext = lsa_fm_next(m, p);
			t->landing = 0;
			r = (int)t->npath;
		} else {
			/* (a call collapsed: its own exit, the call's transfer
			 * below; else the exit of its last run, which the next
			 * block follows) */
			struct lsd_block x = { .sb = g.sb, .exit = ce ? g.exit : lsa_fm_cx(&g),
					       .next = ce ? 0 : lsa_fm_next(m, p),
					       .id = g.sb->id };

			if ((r = lsa_loops_learn_one(l, t, &x)) < 0)
				return r;
			/* (its first run's exit, what was collapsed after it:
			 * as it was) */
			if (lsa_fm_at(m, m->pos - 1)->sb == g.sb) {
				*lsa_fm_at(m, m->pos - 1) = g;
				m->lbv[(m->pos - 1) & (LSA_FM_LOG - 1)] = lb;
				m->cev[(m->pos - 1) & (LSA_FM_LOG - 1)] = ce;
			}
		}
		if (lb && r)
			t->path[r - 1].lb = lb;
		if (ce)
			fm_applied(l, t, ce);
	}
	return r;
}
