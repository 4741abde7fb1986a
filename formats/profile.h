/* profile.h - the loop profile: what `loopscope analyze` writes and every
 * report reads.
 *
 * A profile holds rows per thread; the merged view of a run, and of many
 * runs (`loopscope merge`), is the sum of the rows over threads, so merging
 * threads and merging runs is one operation.  Code is named by module
 * build-id + file offset, never by runtime address, so runs with other
 * load addresses (ASLR) merge.  Names, source files and lines are resolved
 * when the profile is made and stored in it: reports need no binaries.
 *
 * The file format is specified in formats/profile.md.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSP_PROFILE_H
#define LSP_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LSP_BUILD_ID_MAX 64
#define LSP_NCLASS 9		/* = LSD_IC_MAX (asserted in decoder/decode.c) */
#define LSP_IC_SIMD 7		/* the class of SIMD instructions */
#define LSP_TRIP_LIMIT 1024	/* default: exact trip counts below this */
#define LSP_NONE UINT32_MAX	/* no loop / function / module */
#define LSP_VERSION 7		/* of the file format (formats/profile.md);
				 * versions 1 to 6 are read too */

/* Provenance: run `run` holds shard `shard` of `nshards` of the bundle
 * whose identity is `bundle` (cli: size and CRCs of the file); a whole
 * bundle is shard 0 of 1.  Merging refuses a part twice. */
struct lsp_part {
	uint32_t run;
	char *bundle;
	uint32_t shard, nshards;
};

struct lsp_module {
	uint8_t build_id[LSP_BUILD_ID_MAX];
	uint8_t build_id_len;
	char *path;		/* as recorded */
};

struct lsp_thread {
	uint32_t run;		/* which run (bundle) of a merged profile, from 0 */
	uint32_t pid, tid;
	uint64_t insns;		/* decoded instructions of the thread */
	uint64_t outside;	/* instructions outside every loop */
	uint64_t outside_ic[LSP_NCLASS];
	uint64_t losses;	/* decode gaps: the loop state was reset there */
};

struct lsp_func {
	uint32_t module;
	uint64_t off;		/* function start, file offset in the module */
	uint64_t vaddr;		/* function start as an ELF virtual address */
	char *name;		/* "" when no symbol covers it ("mod+0x..") */
	char *file;		/* source file of the start, "" if unknown */
	uint32_t line;
};

struct lsp_loop {
	uint32_t module;
	uint64_t head_off;	/* head block start, file offset (the key) */
	uint64_t head_vaddr;	/* the same as an ELF virtual address */
	uint32_t func;		/* function containing the head, or LSP_NONE */
	/* The loop's own source line, its label: the line of its most
	 * executed back branch (the latch's compare and jump, which
	 * compilers put on the loop's for/while line), else the head's;
	 * "" / 0 unknown. */
	char *file;
	uint32_t line;
	char *head_file;	/* source file:line of the head block */
	uint32_t head_line;
	/* The lines the loop's own code (nested loops included, callees
	 * not) spans in `file`, 0 / 0 unknown. */
	uint32_t first_line, last_line;
	/* Where the loop sits in code inlined into func: the inlined
	 * functions, innermost first, separated by ';'; "" for none. */
	char *inlined_from;
};

/* Per loop and thread. */
struct lsp_lstat {
	uint32_t loop, thread;
	uint64_t entries;	/* times the loop was entered from outside */
	uint64_t iterations;	/* executions of the head inside the loop */
	uint64_t self;		/* instructions in the loop, nested loops excluded */
	uint64_t total;		/* instructions in the loop, nested loops and callees included */
	uint64_t self_ic[LSP_NCLASS], total_ic[LSP_NCLASS];
	uint64_t trip_min, trip_max;	/* over all entries */
	uint64_t over_entries;	/* entries with trip count >= the profile's trip limit */
	uint64_t over_sum;	/* and the sum of their trip counts */
};

/* Trip-count histogram: entries of loop with exactly `trips` iterations
 * (trips < trip limit). */
struct lsp_trip {
	uint32_t loop, thread;
	uint64_t trips, entries;
};

/* Loop call graph edge: parent entered child `count` times, and those
 * entries executed `total` instructions.  parent is LSP_NONE for loops
 * entered at the top level (outside every loop): their totals plus the
 * thread's `outside` make the thread's instructions. */
