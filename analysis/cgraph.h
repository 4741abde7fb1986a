/* cgraph.h - the executed control-flow graph (analysis/cfg.h) into the
 * profile, as records that merge by summing (formats/profile.md, version
 * 5: cgraph, cfunc, cblock, cedge), and back into a graph, so views that
 * need the graph (export, probes) read the profile, also of merged runs,
 * instead of decoding again.
 *
 * Functions and blocks are keyed by (module, file offset), edges by their
 * ends, kind, why and flags; code outside every bundled module is not
 * recorded (edges to it lead outside), edges never taken only where a
 * conditional went one way (the other way, unreached, count 0).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CGRAPH_H
#define LSA_CGRAPH_H

#include "analysis/cfg.h"
#include "analysis/consume.h"
#include "formats/bundle.h"
#include "formats/profile.h"

/* Adds the functions, blocks (with their source lines from sym, which
 * may be NULL) and edges of the finished graph c, whose modules are
 * bundle r's, to p (replacing any there), and the recorded program (the
 * module named like r's command line's first word).  Returns -LS_EINVAL,
 * -LS_ENOMEM. */
int lsa_cgraph_put(const struct lsa_cfg *c, struct lsb_reader *r, struct lsd_symbols *sym,
		   struct lsp_profile *p);
/* The finished graph of p's graph records (p sorted, as read): functions,
 * blocks and edges in the records' order, module indexes p's, block ids
 * the cblock rows' indexes; runtime addresses are made up (each module at
 * its own 2^48 window: start = (module + 1) << 48 | off).  Returns -LS_EINVAL, -LS_ENOENT (p has no graph), -LS_ENOMEM. */
int lsa_cgraph_cfg(struct lsa_cfg **pc, const struct lsp_profile *p);
/* 1 when path (may be NULL) is name or ends in "/name", else 0. */
int lsa_cgraph_path_match(const char *path, const char *name);

struct lsa_cgraph;

/* A graph consumer of bundle r's decode (sym and img may be NULL, as for
 * lsa_cfg_new(); all must outlive it).  Returns -LS_EINVAL, -LS_ENOMEM. */
int lsa_cgraph_new(struct lsa_cgraph **pg, struct lsb_reader *r,
		   struct lsd_symbols *sym, const struct lsd_image *img);
/* The same on graph c, which another consumer of the same decode builds
 * (lsa_cpiview_graph()): not fed nor freed by this one, whose consumer
 * has no stream callbacks; c must outlive it.  Returns -LS_EINVAL,
 * -LS_ENOMEM. */
int lsa_cgraph_new_on(struct lsa_cgraph **pg, struct lsb_reader *r,
		      struct lsd_symbols *sym, struct lsa_cfg *c);
/* Its consumer, to lsa_consumers_add(); its finish finishes the graph
 * (once: lsa_cfg_finish()) and adds the records (-LS_ENOMEM). */
void lsa_cgraph_consumer(struct lsa_cgraph *g, struct lsa_consumer *c);
void lsa_cgraph_free(struct lsa_cgraph *g);

#endif
