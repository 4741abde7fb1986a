/* loops_cmemo.c - the call memo of the loop detector (see loops_int.h).
 *
 * Most blocks of call-heavy code (an interpreter's handlers, a codec's
 * helpers, library calls through the PLT) run in calls that enter no
 * loop: there the per-block path pushes each block, scans the frame when
 * it returns and charges every block at frame level, and all that work
 * has one net effect given the block sequence.  The per-block path
 * records calls as it runs them (up to LSA_CM_REC nested at once); a
 * call that returned as called with nothing the memo cannot take goes
 * into its entry block's trie with its effect.  A later call into that
 * block is matched against the trie (a compare per block); when its
 * return is seen the effect is applied, which leaves the detector's state
 * as the per-block path would have, and so the profile.  A call that
 * leaves the trie, or is under way at a thread switch or the stream's
 * end, goes through the per-block path from its first block.
 *
 * What decides that the effect is the sequence's alone: no block of it
 * heads a loop (tries holding a block that comes to head one are
 * dropped), no block recurs on its frame's path (no loop back; the
 * frames are the call's own, so the same sequence gives the same
 * paths), every return goes where its call was made (so the frames are
 * the same), and nothing in it depends on the frames below: jumps into
 * the middle of another function (a longjmp, resolved against older
 * frames), signals, unwinds and holes end a recording.  The functions'
 * inclusive spans depend on whether an outer frame runs the function:
 * the effect keeps the spans no other span of the function inside the
 * call encloses, and adds each where no outer frame runs it, as
 * span_close() would. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static void cm_clear(struct lsa_cmemo *m)
{
	m->nnode = m->neff = m->nfx = m->nsp = 0;
	if (m->root)
		memset(m->root, 0, m->nroot * sizeof(*m->root));
	if (m->intrie)
		memset(m->intrie, 0, m->nroot);
	m->stale = 0;
}

void lsa_cm_new_head(struct lsa_cmemo *m, uint32_t sbid)
{
	if (sbid < m->nroot && m->intrie[sbid])
		m->stale = 1;
}

static int cm_grow(struct lsa_cmemo *m, uint32_t id);

/* (Out of memory, the count is not kept: it only steers the memo.) */
static void bad_add(struct lsa_cmemo *m, uint32_t id)
{
	if (!cm_grow(m, id) && m->bad[id] < 255)
		m->bad[id]++;
}

void lsa_cm_abort(struct lsa_thr *t)
{
	struct lsa_cmemo *m = &t->cm;
	uint32_t i;

	for (i = 0; i < m->nrec; i++)
		if (m->rec[i].n)
			bad_add(m, m->rec[i].sb[0]->id);
	m->nrec = 0;
}

void lsa_cm_call(struct lsa_thr *t, const struct lsd_sblock *sb)
{
	struct lsa_cmemo *m = &t->cm;
	struct lsa_crec *r;

	if (sb->id < m->nroot && m->bad[sb->id] >= LSA_CM_BAD && ++m->tries % LSA_CM_RETRY)
		return;
	if (m->nrec == LSA_CM_REC || t->deep || t->landing ||
	    t->npath <= t->fr[t->nfr - 1].base)
		return;
	r = &m->rec[m->nrec++];
	r->fr = t->nfr;
	r->n = r->nev = 0;
	r->dead = 0;
	r->npath0 = t->npath;
	r->nfr0 = t->nfr;
	r->relpath = r->relfr = 0;
	r->leaf = 0;
}

void lsa_cm_block(struct lsa_thr *t,
		  const struct lsd_sblock *sb, uint8_t x)
{
	struct lsa_cmemo *m = &t->cm;
	uint32_t i;

	if (lsa_loops_head(t, sb->id)) {
		lsa_cm_abort(t);
		return;
	}
	for (i = 0; i < m->nrec; i++) {
		struct lsa_crec *r = &m->rec[i];

		if (r->dead)
			continue;
		if (r->n == LSA_CM_MAX) {
			r->dead = 1;
			continue;
		}
		r->sb[r->n] = sb;
		r->x[r->n++] = x;
		/* the block is pushed next (a loop back ends recording) */
		if (t->npath + 1 - r->npath0 > r->relpath)
			r->relpath = t->npath + 1 - r->npath0;
		if (t->nfr - r->nfr0 > r->relfr)
			r->relfr = t->nfr - r->nfr0;
	}
}

