/* loopcmp.c - structural and dynamic loops side by side. */
#include <stdlib.h>
#include <string.h>

#include "analysis/kmap.h"
#include "analysis/loopcmp.h"
#include "ls_err.h"

const char *lsa_cmp_kind_name(int kind)
{
	static const char *const names[LSA_CMP_MAX] = {
		"same", "counts", "inner", "no-dynamic", "no-structural",
	};

	return kind >= 0 && kind < LSA_CMP_MAX ? names[kind] : "?";
}

int lsa_cmp_loops(const struct lsa_cfg *c, const struct lsa_sloops *s,
		  const struct lsp_view *v, struct lsa_cmp **out, size_t *n)
{
	const struct lsp_profile *p;
	struct lsa_kmap heads = { 0 };	/* (module + 1, offset) -> loop + 1 */
	size_t i, ns, k = 0;
	struct lsa_cmp *rows;
	uint8_t *matched;

	if (!c || !s || !v || !out || !n)
		return -LS_EINVAL;
	p = v->p;
	ns = lsa_sloops_count(s);
	rows = calloc(ns + p->n_loops + 1, sizeof(*rows));
	matched = calloc(p->n_loops + 1, 1);
	if (!rows || !matched)
		goto nomem;
	for (i = 0; i < p->n_loops; i++) {
		const struct lsp_loop *lp = &p->loops[i];
		uint64_t *e;

		if (!v->loops[i].seen || lp->module >= p->n_modules)
			continue;
		e = lsa_kmap_get(&heads, (uint64_t)lp->module + 1, lp->head_off);
		if (!e)
			goto nomem;
		*e = i + 1;
	}
	for (i = 0; i < ns; i++) {
		const struct lsa_sloop *sl = lsa_sloops_get(s, i);
		const struct lsa_cfg_block *h = lsa_cfg_block(c, sl->header);
		struct lsa_cmp *row = &rows[k++];
		uint64_t *e = NULL;

		row->sloop = (uint32_t)i;
		row->loop = LSP_NONE;
		row->s_iterations = sl->iterations;
		row->s_invocations = sl->invocations;
		if (h && h->sb)
			e = lsa_kmap_find(&heads, (uint64_t)(h->sb->module + 1),
					  h->sb->module < 0 ? h->sb->start : h->sb->mod_off);
		if (sl->parent != LSA_SLOOP_NONE &&
		    lsa_sloops_get(s, sl->parent)->header == sl->header) {
			row->kind = LSA_CMP_INNER;
		} else if (!e) {
			row->kind = LSA_CMP_NO_DYNAMIC;
		} else {
			const struct lsp_view_loop *vl = &v->loops[*e - 1];

			row->loop = (uint32_t)(*e - 1);
			matched[row->loop] = 1;
			row->d_iterations = vl->iterations;
			row->d_entries = vl->entries;
			row->kind = vl->iterations == sl->iterations &&
				    vl->entries == sl->invocations ?
				    LSA_CMP_SAME : LSA_CMP_COUNTS;
		}
		if (row->kind == LSA_CMP_INNER && e)
			row->loop = (uint32_t)(*e - 1);
	}
	for (i = 0; i < p->n_loops; i++) {
		struct lsa_cmp *row;

		if (!v->loops[i].seen || matched[i])
			continue;
		row = &rows[k++];
		row->sloop = LSA_SLOOP_NONE;
		row->loop = (uint32_t)i;
		row->kind = LSA_CMP_NO_STRUCTURAL;
		row->d_iterations = v->loops[i].iterations;
		row->d_entries = v->loops[i].entries;
	}
	lsa_kmap_release(&heads);
	free(matched);
	*out = rows;
	*n = k;
	return 0;
nomem:
	lsa_kmap_release(&heads);
	free(rows);
	free(matched);
	return -LS_ENOMEM;
}
