/* loops_eflo.c - loop entries of the eager pass's local frames
 * (loops_erun.h): a call its tight loop took whole whose callee runs
 * loops.  What each function does is what the path design does to an
 * entry of a frame of its own (close_inst(), lsa_loops_give()), kept
 * here until the call returns or its frame is made. */
#include "analysis/loops_erun.h"
#include "ls_err.h"

int lsa_erun_put(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_inst *lin,
		 const struct lsd_sblock *sb)
{
	uint32_t ii, p;
	struct lsa_inst *in;
	int err;

	if ((err = lsa_loops_inst_new(l, lin->loop, &ii)) ||
	    (err = lsa_loops_path_push(l, t, sb)) || (err = lsa_eager_os_push(t, ii)))
		return err;
	p = t->npath - 1;
	t->path[p].ei = ii;
	in = &l->inst[ii];
	in->pidx = p;
	in->trips = lin->trips;
	in->tail = lin->tail;
	in->tail_run = lin->tail_run;
	in->self = lin->self;
	/* (a count with no instructions is all 0: lsa_eager_run()'s own
	 * local entry nests none, and zeroes n[0] alone) */
	if (lin->tot.n[0])
		in->tot = lin->tot;
	if (lin->same.n[0])
		in->same = lin->same;
	return 0;
}

/* Count c as the vectors v (a run's: widened). */
static void flo_set(struct lsa_cnt *c, const lsa_v4 *v)
{
	int k, i;

	for (k = 0; k < LSA_NV; k++)
		for (i = 0; i < 4 && 4 * k + i < LSA_NC; i++)
			c->n[4 * k + i] = v[k][i];
}

/* Whether head sb, coming to the local frame at depth d, is on a path:
 * of a frame below (lsa_loops_mem_get()), or one the eager pass keeps on
 * the local frames' (any of them: a function runs in one local frame at
 * a time, so a head of a frame below is none of this frame's). */
static int flo_on_path(const struct lsa_thr *t, const struct lsa_fls *s,
		       const struct lsd_sblock *sb)
{
	unsigned j;

	if (lsa_loops_mem_get(t, sb->id) != LSA_NONE)
		return 1;
	for (j = 0; j < s->nh; j++)
		if (s->h[j]->id == sb->id)
			return 1;
	return 0;
}

void lsa_flo_open(struct lsa_fls *s, uint32_t loop, const struct lsd_sblock *sb, unsigned d,
		  const lsa_v4 *now)
{
	struct lsa_flo *o = &s->o[s->no++];
	int k;

	/* (field by field: its sums are set where it goes into the pool) */
	o->in.loop = loop;
	o->in.tail = LSA_NONE;
	o->in.tail_run = 0;
	o->in.trips = 1;
	for (k = 0; k < LSA_NV; k++)
		o->v[k] = now[k];
	o->hk = o->hs = 0;
	o->hi = s->nh;
	s->h[s->nh] = sb;
	s->hd[s->nh++] = d;
	s->od = d;
}

/* The innermost open entry closes, the run's sums now: close_inst()'s
 * counts; its total to the entry it is nested in, else kept.  Returns 0
 * or -LS_ENOMEM. */
static int flo_close(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s,
		     const lsa_v4 *now)
{
	struct lsa_flo *o = &s->o[s->no - 1];
	struct lsa_lrow *r = lsa_loops_lrow(t, o->in.loop);
	const uint32_t loop = o->in.loop;
	lsa_v4 tot[LSA_NV];
	int k, err;

	if (!r)
		return -LS_ENOMEM;
	for (k = 0; k < LSA_NV; k++)
		tot[k] = now[k] - o->v[k];
	if (!o->hk) {
		/* (none nested closed: most of them, straight through) */
		lsa_vadd(&r->self, tot[0], tot[1], tot[2]);
		lsa_vadd(&r->total, tot[0], tot[1], tot[2]);
	} else {
		/* its self: less what nested entries gave; its loop's
		 * total: less what nested entries of its own loop added
		 * already */
		for (k = 0; k < LSA_NV; k++) {
			lsa_vacc(&r->self, k, tot[k] - o->kt[k], 0);
			lsa_vacc(&r->total, k, o->hs ? tot[k] - o->ks[k] : tot[k], 0);
		}
	}
	if ((err = lsa_loops_entry_add(l, t, r, loop, o->in.trips)) ||
	    (err = lsa_loops_tail_flush(t, &o->in)))
		return err;
	s->no--;
	if (s->no) {
		struct lsa_flo *p = &s->o[s->no - 1];

		for (k = 0; k < LSA_NV; k++)
			p->kt[k] = (p->hk ? p->kt[k] : (lsa_v4){ 0, 0, 0, 0 }) + tot[k];
		p->hk = 1;
		if (p->in.loop == loop) {
			for (k = 0; k < LSA_NV; k++)
				p->ks[k] = (p->hs ? p->ks[k] : (lsa_v4){ 0, 0, 0, 0 }) + tot[k];
			p->hs = 1;
		}
		return lsa_loops_edge_add(t, p->in.loop, loop, 1, tot[0][0]);
	}
	/* (lsa_flo_room() left room) */
	flo_set(&s->c[s->nc].tot, tot);
	s->c[s->nc].loop = loop;
	s->c[s->nc++].kd = s->od;
	return 0;
}

