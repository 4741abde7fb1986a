/* sview.h - the structural loops as a consumer of the one decode
 * (analysis/consume.h): the executed CFG (analysis/cfg.h), its natural
 * loops and irreducible regions (analysis/sloops.h) paired with the loop
 * detector's loops (analysis/loopcmp.h), written into the profile as the
 * structural records of formats/profile.md, which is what `report
 * --structural` prints.  They are found from the graph records
 * (analysis/cgraph.h) put into the profile first, so a profile holding
 * only those (a merge of runs) gives them too (lsa_sview_put()).  Each
 * header and region entry is named as the report names it
 * ("function+0xoff", "file:line"), so reading needs no binaries.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_SVIEW_H
#define LSA_SVIEW_H

#include "analysis/consume.h"
#include "decoder/image.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"

struct lsa_cfg;

struct lsa_sview_opts {
	size_t size;		/* sizeof(struct lsa_sview_opts) */
	double merge_t;		/* OptiWISE's T; 0: LSA_SLOOPS_T */
	/* Code bytes, for the targets of branches never taken (may be NULL). */
	const struct lsd_image *img;
	/* Also add the graph records (analysis/cgraph.h) from the same graph. */
	int graph;
	/* The graph another consumer of the same decode builds
	 * (lsa_cpiview_graph()), which this one then neither feeds (its
	 * consumer has no stream callbacks) nor frees; NULL: its own. */
	struct lsa_cfg *cfg;
};

struct lsa_sview;

/* A structural-loops consumer of bundle r's decode; sym may be NULL
 * (functions from call targets, headers by address).  r, sym and the
 * image must outlive it.  Returns -LS_EINVAL, -LS_ENOMEM. */
int lsa_sview_new(struct lsa_sview **pv, struct lsb_reader *r,
		  struct lsd_symbols *sym, const struct lsa_sview_opts *o);
/* Its consumer, to lsa_consumers_add(); its finish adds the records to
 * the profile (which the loop detector filled from the same decode) and
 * returns -LS_ENOMEM or -LS_EINVAL. */
void lsa_sview_consumer(struct lsa_sview *v, struct lsa_consumer *c);
void lsa_sview_free(struct lsa_sview *v);
/* The structural records of the graph records of p (analysis/cgraph.h;
 * p sorted, as read or after lsp_sort()), found with merge threshold
 * merge_t (0: LSA_SLOOPS_T), replacing any there: what the consumer's
 * finish adds, also for merged runs.  Block ids are p's cblock rows.
 * Returns -LS_EINVAL, -LS_ENOENT (p has no graph), -LS_ENOMEM. */
int lsa_sview_put(struct lsp_profile *p, double merge_t);

#endif
