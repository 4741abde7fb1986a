/* profile_parts.c - what merging needs beyond adding rows: which bundles
 * and shards a profile holds (so no part is counted twice, and the shards
 * of one bundle become one run again), and the labels of loops both sides
 * hold, chosen as the whole bundle's analysis would choose them.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"

int lsp_part_conflict(const struct lsp_profile *dst, const struct lsp_profile *src,
		      size_t *di, size_t *si)
{
	size_t i, k;

	if (!dst || !src)
		return 0;
	for (k = 0; k < src->n_parts; k++)
		for (i = 0; i < dst->n_parts; i++) {
			const struct lsp_part *a = &dst->parts[i], *b = &src->parts[k];

			if (strcmp(a->bundle, b->bundle) ||
			    (a->nshards == b->nshards && a->shard != b->shard))
				continue;
			if (di)
				*di = i;
			if (si)
				*si = k;
			return 1;
		}
	return 0;
}

uint32_t lsp_part_runs(const struct lsp_profile *dst, const struct lsp_profile *src,
		       uint32_t *runmap)
{
	uint32_t r, nnew = 0;
	size_t i, k;

	for (r = 0; r < src->nruns; r++) {
		runmap[r] = LSP_NONE;
		for (k = 0; k < src->n_parts && runmap[r] == LSP_NONE; k++) {
			if (src->parts[k].run != r)
				continue;
			for (i = 0; i < dst->n_parts; i++)
				if (!strcmp(dst->parts[i].bundle, src->parts[k].bundle)) {
					runmap[r] = dst->parts[i].run;
					break;
				}
		}
		if (runmap[r] == LSP_NONE)
			runmap[r] = dst->nruns + nnew++;
	}
	return nnew;
}

/* Removes part i, freeing its id. */
static void part_drop(struct lsp_profile *p, size_t i)
{
	free(p->parts[i].bundle);
	memmove(&p->parts[i], &p->parts[i + 1], (p->n_parts - i - 1) * sizeof(*p->parts));
	p->n_parts--;
}

int lsp_part_join(struct lsp_profile *dst, const struct lsp_profile *src,
		  const uint32_t *runmap)
{
	size_t i, k, n;
	int err;

	for (k = 0; k < src->n_parts; k++) {
		const struct lsp_part *q = &src->parts[k];

		if ((err = lsp_part_add(dst, runmap[q->run], q->bundle, q->shard,
					q->nshards)) < 0)
			return err;
	}
	/* A bundle whose shards are all there is the whole bundle: the
	 * profile its analysis writes says shard 0 of 1.  Parts never
	 * repeat (lsp_part_conflict()), so counting them is enough. */
	for (i = 0; i < dst->n_parts; i++) {
		const struct lsp_part *q = &dst->parts[i];

		if (q->nshards < 2)
			continue;
		for (n = 0, k = 0; k < dst->n_parts; k++)
			n += !strcmp(dst->parts[k].bundle, q->bundle);
		if (n != q->nshards)
			continue;
		for (k = dst->n_parts; k-- > i + 1;)
			if (!strcmp(dst->parts[k].bundle, q->bundle))
				part_drop(dst, k);
		dst->parts[i].shard = 0;
		dst->parts[i].nshards = 1;
	}
	return 0;
}

struct tsum {
	uint32_t loop;
	uint64_t off, count;
};

