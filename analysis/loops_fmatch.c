/* loops_fmatch.c - the learning pass's memo: matching (the tries and the
 * log are loops_fmemo.c's, the replay where it stops loops_freplay.c's).
 *
 * Matching begins after a loop head whose trie there is (lsa_fm_begin),
 * or after a block that calls whose trie of calls there is
 * (lsa_fm_cbegin: a call made where no iteration is matched, one taken
 * whole if it returns where it was made).  It walks the trie over the
 * blocks as they come, moving the child taken to the front of its
 * siblings, and drops each iteration that ends at the head as the
 * per-block path's loop back would.  What
 * the tries hold collapsed is taken as levels of their own, nested: at
 * a node whose block's call was collapsed (LSA_FN_CALL), the calling
 * block's trie of calls is tried first; at one whose block's loop's
 * iterations were (LSA_FN_COLL), that head's trie.  A level's iteration
 * or call matched whole is dropped from the log as the per-block path
 * drops it; where a level leaves its trie part-way, the blocks it took
 * are walked again on the level below, from the node it began at.
 *
 * A nested loop's iteration is the one its trie holds only where none of
 * its blocks of the head's frame lies on that frame's path below the
 * head: the real path below the outer head and the blocks the levels
 * below put on it, checked for the blocks the trie lists as the level
 * begins, or, where they are too many to list, one by one as the level
 * takes them (a wide level, one at a time; the marks of that path are
 * loops_fmark.c's).  A call's blocks are all of frames of its own.  An
 * iteration that leaves the outer trie goes through the per-block path
 * as the log keeps it (lsa_fm_replay()), unless the blocks it matched
 * are ones that path would only push (LSA_FN_PUSH: most often an entry's
 * last iteration, leaving the loop): then they are pushed as they are.  A head whose iterations keep leaving the trie is tried once
 * in LSA_FM_RETRY, as a level too. */
#include "analysis/loops_int.h"

/* The child of node at for block sb entered as xx says (moved to the
 * front of its siblings), or NULL.  Inline: a call in fm_walk()'s loop,
 * taken for a fifth of its blocks, left its state to callee-saved
 * registers and the stack (learning pass Ir -2.0% xz, -3.3% bzip2). */
static inline __attribute__((always_inline)) struct lsa_fnode *
fm_child(struct lsa_fnode *nd, uint32_t at, const struct lsd_sblock *sb, uint16_t xx)
{
	uint32_t c, prev = LSA_NONE;

	for (c = nd[at].child; c != LSA_NONE; prev = c, c = nd[c].sib)
		if (nd[c].sb == sb && nd[c].xx == xx)
			break;
	if (c == LSA_NONE)
		return NULL;
	if (prev != LSA_NONE) {
		nd[prev].sib = nd[c].sib;
		nd[c].sib = nd[at].child;
		nd[at].child = c;
	}
	return &nd[c];
}

/* ... below the head. */
static int fm_below(const struct lsa_thr *t, uint32_t id)
{
	return lsa_fm_under(t, id, t->fm.ti);
}

/* Whether the block of node cn, one of the outer head's frame the
 * iteration pushes, is on its path below the head. */
static inline int fm_top_below(const struct lsa_thr *t, const struct lsa_fnode *cn)
{
	return (cn->flags & LSA_FN_TOP) && !cn->term && fm_below(t, cn->id);
}

/* Whether the block of node cn, one of the head's frame the top level,
 * a wide one, pushes, is on that frame's path below the level's head
 * (lsa_fm_pmark()). */
static inline int fm_wtop_below(const struct lsa_thr *t, const struct lsa_fnode *cn)
{
	const struct lsa_fmemo *m = &t->fm;

	return (cn->flags & LSA_FN_TOP) && !cn->term &&
	       (m->head[cn->id].wsh == m->wstamp || (m->wreal && lsa_fm_under(t, cn->id, m->ti + 1)));
}

