/* report_struct.c - `loopscope report --structural`: the structural loops
 * of the executed CFG (analysis/sloops.h) beside the loop detector's, as
 * `analyze --structural` put them into the profile (analysis/sview.h;
 * analysis/loopcmp.h says how they are paired and why they may differ). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sview.h"
#include "cli.h"
#include "cli/report.h"
#include "formats/profile.h"
#include "formats/profile_view.h"
#include "ls_err.h"

/* A row: a structural loop (sloop set) or a detected loop without a
 * structural twin (sloop LSP_NONE, dynamic-only). */
struct st_row {
	uint32_t sloop, loop;
	uint64_t d_iterations, d_entries;
};

struct st_ctx {
	FILE *f;
	struct lsp_profile *p;
	struct lsp_view *v;
	struct st_row *rows;
	size_t nrows;
	size_t *tail0, *entry0;	/* per loop / region: its first stail / sentry */
	uint64_t total;
	const struct report_struct_opts *o;
};

static double pct(const struct st_ctx *x, uint64_t n)
{
	return x->total ? 100.0 * (double)n / (double)x->total : 0.0;
}

/* A detected loop without a structural twin, above --min-percent. */
static int dyn_only_shown(const struct st_ctx *x, const struct st_row *c)
{
	return c->sloop == LSP_NONE && pct(x, x->v->loops[c->loop].total) >= x->o->min_pct;
}

static void dyn_text(const struct lsp_sloop *sl, const struct st_row *c,
		     char *buf, size_t len)
{
	switch (sl->match) {
	case LSP_SM_SAME:
		snprintf(buf, len, "= loop %u", c->loop);
		break;
	case LSP_SM_COUNTS:
		snprintf(buf, len, "loop %u: %" PRIu64 " iterations, %" PRIu64
			 " entries", c->loop, c->d_iterations, c->d_entries);
		break;
	case LSP_SM_INNER:
		if (c->loop != LSP_NONE)
			snprintf(buf, len, "inner: one loop (%u) for the header", c->loop);
		else
			snprintf(buf, len, "inner: one loop for the header");
		break;
	default:
		snprintf(buf, len, "none: never looped in one frame");
		break;
	}
}

static int print_text(struct st_ctx *x)
{
	char fn[256], src[256], dyn[128];
	size_t i, k, shown = 0;

	fprintf(x->f, "Structural loops of %s: %" PRIu64 " instructions, merge "
		"threshold T=%g; loops with >= %.2f%% coverage\n", x->o->source,
		x->total, x->p->smerge_t, x->o->min_pct);
	fprintf(x->f, "%-32s %-22s %5s %5s %6s %11s %11s %9s %12s %12s %8s  %s\n",
		"header", "source", "depth", "tails", "static", "iterations",
		"invocations", "iter/inv", "self", "total", "cover%", "dynamic loop");
	for (i = 0; i < x->nrows; i++) {
		const struct st_row *c = &x->rows[i];
		const struct lsp_sloop *sl;

		if (c->sloop == LSP_NONE)
			continue;
		sl = &x->p->sloops[c->sloop];
		if (sl->coverage < x->o->min_pct)
			continue;
		dyn_text(sl, c, dyn, sizeof(dyn));
		fprintf(x->f, "%-32s %-22s %5u %5zu %6" PRIu64 " %11" PRIu64 " %11" PRIu64
			" %9.2f %12" PRIu64 " %12" PRIu64 " %8.2f  %s\n", sl->where, sl->src,
			sl->depth, x->tail0[c->sloop + 1] - x->tail0[c->sloop],
			sl->static_insns, sl->iterations, sl->invocations, sl->iters_per_inv,
			sl->self, sl->total, sl->coverage, dyn);
		shown++;
	}
	if (!shown)
		fprintf(x->f, "(none)\n");
	fprintf(x->f, "\nDynamic loops whose head is no structural header:\n");
	for (i = shown = 0; i < x->nrows; i++) {
		const struct st_row *c = &x->rows[i];
		const struct lsp_view_loop *vl;

		if (!dyn_only_shown(x, c))
			continue;
		vl = &x->v->loops[c->loop];
		fprintf(x->f, "  loop %u in %s at %s: %" PRIu64 " iterations, %" PRIu64
			" entries, %.2f%% total\n", c->loop,
			report_func_name(x->p, x->p->loops[c->loop].func, fn, sizeof(fn)),
			report_loop_where(x->p, c->loop, src, sizeof(src)), vl->iterations,
			vl->entries, pct(x, vl->total));
		shown++;
	}
	if (!shown)
		fprintf(x->f, "  (none)\n");
	fprintf(x->f, "\nIrreducible regions (cycles with more than one entry, no loop):\n");
	for (i = shown = 0; i < x->p->n_sirrs; i++) {
		const struct lsp_sirr *ir = &x->p->sirrs[i];

		if (pct(x, ir->insns) < x->o->min_pct)
			continue;
		fprintf(x->f, "  %u blocks, %.2f%% of the instructions, entered at",
			ir->nblocks, pct(x, ir->insns));
		for (k = x->entry0[i]; k < x->entry0[i + 1]; k++)
			fprintf(x->f, " %s (%s)", x->p->sentries[k].where, x->p->sentries[k].src);
		fputc('\n', x->f);
		shown++;
	}
	if (!shown)
		fprintf(x->f, "  (none)\n");
	return 0;
}

