/* deps_new.c - the dependence profiler made and freed, and the bundle's
 * memory accesses spooled per stream before the decode (deps.c runs
 * them). */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/deps_int.h"
#include "ls_err.h"

int lsa_deps_new(struct lsa_deps **pd, struct lsd_decoder *d,
		 struct lsb_reader *r, struct lsd_symbols *sym,
		 const struct lsa_cfg *c, const struct lsa_sloops *sl)
{
	struct lsa_deps *D;
	size_t i, ns;

	if (!pd || !d || !r || !c || !sl)
		return -LS_EINVAL;
	D = calloc(1, sizeof(*D));
	if (!D)
		return -LS_ENOMEM;
	D->d = d;
	D->r = r;
	D->sym = sym;
	D->c = c;
	D->sl = sl;
	D->nsb = lsd_nsblocks(d);
	D->nstreams = lsb_reader_nstreams(r);
	D->cmin = DEPS_COMPACT;
	ns = lsa_sloops_count(sl);
	D->sbloop = calloc(D->nsb ? D->nsb : 1, sizeof(*D->sbloop));
	D->lpc = calloc(ns ? ns : 1, sizeof(*D->lpc));
	D->sp = calloc(D->nstreams ? D->nstreams : 1, sizeof(*D->sp));
	D->thr = calloc(D->nstreams ? D->nstreams : 1, sizeof(*D->thr));
	if (!D->sbloop || !D->lpc || !D->sp || !D->thr) {
		lsa_deps_free(D);
		return -LS_ENOMEM;
	}
	/* Loops come outer before inner: the innermost one wins. */
	for (i = 0; i < ns; i++) {
		const struct lsa_sloop *s = lsa_sloops_get(sl, i);
		uint32_t k;

		for (k = 0; k < s->nblocks; k++) {
			const struct lsa_cfg_block *cb = lsa_cfg_block(c, s->blocks[k]);

			if (cb && cb->sb && cb->sb->id < D->nsb)
				D->sbloop[cb->sb->id] = (uint32_t)i + 1;
		}
	}
	*pd = D;
	return 0;
}

/* --- the spools ------------------------------------------------------ */

struct load_ctx {
	struct lsa_deps *D;
	int64_t bytes;
	int err;
};

static int on_mem(uint32_t stream, const void *enc, size_t len, void *arg)
{
	struct load_ctx *lc = arg;
	struct lsa_deps *D = lc->D;
	struct deps_spool *s = NULL;
	uint32_t n = (uint32_t)len;
	size_t i;

	for (i = 0; i < D->nstreams; i++)
		if (lsb_reader_stream(D->r, i)->id == stream) {
			s = &D->sp[i];
			break;
		}
	if (!s) {
		D->st.damaged++;	/* a stream the bundle does not declare */
		return 0;
	}
	if (!s->f && !(s->f = tmpfile())) {
		lc->err = -LS_EIO;
		return 1;
	}
	if (fwrite(&n, sizeof(n), 1, s->f) != 1 || fwrite(enc, 1, len, s->f) != len) {
		lc->err = -LS_EIO;
		return 1;
	}
	lc->bytes += (int64_t)len;
	return 0;
}

int64_t lsa_deps_load(struct lsa_deps *D)
{
	struct load_ctx lc = { D, 0, 0 };
	size_t i;
	int err;

	if (!D)
		return -LS_EINVAL;
	err = lsb_reader_memacc(D->r, on_mem, &lc);
	if (lc.err)
		return lc.err;
	if (err == -LS_ECORRUPT)
		D->st.damaged++;	/* a damaged section was skipped */
	else if (err < 0)
		return err;
	for (i = 0; i < D->nstreams; i++)
		if (D->sp[i].f && (fflush(D->sp[i].f) || fseek(D->sp[i].f, 0, SEEK_SET)))
			return -LS_EIO;
	return lc.bytes ? lc.bytes : -LS_ENOENT;
}

int lsa_deps_set_compact(struct lsa_deps *D, uint32_t step)
{
	if (!D || D->st.accesses)
		return -LS_EINVAL;
	D->cmin = step;
	return 0;
}

void lsa_deps_get_stats(const struct lsa_deps *D, struct lsa_deps_stats *st)
{
	*st = D->st;
}

void lsa_deps_free(struct lsa_deps *D)
{
	size_t i;
	uint32_t k;

	if (!D)
		return;
	for (i = 0; i < D->nstreams; i++) {
		struct deps_thr *t = &D->thr[i];

		deps_spool_release(&D->sp[i]);
		for (k = 0; k < t->capnest; k++) {
			deps_tab_release(&t->pend[k]);
			deps_tab_release(&t->hist[k]);
		}
		free(t->pend);
		free(t->hist);
		free(t->nest);
		free(t->fr);
	}
	lsa_deps_results_free(D);
	lsa_kmap_release(&D->fdie);
	free(D->sp);
	free(D->thr);
	free(D->sbloop);
	free(D->lpc);
	free(D->site);
	free(D->rec);
	free(D->alloc);
	lsa_kmap_release(&D->siteidx);
	lsa_kmap_release(&D->recidx);
	free(D);
}
