/* html_data.c - the HTML report's data: the aggregate view of a loop
 * profile (and, from a bundle, every loop's source lines) as one JSON
 * object inside the page, which its script draws (html_page.c).  The
 * keys are short since a profile of 10^4 loops writes them 10^4 times;
 * formats/profile.md's words are spelled out in the page itself. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/html.h"
#include "cli/report.h"
#include "ls_buf.h"
#include "ls_err.h"

/* A JSON string that is also safe inside a <script> element: no "</"
 * or "<!--" can end it, so '<', '>' and '&' are written as \u escapes. */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&')
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* One source file's lines, read when first needed. */
struct src {
	int tried;
	char *text;
	char **lines;
	size_t n;
};

static void src_load(struct src *s, const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len = 0, cap = 0, i;
	long sz;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(s->text = malloc((size_t)sz + 1))) {
		fclose(f);
		return;
	}
	len = fread(s->text, 1, (size_t)sz, f);
	fclose(f);
	s->text[len] = '\0';
	for (i = 0; i < len; ) {
		if (LS_GROW(s->lines, s->n + 1, cap, 256))
			return;
		s->lines[s->n++] = s->text + i;
		while (i < len && s->text[i] != '\n')
			i++;
		if (i < len)
			s->text[i++] = '\0';
	}
}

/* Line n (from 1) of file i, "" when unknown; at most 160 characters
 * are kept, the page shows code, not a copy of the file. */
static void put_src_line(FILE *f, struct src *srcs, const struct html_lines *hl,
			 uint32_t i, uint32_t n)
{
	char buf[161];
	struct src *s = &srcs[i];

	if (!s->tried) {
		s->tried = 1;
		src_load(s, hl->files[i]);
	}
	if (!s->text || n == 0 || n > s->n) {
		fputs("\"\"", f);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", s->lines[n - 1]);
	jstr(f, buf);
}

/* Per profile loop its verdict and the chain of its dependences, so the
 * page costs O(loops + dependences), not their product. */
struct dep_index {
	const struct lsp_verdict **vd;	/* NULL: none */
	size_t *first, *next;		/* SIZE_MAX ends a chain */
};

static int dep_index_new(struct dep_index *ix, const struct lsp_profile *p)
{
	size_t i;

	ix->vd = calloc(p->n_loops + 1, sizeof(*ix->vd));
	ix->first = malloc((p->n_loops + 1) * sizeof(*ix->first));
	ix->next = malloc((p->n_deps + 1) * sizeof(*ix->next));
	if (!ix->vd || !ix->first || !ix->next)
		return -LS_ENOMEM;
	for (i = 0; i < p->n_loops; i++)
		ix->first[i] = SIZE_MAX;
	for (i = 0; i < p->n_verdicts; i++)
		if (p->verdicts[i].loop < p->n_loops)
			ix->vd[p->verdicts[i].loop] = &p->verdicts[i];
	/* Backwards, so each chain keeps the profile's order. */
	for (i = p->n_deps; i-- > 0; ) {
		uint32_t l = p->deps[i].loop;

		ix->next[i] = SIZE_MAX;
		if (l < p->n_loops && p->deps[i].decides) {
			ix->next[i] = ix->first[l];
			ix->first[l] = i;
		}
	}
	return 0;
}

static void dep_index_free(struct dep_index *ix)
{
	free(ix->vd);
	free(ix->first);
	free(ix->next);
}

/* "vd": the verdict's name, "vn": the other remedies it needs, "dep": the
 * deciding dependences as [kind, count, least distance, most frequent
 * distance, variable, "file:line" of the source, of the target]. */
static void put_verdict(FILE *f, const struct lsp_profile *p,
			const struct dep_index *ix, uint32_t loop)
{
	const struct lsp_verdict *vd = ix->vd[loop];
	char at[300];
	size_t k, n = 0;
	unsigned b;

	fputs(",\"vd\":", f);
	jstr(f, lsp_verdict_name(vd->verdict));
	fputs(",\"vn\":[", f);
	/* As report_deps.c's put_needs(): what a graver verdict also asks. */
	for (b = LSP_V_REDUCTION; vd->verdict < LSP_V_NOT && b < LSP_V_NOT; b++)
		if (vd->needs >> b & 1 && b != vd->verdict) {
			fputs(n++ ? "," : "", f);
			jstr(f, lsp_verdict_name(b));
		}
	fputs("],\"dep\":[", f);
	for (n = 0, k = ix->first[loop]; k != SIZE_MAX; k = ix->next[k]) {
		const struct lsp_dep *d = &p->deps[k];

		fprintf(f, "%s[", n++ ? "," : "");
		jstr(f, lsp_dep_kind_name(d->kind));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", d->count, d->dmin,
			d->dtyp);
		jstr(f, d->var);
		snprintf(at, sizeof(at), "%s:%" PRIu32, report_base(d->src_file), d->src_line);
		fputc(',', f);
		jstr(f, at);
		snprintf(at, sizeof(at), "%s:%" PRIu32, report_base(d->dst_file), d->dst_line);
		fputc(',', f);
		jstr(f, at);
		fputc(']', f);
	}
	fputc(']', f);
}

