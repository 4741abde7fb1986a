/* cpi_util.h - the sampled CPI for the commands: the records `report
 * --cpi`, `annotate`, `html` and `export --callgrind` read
 * (cli_cpi_load(): a profile of `analyze --cpi`, or a bundle analyzed
 * so). */
#ifndef LS_CLI_CPI_UTIL_H
#define LS_CLI_CPI_UTIL_H

#include <stdio.h>

#include "cli/cfg_util.h"
#include "formats/profile.h"

/* The sampled-CPI records `report --cpi` and `annotate` print: of the
 * profile file (analyze --cpi), or of the bundle file analyzed on the
 * fly as analyze --cpi [--no-skid-fix] analyzes it, so both print the
 * same bytes.  A profile analyzed with the other skid rule is refused
 * (no_skid_fix < 0: either rule, a bundle with the skid fix: for a view
 * that prints no samples);
 * need_samples: no samples is an error; !want_loops: of a bundle only
 * the cpi, cpifunc (self) and cpiinsn records, from one decode of the
 * graph without the loop detector (what annotate prints).  Prints the
 * mismatch warning.  Returns 0 and *out, or -1 after printing the error. */
int cli_cpi_load(const char *file, const char *debug_dir, int no_skid_fix,
		 int need_samples, int want_loops, struct lsp_profile **out);
/* The one-line account of where the samples went, of a profile. */
void cli_cpi_print_account(FILE *out, const struct lsp_cpi *c);
/* cost / executions (0 when nothing executed). */
double cli_cpi_per(uint64_t cost, uint64_t execs);

/* Share of x in all, in percent (0 when all is 0). */
double cli_cpi_pct(double x, double all);

#endif
