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

/* Entries in a dense array, an open-addressing index over them. */
struct deps_tab {
	struct deps_ent *e;
	uint32_t n, cap;
	struct deps_slot *ix;
	uint32_t ixcap;		/* 0 or a power of two */
	uint8_t maxlen;		/* the widest entry */
	uint8_t uni;		/* every entry this long so far (0: none yet) */
	uint8_t mixed;		/* some entry of another length or misaligned */
};

#define DEPS_MAXOV 256	/* entries overlapping one access, at most */

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
	uint8_t size, write;
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
	uint64_t vkey;		/* the variable: addr, or a stack slot by frame */
	int multi;		/* found on several variables */
	struct deps_ent where;	/* the storage of addr */
};

enum { REL_NONE = 0, REL_DEEPER, REL_SAME, REL_OUTER };

struct deps_site {
	uint64_t ip;
	const struct lsd_sblock *sb;
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
	struct deps_rec *rec;
	uint32_t nrec, caprec;
	struct lsa_kmap recidx;	/* (loop << 2 | kind, src << 32 | dst) -> rec */
	uint64_t live;		/* addresses in tables now */
	struct lsa_deps_stats st;
	/* results */
	struct lsa_deps_loop *loops;
	size_t nloops;
	struct lsa_deps_dep *deps;
	size_t ndeps;
	struct deps_data *data;	/* data symbols (deps_out.c) */
	struct deps_dw *dw;	/* DWARF by module (deps_dwarf.c) */
	size_t ndw;
};

/* deps_tab.c.  The entry of addr in t, or NULL. */
struct deps_ent *deps_tab_find(const struct deps_tab *t, uint64_t addr);
/* The entry of addr, added (zeroed, odepth -1) when new (*isnew 1);
 * NULL: out of memory. */
struct deps_ent *deps_tab_get(struct deps_tab *t, uint64_t addr, int *isnew);
void deps_tab_clear(struct deps_tab *t);
/* Notes an access of size bytes at e, an entry of t (its length, and
 * whether t stays uniform). */
void deps_tab_len(struct deps_tab *t, struct deps_ent *e, unsigned size);
/* The entries of t whose bytes overlap [addr, addr + len) into out (at
 * most DEPS_MAXOV), by address: only an exact match is possible when
 * every entry of t is len long and aligned to it, as addr is; else every
 * start from addr - maxlen + 1 is probed.  Returns how many. */
size_t deps_tab_overlaps(const struct deps_tab *t, uint64_t addr, unsigned len,
			 struct deps_ent **out);
/* The entry written in t's iteration holding addr's first byte when
 * writes of the iteration cover all of [addr, addr + len), else NULL. */
struct deps_ent *deps_tab_covered(const struct deps_tab *t, uint64_t addr, unsigned len);
void deps_tab_release(struct deps_tab *t);
/* The next access of s into its fields: 1, or 0 at the end; a record
 * that does not decode is counted in *damaged and dropped.  Returns 1,
 * 0 or -LS_ENOMEM. */
int deps_spool_next(struct deps_spool *s, uint64_t *damaged);
void deps_spool_release(struct deps_spool *s);

/* deps_dwarf.c.  The name of the local variable or parameter at CFA
 * offset cfaoff in the function starting at ELF address fn_vaddr of
 * module (its DWARF, from the bundle's copy of the module); NULL when
 * none is known.  Valid until deps_dwarf_free(). */
const char *deps_dwarf_local(struct lsa_deps *D, int32_t module, uint64_t fn_vaddr,
			     int64_t cfaoff);
/* Returns 0 or -1 (out of memory). */
int deps_dwarf_new(struct lsa_deps *D);
void deps_dwarf_free(struct lsa_deps *D);

/* deps_out.c: heuristics, verdicts and names of the records. */
int lsa_deps_results(struct lsa_deps *D);
void lsa_deps_results_free(struct lsa_deps *D);

#endif
