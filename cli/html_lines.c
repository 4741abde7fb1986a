/* html_lines.c - the source lines of every loop, with their executions
 * and sampled cost, from a bundle's executed instructions (analysis/
 * cpi.h) for the HTML report.  Profiles hold no instruction counts, so a
 * report made from a profile has no lines. */
#include <stdlib.h>
#include <string.h>

#include "cli/cpi_util.h"
#include "cli/html.h"
#include "ls_buf.h"
#include "ls_err.h"

/* File and line of one executed instruction. */
struct insn_line {
	uint32_t file, line;	/* file UINT32_MAX: unknown */
};

static int cmp_line(const void *a, const void *b)
{
	const struct html_line *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t file_index(struct html_lines *hl, const char *path)
{
	char **nf;
	size_t i;

	for (i = 0; i < hl->nfiles; i++)	/* a handful of files per program */
		if (!strcmp(hl->files[i], path))
			return (uint32_t)i;
	nf = realloc(hl->files, (hl->nfiles + 1) * sizeof(*nf));
	if (!nf)
		return UINT32_MAX - 1;
	hl->files = nf;
	if (!(nf[hl->nfiles] = strdup(path)))
		return UINT32_MAX - 1;
	return (uint32_t)hl->nfiles++;
}

/* The line of every executed instruction, looked up once. */
static int insn_lines(struct html_lines *hl, const struct cli_cpi *c,
		      struct insn_line **out)
{
	size_t i, n = lsa_cpi_ninsns(c->cpi);
	struct insn_line *il = malloc((n + 1) * sizeof(*il));

	if (!il)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct lsa_cpi_insn *in = lsa_cpi_insn(c->cpi, i);
		struct lsd_symbol_info si;

		il[i].file = UINT32_MAX;
		il[i].line = 0;
		if (lsd_symbols_lookup(c->cc.sym, in->module, in->off, 1, &si) < 0 ||
		    !si.file || si.line <= 0)
			continue;
		il[i].file = file_index(hl, si.file);
		if (il[i].file == UINT32_MAX - 1) {
			free(il);
			return -LS_ENOMEM;
		}
		il[i].line = (uint32_t)si.line;
	}
	*out = il;
	return 0;
}

/* Appends the lines of profile loop pl (cpi loop k) to hl->rows, whose
 * capacity is *cap: rows[row0[pl] .. row0[pl + 1]). */
static int loop_lines(struct html_lines *hl, const struct cli_cpi *c,
		      const struct insn_line *il, size_t pl, size_t k, size_t *cap)
{
	const struct lsa_cpi_loop *l = lsa_cpi_loop(c->cpi, k);
	size_t b, j, first, n, start = hl->row0[pl], at, w, *end = &hl->row0[pl + 1];

	for (b = 0; b < l->nblocks; b++) {
		n = lsa_cpi_block_insns(c->cpi, l->blocks[b], &first);
		for (j = first; j < first + n; j++) {
			const struct lsa_cpi_insn *in = lsa_cpi_insn(c->cpi, j);
			struct html_line *r;

			if (il[j].file == UINT32_MAX)
				continue;
			if (LS_GROW(hl->rows, *end + 1, *cap, 1024))
				return -LS_ENOMEM;
			r = &hl->rows[(*end)++];
			r->file = il[j].file;
			r->line = il[j].line;
			r->execs = in->execs;
			r->insns = in->execs;
			r->cost = in->cost;
		}
	}
	/* One row per line: sort the instructions' rows and sum them. */
	n = *end - start;
	qsort(hl->rows + start, n, sizeof(*hl->rows), cmp_line);
	for (at = start, w = start; at < start + n; at++) {
		struct html_line *r = &hl->rows[at];

		if (w > start && !cmp_line(&hl->rows[w - 1], r)) {
			struct html_line *q = &hl->rows[w - 1];

			q->insns += r->insns;
			q->cost += r->cost;
			if (r->execs > q->execs)
				q->execs = r->execs;
		} else {
			hl->rows[w++] = *r;
		}
	}
	*end = w;
	return 0;
}

int html_lines_new(struct html_lines *hl, const struct cli_cpi *c)
{
	const struct lsp_profile *p = c->prof;
	struct insn_line *il = NULL;
	size_t *cpi_of, k, cap = 0;
	int err;

	memset(hl, 0, sizeof(*hl));
	hl->row0 = calloc(p->n_loops + 1, sizeof(*hl->row0));
	hl->cost_self = calloc(p->n_loops + 1, sizeof(*hl->cost_self));
	hl->cost_total = calloc(p->n_loops + 1, sizeof(*hl->cost_total));
	cpi_of = malloc((p->n_loops + 1) * sizeof(*cpi_of));
	if (!hl->row0 || !hl->cost_self || !hl->cost_total || !cpi_of || (err = insn_lines(hl, c, &il)) < 0) {
		free(cpi_of);
		html_lines_free(hl);
		return -LS_ENOMEM;
	}
	/* The first c->ndyn cpi loops are the profile's, in c->dyn_loop. */
	for (k = 0; k < p->n_loops; k++)
		cpi_of[k] = SIZE_MAX;
	for (k = 0; k < c->ndyn; k++) {
		const struct lsa_cpi_loop *l = lsa_cpi_loop(c->cpi, k);

		cpi_of[c->dyn_loop[k]] = k;
		hl->cost_self[c->dyn_loop[k]] = l->self.cost;
		hl->cost_total[c->dyn_loop[k]] = l->total.cost;
	}
	err = 0;
	hl->nloops = p->n_loops;
	for (k = 0; k < p->n_loops && !err; k++) {
		hl->row0[k + 1] = hl->row0[k];
		if (cpi_of[k] != SIZE_MAX)
			err = loop_lines(hl, c, il, k, cpi_of[k], &cap);
	}
	free(il);
	free(cpi_of);
	if (err) {
		html_lines_free(hl);
		return err;
	}
	if (c->st.samples) {
		hl->unit = lsa_cpi_unit_name(c->st.unit);
		hl->cost_all = c->st.cost_attributed;
	}
	return 0;
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
