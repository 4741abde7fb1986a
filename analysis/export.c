/* export.c - BOLT fdata, AutoFDO text and the edge profile (export.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export.h"
#include "ls_err.h"

int lsa_export_main_module(const struct lsa_cfg *c)
{
	uint64_t best = 0, *sum;
	size_t i, n = lsa_cfg_nfuncs(c);
	int32_t maxmod = -1;
	int mod = -1;

	for (i = 0; i < n; i++)
		if (lsa_cfg_func(c, (uint32_t)i)->module > maxmod)
			maxmod = lsa_cfg_func(c, (uint32_t)i)->module;
	if (maxmod < 0)
		return -1;
	sum = calloc((size_t)maxmod + 1, sizeof(*sum));
	if (!sum)
		return -1;
	for (i = 0; i < n; i++) {
		const struct lsa_cfg_func *f = lsa_cfg_func(c, (uint32_t)i);

		if (f->module >= 0)
			sum[f->module] += f->insns;
	}
	for (i = 0; i <= (size_t)maxmod; i++)
		if (sum[i] > best) {
			best = sum[i];
			mod = (int)i;
		}
	free(sum);
	return mod;
}

/* Module file offset of the block's last instruction. */
static uint64_t last_off(const struct lsd_sblock *sb)
{
	return sb->mod_off + (sb->last - sb->start);
}

/* "1 name off" for code of a named function of mod, else "0 [unknown] 0". */
static void bolt_loc(FILE *out, const struct lsa_cfg *c, uint32_t id, int mod, int last)
{
	const struct lsa_cfg_block *b = id == LSA_CFG_NONE ? NULL : lsa_cfg_block(c, id);
	const struct lsa_cfg_func *f = b ? lsa_cfg_func(c, b->func) : NULL;

	if (!b || b->sb->module != mod || !f || !f->name) {
		fputs("0 [unknown] 0", out);
		return;
	}
	fprintf(out, "1 %s %" PRIx64, f->name,
		(last ? last_off(b->sb) : b->sb->mod_off) - f->start);
}

static int in_mod(const struct lsa_cfg *c, uint32_t id, int mod)
{
	return id != LSA_CFG_NONE && lsa_cfg_block(c, id)->sb->module == mod;
}

int lsa_export_bolt(FILE *out, const struct lsa_cfg *c, int mod)
{
	size_t i;

	for (i = 0; i < lsa_cfg_nedges(c); i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);
		int branch = e->kind == LSA_CFG_TAKEN || e->kind == LSA_CFG_JUMP ||
			     e->kind == LSA_CFG_IJUMP || e->kind == LSA_CFG_CALL ||
			     e->kind == LSA_CFG_RET;
		int fall = (e->kind == LSA_CFG_FALL || e->kind == LSA_CFG_NOTTAKEN) &&
			   !(e->flags & LSA_CFG_F_XFER);

		if (!e->count || (!branch && !fall) ||
		    (!in_mod(c, e->from, mod) && !in_mod(c, e->to, mod)))
			continue;
		bolt_loc(out, c, e->from, mod, 1);
		fputc(' ', out);
		bolt_loc(out, c, e->to, mod, 0);
		fprintf(out, " 0 %" PRIu64 "\n", e->count);
	}
	return ferror(out) ? -LS_EIO : 0;
}

int lsa_export_autofdo(FILE *out, const struct lsa_cfg *c, int mod)
{
	size_t i, n = 0, pass;
	uint32_t id;

	/* Ranges in address order: every executed block of the module. */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(out, "%zu\n", n);
		n = 0;
		for (i = 0; i < lsa_cfg_nfuncs(c); i++) {
			const struct lsa_cfg_func *f = lsa_cfg_func(c, (uint32_t)i);
			uint32_t k;

			if (f->module != mod)
				continue;
			for (k = 0; k < f->nblocks; k++) {
				const struct lsa_cfg_block *b = lsa_cfg_block(c, f->blocks[k]);

				n++;
				if (pass)
					fprintf(out, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n",
						b->sb->mod_off, last_off(b->sb), b->count);
			}
		}
	}
	fprintf(out, "0\n");
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(out, "%zu\n", n);
		n = 0;
		for (i = 0; i < lsa_cfg_nedges(c); i++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);

			if (!e->count || !(e->kind == LSA_CFG_TAKEN || e->kind == LSA_CFG_JUMP ||
			    e->kind == LSA_CFG_IJUMP || e->kind == LSA_CFG_CALL ||
			    e->kind == LSA_CFG_RET) || !in_mod(c, e->from, mod) ||
			    !in_mod(c, e->to, mod))
				continue;
			n++;
			id = e->to;
			if (pass)
				fprintf(out, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n",
					last_off(lsa_cfg_block(c, e->from)->sb),
					lsa_cfg_block(c, id)->sb->mod_off, e->count);
		}
	}
	return ferror(out) ? -LS_EIO : 0;
}

