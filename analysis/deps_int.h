/* deps_int.h - internals of the dependence analysis (analysis/deps*.c). */
#ifndef LSA_DEPS_INT_H
#define LSA_DEPS_INT_H

#include <stdio.h>

#include "analysis/deps.h"
#include "analysis/kmap.h"

#define DEPS_NR 8		/* read sites kept per address */
#define DEPS_NONE UINT32_MAX
#define DEPS_MAX_FRAMES (1u << 20)
#define DEPS_STACK_SPAN (8u << 20)	/* below the deepest frame base */

/* One address in a pending or history table.  Sites are + 1 (0: none). */
struct deps_ent {
	uint64_t addr;
	uint32_t w;		/* first write site of the (last writing) iteration */
	uint32_t r[DEPS_NR];	/* read sites before any write of their iteration */
	uint64_t wit;		/* history: iteration of w */
	uint64_t rit[DEPS_NR];	/* history: last iteration of each read site */
	uint64_t li;		/* reads after a write of the same iteration */
	uint8_t len;		/* the widest access at addr, bytes */
	uint8_t wlen;		/* the widest write at addr (with w) */
	const struct lsd_sblock *ofn;	/* stack: owner frame's function entry */
	int64_t cfaoff;		/* stack: address - owner frame base */
	int32_t odepth;		/* stack: owner frame depth, -1 not stack */
};

/* A slot of a table's index: the key beside the entry, so that a probe
 * touches one cache line. */
struct deps_slot {
	uint64_t addr;
	uint32_t idx;		/* DEPS_NONE: free */
};

/* A strided run of entries held as one (history compaction, Prospector
 * section 3): element k is p with addr, cfaoff + k * stride, wit + k *
 * dwit and each rit + k * drit (modulo 2^64), every other field equal. */
struct deps_run {
	struct deps_ent p;
	uint64_t stride, n;
	uint64_t dwit, drit[DEPS_NR];
};

#define DEPS_RUN_MIN 4		/* entries a run replaces, at least */
#define DEPS_COMPACT 4096	/* default: compact after this many new entries */

/* Entries in a dense array, an open-addressing index over them, and
 * runs (their address ranges disjoint) for the entries compaction took
 * out of the array: in a pool in no order, and rix, their pool indices
 * sorted by address (a run split or gone moves 4 bytes a run, not a
 * run). */
struct deps_tab {
	struct deps_ent *e;
	uint32_t n, cap;
	struct deps_slot *ix;
	uint32_t ixcap;		/* 0 or a power of two */
	uint8_t maxlen;		/* the widest entry */
	uint8_t uni;		/* the first entry's length (0: none yet) */
	uint8_t mixed;		/* odd granules not all known (out of memory) */
	/* Granules (addr / uni) touched by an entry of another length or
	 * not aligned to it, + 1, in an open-addressing set: a query of
	 * length uni, aligned, in no such granule can only meet the entry
	 * at its own address. */
	uint64_t *odd;
	uint32_t nodd, oddcap;
	uint32_t oddnext;	/* re-pick uni when nodd reaches it (0: 64) */
	struct deps_run *run;
	uint32_t nrun, caprun;
	uint32_t *rix;		/* nrun pool indices, by address */
	uint32_t caprix;
	/* The starts of the array's entries by granule (deps_near.c), so
	 * that a query of another length or alignment probes the entries
	 * near it, not every byte before it.  Built once such queries have
	 * probed as many addresses as there are entries to index (nslow of
	 * them so far), kept up to date from then (nearon) until the table
	 * is emptied or compacted; nearbad: not complete (out of memory),
	 * probe every byte. */
	struct deps_near *near;
	uint32_t nnear, nearcap, neargen, nslow;
	uint8_t nearon, nearbad;
	uint32_t cmin;		/* compaction step: 0 never */
	uint32_t next;		/* compact when n reaches it */
	uint64_t *size;		/* NULL or a count of entries to keep */
};

/* The run at position i of t's address order. */
static inline const struct deps_run *deps_run_at(const struct deps_tab *t, uint32_t i)
{
	return &t->run[t->rix[i]];
}

/* deps_tab.c.  How many of t's runs start at or before addr. */
uint32_t deps_run_upper(const struct deps_tab *t, uint64_t addr);

/* A position in a table's entries (deps_tab_next). */
struct deps_it {
	uint32_t i, r;
	uint64_t k;
};

#define DEPS_MAXOV 256	/* entries overlapping one access, at most */

/* A 64-byte granule of a table's near index: bit b of mask set when an
 * entry of the table's array starts at g * 64 + b.  A slot is in use
 * only when gen is its table's neargen, so that emptying the index
 * costs nothing. */
struct deps_near {
	uint64_t g;
	uint64_t mask;
	uint32_t gen;
};

