/* cli.h - subcommands of the loopscope command line.
 *
 * Only cli/ prints to the user or exits.  Each cmd_<name>() gets argv with
 * argv[0] = "<name>" and returns the process exit status.  A command given
 * -h/--help prints its usage to stdout and returns 0; a usage error prints
 * the usage to stderr and returns 129 (as git does).
 */
#ifndef LS_CLI_H
#define LS_CLI_H

#include <stdint.h>
#include <stdio.h>

struct lsb_reader;

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_merge(int argc, char **argv);

struct lsp_profile;
/* The rule of cli helpers (git's): a helper prints its own error message
 * and returns a negative value; callers test it and exit 1.  Only the
 * cmd_* functions return exit statuses. */

/* `loopscope analyze` as a function: decodes the bundle at path (with
 * executables it only references looked for in debug_dir, may be NULL)
 * and profiles its loops into a new *out.  Returns 0 or a negative LS_E*
 * code after printing the error. */
int cli_analyze_bundle(const char *path, const char *debug_dir,
		       struct lsp_profile **out);
/* The analyses `analyze` runs beside the loop detector, in the same
 * decode (analysis/consume.h). */
struct cli_analyses {
	int structural;		/* the structural loops (analysis/sview.h) */
	double merge_t;		/* their merge threshold T; 0: the default */
	int cfg;		/* the executed CFG's records (analysis/cgraph.h) */
	int cpi;		/* the sampled-CPI records (analysis/cpiview.h) */
	int no_skid_fix;	/* with cpi: samples charged where they landed */
	/* The dependences (analysis/deps.h), found by a second decode
	 * with the memory accesses over the graph built by the first. */
	int deps;
};
/* cli_analyze_bundle() with the analyses ca (may be NULL: loops only). */
int cli_analyze_bundle_with(const char *path, const char *debug_dir,
			    const struct cli_analyses *ca, struct lsp_profile **out);
/* The input of report, graph and merge: a profile file (by its magic),
 * else a bundle analyzed on the fly.  Returns 0, or -1 after printing
 * the error (a missing file gets the 'record' hint). */
int cli_load_profile(const char *path, const char *debug_dir,
		     struct lsp_profile **out);
/* The identity of the bundle at path (its size and the CRCs of its
 * first and last 64 KB) into id, for a profile's part records.  Returns
 * 0, or 1 after printing the error. */
int cli_bundle_id(const char *path, char *id, size_t len);
/* The streams of shard k of nshards of bundle r (named path in
 * messages): *mask gets one byte per stream (free() it), NULL for
 * nshards 1.  Threads stay whole, balanced by their stored bytes.
 * Returns 0, or 1 after printing the error (a per-CPU bundle cut). */
int cli_shard_streams(struct lsb_reader *r, const char *path, uint32_t k,
		      uint32_t nshards, uint8_t **mask);
/* How many shards of at most `want` r is cut into: its threads, 1 for a
 * per-CPU bundle.  Returns the count, or -1 when out of memory. */
int cli_shard_plan(struct lsb_reader *r, uint32_t want);
struct lsa_loops_stats;
/* Profiles shard k of nshards of bundle `path` into the new profile p, in
 * canonical order, with its part record and the analyses ca asks for (may
 * be NULL: loops only); the detector's statistics to *st.  With jobs
 * above one, nshards 1 and no analysis of the whole graph (ca), a bundle
 * of several threads is cut into shards analyzed on threads of their own
 * and merged: the same profile (cli/analyze_run.c).  Unless allow_missing, referenced
 * executables found nowhere are an error.  Returns 0, or 1 after
 * printing the error. */
int cli_analyze_into(const char *path, const char *debug_dir, int allow_missing,
		     unsigned jobs, const struct cli_analyses *ca, uint32_t k,
		     uint32_t nshards, struct lsp_profile *p, struct lsa_loops_stats *st);
