/* deps.c - Prospector's dependence profiling over the block stream merged
 * with the recorded memory accesses (see deps.h); the profiler made, its
 * accesses spooled and freed in deps_new.c. */
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* --- sites and conflict records -------------------------------------- */

/* The site of the instruction at ip (in sb), + 1; 0: out of memory. */
static uint32_t site_of(struct lsa_deps *D, uint64_t ip, const struct lsd_sblock *sb)
{
	/* A loop's few instructions access again and again: a direct-mapped
	 * cache before the map (a site's number never changes). */
	struct deps_sitec *c = &D->sitec[(ip ^ ip >> 9) & (DEPS_SITEC - 1)];
	uint64_t *v;

	if (c->site && c->ip == ip)
		return c->site;
	v = lsa_kmap_get(&D->siteidx, ip, 0);
	if (!v)
		return 0;
	if (!*v) {
		if (LS_GROW32(D->site, D->nsite + 1, D->capsite, 256))
			return 0;
		D->site[D->nsite].ip = ip;
		D->site[D->nsite].sb = sb;
		*v = ++D->nsite;
	}
	c->ip = ip;
	c->site = (uint32_t)*v;
	return c->site;
}

/* --- allocations ------------------------------------------------------ */

static void rec_alloc(const struct lsa_deps *D, struct deps_rec *r)
{
	const struct deps_alloc *al = r->where.odepth < 0 ? deps_alloc_find(D, r->addr) : NULL;

	r->asite = al ? al->site : 0;
	r->abase = al ? al->lo : 0;
}

/* The variable of e: its address, or for a stack slot the slot of its
 * frame's function (the same local in every recursion level). */
static uint64_t var_key(const struct deps_ent *e)
{
	if (e->odepth < 0 || !e->ofn)
		return e->addr;
	return 1ull << 63 | (uint64_t)e->ofn->id << 24 | ((uint64_t)e->cfaoff & 0xffffff);
}

static int rec_add(struct lsa_deps *D, const struct deps_nent *n, int kind,
		   uint32_t src, uint32_t dst, uint64_t dist,
		   const struct deps_ent *e, uint64_t li)
{
	unsigned rel = e->odepth < 0 || (uint32_t)e->odepth < n->frame ? REL_OUTER :
		       (uint32_t)e->odepth == n->frame ? REL_SAME : REL_DEEPER;
	uint64_t *v = lsa_kmap_get(&D->recidx, (uint64_t)n->loop << 4 | rel << 2 | (unsigned)kind,
				   (uint64_t)src << 32 | dst);
	struct deps_rec *r;

	if (!v)
		return -LS_ENOMEM;
	if (!*v) {
		if (LS_GROW32(D->rec, D->nrec + 1, D->caprec, 64))
			return -LS_ENOMEM;
		r = &D->rec[D->nrec];
		memset(r, 0, sizeof(*r));
		r->loop = n->loop;
		r->kind = (uint8_t)kind;
		r->src = src;
		r->dst = dst;
		r->dmin = dist;
		r->addr = e->addr;
		r->where = *e;
		r->rel = (uint8_t)rel;
		r->vkey = var_key(e);
		rec_alloc(D, r);
		*v = ++D->nrec;
	}
	r = &D->rec[*v - 1];
	if (e->addr < r->addr) {
		/* The lowest address names it, whatever the tables' order. */
		r->addr = e->addr;
		r->where = *e;
		rec_alloc(D, r);
	}
	r->count++;
	r->li += li;
	if (dist < r->dmin)
		r->dmin = dist;
	r->dist[dist < LSA_DEPS_DIST ? dist : LSA_DEPS_DIST]++;
	if (r->vkey != var_key(e))
		r->multi = 1;
	return 0;
}

/* --- loop entries ---------------------------------------------------- */

static void add_read(struct deps_ent *h, uint32_t site, uint64_t it)
{
	int k, old = 0;

	for (k = 0; k < DEPS_NR; k++) {
		if (h->r[k] == site || !h->r[k]) {
			h->r[k] = site;
			h->rit[k] = it;
			return;
		}
		if (h->rit[k] < h->rit[old])
			old = k;
	}
	/* More read sites than kept: the longest unread one goes. */
	h->r[old] = site;
	h->rit[old] = it;
}

static void copy_where(struct deps_ent *to, const struct deps_ent *from)
{
	to->odepth = from->odepth;
	to->ofn = from->ofn;
	to->cfaoff = from->cfaoff;
}

/* The pairs found for one pending entry, so that two history entries
 * overlapping it count a pair once. */
struct pairs {
	uint32_t n;
	struct { uint32_t src, dst; int kind; } p[3 * DEPS_NR * 4];
};

