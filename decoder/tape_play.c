/* tape_play.c - a tape replayed (tape.h): its records, in order, as the
 * decode made them, or from a chunk's first record on (a player per
 * thread: the second pass's pieces).  tape_int.h says what a record holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/fast_int.h"
#include "decoder/tape_int.h"
#include "ls_err.h"

/* pl->buf with room for n blocks after its first.  Returns 0 or
 * -LS_ENOMEM. */
static int buf_room(struct lsd_tape_player *pl, size_t n)
{
	size_t c = n < 1024 ? 1024 : n;

	if (n <= pl->capbuf)
		return 0;
	free(pl->buf);
	/* (the block before the first, and lsd_fchain_out()'s last unit) */
	if (!(pl->buf = malloc((c + 2) * sizeof(*pl->buf)))) {
		pl->capbuf = 0;
		return -LS_ENOMEM;
	}
	pl->capbuf = c;
	return 0;
}

/* The run at r (n blocks, n >= 1) into o[0 .. n), their static blocks
 * from flat (by id); o[-1] is written and put back.  Returns the word
 * after the run. */
static const uint32_t *play_run(const struct lsd_sblock *const *flat, const uint32_t *r,
				struct lsd_block *o, size_t n)
{
	struct lsd_block *pv = o - 1;
	const uint64_t keep = pv->next;
	const uint32_t *e;
	uint32_t ne, k;
	size_t j;

	/* (each block's next is the start of the one after, but for the
	 * escapes: set as that one is made, through pv, the block before
	 * o[j] at pv[j]; the first's into the block before, put back: no
	 * test in the loop) */
	for (j = 0; j < n; j++) {
		uint32_t v = r[j];
		const struct lsd_sblock *sb = flat[v >> 4];

		o[j].sb = sb;
		o[j].exit = (uint8_t)(v & 15);
		o[j].id = v >> 4;
		pv[j].next = sb->start;
	}
	pv->next = keep;
	e = r + n;
	o[n - 1].next = e[0] | (uint64_t)e[1] << 32;
	ne = e[2];
	e += 3;
	for (k = 0; k < ne; k++, e += 3)
		o[e[0]].next = e[1] | (uint64_t)e[2] << 32;
	return e;
}

/* The blocks of a record at r (n of them) into pl->buf, handed to cb.
 * Returns the callback's return, or -LS_ENOMEM; *next the record after. */
static int play_blocks(struct lsd_tape_player *pl, const struct lsd_sblock *const *flat,
		       const uint32_t *r, size_t n, const struct lsd_callbacks *cb,
		       void *arg, const uint32_t **next)
{
	if (buf_room(pl, n))
		return -LS_ENOMEM;
	*next = play_run(flat, r + 2, pl->buf + 1, n);
	return cb->blocks(arg, r[1], pl->buf + 1, n);
}

/* A spans record at r into pl->buf, handed to cb as one call (the arrays
 * given kept by id in pl->def).  Returns the callback's return,
 * -LS_ENOMEM, or -LS_EINVAL for an id not given; *next the record
 * after. */
static int play_spans(struct lsd_tape_player *pl, const struct lsd_sblock *const *flat,
		      const uint32_t *r, const struct lsd_callbacks *cb, void *arg,
		      const uint32_t **next)
{
	size_t ns = r[0] >> 4, n = r[2], i, k = 0, m;
	const uint32_t *e = r + 3;
	struct lsd_block *o;

	if (buf_room(pl, n))
		return -LS_ENOMEM;
	o = pl->buf + 1;
	for (i = 0; i < ns; i++) {
		uint32_t tag = *e++, v = tag >> 2;
		struct tdef *d;

		if ((tag & 3) == SP_RUN) {
			m = v;
			if (m > n - k)
				return -LS_EINVAL;
			e = play_run(flat, e, o + k, m);
			k += m;
			continue;
		}
		if (v >= pl->t->nkey)
			return -LS_EINVAL;
		d = &pl->def[v];
		if ((tag & 3) == SP_REF || (tag & 3) == SP_PART) {
			m = (tag & 3) == SP_REF ? d->n : *e++;
			if (!d->b || !d->n || m > d->n || m > n - k)
				return -LS_EINVAL;
			if (m <= LSD_CH_MAX)	/* (o and d->b have room) */
				lsd_fchain_out(o + k, d->b, (unsigned)m);
			else
				memcpy(o + k, d->b, m * sizeof(*o));
			k += m;
			continue;
		}
		m = *e++;
		if (m > n - k)
			return -LS_EINVAL;
		e = play_run(flat, e, o + k, m);
		if (m > d->cap) {
			free(d->b);
			if (!(d->b = malloc((m + 1) * sizeof(*d->b)))) {
				d->n = d->cap = 0;
				return -LS_ENOMEM;
			}
			d->cap = (uint32_t)m;
		}
		memcpy(d->b, o + k, m * sizeof(*o));
		d->n = (uint32_t)m;
		k += m;
	}
	if (k != n)
		return -LS_EINVAL;
	*next = e;
	return cb->blocks(arg, r[1], o, n);
}

