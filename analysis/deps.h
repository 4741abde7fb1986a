/* deps.h - loop-carried data dependences and a parallelizable verdict per
 * loop (Prospector, Kim et al., sections 3-4), offline.
 *
 * The block stream of a bundle is merged with its recorded memory
 * accesses (`record --mem`: MEMACC sections) by each thread's instruction
 * index.  Loops are the structural loops of the executed CFG
 * (analysis/sloops.h, found by a first decode): a loop entry opens when a
 * block of its body runs in a frame where it is not open, an iteration
 * ends at each execution of the header, and the entry ends when a block
 * of the frame outside the body runs, or the frame returns.  Frames
 * follow calls and returns in the block stream, one loop nest per thread;
 * a loop entered in a callee nests in the caller's innermost open entry,
 * recursion included; a return pops the frames a longjmp left above the
 * one it returns from.  A signal handler runs in a frame of its own, and
 * the code from its return to the sigreturn in none of the resumed
 * frame's loops.  Each frame's base (its canonical frame address) is the
 * address the call instruction stored the return address at, plus 8.
 *
 * Per open loop entry a pending table (the accesses of the current
 * iteration; a read of an address already written in the iteration is
 * not recorded, only counted as a loop-independent use) and a history
 * table (every earlier iteration of the entry: per address the first
 * write site of the last iteration that wrote it and the read sites,
 * with iterations).  At each iteration end the pending table is checked
 * against the history: RAW (history write, pending read), WAR (history
 * read, pending write), WAW; each found pair of instructions counts once
 * per address and iteration, with its distance in iterations.  At an
 * entry's end its history merges into the parent entry's pending table
 * (nested loops as if fully unrolled).  Entries are keyed by the start
 * address of their accesses, but conflicts are found by overlapping
 * bytes (an 8-byte write and a 4-byte read of its upper half conflict);
 * a read covered by writes of its own iteration is a use of the write
 * holding its first byte, a read partly covered a read of all its
 * bytes.  A heap address is named by the allocation record (malloc,
 * calloc, realloc, new) whose block holds it when the dependence is
 * found.  A table compacts its strided runs of entries into ranges
 * (lsa_deps_set_compact), so memory grows with the runs of addresses
 * the loops touch, not with the trace length.
 *
 * Heuristics (Prospector 3.2) then mark dependences that do not forbid
 * parallelization, and a verdict per loop follows (see lsa_deps_verdict).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_DEPS_H
#define LSA_DEPS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cfg.h"
#include "analysis/sloops.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"

enum lsa_deps_kind { LSA_DEP_RAW = 0, LSA_DEP_WAR, LSA_DEP_WAW, LSA_DEP_NKIND };

/* What the heuristics made of a dependence. */
enum lsa_deps_note {
	LSA_NOTE_NONE = 0,	/* a real dependence */
	LSA_NOTE_IV,		/* induction variable (read by the loop's test) */
	LSA_NOTE_RED,		/* reduction variable */
	LSA_NOTE_TEMP,		/* temporary in the loop's frame: private */
	LSA_NOTE_TEMP_OUT,	/* temporary outside the loop's frame: privatize */
	LSA_NOTE_CALLEE,	/* stack of a frame made inside the iteration */
	LSA_NOTE_MAX
};

/* Where the dependence's address is. */
enum lsa_deps_storage {
	LSA_ST_OTHER = 0,	/* heap or unknown mapping */
	LSA_ST_GLOBAL,		/* a module's data, named by its ELF symbol */
	LSA_ST_STACK,		/* a stack slot, named by frame function and CFA */
	LSA_ST_MAX
};

enum lsa_deps_verdict {
	LSA_V_PARALLEL = 0,	/* no dependence left */
	LSA_V_REDUCTION,	/* parallelizable with reductions */
	LSA_V_PRIVATIZE,	/* ... after privatizing temporaries */
	LSA_V_DUPLICATE,	/* ... after duplicating an array (WAR only) */
	LSA_V_NOT,		/* a RAW remains */
	LSA_V_MAX
};

#define LSA_DEPS_DIST 16	/* exact distance counts below this */

struct lsa_deps_dep {
	uint32_t loop;		/* index of its lsa_deps_loop */
	uint8_t kind;		/* enum lsa_deps_kind */
	uint8_t note;		/* enum lsa_deps_note */
	uint8_t storage;	/* enum lsa_deps_storage */
	uint8_t decides;	/* one of the dependences deciding the verdict */
	uint64_t src_ip, dst_ip;	/* runtime addresses of the instructions */
	uint64_t src_vaddr, dst_vaddr;	/* the same as ELF virtual addresses */
	const char *src_file, *dst_file;	/* "" unknown */
	uint32_t src_line, dst_line;
	uint64_t count;		/* (address, iteration end) pairs */
	uint64_t dmin, dtyp;	/* minimum and most frequent distance */
	uint64_t dist[LSA_DEPS_DIST + 1];	/* count by distance; last: and up */
	uint64_t li;		/* loop-independent reads of its addresses */
	uint64_t addr;		/* the first address it was found on */
	int multi;		/* found on several addresses */
	char var[96];		/* "A+0x14", "fig4:cfa-0x14", "heap@kern.c:160(main)+0x8",
				 * "heap 0x..." */
	uint64_t alloc_ip;	/* heap: the allocation's call (0: unknown) */
};

