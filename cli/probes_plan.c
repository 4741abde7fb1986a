/* probes_plan.c - `loopscope probes --plan`: per function and for the
 * program, which edges each spanning-tree weighting profiles, what every
 * placement scheme would cost on the recorded run, the best one, and the
 * check that each tree's counters give back every edge count. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cpi.h"
#include "cli.h"
#include "cli/probes_plan.h"
#include "cli/report.h"
#include "ls_err.h"

struct pp {
	struct cli_cfg *cc;
	const struct cli_plan_opts *o;
	double base;		/* instructions, or sampled cycles */
	const char *base_kind;	/* "instructions" or "cycles" */
	struct lsa_plan_table total;
	size_t nfuncs, nedges, mismatches;
	int first;		/* JSON: no comma before the next function */
};

static const char *func_name(const struct lsa_cfg *c, uint32_t fi, char *buf, size_t len)
{
	const struct lsa_cfg_func *f = lsa_cfg_func(c, fi);

	if (f->name)
		return f->name;
	snprintf(buf, len, "0x%" PRIx64, lsa_cfg_block(c, f->blocks[0])->sb->start);
	return buf;
}

/* A plan node as "func+0xoff" (its address without a symbol), or
 * "outside". */
static const char *node_name(const struct lsa_cfg *c, uint32_t fi, uint32_t v,
			     char *buf, size_t len)
{
	const struct lsa_cfg_func *f = lsa_cfg_func(c, fi);
	const struct lsa_cfg_block *b;

	if (v == 0)
		return "outside";
	b = lsa_cfg_block(c, f->blocks[v - 1]);
	if (f->name)
		snprintf(buf, len, "%s+0x%" PRIx64, f->name, b->sb->mod_off - f->start);
	else
		snprintf(buf, len, "0x%" PRIx64, b->sb->start);
	return buf;
}

static double pct(const struct pp *pp, double cycles)
{
	return pp->base > 0 ? 100.0 * cycles / pp->base : 0;
}

/* The divisor of the overhead: the sampled cycles when the bundle has
 * cycle samples, else the instructions the trace executed (one cycle
 * each, so the percentage is comparable across runs). */
static void baseline(struct pp *pp)
{
	struct lsa_cfg_stats st;
	struct lsa_cpi_opts co = { .size = sizeof(co) };
	struct lsa_cpi *cpi = NULL;

	lsa_cfg_get_stats(pp->cc->cfg, &st);
	pp->base = (double)st.insns;
	pp->base_kind = "instructions";
	if (!pp->cc->have_img)
		return;
	co.img = &pp->cc->img;
	if (lsa_cpi_new(&cpi, pp->cc->cfg, pp->cc->r, &co) >= 0) {
		struct lsa_cpi_stats cs;

		lsa_cpi_get_stats(cpi, &cs);
		if (cs.samples && cs.unit == LSA_CPI_CYCLES && cs.cost) {
			pp->base = (double)cs.cost;
			pp->base_kind = "cycles";
		}
	}
	lsa_cpi_free(cpi);
}

static void plan_label(char *buf, size_t len, int w, int s, int p)
{
	snprintf(buf, len, "%s %s%s", lsa_plan_weights_name(w), lsa_plan_scheme_name(s),
		 p ? "-swp" : "");
}

static void text_table(const struct pp *pp, const struct lsa_plan_table *t, const char *indent)
{
	int w, s, p, bw, bs, bp;
	char lab[64];

	printf("%s%-22s %8s %10s %12s %12s %14s %9s\n", indent, "plan", "profiled",
	       "new blocks", "counted", "executions", "cycles", "overhead");
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		for (s = 0; s < LSA_PLAN_NSCHEMES; s++)
			for (p = 0; p < LSA_PLAN_NPIPE; p++) {
				const struct lsa_plan_cost *r = &t->c[w][s][p];

				plan_label(lab, sizeof(lab), w, s, p);
				printf("%s%-22s %8" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
				       " %14.1f %8.3f%%\n", indent, lab, r->profiled, r->new_blocks,
				       r->counted, r->executions, r->cycles, pct(pp, r->cycles));
			}
	lsa_plan_best(t, 0, &bw, &bs, &bp);
	plan_label(lab, sizeof(lab), bw, bs, bp);
	printf("%sbest: %s, %.1f cycles, %.3f%%", indent, lab, t->c[bw][bs][bp].cycles,
	       pct(pp, t->c[bw][bs][bp].cycles));
	lsa_plan_best(t, 1, &bw, &bs, &bp);
	plan_label(lab, sizeof(lab), bw, bs, bp);
	printf(" (with exact weights: %s, %.1f cycles)\n", lab, t->c[bw][bs][bp].cycles);
}