/* Whether the wide level (lsa_fmemo.wtop) is one of the levels
 * matching. */
static inline int fm_wide_on(const struct lsa_fmemo *m)
{
	return m->wtop && m->wtop <= m->top && m->lv[m->wtop].id == m->wid;
}

/* Whether it is the top level. */
static inline int fm_wide_top(const struct lsa_fmemo *m)
{
	return m->wtop && m->wtop == m->top && m->lv[m->top].id == m->wid;
}

/* A level was begun (lv[top]): where fm_level() made it a wide one, it
 * is. */
static inline void fm_wide_begun(struct lsa_fmemo *m)
{
	if (m->wpend) {
		m->wpend = 0;
		m->wtop = m->top;
		m->wid = m->lv[m->top].id;
		m->nwide++;
	}
}

/* Whether a block of the head's frame that trie rt holds is on the
 * path below the head (fm.ti, fm.base set). */
static int tops_below(const struct lsa_thr *t, const struct lsa_fmemo *m, uint32_t rt)
{
	const uint32_t *tp = &m->tops[m->node[rt].aux];
	uint32_t k;

	for (k = 1; k <= tp[0]; k++)
		if (fm_below(t, tp[k]))
			return 1;
	return 0;
}

static int fm_starts(struct lsa_fmemo *m, uint32_t rt, uint32_t *last);
static void fm_push(struct lsa_thr *t, int calls);

/* A new level's id (below 2^26; see lsa_fmemo.shv). */
static uint32_t fm_lvid(struct lsa_fmemo *m)
{
	if (++m->lvid >= 1u << 26) {	/* (no stale mark may match) */
		uint32_t k;

		for (k = 0; k < m->nnode; k++)
			m->shv[k] = 0;
		m->wtop = 0;	/* (nor a stale wide level's id) */
		m->pm[0].ok = m->pm[1].ok = 0;	/* (nor a walk's) */
		m->lvid = 1;
	}
	return m->lvid;
}

/* Matching begins after path entry ti's block, the log's last, on trie
 * rt, a level of kind. */
static void fm_open(struct lsa_thr *t, uint32_t ti, uint32_t rt, int kind)
{
	struct lsa_fmemo *m = &t->fm;

	m->on = 1;
	m->cfin = 0;
	m->top = 0;
	m->lv[0] = (struct lsa_flv){ rt, rt, m->pos, 0, 0, kind, fm_lvid(m) };
	m->ti = ti;
	m->base = t->fr[t->nfr - 1].base;
	m->px = t->pexit;
	m->done = 0;
	m->rq = m->rhi = 0;
	m->tb = 0;
	m->ce = 0;
	m->wide = 0;
}

void lsa_fm_begin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		  const struct lsd_block *nx)
{
	struct lsa_fmemo *m = &t->fm;
	uint32_t id = t->path[ti].sb->id, rt;

	if (!l->fmemo || id >= m->nhead || !m->head[id].root || m->start[ti] != m->pos)
		return;
	if (m->head[id].bad >= LSA_FM_BAD && ++m->tries % LSA_FM_RETRY)
		return;
	rt = m->head[id].root - 1;
	fm_open(t, ti, rt, LSA_LV_ITER);
	/* blocks to check one by one: the trie's too many, or one is there */
	m->wide = m->node[rt].aux == LSA_NONE || tops_below(t, m, rt);
	/* (a head that calls: its call first, as after an iteration) */
	if (m->px == LSD_EXIT_CALL || m->px == LSD_EXIT_ICALL) {
		m->nx = nx;
		fm_push(t, 1);
	}
}