/* An open loop entry of a thread's nest. */
struct deps_nent {
	uint32_t loop;		/* sloop index */
	uint32_t frame;		/* the frame it runs in */
	uint64_t it;		/* current iteration, from 1 */
};

struct deps_frame {
	uint64_t cfa;		/* 0 unknown */
	uint64_t ret;		/* where its return goes (0: anywhere) */
	const struct lsd_sblock *fn;	/* the block it was entered at */
	uint32_t nest;		/* nest depth when it was entered */
	int async;		/* a signal handler's */
};

/* The accesses of one stream, spooled to a file in record order. */
struct deps_spool {
	FILE *f;
	uint8_t *rec;		/* the record being decoded */
	size_t len, pos, cap;
	uint64_t picount, piaddr, pdaddr;	/* prev_* of the encoding */
	int have;		/* cur holds the next access */
	int eof;
	uint64_t icount, iaddr, daddr;
	uint8_t size, write;	/* size 0: an allocation of asize bytes */
	uint64_t asize;
};

struct deps_thr {
	struct deps_frame *fr;
	uint32_t nfr, capfr;
	uint64_t deep;		/* calls not framed past DEPS_MAX_FRAMES */
	struct deps_nent *nest;
	uint32_t nnest, capnest;
	struct deps_tab *pend, *hist;	/* by nest depth, kept for reuse */
	uint32_t ntab;
	uint64_t insns;		/* instructions of the stream so far */
	uint8_t pexit;		/* how the previous block left */
	uint64_t call_cfa;	/* base of the frame the last call makes */
	uint64_t pret;		/* the end of the previous block (where its call
				 * or system call returns) */
	int resume;		/* a handler returned: its restorer runs until
				 * the sigreturn resumes the interrupted code */
};

/* A conflict record, keyed by (loop, kind, source site, target site). */
struct deps_rec {
	uint32_t loop, src, dst;
	uint8_t kind;
	uint8_t rel;		/* REL_*: where the address is to the loop */
	uint64_t count, li;
	uint64_t dmin, dist[LSA_DEPS_DIST + 1];	/* last: LSA_DEPS_DIST and up */
	uint64_t addr;
	uint64_t asite;		/* addr's allocation: the call's return address */
	uint64_t abase;		/* ... and its block (asite 0: none known) */
	uint64_t vkey;		/* the variable: addr, or a stack slot by frame */
	int multi;		/* found on several variables */
	struct deps_ent where;	/* the storage of addr */
};

enum { REL_NONE = 0, REL_DEEPER, REL_SAME, REL_OUTER };

/* A heap block the trace shows allocated. */
struct deps_alloc {
	uint64_t lo, hi;	/* [lo, hi) */
	uint64_t site;		/* the call's return address */
};

struct deps_site {
	uint64_t ip;
	const struct lsd_sblock *sb;
};

#define DEPS_SITEC 512	/* direct-mapped cache of site_of, entries */

struct deps_sitec {
	uint64_t ip;
	uint32_t site;		/* 0: empty */
};

struct deps_lpc {
	uint64_t entries, iterations;
};

struct lsa_deps {
	struct lsd_decoder *d;
	struct lsb_reader *r;
	struct lsd_symbols *sym;
	const struct lsa_cfg *c;
	const struct lsa_sloops *sl;
	uint32_t *sbloop;	/* static block id -> innermost sloop + 1 */
	size_t nsb;
	struct deps_lpc *lpc;	/* by sloop */
	struct deps_spool *sp;	/* by stream index */
	struct deps_thr *thr;	/* by stream index */
	size_t nstreams;
	struct deps_site *site;
	uint32_t nsite, capsite;
	struct lsa_kmap siteidx;	/* (ip, 0) -> site */
	struct deps_sitec sitec[DEPS_SITEC];	/* the hot part of siteidx */
	struct deps_rec *rec;
	uint32_t nrec, caprec;
	struct lsa_kmap recidx;	/* (loop << 2 | kind, src << 32 | dst) -> rec */
	struct deps_alloc *alloc;	/* by lo, disjoint: the latest ones */
	size_t nalloc, capalloc;
	uint64_t live;		/* addresses in tables now */
	uint64_t entries;	/* table entries now (a run counting one) */
	uint32_t cmin;		/* compaction step of the tables, 0 never */
	struct deps_ent ovbuf[DEPS_MAXOV], cvbuf[DEPS_MAXOV];
	struct lsa_deps_stats st;
	/* results */
	struct lsa_deps_loop *loops;
	size_t nloops;
	struct lsa_deps_dep *deps;
	size_t ndeps;
	struct deps_data *data;	/* data symbols (deps_out.c) */
	struct lsa_kmap fdie;	/* (module, function) -> its DIE (deps_dwarf.c) */
};

/* Mixes every bit of an address into the low ones (addresses step by
 * 4 or 8). */
static inline size_t deps_hash(uint64_t a)
{
	uint64_t h = (a ^ (a >> 33)) * 0xff51afd7ed558ccdull;

	return (size_t)(h ^ (h >> 33));
}

