/* report_func.c - the function views of `loopscope report`: one
 * function's loops, back branches and call sites by address (Sato et
 * al., figures 4 and 5), and function-level versus loop-level
 * instruction shares (their table 2).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "ls_err.h"

enum { LINE_HEAD, LINE_TAIL, LINE_CALL };

struct fline {
	uint64_t vaddr;
	int kind;
	uint32_t loop;
	size_t idx;		/* into the view's tails or calls */
	int last_tail;		/* the loop's last back branch: gets the % */
};

static int fline_cmp(const void *x, const void *y)
{
	const struct fline *a = x, *b = y;

	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	return a->loop < b->loop ? -1 : a->loop > b->loop;
}

static int one_function(FILE *f, const struct lsp_view *v, uint32_t fn)
{
	const struct lsp_profile *p = v->p;
	const struct lsp_func *pf = &p->funcs[fn];
	const struct lsp_view_func *vf = &v->funcs[fn];
	struct fline *ln;
	size_t i, k, n = 0, cap = 0;
	char fbuf[256], pct[32];

	for (i = 0; i < p->n_loops; i++)
		if (p->loops[i].func == fn)
			cap += 1 + v->loops[i].ntails + v->loops[i].ncalls;
	ln = malloc((cap + 1) * sizeof(*ln));
	if (!ln)
		return -LS_ENOMEM;
	for (i = 0; i < p->n_loops; i++) {
		const struct lsp_view_loop *l = &v->loops[i];
		size_t t0;

		if (p->loops[i].func != fn || !l->seen)
			continue;
		ln[n++] = (struct fline){ p->loops[i].head_vaddr, LINE_HEAD, (uint32_t)i, 0, 0 };
		t0 = n;
		for (k = 0; k < l->ntails; k++)
			ln[n++] = (struct fline){ v->tails[l->tail0 + k].vaddr, LINE_TAIL,
						  (uint32_t)i, l->tail0 + k, 0 };
		/* The view sorts tails by offset: the last is the loop's end. */
		if (n > t0)
			ln[n - 1].last_tail = 1;
		for (k = 0; k < l->ncalls; k++)
			ln[n++] = (struct fline){ v->calls[l->call0 + k].vaddr, LINE_CALL,
						  (uint32_t)i, l->call0 + k, 0 };
	}
	qsort(ln, n, sizeof(*ln), fline_cmp);
	fprintf(f, "Function %s (%s:%" PRIu32 ") in %s: self %" PRIu64 " (%.2f%%), "
		"total %" PRIu64 " (%.2f%%), %" PRIu64 " calls\n",
		report_func_name(p, fn, fbuf, sizeof(fbuf)), pf->file[0] ? report_path(pf->file) : "??",
		pf->line, pf->module < p->n_modules ? p->modules[pf->module].path : "?",
		vf->self, lsp_view_pct(v, vf->self), vf->total, lsp_view_pct(v, vf->total),
		vf->calls);
	fprintf(f, "%-4s %-18s %s %7s %12s\n", "ID", "InstAddr", "B", "[%]", "cnt");
	for (i = 0; i < n; i++) {
		const struct fline *x = &ln[i];

		if (x->kind == LINE_HEAD) {
			fprintf(f, "%-4" PRIu32 " 0x%" PRIx64 "\n", x->loop, x->vaddr);
		} else if (x->kind == LINE_TAIL) {
			/* Sato et al.'s %: the loop's own instructions, once. */
			pct[0] = '\0';
			if (x->last_tail)
				snprintf(pct, sizeof(pct), "%.2f",
					 lsp_view_pct(v, v->loops[x->loop].self));
			fprintf(f, "%-4" PRIu32 " 0x%-16" PRIx64 " B %7s %12" PRIu64 "\n",
				x->loop, x->vaddr, pct, v->tails[x->idx].count);
		} else {
			const struct lsp_view_call *c = &v->calls[x->idx];

			fprintf(f, "%-4s 0x%-16" PRIx64 "   %-20s %" PRIu64 "\n", "C", x->vaddr,
				report_func_name(p, c->callee, fbuf, sizeof(fbuf)), c->count);
		}
	}
	free(ln);
	return 0;
}

/* Whether name is one of the ';'-separated names of chain. */
static int in_chain(const char *chain, const char *name)
{
	size_t n = strlen(name);

	while (*chain) {
		const char *semi = strchr(chain, ';');
		size_t k = semi ? (size_t)(semi - chain) : strlen(chain);

		if (k == n && !strncmp(chain, name, n))
			return 1;
		chain += k + (semi != NULL);
	}
	return 0;
}

