/* profile_int.h - shared by the profile reader and writer (not public). */
#ifndef LSP_PROFILE_INT_H
#define LSP_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#define LSP_MAGIC "loopscope-profile"

/* snprintf into errmsg when it has room; nothing when errlen is 0. */
void lsp_seterr(char *errmsg, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct lsp_profile;

/* Drops the interning tables (rebuilt on the next intern): after the
 * arrays were reordered. */
void lsp_index_drop(struct lsp_profile *p);

/* runmap[src run] = the dst run it joins: dst's run of the same bundle
 * (by the parts), else a new one from dst->nruns on.  Returns the number
 * of new runs. */
uint32_t lsp_part_runs(const struct lsp_profile *dst, const struct lsp_profile *src,
		       uint32_t *runmap);
/* Appends src's parts to dst with runs mapped; the shards of a bundle
 * that are all there become shard 0 of 1.  Returns 0 or -LS_ENOMEM. */
int lsp_part_join(struct lsp_profile *dst, const struct lsp_profile *src,
		  const uint32_t *runmap);
/* After the rows of src were added to dst: the label of each loop in both
 * (both[src loop]) from the side whose best back branch (dbest over dst's
 * loops before, sbest over src's) is the merged one (lsp_merge_count()).
 * Returns 0 or -LS_ENOMEM. */
int lsp_merge_labels(struct lsp_profile *dst, const struct lsp_profile *src,
		     const uint32_t *lmap, const uint8_t *both,
		     const struct lsp_best *dbest, const struct lsp_best *sbest,
		     size_t *unlabeled);
struct lsp_dep;
/* Appends dependence d (strings copied) with no check for one like it
 * (the reader checks keys itself).  Returns 0 or -LS_ENOMEM. */
int lsp_dep_push(struct lsp_profile *p, const struct lsp_dep *d);

/* Whether the trip-count histograms add up (profile_check.c): each
 * lstat's entries minus its overflow entries are its trip rows' entries,
 * its iterations minus its overflow sum their trips times entries, as the
 * analysis counts them (every entry ends in one bucket).  Returns 0, or
 * with *bad set:
 *   LSP_TRIPS_ORPHAN      trip row *bad has no lstat row
 *   LSP_TRIPS_ENTRIES     lstat row *bad: the entries differ
 *   LSP_TRIPS_ITERATIONS  lstat row *bad: the iterations differ
 * or -LS_ENOMEM. */
enum { LSP_TRIPS_ORPHAN = 1, LSP_TRIPS_ENTRIES, LSP_TRIPS_ITERATIONS };
int lsp_trips_check(const struct lsp_profile *p, size_t *bad);

#endif