static int pair_new(struct pairs *ps, int kind, uint32_t src, uint32_t dst)
{
	uint32_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->p[i].kind == kind && ps->p[i].src == src && ps->p[i].dst == dst)
			return 0;
	if (ps->n < sizeof(ps->p) / sizeof(ps->p[0])) {
		ps->p[ps->n].kind = kind;
		ps->p[ps->n].src = src;
		ps->p[ps->n++].dst = dst;
	}
	return 1;
}

/* Pending entry e of nest entry n against history entry h, which
 * overlaps it. */
static int check(struct lsa_deps *D, const struct deps_nent *n, const struct deps_ent *e,
		 const struct deps_ent *h, struct pairs *ps)
{
	int err, j;

	for (j = 0; h->w && j < DEPS_NR && e->r[j]; j++)
		if (pair_new(ps, LSA_DEP_RAW, h->w, e->r[j]) &&
		    (err = rec_add(D, n, LSA_DEP_RAW, h->w, e->r[j], n->it - h->wit, e, 0)) < 0)
			return err;
	for (j = 0; e->w && j < DEPS_NR && h->r[j]; j++)
		if (pair_new(ps, LSA_DEP_WAR, h->r[j], e->w) &&
		    (err = rec_add(D, n, LSA_DEP_WAR, h->r[j], e->w, n->it - h->rit[j], e, 0)) < 0)
			return err;
	if (e->w && h->w && pair_new(ps, LSA_DEP_WAW, h->w, e->w) &&
	    (err = rec_add(D, n, LSA_DEP_WAW, h->w, e->w, n->it - h->wit, e, e->li)) < 0)
		return err;
	return 0;
}

static void note_max(struct lsa_deps *D)
{
	if (D->entries > D->st.max_entries)
		D->st.max_entries = D->entries;
	if (D->live > D->st.max_addrs)
		D->st.max_addrs = D->live;
}

/* The iteration of nest entry k ends: its pending table against its
 * history (by overlapping bytes), then into it (by address). */
static int iter_end(struct lsa_deps *D, struct deps_thr *t, uint32_t k)
{
	struct deps_nent *n = &t->nest[k];
	struct deps_tab *P = &t->pend[k], *H = &t->hist[k];
	const struct deps_ent *ov[DEPS_MAXOV], *e;
	struct deps_ent etmp;
	struct deps_it it;
	struct pairs ps;
	size_t m, no;
	int err, isnew, j, one;

	/* All checks first: an entry merged early must not meet another
	 * entry of its own iteration that it overlaps.  When none can,
	 * each is checked as it merges (one probe of the history). */
	one = deps_tab_regular(P, H);
	memset(&it, 0, sizeof(it));
	while (!one && (e = deps_tab_next(P, &it, &etmp))) {
		ps.n = 0;
		no = deps_tab_overlaps(H, e->addr, e->len, ov, D->ovbuf);
		for (m = 0; m < no; m++)
			if ((err = check(D, n, e, ov[m], &ps)) < 0)
				return err;
	}
	memset(&it, 0, sizeof(it));
	while ((e = deps_tab_next(P, &it, &etmp))) {
		struct deps_ent *h = deps_tab_get(H, e->addr, &isnew);

		if (!h)
			return -LS_ENOMEM;
		if (isnew) {
			D->live++;
			copy_where(h, e);
		} else if (one) {
			ps.n = 0;
			if ((err = check(D, n, e, h, &ps)) < 0)
				return err;
		}
		deps_tab_len(H, h, e->len);
		if (e->w) {
			h->w = e->w;
			h->wit = n->it;
			h->wlen = e->wlen;
		}
		for (j = 0; j < DEPS_NR && e->r[j]; j++)
			add_read(h, e->r[j], n->it);
		h->li += e->li;
		note_max(D);
		deps_tab_maybe_compact(H);
	}
	D->live -= deps_tab_count(P);
	deps_tab_clear(P);
	return 0;
}

/* Ends the innermost open entry: its last iteration, then its history
 * into the parent's pending table. */