struct lsp_edge {
	uint32_t parent, child, thread;
	uint64_t count;
	uint64_t total;		/* total instructions of those entries */
};

/* Back branch (the last instruction of the block that looped back to the
 * head) of a loop, and how often it looped back. */
struct lsp_tail {
	uint32_t loop, thread;
	uint64_t off, vaddr;	/* of the branch instruction in the head's module */
	uint64_t count;
	/* The label it gives its loop when it is the most executed: its
	 * source line and file; 0 and "" where that is the head's line (it
	 * falls through into the head, or has no line).  Version 3. */
	uint32_t line;
	char *file;
};

/* Call site inside a loop (its own code, not nested loops). */
struct lsp_call {
	uint32_t loop, thread;
	uint32_t module;
	uint64_t off, vaddr;	/* of the call instruction */
	uint32_t callee;	/* function, LSP_NONE if unknown */
	uint64_t count;
};

/* Per function and thread. */
struct lsp_fstat {
	uint32_t func, thread;
	uint64_t self;		/* exclusive instructions (function level, gprof-like) */
	uint64_t total;		/* inclusive: self + callees, recursion counted once */
	uint64_t loop_level;	/* self of the loops whose head is in the function
				 * (Sato et al. table 2: loop-less callees are
				 * charged to the calling loop) */
	uint64_t calls;		/* times it was entered: called, or jumped to
				 * from another function (a tail call) */
};

/* Parallelization verdicts (`analyze --deps`; the order of
 * analysis/deps.h's enum lsa_deps_verdict). */
enum lsp_verdict_code {
	LSP_V_PARALLEL = 0, LSP_V_REDUCTION, LSP_V_PRIVATIZE, LSP_V_DUPLICATE,
	LSP_V_NOT, LSP_V_MAX
};

/* A loop's verdict over its loop-carried dependences (all threads). */
struct lsp_verdict {
	uint32_t loop;
	uint32_t verdict;	/* enum lsp_verdict_code */
	uint32_t needs;		/* bits 1 << LSP_V_*: every remedy it needs, the
				 * verdict's own included */
};

/* One loop-carried dependence of a loop: an instruction pair. */
struct lsp_dep {
	uint32_t loop;
	uint32_t kind;		/* 0 RAW, 1 WAR, 2 WAW */
	uint32_t decides;	/* 1: one of the dependences deciding the verdict */
	char *note;		/* what the heuristics made of it, "" none */
	char *var;		/* the variable ("A[]", "f:cfa-0x14", "heap 0x...") */
	uint64_t src_vaddr, dst_vaddr;	/* the instructions, ELF addresses */
	char *src_file, *dst_file;	/* "" unknown */
	uint32_t src_line, dst_line;
	uint64_t count;		/* occurrences (address, iteration end) */
	uint64_t dmin, dtyp;	/* least and most frequent distance, iterations */
};

/* The structural loops of the executed CFG (analysis/sview.h: `analyze
 * --structural`), version 4: what `report --structural` prints, for one
 * whole bundle.  Block ids are the analysis' static block ids. */
enum lsp_smatch {
	LSP_SM_SAME = 0,	/* a detected loop with this head, same counts */
	LSP_SM_COUNTS,		/* one with this head, other counts */
	LSP_SM_INNER,		/* shares its header with its parent loop */
	LSP_SM_NODYN,		/* no detected loop has this head */
	LSP_SM_MAX
};

struct lsp_sloop {
	uint32_t header;	/* block id of the header */
	uint32_t parent;	/* enclosing structural loop, LSP_NONE */
	uint32_t depth;		/* 1: outermost in its function */
	uint32_t match;		/* enum lsp_smatch */
	uint32_t loop;		/* the detected loop matched, LSP_NONE */
	uint64_t head_off;	/* header offset in its module (0 unknown) */
	char *where;		/* "function+0xoff" of the header, as printed */
	char *src;		/* "file:line" of it, "-" unknown */
	uint64_t static_insns, iterations, invocations, self, total;
	double iters_per_inv, coverage;	/* coverage: % of the instructions */
};

/* A back edge of structural loop `sloop`: its source block, its count. */
struct lsp_stail {
	uint32_t sloop, block;
	uint64_t count;
};

/* An irreducible region; its entries are lsp_sentry rows. */
struct lsp_sirr {
	uint32_t nblocks;
	uint64_t insns;
};

struct lsp_sentry {
	uint32_t irr;
	char *where, *src;	/* as in struct lsp_sloop */
};