void lsa_fm_cbegin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		   const struct lsd_block *nx)
{
	struct lsa_fmemo *m = &t->fm;
	uint32_t id = t->path[ti].sb->id;
	struct lsa_fhead *hd;

	/* (the frames the call and the levels in it may push: room) */
	if (!l->fmemo || id >= m->nhead || !(hd = &m->head[id])->croot || t->deep ||
	    t->nfr >= LSA_MAX_FRAMES - LSA_FM_LEVELS * 2 * LSA_FM_MAX ||
	    lsa_fm_at(m, m->pos - 1)->sb != t->path[ti].sb)
		return;
	m->nx = nx;
	m->px = t->pexit;
	if (!fm_starts(m, hd->croot - 1, &hd->clast) ||
	    (hd->cbad >= LSA_FM_BAD && ++m->tries % LSA_FM_RETRY))
		return;
	fm_open(t, ti, hd->croot - 1, LSA_LV_CALL);
}

/* Whether trie rt may take block nx (NULL: unknown, yes) after exit px;
 * *last (lsa_fhead.rlast or clast) is the child + 1 that did last, asked
 * first: one node read where most tries begin as they did before
 * (rather than the root's and its children's, out of the cache).  A
 * child of rt is a node whose parent is rt: the tries never move one,
 * and drop every one at once (fm_clear(), which clears *last too). */
static inline __attribute__((always_inline)) int
fm_starts_at(const struct lsa_fnode *nd, uint32_t rt, uint8_t px, const struct lsd_block *nx,
	     uint32_t *last)
{
	uint16_t xx;
	uint32_t c;

	if (!nx)
		return 1;
	xx = (uint16_t)(px << 8 | nx->exit);
	if ((c = *last) && nd[c - 1].parent == rt && nd[c - 1].sb == nx->sb && nd[c - 1].xx == xx)
		return 1;
	for (c = nd[rt].child; c != LSA_NONE; c = nd[c].sib)
		if (nd[c].sb == nx->sb && nd[c].xx == xx) {
			*last = c + 1;
			return 1;
		}
	return 0;
}

/* ... the next block (fm.nx, after fm.px). */
static int fm_starts(struct lsa_fmemo *m, uint32_t rt, uint32_t *last)
{
	return fm_starts_at(m->node, rt, m->px, m->nx, last);
}

/* The top level v, at node at (its block left by exit px, nx next, NULL
 * where not known), reached a node after which its block's call (calls
 * set: the call comes first), or iterations of its block's loop, were
 * collapsed: that trie is tried first, as a level of its own, where it
 * may be (and where it begins with the next block).  Returns the kind of
 * the level to begin (LSA_LV_*, its trie in *lrt), or -1 for none.
 * always_inline: fm_walk() asks it on its state. */
static inline __attribute__((always_inline)) int
fm_level(struct lsa_thr *t, const struct lsa_fnode *node, struct lsa_flv *v, uint32_t at,
	 uint8_t px, const struct lsd_block *nx, int calls, uint32_t *lrt)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_fnode *nd = &node[at];
	struct lsa_fhead *hd;
	uint32_t rt, k;

	if (m->top + 1 >= LSA_FM_LEVELS)
		return -1;
	hd = &m->head[nd->id];	/* (every node's is there) */
	if (calls && (px == LSD_EXIT_CALL || px == LSD_EXIT_ICALL) && hd->croot &&
	    fm_starts_at(node, hd->croot - 1, px, nx, &hd->clast) &&
	    (hd->cbad < LSA_FM_BAD || !(++m->tries % LSA_FM_RETRY))) {
		*lrt = hd->croot - 1;
		return LSA_LV_CALL;
	}
	if (!(nd->flags & LSA_FN_COLL) || at == v->rt || !hd->root)
		return -1;
	rt = hd->root - 1;
	if (!fm_starts_at(node, rt, px, nx, &hd->rlast))
		return -1;
	/* A trie whose head's frame's blocks are too many to list: a wide
	 * level, its blocks checked one by one as it takes them (one at a
	 * time; the outermost loop of base64 xz's encoder, whose nested
	 * loops' iterations hold 40 and more of its blocks: without it
	 * 102,000 iterations of the 200,000 per 200 KB left the outer trie
	 * and went through the per-block path) */
	if (node[rt].aux == LSA_NONE) {
		int below;

		if (fm_wide_on(m))
			return -1;
		v->at = at;	/* (lsa_fm_pmark() reads it) */
		m->wreal = lsa_fm_pmark(m, 1, &below);
		m->wpend = 1;
		*lrt = rt;
		return LSA_LV_ITER;
	}
	/* (tried every time: where it takes no iteration, what it took is
	 * walked again, a compare a block, and no more.)  Found clear at
	 * this node before, its list as long: the path below is the same.
	 * It is the node's own path, and where that went below the level,
	 * the levels below it (the same while this level lives: its id)
	 * and the real path (the same in one matching, every level's id
	 * new in it). */
	k = m->tops[node[rt].aux] + 1;
	if (m->shv[at] != k && m->shv[at] != (v->id << 6 | k)) {
		int below;

		v->at = at;	/* (lsa_fm_shadowed() reads it) */
		if (lsa_fm_shadowed(t, rt, &below))
			return -1;
		m->shv[at] = below ? v->id << 6 | k : k;
	}
	*lrt = rt;
	return LSA_LV_ITER;
}

