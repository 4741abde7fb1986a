/* cpi_util.h - the sampled CPI for the commands: the records `report
 * --cpi`, `annotate` and `html` read (cli_cpi_load(): a profile of
 * `analyze --cpi`, or a bundle analyzed so), and for the exports that
 * need the graph itself a bundle's executed CFG with its samples combined
 * (analysis/cpi.h), the dynamic and structural loops added. */
#ifndef LS_CLI_CPI_UTIL_H
#define LS_CLI_CPI_UTIL_H

#include <stdio.h>

#include "analysis/cpi.h"
#include "analysis/sloops.h"
#include "cli/cfg_util.h"
#include "formats/profile.h"

struct cli_cpi {
	struct cli_cfg cc;
	struct lsa_cpi *cpi;
	struct lsa_cpi_stacks *stacks;	/* want_loops: the graph's call stacks */
	struct lsa_sloops *sl;
	struct lsp_profile *prof;	/* dynamic loops (may be NULL) */
	uint32_t *dyn_loop;		/* cpi loop -> profile loop (dynamic) */
	size_t ndyn;
	struct lsa_cpi_stats st;
};

/* Opens file (a bundle), builds everything and prints the mismatch
 * warning: for `export --callgrind/--speedscope`, which need the graph
 * itself.  want_loops: also find the loops (cli_analyze_bundle(), a
 * second decode) and sum the totals along the call stacks counted while
 * the graph was built (lsa_cpi_chains());
 * need_samples: a bundle without samples is an error (else its exact
 * executions are all there is).  Returns 0, or -1 after printing the
 * error (git's rule for cli helpers). */
int cli_cpi_open(struct cli_cpi *c, const char *file, const char *debug_dir,
		 int no_skid_fix, int want_loops, int need_samples);
void cli_cpi_close(struct cli_cpi *c);

/* The sampled-CPI records `report --cpi` and `annotate` print: of the
 * profile file (analyze --cpi), or of the bundle file analyzed on the
 * fly as analyze --cpi [--no-skid-fix] analyzes it, so both print the
 * same bytes.  A profile analyzed with the other skid rule is refused;
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

/* Name of cfg function f ("name", else "module+0xoff"), in buf. */
const char *cli_cpi_func_name(const struct cli_cpi *c, uint32_t f, char *buf,
			      size_t len);
/* Share of x in all, in percent (0 when all is 0). */
double cli_cpi_pct(double x, double all);

#endif