/* The executed control-flow graph (analysis/cgraph.h: `analyze --cfg`),
 * version 5: rows that merge by summing.  A function is keyed by
 * (module, off), a block by (module, off); an edge by its ends, kind,
 * why and flags. */
struct lsp_cfunc {
	uint32_t module;
	uint64_t off;		/* its start, as the graph grouped its blocks */
	char *name;		/* "" when no symbol covers it */
};

struct lsp_cblock {
	uint32_t module;
	uint64_t off, end;	/* file offsets: first instruction, after last */
	uint64_t last;		/* file offset of the last instruction */
	uint32_t ninsn;		/* instructions of the block */
	uint32_t func;		/* its lsp_cfunc */
	uint64_t count;		/* executions */
	uint64_t callee;	/* instructions in callees of its calls */
	char *src;		/* "file:line" of its first instruction (the
				 * file's base name), "-" unknown */
};

/* How control went, as analysis/cfg.h's kinds and whys (by name). */
#define LSP_CKIND_MAX 11
#define LSP_CWHY_MAX 13
#define LSP_CF_XFER 1		/* crosses functions */
#define LSP_CF_UNREACHED 2	/* a conditional's way never taken (count 0) */

struct lsp_cedge {
	uint32_t fmod, tmod;	/* LSP_NONE: outside (offset 0) */
	uint64_t foff, toff;	/* block starts (unreached: the target's offset) */
	uint32_t kind, why, flags;
	uint64_t count;		/* >= 1; 0 when unreached */
};

/* The sampled-CPI results (analysis/cpiview.h: `analyze --cpi`),
 * version 6: what `report --cpi` and `annotate` print, for one whole
 * bundle and its sampling run, names and disassembly as printed. */
enum lsp_cpi_family { LSP_CPI_DYNAMIC = 0, LSP_CPI_STRUCTURAL = 1, LSP_CPI_NFAM };
enum lsp_cpi_unit { LSP_CPI_CYCLES = 0, LSP_CPI_NS = 1, LSP_CPI_NUNIT };

/* A sum over instructions: samples (fractions after the skid fix), cost
 * (cycles or ns) and executed instructions. */
struct lsp_cpiagg {
	double samples;
	uint64_t cost, insns;
};

/* Where the samples went, and the figures outside every loop. */
struct lsp_cpi {
	uint32_t unit;		/* enum lsp_cpi_unit */
	char *event;		/* the sampling event, "" unknown */
	uint32_t skid_fix;	/* 1: charged to the instruction before */
	uint64_t samples, attributed, unmapped, no_module, not_executed, no_pred;
	uint64_t cost, cost_attributed, insns;
	struct lsp_cpiagg outside[LSP_CPI_NFAM];
	char *cmd;		/* version 7: the bundle's command line, "" unknown */
	uint32_t calls;		/* 1: the cpicall rows are there (version 7;
				 * not a field: a version 6 file has none) */
};

struct lsp_cpifunc {
	uint32_t module;	/* LSP_NONE: no module */
	char *name;		/* as printed ("name", else "module+0xoff") */
	struct lsp_cpiagg self, total;
};

struct lsp_cpiloop {
	uint32_t family;	/* enum lsp_cpi_family */
	uint32_t func;		/* its lsp_cpifunc */
	uint32_t parent;	/* enclosing loop of the family, LSP_NONE */
	uint64_t vaddr;		/* head, ELF virtual address */
	char *file;		/* label's source file, "" unknown */
	uint32_t line;
	char *where;		/* "file:line" (base name) or "module+0xoff" */
	uint64_t iterations;
	struct lsp_cpiagg self, total;
	double top_samples;	/* while it is the outermost loop */
	uint64_t top_cost;
	uint32_t loop;		/* dynamic: the detector's lsp_loop, else LSP_NONE */
};

/* A source line of a detected loop's body (nested loops included,
 * callees not), for the HTML report; file an lsp_profile.cpisrcs index. */
struct lsp_cpiline {
	uint32_t loop, src, line;
	uint64_t execs;		/* most executions of one of its instructions */
	uint64_t insns;		/* instructions executed on it */
	uint64_t cost;		/* sampled cost */
};