static int print_json(struct st_ctx *x)
{
	char fn[256];
	size_t i, k;
	int first = 1;

	fprintf(x->f, "{\"source\": ");
	report_json_str(x->f, x->o->source);
	fprintf(x->f, ", \"total_instructions\": %" PRIu64 ", \"merge_threshold\": %g,"
		" \"loops\": [", x->total, x->p->smerge_t);
	for (i = 0; i < x->nrows; i++) {
		const struct st_row *c = &x->rows[i];
		const struct lsp_sloop *sl;

		if (c->sloop == LSP_NONE)
			continue;
		sl = &x->p->sloops[c->sloop];
		if (sl->coverage < x->o->min_pct)
			continue;
		fprintf(x->f, "%s\n  {\"id\": %zu, \"header\": ", first ? "" : ",",
			(size_t)c->sloop);
		report_json_str(x->f, sl->where);
		fprintf(x->f, ", \"header_offset\": \"0x%" PRIx64 "\", \"source\": ",
			sl->head_off);
		report_json_str(x->f, sl->src);
		fprintf(x->f, ", \"parent\": ");
		if (sl->parent == LSP_NONE)
			fprintf(x->f, "null");
		else
			fprintf(x->f, "%u", sl->parent);
		fprintf(x->f, ", \"depth\": %u, \"tails\": [", sl->depth);
		for (k = x->tail0[c->sloop]; k < x->tail0[c->sloop + 1]; k++)
			fprintf(x->f, "%s{\"block\": %u, \"count\": %" PRIu64 "}",
				k > x->tail0[c->sloop] ? ", " : "", x->p->stails[k].block,
				x->p->stails[k].count);
		fprintf(x->f, "], \"static_instructions\": %" PRIu64 ", \"iterations\": %"
			PRIu64 ", \"invocations\": %" PRIu64 ", \"iterations_per_invocation\": %.4f,"
			" \"self_instructions\": %" PRIu64 ", \"total_instructions\": %" PRIu64
			", \"coverage\": %.4f, \"dynamic\": {\"match\": \"%s\", \"loop\": ",
			sl->static_insns, sl->iterations, sl->invocations, sl->iters_per_inv,
			sl->self, sl->total, sl->coverage, lsp_smatch_name(sl->match));
		if (c->loop == LSP_NONE)
			fprintf(x->f, "null");
		else
			fprintf(x->f, "%u", c->loop);
		fprintf(x->f, ", \"iterations\": %" PRIu64 ", \"entries\": %" PRIu64 "}}",
			c->d_iterations, c->d_entries);
		first = 0;
	}
	fprintf(x->f, "\n], \"dynamic_only\": [");
	for (i = 0, first = 1; i < x->nrows; i++) {
		const struct st_row *c = &x->rows[i];
		const struct lsp_view_loop *vl;

		if (!dyn_only_shown(x, c))
			continue;
		vl = &x->v->loops[c->loop];
		fprintf(x->f, "%s\n  {\"loop\": %u, \"function\": ", first ? "" : ",", c->loop);
		report_json_str(x->f, report_func_name(x->p, x->p->loops[c->loop].func,
						       fn, sizeof(fn)));
		fprintf(x->f, ", \"head_offset\": \"0x%" PRIx64 "\", \"iterations\": %" PRIu64
			", \"entries\": %" PRIu64 ", \"total_instructions\": %" PRIu64 "}",
			x->p->loops[c->loop].head_off, vl->iterations, vl->entries, vl->total);
		first = 0;
	}
	fprintf(x->f, "\n], \"irreducible\": [");
	for (i = 0, first = 1; i < x->p->n_sirrs; i++) {
		const struct lsp_sirr *ir = &x->p->sirrs[i];

		if (pct(x, ir->insns) < x->o->min_pct)
			continue;
		fprintf(x->f, "%s\n  {\"blocks\": %u, \"instructions\": %" PRIu64 ", \"entries\": [",
			first ? "" : ",", ir->nblocks, ir->insns);
		for (k = x->entry0[i]; k < x->entry0[i + 1]; k++) {
			fprintf(x->f, "%s", k > x->entry0[i] ? ", " : "");
			report_json_str(x->f, x->p->sentries[k].where);
		}
		fprintf(x->f, "]}");
		first = 0;
	}
	fprintf(x->f, "\n]}\n");
	return 0;
}

/* The rows, as analysis/loopcmp.h pairs them: one per structural loop
 * in the profile's order, then one per detected loop no structural loop
 * matched; and where each loop's back edges and each region's entries
 * start.  Returns 0 or -LS_ENOMEM. */
