/* report_util.c - names and places of loops and functions as every
 * report prints them, and JSON string escaping. */
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli/report.h"

const char *report_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

const char *report_path(const char *file)
{
	static char cwd[PATH_MAX];
	static size_t n;
	static int known;

	if (!known) {
		known = 1;
		n = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
		if (n == 1)
			n = 0;	/* "/": every path is under it, none shorter */
	}
	if (n && file && !strncmp(file, cwd, n) && file[n] == '/' && file[n + 1])
		return file + n + 1;
	return file ? file : "";
}

const char *report_func_name(const struct lsp_profile *p, uint32_t func,
			     char *buf, size_t len)
{
	const struct lsp_func *f;

	if (func == LSP_NONE || func >= p->n_funcs)
		return "??";
	f = &p->funcs[func];
	if (f->name[0])
		return f->name;
	/* No symbol: name it by place, as the profile's comment says. */
	snprintf(buf, len, "%s+0x%" PRIx64,
		 f->module < p->n_modules ? report_base(p->modules[f->module].path) : "?",
		 f->off);
	return buf;
}

const char *report_loop_where(const struct lsp_profile *p, uint32_t loop,
			      char *buf, size_t len)
{
	const struct lsp_loop *l = &p->loops[loop];

	if (l->file[0])
		snprintf(buf, len, "%s:%" PRIu32, report_path(l->file), l->line);
	else
		snprintf(buf, len, "%s+0x%" PRIx64,
			 l->module < p->n_modules ? report_base(p->modules[l->module].path) : "?",
			 l->head_off);
	return buf;
}

/* Length of the valid UTF-8 sequence at s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void report_json_str(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n;

	fputc('"', f);
	for (; *u; u += n) {
		n = utf8_len(u);
		if (!n) {
			/* Names come from binaries: keep the JSON valid. */
			fputs("\\ufffd", f);
			n = 1;
		} else if (n > 1) {
			fwrite(u, 1, n, f);
		} else if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u);
		} else if (*u == '\n') {
			fputs("\\n", f);
		} else if (*u == '\t') {
			fputs("\\t", f);
		} else if (*u < 0x20 || *u == 0x7f) {
			fprintf(f, "\\u%04x", *u);
		} else {
			fputc(*u, f);
		}
	}
	fputc('"', f);
}

double report_simd_pct(const struct lsp_view_loop *l)
{
	return l->self ? 100.0 * (double)l->self_ic[LSP_IC_SIMD] / (double)l->self : 0.0;
}
