/* loops_memo.c - the loop detector's iteration memo (see struct lsa_memo).
 *
 * The per-block path pushes every block of an iteration on the frame's
 * path and, when control comes back to the head, scans and charges them
 * one by one.  For an iteration of blocks of one function, with no call
 * and no nested loop that iterates, all of that is fixed by the sequence
 * of blocks, the loops known and their bodies: which blocks open entries
 * of trip count 1 of loops headed by them (scan() decides it by the
 * bodies), which entry each block is charged to, where each counts once
 * in case it heads a loop later, the head's entry getting one iteration
 * with the last block as its back branch.  So the sequences met are kept
 * in a trie per head, each node with that decision (a dry run of scan()),
 * and later iterations only walk the trie, counting passes per node; the
 * counts are multiplied out when matching stops, and the blocks of an
 * unfinished iteration are then pushed as the per-block path would have
 * pushed them.  All a pass adds is sums (and a trip count 1 minimum and
 * maximum), so k passes add k times one.
 *
 * What makes a trie stale: a block in it heading a loop (tries are
 * dropped whenever a loop is found) and, for a trie with entries of trip
 * count 1, a loop body grown (checked against a version).  Nothing else a
 * trie relies on changes: a block's function, and where its run-once
 * counts go (preo of a block is set once per thread).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "common/ls_err.h"

#define MEMO_MAX 256		/* blocks of an iteration, at most */
#define MEMO_NODES (1u << 16)	/* trie nodes of a thread, at most */
#define MEMO_DEPTH 8		/* entries of trip count 1 open at once */

int lsa_memo_fits(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti)
{
	const struct lsa_frame *top = &t->fr[t->nfr - 1];
	uint32_t i;

	/* The last entry must be the block that came back (the tail): no
	 * frame was left in between. */
	if (!l->memo || t->deep || t->npath - ti > MEMO_MAX ||
	    t->path[t->npath - 1].sb != t->psb)
		return 0;
	for (i = ti; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];

		if (e->acc != LSA_NONE || lsa_loops_func_of(l, e->sb) != top->cur)
			return 0;
		if (i > ti && e->inst != LSA_NONE)
			return 0;
	}
	return 1;
}

static void memo_clear(struct lsa_memo *m)
{
	size_t i;

	m->nnode = 0;
	m->ndirty = 0;
	m->nchain = 1;	/* chain 0: none open */
	for (i = 0; i < m->roots.cap; i++)
		m->roots.t[i].a = LSA_KMAP_EMPTY;
	m->roots.n = 0;
}

