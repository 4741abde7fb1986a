/* profile_int.h - shared by the profile reader and writer (not public). */
#ifndef LSP_PROFILE_INT_H
#define LSP_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The reader (profile_read.c), shared with the readers of the records
 * of other files (profile_sread.c). */

/* Record types in the order a file holds them. */
enum lsp_rec { LSP_R_PROFILE, LSP_R_PART, LSP_R_MODULE, LSP_R_THREAD, LSP_R_FUNC,
	       LSP_R_LOOP, LSP_R_LSTAT, LSP_R_TRIP, LSP_R_EDGE, LSP_R_TAIL, LSP_R_CALL,
	       LSP_R_FSTAT, LSP_R_VERDICT, LSP_R_DEP, LSP_R_SVIEW, LSP_R_SLOOP,
	       LSP_R_STAIL, LSP_R_SIRR, LSP_R_SENTRY, LSP_R_CGRAPH, LSP_R_CFUNC, LSP_R_CBLOCK, LSP_R_CEDGE,
	       LSP_R_CPI, LSP_R_CPIFUNC, LSP_R_CPILOOP, LSP_R_CPIINSN, LSP_R_CPISRC,
	       LSP_R_CPILINE, LSP_R_CPICALL, LSP_R_END,
	       LSP_R_NREC };

#define LSP_RD_MAXF 32		/* fields of the longest record (lstat: 29) */

/* Row keys, for the duplicate check: {type, a, b, c}. */
struct lsp_rd_keys {
	uint64_t (*k)[4];
	size_t n, cap;
};

struct lsp_rd {
	struct lsp_profile *p;
	const char *name;
	size_t line;
	char *errmsg;
	size_t errlen;
	char *f[LSP_RD_MAXF];	/* the fields of the line, f[0] its name */
	int nf;
	uint64_t version;	/* of the file */
	struct lsp_rd_keys keys;
	size_t nrec;		/* records before the end record */
	size_t *lstat_line;	/* line of each lstat row, for lsp_rd_check_trips() */
	size_t cap_lstat_line;
	size_t cpiloop_line;	/* line of cpiloop 0, for lsp_rd_check_cpi() */
	size_t cpicall_line;	/* line of cpicall 0, for lsp_rd_check_cpi() */
	size_t cpicall_at;	/* cpiinsn row of the last cpicall's block */
	uint64_t cpicall_sum;	/* instructions of its block's calls so far */
};

/* Sets the message "FILE:LINE: what 'val'" (val may be NULL); returns err. */
int lsp_rd_bad(struct lsp_rd *r, int err, const char *what, const char *val);
/* Adds key {t, a, b, c}.  Returns 1 when new, 0 when there, -LS_ENOMEM. */
int lsp_rd_key(struct lsp_rd_keys *s, uint64_t t, uint64_t a, uint64_t b, uint64_t c);
/* Field i as a number, an index below n (none_ok: "-" is LSP_NONE), or a
 * string unescaped in place; what names it in the message.  Return 0 or
 * -LS_ECORRUPT (the message set). */
int lsp_rd_u64(struct lsp_rd *r, int i, const char *what, uint64_t *out);
int lsp_rd_u32(struct lsp_rd *r, int i, const char *what, uint32_t *out);
int lsp_rd_hex(struct lsp_rd *r, int i, const char *what, uint64_t *out);
int lsp_rd_idx(struct lsp_rd *r, int i, const char *what, size_t n, int none_ok,
	       uint32_t *out);
int lsp_rd_str(struct lsp_rd *r, int i, const char *what);
/* Field i as a real, as %.17g writes it (finite, >= 0): 0 or
 * lsp_rd_bad()'s code (profile_sread.c). */
int lsp_rd_real(struct lsp_rd *r, int i, const char *what, double *out);

/* profile_sread.c: the version 4 structural records (lsp_rd_sview() for
 * record type t).  Return 0, -LS_ECORRUPT, -LS_ENOMEM. */
int lsp_rd_sview(struct lsp_rd *r, int t);

/* profile_cgraph.c: the version 5 graph records (cgraph, cfunc, cblock,
 * cedge), read (for record type t; returns 0, -LS_ECORRUPT, -LS_ENOMEM),
 * written (returns the records written), and ordered with modules
 * renumbered (mm[old] = new) and rows of one key summed (returns 1, the
 * records dropped, when the runs split or grouped the code unlike, or
 * -LS_ENOMEM, the records dropped too). */
int lsp_rd_cgraph(struct lsp_rd *r, int t);
size_t lsp_put_cgraph(const struct lsp_profile *p, FILE *f);
int lsp_cgraph_sort(struct lsp_profile *p, const uint32_t *mm);

/* profile_cpi.c: the sampled-CPI records (version 6: cpi, cpifunc,
 * cpiloop, cpiinsn, cpisrc, cpiline; version 7: cpicall), read (for record type t; returns 0, -LS_ECORRUPT,
 * -LS_ENOMEM), written (returns the records written), with modules and
 * loops renumbered (mm, lm[old] = new); after the end record, the loops' parents
 * and the calls' entries checked (returns 0, -LS_ENOMEM or -LS_ECORRUPT,
 * named at the row's line). */
int lsp_rd_cpi(struct lsp_rd *r, int t);
size_t lsp_put_cpi(const struct lsp_profile *p, FILE *f);
void lsp_cpi_remap(struct lsp_profile *p, const uint32_t *mm, const uint32_t *lm);
int lsp_rd_check_cpi(struct lsp_rd *r);

/* profile_write.c: s escaped as a str field (formats/profile.md). */
void lsp_put_str(FILE *f, const char *s);

/* profile_sview.c.  Renumbers the detected loops the structural records
 * name (lm[old] = new), as lsp_sort() moves the loops. */
void lsp_sview_remap(struct lsp_profile *p, const uint32_t *lm);

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
/* The reader's use of it after the end record: a contradiction named
 * with the lstat's line, as damaged syntax is.  Returns 0, -LS_ECORRUPT,
 * -LS_ENOMEM. */
int lsp_rd_check_trips(struct lsp_rd *r);

#endif