/* fm_level() of the top level as the memo has it: the level begun. */
static void fm_push(struct lsa_thr *t, int calls)
{
	struct lsa_fmemo *m = &t->fm;
	struct lsa_flv *v = &m->lv[m->top];
	uint32_t rt;
	int kind = fm_level(t, m->node, v, v->at, m->px, m->nx, calls, &rt);

	if (kind < 0)
		return;
	m->lv[m->top + 1] = (struct lsa_flv){ rt, rt, m->pos, 0, 0, kind, fm_lvid(m) };
	m->top++;
	fm_wide_begun(m);
}

/* The top level's trie does not have the next block: a nested level
 * ends, the blocks of its unfinished iteration or call (a last one that
 * left the loop, or none) to be walked again on the level below, from
 * the node it began at.  Returns 0 at the outer level (matching stops).
 * (always_inline: fm_walk() ends a loop's level by it where its loop
 * left, 0.9M times per 200 KB of base64 xz) */
static inline __attribute__((always_inline)) int fm_pop(struct lsa_thr *t)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_flv *v = &m->lv[m->top];
	struct lsa_fhead *hd;

	if (!m->top)
		return 0;
	hd = &m->head[m->node[v->rt].id];
	if (v->kind == LSA_LV_ITER)
		hd->taken += v->iters ? v->nb : 0;
	else if (hd->cbad < 255)
		hd->cbad++;	/* (a call that left the trie) */
	m->top--;
	/* (walked again after the block the level began after) */
	if (m->pos > v->s || m->rq < m->rhi) {
		m->px = lsa_fm_kx(lsa_fm_at(m, v->s - 1));
		lsa_fm_requeue(m, v->s);
	}
	return 1;
}

/* Matching at the outer level left the trie: it stops. */
static void fm_left(struct lsa_fmemo *m)
{
	struct lsa_fhead *hd = &m->head[m->node[m->lv[0].rt].id];
	uint8_t *bad = m->lv[0].kind == LSA_LV_CALL ? &hd->cbad : &hd->bad;

	m->on = 0;
	if (m->done)
		*bad = 0;
	else if (*bad < 255)
		(*bad)++;
}

/* done iterations of the outer level ended, of blocks blocks. */
static void fm_outer(struct lsa_thr *t, uint64_t done, uint64_t blocks)
{
	struct lsa_fmemo *m = &t->fm;

	t->path[m->ti].lb += done;	/* (loop backs to it: lsa_ksnap) */
	m->done += done;
	m->iters += done;
	m->taken += blocks;
	m->head[m->node[m->lv[0].rt].id].taken += blocks;
}

/* Level v took nb blocks more, ending done iterations, the last of them
 * at lt (xe the block after those taken): what they owe its counts and,
 * at the outer level, the head's entry.  (lsa_fm_run() after a walk, and
 * fm_walk() where a level begins or ends.) */