void lsa_cm_event(struct lsa_thr *t, uint32_t kind, uint32_t fn, uint64_t len)
{
	struct lsa_cmemo *m = &t->cm;
	uint32_t i;

	for (i = 0; i < m->nrec; i++) {
		struct lsa_crec *r = &m->rec[i];

		if (r->dead)
			continue;
		if (r->nev == LSA_CM_EV) {
			r->dead = 1;
			continue;
		}
		r->ev[r->nev].kind = kind;
		r->ev[r->nev].fn = fn;
		r->ev[r->nev++].len = len;
	}
}

/* Grows the tables by block id to hold id.  Returns 0 or -LS_ENOMEM. */
static int cm_grow(struct lsa_cmemo *m, uint32_t id)
{
	size_t n = (size_t)id + 1 < 1024 ? 1024 : ((size_t)id + 1) * 3 / 2;
	uint32_t *r;
	uint8_t *in, *bd;

	if (id < m->nroot)
		return 0;
	bd = realloc(m->bad, n);
	if (!bd)
		return -LS_ENOMEM;
	m->bad = bd;
	memset(bd + m->nroot, 0, n - m->nroot);
	r = realloc(m->root, n * sizeof(*r));
	if (!r)
		return -LS_ENOMEM;
	m->root = r;
	in = realloc(m->intrie, n);
	if (!in)
		return -LS_ENOMEM;
	m->intrie = in;
	memset(r + m->nroot, 0, (n - m->nroot) * sizeof(*r));
	memset(in + m->nroot, 0, n - m->nroot);
	m->nroot = n;
	return 0;
}

/* Room for `more` elements past n in p (capacity cap, a uint32_t). */
#define CM_GROW(p, n, cap, more) do {					\
	if (LS_GROW32((p), (n) + (more), (cap), 256))			\
		return -LS_ENOMEM;					\
} while (0)

static uint32_t node_new(struct lsa_cmemo *m, const struct lsd_sblock *sb,
			 uint8_t x, uint32_t parent)
{
	struct lsa_cnode *v = &m->node[m->nnode];

	v->sb = sb;
	v->x = x;
	v->child = v->sib = LSA_NONE;
	v->parent = parent;
	v->eff = 0;
	if (parent != LSA_NONE) {
		v->sib = m->node[parent].child;
		m->node[parent].child = m->nnode;
	}
	m->intrie[sb->id] = 1;
	return m->nnode++;
}

/* The effect of recorded call r into e.  Returns 0, 1 when the call is
 * not one the memo can take, or -LS_ENOMEM. */
static int eff_make(struct lsa_loops *l, struct lsa_cmemo *m,
		    const struct lsa_crec *r, struct lsa_ceff *e)
{
	uint32_t i, k, open[LSA_CM_EV];
	uint32_t fns[LSA_CM_MAX + LSA_CM_EV], nf = 0;

	memset(e, 0, sizeof(*e));
	e->nblocks = r->n;
	e->relpath = r->relpath;
	e->relfr = r->relfr;
	e->leaf = r->leaf;
	e->callee = lsa_loops_func_of(l, r->sb[0]);
	for (i = 0; i < r->n; i++) {
		const struct lsd_sblock *sb = r->sb[i];

		e->cself.n[0] += sb->ninsn;
		for (k = 0; k < LSP_NCLASS; k++)
			e->cself.n[1 + k] += sb->iclass[k];
	}
	/* per function: self instructions and calls */
	for (i = 0; i < r->n + r->nev; i++) {
		uint32_t fn = i < r->n ? lsa_loops_func_of(l, r->sb[i]) :
			      r->ev[i - r->n].kind == CE_CALLS ? r->ev[i - r->n].fn : LSA_NONE;

		if (fn == LSA_NONE)
			continue;
		for (k = 0; k < nf && fns[k] != fn; k++)
			;
		if (k == nf)
			fns[nf++] = fn;
	}
	CM_GROW(m->fx, m->nfx, m->capfx, nf);
	e->fx = m->nfx;
	e->nfx = nf;
	for (k = 0; k < nf; k++) {
		struct lsa_cfx *f = &m->fx[m->nfx++];

		f->fn = fns[k];
		f->calls = 0;
		f->self = 0;
		for (i = 0; i < r->n; i++)
			if (lsa_loops_func_of(l, r->sb[i]) == fns[k])
				f->self += r->sb[i]->ninsn;
		for (i = 0; i < r->nev; i++)
			if (r->ev[i].kind == CE_CALLS && r->ev[i].fn == fns[k])
				f->calls++;
	}
	/* the spans no span of the same function opened in the call encloses:
	 * open[j] counts the open spans of the function of event j */
	CM_GROW(m->sp, m->nsp, m->capsp, r->nev);
	e->sp = m->nsp;
	for (i = 0; i < r->nev; i++) {
		uint32_t n = 0;

		open[i] = 0;
		if (r->ev[i].kind == CE_CALLS)
			continue;
		for (k = 0; k < i; k++)
			if (r->ev[k].fn == r->ev[i].fn && r->ev[k].kind != CE_CALLS)
				n = open[k];
		if (r->ev[i].kind == CE_OPEN) {
			open[i] = n + 1;
		} else {
			/* a span the call did not open: what it adds depends
			 * on the frames below (not seen to happen) */
			if (!n)
				return 1;
			/* closing the only open one: span_close() adds where
			 * no outer frame runs the function */
			if (n == 1) {
				m->sp[m->nsp].fn = r->ev[i].fn;
				m->sp[m->nsp++].len = r->ev[i].len;
			}
			open[i] = n ? n - 1 : 0;
		}
	}
	e->nsp = m->nsp - e->sp;
	return 0;
}

