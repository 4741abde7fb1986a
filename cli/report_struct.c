/* report_struct.c - `loopscope report --structural`: the structural loops
 * of the executed CFG (analysis/sloops.h) beside the loop detector's,
 * from one decode of a bundle (analysis/loopcmp.h says how they are
 * paired and why they may differ). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loopcmp.h"
#include "analysis/loops.h"
#include "analysis/sloops.h"
#include "cli.h"
#include "cli/cfg_util.h"
#include "cli/report.h"
#include "decoder/symbols.h"
#include "formats/profile.h"
#include "formats/profile_view.h"
#include "ls_err.h"

struct st_ctx {
	FILE *f;
	struct cli_cfg cc;
	struct lsp_profile *p;
	struct lsp_view *v;
	struct lsa_sloops *s;
	struct lsa_cmp *rows;
	size_t nrows;
	uint64_t total;
	const struct report_struct_opts *o;
};

static double pct(const struct st_ctx *x, uint64_t n)
{
	return x->total ? 100.0 * (double)n / (double)x->total : 0.0;
}

/* "function+0xoff" and "file:line" of static block id. */
static void where(struct st_ctx *x, uint32_t id, char *fn, size_t fl,
		  char *src, size_t sl)
{
	const struct lsa_cfg_block *b = lsa_cfg_block(x->cc.cfg, id);
	struct lsd_symbol_info info;

	snprintf(fn, fl, "?");
	snprintf(src, sl, "-");
	if (!b || !b->sb)
		return;
	if (b->sb->module < 0 || !x->cc.sym ||
	    lsd_symbols_lookup(x->cc.sym, b->sb->module, b->sb->mod_off, 1, &info) < 0) {
		snprintf(fn, fl, "0x%" PRIx64, b->sb->start);
		return;
	}
	if (info.function)
		snprintf(fn, fl, "%s+0x%" PRIx64, info.function, info.func_off);
	else
		snprintf(fn, fl, "%s+0x%" PRIx64, report_base(info.module), info.vaddr);
	if (info.file)
		snprintf(src, sl, "%s:%d", report_base(info.file), info.line);
}

/* A detected loop without a structural twin, above --min-percent. */
static int dyn_only_shown(const struct st_ctx *x, const struct lsa_cmp *c)
{
	return c->kind == LSA_CMP_NO_STRUCTURAL &&
	       pct(x, x->v->loops[c->loop].total) >= x->o->min_pct;
}

