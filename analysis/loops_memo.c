/* loops_memo.c - the loop detector's iteration memo (see struct lsa_memo).
 *
 * The per-block path pushes every block of an iteration on the frame's
 * path and, when control comes back to the head, scans and charges them
 * one by one.  For an iteration of blocks of one function, with no nested
 * loop that iterates and calls only to leaves (recorded when their frame
 * ends: lsa_acc.sq), all of that is fixed by the sequence of blocks (the
 * leaves' too), the loops known and their bodies: which blocks open entries
 * of trip count 1 of loops headed by them (scan() decides it by the
 * bodies), which entry each block is charged to, where each counts once
 * in case it heads a loop later, the head's entry getting one iteration
 * with the last block as its back branch.  So the sequences met are kept
 * in a trie per head, each node with that decision (a dry run of scan()),
 * and later iterations only walk the trie, counting passes per node; the
 * counts are multiplied out when matching stops, and the blocks of an
 * unfinished iteration then go through the per-block path.  All a pass
 * adds is sums (and the minimum and maximum trip counts of the entries it
 * opens and closes), so k passes add k times one.
 *
 * What makes a trie stale: a block in it heading a loop (the thread's
 * tries are dropped then) and, for a trie with blocks that head loops, one
 * of those loops' bodies grown (checked against a version).  Nothing else a
 * trie relies on changes: a block's function, and where its run-once
 * counts go (preo of a block is set once per thread).  What matching
 * stops owe, and the hand-back, are in loops_mstop.c.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define MEMO_NODES (1u << 16)	/* trie nodes of a thread, at most */
#define MEMO_DEPTH 8		/* entries of trip count 1 open at once */
#define MEMO_DEPS 16		/* loops headed in one trie */

int lsa_memo_fits(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti)
{
	const struct lsa_frame *top = &t->fr[t->nfr - 1];
	const struct lsa_acc *a;
	uint32_t i, n = t->npath - ti;
	int flat = 0, may = -1;

	if (!l->memo || t->deep || n > LSA_MEMO_MAX)
		return 0;
	for (i = ti; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];
		const struct lsd_sblock *next = i + 1 < t->npath ? t->path[i + 1].sb :
						t->path[ti].sb;

		if (lsa_loops_func_of(l, e->sb) != top->cur)
			return 0;
		/* an inner loop's entry: its iterations are in the log, or
		 * may be in the next one's (asked once) */
		if (i > ti && e->inst != LSA_NONE) {
			if (may < 0)
				may = lsa_memo_flat_may(t, ti);
			if (!may)
				return 0;
			flat = 1;
		}
		/* a call, only a leaf that returned to the next block */
		a = lsa_loops_leaf_of(l, e);
		if (e->acc != LSA_NONE &&
		    (!a || next->start != e->sb->end || (n += a->nsq) > LSA_MEMO_MAX))
			return 0;
		if (a && lsa_memo_leaf_heads(l, t, a))
			return 0;
	}
	/* The block that came back (the tail): the last entry, or the last
	 * block of the leaf it called; no other frame was left between. */
	a = lsa_loops_leaf_of(l, &t->path[t->npath - 1]);
	if (t->psb != (a ? l->sq[a->sq + a->nsq - 1] : t->path[t->npath - 1].sb))
		return 0;
	return 1 + flat;
}

void lsa_memo_new_head(struct lsa_memo *m, uint32_t sbid)
{
	if (sbid < m->nintrie && m->intrie[sbid])
		m->stale = 1;
}

static void memo_clear(struct lsa_memo *m)
{
	m->nnode = 0;
	m->ndirty = 0;
	m->nchain = 1;	/* chain 0: none open */
	m->nsum = 0;
	m->nrec = m->ntl = 0;
	m->stale = 0;
	if (m->intrie)
		memset(m->intrie, 0, m->nintrie);
	if (m->rootof)
		memset(m->rootof, 0, m->nrootof * sizeof(*m->rootof));
}