static int entry_end(struct lsa_deps *D, struct deps_thr *t)
{
	uint32_t k = t->nnest - 1;
	struct deps_tab *H = &t->hist[k];
	const struct deps_ent *h;
	struct deps_ent htmp;
	struct deps_it it;
	int err, isnew, j;

	if ((err = iter_end(D, t, k)) < 0)
		return err;
	D->lpc[t->nest[k].loop].entries++;
	D->lpc[t->nest[k].loop].iterations += t->nest[k].it;
	D->st.entries++;
	memset(&it, 0, sizeof(it));
	while (k > 0 && (h = deps_tab_next(H, &it, &htmp))) {
		struct deps_tab *P = &t->pend[k - 1];
		struct deps_ent *p;
		uint64_t wa;
		/* Its reads are uses of the parent iteration's writes when
		 * those cover them. */
		int cov = h->r[0] && deps_tab_covered(P, h->addr, h->len, &wa, D->cvbuf);

		if (cov) {
			struct deps_ent *cw = deps_tab_get(P, wa, &isnew);

			if (!cw)
				return -LS_ENOMEM;
			cw->li++;
		}
		if (!(p = deps_tab_get(P, h->addr, &isnew)))
			return -LS_ENOMEM;
		if (isnew) {
			D->live++;
			copy_where(p, h);
		}
		deps_tab_len(P, p, h->len);
		p->li += h->li;
		if (!p->w || cov) {
			if (!cov)
				for (j = 0; j < DEPS_NR && h->r[j]; j++)
					add_read(p, h->r[j], 0);
			if (!p->w && h->w) {
				p->w = h->w;
				p->wlen = h->wlen;
			}
		}
		note_max(D);
		deps_tab_maybe_compact(P);
	}
	D->live -= deps_tab_count(H);
	deps_tab_clear(H);
	t->nnest--;
	return 0;
}

static int nest_push(struct lsa_deps *D, struct deps_thr *t, uint32_t loop)
{
	if (t->nnest == t->capnest) {
		uint32_t nc = t->capnest ? t->capnest * 2 : 8;
		struct deps_nent *nn = realloc(t->nest, (size_t)nc * sizeof(*nn));
		struct deps_tab *np, *nh;

		if (!nn)
			return -LS_ENOMEM;
		t->nest = nn;
		np = realloc(t->pend, (size_t)nc * sizeof(*np));
		if (!np)
			return -LS_ENOMEM;
		t->pend = np;
		nh = realloc(t->hist, (size_t)nc * sizeof(*nh));
		if (!nh)
			return -LS_ENOMEM;
		t->hist = nh;
		memset(t->pend + t->capnest, 0, (size_t)(nc - t->capnest) * sizeof(*np));
		memset(t->hist + t->capnest, 0, (size_t)(nc - t->capnest) * sizeof(*nh));
		t->capnest = nc;
	}
	/* Its tables count their entries and compact at D's step. */
	t->pend[t->nnest].size = t->hist[t->nnest].size = &D->entries;
	if (t->pend[t->nnest].cmin != D->cmin) {
		t->pend[t->nnest].cmin = t->hist[t->nnest].cmin = D->cmin;
		t->pend[t->nnest].next = t->hist[t->nnest].next = D->cmin;
	}
	t->nest[t->nnest].loop = loop;
	t->nest[t->nnest].frame = t->nfr - 1;
	t->nest[t->nnest].it = 1;
	t->nnest++;
	if (t->nnest > D->st.max_depth)
		D->st.max_depth = t->nnest;
	return 0;
}

/* Whether loop x is sloop+1 `in` or encloses it. */
static int loop_within(const struct lsa_deps *D, uint32_t in, uint32_t x)
{
	uint32_t l = in ? in - 1 : LSA_SLOOP_NONE;

	while (l != LSA_SLOOP_NONE) {
		if (l == x)
			return 1;
		l = lsa_sloops_get(D->sl, l)->parent;
	}
	return 0;
}

/* Block sb runs in the top frame: entries it leaves end, a header
 * starts an iteration, loops it enters open. */
static int loops_at(struct lsa_deps *D, struct deps_thr *t, const struct lsd_sblock *sb)
{
	uint32_t base = t->fr[t->nfr - 1].nest;
	uint32_t in = sb->id < D->nsb ? D->sbloop[sb->id] : 0, l, chain[64], nc = 0;
	const struct lsa_sloop *s;
	int err;

	while (t->nnest > base && !loop_within(D, in, t->nest[t->nnest - 1].loop))
		if ((err = entry_end(D, t)) < 0)
			return err;
	if (!in)
		return 0;
	if (t->nnest > base) {
		struct deps_nent *n = &t->nest[t->nnest - 1];
		const struct lsa_cfg_block *hb;

		s = lsa_sloops_get(D->sl, n->loop);
		hb = lsa_cfg_block(D->c, s->header);
		if (hb && hb->sb == sb) {
			if ((err = iter_end(D, t, t->nnest - 1)) < 0)
				return err;
			n->it++;
			D->st.iterations++;
		}
	}
	/* The loops from the innermost up to the open one, opened outer first. */
	for (l = in - 1; l != LSA_SLOOP_NONE && nc < 64; l = s->parent) {
		if (t->nnest > base && t->nest[t->nnest - 1].loop == l)
			break;
		chain[nc++] = l;
		s = lsa_sloops_get(D->sl, l);
	}
	while (nc)
		if ((err = nest_push(D, t, chain[--nc])) < 0)
			return err;
	return 0;
}