/* A new node under parent (LSA_NONE: a root); LSA_NONE when out of memory. */
static uint32_t node_new(struct lsa_memo *m, const struct lsd_sblock *sb,
			 uint32_t parent, int term)
{
	struct lsa_mnode *v;
	uint32_t i;

	if (m->nnode == m->capnode) {
		uint32_t nc = m->capnode ? m->capnode * 2 : 256;
		void *p = realloc(m->node, (size_t)nc * sizeof(*m->node));

		if (!p)
			return LSA_NONE;
		m->node = p;
		/* every node may be dirty at once: pushed without a check */
		p = realloc(m->dirty, (size_t)nc * sizeof(*m->dirty));
		if (!p)
			return LSA_NONE;
		m->dirty = p;
		m->capnode = nc;
	}
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
		p = realloc(m->chain, (size_t)nc * sizeof(*m->chain));
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

/* The child of v for block sb, made when new with what step x says. */
static uint32_t child_of(struct lsa_memo *m, uint32_t v, const struct lsd_sblock *sb,
			 int term, const struct step *x)
{
	uint32_t c;

	for (c = m->node[v].child; c != LSA_NONE; c = m->node[c].sib)
		if (m->node[c].sb == sb)
			return c;
	c = node_new(m, sb, v, term);
	if (c != LSA_NONE) {
		m->node[c].opens = x->opens;
		m->node[c].own = x->own;
		m->node[c].chain = x->chain;
		m->node[c].pre = x->pre;
	}
	return c;
}

/* A dry run of scan() over the body path[ti + 1 ..) of an iteration of
 * loop (the entry at ti), as the scan will run it next: which blocks open
 * entries of trip count 1, whom each is charged to.  Returns 1 with
 * steps[], 0 when the nesting is too deep for the memo, -LS_ENOMEM. */
static int dry_scan(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		    uint32_t loop, struct step *steps, int *dep)
{
	struct lsa_memo *m = &t->memo;
	uint32_t os[MEMO_DEPTH], nos = 0, i;

	*dep = 0;
	for (i = ti + 1; i < t->npath; i++) {
		const struct lsd_sblock *sb = t->path[i].sb;
		struct step *x = &steps[i - ti - 1];
		uint32_t owner, hl = l->sbloop[sb->id];

		while (nos && !lsa_loops_in_body(l, os[nos - 1], sb->id))
			nos--;
		owner = nos ? os[nos - 1] : loop;
		x->opens = 0;
		x->pre = !hl;
		if (hl && lsa_loops_entry_ok(l, hl - 1, owner + 1)) {
			if (nos == MEMO_DEPTH)
				return 0;
			os[nos++] = hl - 1;
			x->opens = hl;
			owner = hl - 1;
			*dep = 1;
		}
		x->own = owner + 1;
		x->chain = chain_put(m, os, nos);
		if (x->chain == LSA_NONE)
			return -LS_ENOMEM;
	}
	return 1;
}

int lsa_memo_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t ti,
		 uint32_t *leaf)
{
	struct lsa_memo *m = &t->memo;
	const struct lsd_sblock *head = t->path[ti].sb;
	uint32_t loop = l->sbloop[head->id] - 1, i, v;
	struct step steps[MEMO_MAX], x;
	uint64_t *r;
	int err, dep;

	*leaf = LSA_NONE;
	if (m->nloops != l->nloops || !m->nchain ||
	    m->nnode + (t->npath - ti) + 1 > MEMO_NODES)
		memo_clear(m);
	m->nloops = l->nloops;
	err = dry_scan(l, t, ti, loop, steps, &dep);
	if (err <= 0)
		return err;
	r = lsa_kmap_get(&m->roots, head->id, 0);
	if (!r)
		return -LS_ENOMEM;
	if (*r) {
		struct lsa_mnode *root = &m->node[*r - 1];

		/* a trie that opens entries, made with other bodies: its
		 * nodes are left unreachable until the tries are dropped */
		if (root->dep && root->ver != l->body.n)
			*r = 0;
	}
	if (!*r) {
		if ((v = node_new(m, head, LSA_NONE, 0)) == LSA_NONE)
			return -LS_ENOMEM;
		*r = (uint64_t)v + 1;
	}
	m->root = v = (uint32_t)(*r - 1);
	if (dep) {
		m->node[v].dep = 1;
		m->node[v].ver = l->body.n;
	}
	for (i = ti + 1; i < t->npath && v != LSA_NONE; i++)
		v = child_of(m, v, t->path[i].sb, 0, &steps[i - ti - 1]);
	/* the head again: charged to the iteration's own entry */
	x.opens = 0;
	x.own = loop + 1;
	x.chain = 0;
	x.pre = 0;
	if (v != LSA_NONE)
		v = child_of(m, v, head, 1, &x);
	if (v == LSA_NONE)
		return -LS_ENOMEM;
	*leaf = v;
	return 0;
}

void lsa_memo_start(struct lsa_loops *l, struct lsa_thr *t, uint32_t ii,
		    uint32_t leaf)
{
	struct lsa_memo *m = &t->memo;
	uint32_t v;

	m->inst = ii;
	m->own = l->inst[ii].loop + 1;
	m->cur = t->fr[t->nfr - 1].cur;
	/* where charge() put the run-once counts of the new nodes' blocks;
	 * it stays so: pre and preo of a block change only under its
	 * first owner */
	for (v = m->node[leaf].parent; v != m->root; v = m->node[v].parent) {
		uint32_t id = m->node[v].sb->id;

		if (m->node[v].pre)
			m->node[v].more = !(t->pre[id] && t->preo[id] == m->node[v].own);
	}
	m->at = m->root;
	m->on = 1;
	l->st.memo_starts++;
}

