/* profile_write.c - writes a loop profile in the text format of
 * formats/profile.md: one record per line, tab-separated fields.
 *
 * A text format, not a binary one, because profiles are small next to
 * bundles (they grow with the executed code, not the trace), people diff
 * and grep them, and scripts read them without our code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"
#include "ls_out.h"

void lsp_seterr(char *errmsg, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errmsg || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errmsg, errlen, fmt, ap);
	va_end(ap);
}

/* Strings: backslash escapes for backslash, tab, newline, carriage return
 * and \xHH for other control bytes, so a field never holds a separator. */
void lsp_put_str(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t n = 0;

		/* a run of plain bytes in one write */
		while (s[n] && (unsigned char)s[n] >= 0x20 && s[n] != '\\' && s[n] != 0x7f)
			n++;
		if (n) {
			fwrite_unlocked(s, 1, n, f);
			s += n - 1;
			continue;
		}
		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* A tab and v in decimal (0x and hex with hex): what fprintf's "\t%"
 * PRIu64 writes, without its format parsing and locking, a fifth of a
 * short analysis' writing of its profile. */
static void put_tu(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	*--p = '\t';
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), f);
}

static void put_tx(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	*--p = '\t';
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), f);
}

static void put_idx(FILE *f, uint32_t i)
{
	if (i == LSP_NONE)
		fputs("\t-", f);
	else
		put_tu(f, i);
}

static void put_ic(FILE *f, const uint64_t *ic)
{
	unsigned c;

	for (c = 0; c < LSP_NCLASS; c++)
		put_tu(f, ic[c]);
}

static size_t put_header(const struct lsp_profile *p, FILE *f)
{
	size_t i, k, n = 0;

	fprintf(f, "%s %d\n", LSP_MAGIC, LSP_VERSION);
	fprintf(f, "profile\t%" PRIu32 "\t%" PRIu32 "\t", p->trip_limit, p->nruns);
	lsp_put_str(f, p->source);
	fputc('\n', f);
	n++;
	for (i = 0; i < p->n_parts; i++, n++) {
		const struct lsp_part *q = &p->parts[i];

		fprintf(f, "part\t%" PRIu32 "\t", q->run);
		lsp_put_str(f, q->bundle);
		fprintf(f, "\t%" PRIu32 "\t%" PRIu32 "\n", q->shard, q->nshards);
	}
	for (i = 0; i < p->n_modules; i++, n++) {
		const struct lsp_module *m = &p->modules[i];

		fprintf(f, "module\t%zu\t", i);
		if (!m->build_id_len)
			fputc('-', f);
		for (k = 0; k < m->build_id_len; k++)
			fprintf(f, "%02x", m->build_id[k]);
		fputc('\t', f);
		lsp_put_str(f, m->path);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_threads; i++, n++) {
		const struct lsp_thread *t = &p->threads[i];

		fprintf(f, "thread\t%zu\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64
			"\t%" PRIu64 "\t%" PRIu64, i, t->run, t->pid, t->tid, t->insns,
			t->outside, t->losses);
		put_ic(f, t->outside_ic);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_funcs; i++, n++) {
		const struct lsp_func *fn = &p->funcs[i];

		fputs("func", f);
		put_tu(f, i);
		put_tu(f, fn->module);
		put_tx(f, fn->off);
		put_tx(f, fn->vaddr);
		fputc('\t', f);
		lsp_put_str(f, fn->name);
		fputc('\t', f);
		lsp_put_str(f, fn->file);
		put_tu(f, fn->line);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_loops; i++, n++) {
		const struct lsp_loop *l = &p->loops[i];

		fputs("loop", f);
		put_tu(f, i);
		put_tu(f, l->module);
		put_tx(f, l->head_off);
		put_tx(f, l->head_vaddr);
		put_idx(f, l->func);
		fputc('\t', f);
		lsp_put_str(f, l->file);
		fprintf(f, "\t%" PRIu32 "\t", l->line);
		lsp_put_str(f, l->head_file);
		fprintf(f, "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t", l->head_line,
			l->first_line, l->last_line);
		lsp_put_str(f, l->inlined_from);
		fputc('\n', f);
	}
	return n;
}

