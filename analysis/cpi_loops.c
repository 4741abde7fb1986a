/* cpi_loops.c - the loops whose CPI is reported: the loop detector's,
 * from a loop profile, and the structural loops of the executed CFG. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi.h"
#include "analysis/sloops.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

/* Bundle module of profile module m (by build-id, else path), or -1. */
static int32_t bundle_module(struct lsb_reader *r, const struct lsp_module *m)
{
	size_t i, n = lsb_reader_nmodules(r);

	for (i = 0; i < n; i++) {
		const struct lsb_module *b = lsb_reader_module(r, i);

		if (m->build_id_len ? b->build_id_len == m->build_id_len &&
				      !memcmp(b->build_id, m->build_id, m->build_id_len)
				    : b->path && m->path && !strcmp(b->path, m->path))
			return (int32_t)i;
	}
	return -1;
}

/* The detector's loops, their bodies closed from their head and back
 * branches in the executed CFG: the detector finds loops on the path of
 * each frame, so a loop's body is what reaches a back branch from the
 * head without passing it again. */
static int add_dynamic(struct lsa_cpi *cpi, const struct lsa_cfg *cfg,
		       struct lsb_reader *r, const struct lsp_profile *p,
		       uint32_t *dyn_loop, size_t *ndyn)
{
	size_t i, k;
	uint32_t *tails;
	int err = 0;

	tails = malloc((p->n_tails + 1) * sizeof(*tails));
	if (!tails)
		return -LS_ENOMEM;
	for (i = 0; i < p->n_loops && err >= 0; i++) {
		const struct lsp_loop *l = &p->loops[i];
		int32_t mod = bundle_module(r, &p->modules[l->module]);
		uint32_t h = lsa_cpi_find(cpi, mod, l->head_off), *body;
		size_t nt = 0;
		int n;

		if (mod < 0 || h == LSA_CPI_NONE)
			continue;
		h = lsa_cpi_insn(cpi, h)->block;
		for (k = 0; k < p->n_tails; k++) {
			uint32_t t;

			if (p->tails[k].loop != i)
				continue;
			t = lsa_cpi_find(cpi, mod, p->tails[k].off);
			if (t != LSA_CPI_NONE)
				tails[nt++] = lsa_cpi_insn(cpi, t)->block;
		}
		n = lsa_cpi_natural_body(cfg, h, tails, nt, &body);
		if (n < 0) {
			err = n;
			break;
		}
		err = lsa_cpi_loop_add(cpi, LSA_CPI_DYNAMIC, h, body, (size_t)n);
		free(body);
		if (err >= 0)
			dyn_loop[(*ndyn)++] = (uint32_t)i;
	}
	free(tails);
	return err < 0 ? err : 0;
}

static int add_structural(struct lsa_cpi *cpi, const struct lsa_cfg *cfg,
			  struct lsa_sloops **psl)
{
	struct lsa_sloops_opts so = { .size = sizeof(so) };
	size_t i, n;
	int err;

	if ((err = lsa_sloops_find(psl, cfg, &so)) < 0)
		return err;
	n = lsa_sloops_count(*psl);
	for (i = 0; i < n; i++) {
		const struct lsa_sloop *l = lsa_sloops_get(*psl, i);

		err = lsa_cpi_loop_add(cpi, LSA_CPI_STRUCTURAL, l->header,
				       l->blocks, l->nblocks);
		if (err < 0)
			return err;
	}
	return 0;
}

int lsa_cpi_add_loops(struct lsa_cpi *cpi, const struct lsa_cfg *cfg,
		      struct lsb_reader *r, const struct lsp_profile *p,
		      uint32_t **dyn_loop, size_t *ndyn, struct lsa_sloops **psl)
{
	int err;

	if (!cpi || !cfg || !r || !p || !dyn_loop || !ndyn || !psl)
		return -LS_EINVAL;
	*ndyn = 0;
	*dyn_loop = malloc((p->n_loops + 1) * sizeof(**dyn_loop));
	if (!*dyn_loop)
		return -LS_ENOMEM;
	if ((err = add_dynamic(cpi, cfg, r, p, *dyn_loop, ndyn)) < 0)
		return err;
	return add_structural(cpi, cfg, psl);
}