static inline __attribute__((always_inline)) void
fm_taken(struct lsa_thr *t, struct lsa_flv *v, uint64_t nb, uint64_t done,
	 const struct lsd_block *lt, const struct lsd_block *xe)
{
	struct lsa_fmemo *m = &t->fm;

	v->nb += nb;
	m->tb += nb;
	if (nb)
		m->ce = 0;	/* (a call dropped is one no more) */
	v->iters += done;
	if (done && !m->top) {
		/* the blocks of the iterations it ended were taken */
		uint64_t rest = (uint64_t)(xe - (lt + 1));

		fm_outer(t, done, m->tb - rest);
		m->tb = rest;
	}
}

/* An iteration of level v ended with its head's block, the last taken
 * (at log position pos - 1, left by exit px): the log drops it, as the
 * per-block path's loop back does.  Returns the log's end now (v->s);
 * the level's node is its root again. */
static inline __attribute__((always_inline)) uint64_t
fm_term_at(struct lsa_thr *t, struct lsa_flv *v, uint8_t px, uint64_t pos)
{
	struct lsa_fmemo *m = &t->fm;

	lsa_fm_lb(m, v->s - 1, px, 1, lsa_fm_next(m, pos - 1));
	v->iters++;
	if (!m->top) {
		fm_outer(t, 1, m->tb);
		m->tb = 0;
	}
	return v->s;
}

/* fm_term_at() of the top level as the memo has it. */
static void fm_term(struct lsa_thr *t, struct lsa_flv *v)
{
	struct lsa_fmemo *m = &t->fm;

	m->pos = fm_term_at(t, v, m->px, m->pos);
	v->at = v->rt;
}

/* Level v, a call's, took the return that ends it (the log's end pos,
 * the return's exit px): its trie is told, and where drop is set the log
 * drops the call (kept at cs .. ce to put back), as the per-block path
 * does where its frame pops; the log's end is then v->s, and the next
 * block follows a call applied. */
static inline __attribute__((always_inline)) void
fm_call_end(struct lsa_fmemo *m, const struct lsa_flv *v, uint64_t pos, uint8_t px, int drop)
{
	struct lsa_fhead *hd = &m->head[m->node[v->rt].id];

	if (drop) {
		struct lsa_flog *h = lsa_fm_at(m, v->s - 1);

		m->cs = v->s;
		m->ce = pos;
		m->cfl = h->fl;
		m->ccx = h->cx;
		lsa_fm_called(m, v->s - 1, lsa_fm_at(m, v->s)->sb, px);
	}
	hd->cbad = 0;
	hd->ctaken += v->nb;
}

/* The top level, a call's, took the return that ends it: fm_call_end(),
 * and the level below goes on at the calling block. */
static void fm_cend(struct lsa_thr *t)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_flv *v = &m->lv[m->top];
	/* (where it ended on a block walked again, with blocks after it
	 * still to walk, they go where its blocks are: it stays in the log,
	 * as a call not collapsed, which the level below does not take and
	 * the per-block path does) */
	const int drop = m->rq >= m->rhi;

	fm_call_end(m, v, m->pos, m->px, drop);
	if (drop) {
		m->pos = v->s;
		m->px = LSA_EXIT_APPLIED;	/* (lsa_fm_kx()) */
	}
	if (!m->top) {
		m->cfin = 1;	/* (a call's own matching: it ended) */
		return;
	}
	m->top--;
	/* (only a loop's iterations may be tried after it: 5.9M of base64
	 * xz's 6.2M calls ended at nodes with none collapsed after them) */
	if (m->node[m->lv[m->top].at].flags & LSA_FN_COLL)
		fm_push(t, 0);
}

/* The top level took a block into node cn (its reached node now): an
 * iteration or a call ends there, or a level may begin after it (push
 * unset: only what ends). */