/* One executed instruction; rows by function, block (by address), address. */
struct lsp_cpiinsn {
	uint32_t func;		/* its lsp_cpifunc */
	uint32_t first;		/* 1: the first of its block */
	uint64_t off, vaddr;	/* file offset, ELF virtual address */
	char *file;		/* source file, "" unknown */
	uint32_t line;
	char *dis;		/* AT&T disassembly at vaddr, "(bad)" */
	uint64_t execs;
	double samples;		/* after attribution */
	uint64_t raw_samples, cost, raw_cost;
};

/* Version 7: the calls of a call block to one callee block, what
 * `export --callgrind` writes as calls= lines.  The blocks are given by
 * the file offset of their first instruction (a cpiinsn row with first
 * 1 of the function). */
struct lsp_cpicall {
	uint32_t func;		/* the caller's lsp_cpifunc */
	uint64_t block;		/* the call block */
	uint32_t callee;	/* the callee's lsp_cpifunc */
	uint64_t entry;		/* the block the calls entered */
	uint64_t count;		/* calls, >= 1 */
	uint64_t insns;		/* instructions executed in the callee for
				 * them (outermost activations) */
};

#define LSP_ARRAY(type, name) type *name; size_t n_##name, cap_##name

struct lsp_profile {
	uint32_t version;
	uint32_t trip_limit;	/* exact histogram below this */
	uint32_t nruns;
	char *source;		/* bundle of run 0 (informational) */
	LSP_ARRAY(struct lsp_part, parts);	/* none in version 1 and 2 files */
	LSP_ARRAY(struct lsp_module, modules);
	LSP_ARRAY(struct lsp_thread, threads);
	LSP_ARRAY(struct lsp_func, funcs);
	LSP_ARRAY(struct lsp_loop, loops);
	LSP_ARRAY(struct lsp_lstat, lstats);
	LSP_ARRAY(struct lsp_trip, trips);
	LSP_ARRAY(struct lsp_edge, edges);
	LSP_ARRAY(struct lsp_tail, tails);
	LSP_ARRAY(struct lsp_call, calls);
	LSP_ARRAY(struct lsp_fstat, fstats);
	LSP_ARRAY(struct lsp_verdict, verdicts);
	LSP_ARRAY(struct lsp_dep, deps);
	/* version 4: has_sview when the structural records are there
	 * (possibly none of each), found with merge threshold smerge_t */
	int has_sview;
	double smerge_t;
	LSP_ARRAY(struct lsp_sloop, sloops);
	LSP_ARRAY(struct lsp_stail, stails);
	LSP_ARRAY(struct lsp_sirr, sirrs);
	LSP_ARRAY(struct lsp_sentry, sentries);
	/* version 5: has_cgraph when the executed CFG is recorded (possibly
	 * empty); cg_program the recorded program's module, LSP_NONE */
	int has_cgraph;
	uint32_t cg_program;
	LSP_ARRAY(struct lsp_cfunc, cfuncs);
	LSP_ARRAY(struct lsp_cblock, cblocks);
	LSP_ARRAY(struct lsp_cedge, cedges);
	/* version 6: has_cpi when the sampled-CPI records are there */
	int has_cpi;
	struct lsp_cpi cpi;
	LSP_ARRAY(struct lsp_cpifunc, cpifuncs);
	LSP_ARRAY(struct lsp_cpiloop, cpiloops);
	LSP_ARRAY(struct lsp_cpiinsn, cpiinsns);
	LSP_ARRAY(char *, cpisrcs);	/* source paths of the cpiline rows */
	LSP_ARRAY(struct lsp_cpiline, cpilines);
	LSP_ARRAY(struct lsp_cpicall, cpicalls);	/* version 7 */
	/* Private: the hash indexes that make interning O(1).  Rebuilt
	 * when the arrays were changed behind the interning functions. */
	struct lsp_index *index;
};

/* Allocates an empty profile.  Returns -LS_ENOMEM. */
int lsp_new(struct lsp_profile **pp, uint32_t trip_limit);
void lsp_free(struct lsp_profile *p);

/* Interning: the index of the module / function / loop with that key,
 * added when new (strings are copied).  Return the index (>= 0), or
 * -LS_ENOMEM, -LS_EINVAL. */
int lsp_module_intern(struct lsp_profile *p, const uint8_t *build_id,
		      size_t len, const char *path);
int lsp_func_intern(struct lsp_profile *p, uint32_t module, uint64_t off,
		    uint64_t vaddr, const char *name, const char *file,
		    uint32_t line);