static size_t put_rows(const struct lsp_profile *p, FILE *f)
{
	size_t i, n = 0;

	for (i = 0; i < p->n_lstats; i++, n++) {
		const struct lsp_lstat *s = &p->lstats[i];

		const uint64_t v[] = { s->loop, s->thread, s->entries, s->iterations,
				       s->self, s->total, s->trip_min, s->trip_max,
				       s->over_entries, s->over_sum };

		fputs("lstat", f);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			put_tu(f, v[k]);
		put_ic(f, s->self_ic);
		put_ic(f, s->total_ic);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_trips; i++, n++) {
		fputs("trip", f);
		put_tu(f, p->trips[i].loop);
		put_tu(f, p->trips[i].thread);
		put_tu(f, p->trips[i].trips);
		put_tu(f, p->trips[i].entries);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_edges; i++, n++) {
		fputs("edge", f);
		put_idx(f, p->edges[i].parent);
		put_tu(f, p->edges[i].child);
		put_tu(f, p->edges[i].thread);
		put_tu(f, p->edges[i].count);
		put_tu(f, p->edges[i].total);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_tails; i++, n++) {
		fputs("tail", f);
		put_tu(f, p->tails[i].loop);
		put_tu(f, p->tails[i].thread);
		put_tx(f, p->tails[i].off);
		put_tx(f, p->tails[i].vaddr);
		put_tu(f, p->tails[i].count);
		put_tu(f, p->tails[i].line);
		fputc('\t', f);
		lsp_put_str(f, p->tails[i].file);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_calls; i++, n++) {
		const struct lsp_call *c = &p->calls[i];

		fputs("call", f);
		put_tu(f, c->loop);
		put_tu(f, c->thread);
		put_tu(f, c->module);
		put_tx(f, c->off);
		put_tx(f, c->vaddr);
		put_idx(f, c->callee);
		put_tu(f, c->count);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_fstats; i++, n++) {
		const struct lsp_fstat *s = &p->fstats[i];

		fputs("fstat", f);
		put_tu(f, s->func);
		put_tu(f, s->thread);
		put_tu(f, s->self);
		put_tu(f, s->total);
		put_tu(f, s->loop_level);
		put_tu(f, s->calls);
		fputc('\n', f);
	}
	for (i = 0; i < p->n_verdicts; i++, n++)
		fprintf(f, "verdict\t%" PRIu32 "\t%s\t%" PRIu32 "\n", p->verdicts[i].loop,
			lsp_verdict_name(p->verdicts[i].verdict), p->verdicts[i].needs);
	for (i = 0; i < p->n_deps; i++, n++) {
		const struct lsp_dep *d = &p->deps[i];

		fprintf(f, "dep\t%" PRIu32 "\t%s\t%" PRIu32 "\t", d->loop,
			lsp_dep_kind_name(d->kind), d->decides);
		lsp_put_str(f, d->note);
		fputc('\t', f);
		lsp_put_str(f, d->var);
		fprintf(f, "\t0x%" PRIx64 "\t", d->src_vaddr);
		lsp_put_str(f, d->src_file);
		fprintf(f, "\t%" PRIu32 "\t0x%" PRIx64 "\t", d->src_line, d->dst_vaddr);
		lsp_put_str(f, d->dst_file);
		fprintf(f, "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			d->dst_line, d->count, d->dmin, d->dtyp);
	}
	return n;
}

/* Version 4: the structural loops (has_sview).  Reals as %.17g, which
 * reads back to the same double. */
static size_t put_sview(const struct lsp_profile *p, FILE *f)
{
	size_t i, n = 0;

	if (!p->has_sview)
		return 0;
	fprintf(f, "sview\t%.17g\n", p->smerge_t);
	for (i = 0; i < p->n_sloops; i++, n++) {
		const struct lsp_sloop *s = &p->sloops[i];

		fprintf(f, "sloop\t%zu\t%" PRIu32, i, s->header);
		put_idx(f, s->parent);
		fprintf(f, "\t%" PRIu32 "\t%s", s->depth, lsp_smatch_name(s->match));
		put_idx(f, s->loop);
		fprintf(f, "\t0x%" PRIx64 "\t", s->head_off);
		lsp_put_str(f, s->where);
		fputc('\t', f);
		lsp_put_str(f, s->src);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			"\t%.17g\t%.17g\n", s->static_insns, s->iterations, s->invocations,
			s->self, s->total, s->iters_per_inv, s->coverage);
	}
	for (i = 0; i < p->n_stails; i++, n++)
		fprintf(f, "stail\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\n",
			p->stails[i].sloop, p->stails[i].block, p->stails[i].count);
	for (i = 0; i < p->n_sirrs; i++, n++)
		fprintf(f, "sirr\t%zu\t%" PRIu32 "\t%" PRIu64 "\n", i,
			p->sirrs[i].nblocks, p->sirrs[i].insns);
	for (i = 0; i < p->n_sentries; i++, n++) {
		fprintf(f, "sentry\t%" PRIu32 "\t", p->sentries[i].irr);
		lsp_put_str(f, p->sentries[i].where);
		fputc('\t', f);
		lsp_put_str(f, p->sentries[i].src);
		fputc('\n', f);
	}
	return n + 1;
}

int lsp_write_file(const struct lsp_profile *p, FILE *f, const char *name,
		   char *errmsg, size_t errlen)
{
	size_t n;

	if (!p || !f)
		return -LS_EINVAL;
	n = put_header(p, f);
	n += put_rows(p, f);
	n += put_sview(p, f);
	n += lsp_put_cgraph(p, f);
	n += lsp_put_cpi(p, f);
	/* The record count makes a file cut at a line boundary detectable. */
	fprintf(f, "end\t%zu\n", n);
	if (fflush(f) || ferror(f)) {
		lsp_seterr(errmsg, errlen, "cannot write '%s': %s", name ? name : "profile",
			   strerror(errno));
		return -LS_EIO;
	}
	return 0;
}

int lsp_write(const struct lsp_profile *p, const char *path, char *errmsg,
	      size_t errlen)
{
	struct ls_out o;
	int err;

	if (!p || !path)
		return -LS_EINVAL;
	if ((err = ls_out_open(&o, path, "w")) < 0) {
		if (err == -LS_EIO)
			lsp_seterr(errmsg, errlen, "cannot write '%s': %s", path,
				   strerror(errno));
		return err;
	}
	/* lsp_write_file() names the file in its own failures. */
	if ((err = lsp_write_file(p, o.f, path, errmsg, errlen)) < 0) {
		ls_out_abort(&o);
		return err;
	}
	if ((err = ls_out_commit(&o)) < 0)
		lsp_seterr(errmsg, errlen, "cannot write '%s': %s", path, strerror(errno));
	return err;
}

int lsp_is_profile(const char *path)
{
	char buf[sizeof(LSP_MAGIC)];
	size_t n;
	FILE *f;

	if (!path)
		return -LS_EINVAL;
	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? -LS_ENOENT : -LS_EIO;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* The magic and the space before the version. */
	return n == sizeof(buf) && !memcmp(buf, LSP_MAGIC " ", sizeof(buf));
}