/* deps_tab.c.  The entry of addr in t, or NULL; an element of a run is
 * copied to *tmp (read only: deps_tab_get to change it). */
const struct deps_ent *deps_tab_peek(const struct deps_tab *t, uint64_t addr,
				     struct deps_ent *tmp);
/* The entry of addr, taken out of its run when in one, added (zeroed,
 * odepth -1) when new (*isnew 1); NULL: out of memory. */
struct deps_ent *deps_tab_get(struct deps_tab *t, uint64_t addr, int *isnew);
/* The addresses t holds (entries and runs' elements). */
uint64_t deps_tab_count(const struct deps_tab *t);
/* The entries t holds at once, a run counting one. */
uint64_t deps_tab_size(const struct deps_tab *t);
/* Every entry of t, in no fixed order: *it zeroed first; NULL at the
 * end.  A run's element is copied to *tmp.  t must not change between. */
const struct deps_ent *deps_tab_next(const struct deps_tab *t, struct deps_it *it,
				     struct deps_ent *tmp);
/* Whether no entry of t can overlap an entry of u at another address
 * (both hold entries of one length, aligned to it, only). */
int deps_tab_regular(const struct deps_tab *t, const struct deps_tab *u);
/* Compacts t's strided runs of entries when it grew by its step (cmin);
 * out of memory leaves it as it is. */
void deps_tab_maybe_compact(struct deps_tab *t);
void deps_tab_clear(struct deps_tab *t);
void deps_tab_release(struct deps_tab *t);
/* Notes an access of size bytes at e, an entry of t (its length, and
 * the granules it makes odd). */
void deps_tab_len(struct deps_tab *t, struct deps_ent *e, unsigned size);
/* The entries of t whose bytes overlap [addr, addr + len) into out (at
 * most DEPS_MAXOV; runs' elements copied into buf, DEPS_MAXOV long), by
 * address: only an exact match is possible when every entry of t is len
 * long and aligned to it, as addr is; else the starts from addr - maxlen
 * + 1 that the near index knows (every one, when it cannot tell) are
 * probed.  Returns how many. */
size_t deps_tab_overlaps(struct deps_tab *t, uint64_t addr, unsigned len,
			 const struct deps_ent **out, struct deps_ent *buf);
/* Whether writes of t's iteration cover all of [addr, addr + len): 1
 * with *waddr the address of the entry holding addr's first byte, else
 * 0.  buf as for deps_tab_overlaps. */
int deps_tab_covered(struct deps_tab *t, uint64_t addr, unsigned len,
		     uint64_t *waddr, struct deps_ent *buf);
/* The next access of s into its fields: 1, or 0 at the end; a record
 * that does not decode is counted in *damaged and dropped.  Returns 1,
 * 0 or -LS_ENOMEM. */
int deps_spool_next(struct deps_spool *s, uint64_t *damaged);
void deps_spool_release(struct deps_spool *s);

/* deps_near.c.  Notes an entry of t's array starting at addr, when the
 * index is on (out of memory sets t->nearbad). */
void deps_near_add(struct deps_tab *t, uint64_t addr);
/* Forgets every start and turns the index off (the array was emptied
 * or its entries moved). */
void deps_near_reset(struct deps_tab *t);
void deps_near_release(struct deps_tab *t);
/* The entries of t starting in [lo, hi) whose bytes reach past addr,
 * ascending, into out as deps_tab_overlaps (the index built first when
 * off and worth it); -1 when the index does not answer (not yet worth
 * building, t->nearbad, or a range too wide), the caller probing every
 * byte then. */
long deps_near_overlaps(struct deps_tab *t, uint64_t lo, uint64_t addr, uint64_t hi,
			const struct deps_ent **out, struct deps_ent *buf);

/* deps_dwarf.c.  The name of the local variable or parameter at CFA
 * offset cfaoff in the function starting at ELF address fn_vaddr of
 * module (the DWARF its symbols read: lsd_symbols_dwarf()); NULL when
 * none is known.  Valid until the symbols are closed. */
const char *deps_dwarf_local(struct lsa_deps *D, int32_t module, uint64_t fn_vaddr,
			     int64_t cfaoff);

/* deps_alloc.c.  A block [a, a + size) allocated by the call returning
 * to site (the blocks it overlaps were freed).  Returns 0 or
 * -LS_ENOMEM. */
int deps_alloc_add(struct lsa_deps *D, uint64_t a, uint64_t size, uint64_t site);
/* The latest allocated block holding a, or NULL. */
const struct deps_alloc *deps_alloc_find(const struct lsa_deps *D, uint64_t a);

/* deps_out.c: heuristics, verdicts and names of the records. */
int lsa_deps_results(struct lsa_deps *D);
void lsa_deps_results_free(struct lsa_deps *D);

#endif