/* Sets loop i's label (file, line) and its head's line (head_file,
 * head_line); lsp_loop_intern() sets both to the head's.  Returns 0,
 * -LS_EINVAL, -LS_ENOMEM. */
int lsp_loop_set_lines(struct lsp_profile *p, uint32_t i, const char *file,
		       uint32_t line, const char *head_file, uint32_t head_line);
/* Sets loop i's body range and inline chain (see struct lsp_loop).
 * Returns 0, -LS_EINVAL, -LS_ENOMEM. */
int lsp_loop_set_range(struct lsp_profile *p, uint32_t i, uint32_t first_line,
		       uint32_t last_line, const char *inlined_from);
int lsp_loop_intern(struct lsp_profile *p, uint32_t module, uint64_t head_off,
		    uint64_t head_vaddr, uint32_t func, const char *file,
		    uint32_t line);
/* Appends a thread; returns its index or -LS_ENOMEM. */
int lsp_thread_add(struct lsp_profile *p, const struct lsp_thread *t);

/* Appending rows (copied).  Return 0 or -LS_ENOMEM. */
int lsp_add_lstat(struct lsp_profile *p, const struct lsp_lstat *s);
int lsp_add_trip(struct lsp_profile *p, const struct lsp_trip *t);
int lsp_add_edge(struct lsp_profile *p, const struct lsp_edge *e);
int lsp_add_tail(struct lsp_profile *p, const struct lsp_tail *t);
int lsp_add_call(struct lsp_profile *p, const struct lsp_call *c);
int lsp_add_fstat(struct lsp_profile *p, const struct lsp_fstat *f);
/* Per loop, its most executed back branch over all threads (ties: the
 * lowest offset); count 0 for none.  The rule the loop labels follow. */
struct lsp_best {
	uint64_t count, off;
};

/* *out gets p->n_loops entries (free() them).  Returns 0 or -LS_ENOMEM. */
int lsp_best_tails(const struct lsp_profile *p, struct lsp_best **out);
/* Sets loop v->loop's verdict; a loop that has one keeps the graver
 * verdict and both needs (merged runs: a dependence of any run holds).
 * Returns 0, -LS_EINVAL (verdict or loop out of range), -LS_ENOMEM. */
int lsp_set_verdict(struct lsp_profile *p, const struct lsp_verdict *v);
/* Adds dependence d (strings copied; NULL as ""); one with the same loop,
 * kind, instructions and variable is summed into: counts added, the
 * least dmin, the dtyp of the larger count, decides or'ed.  Returns 0,
 * -LS_EINVAL, -LS_ENOMEM. */
int lsp_add_dep(struct lsp_profile *p, const struct lsp_dep *d);
/* Name of verdict v ("parallelizable", "reduction", "privatization",
 * "duplicate-array", "not-parallelizable"), "?" else; the code of a
 * name, or -LS_EINVAL. */
const char *lsp_verdict_name(unsigned v);
int lsp_verdict_code(const char *name);
/* "RAW", "WAR", "WAW"; "?" else. */
const char *lsp_dep_kind_name(unsigned k);

/* The structural records (has_sview set by the first; strings copied,
 * NULL as "").  lsp_add_sloop: -LS_EINVAL for a parent not before it, a
 * loop out of range or a bad match; lsp_add_stail: a loop out of range;
 * lsp_add_sentry: a region out of range.  Return 0, -LS_EINVAL,
 * -LS_ENOMEM. */
int lsp_add_sloop(struct lsp_profile *p, const struct lsp_sloop *s);
int lsp_add_stail(struct lsp_profile *p, const struct lsp_stail *t);
int lsp_add_sirr(struct lsp_profile *p, const struct lsp_sirr *r);
int lsp_add_sentry(struct lsp_profile *p, const struct lsp_sentry *e);
/* Drops the structural records (has_sview 0): `merge` does, as the
 * structural loops of a sum of runs are not the sum of theirs. */
void lsp_sview_drop(struct lsp_profile *p);
/* "same", "counts", "inner", "no-dynamic"; "?" else; the code of a name
 * or -LS_EINVAL. */
const char *lsp_smatch_name(unsigned m);
int lsp_smatch_code(const char *name);