/* The static blocks by id in t->flat: one load a block in play_run(),
 * not lsd_sb()'s page and index (sqlite3's replay 9 to 3 instructions a
 * block for it).  Every id on the tape is of a block made before it was
 * written.  Returns 0 or -LS_ENOMEM. */
static int flat_make(struct lsd_tape *t)
{
	size_t i, nsb = t->d->sbt.n;

	if (t->flat && t->nflat == nsb)
		return 0;
	free(t->flat);
	t->nflat = 0;
	if (!(t->flat = malloc((nsb ? nsb : 1) * sizeof(*t->flat))))
		return -LS_ENOMEM;
	for (i = 0; i < nsb; i++)
		t->flat[i] = lsd_sb(t->d, i);
	t->nflat = nsb;
	return 0;
}

static int player_init(struct lsd_tape_player *pl, const struct lsd_tape *t)
{
	pl->t = t;
	if (t->nkey && !pl->def && !(pl->def = calloc(t->nkey, sizeof(*pl->def))))
		return -LS_ENOMEM;
	return 0;
}

void lsd_tape_player_fini(struct lsd_tape_player *pl)
{
	size_t i;

	free(pl->buf);
	if (pl->def)
		for (i = 0; i < pl->t->nkey; i++)
			free(pl->def[i].b);
	free(pl->def);
	memset(pl, 0, sizeof(*pl));
}

/* The record at r (of stream r[1]) to cb with arg; blocks alone says a
 * stream's begin, end and thread are not made.  Returns as a callback,
 * or -LS_ENOMEM, -LS_EINVAL; *next the record after. */
static int play_one(struct lsd_tape_player *pl, const uint32_t *r, const struct lsd_callbacks *cb,
		    void *arg, int blocks, const uint32_t **next)
{
	const struct lsd_sblock *const *flat = pl->t->flat;
	size_t stream = r[1];
	int err = 0;

	switch (*r & 15) {
	case TP_BLOCKS:
		return play_blocks(pl, flat, r, *r >> 4, cb, arg, next);
	case TP_SPANS:
		return play_spans(pl, flat, r, cb, arg, next);
	case TP_LOSS: {
		struct lsd_loss l;

		memcpy(&l, r + 2, sizeof(l));
		*next = r + 2 + WORDS(l);
		return cb->loss ? cb->loss(arg, stream, &l) : 0;
	}
	case TP_BEGIN: {
		struct lsb_stream bs;

		memcpy(&bs, r + 2, sizeof(bs));
		if (cb->stream_begin && !blocks)
			err = cb->stream_begin(arg, stream, *r >> 4 ? NULL : &bs);
		*next = r + 2 + WORDS(bs);
		return err;
	}
	case TP_END: {
		struct lsd_stream_stats st;

		memcpy(&st, r + 2, sizeof(st));
		*next = r + 2 + WORDS(st);
		return cb->stream_end && !blocks ? cb->stream_end(arg, stream, &st) : 0;
	}
	case TP_THREAD:
		*next = r + 4;
		return cb->thread && !blocks ? cb->thread(arg, stream, r[2], r[3]) : 0;
	default:
		return -LS_EINVAL;	/* (never written) */
	}
}

