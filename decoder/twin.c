/* twin.c - a second decoder of a decoder's bundle, for another thread,
 * and the map from its static blocks to the first decoder's.
 *
 * A decoder is one thread's: its chains, trails and caches change as it
 * decodes.  A twin opened on the same file with the same options finds
 * the same heads, so it splits the code into the same static blocks; it
 * numbers them in the order it meets them, so a block it hands out is
 * named in the first decoder's terms by lsd_sbmap_find() (a block's
 * process, first and last address and mode say which it is).  Or, given
 * a share of the first decoder's blocks (lsd_twin_share()), it finds
 * every block it splits among them and hands out the first's own
 * records, making none: for code the first decoded already.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

int lsd_open_twin(struct lsd_decoder **pd, const struct lsd_decoder *d)
{
	struct lsb_reader *r;
	struct lsd_opts o;
	int err;

	if (!pd || !d)
		return -LS_EINVAL;
	*pd = NULL;
	if ((err = lsb_reader_open(&r, lsb_reader_path(d->r))) != 0)
		return err;
	o = d->o;
	o.size = sizeof(o);
	o.jobs = 1;
	if ((err = lsd_open_from(pd, r, &o, d, NULL, 0)) != 0) {
		lsb_reader_close(r);
		return err;
	}
	(*pd)->own_r = 1;
	return 0;
}

/* Open addressing over static blocks (0: empty; AMBIG set where two
 * blocks are alike, which a decoder never makes: lookups of it find
 * none).  The map holds the blocks themselves, which never move: a look
 * reads nothing of the decoder, which may go on decoding. */
#define AMBIG ((uintptr_t)1)

struct lsd_sbmap {
	uintptr_t *slot;
	size_t mask;
};

static size_t sb_hash(const struct lsd_sblock *sb)
{
	return lsd_hash64(sb->start ^ (sb->last - sb->start) << 40 ^ (uint64_t)sb->pid << 20 ^
			  (uint64_t)sb->mode << 60);
}

static int sb_same(const struct lsd_sblock *a, const struct lsd_sblock *b)
{
	return a->start == b->start && a->last == b->last && a->pid == b->pid &&
	       a->mode == b->mode;
}

static const struct lsd_sblock *slot_sb(uintptr_t v)
{
	return (const struct lsd_sblock *)(v & ~AMBIG);
}

int lsd_sbmap_new(struct lsd_sbmap **pm, const struct lsd_decoder *d)
{
	struct lsd_sbmap *m;
	size_t n, cap = 64, i;

	if (!pm || !d)
		return -LS_EINVAL;
	*pm = NULL;
	n = d->sbt.n;
	while (cap < 2 * n)
		cap *= 2;
	if (!(m = calloc(1, sizeof(*m))) || !(m->slot = calloc(cap, sizeof(*m->slot)))) {
		free(m);
		return -LS_ENOMEM;
	}
	m->mask = cap - 1;
	for (i = 0; i < n; i++) {
		const struct lsd_sblock *sb = lsd_sb(d, i);
		size_t h = sb_hash(sb) & m->mask;

		for (;; h = (h + 1) & m->mask) {
			uintptr_t v = m->slot[h];

			if (!v) {
				m->slot[h] = (uintptr_t)sb;
				break;
			}
			if (sb_same(slot_sb(v), sb)) {
				m->slot[h] = v | AMBIG;
				break;
			}
		}
	}
	*pm = m;
	return 0;
}

const struct lsd_sblock *lsd_sbmap_find(const struct lsd_sbmap *m,
					const struct lsd_sblock *sb)
{
	size_t h;

	if (!m || !sb)
		return NULL;
	for (h = sb_hash(sb) & m->mask;; h = (h + 1) & m->mask) {
		uintptr_t v = m->slot[h];

		if (!v)
			return NULL;
		if (sb_same(slot_sb(v), sb))
			return v & AMBIG ? NULL : slot_sb(v);
	}
}

void lsd_sbmap_free(struct lsd_sbmap *m)
{
	if (!m)
		return;
	free(m->slot);
	free(m);
}

/* d's static block table and, per address space, its index by start, as
 * they were when taken: the pages hold the blocks themselves. */
struct lsd_sbshare {
	struct lsd_sblock **pages;
	size_t npages, n;
	struct shsp {
		uint32_t pid;
		uint32_t *idx;
		size_t nidx, idxcap;
	} *sp;
	size_t nsp;
};

