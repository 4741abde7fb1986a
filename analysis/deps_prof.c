/* deps_prof.c - the verdicts and dependences into a loop profile
 * (`analyze --deps`). */
#include <string.h>

#include "analysis/deps_int.h"
#include "ls_err.h"
#include "formats/profile.h"

_Static_assert((int)LSA_V_NOT == (int)LSP_V_NOT && (int)LSA_V_MAX == (int)LSP_V_MAX,
	       "the profile's verdict codes are the analysis's");

/* p's module for bundle module m: by build-id, else by path. */
static uint32_t prof_module(const struct lsp_profile *p, const struct lsb_module *m)
{
	size_t i;

	for (i = 0; m && i < p->n_modules; i++) {
		const struct lsp_module *pm = &p->modules[i];

		if (m->build_id_len ? pm->build_id_len == m->build_id_len &&
				      !memcmp(pm->build_id, m->build_id, m->build_id_len) :
				      !pm->build_id_len && pm->path && m->path &&
				      !strcmp(pm->path, m->path))
			return (uint32_t)i;
	}
	return LSP_NONE;
}

int lsa_deps_to_profile(const struct lsa_deps *D, struct lsp_profile *p,
			size_t *unmatched)
{
	size_t i, k, j;
	int err;

	if (!D || !p)
		return -LS_EINVAL;
	if (unmatched)
		*unmatched = 0;
	for (i = 0; i < D->nloops; i++) {
		const struct lsa_deps_loop *L = &D->loops[i];
		struct lsp_verdict v;
		uint32_t mod = L->module < 0 ? LSP_NONE :
			       prof_module(p, lsb_reader_module(D->r, (size_t)L->module));

		for (j = 0; mod != LSP_NONE && j < p->n_loops; j++)
			if (p->loops[j].module == mod && p->loops[j].head_off == L->head_off)
				break;
		if (mod == LSP_NONE || j == p->n_loops) {
			/* A structural header the detector did not take as a head. */
			if (unmatched)
				(*unmatched)++;
			continue;
		}
		v.loop = (uint32_t)j;
		v.verdict = L->verdict;
		v.needs = L->needs;
		if ((err = lsp_set_verdict(p, &v)) < 0)
			return err;
		for (k = 0; k < L->ndeps; k++) {
			const struct lsa_deps_dep *d = &D->deps[L->first + k];
			struct lsp_dep pd;

			if (d->note == LSA_NOTE_CALLEE)
				continue;	/* private to a callee: noise */
			memset(&pd, 0, sizeof(pd));
			pd.loop = (uint32_t)j;
			pd.kind = d->kind;
			pd.decides = d->decides;
			pd.note = (char *)lsa_deps_note_name(d->note);
			pd.var = (char *)d->var;
			pd.src_vaddr = d->src_vaddr;
			pd.dst_vaddr = d->dst_vaddr;
			pd.src_file = (char *)d->src_file;
			pd.dst_file = (char *)d->dst_file;
			pd.src_line = d->src_line;
			pd.dst_line = d->dst_line;
			pd.count = d->count;
			pd.dmin = d->dmin;
			pd.dtyp = d->dtyp;
			if ((err = lsp_add_dep(p, &pd)) < 0)
				return err;
		}
	}
	return 0;
}