/* A new node under parent (LSA_NONE: a root); LSA_NONE when out of memory. */
static uint32_t node_new(struct lsa_memo *m, const struct lsd_sblock *sb,
			 uint32_t parent, int term)
{
	struct lsa_mnode *v;
	uint32_t i;

	if (m->nnode == m->capnode) {
		uint32_t nc = m->capnode ? m->capnode * 2 : 256;
		void *p = ls_reallocarray(m->node, nc, sizeof(*m->node));

		if (!p)
			return LSA_NONE;
		m->node = p;
		/* every node may be dirty at once: pushed without a check */
		p = ls_reallocarray(m->dirty, nc, sizeof(*m->dirty));
		if (!p)
			return LSA_NONE;
		m->dirty = p;
		m->capnode = nc;
	}
	if (sb->id >= m->nintrie) {
		size_t nn = (size_t)sb->id + 1 < 1024 ? 1024 : ((size_t)sb->id + 1) * 2;
		uint8_t *p = realloc(m->intrie, nn);

		if (!p)
			return LSA_NONE;
		memset(p + m->nintrie, 0, nn - m->nintrie);
		m->intrie = p;
		m->nintrie = nn;
	}
	m->intrie[sb->id] = 1;
	i = m->nnode++;
	v = &m->node[i];
	memset(v, 0, sizeof(*v));
	v->sb = sb;
	v->child = LSA_NONE;
	v->parent = parent;
	v->term = (uint8_t)term;
	if (parent != LSA_NONE) {
		v->sib = m->node[parent].child;
		m->node[parent].child = i;
	} else {
		v->sib = LSA_NONE;
	}
	return i;
}

/* What scan() does with one body block (see lsa_memo_add). */
struct step {
	uint32_t opens, own, chain;
	uint8_t pre;
};

/* The exits a node may be entered by, per kind (struct lsa_mnode). */
static const uint16_t kind_mask[4] = {
	[MK_FRAME] = LSA_EXITS_LOCAL,
	[MK_CALLEE] = 1u << LSD_EXIT_CALL | 1u << LSD_EXIT_ICALL,
	[MK_LEAF] = LSA_EXITS_LOCAL,
	[MK_RETURN] = 1u << LSD_EXIT_RET,
};

/* The chain of loops os[0 .. n) in m's table; 0 (none) when n is 0,
 * LSA_NONE when out of memory. */
static uint32_t chain_put(struct lsa_memo *m, const uint32_t *os, uint32_t n)
{
	uint32_t at = m->nchain, i;

	if (!n)
		return 0;
	if (m->nchain + n + 1 > m->capchain) {
		uint32_t nc = m->capchain ? m->capchain * 2 : 1024;
		void *p;

		while (nc < m->nchain + n + 1)
			nc *= 2;
		p = ls_reallocarray(m->chain, nc, sizeof(*m->chain));
		if (!p)
			return LSA_NONE;
		m->chain = p;
		m->capchain = nc;
	}
	m->chain[m->nchain++] = n;
	for (i = 0; i < n; i++)
		m->chain[m->nchain++] = os[i];
	return at;
}

/* The child of v for block sb entered as kind says, made when new with
 * what step x says (a leaf's block: charged as x, its block counted once
 * at the frame level), pdepth path entries above the root. */
static uint32_t child_of(struct lsa_memo *m, uint32_t v, const struct lsd_sblock *sb,
			 int term, int kind, const struct step *x, uint32_t fn,
			 int pre_on, uint32_t pdepth)
{
	uint32_t c;

	for (c = m->node[v].child; c != LSA_NONE; c = m->node[c].sib)
		if (m->node[c].sb == sb && m->node[c].kind == kind)
			return c;
	c = node_new(m, sb, v, term);
	if (c != LSA_NONE) {
		struct lsa_mnode *n = &m->node[c];

		n->kind = (uint8_t)kind;
		n->vmask = kind_mask[kind];
		n->chk = kind == MK_FRAME || kind == MK_RETURN;
		n->opens = lsa_mk_in_leaf(kind) ? 0 : x->opens;
		n->own = x->own;
		n->pown = lsa_mk_in_leaf(kind) ? 0 : x->own;
		n->chain = x->chain;
		n->pre = lsa_mk_in_leaf(kind) ? 1 : x->pre;
		n->fn = fn;
		n->cnt = term || lsa_mk_in_leaf(kind) || n->chain || n->opens ||
			 (n->pre && pre_on);
		n->pdepth = (uint16_t)pdepth;
	}
	return c;
}

/* What a dry scan found besides the steps: the loops whose bodies
 * decided (their heads met), the entries the iteration opens and closes
 * (struct lsa_mrec, the back branches of each in tl). */
struct dry {
	uint32_t deps[2 * MEMO_DEPS], nd;
	uint32_t nrec, ntl;
	struct lsa_mrec rec[LSA_MEMO_MAX];
	struct lsa_mtl tl[LSA_MEMO_MAX];
};