/* Puts finished recording r into its entry's trie.  Returns 0 or
 * -LS_ENOMEM. */
static int cm_put(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_crec *r)
{
	struct lsa_cmemo *m = &t->cm;
	uint32_t v, c, i;
	int err;

	if (m->stale || m->nnode + r->n > LSA_CM_NODES)
		cm_clear(m);
	for (i = 0; i < r->n; i++)
		if ((err = cm_grow(m, r->sb[i]->id)))
			return err;
	CM_GROW(m->node, m->nnode, m->capnode, r->n);
	if (!m->root[r->sb[0]->id]) {
		v = node_new(m, r->sb[0], r->x[0], LSA_NONE);
		m->root[r->sb[0]->id] = v + 1;
	}
	v = m->root[r->sb[0]->id] - 1;
	if (m->node[v].x != r->x[0])
		return 0;	/* entered by another kind of call */
	for (i = 1; i < r->n; i++) {
		for (c = m->node[v].child; c != LSA_NONE &&
		     (m->node[c].sb != r->sb[i] || m->node[c].x != r->x[i]);
		     c = m->node[c].sib)
			;
		v = c != LSA_NONE ? c : node_new(m, r->sb[i], r->x[i], v);
	}
	if (m->node[v].eff)
		return 0;	/* the same sequence: the same effect */
	CM_GROW(m->eff, m->neff, m->capeff, 1);
	if ((err = eff_make(l, m, r, &m->eff[m->neff])))
		return err < 0 ? err : 0;	/* its nodes lead nowhere */
	m->node[v].eff = ++m->neff;
	return 0;
}

int lsa_cm_return(struct lsa_loops *l, struct lsa_thr *t, uint32_t popped)
{
	struct lsa_cmemo *m = &t->cm;
	struct lsa_crec *r;

	if (!m->nrec || m->rec[m->nrec - 1].fr != popped)
		return 0;
	r = &m->rec[--m->nrec];
	r->leaf = m->leaf;	/* leaf_call()'s count at that pop */
	if (!r->n)
		return 0;
	if (r->dead) {
		bad_add(m, r->sb[0]->id);
		return 0;
	}
	return cm_put(l, t, r);
}

int lsa_cm_begin(struct lsa_thr *t, const struct lsd_block *b)
{
	struct lsa_cmemo *m = &t->cm;
	uint32_t id = b->sb->id, v;

	if (id >= m->nroot || !m->root[id] || m->stale || m->nrec || t->deep ||
	    (m->bad[id] >= LSA_CM_BAD && ++m->tries % LSA_CM_RETRY) ||
	    t->landing || !t->psb || t->npath <= t->fr[t->nfr - 1].base)
		return 0;
	v = m->root[id] - 1;
	if (m->node[v].x != t->pexit)
		return 0;
	m->on = 1;
	m->at = v;
	m->nbuf = 0;
	m->ret = t->psb->end;
	return 1;
}

/* Applies effect e of the call whose blocks are m->buf: what the call's
 * transfer(), its blocks and its frames' pops do.  Returns 1 where the
 * call would reach the frame limit (not applied), else 0 or
 * -LS_ENOMEM. */