int lsa_flo_leave(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s,
		  uint32_t id, const lsa_v4 *now, int out)
{
	int err;

	if (out && (err = flo_close(l, t, s, now)))
		return err;
	while (s->no) {
		const uint32_t loop = s->o[s->no - 1].in.loop;

		if (t->inb[id] == loop + 1 || t->inb2[id] == loop + 1 ||
		    lsa_loops_in_body_note(t, loop, id))
			return 0;
		if ((err = flo_close(l, t, s, now)))
			return err;
	}
	return 0;
}

int lsa_flo_head(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s,
		 const struct lsd_sblock *sb, const lsa_v4 *now)
{
	const uint32_t loop = t->head[sb->id];	/* (+ 1) */
	int err;

	if (!loop || flo_on_path(t, s, sb))
		return 0;
	if (s->no && (err = lsa_flo_leave(l, t, s, sb->id, now, 0)))
		return err;
	return lsa_flo_room(s) &&
	       (!s->no || lsa_loops_entry_ok(l, t, loop - 1, s->o[s->no - 1].in.loop + 1));
}

void lsa_flo_up(struct lsa_fls *s, unsigned d)
{
	unsigned c;

	for (c = 0; c < s->nc; c++)
		if (s->c[c].kd > d)
			s->c[c].kd = d;
	while (s->nh && s->hd[s->nh - 1] > d)
		s->nh--;
}

int lsa_flo_ret(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		struct lsa_inst *in, struct lsa_fls *s, struct lsa_cnt *x)
{
	unsigned c;
	int err;

	memset(x, 0, sizeof(*x));
	for (c = 0; c < s->nc; c++) {
		lsa_cnt_add(x, &s->c[c].tot);
		if ((err = lsa_loops_owner_take(l, t, in, f, s->c[c].loop, 1, &s->c[c].tot)))
			return err;
	}
	s->nc = s->nh = 0;
	return 0;
}

int lsa_flo_made(struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s, unsigned d,
		 const lsa_v4 *now)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	unsigned c, j, o;
	int k, err = 0;

	for (c = 0; c < s->nc && !err; c++) {
		if (s->c[c].kd == d) {
			lsa_cnt_sub(&f->fself, &s->c[c].tot);
			err = lsa_loops_owner_take(l, t, NULL, f, s->c[c].loop, 1, &s->c[c].tot);
		}
	}
	/* (what the open entries ran since they opened is theirs) */
	if (!err && s->no && d == s->od)
		for (k = 0; k < LSA_NV; k++)
			lsa_vacc(&f->fself, k, now[k] - s->o[0].v[k], 1);
	/* the heads on its path, in order, each open entry's going into the
	 * pool with it */
	for (j = o = 0; j < s->nh && !err; j++) {
		struct lsa_flo *e = o < s->no && d == s->od ? &s->o[o] : NULL;
		const lsa_v4 *n;
		lsa_v4 x[LSA_NV];

		if (s->hd[j] != d)
			continue;
		if (!e || e->hi != j) {
			err = lsa_loops_path_push(l, t, s->h[j]);
			continue;
		}
		/* (its self: its sums up to the next one's opening, less what
		 * those nested in it that closed gave) */
		n = o + 1 < s->no ? s->o[o + 1].v : now;
		for (k = 0; k < LSA_NV; k++)
			x[k] = n[k] - e->v[k] - (e->hk ? e->kt[k] : (lsa_v4){ 0, 0, 0, 0 });
		flo_set(&e->in.self, x);
		if (e->hk)
			flo_set(&e->in.tot, e->kt);
		else
			e->in.tot.n[0] = 0;
		if (e->hs)
			flo_set(&e->in.same, e->ks);
		else
			e->in.same.n[0] = 0;
		err = lsa_erun_put(l, t, &e->in, s->h[j]);
		o++;
	}
	return err;
}