/* Notes that loop's body decides; 0 when too many do. */
static int dep_note(struct dry *d, uint32_t loop)
{
	uint32_t k;

	for (k = 0; k < d->nd && d->deps[k] != loop; k++)
		;
	if (k == d->nd) {
		if (k == MEMO_DEPS)
			return 0;
		d->deps[d->nd++] = loop;
	}
	return 1;
}

/* An entry of loop with `trips` trips opens and closes in the pass; the
 * back branches of an inner loop's (trips above 1) are those of the
 * log's iterations of path entry p.  0 when there are too many. */
static int rec_put(struct dry *d, uint32_t loop, uint64_t trips,
		   const struct lsa_mlog *g, uint32_t p)
{
	struct lsa_mrec *r;
	uint32_t s, j;

	if (d->nrec == LSA_MEMO_MAX)
		return 0;
	r = &d->rec[d->nrec++];
	r->loop = loop;
	r->trips = trips;
	r->tl = d->ntl;
	r->ntl = 0;
	for (s = 0; trips > 1 && s < g->nseg; s++) {
		if (g->seg[s].p != p)
			continue;
		for (j = r->tl; j < d->ntl && d->tl[j].id != g->seg[s].tail; j++)
			;
		if (j == d->ntl) {
			if (d->ntl == LSA_MEMO_MAX)
				return 0;
			d->tl[d->ntl].id = g->seg[s].tail;
			d->tl[d->ntl++].runs = 0;
			r->ntl++;
		}
		d->tl[j].runs++;
	}
	return 1;
}

/* A dry run of the scans over the iteration fi[1 .. nfi) of loop (the
 * entry at ti) as they will run it next: the outer loop back's scan of
 * its path entries (FI_OUT), and each inner loop back's of the inner
 * iteration it pops (FI_SEG, then the inner head charged: FI_HEAD), the
 * inner entry its base.  Which blocks open entries (of trip count 1, or
 * the inner loops' that iterated), whom each is charged to.  An inner
 * loop's entry is taken as one of trip count 1 is: the instructions of
 * its blocks charged through its chain, what its trips decide in the
 * term's entries (struct lsa_mrec).  So a path of the trie has a node's
 * decision whichever way the iteration goes on (an inner head run once
 * or iterating, a block in an inner iteration or after it: in the
 * inner loop's body either way, or the trie is not valid).  Returns 1
 * with steps[1 ..] and d, 0 when the iteration is not one for the memo
 * (nesting too deep, too many loops, an inner entry the scan would not
 * open), -LS_ENOMEM. */
static int dry_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
		    const struct lsa_fitem *fi, uint32_t nfi, struct step *steps,
		    struct dry *d)
{
	struct lsa_memo *m = &t->memo;
	/* the outer scan's open entries; an inner iteration's scan's,
	 * ss[0 .. bot) the inner entry's chain (its base, below) */
	uint32_t os[MEMO_DEPTH], nos = 0, ss[MEMO_DEPTH], nss = 0, bot = 0, k;

	d->nd = d->nrec = d->ntl = 0;
	for (k = 1; k < nfi; k++) {
		const struct lsa_fitem *it = &fi[k];
		const struct lsd_sblock *sb = it->sb;
		struct step *x = &steps[k];
		uint32_t owner, hl = t->head[sb->id];

		if (lsa_mk_in_leaf(it->kind)) {	/* charged as its caller */
			*x = steps[k - 1];
			continue;
		}
		if (hl && !dep_note(d, hl - 1))
			return 0;
		x->opens = 0;
		x->pre = !hl;
		if (it->role == FI_OUT) {
			const struct lsa_pent *e = &t->path[it->p];
			int inner = e->inst != LSA_NONE, opens;

			while (nos && !lsa_loops_in_body(t, os[nos - 1], sb->id))
				nos--;
			owner = nos ? os[nos - 1] : loop;
			opens = hl && lsa_loops_entry_ok(l, t, hl - 1, owner + 1);
			/* (an inner entry the scan would not open: not taken) */
			if (inner && (!opens || hl - 1 != l->inst[e->inst].loop))
				return 0;
			if (opens) {
				if (nos == MEMO_DEPTH ||
				    !rec_put(d, hl - 1, inner ? l->inst[e->inst].trips : 1,
					     &m->log, it->p))
					return 0;
				os[nos++] = hl - 1;
				x->opens = hl;
				owner = hl - 1;
			}
			if (inner) {
				memcpy(ss, os, nos * sizeof(*os));
				nss = bot = nos;
			}
			x->chain = chain_put(m, os, nos);
		} else if (it->role == FI_SEG) {
			while (nss > bot && !lsa_loops_in_body(t, ss[nss - 1], sb->id))
				nss--;
			owner = ss[nss - 1];
			if (hl && lsa_loops_entry_ok(l, t, hl - 1, owner + 1)) {
				if (nss == MEMO_DEPTH || !rec_put(d, hl - 1, 1, &m->log, 0))
					return 0;
				ss[nss++] = hl - 1;
				x->opens = hl;
				owner = hl - 1;
			}
			x->chain = chain_put(m, ss, nss);
		} else {	/* FI_HEAD: charged to the inner entry */
			nss = bot;
			owner = ss[bot - 1];
			x->chain = chain_put(m, ss, bot);
		}
		x->own = owner + 1;
		if (x->chain == LSA_NONE)
			return -LS_ENOMEM;
	}
	return 1;
}

