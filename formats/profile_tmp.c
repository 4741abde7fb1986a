/* TEMPORARY minimal profile model (replaced by the real formats/profile.c). */
#include <stdlib.h>
#include <string.h>
#include "formats/profile.h"
#include "common/ls_err.h"

#define PUSH(p, arr, v) do { if ((p)->n_##arr == (p)->cap_##arr) { size_t nc = (p)->cap_##arr ? (p)->cap_##arr * 2 : 16; void *q = realloc((p)->arr, nc * sizeof(*(p)->arr)); if (!q) return -LS_ENOMEM; (p)->arr = q; (p)->cap_##arr = nc; } (p)->arr[(p)->n_##arr++] = (v); } while (0)

int lsp_new(struct lsp_profile **pp, uint32_t trip_limit)
{
	*pp = calloc(1, sizeof(**pp));
	if (!*pp) return -LS_ENOMEM;
	(*pp)->version = 1;
	(*pp)->trip_limit = trip_limit ? trip_limit : LSP_TRIP_LIMIT;
	return 0;
}
void lsp_free(struct lsp_profile *p) { (void)p; }
int lsp_module_intern(struct lsp_profile *p, const uint8_t *id, size_t len, const char *path)
{
	size_t i; struct lsp_module m;
	for (i = 0; i < p->n_modules; i++)
		if (p->modules[i].build_id_len == len && !memcmp(p->modules[i].build_id, id, len) && (len || !strcmp(path, p->modules[i].path)))
			return (int)i;
	memset(&m, 0, sizeof(m)); if (len) memcpy(m.build_id, id, len); m.build_id_len = len; m.path = strdup(path);
	PUSH(p, modules, m);
	return (int)i;
}
int lsp_func_intern(struct lsp_profile *p, uint32_t module, uint64_t off, uint64_t vaddr, const char *name, const char *file, uint32_t line)
{
	size_t i; struct lsp_func f = { module, off, vaddr, strdup(name), strdup(file), line };
	for (i = 0; i < p->n_funcs; i++) if (p->funcs[i].module == module && p->funcs[i].off == off) return (int)i;
	PUSH(p, funcs, f); return (int)i;
}
int lsp_loop_intern(struct lsp_profile *p, uint32_t module, uint64_t off, uint64_t vaddr, uint32_t func, const char *file, uint32_t line)
{
	size_t i; struct lsp_loop f = { module, off, vaddr, func, strdup(file), line };
	for (i = 0; i < p->n_loops; i++) if (p->loops[i].module == module && p->loops[i].head_off == off) return (int)i;
	PUSH(p, loops, f); return (int)i;
}
int lsp_thread_add(struct lsp_profile *p, const struct lsp_thread *t) { PUSH(p, threads, *t); return (int)p->n_threads - 1; }
int lsp_add_lstat(struct lsp_profile *p, const struct lsp_lstat *s) { PUSH(p, lstats, *s); return 0; }
int lsp_add_trip(struct lsp_profile *p, const struct lsp_trip *s) { PUSH(p, trips, *s); return 0; }
int lsp_add_edge(struct lsp_profile *p, const struct lsp_edge *s) { PUSH(p, edges, *s); return 0; }
int lsp_add_tail(struct lsp_profile *p, const struct lsp_tail *s) { PUSH(p, tails, *s); return 0; }
int lsp_add_call(struct lsp_profile *p, const struct lsp_call *s) { PUSH(p, calls, *s); return 0; }
int lsp_add_fstat(struct lsp_profile *p, const struct lsp_fstat *s) { PUSH(p, fstats, *s); return 0; }