/* --- frames ------------------------------------------------------------ */

static int frame_push(struct deps_thr *t, uint64_t cfa, uint64_t ret,
		      const struct lsd_sblock *fn, int async)
{
	if (t->nfr >= DEPS_MAX_FRAMES) {
		t->deep++;
		return 0;
	}
	if (LS_GROW32(t->fr, t->nfr + 1, t->capfr, 64))
		return -LS_ENOMEM;
	/* Bases only go down the stack: an unknown or higher one is the
	 * caller's (the callee's slots then count as the caller's). */
	if (t->nfr > 1 && (!cfa || cfa > t->fr[t->nfr - 1].cfa))
		cfa = t->fr[t->nfr - 1].cfa;
	t->fr[t->nfr].cfa = cfa;
	t->fr[t->nfr].ret = ret;
	t->fr[t->nfr].fn = fn;
	t->fr[t->nfr].nest = t->nnest;
	t->fr[t->nfr].async = async;
	t->nfr++;
	return 0;
}

/* A return to `to`: pops the frame it returns from, and the frames a
 * longjmp left above it (the nearest frame whose return goes there). */
static int frame_pop(struct lsa_deps *D, struct deps_thr *t, uint64_t to)
{
	uint32_t k = t->nfr, n = 1;
	int err;

	if (t->deep) {
		t->deep--;
		return 0;
	}
	while (k > 1 && t->fr[k - 1].ret != to && (t->fr[k - 1].ret || t->fr[k - 1].async))
		k--;
	if (k > 1 && t->fr[k - 1].ret == to)
		n = t->nfr - k + 1;
	while (n--) {
		if (t->fr[t->nfr - 1].async)
			t->resume = 1;
		while (t->nnest > t->fr[t->nfr - 1].nest)
			if ((err = entry_end(D, t)) < 0)
				return err;
		if (t->nfr > 1)
			t->nfr--;
	}
	return 0;
}

/* The frame owning stack address a: the deepest one whose base is above
 * it (frame 0, never entered by a call, has no base); -1 for none. */
static int32_t owner_of(const struct deps_thr *t, uint64_t a)
{
	uint32_t lo = 1, hi = t->nfr;

	if (t->nfr < 2 || !t->fr[1].cfa || a >= t->fr[1].cfa ||
	    a + DEPS_STACK_SPAN < t->fr[t->nfr - 1].cfa)
		return -1;
	/* fr[1..nfr) bases never go up: the last above a. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->fr[mid].cfa > a)
			lo = mid;
		else
			hi = mid;
	}
	return (int32_t)lo;
}

static int access(struct lsa_deps *D, struct deps_thr *t, const struct deps_spool *s,
		  const struct lsd_sblock *sb)
{
	struct deps_tab *P;
	struct deps_ent *e, *w;
	uint64_t wa;
	uint32_t site;
	int isnew, j;

	if (!t->nnest)
		return 0;
	D->st.in_loops++;
	if (!(site = site_of(D, s->iaddr, sb)))
		return -LS_ENOMEM;
	P = &t->pend[t->nnest - 1];
	deps_tab_maybe_compact(P);
	if (!(e = deps_tab_get(P, s->daddr, &isnew)))
		return -LS_ENOMEM;
	note_max(D);
	if (isnew) {
		int32_t o = owner_of(t, s->daddr);

		D->live++;
		note_max(D);
		e->odepth = o;
		if (o >= 0) {
			e->ofn = t->fr[o].fn;
			e->cfaoff = (int64_t)(s->daddr - t->fr[o].cfa);
		}
	}
	deps_tab_len(P, e, s->size);
	if (s->write) {
		if (!e->w)
			e->w = site;
		if (s->size > e->wlen)
			e->wlen = s->size;
		return 0;
	}
	/* Defined earlier in the iteration (by writes covering its bytes):
	 * a use of the write that holds its first byte.  A read only partly
	 * covered counts as a read of all its bytes. */
	if (e->w && e->wlen >= s->size) {
		e->li++;
		return 0;
	}
	if (deps_tab_covered(P, s->daddr, s->size, &wa, D->cvbuf)) {
		/* (e may move: it is not used again) */
		if (!(w = deps_tab_get(P, wa, &isnew)))
			return -LS_ENOMEM;
		w->li++;
		return 0;
	}
	for (j = 0; j < DEPS_NR && e->r[j] && e->r[j] != site; j++)
		;
	if (j < DEPS_NR)
		e->r[j] = site;
	return 0;
}