static void text_func(struct pp *pp, const struct lsa_plan_func *pf)
{
	const struct lsa_cfg *c = pp->cc->cfg;
	char nb[256], a[256], b[256];
	int w, bw, bs, bp;
	size_t i;

	printf("function %s: %u blocks, %zu edges", func_name(c, pf->func, nb, sizeof(nb)),
	       pf->nnodes - 1, pf->nedges);
	if (!pp->o->function) {
		lsa_plan_best(&pf->cost, 0, &bw, &bs, &bp);
		plan_label(a, sizeof(a), bw, bs, bp);
		printf(", profiled %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
		       " (unit/guess/modified/exact), best %s %.1f cycles\n",
		       pf->cost.c[0][0][0].profiled, pf->cost.c[1][0][0].profiled,
		       pf->cost.c[2][0][0].profiled, pf->cost.c[3][0][0].profiled, a,
		       pf->cost.c[bw][bs][bp].cycles);
		return;
	}
	printf("\n  %-26s %-8s %12s %10s %10s  %s\n", "edge", "kind", "count", "guess",
	       "modified", "profiled by");
	for (i = 0; i < pf->nedges; i++) {
		const struct lsa_plan_edge *e = &pf->edges[i];
		char ed[600];

		snprintf(ed, sizeof(ed), "%s -> %s",
			 node_name(c, pf->func, e->from, a, sizeof(a)),
			 node_name(c, pf->func, e->to, b, sizeof(b)));
		printf("  %-26s %-8s %12" PRIu64 " %10.1f %10.1f ", ed,
		       lsa_cfg_kind_name(lsa_cfg_edge(c, e->cfg_edge)->kind), e->count,
		       e->guess, e->modified);
		for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
			if (e->probe[w])
				printf(" %s", lsa_plan_weights_name(w));
		printf("%s\n", e->instr ? "" : " (no probe can sit here)");
	}
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		printf("  tree %-8s: %" PRIu64 " profiled, %zu of %zu counts reconstructed\n",
		       lsa_plan_weights_name(w), pf->cost.c[w][0][0].profiled,
		       pf->reconstructed[w], pf->nedges);
	text_table(pp, &pf->cost,
		   "  ");
}

static void json_plans(const struct pp *pp, const struct lsa_plan_table *t)
{
	int w, s, p, k;

	printf("\"plans\": [");
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		for (s = 0; s < LSA_PLAN_NSCHEMES; s++)
			for (p = 0; p < LSA_PLAN_NPIPE; p++) {
				const struct lsa_plan_cost *r = &t->c[w][s][p];

				printf("%s\n  {\"weights\": \"%s\", \"scheme\": \"%s\", "
				       "\"pipelined\": %s, \"profiled\": %" PRIu64 ", \"new_blocks\": %"
				       PRIu64 ", \"counted\": %" PRIu64 ", \"executions\": %" PRIu64
				       ", \"cycles\": %.3f, \"percent\": %.6f}",
				       w || s || p ? "," : "", lsa_plan_weights_name(w),
				       lsa_plan_scheme_name(s), p ? "true" : "false", r->profiled,
				       r->new_blocks, r->counted, r->executions, r->cycles,
				       pct(pp, r->cycles));
			}
	printf("]");
	for (k = 0; k < 2; k++) {
		lsa_plan_best(t, k, &w, &s, &p);
		printf(", \"%s\": {\"weights\": \"%s\", \"scheme\": \"%s\", \"pipelined\": %s, "
		       "\"cycles\": %.3f}", k ? "best_exact" : "best", lsa_plan_weights_name(w),
		       lsa_plan_scheme_name(s), p ? "true" : "false", t->c[w][s][p].cycles);
	}
}

static void json_func(struct pp *pp, const struct lsa_plan_func *pf)
{
	const struct lsa_cfg *c = pp->cc->cfg;
	char nb[256];
	size_t i;
	int w;

	printf("%s\n{\"function\": ", pp->first ? "" : ",");
	pp->first = 0;
	report_json_str(stdout, func_name(c, pf->func, nb, sizeof(nb)));
	printf(", \"blocks\": %u, \"edges\": [", pf->nnodes - 1);
	for (i = 0; i < pf->nedges; i++) {
		const struct lsa_plan_edge *e = &pf->edges[i];

		printf("%s\n  {\"from\": ", i ? "," : "");
		report_json_str(stdout, node_name(c, pf->func, e->from, nb, sizeof(nb)));
		printf(", \"to\": ");
		report_json_str(stdout, node_name(c, pf->func, e->to, nb, sizeof(nb)));
		printf(", \"kind\": \"%s\", \"count\": %" PRIu64 ", \"guess\": %.3f, "
		       "\"modified\": %.3f, \"instrumentable\": %s, \"profiled\": [",
		       lsa_cfg_kind_name(lsa_cfg_edge(c, e->cfg_edge)->kind), e->count,
		       e->guess, e->modified, e->instr ? "true" : "false");
		for (w = 0, nb[0] = 0; w < LSA_PLAN_NWEIGHTS; w++)
			if (e->probe[w]) {
				printf("%s\"%s\"", nb[0] ? ", " : "", lsa_plan_weights_name(w));
				nb[0] = 1;
			}
		printf("]}");
	}
	printf("],\n \"trees\": {");
	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		printf("%s\"%s\": {\"profiled\": %" PRIu64 ", \"reconstructed\": %zu, "
		       "\"unplaceable\": %zu}", w ? ", " : "", lsa_plan_weights_name(w),
		       pf->cost.c[w][0][0].profiled, pf->reconstructed[w], pf->unplaceable[w]);
	printf("},\n ");
	json_plans(pp, &pf->cost);
	printf("}");
}

