/* probes_plan.h - `loopscope probes --plan`: Eichenberger and Lobo's
 * edge-profiling plans (analysis/plan.h) printed as text, JSON or CSV. */
#ifndef LS_CLI_PROBES_PLAN_H
#define LS_CLI_PROBES_PLAN_H

#include "analysis/plan.h"
#include "cli/cfg_util.h"

enum { CLI_PLAN_TEXT = 0, CLI_PLAN_JSON, CLI_PLAN_CSV };

struct cli_plan_opts {
	int format;			/* CLI_PLAN_* */
	int quiet;			/* text: the program's table only */
	const char *function;		/* only this function, NULL: all */
	struct lsa_plan_costs costs;
};

/* Prints the plans of the opened bundle cc (named file).  Returns the
 * exit status: 0, or 1 when a count is not reconstructed, flow is not
 * conserved or an error was printed. */
int cli_probes_plan(struct cli_cfg *cc, const char *file,
		    const struct cli_plan_opts *o);

#endif