/* Ends every entry and frame of t. */
static int thr_flush(struct lsa_deps *D, struct deps_thr *t)
{
	int err;

	while (t->nnest)
		if ((err = entry_end(D, t)) < 0)
			return err;
	t->nfr = 0;
	t->deep = 0;
	return 0;
}

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct lsa_deps *D = arg;
	struct deps_thr *t;
	struct deps_spool *s;
	const struct lsd_sblock *sb = b->sb;
	uint64_t lo, hi;
	int err;

	if (stream >= D->nstreams)
		return -LS_EINVAL;
	t = &D->thr[stream];
	s = &D->sp[stream];
	if (!t->nfr)
		err = frame_push(t, 0, 0, sb, 0);
	else if (t->pexit == LSD_EXIT_CALL || t->pexit == LSD_EXIT_ICALL)
		err = frame_push(t, t->call_cfa, t->pret, sb, 0);
	else if (t->pexit == LSD_EXIT_ASYNC)
		err = frame_push(t, 0, 0, sb, 1);	/* a handler, below the stack */
	else if (t->pexit == LSD_EXIT_RET)
		err = frame_pop(D, t, sb->start);
	else if (t->pexit == LSD_EXIT_SYSCALL && t->resume)
		t->resume = err = 0;	/* the sigreturn resumed the interrupted code */
	else if (t->pexit == LSD_EXIT_SYSCALL && sb->start != t->pret)
		err = frame_push(t, 0, 0, sb, 1);	/* a handler, before the call returns */
	else
		err = 0;
	/* The code between a handler's return and the sigreturn is in no
	 * loop of the frame it resumes. */
	if (err < 0 || (!t->resume && (err = loops_at(D, t, sb)) < 0))
		return err;
	t->pret = sb->end;
	t->call_cfa = 0;
	lo = t->insns;
	hi = lo + sb->ninsn;
	for (;;) {
		if (!s->have) {
			if ((err = deps_spool_next(s, &D->st.damaged)) < 0)
				return err;
			if (!err)
				break;
			s->have = 1;
			if (s->size)
				D->st.accesses++;
			else
				D->st.allocs++;
		}
		if (s->icount >= hi)
			break;
		s->have = 0;
		if (!s->size) {
			/* An allocation returns at this index (the block of
			 * the allocator's ret): no access. */
			if ((err = deps_alloc_add(D, s->daddr, s->asize, s->iaddr)) < 0)
				return err;
			continue;
		}
		if (s->icount < lo) {
			D->st.unplaced++;
			continue;
		}
		if (s->iaddr < sb->start || s->iaddr >= sb->end) {
			D->st.mismatched++;
			continue;
		}
		if ((err = access(D, t, s, sb)) < 0)
			return err;
		/* The call's store of the return address: the callee's base. */
		if (s->write && s->size == 8 && s->iaddr == sb->last &&
		    (b->exit == LSD_EXIT_CALL || b->exit == LSD_EXIT_ICALL))
			t->call_cfa = s->daddr + 8;
	}
	t->insns = hi;
	t->pexit = b->exit;
	if (b->exit == LSD_EXIT_GAP) {
		/* The frames are unknown past a hole: start over. */
		D->st.resets++;
		return thr_flush(D, t);
	}
	return 0;
}

static int on_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsa_deps *D = arg;
	struct deps_spool *s;
	int err;

	(void)st;
	if (stream >= D->nstreams)
		return -LS_EINVAL;
	if ((err = thr_flush(D, &D->thr[stream])) < 0)
		return err;
	/* Accesses past the stream's last block have nowhere to go. */
	s = &D->sp[stream];
	if (s->have) {
		D->st.unplaced++;
		s->have = 0;
	}
	while ((err = deps_spool_next(s, &D->st.damaged)) > 0) {
		if (!s->size) {
			D->st.allocs++;
			continue;
		}
		D->st.accesses++;
		D->st.unplaced++;
	}
	return err;
}

int lsa_deps_run(struct lsa_deps *D)
{
	static const struct lsd_callbacks cb = { .block = on_block, .stream_end = on_end };
	size_t i;
	int err;

	if (!D)
		return -LS_EINVAL;
	if ((err = lsd_decode_all(D->d, &cb, D, NULL)) < 0)
		return err;
	for (i = 0; i < D->nstreams; i++)
		if ((err = thr_flush(D, &D->thr[i])) < 0)
			return err;
	return lsa_deps_results(D);
}
