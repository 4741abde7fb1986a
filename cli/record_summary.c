/* record_summary.c - how `loopscope record` ends: what to run next and,
 * for a person at a terminal whose recording is small enough to analyze
 * in well under a second, its top loops right away. */
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "cli/record_summary.h"
#include "cli/report.h"
#include "cli/term.h"
#include "formats/profile.h"

/* About 2 s of analysis at the slowest rate measured (README). */
#define SUMMARY_MAX_PT (4u << 20)

static void top_loops(const char *bundle)
{
	struct lsp_profile *p = NULL;
	struct lsp_view *v = NULL;
	uint32_t *order = NULL;
	char where[512], fb[256];
	int n, i;

	if (cli_analyze_bundle(bundle, NULL, &p) < 0)
		return;
	if (lsp_view_new(&v, p, LSP_VIEW_ALL) >= 0 &&
	    (n = lsp_view_sorted_loops(v, &order)) >= 0) {
		fprintf(stderr, "%stop loops%s of %" PRIu64 " instructions (%% total, self):\n",
			cli_color(stderr, "bold"), cli_color(stderr, "off"), v->total_insns);
		for (i = 0; i < n && i < 5; i++) {
			const struct lsp_view_loop *l = &v->loops[order[i]];

			fprintf(stderr, "  %s%6.2f%%%s %6.2f%%  loop %" PRIu32 "  %s  %s\n",
				cli_color(stderr, "hot"), lsp_view_pct(v, l->total),
				cli_color(stderr, "off"), lsp_view_pct(v, l->self), order[i],
				report_func_name(p, p->loops[order[i]].func, fb, sizeof(fb)),
				report_loop_where(p, order[i], where, sizeof(where)));
		}
		if (!n)
			fprintf(stderr, "  (no loops)\n");
	}
	free(order);
	lsp_view_free(v);
	lsp_free(p);
}

void cli_record_summary(const char *bundle, uint64_t pt_bytes)
{
	if (isatty(STDERR_FILENO) && pt_bytes <= SUMMARY_MAX_PT)
		top_loops(bundle);
	fprintf(stderr, "next: loopscope report %s   (or: loopscope html %s -o report.html)\n",
		bundle, bundle);
}
