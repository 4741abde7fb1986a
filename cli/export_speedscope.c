/* export_speedscope.c - `export --speedscope`: the loop nesting as
 * speedscope's file format (www.speedscope.app/file-format-schema.json),
 * a flame graph of loops.  One "sampled" profile: each loop's stack is
 * the chain of its first parent one level up (as `report --folded`),
 * outermost first, with the function named wherever the chain enters
 * another one; its weight is the loop's self instructions.  Instructions
 * outside every loop are one more stack, so the weights sum to the run's
 * instructions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/export_views.h"
#include "cli/report.h"
#include "ls_err.h"

/* Frames: one per function (index f) and one per loop (nfuncs + l). */
static void put_frames(FILE *f, const struct lsp_view *v)
{
	const struct lsp_profile *p = v->p;
	char buf[512], fb[256];
	size_t i;

	fputs("\"shared\":{\"frames\":[", f);
	for (i = 0; i < p->n_funcs; i++) {
		fputs(i ? ",\n{\"name\":" : "{\"name\":", f);
		report_json_str(f, report_func_name(p, (uint32_t)i, fb, sizeof(fb)));
		if (p->funcs[i].file[0]) {
			fputs(",\"file\":", f);
			report_json_str(f, p->funcs[i].file);
			if (p->funcs[i].line)
				fprintf(f, ",\"line\":%" PRIu32, p->funcs[i].line);
		}
		fputc('}', f);
	}
	for (i = 0; i < p->n_loops; i++) {
		const struct lsp_loop *l = &p->loops[i];

		snprintf(buf, sizeof(buf), "loop %zu at ", i);
		report_loop_where(p, (uint32_t)i, buf + strlen(buf), sizeof(buf) - strlen(buf));
		fputs(i || p->n_funcs ? ",\n{\"name\":" : "{\"name\":", f);
		report_json_str(f, buf);
		if (l->file[0]) {
			fputs(",\"file\":", f);
			report_json_str(f, l->file);
			if (l->line)
				fprintf(f, ",\"line\":%" PRIu32, l->line);
		}
		fputc('}', f);
	}
	fprintf(f, ",\n{\"name\":\"[outside loops]\"}]}");
}

/* Loop i's stack, outermost first, as frame indexes. */
static void put_stack(FILE *f, const struct lsp_view *v, uint32_t loop, int *first)
{
	const struct lsp_view_loop *l = &v->loops[loop];
	const struct lsp_profile *p = v->p;
	uint32_t func = p->loops[loop].func;
	size_t i;

	if (l->depth > 1) {
		for (i = 0; i < l->nparents; i++) {
			uint32_t up = v->parents[l->parent0 + i].loop;

			if (up != LSP_NONE && v->loops[up].depth + 1 == l->depth) {
				put_stack(f, v, up, first);
				if (p->loops[up].func != func && func != LSP_NONE)
					fprintf(f, ",%" PRIu32, func);
				fprintf(f, ",%zu", p->n_funcs + loop);
				return;
			}
		}
	}
	if (func != LSP_NONE)
		fprintf(f, "%s%" PRIu32 ",", *first ? "" : ",", func);
	else if (!*first)
		fputc(',', f);
	*first = 0;
	fprintf(f, "%zu", p->n_funcs + loop);
}

int export_speedscope(FILE *f, const struct lsp_view *v, const char *name)
{
	const struct lsp_profile *p = v->p;
	uint64_t sum = v->outside;
	size_t i, n = 0;

	for (i = 0; i < p->n_loops; i++)
		if (v->loops[i].seen && v->loops[i].self)
			sum += v->loops[i].self;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	put_frames(f, v);
	fputs(",\n\"profiles\":[{\"type\":\"sampled\",\"name\":", f);
	report_json_str(f, name);
	fprintf(f, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%" PRIu64
		",\n\"samples\":[", sum);
	for (i = 0; i < p->n_loops; i++) {
		int first = 1;

		if (!v->loops[i].seen || !v->loops[i].self)
			continue;
		fputs(n++ ? ",\n[" : "[", f);
		put_stack(f, v, (uint32_t)i, &first);
		fputc(']', f);
	}
	if (v->outside)
		fprintf(f, "%s[%zu]", n ? ",\n" : "", p->n_funcs + p->n_loops);
	fputs("],\n\"weights\":[", f);
	n = 0;
	for (i = 0; i < p->n_loops; i++)
		if (v->loops[i].seen && v->loops[i].self)
			fprintf(f, "%s%" PRIu64, n++ ? "," : "", v->loops[i].self);
	if (v->outside)
		fprintf(f, "%s%" PRIu64, n ? "," : "", v->outside);
	fputs("]}],\n\"name\":", f);
	report_json_str(f, name);
	fprintf(f, ",\"activeProfileIndex\":0,\"exporter\":\"loopscope %s\"}\n", LS_VERSION);
	return ferror(f) ? -LS_EIO : 0;
}
