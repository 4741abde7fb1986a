/* loops_fmemo.c - the learning pass's memo (see struct lsa_fmemo).
 *
 * Why an iteration run again teaches nothing: what a learning pass keeps
 * (loop heads, and the blocks on the path at each loop back) follows from
 * the frames and the paths alone, and those follow from the block
 * sequence: a call pushes a frame with an empty path, a return pops the
 * frame it matches, a block on the top frame's path is a loop back, any
 * other is pushed.  An iteration begins after its head was pushed or
 * looped back to (the path ends at the head) and ends at the next loop
 * back to it; every frame it pushed is popped by then, every path entry
 * above the head too.  So given the head's entry and its function as
 * the running one, the same blocks entered by the same exits make the same
 * frames and paths: the same loop backs, the same heads and bodies, and
 * at the end the same state.  What may consult the frames below the
 * head's (a return to none of the iteration's frames, a jump into a
 * function an older frame runs, a signal, a hole in the trace, frames
 * past LSA_MAX_FRAMES) marks the log dirty: no iteration spanning it is
 * kept.  And what lies on the head's frame's path below the head: a
 * block of the iteration in that frame found there is a loop back to an
 * outer loop.  A recorded iteration had none such; matching checks each
 * block of the head's frame for it (its membership), and leaves the trie
 * where one is.
 *
 * The tries are the thread's own (what it learned is its own), built
 * from the log of the blocks it took; a node is a block with the exit
 * into it and its own, so that a node's children differ in their block
 * or exits.  Matching walks a trie, moving the child taken to the front
 * of its siblings; an iteration that leaves it goes through the
 * per-block path from its first block (loops.c), unless the blocks it
 * matched are ones that path would only push (LSA_FN_PUSH: most often
 * an entry's last iteration, leaving the loop): then they are pushed
 * as they are.  A head whose iterations keep leaving the trie is tried
 * once in LSA_FM_RETRY. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define LSA_FM_BAD 16		/* iterations that left in a row: a bad head */
#define LSA_FM_RETRY 64
#define LSA_FM_TOPS 31		/* blocks of the head's frame a trie lists */
#define LSA_FM_GROW 2048	/* nodes a trie makes before it must pay */

