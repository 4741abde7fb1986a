/* fast_out.c - the fast path's blocks going out: the runs a chunk's walk
 * made (blocks of its own in loc, chains' blocks by reference or copied)
 * handed to the callbacks where libipt would have made them final, the
 * rest flattened into loc. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/fast_int.h"
#include "ls_err.h"

size_t lsd_spans_copy(struct lsd_block *o, const struct lsd_bspan *s, size_t ns)
{
	size_t i, k = 0;

	for (i = 0; i < ns; i++) {
		if (s[i].n <= LSD_CH_MAX)
			lsd_fchain_out(o + k, s[i].b, (unsigned)s[i].n);
		else
			lsd_blocks_copy(o + k, s[i].b, s[i].n);
		k += s[i].n;
	}
	return k;
}

int lsd_spans_flat(struct lsd_block **buf, size_t *cap, const struct lsd_bspan *s, size_t ns,
		   size_t *n)
{
	size_t i, k = 0;

	for (i = 0; i < ns; i++)
		k += s[i].n;
	if (k > *cap) {
		size_t c = k < LSD_FAST_OUT ? LSD_FAST_OUT : k;

		free(*buf);
		if (!(*buf = malloc((c + 1) * sizeof(**buf)))) {
			*cap = 0;
			return -LS_ENOMEM;
		}
		*cap = c;
	}
	*n = lsd_spans_copy(*buf, s, ns);
	return 0;
}

/* Sets s[0 .. ns).again and .whole.  A run made of a chain's (or a trail's) whole array, where
 * its slot keeps it, is made with again 1 when the slot handed it out
 * whole before (a slot is not built again while a run points into it,
 * and a part of such a run is of blocks handed out), else -1; every
 * other run with 0, and a run cut short or moved off its chain's first
 * block is set to 0.  So at delivery a run of -1 still starts at its
 * chain's first block: the slot is marked as handing it out when it is
 * the whole chain (building or copying into a slot clears the mark).
 * whole: a run of -1 that is its chain's or trail's whole array (the
 * first handed out whole since the slot was built). */
static void spans_again(const struct lsd_decoder *d, struct lsd_bspan *s, size_t ns)
{
	size_t i;

	for (i = 0; i < ns; i++) {
		struct lsd_fchain *ch;

		if (s[i].again >= 0) {	/* (most: chains handed out before) */
			s[i].whole = 0;
			continue;
		}
		if (s[i].again == LSD_TR_AGAIN) {
			/* a trail's whole array, as a chain's */
			struct lsd_ftrail *t = (struct lsd_ftrail *)(void *)
				((char *)(uintptr_t)s[i].b - offsetof(struct lsd_ftrail, b));

			s[i].again = 0;
			s[i].whole = s[i].n == t->nb;
			if (s[i].whole)
				t->out = 1;
			continue;
		}
		ch = (struct lsd_fchain *)(void *)((char *)(uintptr_t)s[i].b -
						   offsetof(struct lsd_fchain, b));
		s[i].again = 0;
		s[i].whole = s[i].n == lsd_fchain_head(d, ch)->nb;
		if (s[i].whole)
			lsd_fchain_head(d, ch)->out = 1;
	}
}

/* Hands out the n blocks of runs s[0 .. ns): to the spans callback as
 * they are (unless the chunk copies its chains: the consumer wants no
 * runs now), else copied into f->out for lsd_run_put().  Returns 0 or a
 * callback's return. */
static int put_spans(struct lsd_fctx *c, struct lsd_bspan *s, size_t ns, size_t n)
{
	struct lsd_run *r = c->r;

	if (r->cbret)
		return r->cbret;
	if (r->spanfn && !c->copy && !r->nbatch && !r->skip) {
		spans_again(c->d, s, ns);
		return r->cbret = r->spanfn(r->arg, r->stream, s, ns);
	}
	if (ns == 1)		/* loc's one run, where chains are copied */
		return lsd_run_put(r, s[0].b, n);
	(void)lsd_spans_copy(c->f->out, s, ns);
	return lsd_run_put(r, c->f->out, n);
}

/* Copies the blocks not handed out into loc as one run: none points into
 * a chain's slot any more (the slot may be built again), and loc starts
 * over. */
