/* cpiview.h - the sampled CPI (analysis/cpi.h) as a consumer of the one
 * decode (analysis/consume.h): the executed CFG is built from the block
 * stream with the call stacks counted beside it (lsa_cpi_stacks_*); at
 * the end the bundle's samples are placed and attributed, the loop
 * detector's loops (from the profile the same decode filled) and the
 * structural loops are added, the totals summed along the stacks, and
 * everything `report --cpi` and `annotate` print goes into the profile
 * as the sampled-CPI records of formats/profile.md (version 6): the
 * figures, names, source places and disassembly as printed, so reading
 * needs neither binaries nor samples.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CPIVIEW_H
#define LSA_CPIVIEW_H

#include "analysis/consume.h"
#include "decoder/image.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"

struct lsa_cpiview_opts {
	size_t size;		/* sizeof(struct lsa_cpiview_opts) */
	int no_skid_fix;	/* charge samples where they landed */
	/* The trace run's code (instruction boundaries, disassembly, the
	 * targets of branches never taken).  Required. */
	const struct lsd_image *img;
	const char *debug_dir;	/* the sampling run's references; may be NULL */
};

struct lsa_cpiview;
struct lsa_cfg;

/* A CPI consumer of bundle r's decode; sym may be NULL (functions from
 * call targets, no source lines).  r, sym and the image must outlive it.
 * Returns -LS_EINVAL (no image), -LS_ENOMEM. */
int lsa_cpiview_new(struct lsa_cpiview **pv, struct lsb_reader *r,
		    struct lsd_symbols *sym, const struct lsa_cpiview_opts *o);
/* Its consumer, to lsa_consumers_add(); its finish sorts the profile
 * (lsp_sort(): the loop ids reports print) and adds the records;
 * returns -LS_ENOMEM, -LS_ECORRUPT (the stacks disagree with the graph),
 * or a bundle reader's error (the samples). */
void lsa_cpiview_consumer(struct lsa_cpiview *v, struct lsa_consumer *c);
void lsa_cpiview_free(struct lsa_cpiview *v);
/* Its graph, which its consumer feeds: the graph and structural-loop
 * consumers of the same decode may read it instead of building their own
 * (lsa_cgraph_new_on(), lsa_sview_opts.cfg), added to the set before
 * this consumer so that their finish comes first, as with graphs of
 * their own.  Valid while v is. */
struct lsa_cfg *lsa_cpiview_graph(struct lsa_cpiview *v);
/* The records of what `annotate` prints from the finished graph c of
 * bundle r, without the decode's loops and stacks: the cpi record (its
 * outside figures 0), functions (totals 0) and instructions; no loops and
 * no lines.  For a view of a bundle that prints nothing else, so that it
 * needs no loop detector.  Returns -LS_EINVAL, -LS_ENOMEM, or a bundle
 * reader's error. */
int lsa_cpiview_put(struct lsp_profile *p, const struct lsa_cfg *c, struct lsb_reader *r,
		    struct lsd_symbols *sym, const struct lsa_cpiview_opts *o);

#endif