static void dyn_text(const struct lsa_cmp *c, char *buf, size_t len)
{
	switch (c->kind) {
	case LSA_CMP_SAME:
		snprintf(buf, len, "= loop %u", c->loop);
		break;
	case LSA_CMP_COUNTS:
		snprintf(buf, len, "loop %u: %" PRIu64 " iterations, %" PRIu64
			 " entries", c->loop, c->d_iterations, c->d_entries);
		break;
	case LSA_CMP_INNER:
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
	size_t i, n, shown = 0;

	fprintf(x->f, "Structural loops of %s: %" PRIu64 " instructions, merge "
		"threshold T=%g; loops with >= %.2f%% coverage\n", x->o->source,
		x->total, x->o->merge_t, x->o->min_pct);
	fprintf(x->f, "%-32s %-22s %5s %5s %6s %11s %11s %9s %12s %12s %8s  %s\n",
		"header", "source", "depth", "tails", "static", "iterations",
		"invocations", "iter/inv", "self", "total", "cover%", "dynamic loop");
	for (i = 0; i < x->nrows; i++) {
		const struct lsa_cmp *c = &x->rows[i];
		const struct lsa_sloop *sl;

		if (c->sloop == LSA_SLOOP_NONE)
			continue;
		sl = lsa_sloops_get(x->s, c->sloop);
		if (sl->coverage < x->o->min_pct)
			continue;
		where(x, sl->header, fn, sizeof(fn), src, sizeof(src));
		dyn_text(c, dyn, sizeof(dyn));
		fprintf(x->f, "%-32s %-22s %5u %5u %6" PRIu64 " %11" PRIu64 " %11" PRIu64
			" %9.2f %12" PRIu64 " %12" PRIu64 " %8.2f  %s\n", fn, src,
			sl->depth, sl->ntails, sl->static_insns, sl->iterations,
			sl->invocations, sl->iters_per_inv, sl->self_insns,
			sl->total_insns, sl->coverage, dyn);
		shown++;
	}
	if (!shown)
		fprintf(x->f, "(none)\n");
	fprintf(x->f, "\nDynamic loops whose head is no structural header:\n");
	for (i = shown = 0; i < x->nrows; i++) {
		const struct lsa_cmp *c = &x->rows[i];
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
	n = lsa_sloops_nirreducible(x->s);
	fprintf(x->f, "\nIrreducible regions (cycles with more than one entry, no loop):\n");
	for (i = shown = 0; i < n; i++) {
		const struct lsa_sloop_irr *ir = lsa_sloops_irreducible(x->s, i);
		uint32_t k;

		if (pct(x, ir->insns) < x->o->min_pct)
			continue;
		fprintf(x->f, "  %u blocks, %.2f%% of the instructions, entered at",
			ir->nblocks, pct(x, ir->insns));
		for (k = 0; k < ir->nentries; k++) {
			where(x, ir->entries[k], fn, sizeof(fn), src, sizeof(src));
			fprintf(x->f, " %s (%s)", fn, src);
		}
		fputc('\n', x->f);
		shown++;
	}
	if (!shown)
		fprintf(x->f, "  (none)\n");
	return 0;
}

static int print_json(struct st_ctx *x)
{
	char fn[256], src[256];
	size_t i, n, k;
	int first = 1;

	fprintf(x->f, "{\"source\": ");
	report_json_str(x->f, x->o->source);
	fprintf(x->f, ", \"total_instructions\": %" PRIu64 ", \"merge_threshold\": %g,"
		" \"loops\": [", x->total, x->o->merge_t);
	for (i = 0; i < x->nrows; i++) {
		const struct lsa_cmp *c = &x->rows[i];
		const struct lsa_sloop *sl;
		const struct lsa_cfg_block *h;

		if (c->sloop == LSA_SLOOP_NONE)
			continue;
		sl = lsa_sloops_get(x->s, c->sloop);
		if (sl->coverage < x->o->min_pct)
			continue;
		h = lsa_cfg_block(x->cc.cfg, sl->header);
		where(x, sl->header, fn, sizeof(fn), src, sizeof(src));
		fprintf(x->f, "%s\n  {\"id\": %zu, \"header\": ", first ? "" : ",", (size_t)c->sloop);
		report_json_str(x->f, fn);
		fprintf(x->f, ", \"header_offset\": \"0x%" PRIx64 "\", \"source\": ",
			h && h->sb ? h->sb->mod_off : 0);
		report_json_str(x->f, src);
		fprintf(x->f, ", \"parent\": ");
		if (sl->parent == LSA_SLOOP_NONE)
			fprintf(x->f, "null");
		else
			fprintf(x->f, "%u", sl->parent);
		fprintf(x->f, ", \"depth\": %u, \"tails\": [", sl->depth);
		for (k = 0; k < sl->ntails; k++)
			fprintf(x->f, "%s{\"block\": %u, \"count\": %" PRIu64 "}",
				k ? ", " : "", sl->tails[k], sl->tail_counts[k]);
		fprintf(x->f, "], \"static_instructions\": %" PRIu64 ", \"iterations\": %"
			PRIu64 ", \"invocations\": %" PRIu64 ", \"iterations_per_invocation\": %.4f,"
			" \"self_instructions\": %" PRIu64 ", \"total_instructions\": %" PRIu64
			", \"coverage\": %.4f, \"dynamic\": {\"match\": \"%s\", \"loop\": ",
			sl->static_insns, sl->iterations, sl->invocations, sl->iters_per_inv,
			sl->self_insns, sl->total_insns, sl->coverage,
			lsa_cmp_kind_name(c->kind));
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
		const struct lsa_cmp *c = &x->rows[i];
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
	n = lsa_sloops_nirreducible(x->s);
	for (i = 0, first = 1; i < n; i++) {
		const struct lsa_sloop_irr *ir = lsa_sloops_irreducible(x->s, i);

		if (pct(x, ir->insns) < x->o->min_pct)
			continue;
		fprintf(x->f, "%s\n  {\"blocks\": %u, \"instructions\": %" PRIu64 ", \"entries\": [",
			first ? "" : ",", ir->nblocks, ir->insns);
		for (k = 0; k < ir->nentries; k++) {
			where(x, ir->entries[k], fn, sizeof(fn), src, sizeof(src));
			fprintf(x->f, "%s", k ? ", " : "");
			report_json_str(x->f, fn);
		}
		fprintf(x->f, "]}");
		first = 0;
	}
	fprintf(x->f, "\n]}\n");
	return 0;
}

int report_structural(FILE *f, const char *file, const char *debug_dir,
		      const struct report_struct_opts *o)
{
	struct lsa_sloops_opts so = { .size = sizeof(so), .merge_t = o->merge_t };
	struct st_ctx x;
	size_t i;
	int err;

	memset(&x, 0, sizeof(x));
	x.f = f;
	x.o = o;
	if (lsp_new(&x.p, 0) < 0) {
		cli_error("out of memory");
		return -1;
	}
	if (cli_cfg_open_loops(&x.cc, file, debug_dir, x.p)) {
		lsp_free(x.p);
		return -1;
	}
	err = lsa_sloops_find(&x.s, x.cc.cfg, &so);
	if (!err)
		err = lsp_view_new(&x.v, x.p, LSP_VIEW_ALL);
	if (!err)
		err = lsa_cmp_loops(x.cc.cfg, x.s, x.v, x.cc.r, &x.rows, &x.nrows);
	if (!err) {
		for (i = 0; i < x.p->n_threads; i++)
			x.total += x.p->threads[i].insns;
		err = o->json ? print_json(&x) : print_text(&x);
	}
	if (err < 0)
		cli_error("cannot report '%s': %s", file, ls_errstr(err));
	free(x.rows);
	lsp_view_free(x.v);
	lsa_sloops_free(x.s);
	cli_cfg_close(&x.cc);
	lsp_free(x.p);
	return err < 0 ? -1 : 0;
}