void lsd_sbshare_free(struct lsd_sbshare *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->sp && i < s->nsp; i++)
		free(s->sp[i].idx);
	free(s->sp);
	free(s->pages);
	free(s);
}

/* A copy of the n words at p (NULL for none).  Returns 0 or -LS_ENOMEM. */
static int words_dup(uint32_t **out, const uint32_t *p, size_t n)
{
	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = malloc(n * sizeof(**out))))
		return -LS_ENOMEM;
	memcpy(*out, p, n * sizeof(**out));
	return 0;
}

int lsd_sbshare_new(struct lsd_sbshare **ps, const struct lsd_decoder *d)
{
	struct lsd_sbshare *s;
	size_t i;

	if (!ps || !d)
		return -LS_EINVAL;
	*ps = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return -LS_ENOMEM;
	s->npages = d->sbt.npages;
	s->n = d->sbt.n;
	s->nsp = d->nimgs + 1;
	if (!(s->pages = malloc((s->npages ? s->npages : 1) * sizeof(*s->pages))) ||
	    !(s->sp = calloc(s->nsp, sizeof(*s->sp)))) {
		lsd_sbshare_free(s);
		return -LS_ENOMEM;
	}
	if (s->npages)
		memcpy(s->pages, d->sbt.pages, s->npages * sizeof(*s->pages));
	for (i = 0; i < s->nsp; i++) {
		const struct lsd_space *sp = &d->spaces[i];

		s->sp[i].pid = sp->img->pid;
		s->sp[i].nidx = sp->nidx;
		s->sp[i].idxcap = sp->idxcap;
		if (words_dup(&s->sp[i].idx, sp->idx, sp->idxcap)) {
			lsd_sbshare_free(s);
			return -LS_ENOMEM;
		}
	}
	*ps = s;
	return 0;
}

/* lsd_twin_share(), and lsd_twin_reshare() where again is set. */
static int share(struct lsd_decoder *tw, const struct lsd_sbshare *s, int again)
{
	struct lsd_sblock **pages;
	uint32_t **idx;
	size_t i;

	if (!tw || !s || s->nsp != tw->nimgs + 1)
		return -LS_EINVAL;
	/* (again: a later share of the same decoder, its blocks a prefix
	 * of s's, which hold the same records at the same places) */
	if (again ? !tw->sbt.lent || s->n < tw->sbt.n || s->npages < tw->sbt.npages ||
		    (tw->sbt.npages &&
		     memcmp(s->pages, tw->sbt.pages, tw->sbt.npages * sizeof(*s->pages))) :
		    tw->sbt.n != 0)
		return -LS_EINVAL;
	for (i = 0; i < s->nsp; i++)
		if (s->sp[i].pid != tw->spaces[i].img->pid || (!again && tw->spaces[i].nidx))
			return -LS_EINVAL;
	/* (all copies made before any is put in: on failure tw is as it was) */
	if (!(idx = calloc(s->nsp, sizeof(*idx))) ||
	    !(pages = malloc((s->npages ? s->npages : 1) * sizeof(*pages)))) {
		free(idx);
		return -LS_ENOMEM;
	}
	for (i = 0; i < s->nsp; i++) {
		if (words_dup(&idx[i], s->sp[i].idx, s->sp[i].idxcap)) {
			while (i--)
				free(idx[i]);
			free(idx);
			free(pages);
			return -LS_ENOMEM;
		}
	}
	for (i = tw->sbt.lent ? tw->sbt.nlent : 0; i < tw->sbt.npages; i++)
		free(tw->sbt.pages[i]);
	free(tw->sbt.pages);
	if (s->npages)
		memcpy(pages, s->pages, s->npages * sizeof(*pages));
	tw->sbt.pages = pages;
	tw->sbt.npages = tw->sbt.nlent = s->npages;
	tw->sbt.lent = 1;
	tw->sbt.n = tw->sbt.cap = s->n;
	for (i = 0; i < s->nsp; i++) {
		struct lsd_space *sp = &tw->spaces[i];

		free(sp->idx);
		sp->idx = idx[i];
		sp->nidx = s->sp[i].nidx;
		sp->idxcap = s->sp[i].idxcap;
	}
	free(idx);
	return 0;
}

int lsd_twin_share(struct lsd_decoder *tw, const struct lsd_sbshare *s)
{
	return share(tw, s, 0);
}

int lsd_twin_reshare(struct lsd_decoder *tw, const struct lsd_sbshare *s)
{
	return share(tw, s, 1);
}