static void fm_after(struct lsa_thr *t, const struct lsa_fnode *cn, int push)
{
	struct lsa_fmemo *m = &t->fm;
	struct lsa_flv *v = &m->lv[m->top];

	if (cn->term && v->kind == LSA_LV_CALL) {
		fm_cend(t);
		return;
	}
	if (cn->term)
		fm_term(t, v);
	if (push && (cn->flags & (LSA_FN_CALL | LSA_FN_COLL)))
		fm_push(t, 1);
}

/* Walks the blocks pending (log[rq .. rhi)) on the levels.  (What was
 * collapsed in them was matched already: no level begins in them.)
 * Returns 0 where the outer level left the trie (matching stopped, those
 * not taken still pending), else 1. */
static int fm_refeed(struct lsa_thr *t)
{
	struct lsa_fmemo *m = &t->fm;

	while (m->rq < m->rhi) {
		const struct lsa_flog *g = lsa_fm_at(m, m->rq);
		struct lsa_flv *v = &m->lv[m->top];
		struct lsa_fnode *cn = fm_child(m->node, v->at, g->sb,
						(uint16_t)(m->px << 8 | g->exit));

		if (cn && (m->top ? fm_wide_top(m) && fm_wtop_below(t, cn) :
				    m->wide && fm_top_below(t, cn)))
			cn = NULL;
		if (!cn) {
			if (!fm_pop(t)) {
				fm_left(m);
				return 0;
			}
			continue;
		}
		m->px = lsa_fm_kx(g);
		m->nx = NULL;
		lsa_fm_copy(m, m->pos++, m->rq++);
		v->at = (uint32_t)(cn - m->node);
		fm_after(t, cn, 0);
	}
	return 1;
}

enum { FW_END, FW_AFTER, FW_MISS };

/* A walk's state (fm_walk()): the block x to take, the last that ended
 * an iteration lt and where the iteration under way began ls (if in this
 * walk), the level's trie rt, node at and first log position s, the
 * log's end pos, the last exit px, the iterations ended done. */
struct fm_ws {
	const struct lsd_block *x, *lt, *ls;
	uint32_t rt, at;
	uint64_t s, pos, done;
	uint8_t px;
};

enum { FW_STOP = 3 };

/* fm_walk()'s steps on one level (a call's: call set) until a block it
 * must stop after (FW_STOP, w->x that block, taken), the end (FW_END) or
 * a block the trie does not have (FW_MISS); wide 1: the outer level's
 * blocks of the head's frame checked (lsa_fmemo.wide), 2: the wide
 * level's.  always_inline with wide and call constant: the state stays
 * in registers. */
