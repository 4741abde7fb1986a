/* loops_fmark.c - the learning pass's memo: the marks of the path below
 * a nested level's head (loops_fmatch.c matches).  A nested loop's
 * iteration is the one its trie holds only where none of its blocks of
 * the head's frame lies on that frame's path below the head; that path
 * is marked here as the level begins, and the trie's listed blocks
 * checked against it (lsa_fm_shadowed()), or, for a wide level, each
 * block as the walk takes it (loops_fmatch.c). */
#include "analysis/loops_int.h"

/* Head id's mark of the kind wide says (.wsh, else .sh) set to v. */
static inline void pm_set(struct lsa_fmemo *m, uint32_t id, int wide, uint32_t v)
{
	if (wide)
		m->head[id].wsh = v;
	else
		m->head[id].sh = v;
}

/* Marks the blocks on the path of the frame of the block of the node
 * the top level reached (a nested level's head), from that block down,
 * that the levels put there (their nodes back to where that frame
 * began): lsa_fhead.sh = a new stamp, or, where wide is set, .wsh = a
 * new wstamp.  *below is set where that frame is the head's of a level
 * below.  Returns 1 where it is the outer head's (the real path below
 * the outer head and the head itself are on it too), else 0. */
int lsa_fm_pmark(struct lsa_fmemo *m, int wide, int *below)
{
	const struct lsa_fnode *nd = m->node;
	uint32_t j = m->top, c = m->lv[j].at, r = lsa_fm_depth(nd, c), k, n;
	uint32_t *stamp = wide ? &m->wstamp : &m->stamp, v;
	const int w = wide != 0;
	int ret;

	/* The last walk's first node on this one's path (a node's parent is
	 * made before it: a lower index) in the same frame: the walk goes
	 * on from there as that one did, and its marks stand.  (The wide
	 * walk of base64 xz's encoder marked 70 nodes a level.) */
	if (m->pm[w].ok && m->pm[w].top == j && m->pm[w].id == m->lv[j].id &&
	    m->pm[w].r == r && c >= m->pm[w].c) {
		const uint32_t c0 = m->pm[w].c;

		v = *stamp;
		for (n = c; n != LSA_NONE && n > c0; n = nd[n].parent) {
			uint32_t d = lsa_fm_depth(nd, n);

			if (d < r)
				break;
			if (d == r)
				pm_set(m, nd[n].id, wide, v);
		}
		if (n == c0) {
			m->pm[w].c = c;
			*below = m->pm[w].below;
			return m->pm[w].ret;
		}
		/* (not on its path: a walk of its own, a new stamp) */
	}
	*below = 0;
	if (!++*stamp) {	/* (wrapped: no stale mark may match) */
		for (k = 0; k < m->nhead; k++)
			pm_set(m, k, wide, 0);
		*stamp = 1;
	}
	v = *stamp;
	m->pm[w].c = c;
	m->pm[w].top = j;
	m->pm[w].id = m->lv[j].id;
	m->pm[w].r = r;
	m->pm[w].ok = 1;
	for (;;) {
		for (; c != LSA_NONE; c = nd[c].parent) {
			uint32_t d = lsa_fm_depth(nd, c);

			if (d < r) {
				ret = 0;	/* the frame began here */
				goto out;
			}
			if (d == r)
				pm_set(m, nd[c].id, wide, v);
		}
		/* the frame is the level's head's: the level below's */
		*below = 1;
		if (!j--) {
			ret = 1;
			goto out;
		}
		c = m->lv[j].at;
		r = lsa_fm_depth(nd, c);
	}
out:
	m->pm[w].ret = ret;
	m->pm[w].below = *below;
	return ret;
}

/* Whether a block of the head's frame that nested trie rt holds is on
 * that frame's path below the level's head, the block of the node the
 * top level reached: the path the levels below put there
 * (lsa_fm_pmark()) and, where the frame is the outer head's, the real
 * path below the outer head and the head itself. */
int lsa_fm_shadowed(struct lsa_thr *t, uint32_t rt, int *below)
{
	struct lsa_fmemo *m = &t->fm;
	const uint32_t *tp = &m->tops[m->node[rt].aux];
	const int real = lsa_fm_pmark(m, 0, below);
	uint32_t k;

	for (k = 1; k <= tp[0]; k++) {
		if (tp[k] < m->nhead && m->head[tp[k]].sh == m->stamp)
			return 1;
		if (real && lsa_fm_under(t, tp[k], m->ti + 1))
			return 1;
	}
	return 0;
}
