/* cli.h - subcommands of the loopscope command line.
 *
 * Only cli/ prints to the user or exits.  Each cmd_<name>() gets argv with
 * argv[0] = "<name>" and returns the process exit status.  A command given
 * -h/--help prints its usage to stdout and returns 0; a usage error prints
 * the usage to stderr and returns 129 (as git does).
 */
#ifndef LS_CLI_H
#define LS_CLI_H

#include <stdio.h>

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_merge(int argc, char **argv);

struct lsp_profile;
/* `loopscope analyze` as a function: decodes the bundle at path (with
 * executables it only references looked for in debug_dir, may be NULL)
 * and profiles its loops into a new *out.  Like every cli helper it
 * prints its own error message; returns 0 or a negative LS_E* code. */
int cli_analyze_bundle(const char *path, const char *debug_dir,
		       struct lsp_profile **out);
/* The input of report, graph and merge: a profile file (by its magic),
 * else a bundle analyzed on the fly.  Returns 0, or 1 after printing the
 * error (a missing file gets the 'record' hint). */
int cli_load_profile(const char *path, const char *debug_dir,
		     struct lsp_profile **out);
int cmd_probes(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_deps(int argc, char **argv);
/* `analyze --deps`: the dependences of bundle file (recorded with --mem)
 * and a verdict per loop into p, whose loops were found in file.
 * Returns 0, or 1 after printing the error. */
int cli_deps_into_profile(const char *file, const char *debug_dir,
			  struct lsp_profile *p);

struct lsb_reader;
/* Opens a bundle for a command: a missing file gets the 'record' hint, a
 * bundle cut short a warning.  Returns 0, or 1 after printing the error. */
int cli_open_bundle(const char *file, struct lsb_reader **pr);
/* Prints a failure err of reading or decoding r: the reader's own message
 * (file, section, offset) for damage and I/O, else the file and the code. */
void cli_reader_error(struct lsb_reader *r, int err);
/* One warning naming the executable mappings of the traced run whose code
 * neither the bundle holds nor a file with the recorded build-id (at its
 * path or in debug_dir, may be NULL): decoding through them can only
 * count losses. */
void cli_warn_missing_code(struct lsb_reader *r, const char *debug_dir);
/* Why a file cannot be created at path, in words, into buf: its
 * directory is missing, not a directory or not writable.  Returns buf, or
 * NULL where the directory looks fine. */
const char *cli_create_problem(const char *path, char *buf, size_t len);

/* Prints "loopscope: " + formatted message + newline to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints usage to stderr (err != 0) or stdout and returns 129 or 0. */
int cli_usage(const char *usage, int err);
/* The directory holding the running binary (no trailing slash). */
const char *cli_exe_dir(void);

#define CLI_EXIT_USAGE 129
#define LS_VERSION "0.1.0"

#endif