static void put_loop(FILE *f, const struct lsp_view *v, const struct html_lines *hl,
		     const struct dep_index *ix, uint32_t i)
{
	const struct lsp_view_loop *l = &v->loops[i];
	const struct lsp_loop *pl = &v->p->loops[i];
	char buf[512], fb[256];
	size_t k;

	fprintf(f, "{\"id\":%" PRIu32 ",\"fn\":", i);
	jstr(f, report_func_name(v->p, pl->func, fb, sizeof(fb)));
	fputs(",\"at\":", f);
	jstr(f, report_loop_where(v->p, i, buf, sizeof(buf)));
	fprintf(f, ",\"d\":%" PRIu32 ",\"e\":%" PRIu64 ",\"it\":%" PRIu64
		",\"s\":%" PRIu64 ",\"t\":%" PRIu64 ",\"mn\":%" PRIu64 ",\"mx\":%" PRIu64,
		l->depth, l->entries, l->iterations, l->self, l->total,
		l->trip_min, l->trip_max);
	if (hl && hl->unit && i < hl->nloops)
		fprintf(f, ",\"cs\":%" PRIu64 ",\"ct\":%" PRIu64, hl->cost_self[i],
			hl->cost_total[i]);
	if (l->over_entries)
		fprintf(f, ",\"ov\":[%" PRIu64 ",%" PRIu32 "]", l->over_entries,
			v->p->trip_limit);
	if (report_simd_pct(l) >= 25.0)
		fprintf(f, ",\"simd\":%.1f", report_simd_pct(l));
	if (pl->first_line)
		fprintf(f, ",\"ln\":\"%" PRIu32 "-%" PRIu32 "\"", pl->first_line,
			pl->last_line);
	if (pl->inlined_from && pl->inlined_from[0]) {
		fputs(",\"inl\":", f);
		jstr(f, pl->inlined_from);
	}
	fputs(",\"h\":[", f);
	for (k = 0; k < l->ntrips; k++)
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", k ? "," : "",
			v->trips[l->trip0 + k].trips, v->trips[l->trip0 + k].entries);
	fputs("],\"c\":[", f);
	for (k = 0; k < l->nchildren; k++) {
		const struct lsp_view_link *c = &v->children[l->child0 + k];

		fprintf(f, "%s[%" PRIu32 ",%" PRIu64 ",%" PRIu64 "]", k ? "," : "",
			c->loop, c->count, c->total);
	}
	fprintf(f, "],\"np\":%zu", l->nparents);
	if (ix && ix->vd[i])
		put_verdict(f, v->p, ix, i);
	fputc('}', f);
}

static void put_lines(FILE *f, const struct lsp_view *v, const struct html_lines *hl)
{
	struct src *srcs = calloc(hl->nfiles + 1, sizeof(*srcs));
	size_t i, r, n = 0;

	fputs(",\"files\":[", f);
	for (i = 0; i < hl->nfiles; i++) {
		fputs(i ? "," : "", f);
		jstr(f, report_path(hl->files[i]));
	}
	fputs("],\"S\":{", f);
	for (i = 0; i < hl->nloops && i < v->p->n_loops; i++) {
		if (hl->row0[i] == hl->row0[i + 1] || !v->loops[i].seen)
			continue;
		fprintf(f, "%s\"%zu\":[", n++ ? "," : "", i);
		for (r = hl->row0[i]; r < hl->row0[i + 1]; r++) {
			const struct html_line *l = &hl->rows[r];

			fprintf(f, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",", r > hl->row0[i] ? "," : "", l->file,
				l->line, l->execs, l->insns, l->cost);
			if (srcs)
				put_src_line(f, srcs, hl, l->file, l->line);
			else
				fputs("\"\"", f);
			fputc(']', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
	for (i = 0; srcs && i < hl->nfiles; i++) {
		free(srcs[i].text);
		free(srcs[i].lines);
	}
	free(srcs);
}

int html_write(FILE *f, const struct lsp_view *v, const struct html_lines *hl,
	       const char *source)
{
	uint32_t *order = NULL;
	char fb[256];
	int n = lsp_view_sorted_loops(v, &order), i;
	size_t k, nf = 0;

	struct dep_index ix = { NULL, NULL, NULL };

	if (n < 0)
		return n;
	if (v->p->n_verdicts && dep_index_new(&ix, v->p) < 0) {
		dep_index_free(&ix);
		free(order);
		return -LS_ENOMEM;
	}
	fputs(html_page_head, f);
	fputs("{\"v\":1,\"source\":", f);
	jstr(f, report_path(source));
	fprintf(f, ",\"total\":%" PRIu64 ",\"outside\":%" PRIu64 ",\"threads\":%zu"
		",\"nloops\":%zu,\"losses\":%" PRIu64, v->total_insns, v->outside,
		v->nthreads, v->p->n_loops, v->losses);
	fputs(",\"unit\":", f);
	if (hl && hl->unit) {
		jstr(f, hl->unit);
		fprintf(f, ",\"costAll\":%" PRIu64, hl->cost_all);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"haveLines\":%s,\"haveDeps\":%s,\"L\":[", hl ? "true" : "false",
		ix.vd ? "true" : "false");
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "", f);
		put_loop(f, v, hl, ix.vd ? &ix : NULL, order[i]);
	}
	fputs("],\"top\":[", f);
	for (k = 0; k < v->ntops; k++)
		fprintf(f, "%s[%" PRIu32 ",%" PRIu64 ",%" PRIu64 "]", k ? "," : "",
			v->tops[k].loop, v->tops[k].count, v->tops[k].total);
	fputs("],\"F\":[", f);
	for (k = 0; k < v->p->n_funcs; k++) {
		const struct lsp_view_func *fn = &v->funcs[k];

		if (!fn->seen || !fn->total)
			continue;
		fputs(nf++ ? ",\n[" : "[", f);
		jstr(f, report_func_name(v->p, (uint32_t)k, fb, sizeof(fb)));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			fn->self, fn->total, fn->loop_level, fn->calls);
	}
	fputc(']', f);
	if (hl)
		put_lines(f, v, hl);
	fputs("}", f);
	fputs(html_page_tail, f);
	dep_index_free(&ix);
	free(order);
	return ferror(f) ? -LS_EIO : 0;
}