struct lsa_deps_loop {
	uint32_t sloop;		/* index in the lsa_sloops */
	uint64_t head_ip, head_vaddr;
	int32_t module;
	uint64_t head_off;	/* file offset in the module */
	const char *func;	/* "" unknown */
	const char *file;	/* "" unknown */
	uint32_t line;
	double coverage;	/* total instructions, % of all executed */
	uint64_t entries, iterations;
	uint8_t verdict;	/* enum lsa_deps_verdict */
	uint8_t needs;		/* bits 1 << LSA_V_*: what the verdict needs */
	uint32_t first, ndeps;	/* its dependences: deps[first .. +ndeps) */
};

struct lsa_deps_stats {
	uint64_t accesses;	/* decoded from MEMACC */
	uint64_t allocs;	/* allocation records among them */
	uint64_t in_loops;	/* of them, inside some loop entry */
	uint64_t mismatched;	/* instruction address not in the block run */
	uint64_t unplaced;	/* index behind the stream or past its end */
	uint64_t damaged;	/* damaged MEMACC records or sections */
	uint64_t iterations, entries;
	uint64_t resets;	/* trace gaps: nests dropped */
	uint64_t max_addrs;	/* most addresses held by the tables at once */
	uint64_t max_entries;	/* most table entries at once (a run is one) */
	uint64_t max_depth;	/* deepest loop nest */
};

struct lsa_deps;

/* A dependence analysis of bundle r decoded by d (whose static block ids
 * the finished graph c uses), with the structural loops sl of c and sym
 * (may be NULL) for names and lines.  All must outlive the result.
 * Returns -LS_EINVAL, -LS_ENOMEM. */
int lsa_deps_new(struct lsa_deps **pd, struct lsd_decoder *d,
		 struct lsb_reader *r, struct lsd_symbols *sym,
		 const struct lsa_cfg *c, const struct lsa_sloops *sl);
/* History compaction: a table compacts its strided runs of entries
 * (constant address stride, everything else equal or stepping by a
 * constant per element) into one range each once it holds step more
 * entries than after its last compaction; 0 never compacts.  The
 * results are the same either way.  Default 4096.  Before
 * lsa_deps_run(); returns 0 or -LS_EINVAL. */
int lsa_deps_set_compact(struct lsa_deps *D, uint32_t step);
/* Reads every MEMACC record of the bundle into per-stream spool files
 * (so memory does not grow with them).  A damaged section or record is
 * counted (stats.damaged) and skipped.  Returns the accesses' bytes, or
 * -LS_ENOENT (the bundle has no memory accesses), -LS_EIO (no temporary
 * file), -LS_ENOMEM. */
int64_t lsa_deps_load(struct lsa_deps *D);
/* Decodes every stream with the accesses merged and finds the
 * dependences, then applies the heuristics and verdicts.  Returns 0, a
 * decoder error, -LS_ENOMEM or -LS_EIO. */
int lsa_deps_run(struct lsa_deps *D);

/* After lsa_deps_run(): loops with at least one entry, hottest first;
 * dependences grouped by loop. */
size_t lsa_deps_nloops(const struct lsa_deps *D);
const struct lsa_deps_loop *lsa_deps_loop(const struct lsa_deps *D, size_t i);
const struct lsa_deps_dep *lsa_deps_dep(const struct lsa_deps *D, size_t i);
struct lsp_profile;
/* Adds the verdicts and dependences (those in callees' frames left out)
 * to profile p, whose loops the loop detector found in the same bundle:
 * a loop is matched by its module's build-id and head offset;
 * *unmatched (may be NULL) counts the loops p does not have.  Returns 0,
 * -LS_EINVAL, -LS_ENOMEM. */
int lsa_deps_to_profile(const struct lsa_deps *D, struct lsp_profile *p,
			size_t *unmatched);
void lsa_deps_get_stats(const struct lsa_deps *D, struct lsa_deps_stats *st);
void lsa_deps_free(struct lsa_deps *D);

const char *lsa_deps_kind_name(int kind);	/* "RAW", "WAR", "WAW" */
const char *lsa_deps_note_name(int note);	/* "", "IV", "reduction", ... */
const char *lsa_deps_storage_name(int st);	/* "heap", "global", "stack" */
/* "parallelizable", "reduction", "privatization", "duplicate-array",
 * "not-parallelizable". */
const char *lsa_deps_verdict_name(int v);

#endif