/* Whether a loop of function fn sits in code of `name` inlined into it. */
static int inlines(const struct lsp_profile *p, uint32_t fn, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_loops; i++)
		if (p->loops[i].func == fn && in_chain(p->loops[i].inlined_from, name))
			return 1;
	return 0;
}

int report_function(FILE *f, const struct lsp_view *v, const char *name,
		    const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	char fbuf[256];
	size_t i;
	int found = 0, err;

	for (i = 0; i < p->n_funcs; i++) {
		const char *fname = report_func_name(p, (uint32_t)i, fbuf, sizeof(fbuf));
		int direct = !strcmp(fname, name);

		/* A function inlined into others has its loops in theirs. */
		if ((!direct && !inlines(p, (uint32_t)i, name)) ||
		    !report_func_shown(p, (uint32_t)i, o))
			continue;
		if (found++)
			fputc('\n', f);
		if (!direct)
			fprintf(f, "%s is inlined into %s: its loops are in %s's code\n",
				name, fname, fname);
		if ((err = one_function(f, v, (uint32_t)i)) < 0)
			return err;
	}
	return found ? 0 : -LS_ENOENT;
}

static const struct lsp_view *sort_view;

static int func_cmp(const void *x, const void *y)
{
	const struct lsp_view_func *a = &sort_view->funcs[*(const uint32_t *)x];
	const struct lsp_view_func *b = &sort_view->funcs[*(const uint32_t *)y];

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->loop_level != b->loop_level)
		return a->loop_level > b->loop_level ? -1 : 1;
	return a->func < b->func ? -1 : a->func > b->func;
}

/* Whether function x is printed: in o's module, with a share >= min. */
static int func_row(const struct lsp_view *v, uint32_t fn, const struct report_opts *o)
{
	const struct lsp_view_func *x = &v->funcs[fn];

	return report_func_shown(v->p, fn, o) &&
	       (lsp_view_pct(v, x->self) >= o->min_pct ||
		lsp_view_pct(v, x->total) >= o->min_pct ||
		lsp_view_pct(v, x->loop_level) >= o->min_pct);
}

int report_functions(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	uint64_t self = 0, ll = 0;
	uint32_t *ids;
	size_t i, n = 0;
	int wf = 28, wm = 16;	/* column widths: the longest name shown */
	char fbuf[256];

	ids = malloc((p->n_funcs + 1) * sizeof(*ids));
	if (!ids)
		return -LS_ENOMEM;
	for (i = 0; i < p->n_funcs; i++)
		if (v->funcs[i].seen && func_row(v, (uint32_t)i, o))
			ids[n++] = (uint32_t)i;
	sort_view = v;
	qsort(ids, n, sizeof(*ids), func_cmp);
	sort_view = NULL;
	for (i = 0; i < n; i++) {
		const struct lsp_func *pf = &p->funcs[ids[i]];
		int a = (int)strlen(report_func_name(p, ids[i], fbuf, sizeof(fbuf)));
		int b = (int)strlen(pf->module < p->n_modules ?
				    report_base(p->modules[pf->module].path) : "?");

		wf = a > wf ? a : wf;
		wm = b > wm ? b : wm;
	}
	fprintf(f, "%sFunction level versus loop level, %% of %" PRIu64 " instructions; "
		"functions with >= %.2f%% in any column%s\n", report_col(f, "bold"),
		v->total_insns, o->min_pct, report_col(f, "off"));
	if (o->module)
		fprintf(f, "Only the functions of module %s\n", o->module);
	fprintf(f, "%s%-*s %-*s %9s %9s %12s%s\n", report_col(f, "bold"), wf, "function",
		wm, "module", "self %", "total %", "loop level %", report_col(f, "off"));
	for (i = 0; i < n; i++) {
		const struct lsp_view_func *x = &v->funcs[ids[i]];
		const struct lsp_func *pf = &p->funcs[ids[i]];
		const char *hs = report_hot(f, lsp_view_pct(v, x->self));
		const char *ht = report_hot(f, lsp_view_pct(v, x->total));

		self += x->self;
		ll += x->loop_level;
		fprintf(f, "%-*s %-*s %s%9.2f%s %s%9.2f%s %12.2f\n",
			wf, report_func_name(p, ids[i], fbuf, sizeof(fbuf)), wm,
			pf->module < p->n_modules ? report_base(p->modules[pf->module].path) : "?",
			hs, lsp_view_pct(v, x->self), *hs ? report_col(f, "off") : "",
			ht, lsp_view_pct(v, x->total), *ht ? report_col(f, "off") : "",
			lsp_view_pct(v, x->loop_level));
	}
	fprintf(f, "%-*s %-*s %9.2f %9s %12.2f\n", wf, "Sum", wm, "", lsp_view_pct(v, self),
		"", lsp_view_pct(v, ll));
	free(ids);
	return 0;
}