/* The graph records (version 5), appended as given (has_cgraph set);
 * lsp_sort() orders them and sums rows of one key.  lsp_add_cfunc
 * returns the new function's index (name copied, NULL as ""), -LS_EINVAL
 * for a module out of range; lsp_add_cblock (src copied, NULL as "-"):
 * -LS_EINVAL for a module or
 * function out of range, end <= off, last not in [off, end) or ninsn 0;
 * lsp_add_cedge: an end's module out of range, a kind, why or flags out
 * of range.  Return >= 0, -LS_EINVAL, -LS_ENOMEM. */
int lsp_add_cfunc(struct lsp_profile *p, uint32_t module, uint64_t off, const char *name);
int lsp_add_cblock(struct lsp_profile *p, const struct lsp_cblock *b);
int lsp_add_cedge(struct lsp_profile *p, const struct lsp_cedge *e);
/* Orders the graph records as lsp_sort() does, modules kept (their
 * order is lsp_sort()'s already, or will change the blocks' order).
 * Returns 0, 1 (the records dropped: rows of one key disagree), or
 * -LS_ENOMEM (dropped too). */
int lsp_cgraph_order(struct lsp_profile *p);
/* Drops the graph records (has_cgraph 0). */
void lsp_cgraph_drop(struct lsp_profile *p);
/* Names of edge kinds ("fall", "taken", ... as analysis/cfg.h's) and of
 * whys ("-" for none, "call", ...); "?" else.  The code of a name, or
 * -LS_EINVAL. */
const char *lsp_ckind_name(unsigned k);
int lsp_ckind_code(const char *name);
const char *lsp_cwhy_name(unsigned w);
int lsp_cwhy_code(const char *name);

/* The sampled-CPI records (version 6).  lsp_set_cpi sets the cpi record
 * (event copied, NULL as ""; has_cpi set): -LS_EINVAL for a bad unit;
 * lsp_add_cpifunc (name copied): a module out of range; lsp_add_cpiloop
 * (strings copied): a bad family, a function out of range, a parent out
 * of range once all are added, a loop out of range; lsp_add_cpiinsn: a
 * function out of range; lsp_add_cpisrc (copied) returns its index;
 * lsp_add_cpiline: a loop or source out of range.  Return >= 0,
 * -LS_EINVAL, -LS_ENOMEM. */
int lsp_set_cpi(struct lsp_profile *p, const struct lsp_cpi *c);
int lsp_add_cpifunc(struct lsp_profile *p, const struct lsp_cpifunc *f);
int lsp_add_cpiloop(struct lsp_profile *p, const struct lsp_cpiloop *l);
int lsp_add_cpiinsn(struct lsp_profile *p, const struct lsp_cpiinsn *in);
int lsp_add_cpisrc(struct lsp_profile *p, const char *path);
int lsp_add_cpiline(struct lsp_profile *p, const struct lsp_cpiline *l);
/* lsp_set_cpi also copies cmd (NULL as "").  lsp_add_cpicall (version
 * 7): a function out of range, a count of 0.  Returns 0, -LS_EINVAL,
 * -LS_ENOMEM. */
int lsp_add_cpicall(struct lsp_profile *p, const struct lsp_cpicall *c);
/* The cpiinsn rows that start a block (first 1), ordered by (func, off),
 * for lsp_cpi_block_row(): *rows gets them (free() it; *n rows).
 * Returns 0 or -LS_ENOMEM. */
int lsp_cpi_blocks(const struct lsp_profile *p, size_t **rows, size_t *n);
/* The cpiinsn row of the block of cpifunc func at file offset off, from
 * lsp_cpi_blocks()' rows; SIZE_MAX when there is none. */
size_t lsp_cpi_block_row(const struct lsp_profile *p, const size_t *rows, size_t n,
			 uint32_t func, uint64_t off);
/* Drops the sampled-CPI records (has_cpi 0): `merge` does, as the costs
 * of separate sampling runs do not add up to one run's. */
void lsp_cpi_drop(struct lsp_profile *p);
/* "dynamic", "structural"; "cycles", "ns"; "?" else.  The code of a
 * name, or -LS_EINVAL. */
const char *lsp_cpi_family_name(unsigned f);
int lsp_cpi_family_code(const char *name);
const char *lsp_cpi_unit_name(unsigned u);
int lsp_cpi_unit_code(const char *name);

/* Records that run `run` holds shard `shard` of `nshards` of bundle
 * `bundle` (copied).  Returns 0, -LS_EINVAL (shard >= nshards, run >=
 * nruns, an empty id), -LS_ENOMEM. */