void lsd_fast_flatten(struct lsd_fctx *c)
{
	struct lsd_fast *f = c->f;
	struct lsd_bspan *sp = f->sp;
	size_t i, k;

	if (c->n) {
		/* Through out: a run may point into loc where the copy goes.
		 * Exact copies: the rest of a run cut by lsd_fast_commit() may end at
		 * the end of a chain's array. */
		for (i = 0, k = 0; i < c->nsp; k += sp[i++].n)
			memcpy(f->out + k, sp[i].b, sp[i].n * sizeof(*f->out));
		memcpy(f->loc, f->out, c->n * sizeof(*f->loc));
		sp[0].b = f->loc;
		sp[0].n = c->n;
		sp[0].again = 0;
		c->nsp = 1;
		c->tail_loc = 1;
	} else {
		c->nsp = 0;
		c->tail_loc = 0;
	}
	/* (no run points into a chain's slot now) */
	if (!++c->d->ch_epoch)
		c->d->ch_epoch = 1;
	c->nloc = c->n;
}

/* Where the first fin of the c->n blocks not handed out end: runs
 * [0, *pi) whole and the first *ppart blocks of run *pi, found from the
 * end, where the few blocks not handed out are. */
static void cut_at(const struct lsd_fctx *c, size_t fin, size_t *pi, size_t *ppart)
{
	const struct lsd_bspan *sp = c->f->sp;
	size_t i = c->nsp, acc = c->n - fin, part = 0;

	while (acc) {
		i--;
		if (acc < sp[i].n) {
			part = sp[i].n - acc;
			break;
		}
		acc -= sp[i].n;
	}
	*pi = i;
	*ppart = part;
}

/* Hands out the final blocks libipt has read past (the first fin, up to
 * c->safe), and flattens the others.  Before the chunk's end (!all) the
 * last of them stays unless tracing stopped after it: libipt gives it
 * its exit only when its next block decodes, and gives it a gap where
 * that fails (an instruction it cannot decode there, a packet that does
 * not match), which the fast path may find only later.  Returns 0 or a
 * callback's return. */
int lsd_fast_commit(struct lsd_fctx *c, int all)
{
	struct lsd_bspan *sp = c->f->sp, keep = { NULL, 0, 0, 0 };
	size_t i = 0, part = 0, fin = c->fin;
	int err = 0;

	if (c->safe - c->delivered < fin)
		fin = (size_t)(c->safe - c->delivered);
	if (fin) {
		cut_at(c, fin, &i, &part);
		if (!all) {
			const struct lsd_block *b = part ? &sp[i].b[part - 1] :
						      &sp[i - 1].b[sp[i - 1].n - 1];

			/* one block less: the last of run i - 1 or of run i's part */
			if (b->exit != LSD_EXIT_SYSCALL && b->exit != LSD_EXIT_ASYNC &&
			    b->exit != LSD_EXIT_END) {
				fin--;
				if (!part)
					part = sp[--i].n;
				part--;
			}
		}
	}
	if (fin) {
		if (part) {
			keep = sp[i];
			sp[i].n = part;
		}
		err = put_spans(c, sp, i + !!part, fin);
		if (part) {
			sp[i].b = keep.b + part;
			sp[i].n = keep.n - part;
			sp[i].again = 0;
		}
		c->delivered += fin;
		c->n -= fin;
		c->fin -= fin;
		memmove(sp, sp + i, (c->nsp - i) * sizeof(*sp));
		c->nsp -= i;
	}
	lsd_fast_flatten(c);
	return err;
}

/* Makes the last block a copy of its own in loc (it may be a chain's)
 * and returns it, to change its exit. */
struct lsd_block *lsd_fast_last_own(struct lsd_fctx *c)
{
	struct lsd_fast *f = c->f;
	struct lsd_bspan *s = &f->sp[c->nsp - 1];
	struct lsd_block *o;

	if (c->tail_loc)
		return &f->loc[c->nloc - 1];
	o = &f->loc[c->nloc++];
	*o = s->b[--s->n];
	if (!s->n)
		c->nsp--;
	f->sp[c->nsp].b = o;
	f->sp[c->nsp].again = 0;
	f->sp[c->nsp++].n = 1;
	c->tail_loc = 1;
	return o;
}