int cmd_probes(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_deps(int argc, char **argv);
struct lsd_decoder;
struct lsd_symbols;
struct lsa_cfg;
/* `analyze --deps`: the dependences of bundle file (recorded with --mem,
 * open in r, decoded by d, whose blocks the finished graph cfg holds)
 * and a verdict per loop into p, whose loops were found in file: one
 * more decode.  Returns 0, or 1 after printing the error. */
int cli_deps_on(const char *file, struct lsb_reader *r, struct lsd_decoder *d,
		struct lsd_symbols *sym, const struct lsa_cfg *cfg, struct lsp_profile *p);

struct lsb_reader;
/* Opens a bundle for a command: a missing file gets the 'record' hint, a
 * bundle cut short a warning.  Returns 0, or -1 after printing the error. */
int cli_open_bundle(const char *file, struct lsb_reader **pr);
/* A command that decodes bundle r (opened from path) fails rather than
 * report an empty trace: where r holds no PT at all (cut short before its
 * first PT chunk, still being written, or none recorded), prints why and
 * returns 1; else returns 0. */
int cli_no_trace(struct lsb_reader *r, const char *path);
/* Prints a failure err of reading or decoding r: the reader's own message
 * (file, section, offset) for damage and I/O, else the file and the code. */
void cli_reader_error(struct lsb_reader *r, int err);
/* One warning naming the executable mappings of the traced run whose code
 * neither the bundle holds nor a file with the recorded build-id (at its
 * path or in debug_dir, may be NULL): decoding through them can only
 * count losses.  Also warns when DEBUGINFOD_URLS is set in a build
 * without debuginfod support. */
void cli_warn_missing_code(struct lsb_reader *r, const char *debug_dir);
struct lsd_decoder;
struct lsd_symbols;
/* The symbols of r's modules for a command that decodes r with d: the
 * modules d decompressed are lent to them (copied at their first lookup,
 * not decompressed again), so the symbols must be closed before d.
 * NULL when they cannot be opened (names then stay unknown). */
struct lsd_symbols *cli_symbols_open(struct lsb_reader *r, const struct lsd_decoder *d,
				     const char *debug_dir);
/* For a bundle made by 'loopscope record': prints an error naming each
 * module it only references (--no-embed) that the traced run executed
 * and no file of that build can be had for (not at its path, nor in
 * debug_dir, nor from the debuginfod servers of DEBUGINFOD_URLS), with
 * where it was looked for.  Imported perf.data bundles pass.  Returns 0,
 * or -1 when one is missing (or out of memory). */
int cli_need_referenced(struct lsb_reader *r, const char *debug_dir);
/* Why a file cannot be created at path, in words, into buf: its
 * directory is missing, not a directory or not writable.  Returns buf, or
 * NULL where the directory looks fine. */
const char *cli_create_problem(const char *path, char *buf, size_t len);
struct ls_out;
struct lsb_writer;
struct lsb_writer_opts;
/* lsb_writer_open() with the message of a failure: another writer holds
 * path, its directory is missing or not writable.  Returns 0, or 1 after
 * "cannot write 'PATH': why". */
int cli_writer_open(struct lsb_writer **pw, const char *path,
		    const struct lsb_writer_opts *wo);
/* lsb_writer_close() of a writer cli_writer_open() made, which keeps the
 * heads of each stream's packets in the bundle (PTHEADS: the decoder's
 * lsd_pt_heads_cb()); its return. */
int cli_writer_close(struct lsb_writer *w);
/* Opens a command's output file (NULL or "-": stdout) with ls_out_open(),
 * written under a temporary name and renamed when complete.  Returns 0,
 * or 1 after "cannot write 'PATH': why". */
int cli_out_open(struct ls_out *o, const char *path);
/* ls_out_finish(o, err): commits when the writer's err >= 0.  Returns 0,
 * or 1 after "cannot write 'PATH': why" (ENOSPC, EFBIG...). */
int cli_out_finish(struct ls_out *o, int err);

/* Prints "loopscope: " + formatted message + newline to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints usage to stderr (err != 0) or stdout and returns 129 or 0. */
int cli_usage(const char *usage, int err);
/* Numeric option values, one wording for every command: the whole of s
 * must be a number in [min, max] (base as strtoull(): 10, or 0 to take
 * 0x... too), no sign.  Otherwise prints "option 'OPT' wants a number
 * from MIN to MAX, not 'S'" ("wants a number, not 'S'" without bounds)
 * and returns -1; 0 with *out set. */
int cli_opt_u64(const char *opt, const char *s, int base, uint64_t min,
		uint64_t max, uint64_t *out);
int cli_opt_u32(const char *opt, const char *s, int base, uint32_t min,
		uint32_t max, uint32_t *out);
/* The same for a real number in [min, max] (max may be INFINITY). */
int cli_opt_double(const char *opt, const char *s, double min, double max,
		   double *out);
/* The default of --jobs: the online CPUs, 1 to 256.  Never fails. */
unsigned cli_online_cpus(void);
/* The directory holding the running binary (no trailing slash). */
const char *cli_exe_dir(void);
/* Before a command runs: where the kernel gives huge pages to advised
 * memory alone and argv names a bundle of 1 MiB or more, runs the binary
 * again (argv as given) with glibc's malloc advising its memory, once;
 * the run again puts the environment back.  Then fixes malloc's
 * thresholds so that large blocks freed are kept for the next.  Returns
 * where nothing is done or the exec fails (cli/tune.c). */
void cli_tune_malloc(char **argv);

#define CLI_EXIT_USAGE 129
#define LS_VERSION "0.1.0"

#endif