static int cm_apply(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_ceff *e)
{
	struct lsa_cmemo *m = &t->cm;
	struct lsa_pent *c;
	struct lsa_acc *a;
	uint32_t i, k;
	int err;

	if ((uint64_t)t->nfr + e->relfr > LSA_MAX_FRAMES)
		return 1;
	c = &t->path[t->npath - 1];
	if (c->acc == LSA_NONE) {
		uint32_t ai;

		if ((err = lsa_loops_acc_new(l, &ai)))
			return err;
		c->acc = ai;
	}
	a = &l->acc[c->acc];
	a->callee = e->callee;
	a->called = 1;
	l->st.blocks += e->nblocks;
	if (t->nfr + e->relfr > l->st.max_frames)
		l->st.max_frames = t->nfr + e->relfr;
	if (t->npath + e->relpath > l->st.max_path)
		l->st.max_path = t->npath + e->relpath;
	for (i = 0; i < e->nfx; i++) {
		const struct lsa_cfx *f = &m->fx[e->fx + i];
		struct lsa_frow *r = lsa_loops_frow(t, f->fn);

		if (!r)
			return -LS_ENOMEM;
		r->self += f->self;
		r->calls += f->calls;
	}
	for (i = 0; i < e->nsp; i++) {
		const struct lsa_csp *s = &m->sp[e->sp + i];
		struct lsa_frow *r = lsa_loops_frow(t, s->fn);

		if (!r)
			return -LS_ENOMEM;
		if (!r->active)
			r->total += s->len;
	}
	for (i = 0; i < m->nbuf; i++)
		if ((err = lsa_loops_pre_add(l, t, m->buf[i].sb->id, 0, 1)))
			return err;
	/* the calling entry's part of frame_pop() */
	a = &l->acc[c->acc];
	if (e->leaf && !a->nsq && !a->cself.n[0] && a->kids == LSA_NONE &&
	    !a->ctot.n[0]) {
		if (LS_GROW32(l->sq, l->nsq + e->leaf, l->capsq, 1024))
			return -LS_ENOMEM;
		for (k = 0; k < e->leaf; k++)
			l->sq[l->nsq + k] = m->buf[k].sb;
		a->sq = l->nsq;
		a->nsq = e->leaf;
		l->nsq += e->leaf;
		l->sqlive++;
	} else {
		lsa_loops_sq_drop(l, a);
	}
	for (k = 0; k < LSA_NC; k++)
		a->cself.n[k] += e->cself.n[k];
	t->insns += e->cself.n[0];
	return 0;
}

int lsa_cm_stop(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_cmemo *m = &t->cm;
	int err = 0, replay = t->memo.replay;
	uint32_t i;

	m->nrec = 0;
	if (!m->on)
		return 0;
	m->on = 0;
	if (m->nbuf)
		bad_add(m, m->buf[0].sb->id);
	t->memo.replay = 1;	/* no memo starts inside: they see every block */
	for (i = 0; i < m->nbuf && !err; i++)
		err = lsa_loops_block_one(l, t, &m->buf[i]);
	t->memo.replay = replay;
	m->nbuf = 0;
	return err;
}

size_t lsa_cm_run(struct lsa_loops *l, struct lsa_thr *t,
		  const struct lsd_block *b, size_t i, size_t n, int *err)
{
	struct lsa_cmemo *m = &t->cm;
	const struct lsa_cnode *node = m->node;
	uint32_t v = m->at, c;
	uint8_t px = m->px;

	*err = 0;
	for (; i < n; i++) {
		const struct lsd_sblock *sb = b[i].sb;

		if (!m->nbuf) {
			c = v;	/* the root, checked by lsa_cm_begin() */
		} else if (node[v].eff && px == LSD_EXIT_RET && sb->start == m->ret) {
			/* the call returned as called: its effect, and the
			 * block returned to goes on past its transfer() */
			int r = cm_apply(l, t, &m->eff[node[v].eff - 1]);

			if (r < 0) {
				*err = r;
				return i;
			}
			if (r > 0)
				break;
			l->st.cmemo_calls++;
			l->st.cmemo_blocks += m->nbuf;
			m->on = 0;
			if (m->bad[m->buf[0].sb->id])
				m->bad[m->buf[0].sb->id]--;
			t->psb = m->buf[m->nbuf - 1].sb;
			t->pexit = LSA_EXIT_APPLIED;
			t->pnext = m->buf[m->nbuf - 1].next;
			m->nbuf = 0;
			return i;
		} else {
			for (c = node[v].child; c != LSA_NONE &&
			     (node[c].sb != sb || node[c].x != px); c = node[c].sib)
				;
			if (c == LSA_NONE)
				break;
		}
		if (m->nbuf == LSA_CM_MAX)
			break;
		m->buf[m->nbuf++] = b[i];
		v = c;
		px = b[i].exit;
	}
	if (i == n) {
		m->at = v;
		m->px = px;
		return i;
	}
	/* left the trie: the call goes through the per-block path */
	*err = lsa_cm_stop(l, t);
	return i;
}

void lsa_cm_release(struct lsa_cmemo *m)
{
	free(m->node);
	free(m->eff);
	free(m->fx);
	free(m->sp);
	free(m->root);
	free(m->intrie);
	free(m->bad);
	memset(m, 0, sizeof(*m));
}
