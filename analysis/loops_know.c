/* loops_know.c - what the loop detector's threads learned, known from
 * the start of a second pass (see struct lsa_know in loops.h).
 *
 * A thread's knowledge is its loop heads, in the order of their numbers,
 * and the (loop, block) pairs of its loops' bodies, each loop named by
 * its place in that list: the second pass numbers its loops afresh.
 * Threads are kept by slot: both passes decode the same streams, so they
 * make the same slots in the same order.  Static blocks are the
 * decoder's, which both passes share; a head is kept as its static
 * block, which stays where it is while the decoder adds others. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_kthr {
	const struct lsd_sblock **head;
	uint32_t nhead;
	uint64_t *body;		/* index into head << 32 | block id */
	size_t nbody;
};

struct lsa_know {
	struct lsa_kthr *t;
	size_t n;
};

int lsa_loops_learn(struct lsa_loops *l, struct lsa_know **pk)
{
	if (!l || !pk || l->learn || l->know)
		return -LS_EINVAL;
	*pk = calloc(1, sizeof(**pk));
	if (!*pk)
		return -LS_ENOMEM;
	l->learn = *pk;
	/* (its memos would keep what it does not: its own is lsa_fmemo) */
	l->fmemo = l->memo;
	l->memo = 0;
	return 0;
}

void lsa_loops_know(struct lsa_loops *l, const struct lsa_know *k)
{
	if (l && !l->learn)
		l->know = k;
}

void lsa_know_free(struct lsa_know *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		free(k->t[i].head);
		free(k->t[i].body);
	}
	free(k->t);
	free(k);
}

int lsa_know_take(struct lsa_loops *l, const struct lsa_thr *t)
{
	struct lsa_know *k = l->learn;
	size_t slot = (size_t)(t - l->thr), i;
	struct lsa_kthr *kt;
	uint32_t *hx;

	if (slot >= k->n) {
		void *p = ls_reallocarray(k->t, slot + 1, sizeof(*k->t));

		if (!p)
			return -LS_ENOMEM;
		k->t = p;
		memset(k->t + k->n, 0, (slot + 1 - k->n) * sizeof(*k->t));
		k->n = slot + 1;
	}
	kt = &k->t[slot];
	hx = malloc((l->nloops ? l->nloops : 1) * sizeof(*hx));
	kt->head = malloc((l->nloops ? l->nloops : 1) * sizeof(*kt->head));
	kt->body = malloc((t->body.n ? t->body.n : 1) * sizeof(*kt->body));
	if (!hx || !kt->head || !kt->body) {
		free(hx);
		return -LS_ENOMEM;
	}
	for (i = 0; i < l->nloops; i++) {
		uint32_t id = l->loops[i].head->id;

		hx[i] = LSA_NONE;
		if (id < t->nk && t->head[id] == i + 1) {
			hx[i] = kt->nhead;
			kt->head[kt->nhead++] = l->loops[i].head;
		}
	}
	for (i = 0; i < t->body.cap; i++) {
		const struct lsa_kent *e = &t->body.t[i];

		/* (a body's loop is one the thread knows: never LSA_NONE) */
		if (e->a != LSA_KMAP_EMPTY && e->a < l->nloops && hx[e->a] != LSA_NONE)
			kt->body[kt->nbody++] = (uint64_t)hx[e->a] << 32 | e->b;
	}
	free(hx);
	return 0;
}

int lsa_know_give(struct lsa_loops *l, struct lsa_thr *t)
{
	size_t slot = (size_t)(t - l->thr), i;
	const struct lsa_kthr *kt;
	uint64_t known = l->st.know_new;	/* (what is given is not new) */
	uint32_t *loop;
	int err = 0;

	if (!l->know || slot >= l->know->n || !l->know->t[slot].nhead)
		return 0;
	kt = &l->know->t[slot];
	loop = malloc(kt->nhead * sizeof(*loop));
	if (!loop)
		return -LS_ENOMEM;
	for (i = 0; i < kt->nhead && !err; i++)
		err = lsa_loops_know_head(l, t, kt->head[i], &loop[i]);
	for (i = 0; i < kt->nbody && !err; i++)
		err = lsa_loops_know_body(l, t, loop[kt->body[i] >> 32],
					  (uint32_t)kt->body[i]);
	free(loop);
	l->st.know_new = known;
	return err;
}
