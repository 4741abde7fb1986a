/* report.h - the views of `loopscope report` and `graph` (cli only).
 *
 * Each prints one view of an aggregate profile view (formats/
 * profile_view.h) to f.  Percentages are of the view's total
 * instructions; min_pct prunes loops (and functions) below it.
 */
#ifndef LS_CLI_REPORT_H
#define LS_CLI_REPORT_H

#include <stdio.h>

#include "formats/profile_view.h"

struct report_opts {
	double min_pct;		/* prune below this percent of the total */
	size_t buckets;		/* flat: trip buckets shown per loop (0: all) */
	const char *source;	/* the input file, for headers */
	const char *module;	/* only this module's loops and functions, or NULL */
	int hide_loader;	/* leave out the dynamic loader's loops (flat, tree) */
};

/* Views; return 0 or a negative LS_E* code (out of memory). */
int report_flat(FILE *f, const struct lsp_view *v, const struct report_opts *o);
int report_tree(FILE *f, const struct lsp_view *v, const struct report_opts *o);
/* Returns -LS_ENOENT when no function (of o->module) is called name. */
int report_function(FILE *f, const struct lsp_view *v, const char *name,
		    const struct report_opts *o);
int report_functions(FILE *f, const struct lsp_view *v, const struct report_opts *o);
int report_json(FILE *f, const struct lsp_view *v, const struct report_opts *o);
int report_csv(FILE *f, const struct lsp_view *v, const struct report_opts *o);
int report_folded(FILE *f, const struct lsp_view *v, const struct report_opts *o);
int report_dot(FILE *f, const struct lsp_view *v, const struct report_opts *o);

/* report_deps.c: the verdicts of `analyze --deps`.  `report --parallel`:
 * the loops with a verdict, parallelizable ones first, by share. */
int report_parallel(FILE *f, const struct lsp_view *v, const struct report_opts *o);
/* Loop's verdict, NULL when it has none. */
const struct lsp_verdict *report_verdict_of(const struct lsp_profile *p, uint32_t loop);
/* The flat view's line "  parallel: ..." (nothing without a verdict). */
void report_verdict_text(FILE *f, const struct lsp_profile *p, uint32_t loop);
/* JSON fields ', "verdict": ..., "deciding": [...]' of a loop object. */
void report_verdict_json(FILE *f, const struct lsp_profile *p, uint32_t loop);
/* The verdict's name, "" when none (CSV). */
const char *report_verdict_name(const struct lsp_profile *p, uint32_t loop);

struct report_struct_opts {
	double min_pct;		/* prune loops below this coverage */
	double merge_t;		/* OptiWISE's threshold T; 0: the profile's
				 * (a bundle: the default) */
	int json;
	const char *source;
};
/* `report --structural`: prints the structural loops beside the dynamic
 * ones, the dynamic loops without a header and the irreducible regions,
 * from a profile of `analyze --structural`, or from a bundle analyzed
 * so on the fly.  Returns 0, or -1 after printing the error (also for
 * a profile without them, or of another merge_t). */
int report_structural(FILE *f, const char *file, const char *debug_dir,
		      const struct report_struct_opts *o);
/* The same from profile p (with its structural records). */
int report_structural_profile(FILE *f, struct lsp_profile *p,
			      const struct report_struct_opts *o);

/* Helpers shared by the views. */
/* The function's name, "module+0xoff" when it has none, "??" for LSP_NONE. */
const char *report_func_name(const struct lsp_profile *p, uint32_t func,
			     char *buf, size_t len);
/* A loop's source place "file:line", else "module+0xvaddr" (its head's
 * ELF address, as function names without a symbol give theirs). */
const char *report_loop_where(const struct lsp_profile *p, uint32_t loop,
			      char *buf, size_t len);
/* The last path component. */
const char *report_base(const char *path);
/* Parses --min-percent's value (0..100); 0, or -1 after a message. */
int report_parse_pct(const char *s, double *out);
/* s as a JSON string, quotes included. */
void report_json_str(FILE *f, const char *s);
/* Colour of the text views, on a terminal only (cli/term.h decides, as
 * for messages: --color, NO_COLOR, whether f is a terminal); "" without.
 * A share of at least REPORT_HOT_PCT percent is "hot". */
#define REPORT_HOT_PCT 10.0
const char *report_col(FILE *f, const char *role);
const char *report_hot(FILE *f, double pct);
/* s as a CSV field (RFC 4180). */
void report_csv_str(FILE *f, const char *s);

/* `report --cpi` (report_cpi.c): the bundle FILE's samples over its
 * trace, per loop (dynamic and structural) and function, in format.
 * Prints its own errors; returns 0, or -1 after an error. */
enum { REPORT_CPI_TEXT, REPORT_CPI_JSON, REPORT_CPI_CSV };
int report_cpi(FILE *f, const char *file, const char *debug_dir, int format,
	       int no_skid_fix, double min_pct);

/* Whether path's last component names the dynamic loader (ld-linux*,
 * ld.so*, ld-<version>.so, ld-musl-*). */
int report_is_loader(const char *path);
/* Whether profile module mod is the one --module=name names: its recorded
 * path, its last component, or that component up to a '.' ("libc" for
 * libc.so.6). */
int report_module_match(const struct lsp_profile *p, uint32_t mod, const char *name);
/* The same test on a module's recorded path (NULL matches nothing). */
int report_path_match(const char *path, const char *name);
/* Whether any module of p matches name. */
int report_module_known(const struct lsp_profile *p, const char *name);
/* Whether a view prints loop / function under o's module filter and
 * loader hiding. */
int report_loop_shown(const struct lsp_profile *p, uint32_t loop,
		      const struct report_opts *o);
int report_func_shown(const struct lsp_profile *p, uint32_t func,
		      const struct report_opts *o);
/* The header line saying what o's filter leaves out: the module shown,
 * or how many loops of the dynamic loader are hidden, with the
 * instructions of their own code (nothing when none). */
void report_filter_note(FILE *f, const struct lsp_view *v, const struct report_opts *o);

/* A source path as text reports print it: relative to the current
 * directory when under it, else as it is (absolute where the debug info
 * names the build directory).  JSON and CSV keep it whole. */
const char *report_path(const char *file);
/* The SIMD share of loop l's own instructions, in %. */
double report_simd_pct(const struct lsp_view_loop *l);

#endif
