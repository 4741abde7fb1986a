/* profile_sread.c - reading the structural records of a version 4
 * profile (formats/profile.md: sview, sloop, stail, sirr, sentry). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"

int lsp_rd_real(struct lsp_rd *r, int i, const char *what, double *out)
{
	const char *s = r->f[i];
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return lsp_rd_bad(r, -LS_ECORRUPT, what, s);
	errno = 0;
	*out = strtod(s, &end);
	if (*end || errno || !isfinite(*out))
		return lsp_rd_bad(r, -LS_ECORRUPT, what, s);
	return 0;
}

static int rd_sview_rec(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	int err;

	if (p->has_sview)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "sview");
	if ((err = lsp_rd_real(r, 1, "bad merge threshold", &p->smerge_t)))
		return err;
	p->has_sview = 1;
	return 0;
}

static int rd_sloop(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	struct lsp_sloop s;
	uint64_t idx;
	int err, m;

	memset(&s, 0, sizeof(s));
	if ((err = lsp_rd_u64(r, 1, "bad index", &idx)))
		return err;
	if (idx != p->n_sloops)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	if ((err = lsp_rd_u32(r, 2, "bad block", &s.header)) ||
	    (err = lsp_rd_idx(r, 3, "sloop", p->n_sloops, 1, &s.parent)) ||
	    (err = lsp_rd_u32(r, 4, "bad depth", &s.depth)) ||
	    (err = lsp_rd_idx(r, 6, "loop", p->n_loops, 1, &s.loop)) ||
	    (err = lsp_rd_hex(r, 7, "bad offset", &s.head_off)) ||
	    (err = lsp_rd_str(r, 8, "where")) || (err = lsp_rd_str(r, 9, "source")) ||
	    (err = lsp_rd_u64(r, 10, "bad count", &s.static_insns)) ||
	    (err = lsp_rd_u64(r, 11, "bad count", &s.iterations)) ||
	    (err = lsp_rd_u64(r, 12, "bad count", &s.invocations)) ||
	    (err = lsp_rd_u64(r, 13, "bad count", &s.self)) ||
	    (err = lsp_rd_u64(r, 14, "bad count", &s.total)) ||
	    (err = lsp_rd_real(r, 15, "bad iterations per invocation", &s.iters_per_inv)) ||
	    (err = lsp_rd_real(r, 16, "bad coverage", &s.coverage)))
		return err;
	if ((m = lsp_smatch_code(r->f[5])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown match", r->f[5]);
	s.match = (uint32_t)m;
	/* the depth follows the parent; a match names a loop, no-dynamic none */
	if (s.depth != (s.parent == LSP_NONE ? 1 : p->sloops[s.parent].depth + 1))
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad depth", r->f[4]);
	if ((s.match <= LSP_SM_COUNTS) != (s.loop != LSP_NONE) && s.match != LSP_SM_INNER)
		return lsp_rd_bad(r, -LS_ECORRUPT, "match and loop disagree", r->f[5]);
	if (s.self > s.total)
		return lsp_rd_bad(r, -LS_ECORRUPT, "self above total", r->f[13]);
	s.where = r->f[8];
	s.src = r->f[9];
	return lsp_add_sloop(p, &s);
}

static int rd_stail(struct lsp_rd *r)
{
	struct lsp_stail t;
	int err;

	if ((err = lsp_rd_idx(r, 1, "sloop", r->p->n_sloops, 0, &t.sloop)) ||
	    (err = lsp_rd_u32(r, 2, "bad block", &t.block)) ||
	    (err = lsp_rd_u64(r, 3, "bad count", &t.count)))
		return err;
	/* by loop, each loop's in the analysis' order */
	if (r->p->n_stails && r->p->stails[r->p->n_stails - 1].sloop > t.sloop)
		return lsp_rd_bad(r, -LS_ECORRUPT, "stail out of order", r->f[1]);
	return lsp_add_stail(r->p, &t);
}

static int rd_sirr(struct lsp_rd *r)
{
	struct lsp_sirr s;
	uint64_t idx;
	int err;

	if ((err = lsp_rd_u64(r, 1, "bad index", &idx)))
		return err;
	if (idx != r->p->n_sirrs)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	if ((err = lsp_rd_u32(r, 2, "bad block count", &s.nblocks)) ||
	    (err = lsp_rd_u64(r, 3, "bad count", &s.insns)))
		return err;
	return lsp_add_sirr(r->p, &s);
}

static int rd_sentry(struct lsp_rd *r)
{
	struct lsp_sentry e;
	int err;

	if ((err = lsp_rd_idx(r, 1, "sirr", r->p->n_sirrs, 0, &e.irr)) ||
	    (err = lsp_rd_str(r, 2, "where")) || (err = lsp_rd_str(r, 3, "source")))
		return err;
	if (r->p->n_sentries && r->p->sentries[r->p->n_sentries - 1].irr > e.irr)
		return lsp_rd_bad(r, -LS_ECORRUPT, "sentry out of order", r->f[1]);
	e.where = r->f[2];
	e.src = r->f[3];
	return lsp_add_sentry(r->p, &e);
}

int lsp_rd_sview(struct lsp_rd *r, int t)
{
	if (t == LSP_R_SVIEW)
		return rd_sview_rec(r);
	if (!r->p->has_sview)
		return lsp_rd_bad(r, -LS_ECORRUPT, "record before 'sview':", r->f[0]);
	switch (t) {
	case LSP_R_SLOOP: return rd_sloop(r);
	case LSP_R_STAIL: return rd_stail(r);
	case LSP_R_SIRR: return rd_sirr(r);
	case LSP_R_SENTRY: return rd_sentry(r);
	default: return lsp_rd_bad(r, -LS_ECORRUPT, "unknown record", r->f[0]);
	}
}