/* The sum of the body sizes of the loops of chain d (0: none). */
static uint64_t deps_ver(const struct lsa_thr *t, uint32_t d)
{
	const struct lsa_memo *m = &t->memo;
	uint64_t v = 0;
	uint32_t i;

	for (i = 0; d && i < m->chain[d]; i++)
		v += t->nbody[m->chain[d + 1 + i]];
	return v;
}

/* Whether root v's trie still holds: made with the bodies its loops
 * have now. */
static int root_valid(const struct lsa_thr *t, uint32_t v)
{
	const struct lsa_memo *m = &t->memo;

	return !m->node[v].dep || m->node[v].ver == deps_ver(t, m->node[v].deps);
}

/* The sum of the pass from m's root to term node v (see struct
 * lsa_msum), with the entries it closes (d's): what apply() leaves to
 * the term.  Returns 0 or -LS_ENOMEM. */
static int sum_make(const struct lsa_loops *l, struct lsa_memo *m, uint32_t v,
		    const struct dry *d)
{
	struct lsa_msum *s;
	uint32_t u, k;

	if (LS_GROW32(m->sum, m->nsum + 1, m->capsum, 256) ||
	    LS_GROW32(m->rec, m->nrec + d->nrec, m->caprec, 256) ||
	    LS_GROW32(m->tl, m->ntl + d->ntl, m->captl, 256))
		return -LS_ENOMEM;
	s = &m->sum[m->nsum];
	memset(s, 0, sizeof(*s));
	for (u = v; m->node[u].parent != LSA_NONE; u = m->node[u].parent) {
		const struct lsa_mnode *x = &m->node[u];

		s->blocks++;
		s->insns += x->sb->ninsn;
		if (u != v && x->pdepth > s->mdepth)
			s->mdepth = x->pdepth;
		if (!lsa_mk_in_leaf(x->kind))
			s->fself += x->sb->ninsn;
		if (!x->chain)
			lsa_cnt_sb(&s->self, l, x->sb);
	}
	s->rec = m->nrec;
	s->nrec = d->nrec;
	for (k = 0; k < d->nrec; k++) {
		s->flat |= d->rec[k].trips > 1;
		m->rec[m->nrec] = d->rec[k];
		m->rec[m->nrec++].tl += m->ntl;
	}
	if (d->ntl)	/* (m->tl is NULL until the first) */
		memcpy(m->tl + m->ntl, d->tl, d->ntl * sizeof(*d->tl));
	m->ntl += d->ntl;
	m->node[v].sum = ++m->nsum;
	return 0;
}