static int tsum_cmp(const void *x, const void *y)
{
	const struct tsum *a = x, *b = y;

	if (a->loop != b->loop)
		return a->loop < b->loop ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* The rule of the detector's labels (analysis/loops_out.c, label_loops):
 * the back branch with the most loop-backs over all threads, ties to the
 * lowest offset. */
int lsp_best_tails(const struct lsp_profile *p, struct lsp_best **out)
{
	struct tsum *v = malloc((p->n_tails + 1) * sizeof(*v));
	struct lsp_best *b = calloc(p->n_loops + 1, sizeof(*b));
	size_t i, k;

	if (!v || !b) {
		free(v);
		free(b);
		return -LS_ENOMEM;
	}
	for (i = 0; i < p->n_tails; i++)
		v[i] = (struct tsum){ p->tails[i].loop, p->tails[i].off, p->tails[i].count };
	qsort(v, p->n_tails, sizeof(*v), tsum_cmp);
	for (i = 0; i < p->n_tails; i = k) {
		uint64_t n = 0;

		for (k = i; k < p->n_tails && v[k].loop == v[i].loop && v[k].off == v[i].off; k++)
			n += v[k].count;
		if (v[i].loop < p->n_loops && n > b[v[i].loop].count)
			b[v[i].loop] = (struct lsp_best){ n, v[i].off };
	}
	free(v);
	*out = b;
	return 0;
}

/* A tail row of loop at offset off (any thread's: they give one label). */
static const struct lsp_tail *tail_of(const struct lsp_profile *p, uint32_t loop,
				      uint64_t off)
{
	size_t i;

	for (i = 0; i < p->n_tails; i++)
		if (p->tails[i].loop == loop && p->tails[i].off == off)
			return &p->tails[i];
	return NULL;
}

static int same_best(const struct lsp_best *a, const struct lsp_best *b)
{
	return a->count ? b->count && a->off == b->off : !b->count;
}

/* Widens dst's lines to src's: both were found in the same file and
 * inline chain, so the union is the lines of both sides' code. */
static void widen(struct lsp_loop *d, const struct lsp_loop *s)
{
	if (s->first_line && (!d->first_line || s->first_line < d->first_line))
		d->first_line = s->first_line;
	if (s->last_line > d->last_line)
		d->last_line = s->last_line;
}

int lsp_merge_labels(struct lsp_profile *dst, const struct lsp_profile *src,
		     const uint32_t *lmap, const uint8_t *both,
		     const struct lsp_best *dbest, const struct lsp_best *sbest,
		     size_t *unlabeled)
{
	struct lsp_best *m = NULL;
	size_t i, bad = 0;
	int err;

	if ((err = lsp_best_tails(dst, &m)) < 0)
		return err;
	for (i = 0; i < src->n_loops && !err; i++) {
		const struct lsp_loop *s = &src->loops[i];
		uint32_t j = lmap[i];
		struct lsp_loop *d = &dst->loops[j];
		int same;

		if (!both[i])
			continue;
		/* Lines found in another file or inline chain cannot be
		 * placed in this one's range. */
		same = !strcmp(d->file, s->file) && !strcmp(d->inlined_from, s->inlined_from);
		if (same_best(&dbest[j], &m[j])) {
			bad += !same;
			if (same)
				widen(d, s);
			continue;
		}
		if (!same_best(&sbest[i], &m[j])) {
			/* neither side's: the label the merged best branch
			 * gives (its tail rows keep it), in the same file */
			const struct lsp_tail *t = tail_of(dst, j, m[j].off);

			if (!same || !t || !t->line || strcmp(t->file, d->file)) {
				bad++;
				if (same)
					widen(d, s);
				continue;
			}
			d->line = t->line;
			widen(d, s);
			if (d->first_line && t->line < d->first_line)
				d->first_line = t->line;
			if (t->line > d->last_line)
				d->last_line = t->line;
			continue;
		}
		/* src's label is the merged one's */
		{
			struct lsp_loop keep = *d;

			if ((err = lsp_loop_set_lines(dst, j, s->file, s->line, s->head_file,
						      s->head_line)) < 0 ||
			    (err = lsp_loop_set_range(dst, j, s->first_line, s->last_line,
						      s->inlined_from)) < 0)
				break;
			if (same)
				widen(&dst->loops[j], &keep);
			else
				bad++;
		}
	}
	free(m);
	if (unlabeled)
		*unlabeled += bad;
	return err;
}