static int heads_grow(struct lsa_fmemo *m, uint32_t id)
{
	size_t n = (size_t)id + 1;
	struct lsa_fhead *p;

	n = n < 1024 ? 1024 : n + n / 2;
	p = ls_reallocarray(m->head, n, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	memset(p + m->nhead, 0, (n - m->nhead) * sizeof(*p));
	m->head = p;
	m->nhead = n;
	return 0;
}

int lsa_fm_mark_grow(struct lsa_thr *t, uint32_t k)
{
	struct lsa_fmemo *m = &t->fm;
	uint32_t n = k < 256 ? 512 : k * 2;
	uint64_t *p = ls_reallocarray(m->start, n, sizeof(*p));

	if (!p)
		return -LS_ENOMEM;
	m->start = p;
	m->capstart = n;
	return 0;
}

/* Drops every trie (at the node limit): they are rebuilt as they run. */
static void fm_clear(struct lsa_fmemo *m)
{
	size_t i;

	m->nnode = m->ntops = 0;
	for (i = 0; i < m->nhead; i++) {
		m->head[i].root = m->head[i].nodes = 0;
		m->head[i].taken = 0;
	}
}

static int node_new(struct lsa_fmemo *m, const struct lsd_sblock *sb, uint16_t xx,
		    int flags, uint32_t parent, uint32_t *out)
{
	struct lsa_fnode *n;

	if (LS_GROW32(m->node, m->nnode + 1, m->capnode, 1024))
		return -LS_ENOMEM;
	n = &m->node[m->nnode];
	n->sb = sb;
	n->id = sb->id;
	n->xx = xx;
	n->term = 0;
	n->flags = (uint8_t)flags;
	n->aux = LSA_NONE;
	n->child = LSA_NONE;
	n->parent = parent;
	if (parent != LSA_NONE) {
		n->sib = m->node[parent].child;
		m->node[parent].child = m->nnode;
	} else {
		n->sib = LSA_NONE;
	}
	*out = m->nnode++;
	return 0;
}

/* Notes block id of the head's frame in trie rt (up to LSA_FM_TOPS,
 * then the trie's blocks are checked one by one). */
static void tops_add(struct lsa_fmemo *m, uint32_t rt, uint32_t id)
{
	uint32_t *tp, k;

	if (m->node[rt].aux == LSA_NONE)
		return;
	tp = &m->tops[m->node[rt].aux];
	for (k = 1; k <= tp[0]; k++)
		if (tp[k] == id)
			return;
	if (tp[0] == LSA_FM_TOPS)
		m->node[rt].aux = LSA_NONE;
	else
		tp[++tp[0]] = id;
}

/* The child of node at for block sb entered as xx says (moved to the
 * front of its siblings), or NULL. */
static struct lsa_fnode *fm_child(struct lsa_fnode *nd, uint32_t at,
				  const struct lsd_sblock *sb, uint16_t xx)
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

/* Whether block id of the head's frame is on its path below the head: a
 * loop back the trie does not have. */
static int fm_below(const struct lsa_thr *t, uint32_t id)
{
	uint32_t v = lsa_loops_mem_get(t, id);

	return v != LSA_NONE && v >= t->fm.base && v < t->fm.ti;
}

int lsa_fm_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, uint32_t f)
{
	struct lsa_fmemo *m = &t->fm;
	uint64_t s = ti < m->capstart ? m->start[ti] : LSA_FM_NOPOS, p;
	const struct lsa_flog *h;
	struct lsa_fhead *hd;
	uint32_t at, c, id, n0;
	uint8_t px;
	int err, depth = 0, push = 1;

	/* kept: begun where it could be, clean since, its head block (at
	 * s - 1) and its blocks still in the log */
	if (s == LSA_FM_NOPOS || s < m->dirty || !s || m->pos <= s ||
	    m->pos - s > LSA_FM_MAX)
		return 0;
	/* the head's function running again (an unknown one: no block of
	 * a known one made it the frame's) */
	if (t->fr[t->nfr - 1].cur != f)
		return 0;
	h = &m->log[(s - 1) & (LSA_FM_LOG - 1)];
	if (h->sb != t->path[ti].sb)
		return 0;
	id = h->sb->id;
	if (id >= m->nhead && (err = heads_grow(m, id)))
		return err;
	hd = &m->head[id];
	/* a trie that grows and is not matched (its iterations differ
	 * every time) costs more than it saves: it grows no more */
	if (hd->nodes >= LSA_FM_GROW && hd->taken < hd->nodes)
		return 0;
	if (m->nnode + (m->pos - s) + 1 > LSA_FM_NODES)
		fm_clear(m);
	if (!hd->root) {
		if ((err = node_new(m, h->sb, 0, LSA_FN_TOP | LSA_FN_PUSH, LSA_NONE, &at)))
			return err;
		hd->root = at + 1;
		if (LS_GROW32(m->tops, m->ntops + LSA_FM_TOPS + 1, m->captops, 1024))
			return -LS_ENOMEM;
		m->node[at].aux = m->ntops;
		m->tops[m->ntops] = 0;
		m->ntops += LSA_FM_TOPS + 1;
	}
	at = hd->root - 1;
	px = h->exit;
	n0 = m->nnode;
	m->head[id].seen = ++m->epoch;	/* (the head again ends it) */
	for (p = s; p < m->pos; p++) {
		const struct lsa_flog *g = &m->log[p & (LSA_FM_LOG - 1)];
		uint16_t xx = (uint16_t)(px << 8 | g->exit);
		uint32_t gid = g->sb->id;

		/* the frames of a kept iteration follow its calls and
		 * returns (anything else made it dirty) */
		if (px == LSD_EXIT_CALL || px == LSD_EXIT_ICALL)
			depth++;
		else if (px == LSD_EXIT_RET)
			depth--;
		/* still blocks the per-block path only pushes: no frame
		 * moved, no tail call, none met before (a loop back) */
		if (push) {
			if (gid >= m->nhead && (err = heads_grow(m, gid)))
				return err;
			push = (LSA_EXITS_LOCAL >> px & 1) && lsa_loops_func_of(l, g->sb) == f &&
			       m->head[gid].seen != m->epoch;
			m->head[gid].seen = m->epoch;
		}
		/* (not fm_child(): moved to the front, the sequence just
		 * kept, often met once, would slow the matching down: 0.25%
		 * more Ir on bzip2) */
		for (c = m->node[at].child; c != LSA_NONE; c = m->node[c].sib)
			if (m->node[c].sb == g->sb && m->node[c].xx == xx)
				break;
		if (c == LSA_NONE) {
			if ((err = node_new(m, g->sb, xx, (!depth ? LSA_FN_TOP : 0) |
					    (push ? LSA_FN_PUSH : 0), at, &c)))
				return err;
			if (!depth && p + 1 < m->pos)
				tops_add(m, m->head[id].root - 1, gid);
		}
		at = c;
		px = g->exit;
	}
	hd = &m->head[id];	/* (the table may have grown) */
	m->node[at].term = 1;
	hd->nodes += m->nnode - n0;
	return 0;
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

void lsa_fm_begin(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti)
{
	struct lsa_fmemo *m = &t->fm;
	uint32_t id = t->path[ti].sb->id, rt, base = t->fr[t->nfr - 1].base;

	if (!l->fmemo || id >= m->nhead || !m->head[id].root ||
	    m->start[ti] == LSA_FM_NOPOS)
		return;
	if (m->head[id].bad >= LSA_FM_BAD && ++m->tries % LSA_FM_RETRY)
		return;
	rt = m->head[id].root - 1;
	m->on = 1;
	m->rt = m->at = rt;
	m->ti = ti;
	m->base = base;
	m->n = 0;
	m->px = t->pexit;
	m->done = 0;
	/* blocks to check one by one: the trie's too many, or one is there */
	m->wide = m->node[rt].aux == LSA_NONE || tops_below(t, m, rt);
}

/* lsa_fm_run()'s walk over b[i .. n), from node at (log position pos);
 * *pterm gets the log position after the last block that ended an
 * iteration, *last that block (left as they are where none did), *pat
 * the node reached.  Returns the iterations ended; *pi the first block
 * not taken.  always_inline with wide constant: the common walk (no
 * block of the frame to check) keeps its state in registers. */
static inline __attribute__((always_inline)) uint64_t
fm_walk(struct lsa_thr *t, const struct lsd_block *b, size_t *pi, size_t n,
	uint32_t *pat, uint64_t *ppos, uint64_t *pterm,
	const struct lsd_block **last, uint8_t *ppx, const int wide)
{
	struct lsa_fmemo *m = &t->fm;
	struct lsa_fnode *nd = m->node;
	struct lsa_flog *log = m->log;
	const struct lsd_block *x = b + *pi, *end = b + n;
	const uint32_t nn = m->nnode;
	uint32_t at = *pat;
	uint64_t pos = *ppos, done = 0;
	uint8_t px = *ppx;

	for (; x < end; x++) {
		const struct lsd_sblock *sb = x->sb;
		uint16_t xx = (uint16_t)(px << 8 | x->exit);
		uint32_t c = at + 1;
		struct lsa_fnode *cn = &nd[c];

		/* (a sequence kept goes into consecutive nodes where it
		 * leaves the trie: the child is mostly the next node, whose
		 * address needs no load) */
		if (__builtin_expect(c >= nn || cn->parent != at || cn->sb != sb ||
				     cn->xx != xx, 0)) {
			if (!(cn = fm_child(nd, at, sb, xx)))
				break;
			c = (uint32_t)(cn - nd);
		}
		/* a block of the head's frame on its path below the head */
		if (wide && (cn->flags & LSA_FN_TOP) && !cn->term && fm_below(t, cn->id))
			break;
		log[pos++ & (LSA_FM_LOG - 1)] = (struct lsa_flog){ sb, x->exit };
		px = x->exit;
		at = c;
		if (cn->term) {		/* back at the head: nothing new */
			done++;
			at = m->rt;
			*pterm = pos;
			*last = x;
		}
	}
	*pi = (size_t)(x - b);
	*pat = at;
	*ppos = pos;
	*ppx = px;
	return done;
}

size_t lsa_fm_run(struct lsa_thr *t, const struct lsd_block *b, size_t i, size_t n)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsd_block *last = NULL;
	struct lsa_fhead *hd;
	/* the log position the unfinished iteration began at, then the
	 * one after the last iteration matched whole */
	uint64_t begun = m->pos - m->n, term = begun, done;

	if (m->wide)
		done = fm_walk(t, b, &i, n, &m->at, &m->pos, &term, &last, &m->px, 1);
	else
		done = fm_walk(t, b, &i, n, &m->at, &m->pos, &term, &last, &m->px, 0);
	if (last) {
		t->psb = last->sb;
		t->pexit = last->exit;
		t->pnext = last->next;
	}
	m->n = (uint32_t)(m->pos - term);
	m->done += done;
	m->iters += done;
	t->path[m->ti].lb += done;	/* (loop backs to it: lsa_ksnap) */
	m->taken += term - begun;
	hd = &m->head[m->node[m->rt].id];
	hd->taken += term - begun;
	if (i < n) {		/* left the trie */
		m->on = 0;
		if (m->done)
			hd->bad = 0;
		else if (hd->bad < 255)
			hd->bad++;
	}
	return i;
}