int lsd_tape_replay(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg)
{
	const struct seg *s;
	int err = 0;

	if (!lsd_tape_whole(t))
		return -LS_EINVAL;
	if ((err = flat_make(t)) || (err = player_init(&t->own, t)))
		return err;
	for (s = t->head; s && !err; s = s->next) {
		const uint32_t *r = s->w, *end = s->w + SEG_WORDS;

		while (!err && r < end && *r)
			err = play_one(&t->own, r, cb, arg, 0, &r);
	}
	return err;
}

int lsd_tape_player_new(struct lsd_tape_player **pp, struct lsd_tape *t)
{
	struct lsd_tape_player *pl;
	int err;

	*pp = NULL;
	if (!lsd_tape_whole(t))
		return -LS_EINVAL;
	if ((err = flat_make(t)))
		return err;
	if (!(pl = calloc(1, sizeof(*pl))))
		return -LS_ENOMEM;
	if ((err = player_init(pl, t))) {
		free(pl);
		return err;
	}
	*pp = pl;
	return 0;
}

void lsd_tape_player_free(struct lsd_tape_player *pl)
{
	if (!pl)
		return;
	lsd_tape_player_fini(pl);
	free(pl);
}

/* The word after the run of n blocks at r (put_run()'s layout). */
static const uint32_t *run_skip(const uint32_t *r, size_t n)
{
	return r + n + 3 + 3 * (size_t)r[n + 2];
}

/* The record after the one at r, which is not read otherwise (another
 * stream's, whose names may be of runs given before the chunks played). */
static const uint32_t *rec_skip(const uint32_t *r)
{
	size_t ns, k;
	const uint32_t *e;

	switch (*r & 15) {
	case TP_BLOCKS:
		return run_skip(r + 2, *r >> 4);
	case TP_SPANS:
		ns = *r >> 4;
		e = r + 3;
		for (k = 0; k < ns; k++) {
			uint32_t tag = *e++;

			if ((tag & 3) == SP_RUN)
				e = run_skip(e, tag >> 2);
			else if ((tag & 3) == SP_PART)
				e++;
			else if ((tag & 3) == SP_DEF)
				e = run_skip(e + 1, *e);
		}
		return e;
	case TP_LOSS:
		return r + 2 + WORDS(struct lsd_loss);
	case TP_BEGIN:
		return r + 2 + WORDS(struct lsb_stream);
	case TP_END:
		return r + 2 + WORDS(struct lsd_stream_stats);
	default:	/* TP_THREAD */
		return r + 4;
	}
}

int lsd_tape_replay_chunks(struct lsd_tape_player *pl, size_t i, size_t first, size_t last,
			   const struct lsd_callbacks *cb, void *arg)
{
	const struct lsd_tape *t = pl ? pl->t : NULL;
	const struct tstream *ts;
	const struct seg *s, *es = NULL;
	const uint32_t *r, *stop = NULL;
	size_t k;
	int err = 0;

	if (!t || !lsd_tape_has_chunks(t, i, first, last))
		return -LS_EUNSUP;
	ts = &t->ts[i];
	/* (no run given before the first chunk is named in it: a name
	 * without its blocks is a tape unlike its writer's) */
	for (k = 0; k < t->nkey && pl->def; k++)
		pl->def[k].n = 0;
	if (last + 1 < ts->nchunks) {
		es = ts->pos[last + 1].s;
		stop = es->w + ts->pos[last + 1].off;
	}
	s = ts->pos[first].s;
	r = s->w + ts->pos[first].off;
	while (!err && s) {
		const uint32_t *end = s->w + SEG_WORDS;

		while (!err && r < end && *r && r != stop) {
			if (r[1] != i) {	/* (another stream's) */
				r = rec_skip(r);
				continue;
			}
			if ((*r & 15) == TP_END)
				return 0;
			err = play_one(pl, r, cb, arg, 1, &r);
		}
		if (r == stop || err)
			break;
		s = s->next;
		r = s ? s->w : NULL;
	}
	return err;
}