int lsa_memo_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti, int flat,
		 uint32_t *leaf)
{
	struct lsa_memo *m = &t->memo;
	const struct lsd_sblock *head = t->path[ti].sb;
	uint32_t loop = t->head[head->id] - 1, i, v, nfi, k, nd;
	struct lsa_fitem fi[LSA_MEMO_MAX + 1];
	struct step steps[LSA_MEMO_MAX + 1];
	struct dry d;
	struct lsa_mnode *root;
	uint32_t *r;
	int err, pre_on = lsa_loops_pre_on(l), last;

	*leaf = LSA_NONE;
	if (m->stale || !m->nchain || m->nnode + LSA_MEMO_MAX + 1 > MEMO_NODES)
		memo_clear(m);
	nfi = lsa_memo_flat(l, t, ti, flat, fi);
	if (!nfi)
		return 0;
	/* the head's own steps (and its leaf's): charged to the
	 * iteration's own entry */
	steps[0].opens = steps[0].chain = 0;
	steps[0].own = loop + 1;
	steps[0].pre = 0;
	err = dry_scan(l, t, loop, fi, nfi, steps, &d);
	if (flat)
		lsa_memo_flat_done(t, head->id, err > 0);
	if (err <= 0)
		return err;
	if (head->id >= m->nrootof) {
		size_t old = m->nrootof;

		if (LS_GROW(m->rootof, (size_t)head->id + 1, m->nrootof, 1024))
			return -LS_ENOMEM;
		memset(m->rootof + old, 0, (m->nrootof - old) * sizeof(*m->rootof));
	}
	r = &m->rootof[head->id];
	/* a trie made when those loops' bodies were smaller: its nodes are
	 * left unreachable until the tries are dropped */
	if (*r && !root_valid(t, *r - 1))
		*r = 0;
	if (!*r) {
		if ((v = node_new(m, head, LSA_NONE, 0)) == LSA_NONE)
			return -LS_ENOMEM;
		*r = v + 1;
	}
	m->root = v = *r - 1;
	root = &m->node[v];
	nd = d.nd;
	if (nd) {
		/* the trie's loops: the root's and this iteration's */
		uint32_t n0 = nd, c = root->deps;

		for (i = 0; c && i < m->chain[c]; i++) {
			for (k = 0; k < n0 && d.deps[k] != m->chain[c + 1 + i]; k++)
				;
			if (k == n0)
				d.deps[nd++] = m->chain[c + 1 + i];
		}
		if (nd > MEMO_DEPS)
			return 0;
		if (nd != (c ? m->chain[c] : 0)) {
			c = chain_put(m, d.deps, nd);
			if (c == LSA_NONE)
				return -LS_ENOMEM;
			m->node[v].deps = c;
		}
		m->node[v].dep = 1;
	}
	/* the blocks, then the head again: the term */
	for (k = 1; k < nfi && v != LSA_NONE; k++) {
		const struct lsa_fitem *it = &fi[k];

		v = child_of(m, v, it->sb, 0, it->kind, &steps[k],
			     lsa_mk_in_leaf(it->kind) ? lsa_loops_func_of(l, it->sb) : LSA_NONE,
			     pre_on, it->pdepth);
	}
	last = lsa_mk_in_leaf(fi[nfi - 1].kind);
	if (v != LSA_NONE)
		v = child_of(m, v, head, 1, last ? MK_RETURN : MK_FRAME, &steps[0], LSA_NONE,
			     pre_on, 0);
	if (v == LSA_NONE || (!m->node[v].sum && sum_make(l, m, v, &d)))
		return -LS_ENOMEM;
	root = &m->node[m->root];
	if (root->dep)
		root->ver = deps_ver(t, root->deps);
	*leaf = v;
	return 0;
}

/* Matching begins at root, the head on top of the path, for entry ii of
 * loop own - 1 (LSA_NONE: the entry is made at its first iteration's
 * end, lsa_memo_enter). */
static void begin(struct lsa_loops *l, struct lsa_thr *t, uint32_t root,
		  uint32_t ii, uint32_t own)
{
	struct lsa_memo *m = &t->memo;

	m->root = m->at = root;
	m->inst = ii;
	m->own = own;
	m->cur = t->fr[t->nfr - 1].cur;
	m->ti = t->npath - 1;
	m->on = 1;
	l->st.memo_starts++;
}

void lsa_memo_start(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		    uint32_t leaf)
{
	struct lsa_memo *m = &t->memo;
	uint32_t v;

	/* where charge() put the run-once counts of the new nodes' blocks;
	 * it stays so: pre and preo of a block change only under its
	 * first owner */
	for (v = m->node[leaf].parent; v != m->root; v = m->node[v].parent) {
		uint32_t id = m->node[v].sb->id;

		if (m->node[v].pre && lsa_loops_pre_on(l))
			m->node[v].more = !(t->pre[id] && t->preo[id] == m->node[v].pown);
	}
	begin(l, t, m->root, ii, l->inst[ii].loop + 1);
}

