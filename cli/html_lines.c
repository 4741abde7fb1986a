/* html_lines.c - the source lines of every loop, with their executions
 * and sampled cost, for the HTML report: the cpisrc and cpiline records
 * of a profile from `analyze --cpi` (analysis/cpiview.h), or of a bundle
 * analyzed so on the fly.  A profile without them has no lines. */
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "cli/html.h"
#include "ls_err.h"

int html_lines_new(struct html_lines *hl, const struct lsp_profile *p)
{
	size_t i;

	memset(hl, 0, sizeof(*hl));
	if (!p->has_cpi)
		return 0;
	hl->nloops = p->n_loops;
	hl->row0 = calloc(p->n_loops + 1, sizeof(*hl->row0));
	hl->cost_self = calloc(p->n_loops + 1, sizeof(*hl->cost_self));
	hl->cost_total = calloc(p->n_loops + 1, sizeof(*hl->cost_total));
	hl->files = calloc(p->n_cpisrcs + 1, sizeof(*hl->files));
	hl->rows = malloc((p->n_cpilines + 1) * sizeof(*hl->rows));
	if (!hl->row0 || !hl->cost_self || !hl->cost_total || !hl->files || !hl->rows)
		goto nomem;
	for (i = 0; i < p->n_cpisrcs; i++, hl->nfiles++)
		if (!(hl->files[i] = strdup(p->cpisrcs[i])))
			goto nomem;
	/* rows by loop (the reader checks it): row0 counts, then sums */
	for (i = 0; i < p->n_cpilines; i++) {
		const struct lsp_cpiline *l = &p->cpilines[i];

		hl->rows[i] = (struct html_line){ l->src, l->line, l->execs, l->insns,
						  l->cost };
		hl->row0[l->loop + 1]++;
	}
	for (i = 0; i < p->n_loops; i++)
		hl->row0[i + 1] += hl->row0[i];
	for (i = 0; i < p->n_cpiloops; i++) {
		const struct lsp_cpiloop *l = &p->cpiloops[i];

		if (l->loop == LSP_NONE)
			continue;
		hl->cost_self[l->loop] = l->self.cost;
		hl->cost_total[l->loop] = l->total.cost;
	}
	if (p->cpi.samples) {
		hl->unit = lsp_cpi_unit_name(p->cpi.unit);
		hl->cost_all = p->cpi.cost_attributed;
	}
	return 0;
nomem:
	html_lines_free(hl);
	return -LS_ENOMEM;
}

void html_lines_free(struct html_lines *hl)
{
	size_t i;

	for (i = 0; i < hl->nfiles; i++)
		free(hl->files[i]);
	free(hl->files);
	free(hl->rows);
	free(hl->row0);
	free(hl->cost_self);
	free(hl->cost_total);
	memset(hl, 0, sizeof(*hl));
}