static int make_rows(struct st_ctx *x)
{
	const struct lsp_profile *p = x->p;
	uint8_t *matched = calloc(p->n_loops + 1, 1);
	size_t i;

	x->rows = calloc(p->n_sloops + p->n_loops + 1, sizeof(*x->rows));
	x->tail0 = calloc(p->n_sloops + 2, sizeof(*x->tail0));
	x->entry0 = calloc(p->n_sirrs + 2, sizeof(*x->entry0));
	if (!matched || !x->rows || !x->tail0 || !x->entry0) {
		free(matched);
		return -LS_ENOMEM;
	}
	for (i = 0; i < p->n_sloops; i++) {
		const struct lsp_sloop *sl = &p->sloops[i];
		struct st_row *c = &x->rows[x->nrows++];

		c->sloop = (uint32_t)i;
		c->loop = sl->loop;
		if (sl->match == LSP_SM_SAME || sl->match == LSP_SM_COUNTS) {
			matched[sl->loop] = 1;
			c->d_iterations = x->v->loops[sl->loop].iterations;
			c->d_entries = x->v->loops[sl->loop].entries;
		}
	}
	for (i = 0; i < p->n_loops; i++) {
		struct st_row *c;

		if (!x->v->loops[i].seen || matched[i])
			continue;
		c = &x->rows[x->nrows++];
		c->sloop = LSP_NONE;
		c->loop = (uint32_t)i;
		c->d_iterations = x->v->loops[i].iterations;
		c->d_entries = x->v->loops[i].entries;
	}
	free(matched);
	/* the rows of both are by loop / region (the reader checks it) */
	for (i = 0; i < p->n_stails; i++)
		x->tail0[p->stails[i].sloop + 1]++;
	for (i = 0; i < p->n_sloops; i++)
		x->tail0[i + 1] += x->tail0[i];
	for (i = 0; i < p->n_sentries; i++)
		x->entry0[p->sentries[i].irr + 1]++;
	for (i = 0; i < p->n_sirrs; i++)
		x->entry0[i + 1] += x->entry0[i];
	return 0;
}

int report_structural_profile(FILE *f, struct lsp_profile *p,
			      const struct report_struct_opts *o)
{
	struct st_ctx x;
	size_t i;
	int err;

	memset(&x, 0, sizeof(x));
	x.f = f;
	x.o = o;
	x.p = p;
	err = lsp_view_new(&x.v, p, LSP_VIEW_ALL);
	if (!err)
		err = make_rows(&x);
	if (!err) {
		for (i = 0; i < p->n_threads; i++)
			x.total += p->threads[i].insns;
		err = o->json ? print_json(&x) : print_text(&x);
	}
	if (err < 0)
		cli_error("cannot report '%s': %s", o->source, ls_errstr(err));
	free(x.rows);
	free(x.tail0);
	free(x.entry0);
	lsp_view_free(x.v);
	return err < 0 ? -1 : 0;
}

int report_structural(FILE *f, const char *file, const char *debug_dir,
		      const struct report_struct_opts *o)
{
	struct cli_analyses ca = { .structural = 1, .merge_t = o->merge_t };
	struct report_struct_opts so = *o;
	struct lsp_profile *p = NULL;
	int r = lsp_is_profile(file), err;

	if (r == 1) {
		if (cli_load_profile(file, debug_dir, &p) < 0)
			return -1;
		/* found from the graph records (a merge of analyze --cfg runs)
		 * where the profile has none, or none of this threshold */
		if (p->has_cgraph && (!p->has_sview || (o->merge_t > 0 &&
						       o->merge_t != p->smerge_t)) &&
		    (err = lsa_sview_put(p, o->merge_t)) < 0) {
			cli_error("cannot find the structural loops of '%s': %s", file,
				  ls_errstr(err));
			lsp_free(p);
			return -1;
		}
		if (!p->has_sview) {
			cli_error("'%s' holds no structural loops: run 'loopscope analyze "
				  "--structural' on its bundle, or report the bundle", file);
			lsp_free(p);
			return -1;
		}
		if (o->merge_t > 0 && o->merge_t != p->smerge_t) {
			cli_error("'%s' holds the structural loops of merge threshold %g, not "
				  "%g: analyze the bundle with --merge-threshold=%g, or report "
				  "the bundle", file, p->smerge_t, o->merge_t, o->merge_t);
			lsp_free(p);
			return -1;
		}
	} else if (r == 0) {
		/* a bundle: analyzed on the fly, then read as a profile */
		if (cli_analyze_bundle_with(file, debug_dir, &ca, &p) < 0)
			return -1;
	} else {
		return cli_load_profile(file, debug_dir, &p);	/* says why */
	}
	/* the bundle the profile was made of, as a report of it says */
	if (p->source && *p->source)
		so.source = p->source;
	err = report_structural_profile(f, p, &so);
	lsp_free(p);
	return err;
}
