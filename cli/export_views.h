/* export_views.h - the exports of `loopscope export` that read the loop
 * profile or the executed instructions rather than the edge profile
 * (cli only). */
#ifndef LS_CLI_EXPORT_VIEWS_H
#define LS_CLI_EXPORT_VIEWS_H

#include <stdio.h>

#include "formats/profile_view.h"

/* The callgrind format of the instructions, calls and loops of p's
 * sampled-CPI records (p->has_cpi with p->cpi.calls: analyze --cpi,
 * version 7).  Returns 0, -LS_ENOMEM or -LS_EIO. */
int export_callgrind(FILE *f, const struct lsp_profile *p);
/* speedscope's file format: one sampled profile whose stacks are the loop
 * nesting (functions and loops as frames) weighted by instructions.
 * Returns 0, -LS_ENOMEM or -LS_EIO. */
int export_speedscope(FILE *f, const struct lsp_view *v, const char *name);
/* `export --callgrind | --speedscope` of file to out_path (NULL: stdout).
 * Prints its own errors; returns the exit status. */
int export_view(int callgrind, const char *file, const char *debug_dir,
		const char *out_path);

#endif
