/* report_util.c - names and places of loops and functions as every
 * report prints them, and JSON string escaping. */
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli/report.h"
#include "cli/term.h"

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
			 l->head_vaddr);
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

/* Whether the last component of path names the dynamic loader:
 * ld-linux*.so*, ld.so*, ld-<version>.so (glibc < 2.34), ld-musl-*. */
int report_is_loader(const char *path)
{
	const char *b = report_base(path);

	return !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld.so", 5) ||
	       !strncmp(b, "ld-musl-", 8) ||
	       (!strncmp(b, "ld-", 3) && b[3] >= '0' && b[3] <= '9' && strstr(b, ".so"));
}

int report_path_match(const char *path, const char *name)
{
	const char *b = report_base(path);
	size_t n = strlen(name);

	return path && (!strcmp(path, name) || !strcmp(b, name) ||
			(n && !strncmp(b, name, n) && b[n] == '.'));
}

int report_module_match(const struct lsp_profile *p, uint32_t mod, const char *name)
{
	return mod < p->n_modules && report_path_match(p->modules[mod].path, name);
}

int report_module_known(const struct lsp_profile *p, const char *name)
{
	for (uint32_t m = 0; m < p->n_modules; m++)
		if (report_module_match(p, m, name))
			return 1;
	return 0;
}

/* Whether loop l is hidden as one of the loader's (not its module's
 * filter). */
static int loader_hidden(const struct lsp_profile *p, uint32_t loop,
			 const struct report_opts *o)
{
	uint32_t m = p->loops[loop].module;

	return o->hide_loader && !o->module && m < p->n_modules &&
	       report_is_loader(p->modules[m].path);
}

int report_loop_shown(const struct lsp_profile *p, uint32_t loop,
		      const struct report_opts *o)
{
	if (o->module)
		return report_module_match(p, p->loops[loop].module, o->module);
	return !loader_hidden(p, loop, o);
}

int report_func_shown(const struct lsp_profile *p, uint32_t func,
		      const struct report_opts *o)
{
	return !o->module || (func < p->n_funcs &&
			      report_module_match(p, p->funcs[func].module, o->module));
}

void report_filter_note(FILE *f, const struct lsp_view *v, const struct report_opts *o)
{
	const struct lsp_profile *p = v->p;
	const char *name = NULL;
	uint64_t self = 0, n = 0;

	if (o->module) {
		fprintf(f, "Only the loops of module %s; %% of all instructions\n", o->module);
		return;
	}
	for (uint32_t i = 0; i < p->n_loops; i++) {
		if (!v->loops[i].seen || !loader_hidden(p, i, o))
			continue;
		n++;
		self += v->loops[i].self;
		name = report_base(p->modules[p->loops[i].module].path);
	}
	if (n)
		fprintf(f, "Hidden: %" PRIu64 " loop%s of the dynamic loader %s, %" PRIu64
			" instructions (%.2f%%) in their own code; --show-loader shows them\n",
			n, n == 1 ? "" : "s", name, self, lsp_view_pct(v, self));
}

const char *report_col(FILE *f, const char *role)
{
	return cli_color(f, role);
}

const char *report_hot(FILE *f, double pct)
{
	return pct >= REPORT_HOT_PCT ? cli_color(f, "hot") : "";
}
