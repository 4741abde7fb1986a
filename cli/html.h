/* html.h - `loopscope html` (cli only): one self-contained HTML file, the
 * loop profile's data as JSON inside it and a small script that draws
 * the views from it (html_page.c), only the parts on screen at first
 * (lazy rendering: pages of rows, tree nodes when opened).
 */
#ifndef LS_CLI_HTML_H
#define LS_CLI_HTML_H

#include <stdio.h>

#include "formats/profile_view.h"

/* Per loop of the profile, its source lines: what html_lines_new()
 * gathers from a bundle's executed instructions. */
struct html_line {
	uint32_t file;		/* index in html_lines.files */
	uint32_t line;
	uint64_t execs;		/* most executions of one of its instructions */
	uint64_t insns;		/* instructions executed on it */
	uint64_t cost;		/* sampled cost (cycles or ns), 0 without samples */
};

struct html_lines {
	char **files;		/* source paths */
	size_t nfiles;
	/* rows[row0[l] .. row0[l + 1]) are loop l's lines, by file, line. */
	struct html_line *rows;
	size_t *row0;		/* n_loops + 1 entries */
	size_t nloops;
	/* Per profile loop, its sampled cost, self and total (zeros
	 * without samples). */
	uint64_t *cost_self, *cost_total;
	const char *unit;	/* "cycles" or "ns" with samples, else NULL */
	uint64_t cost_all;	/* attributed cost of the run */
};

/* The source lines of every loop of p from its sampled-CPI records (none
 * without them): a loop's lines are those of its natural body (nested
 * loops included, callees not).  Returns 0 or -LS_ENOMEM. */
int html_lines_new(struct html_lines *hl, const struct lsp_profile *p);
void html_lines_free(struct html_lines *hl);

/* Writes the whole page for view v to f; hl (may be NULL) adds the
 * source lines.  Returns 0, or -LS_ENOMEM, -LS_EIO. */
int html_write(FILE *f, const struct lsp_view *v, const struct html_lines *hl,
	       const char *source);

/* The page around the data (html_page.c). */
extern const char html_page_head[];	/* up to the data's script tag */
extern const char html_page_tail[];	/* from its end tag on */

#endif