void lsa_memo_head(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_memo *m = &t->memo;
	const struct lsd_sblock *head = t->path[t->npath - 1].sb;
	uint32_t r;

	if (m->stale || t->deep || head->id >= m->nrootof || !(r = m->rootof[head->id]) ||
	    lsa_memo_quiet(t, t->npath - 1) ||
	    lsa_loops_func_of(l, head) != t->fr[t->nfr - 1].cur || !root_valid(t, r - 1))
		return;
	begin(l, t, r - 1, LSA_NONE, t->head[head->id]);
}

int lsa_memo_enter(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_memo *m = &t->memo;
	uint32_t ii;
	int err = lsa_loops_inst_new(l, m->own - 1, &ii);

	m->enter = 0;
	if (err)
		return err;
	l->inst[ii].trips = 1;
	t->path[m->ti].inst = ii;
	m->inst = ii;
	return 0;
}

/* The iteration just matched, b[ls .. i] ending at term node c of the
 * trie rooted at root, repeats block for block in the blocks after it:
 * those whole iterations take the same nodes, so each counted node
 * (lsa_mnode.cnt) on the way counts them (all were counted once
 * already: on the dirty list).  Returns the blocks they take. */
static size_t memo_again(struct lsa_mnode *node, uint32_t c, uint32_t root,
			 const struct lsd_block *b, size_t ls, size_t i, size_t n)
{
	size_t k = lsa_memo_repeat(b, ls, i, n), it;
	uint32_t u;

	if (!k)
		return 0;
	it = k / (i + 1 - ls);
	for (u = c; u != root; u = node[u].parent)
		node[u].count += node[u].cnt ? it : 0;
	return k;
}

size_t lsa_memo_run(struct lsa_thr *t, const struct lsd_block *b, size_t i,
		    size_t n)
{
	struct lsa_memo *m = &t->memo;
	struct lsa_mnode *node = m->node;
	uint32_t v = m->at, root = m->root, *dirty = m->dirty, nd = m->ndirty;
	/* the frame's path: a body block on it would be a loop back to it
	 * (the trie's variants were met with other paths below the head) */
	const uint32_t *mem = t->mem, base = t->fr[t->nfr - 1].base;
	uint32_t lim = t->npath - base;
	uint8_t px = t->pexit;
	int pend = m->inst == LSA_NONE;
	size_t i0 = i;
	/* where the iteration under way began, if here */
	size_t ls = v == root ? i : SIZE_MAX;

	for (; i < n; i++) {
		const struct lsd_sblock *sb = b[i].sb;
		uint32_t c = node[v].child, p;

		/* the block, entered as the trie has it (a frame's blocks by
		 * exits that move no frame, a leaf by its call and return;
		 * which the parent's kind and the exit tell apart, so one
		 * child at most matches) */
		if (__builtin_expect(c == LSA_NONE || node[c].sb != sb ||
				     !(node[c].vmask >> px & 1), 0)) {
			for (p = c; p != LSA_NONE; p = c) {
				c = node[p].sib;
				if (c != LSA_NONE && node[c].sb == sb &&
				    node[c].vmask >> px & 1)
					break;
			}
			if (c == LSA_NONE)
				break;
			/* to the front: an iteration mostly takes the
			 * branch the last one took */
			node[p].sib = node[c].sib;
			node[c].sib = node[v].child;
			node[v].child = c;
		}
		if (node[c].chk && !node[c].term && mem[sb->id] - base < lim)
			break;
		px = b[i].exit;
		if (node[c].cnt && !node[c].count++)
			dirty[nd++] = c;
		if (!node[c].term) {
			v = c;
		} else {
			v = root;
			if (pend) {
				m->enter = 1;
				i++;
				break;
			}
			if (ls != SIZE_MAX) {
				size_t k = memo_again(node, c, root, b, ls, i, n);

				m->again += k;
				i += k;
			}
			ls = i + 1;
		}
	}
	if (i > i0) {
		t->psb = b[i - 1].sb;
		t->pexit = px;
		t->pnext = b[i - 1].next;
		m->at = v;
		m->ndirty = nd;
	}
	return i;
}

void lsa_memo_release(struct lsa_memo *m)
{
	free(m->node);
	free(m->dirty);
	free(m->chain);
	free(m->sum);
	free(m->rec);
	free(m->tl);
	free(m->flt);
	free(m->intrie);
	free(m->rootof);
	memset(m, 0, sizeof(*m));
}
