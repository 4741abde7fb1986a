/* loopcmp.h - the structural loops (analysis/sloops.h) and the dynamic
 * loops of the loop detector (analysis/loops.h), side by side.
 *
 * Both views come from one decode of the same trace.  A structural loop
 * and a dynamic loop match when the loop header is the dynamic loop's
 * head (same module and offset).  They then agree on iterations (the
 * header's executions in the loop) and entries (invocations), except
 * where the definitions differ, which each row says:
 *   - OptiWISE's rule may split the back edges of one header into nested
 *     loops; the dynamic view has one loop per head, the outermost.
 *   - The detector learns a head at its first loop back: a trip of 1
 *     before that is no entry of the dynamic loop.
 *   - A structural loop never executed as a cycle in one frame (its back
 *     edge left through a longjmp, say) has no dynamic twin; a dynamic
 *     loop whose head is no structural header (a cycle entered in its
 *     middle, an irreducible region, code of unknown functions) has no
 *     structural twin.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_LOOPCMP_H
#define LSA_LOOPCMP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cfg.h"
#include "analysis/sloops.h"
#include "formats/bundle.h"
#include "formats/profile_view.h"

enum lsa_cmp_kind {
	LSA_CMP_SAME = 0,	/* same head, iterations and entries */
	LSA_CMP_COUNTS,		/* same head, other counts (see above) */
	LSA_CMP_INNER,		/* an inner loop sharing its header with an
				 * outer one: dynamically one loop */
	LSA_CMP_NO_DYNAMIC,	/* structural loop the detector never saw loop */
	LSA_CMP_NO_STRUCTURAL,	/* dynamic loop whose head is no header */
	LSA_CMP_MAX
};

struct lsa_cmp {
	uint32_t sloop;		/* structural loop index, LSA_SLOOP_NONE */
	uint32_t loop;		/* profile loop index, LSP_NONE */
	int kind;		/* enum lsa_cmp_kind */
	uint64_t s_iterations, s_invocations;
	uint64_t d_iterations, d_entries;
};

/* Pairs the structural loops s (of graph c, read from the graph records
 * of v's profile: analysis/cgraph.h, so its module indexes are the
 * profile's) with the loops of view v: first one row per structural
 * loop, in s's order, then one per dynamic loop without a structural
 * twin.  *out is malloc'ed (free it).  Returns -LS_ENOMEM, -LS_EINVAL. */
int lsa_cmp_loops(const struct lsa_cfg *c, const struct lsa_sloops *s,
		  const struct lsp_view *v,
		  struct lsa_cmp **out, size_t *n);
/* "same", "counts", "inner", "no-dynamic", "no-structural". */
const char *lsa_cmp_kind_name(int kind);

#endif
