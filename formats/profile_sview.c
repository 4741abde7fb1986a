/* profile_sview.c - the structural records of a profile (version 4):
 * adding, dropping, and renumbering them with the loops. */
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define SV_GROW(p, name) \
	LS_GROW((p)->name, (p)->n_##name + 1, (p)->cap_##name, 16)

static const char *const smatch_names[LSP_SM_MAX] = {
	"same", "counts", "inner", "no-dynamic",
};

const char *lsp_smatch_name(unsigned m)
{
	return m < LSP_SM_MAX ? smatch_names[m] : "?";
}

int lsp_smatch_code(const char *name)
{
	unsigned i;

	for (i = 0; name && i < LSP_SM_MAX; i++)
		if (!strcmp(name, smatch_names[i]))
			return (int)i;
	return -LS_EINVAL;
}

/* Two copied strings, NULL as "".  Returns 0 or -LS_ENOMEM. */
static int dup2(char **a, const char *sa, char **b, const char *sb)
{
	*a = strdup(sa ? sa : "");
	*b = strdup(sb ? sb : "");
	if (*a && *b)
		return 0;
	free(*a), free(*b);
	return -LS_ENOMEM;
}

int lsp_add_sloop(struct lsp_profile *p, const struct lsp_sloop *s)
{
	struct lsp_sloop *o;

	if (!p || !s || s->match >= LSP_SM_MAX ||
	    (s->parent != LSP_NONE && s->parent >= p->n_sloops) ||
	    (s->loop != LSP_NONE && s->loop >= p->n_loops))
		return -LS_EINVAL;
	if (SV_GROW(p, sloops) < 0)
		return -LS_ENOMEM;
	o = &p->sloops[p->n_sloops];
	*o = *s;
	if (dup2(&o->where, s->where, &o->src, s->src) < 0)
		return -LS_ENOMEM;
	p->n_sloops++;
	p->has_sview = 1;
	return 0;
}

int lsp_add_stail(struct lsp_profile *p, const struct lsp_stail *t)
{
	if (!p || !t || t->sloop >= p->n_sloops)
		return -LS_EINVAL;
	if (SV_GROW(p, stails) < 0)
		return -LS_ENOMEM;
	p->stails[p->n_stails++] = *t;
	return 0;
}

int lsp_add_sirr(struct lsp_profile *p, const struct lsp_sirr *r)
{
	if (!p || !r)
		return -LS_EINVAL;
	if (SV_GROW(p, sirrs) < 0)
		return -LS_ENOMEM;
	p->sirrs[p->n_sirrs++] = *r;
	p->has_sview = 1;
	return 0;
}

int lsp_add_sentry(struct lsp_profile *p, const struct lsp_sentry *e)
{
	struct lsp_sentry *o;

	if (!p || !e || e->irr >= p->n_sirrs)
		return -LS_EINVAL;
	if (SV_GROW(p, sentries) < 0)
		return -LS_ENOMEM;
	o = &p->sentries[p->n_sentries];
	o->irr = e->irr;
	if (dup2(&o->where, e->where, &o->src, e->src) < 0)
		return -LS_ENOMEM;
	p->n_sentries++;
	return 0;
}

void lsp_sview_drop(struct lsp_profile *p)
{
	size_t i;

	for (i = 0; i < p->n_sloops; i++)
		free(p->sloops[i].where), free(p->sloops[i].src);
	for (i = 0; i < p->n_sentries; i++)
		free(p->sentries[i].where), free(p->sentries[i].src);
	free(p->sloops), free(p->stails), free(p->sirrs), free(p->sentries);
	p->sloops = NULL, p->stails = NULL, p->sirrs = NULL, p->sentries = NULL;
	p->n_sloops = p->n_stails = p->n_sirrs = p->n_sentries = 0;
	p->cap_sloops = p->cap_stails = p->cap_sirrs = p->cap_sentries = 0;
	p->has_sview = 0;
	p->smerge_t = 0;
}

void lsp_sview_remap(struct lsp_profile *p, const uint32_t *lm)
{
	size_t i;

	/* their own order is the analysis' (loops per function, outer
	 * before inner): only the detected loops they name move */
	for (i = 0; i < p->n_sloops; i++)
		if (p->sloops[i].loop != LSP_NONE)
			p->sloops[i].loop = lm[p->sloops[i].loop];
}
