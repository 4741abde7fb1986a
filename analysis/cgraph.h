/* cgraph.h - the executed control-flow graph (analysis/cfg.h) into the
 * profile, as records that merge by summing (formats/profile.md, version
 * 5: cblock, cedge), so views that need the graph read the profile, also
 * of merged runs, instead of decoding again.
 *
 * Blocks are keyed by (module, file offset), edges by their ends, kind,
 * why and flags; code outside every bundled module and edges never taken
 * are not recorded.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CGRAPH_H
#define LSA_CGRAPH_H

#include "analysis/cfg.h"
#include "analysis/consume.h"
#include "formats/bundle.h"
#include "formats/profile.h"

/* Adds the blocks and edges of the finished graph c, whose modules are
 * bundle r's, to p (replacing any there).  Returns -LS_ENOMEM. */
int lsa_cgraph_put(const struct lsa_cfg *c, struct lsb_reader *r, struct lsp_profile *p);

struct lsa_cgraph;

/* A graph consumer of bundle r's decode (sym and img may be NULL, as for
 * lsa_cfg_new(); all must outlive it).  Returns -LS_EINVAL, -LS_ENOMEM. */
int lsa_cgraph_new(struct lsa_cgraph **pg, struct lsb_reader *r,
		   struct lsd_symbols *sym, const struct lsd_image *img);
/* Its consumer, to lsa_consumers_add(); its finish adds the records
 * (-LS_ENOMEM). */
void lsa_cgraph_consumer(struct lsa_cgraph *g, struct lsa_consumer *c);
void lsa_cgraph_free(struct lsa_cgraph *g);

#endif