void lsa_fm_unwind(struct lsa_thr *t)
{
	struct lsa_fmemo *m = &t->fm;

	m->on = 0;
	m->pos -= m->n;
	m->n = 0;
	m->start[m->ti] = m->pos;
}

/* The blocks matched of the unfinished iteration, into buf in order;
 * returns their number.  (A block's own next is not kept: a transfer
 * reads it after an interrupt alone, which no kept iteration holds
 * before its end.) */
static size_t rebuild(const struct lsa_fmemo *m, struct lsd_block *buf)
{
	size_t j = m->n;
	uint32_t at = m->at;

	while (j && at != m->rt) {
		const struct lsa_fnode *nd = &m->node[at];

		buf[--j] = (struct lsd_block){ .sb = nd->sb, .exit = (uint8_t)(nd->xx & 0xff),
					       .id = nd->id };
		at = nd->parent;
	}
	return m->n;
}

size_t lsa_fm_pushes(struct lsa_thr *t, struct lsd_block *buf)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_fnode *nd = &m->node[m->at];
	size_t k;

	/* (the last block's exit is the next block's to follow; after an
	 * interrupt it would read the block's own next, not kept) */
	if (!m->n || !(nd->flags & LSA_FN_PUSH) || (nd->xx & 0xff) == LSD_EXIT_ASYNC)
		return 0;
	k = rebuild(m, buf);
	m->on = 0;
	m->n = 0;
	m->start[m->ti] = m->pos - k;
	return k;
}

size_t lsa_fm_pending(struct lsa_thr *t, struct lsd_block *buf)
{
	size_t k = rebuild(&t->fm, buf);

	lsa_fm_unwind(t);
	return k;
}

void lsa_fm_release(struct lsa_fmemo *m)
{
	free(m->node);
	free(m->head);
	free(m->log);
	free(m->tops);
	free(m->buf);
	free(m->start);
	memset(m, 0, sizeof(*m));
}