static const char *mod_name(const struct lsp_profile *p, int mod)
{
	if (!p || mod < 0 || (size_t)mod >= p->n_modules)
		return "";
	return p->modules[mod].path ? p->modules[mod].path : "";
}

/* Writes s as a JSON string (CSV fields use it too: names never hold
 * commas in practice, and quotes are escaped either way). */
static void put_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
	fputc('"', out);
}

/* An end: a block, outside (null), or the target of a way never taken
 * that never ran: the branch's module and the target's offset there. */
static void put_end(FILE *out, const struct lsa_cfg *c, const struct lsp_profile *p,
		    const struct lsa_cfg_edge *e, int to, int csv)
{
	uint32_t id = to ? e->to : e->from;
	const struct lsa_cfg_block *b = id == LSA_CFG_NONE ? NULL : lsa_cfg_block(c, id);
	const struct lsa_cfg_func *f = b ? lsa_cfg_func(c, b->func) : NULL;
	const struct lsd_sblock *fb = e->from == LSA_CFG_NONE ? NULL : lsa_cfg_block(c, e->from)->sb;

	if (!b && to && e->to_addr && fb) {
		if (!csv)
			fputs("{\"module\": ", out);
		put_str(out, mod_name(p, fb->module));
		fprintf(out, csv ? ",%" PRIx64 ",\"\"," : ", \"offset\": \"%" PRIx64 "\"}",
			fb->mod_off + (e->to_addr - fb->start));
		return;
	}
	if (csv) {
		if (b) {
			put_str(out, mod_name(p, b->sb->module));
			fprintf(out, ",%" PRIx64 ",", b->sb->mod_off);
			put_str(out, f && f->name ? f->name : "");
			fprintf(out, ",%" PRIx64, b->sb->mod_off - f->start);
		} else {
			fputs("\"\",0,\"\",", out);
		}
		return;
	}
	if (!b) {
		fputs("null", out);
		return;
	}
	fputs("{\"module\": ", out);
	put_str(out, mod_name(p, b->sb->module));
	fprintf(out, ", \"offset\": \"%" PRIx64 "\", \"function\": ", b->sb->mod_off);
	put_str(out, f && f->name ? f->name : "");
	fprintf(out, ", \"function_offset\": \"%" PRIx64 "\"}", b->sb->mod_off - f->start);
}

int lsa_export_edges(FILE *out, const struct lsa_cfg *c, const struct lsp_profile *p,
		     int csv)
{
	size_t i;

	if (csv)
		fputs("from_module,from_offset,from_function,from_function_offset,"
		      "to_module,to_offset,to_function,to_function_offset,"
		      "kind,why,flow,unreached,count\n", out);
	else
		fputs("[\n", out);
	for (i = 0; i < lsa_cfg_nedges(c); i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);

		if (!csv)
			fputs("  {\"from\": ", out);
		put_end(out, c, p, e, 0, csv);
		fputs(csv ? "," : ", \"to\": ", out);
		put_end(out, c, p, e, 1, csv);
		if (csv)
			fprintf(out, ",%s,%s,%d,%d,%" PRIu64 "\n", lsa_cfg_kind_name(e->kind),
				lsa_cfg_why_name(e->why), lsa_cfg_is_flow(e),
				!!(e->flags & LSA_CFG_F_UNREACHED), e->count);
		else
			fprintf(out, ", \"kind\": \"%s\", \"why\": \"%s\", \"flow\": %s"
				", \"unreached\": %s, \"count\": %" PRIu64 "}%s\n",
				lsa_cfg_kind_name(e->kind), lsa_cfg_why_name(e->why),
				lsa_cfg_is_flow(e) ? "true" : "false",
				e->flags & LSA_CFG_F_UNREACHED ? "true" : "false",
				e->count, i + 1 < lsa_cfg_nedges(c) ? "," : "");
	}
	if (!csv)
		fputs("]\n", out);
	return ferror(out) ? -LS_EIO : 0;
}