static inline __attribute__((always_inline)) int
fm_steps(struct lsa_thr *t, struct fm_ws *w, const struct lsd_block *b,
	 const struct lsd_block *end, size_t n, const int wide, const int call)
{
	struct lsa_fmemo *m = &t->fm;
	struct lsa_fnode *nd = m->node;
	struct lsa_flog *log = m->log;
	const struct lsd_block *x = w->x, *lt = w->lt, *ls = w->ls;
	const uint32_t rt = w->rt;
	const uint64_t s = w->s;
	uint32_t at = w->at;
	uint64_t pos = w->pos, done = w->done;
	uint8_t px = w->px;
	int r = FW_END;
	size_t k;

	for (; x < end; x++) {
		const struct lsd_sblock *sb = x->sb;
		uint16_t xx = (uint16_t)(px << 8 | x->exit);
		uint32_t c = at + 1;
		struct lsa_fnode *cn = &nd[c];

		/* (a sequence kept goes into consecutive nodes where it
		 * leaves the trie: the child is mostly the next node, whose
		 * address needs no load; after the last, a node of no
		 * parent: node_new()) */
		if (__builtin_expect(cn->parent != at || cn->sb != sb || cn->xx != xx, 0)) {
			if (!(cn = fm_child(nd, at, sb, xx))) {
				r = FW_MISS;
				break;
			}
			c = (uint32_t)(cn - nd);
		}
		/* a block of the head's frame on its path below the head (the
		 * outer level's, or the wide one's) */
		if (wide == 1 && fm_top_below(t, cn)) {
			r = FW_MISS;
			break;
		}
		if (wide == 2 && fm_wtop_below(t, cn)) {
			r = FW_MISS;
			break;
		}
		log[pos & (LSA_FM_LOG - 1)].sb = sb;
		log[pos & (LSA_FM_LOG - 1)].w = x->exit;
		pos++;
		px = x->exit;
		at = c;
		if (__builtin_expect(cn->flags & (LSA_FN_COLL | LSA_FN_CALL), 0) ||
		    (call && cn->term)) {
			r = FW_STOP;
			break;
		}
		if (cn->term) {
			/* back at the head: nothing new (fm_term(); the head's
			 * entry is told below) */
			pos = s;
			at = rt;
			done++;
			/* (and those that repeat it: the same nodes) */
			if (ls && (k = lsa_memo_repeat(b, (size_t)(ls - b), (size_t)(x - b), n))) {
				done += k / (size_t)(x + 1 - ls);
				x += k;
				m->again += k;
			}
			lt = x;
			ls = x + 1;
		}
	}
	w->x = x;
	w->lt = lt;
	w->ls = ls;
	w->at = at;
	w->pos = pos;
	w->done = done;
	w->px = px;
	return r;
}

/* lsa_fm_run()'s walk over b[i .. n) from the top level, *pi the first
 * block not taken; *pi0 where the top level's blocks began (the levels'
 * counts before it are in), the iterations it ended since in *pdone, the
 * last block that ended one in *last (left as it is where none did).
 * Returns FW_END (all taken), FW_AFTER (stopped after a block fm_after()
 * must see: a call's end with blocks pending, or the outer level's) or
 * FW_MISS (the next block leaves the trie).  Levels begin and end here,
 * as fm_after() has them, on the walk's state: base64 xz's learning pass
 * begins one every 11 blocks, and each way out to lsa_fm_run() and back
 * cost about as much as the level. */
