/* plan_int.h - what plan.c and plan_guess.c share: one function's
 * circulation in compressed form. */
#ifndef LSA_PLAN_INT_H
#define LSA_PLAN_INT_H

#include "analysis/cfg.h"
#include "analysis/plan.h"

struct lsa_plang {
	const struct lsa_cfg *c;
	uint32_t n;			/* nodes: 0 outside, blocks 1 .. n-1 */
	size_t ne;
	struct lsa_plan_edge *e;	/* in tie order */
	uint32_t *out_off, *out;	/* edges leaving node v:
					 * out[out_off[v] .. out_off[v+1]) */
	uint32_t *in_off, *in;		/* and entering it */
	uint32_t *outdeg;		/* instrumentable outputs */
};

/* The edge kind (enum lsa_cfg_kind) of plan edge i. */
int lsa_plang_kind(const struct lsa_plang *g, size_t i);

/* Fills e[].guess and e[].modified (plan.h, section 2.2 and 2.4).
 * Returns 0 or -LS_ENOMEM. */
int lsa_plang_guess(struct lsa_plang *g);

#endif