int lsp_part_add(struct lsp_profile *p, uint32_t run, const char *bundle,
		 uint32_t shard, uint32_t nshards);

/* Puts p in its canonical order, the one every file is written in:
 * modules by build-id (path without one), functions and loops by
 * (module, offset), threads by (run, pid, tid), parts by (run, bundle,
 * shard), rows by thread and then their key; indexes are remapped.  The
 * order depends on the contents only, so profiles of the shards of one
 * bundle merge into the bytes of the whole bundle's.  Returns 0 or
 * -LS_ENOMEM (p unchanged). */
int lsp_sort(struct lsp_profile *p);

/* Name of instruction class c < LSP_NCLASS ("load" .. "other"), "?" else. */
const char *lsp_class_name(unsigned c);

/* Writes p to path in the text format of formats/profile.md (to a
 * temporary file renamed over path, so a failed write leaves no half
 * file; a device such as /dev/null is written in place: ls_out.h).  On error errmsg (if errlen) names the file.  Returns 0,
 * -LS_EINVAL (p or path NULL), -LS_EIO, -LS_ENOMEM. */
int lsp_write(const struct lsp_profile *p, const char *path, char *errmsg,
	      size_t errlen);
/* Same, to an open stream; name is used in messages only. */
int lsp_write_file(const struct lsp_profile *p, FILE *f, const char *name,
		   char *errmsg, size_t errlen);
/* Reads a profile file.  Every field is checked; errmsg gets
 * "FILE:LINE: what" (or "FILE: what").  Memory stays proportional to the
 * file size.  Returns 0 and *pp, or
 *   -LS_ENOENT   no such file
 *   -LS_EIO      read error
 *   -LS_EFORMAT  not a profile (bad magic)
 *   -LS_EVERSION a format version this code does not read
 *   -LS_ETRUNC   the file ends before its end record
 *   -LS_ECORRUPT a bad field, index, count or a duplicate key
 *   -LS_ENOMEM */
int lsp_read(struct lsp_profile **pp, const char *path, char *errmsg,
	     size_t errlen);
/* The same from a memory buffer (fuzzing, tests); name for messages. */
int lsp_read_mem(struct lsp_profile **pp, const char *buf, size_t len,
		 const char *name, char *errmsg, size_t errlen);
/* Checks p against every rule the reader applies (formats/profile.md:
 * indexes, unique keys, trips below the trip limit, self <= total, ...)
 * by writing it to memory and reading it back: a profile that passes
 * reads back from its file.  errmsg names the record as a line of the
 * file ("profile as written:17: duplicate trip").  Returns 0 or the
 * reader's error code. */
int lsp_check(const struct lsp_profile *p, char *errmsg, size_t errlen);
/* 1 when path starts with the profile magic, 0 when not (also when it is
 * shorter), -LS_ENOENT or -LS_EIO when it cannot be read. */
int lsp_is_profile(const char *path);

/* Appends src to dst: src's threads become runs dst->nruns.. (shifted),
 * but a run holding other shards of a bundle dst has a run of joins that
 * run; modules are matched by build-id (by path when there is none),
 * functions and loops by (module, offset); every row is remapped; the
 * shards of a bundle that are all there become the whole bundle (shard 0
 * of 1), and the result is sorted (lsp_sort()).  A loop in both takes the
 * label (file, line, lines, inline chain) of the side whose own most
 * executed back branch is the merged one's; where neither side's is,
 * dst's label stays and *unlabeled (may be NULL) counts the loop.  dst is
 * unchanged on -LS_EINVAL (the trip limits differ: callers say so, naming
 * the files) and on -LS_EEXIST (lsp_part_conflict() finds a part of src
 * in dst), but may hold part of src on -LS_ENOMEM.
 * Returns 0, -LS_EINVAL, -LS_EEXIST, -LS_ENOMEM. */
int lsp_merge(struct lsp_profile *dst, const struct lsp_profile *src);
int lsp_merge_count(struct lsp_profile *dst, const struct lsp_profile *src,
		    size_t *unlabeled);
/* Whether a part of src overlaps one of dst: the same bundle with a shard
 * in both, or sharded in two ways (then no overlap can be ruled out).
 * Returns 0 for none, or 1 with *di and *si (may be NULL) the indexes of
 * the two parts. */
int lsp_part_conflict(const struct lsp_profile *dst, const struct lsp_profile *src,
		      size_t *di, size_t *si);

#endif