static int fm_walk(struct lsa_thr *t, const struct lsd_block *b, size_t *pi, size_t *pi0,
		   size_t n, uint64_t *pdone, const struct lsd_block **last)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_fnode *nd = m->node;
	struct lsa_flv *v = &m->lv[m->top];
	const struct lsd_block *end = b + n, *x0 = b + *pi;
	struct fm_ws w = { x0, NULL, v->at == v->rt ? x0 : NULL, v->rt, v->at, v->s,
			   m->pos, 0, m->px };
	int r;

	for (;;) {
		const struct lsd_block *x, *nx;
		const struct lsa_fnode *cn;
		uint64_t nb;
		uint32_t lrt;
		int calls = 1, kind;

		if (!m->top && m->wide)
			r = fm_steps(t, &w, b, end, n, 1, 0);
		else if (v->kind == LSA_LV_CALL)
			r = fm_steps(t, &w, b, end, n, 0, 1);
		else if (fm_wide_top(m))
			r = fm_steps(t, &w, b, end, n, 2, 0);
		else
			r = fm_steps(t, &w, b, end, n, 0, 0);
		if (r == FW_MISS && m->top && v->kind == LSA_LV_ITER && w.pos == w.s &&
		    m->rq >= m->rhi) {
			/* A nested loop's level left its trie where an
			 * iteration had ended (its loop left): it ends here
			 * (fm_pop(), nothing to walk again), and the level
			 * below walks on from the block it began after (1.9M
			 * times on 300 KB of xz's text; each way out to
			 * lsa_fm_run() and back cost about 100 instructions). */
			if (w.lt)
				lsa_fm_lb(m, w.s - 1, w.lt->exit, w.done, w.lt->next);
			fm_taken(t, v, (uint64_t)(w.x - x0), w.done, w.lt, w.x);
			m->pos = w.pos;
			(void)fm_pop(t);
			v = &m->lv[m->top];
			w.done = 0;
			w.lt = NULL;
			w.rt = v->rt;
			w.s = v->s;
			w.at = v->at;
			x0 = w.x;
			w.ls = w.at == w.rt ? x0 : NULL;
			continue;
		}
		if (r != FW_STOP)
			break;
		/* What lsa_fm_run() and fm_after() do after a block a level
		 * ends or may begin after (cn), the walk on after it */
		x = w.x;
		w.x = x + 1;
		nx = x + 1 < end ? x + 1 : NULL;
		nb = (uint64_t)(x + 1 - x0);
		cn = &nd[w.at];
		if (v->kind == LSA_LV_CALL && cn->term) {
			/* the call returns (fm_cend()) */
			if (m->rq < m->rhi || !m->top) {
				r = FW_AFTER;
				break;
			}
			fm_taken(t, v, nb, 0, NULL, NULL);
			fm_call_end(m, v, w.pos, w.px, 1);
			w.pos = w.s;
			w.px = LSA_EXIT_APPLIED;
			v = &m->lv[--m->top];
			w.rt = v->rt;
			w.s = v->s;
			w.at = v->at;
			x0 = x + 1;
			w.ls = w.at == w.rt ? x0 : NULL;
			/* (only a loop's iterations may be tried after it) */
			if (!(nd[w.at].flags & LSA_FN_COLL))
				continue;
			calls = 0;
		} else {
			if (w.lt)
				lsa_fm_lb(m, w.s - 1, w.lt->exit, w.done, w.lt->next);
			fm_taken(t, v, nb, w.done, w.lt, x + 1);
			w.done = 0;
			w.lt = NULL;
			x0 = x + 1;
			if (cn->term) {
				/* an iteration ends (fm_term()) */
				w.pos = fm_term_at(t, v, w.px, w.pos);
				w.at = w.rt;
			}
			w.ls = w.at == w.rt ? x0 : NULL;
		}
		/* a level may begin (fm_push()) */
		if ((kind = fm_level(t, nd, v, w.at, w.px, nx, calls, &lrt)) < 0)
			continue;
		v->at = w.at;
		m->nx = nx;
		m->px = w.px;
		v = &m->lv[++m->top];
		*v = (struct lsa_flv){ lrt, lrt, w.pos, 0, 0, kind, fm_lvid(m) };
		fm_wide_begun(m);
		w.rt = w.at = lrt;
		w.s = w.pos;
		w.ls = x0;
	}
	if (w.lt) {
		lsa_fm_lb(m, w.s - 1, w.lt->exit, w.done, w.lt->next);
		*last = w.lt;
	}
	*pi = (size_t)(w.x - b);
	*pi0 = (size_t)(x0 - b);
	v->at = w.at;
	m->pos = w.pos;
	m->px = w.px;
	*pdone = w.done;
	return r;
}

size_t lsa_fm_run(struct lsa_thr *t, const struct lsd_block *b, size_t i, size_t n)
{
	struct lsa_fmemo *m = &t->fm;

	while (m->on && !m->cfin) {
		const struct lsd_block *last = NULL;
		struct lsa_flv *v;
		uint64_t done;
		size_t i0;
		int r;

		if (m->rq < m->rhi && !fm_refeed(t))
			break;
		if (i == n)
			break;
		r = fm_walk(t, b, &i, &i0, n, &done, &last);
		v = &m->lv[m->top];
		fm_taken(t, v, i - i0, done, last, b + i);
		if (r == FW_AFTER) {
			m->nx = i < n ? &b[i] : NULL;
			fm_after(t, &m->node[v->at], 1);
		} else if (r == FW_MISS && !fm_pop(t)) {
			fm_left(m);
		}
	}
	/* (a call's own matching that ended: over at the next block) */
	if (m->cfin && i < n)
		m->on = 0;
	return i;
}