void lsa_memo_head(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_memo *m = &t->memo;
	const struct lsd_sblock *head = t->path[t->npath - 1].sb;
	uint64_t *r;

	if (m->nloops != l->nloops || t->deep || !m->roots.n)
		return;
	r = lsa_kmap_find(&m->roots, head->id, 0);
	if (!r || !*r || lsa_loops_func_of(l, head) != t->fr[t->nfr - 1].cur ||
	    (m->node[*r - 1].dep && m->node[*r - 1].ver != l->body.n))
		return;
	m->root = m->at = (uint32_t)(*r - 1);
	m->inst = LSA_NONE;
	m->own = l->sbloop[head->id];
	m->cur = t->fr[t->nfr - 1].cur;
	m->ti = t->npath - 1;
	m->on = 1;
	l->st.memo_starts++;
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

	for (; i < n; i++) {
		const struct lsd_sblock *sb = b[i].sb;
		uint32_t c;

		/* exits that move no frame between blocks of one function */
		if (px > LSD_EXIT_IJUMP)
			break;
		for (c = node[v].child; c != LSA_NONE && node[c].sb != sb;
		     c = node[c].sib)
			;
		if (c == LSA_NONE ||
		    (!node[c].term && mem[sb->id] - base < lim))
			break;
		px = b[i].exit;
		if (!node[c].count++)
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

/* Adds k times sb's counts to c. */
static void cnt_addk(struct lsa_cnt *c, const struct lsd_sblock *sb, uint64_t k)
{
	int j;

	c->n[0] += k * sb->ninsn;
	for (j = 0; j < LSP_NCLASS; j++)
		c->n[1 + j] += k * sb->iclass[j];
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

	l->st.blocks += k;
	l->st.memo_blocks += k;
	t->insns += k * sb->ninsn;
	if (m->cur != LSA_NONE)
		t->fw[m->cur].self += k * sb->ninsn;
	if (!x->chain) {
		cnt_addk(&in->self, sb, k);
	} else {
		/* charged to the innermost entry of trip count 1: its self,
		 * the totals of each open one, each graph edge's total, and
		 * through the outermost the totals of the iteration's entry */
		const uint32_t *c = &m->chain[x->chain + 1];
		uint32_t n = m->chain[x->chain], j, parent = loop;

		cnt_addk(&in->tot, sb, k);
		for (j = 0; j < n && !err; j++) {
			struct lsa_lrow *r = lsa_loops_lrow(t, c[j]);

			if (!r)
				return -LS_ENOMEM;
			cnt_addk(&r->total, sb, k);
			if (j == n - 1)
				cnt_addk(&r->self, sb, k);
			err = lsa_loops_edge_add(t, parent, c[j], 0, k * sb->ninsn);
			parent = c[j];
		}
		if (err)
			return err;
	}
	if (x->opens) {
		/* an entry of trip count 1: what close_inst() counts */
		uint32_t lp = x->opens - 1, n = m->chain[x->chain];
		struct lsa_lrow *r = lsa_loops_lrow(t, lp);

		if (!r)
			return -LS_ENOMEM;
		r->entries += k;
		r->iterations += k;
		r->tmin = 1;
		if (r->tmax < 1)
			r->tmax = 1;
		if (1 < l->o.trip_limit) {
			err = lsa_kmap_add(&t->trips, lp, 1, k);
		} else {
			r->over_e += k;
			r->over_s += k;
		}
		if (!err)
			err = lsa_loops_edge_add(t, n > 1 ? m->chain[x->chain + n - 1] : loop,
						 lp, k, 0);
		if (err)
			return err;
	}
	if (x->term) {
		/* back to the head: an iteration, its back branch the block
		 * before (the runs of one tail are summed per tail in the
		 * end, however they were grouped) */
		uint32_t tail = x->parent == m->root ? sb->id : m->node[x->parent].sb->id;

		l->st.loop_backs += k;
		in->trips += k;
		if (tail == in->tail)
			in->tail_run += k;
		else
			return lsa_kmap_add(&t->tails, loop, tail, k);
		return 0;
	}
	if (!x->pre)
		return 0;
	if (x->more)
		return lsa_kmap_add(&t->pre_more, sb->id, x->own, k);
	t->pre[sb->id] += k;
	return 0;
}

int lsa_loops_memo_stop(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_memo *m = &t->memo;
	uint32_t part[MEMO_MAX + 1], np = 0, v, i;
	int err = 0, took;

	if (!m->on)
		return 0;
	m->on = 0;
	took = m->ndirty > 0;
	/* the iteration under way is not charged yet: its blocks go on
	 * the path */
	for (v = m->at; v != m->root; v = m->node[v].parent) {
		m->node[v].count--;
		part[np++] = v;
	}
	for (i = 0; i < m->ndirty; i++) {
		uint32_t d = m->dirty[i];
		uint64_t k = m->node[d].count;

		m->node[d].count = 0;
		if (k && !err)
			err = apply(l, t, d, k);
	}
	m->ndirty = 0;
	while (np && !err) {
		const struct lsd_sblock *sb = m->node[part[--np]].sb;

		l->st.blocks++;
		l->st.memo_blocks++;
		t->insns += sb->ninsn;
		if (m->cur != LSA_NONE)
			t->fw[m->cur].self += sb->ninsn;
		err = lsa_loops_path_push(l, t, sb);
	}
	/* a frame of unknown function restarts its span at every block
	 * (lsa_loops_block): as it would have at the last one */
	if (took && m->cur == LSA_NONE && t->fr[t->nfr - 1].func == LSA_NONE)
		t->fr[t->nfr - 1].start = t->insns - t->psb->ninsn;
	return err;
}

void lsa_memo_release(struct lsa_memo *m)
{
	free(m->node);
	free(m->dirty);
	free(m->chain);
	lsa_kmap_release(&m->roots);
	memset(m, 0, sizeof(*m));
}
