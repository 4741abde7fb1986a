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
 * A nested loop's iterations leave the state as they found them too
 * (the path back to their head, the frames above it gone), and so does
 * a whole call (its frame gone; the calling entry knows where it went).
 * So the log drops each iteration at its loop back, its head's entry
 * counting it (LSA_FL_LB), and each call at its return, the calling
 * block's entry keeping its first block (LSA_FL_CALL): what goes into a
 * trie is an iteration with the nested loops' iterations and the calls
 * collapsed, so that an outer loop whose inner loops run more or fewer
 * times, or whose calls take other paths, is one sequence.  The calls
 * go into a trie of their own, per calling block.  An iteration that is
 * not kept (dirty, a tail call away) is dropped from the log all the
 * same, and what began before it is then never kept; a call that was
 * not clean stays in the log.  Matching takes what was collapsed back
 * as levels of their own (loops_fmatch.c).
 *
 * The tries are the thread's own (what it learned is its own), built
 * from the log of the blocks it took; a node is a block with the exit
 * into it and its own, so that a node's children differ in their block
 * or exits. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define LSA_FM_TOPS 31		/* blocks of the head's frame a trie lists */
#define LSA_FM_GROW 2048	/* nodes a trie makes before it must pay */

static int heads_grow(struct lsa_fmemo *m, uint32_t id)
{
	size_t n = (size_t)id + 1;
	struct lsa_fhead *p;

	n = n < 1024 ? 1024 : n + n / 2;
	/* (the new room zero, its pages mapped in at once) */
	p = ls_zgrow(m->head, m->nhead, n, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
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

	m->nclear++;
	m->pm[0].ok = m->pm[1].ok = 0;	/* (the nodes' indices are reused) */
	if (m->nkset)
		memset(m->kset, 0, m->capkset * sizeof(*m->kset));
	m->nkset = 0;
	m->nnode = m->ntops = 0;
	m->node[0].parent = LSA_NONE;	/* (as node_new() leaves it) */
	for (i = 0; i < m->nhead; i++) {
		m->head[i].root = m->head[i].nodes = 0;
		m->head[i].croot = m->head[i].cnodes = 0;
		m->head[i].rlast = m->head[i].clast = 0;
		m->head[i].taken = m->head[i].ctaken = 0;
	}
}


int lsa_fm_alloc(struct lsa_fmemo *m)
{
	/* (fewer nodes drop the tries more often, and every path that
	 * drops and rebuilds them runs in a test's short trace) */
	uint64_t mx = lsa_env_num("LOOPSCOPE_FM_NODES", LSA_FM_NODES);

	m->maxnode = mx < 64 ? 64 : mx > LSA_FM_NODES ? LSA_FM_NODES : (uint32_t)mx;
	if (!m->log && !(m->log = malloc(LSA_FM_LOG * sizeof(*m->log))))
		return -LS_ENOMEM;
	if (!m->lbv && !(m->lbv = malloc(LSA_FM_LOG * sizeof(*m->lbv))))
		return -LS_ENOMEM;
	if (!m->cev && !(m->cev = malloc(LSA_FM_LOG * sizeof(*m->cev))))
		return -LS_ENOMEM;
	if (!m->anx && !(m->anx = malloc(LSA_FM_LOG * sizeof(*m->anx))))
		return -LS_ENOMEM;
	return 0;
}

/* A new node of sb entered as xx, a child of parent (LSA_NONE: a root),
 * its frame at depth (0: the head's); *out its index. */
static int node_new(struct lsa_fmemo *m, const struct lsd_sblock *sb, uint16_t xx,
		    int flags, uint32_t parent, uint32_t depth, uint32_t *out)
{
	struct lsa_fnode *n;

	/* (room for one more: the walk's look at the node after the last)
	 * Past its first 1,024 nodes, the array gets room for all that a
	 * thread's tries may hold (LSA_FM_NODES, 8 MB, its pages touched as
	 * nodes are made): doubling copied it at each step and faulted in
	 * every array it went through (sqlite3's analysis: 3,600 of its
	 * 13,900 page faults), and doubled it to 16 MB at the bound. */
	if (m->nnode + 2 > m->capnode) {
		uint32_t nc = !m->capnode ? 1024 :
			      m->capnode < LSA_FM_NODES + 2 ? LSA_FM_NODES + 2 : 2 * m->capnode;
		uint32_t *p;

		if (nc < m->nnode + 2)
			nc = m->nnode + 2;
		if (!(n = ls_reallocarray(m->node, nc, sizeof(*n))))
			return -LS_ENOMEM;
		m->node = n;
		if (!(p = ls_reallocarray(m->shv, nc, sizeof(*p))))
			return -LS_ENOMEM;
		m->shv = p;
		m->capnode = nc;
		m->pfnode = (size_t)m->nnode * sizeof(*n);
		m->pfshv = (size_t)m->nnode * sizeof(*p);
	}
	/* The nodes' pages ahead mapped in a stretch at a time, not a
	 * fault each (sqlite3's learning pass: 1,900 faults here). */
	ls_prefault_ahead(m->node, (size_t)(m->nnode + 2) * sizeof(*n), &m->pfnode,
			  (size_t)m->capnode * sizeof(*n));
	ls_prefault_ahead(m->shv, (size_t)(m->nnode + 2) * sizeof(*m->shv), &m->pfshv,
			  (size_t)m->capnode * sizeof(*m->shv));
	m->shv[m->nnode] = 0;
	n = &m->node[m->nnode];
	n->sb = sb;
	n->id = sb->id;
	n->xx = xx;
	n->term = 0;
	n->flags = (uint8_t)flags;
	n->child = LSA_NONE;
	n->parent = parent;
	if (parent != LSA_NONE) {
		n->aux = depth;
		n->sib = m->node[parent].child;
		m->node[parent].child = m->nnode;
	} else {
		n->aux = LSA_NONE;
		n->sib = LSA_NONE;
	}
	*out = m->nnode++;
	m->node[m->nnode].parent = LSA_NONE;	/* (no node's child) */
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

/* The sequence log[s .. c) after the block at log[s - 1] (of function f)
 * into that block's trie: of the iterations of the loop it heads, or
 * (call) of the calls it makes.  Returns 0 or -LS_ENOMEM. */
/* The hash of the sequence log[s - 1 .. c) of head block id kept as a
 * head's iterations (call 0) or a block's calls: every field fm_keep()
 * reads of each entry (its block, its exit, what was collapsed after it,
 * the exit the next is keyed by); never 0. */
static uint64_t keep_hash(struct lsa_fmemo *m, uint64_t s, uint64_t c, uint32_t id, int call)
{
	uint64_t h = (uint64_t)id << 1 | (uint64_t)call, p;

	for (p = s - 1; p < c; p++) {
		const struct lsa_flog *g = lsa_fm_at(m, p);

		h ^= (uint64_t)(uintptr_t)g->sb ^ (uint64_t)g->exit << 56 ^
		     (uint64_t)g->fl << 48 ^ (uint64_t)lsa_fm_kx(g) << 40;
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/* Whether hash h is in the set of sequences kept, put there if not
 * (and where memory allows: a sequence left out is only walked again).
 * The set holds at most one hash for each trie node. */
static int kset_seen(struct lsa_fmemo *m, uint64_t h)
{
	uint32_t mask, i;

	if (2 * (m->nkset + 1) > m->capkset) {
		uint32_t cap = m->capkset ? 2 * m->capkset : 1024, k;
		uint64_t *n;

		if (cap > 2 * LSA_FM_NODES || !(n = ls_zalloc(cap, sizeof(*n))))
			return 0;
		for (k = 0; k < m->capkset; k++) {
			if (!m->kset[k])
				continue;
			i = (uint32_t)(m->kset[k] >> 32) & (cap - 1);
			while (n[i])
				i = (i + 1) & (cap - 1);
			n[i] = m->kset[k];
		}
		free(m->kset);
		m->kset = n;
		m->capkset = cap;
	}
	mask = m->capkset - 1;
	for (i = (uint32_t)(h >> 32) & mask; m->kset[i]; i = (i + 1) & mask)
		if (m->kset[i] == h)
			return 1;
	m->kset[i] = h;
	m->nkset++;
	return 0;
}

static int fm_keep(struct lsa_loops *l, struct lsa_thr *t, uint64_t s, uint64_t c,
		   uint32_t f, int call)
{
	struct lsa_fmemo *m = &t->fm;
	const struct lsa_flog *h = lsa_fm_at(m, s - 1);
	struct lsa_fhead *hd;
	uint32_t at, n, id = h->sb->id, n0, *root;
	uint64_t p;
	uint8_t px, pfl = h->fl;
	int err, depth = 0, push = !call;

	if (id >= m->nhead && (err = heads_grow(m, id)))
		return err;
	hd = &m->head[id];
	/* a trie that grows and is not matched (its iterations differ
	 * every time) costs more than it saves: it grows no more */
	if (call ? hd->cnodes >= LSA_FM_GROW && hd->ctaken < hd->cnodes :
		   hd->nodes >= LSA_FM_GROW && hd->taken < hd->nodes)
		return 0;
	if (m->nnode + (c - s) + 1 > m->maxnode)
		fm_clear(m);
	/* Kept before, since the tries were dropped: its nodes and their
	 * flags are there (206K of xz's 213K iterations kept on 300 KB, each
	 * walked block by block where matching was off).  A hash that
	 * collides leaves a sequence out of its trie: it is then walked one
	 * block at a time where it comes, as any sequence not kept. */
	if (kset_seen(m, keep_hash(m, s, c, id, call)))
		return 0;
	root = call ? &hd->croot : &hd->root;
	if (!*root) {
		if ((err = node_new(m, h->sb, 0, call ? 0 : LSA_FN_TOP | LSA_FN_PUSH,
				    LSA_NONE, 0, &at)))
			return err;
		*root = at + 1;
		if (!call) {
			if (LS_GROW32(m->tops, m->ntops + LSA_FM_TOPS + 1, m->captops, 1024))
				return -LS_ENOMEM;
			m->node[at].aux = m->ntops;
			m->tops[m->ntops] = 0;
			m->ntops += LSA_FM_TOPS + 1;
		}
	}
	at = *root - 1;
	px = lsa_fm_kx(h);
	n0 = m->nnode;
	m->head[id].seen = ++m->epoch;	/* (the head again ends it) */
	for (p = s; p < c; p++) {
		const struct lsa_flog *g = lsa_fm_at(m, p);
		uint16_t xx = (uint16_t)(px << 8 | g->exit);
		uint32_t gid = g->sb->id;

		/* the frames of a kept sequence follow its calls and returns
		 * (anything else made it dirty); a call collapsed returned */
		if (pfl & LSA_FL_CALL)
			;
		else if (px == LSD_EXIT_CALL || px == LSD_EXIT_ICALL)
			depth++;
		else if (px == LSD_EXIT_RET)
			depth--;
		/* (every block's: fm_shadowed() marks them) */
		if (gid >= m->nhead && (err = heads_grow(m, gid)))
			return err;
		/* still blocks the per-block path only pushes: no frame
		 * moved, no tail call, none met before (a loop back) */
		if (push) {
			push = (LSA_EXITS_LOCAL >> px & 1) && lsa_loops_func_of(l, g->sb) == f &&
			       m->head[gid].seen != m->epoch;
			m->head[gid].seen = m->epoch;
		}
		/* (not a move to the front: the sequence just kept, often met
		 * once, would slow the matching down: 0.25% more Ir on
		 * bzip2) */
		for (n = m->node[at].child; n != LSA_NONE; n = m->node[n].sib)
			if (m->node[n].sb == g->sb && m->node[n].xx == xx)
				break;
		if (n == LSA_NONE) {
			if ((err = node_new(m, g->sb, xx, (!depth && !call ? LSA_FN_TOP : 0) |
					    (push ? LSA_FN_PUSH : 0), at, (uint32_t)depth, &n)))
				return err;
			if (!depth && !call && p + 1 < c)
				tops_add(m, m->head[id].root - 1, gid);
		}
		m->node[n].flags |= (g->fl & LSA_FL_LB ? LSA_FN_COLL : 0) |
				    (g->fl & LSA_FL_CALL ? LSA_FN_CALL : 0);
		at = n;
		px = lsa_fm_kx(g);
		pfl = g->fl;
	}
	hd = &m->head[id];	/* (the table may have grown) */
	m->node[at].term = 1;
	/* (the head calls as it ends an iteration: its calls' trie next) */
	if (!call && (px == LSD_EXIT_CALL || px == LSD_EXIT_ICALL))
		m->node[at].flags |= LSA_FN_CALL;
	if (call)
		hd->cnodes += m->nnode - n0;
	else
		hd->nodes += m->nnode - n0;
	return 0;
}

int lsa_fm_back(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, uint32_t f)
{
	struct lsa_fmemo *m = &t->fm;
	uint64_t s, c = m->pos, lo;
	struct lsa_flog *h;
	uint8_t x;
	int ok, err;

	if (ti >= m->capstart)
		return 0;	/* (never marked: the log keeps it as it is) */
	s = m->start[ti] & ~LSA_FM_NOK;
	if (!s || s >= c)
		return 0;
	/* it left the state as it found it: begun where it could be, the
	 * head's function running again (an unknown one: no block of a
	 * known one made it the frame's), its head's block still logged */
	ok = !(m->start[ti] & LSA_FM_NOK) && t->fr[t->nfr - 1].cur == f;
	h = lsa_fm_at(m, s - 1);
	x = lsa_fm_at(m, c - 1)->exit;
	if (c - (s - 1) >= LSA_FM_LOG || h->sb != t->path[ti].sb) {
		h->sb = t->path[ti].sb;
		h->w = x;
		ok = 0;
	}
	/* kept: clean since it began, its blocks all logged (a bad head's
	 * once in LSA_FM_BADKEEP) */
	if (ok && s >= m->dirty && c - s <= LSA_FM_MAX &&
	    (h->sb->id >= m->nhead || m->head[h->sb->id].bad < LSA_FM_BAD ||
	     !(++m->bkeep % LSA_FM_BADKEEP)) &&
	    (err = fm_keep(l, t, s, c, f, 0)))
		return err;
	/* The log drops it: the head's entry is as before, the last run of
	 * its block what the next one follows.  Where it did not leave the
	 * state as found, no iteration begun before it is kept; else none
	 * whose blocks the log has lost. */
	lsa_fm_lb(m, s - 1, x, 1, lsa_fm_next(m, c - 1));
	m->pos = s;
	lo = c >= LSA_FM_LOG ? c - LSA_FM_LOG + 1 : 0;
	if (!ok)
		m->dirty = s;
	else if (m->dirty < lo)
		m->dirty = lo < s ? lo : s;
	else if (m->dirty > s)
		m->dirty = s;
	return 0;
}

int lsa_fm_ret(struct lsa_loops *l, struct lsa_thr *t, uint64_t e)
{
	struct lsa_fmemo *m = &t->fm;
	uint64_t c = m->pos - 1;	/* the block returned to */
	const struct lsa_frame *top = &t->fr[t->nfr - 1];

	/* Kept: clean since it began (what it did was its blocks' alone),
	 * its calling block (the top frame's last entry) still logged.
	 * The log keeps it as it ran: an iteration walks a call at a
	 * compare a block, and a call collapsed into its calling entry
	 * here, where other blocks were still to be walked again by the
	 * levels, lost what they needed (memocheck -k; 2026-12-02).  And
	 * its last block left it by its own exit: a matching call level
	 * ends at the trie's last node, which keys that block's first run,
	 * before any level could take what was collapsed after it (a
	 * head's iterations, their last run returning; memocheck -s 9 -k
	 * -y, where such a call's first block, run once and not returning,
	 * ended the call). */
	if (!e || e >= c || m->dirty > e || c - (e - 1) >= LSA_FM_LOG ||
	    t->npath <= top->base || lsa_fm_at(m, e - 1)->sb != t->path[t->npath - 1].sb ||
	    c - e > LSA_FM_MAX || (lsa_fm_at(m, c - 1)->fl & (LSA_FL_LB | LSA_FL_CALL)))
		return 0;
	return fm_keep(l, t, e, c, 0, 1);
}

void lsa_fm_release(struct lsa_fmemo *m)
{
	free(m->node);
	free(m->shv);
	free(m->head);
	free(m->log);
	free(m->lbv);
	free(m->cev);
	free(m->anx);
	free(m->tops);
	free(m->start);
	free(m->kset);
	memset(m, 0, sizeof(*m));
}