static void csv_rows(const struct pp *pp, const char *fname, int is_prog, const struct lsa_plan_table *t,
		     const size_t *recon, size_t nedges)
{
	int w, s, p;

	for (w = 0; w < LSA_PLAN_NWEIGHTS; w++)
		for (s = 0; s < LSA_PLAN_NSCHEMES; s++)
			for (p = 0; p < LSA_PLAN_NPIPE; p++) {
				const struct lsa_plan_cost *r = &t->c[w][s][p];

				if (is_prog)
					printf("(program)");
				else
					report_csv_str(stdout, fname);
				printf(",%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				       ",%.3f,%.6f,%zu,%zu\n", lsa_plan_weights_name(w),
				       lsa_plan_scheme_name(s), p ? "swp" : "plain", r->profiled,
				       r->new_blocks, r->counted, r->executions, r->cycles,
				       pct(pp, r->cycles), recon[w], nedges);
			}
}

static void on_violation(void *arg, const struct lsa_cfg_violation *v)
{
	(void)arg;
	cli_error("flow not conserved at block %u: in %" PRIu64 ", executed %" PRIu64
		  ", out %" PRIu64, v->block, v->in, v->count, v->out);
}

int cli_probes_plan(struct cli_cfg *cc, const char *file, const struct cli_plan_opts *o)
{
	struct pp pp;
	size_t fi, recon[LSA_PLAN_NWEIGHTS] = { 0 };
	int w, bad;
	char nb[256];

	memset(&pp, 0, sizeof(pp));
	pp.cc = cc, pp.o = o, pp.first = 1;
	baseline(&pp);
	if (o->format == CLI_PLAN_JSON)
		printf("{\"file\": "), report_json_str(stdout, file),
		printf(", \"baseline\": {\"unit\": \"%s\", \"value\": %.0f},\n"
		       " \"costs\": {\"probe_latency\": %g, \"update_latency\": %g, "
		       "\"swp_latency\": %g, \"issue_width\": %u},\n \"functions\": [",
		       pp.base_kind, pp.base, o->costs.probe_lat, o->costs.update_lat,
		       o->costs.swp_lat, o->costs.width);
	else if (o->format == CLI_PLAN_CSV)
		printf("function,weights,scheme,probes,profiled,new_blocks,counted,executions,"
		       "cycles,percent,reconstructed,edges\n");
	for (fi = 0; fi < lsa_cfg_nfuncs(cc->cfg); fi++) {
		const char *name = func_name(cc->cfg, (uint32_t)fi, nb, sizeof(nb));
		struct lsa_plan_func pf;
		int err;

		if (o->function && strcmp(o->function, name))
			continue;
		err = lsa_plan_func(cc->cfg, (uint32_t)fi, &o->costs, &pf);
		if (err < 0) {
			cli_error("cannot plan the probes of function '%s' in '%s': %s", name,
				  file, ls_errstr(err));
			return 1;
		}
		pp.nfuncs++;
		pp.nedges += pf.nedges;
		for (w = 0; w < LSA_PLAN_NWEIGHTS; w++) {
			pp.mismatches += pf.nedges - pf.reconstructed[w];
			recon[w] += pf.reconstructed[w];
		}
		lsa_plan_table_add(&pp.total, &pf.cost);
		if (o->format == CLI_PLAN_JSON)
			json_func(&pp, &pf);
		else if (o->format == CLI_PLAN_CSV)
			csv_rows(&pp, name, 0, &pf.cost,
				 pf.reconstructed, pf.nedges);
		else if (!o->quiet)
			text_func(&pp, &pf);
		lsa_plan_func_release(&pf);
	}
	if (o->function && !pp.nfuncs) {
		cli_error("no function '%s' executed in '%s'", o->function, file);
		return 1;
	}
	bad = lsa_cfg_check_flow(cc->cfg, on_violation, NULL);
	if (o->format == CLI_PLAN_JSON) {
		printf("],\n \"program\": {\"functions\": %zu, \"edges\": %zu, \"mismatches\": %zu, "
		       "\"flow_violations\": %d,\n ", pp.nfuncs, pp.nedges, pp.mismatches, bad);
		json_plans(&pp, &pp.total);
		printf("}}\n");
	} else if (o->format == CLI_PLAN_CSV) {
		csv_rows(&pp, NULL, 1, &pp.total, recon, pp.nedges);
	} else {
		printf("program: %zu functions, %zu edges, %zu mismatches in 4 trees, "
		       "%d flow violations; overhead against %.0f %s\n", pp.nfuncs, pp.nedges,
		       pp.mismatches, bad, pp.base, pp.base_kind);
		if (!o->function)	/* else the function's own table said it */
			text_table(&pp, &pp.total, "");
	}
	return pp.mismatches || bad ? 1 : 0;
}
