/* loops_know.c - what the loop detector's threads learned, known from
 * the start of a second pass (see struct lsa_know in loops.h).
 *
 * A thread's knowledge is its loop heads, in the order of their numbers,
 * and the (loop, block) pairs of its loops' bodies, each loop named by
 * its place in that list: the second pass numbers its loops afresh.
 * Threads are kept by slot: both passes decode the same streams, so they
 * make the same slots in the same order.  Static blocks are the
 * decoder's, which both passes share; a head is kept as its static
 * block, which stays where it is while the decoder adds others. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "analysis/loops_follow.h"
#include "ls_buf.h"
#include "ls_err.h"

struct lsa_kthr {
	const struct lsd_sblock **head;
	uint32_t nhead;
	uint64_t *body;		/* index into head << 32 | block id */
	size_t nbody;
	uint32_t *land;		/* blocks landings came back to (lsa_thr.land) */
	size_t nland;
	struct lsa_ksnap *snap;
	size_t nsnap, capsnap, bytes;
	uint64_t every;		/* blocks between cuts (0: lsa_loops.snap) */
};

struct lsa_know {
	struct lsa_kthr *t;
	size_t n;
	/* a block of each function of the learning pass (its numbers are
	 * the snapshots') */
	const struct lsd_sblock **fsb;
	uint32_t nfsb;
	size_t bytes;		/* the snapshots' */
};

/* k's entry for thread slot `slot`, made when new; NULL: out of memory. */
static struct lsa_kthr *kthr_of(struct lsa_know *k, size_t slot)
{
	if (slot >= k->n) {
		void *p = ls_reallocarray(k->t, slot + 1, sizeof(*k->t));

		if (!p)
			return NULL;
		k->t = p;
		memset(k->t + k->n, 0, (slot + 1 - k->n) * sizeof(*k->t));
		k->n = slot + 1;
	}
	return &k->t[slot];
}

static void snap_free(struct lsa_ksnap *s)
{
	free(s->fr);
	free(s->pe);
}

static size_t snap_bytes(const struct lsa_ksnap *s)
{
	return sizeof(*s) + s->nfr * sizeof(*s->fr) + s->npe * sizeof(*s->pe);
}

/* Every other snapshot of kt goes: its cuts twice as far apart (in
 * blocks, or in chunks where it cuts at chunks). */
static void snap_thin(struct lsa_know *k, struct lsa_kthr *kt, int chunks)
{
	size_t j, n;

	kt->every *= 2;
	for (j = n = 0; j < kt->nsnap; j++) {
		if ((chunks ? kt->snap[j].chunk : kt->snap[j].at) % kt->every) {
			kt->bytes -= snap_bytes(&kt->snap[j]);
			k->bytes -= snap_bytes(&kt->snap[j]);
			snap_free(&kt->snap[j]);
			continue;
		}
		kt->snap[n++] = kt->snap[j];
	}
	kt->nsnap = n;
}

/* LSA_SNAP_BYTES, or LOOPSCOPE_SNAP_BYTES (the tests' thinning). */
static size_t snap_max(void)
{
	const char *e = getenv("LOOPSCOPE_SNAP_BYTES");

	return e && *e ? (size_t)strtoull(e, NULL, 10) : LSA_SNAP_BYTES;
}

int lsa_know_snap_put(struct lsa_loops *l, struct lsa_thr *t, struct lsa_ksnap *s)
{
	struct lsa_kthr *kt = kthr_of(l->learn, (size_t)(t - l->thr));
	size_t j;

	if (!kt || LS_GROW(kt->snap, kt->nsnap + 1, kt->capsnap, 16)) {
		snap_free(s);
		return -LS_ENOMEM;
	}
	kt->snap[kt->nsnap++] = *s;
	kt->bytes += snap_bytes(s);
	l->learn->bytes += snap_bytes(s);
	/* too many: the thread that holds the most keeps fewer */
	while (l->learn->bytes > snap_max()) {
		struct lsa_kthr *most = kt;

		for (j = 0; j < l->learn->n; j++)
			if (l->learn->t[j].bytes > most->bytes)
				most = &l->learn->t[j];
		if (!most->nsnap)
			break;
		snap_thin(l->learn, most, l->snap_chunks);
	}
	return 0;
}

int lsa_know_snap(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsa_kthr *kt = kthr_of(l->learn, (size_t)(t - l->thr));
	struct lsa_ksnap s;
	uint32_t i;

	if (!kt)
		return -LS_ENOMEM;
	if (!kt->every)
		kt->every = l->snap_chunks ? 1 : l->snap;
	if (!l->snap_chunks && t->nblk % kt->every)
		return 0;	/* (a cut the thinning dropped) */
	memset(&s, 0, sizeof(s));
	s.fr = malloc((t->nfr ? t->nfr : 1) * sizeof(*s.fr));
	s.pe = malloc((t->npath ? t->npath : 1) * sizeof(*s.pe));
	if (!s.fr || !s.pe) {
		snap_free(&s);
		return -LS_ENOMEM;
	}
	s.at = t->nblk;
	s.chunk = l->snap_chunks ? t->cnext : 0;
	s.deep = t->deep;
	s.gaps = t->gaps;
	s.pnext = t->pnext;
	s.psb = t->psb;
	s.pexit = t->pexit;
	s.landing = t->landing;
	s.nfr = t->nfr;
	s.npe = t->npath;
	for (i = 0; i < t->nfr; i++) {
		const struct lsa_frame *f = &t->fr[i];

		s.fr[i] = (struct lsa_sfr){ f->ret, f->base, f->func, f->cur, f->async };
	}
	for (i = 0; i < t->npath; i++) {
		const struct lsa_pent *e = &t->path[i];

		s.pe[i] = (struct lsa_spe){ e->sb, e->lb, e->acc };
	}
	return lsa_know_snap_put(l, t, &s);
}

/* The chunks between thread t's cuts as the snapshots are thinned now
 * (1: each chunk). */
static uint64_t cut_every(const struct lsa_loops *l, const struct lsa_thr *t)
{
	const struct lsa_kthr *kt = (size_t)(t - l->thr) < l->learn->n ?
				    &l->learn->t[t - l->thr] : NULL;

	return kt && kt->every ? kt->every : 1;
}

int lsa_know_cut_at(struct lsa_loops *l, const struct lsa_thr *t, size_t chunk)
{
	return chunk && !(chunk % cut_every(l, t));
}

/* The blocks of thread t before the next chunk of `stream` that begins a
 * cut (t->cnext then that chunk), as far as the decode has told
 * (UINT64_MAX: none yet).  Chunk 0 begins none, nor does one that the
 * thinning left out (kt->every: each chunk, or every 2nd, 4th ...). */
static uint64_t next_chunk_cut(struct lsa_loops *l, struct lsa_thr *t, size_t stream)
{
	uint64_t every = cut_every(l, t);
	const uint64_t *v;
	size_t n = lsd_chunk_starts(l->d, stream, &v);
	size_t nc = lsb_reader_nchunks(l->r, stream);

	if (!t->cnext)
		t->cnext = 1;
	/* (a chunk whose blocks came already: none of its own, or a
	 * start the decode did not count as the detector did) */
	while (t->cnext < n && t->cnext < nc &&
	       (t->cnext % every || v[t->cnext] < t->nblk))
		t->cnext++;
	return t->cnext < n && t->cnext < nc ? v[t->cnext] : UINT64_MAX;
}

/* lsa_know_cuts() at the chunks' starts. */
static int chunk_cuts(struct lsa_loops *l, struct lsa_thr *t, size_t stream,
		      const struct lsd_block *b, size_t n)
{
	int err = 0;

	for (;;) {
		uint64_t cut = next_chunk_cut(l, t, stream);
		size_t k;

		if (cut == t->nblk && !t->nblk) {	/* (none before it: no cut) */
			t->cnext++;
			continue;
		}
		if (cut == t->nblk) {	/* (the last blocks ended there) */
			err = lsa_loops_learn_stop(l, t);
			if (!err)
				err = lsa_know_snap(l, t);
			if (!err && l->follow)
				err = lsa_follow_cut(l->follow, l, t, stream, t->cnext);
			t->cnext++;
			if (err)
				return err;
			continue;
		}
		if (!n)
			return 0;
		k = cut - t->nblk < n ? (size_t)(cut - t->nblk) : n;
		if ((err = lsa_loops_learn_blocks(l, t, b, k)))
			return err;
		t->nblk += k;
		b += k;
		n -= k;
	}
}

/* A learning pass's blocks of a per-thread stream, its frames and paths
 * kept at every cut (lsa_know_snap()), its memo stopped there first. */
int lsa_know_cuts(struct lsa_loops *l, struct lsa_thr *t, size_t stream,
		  const struct lsd_block *b, size_t n)
{
	int err = 0;

	if (l->snap_chunks)
		return chunk_cuts(l, t, stream, b, n);
	if (!t->ncut)
		t->ncut = l->snap;
	while (n && !err) {
		size_t k = t->ncut - t->nblk < n ? (size_t)(t->ncut - t->nblk) : n;

		err = lsa_loops_learn_blocks(l, t, b, k);
		t->nblk += k;
		b += k;
		n -= k;
		if (!err && t->nblk == t->ncut) {
			err = lsa_loops_learn_stop(l, t);
			if (!err)
				err = lsa_know_snap(l, t);
			t->ncut += l->snap;
		}
	}
	return err;
}

const struct lsa_ksnap *lsa_know_snaps(const struct lsa_know *k, size_t slot,
				       size_t *n)
{
	*n = k && slot < k->n ? k->t[slot].nsnap : 0;
	return *n ? k->t[slot].snap : NULL;
}

const struct lsd_sblock *lsa_know_func(const struct lsa_know *k, uint32_t f)
{
	return k && f < k->nfsb ? k->fsb[f] : NULL;
}

int lsa_loops_learn(struct lsa_loops *l, struct lsa_know **pk)
{
	if (!l || !pk || l->learn || l->know)
		return -LS_EINVAL;
	*pk = calloc(1, sizeof(**pk));
	if (!*pk)
		return -LS_ENOMEM;
	l->learn = *pk;
	/* (its memos would keep what it does not: its own is lsa_fmemo) */
	l->fmemo = l->memo;
	l->memo = 0;
	return 0;
}

int lsa_loops_eager_for(const struct lsa_loops_opts *o)
{
	const char *e = getenv("LOOPSCOPE_EAGER");

	return !o->no_eager && !(e && !strcmp(e, "0"));
}

void lsa_loops_know(struct lsa_loops *l, const struct lsa_know *k)
{
	if (!l || l->learn)
		return;
	l->know = k;
	/* the eager pass (loops_eager.c): of one or two jobs (more run the
	 * memos' pass in pieces), not the reference's, and one that knows */
	if (k && l->memo && lsa_loops_eager_for(&l->o)) {
		l->eager = 1;
		l->memo = 0;
	}
}

void lsa_know_free(struct lsa_know *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		size_t j;

		free(k->t[i].head);
		free(k->t[i].body);
		free(k->t[i].land);
		for (j = 0; j < k->t[i].nsnap; j++)
			snap_free(&k->t[i].snap[j]);
		free(k->t[i].snap);
	}
	free(k->t);
	free(k->fsb);
	free(k);
}

int lsa_know_take(struct lsa_loops *l, const struct lsa_thr *t)
{
	return lsa_know_take_to(l->learn, l, t);
}

struct lsa_know *lsa_know_new(void)
{
	return calloc(1, sizeof(struct lsa_know));
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int u64_has(const uint64_t *v, size_t n, uint64_t x)
{
	return bsearch(&x, v, n, sizeof(*v), u64_cmp) != NULL;
}

/* kt's facts as sorted keys: heads (block id), body pairs (1 << 62 |
 * head id << 31 | block id), landings (2 << 62 | block id).  NULL: no
 * memory. */
static uint64_t *fact_keys(const struct lsa_kthr *kt, size_t *n)
{
	uint64_t *v = malloc((kt->nhead + kt->nbody + kt->nland + 1) * sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return NULL;
	for (i = 0; i < kt->nhead; i++)
		v[k++] = kt->head[i]->id;
	for (i = 0; i < kt->nbody; i++)
		v[k++] = 1ull << 62 | (uint64_t)kt->head[kt->body[i] >> 32]->id << 31 |
			 (uint32_t)kt->body[i];
	for (i = 0; i < kt->nland; i++)
		v[k++] = 2ull << 62 | kt->land[i];
	qsort(v, k, sizeof(*v), u64_cmp);
	*n = k;
	return v;
}

int lsa_know_new_avoid(const struct lsa_know *k, const struct lsa_know *old, size_t slot,
		       int (*ran)(void *arg, uint32_t id), void *arg)
{
	static const struct lsa_kthr none;
	const struct lsa_kthr *kt = k && slot < k->n ? &k->t[slot] : &none;
	const struct lsa_kthr *ot = old && slot < old->n ? &old->t[slot] : &none;
	uint64_t *ov;
	size_t no, i;
	int r = 1;

	if (!(ov = fact_keys(ot, &no)))
		return -LS_ENOMEM;
	/* (a new fact's blocks: a head's, a pair's head and block, a
	 * landing's) */
	for (i = 0; i < kt->nhead && r; i++)
		if (!u64_has(ov, no, kt->head[i]->id))
			r = !ran(arg, kt->head[i]->id);
	for (i = 0; i < kt->nbody && r; i++) {
		uint32_t h = kt->head[kt->body[i] >> 32]->id, b = (uint32_t)kt->body[i];

		if (!u64_has(ov, no, 1ull << 62 | (uint64_t)h << 31 | b))
			r = !ran(arg, h) && !ran(arg, b);
	}
	for (i = 0; i < kt->nland && r; i++)
		if (!u64_has(ov, no, 2ull << 62 | kt->land[i]))
			r = !ran(arg, kt->land[i]);
	free(ov);
	return r;
}

uint64_t lsa_know_facts(const struct lsa_loops *l, const struct lsa_thr *t)
{
	return (uint64_t)l->nloops + t->body.n + t->land.n;
}

int lsa_know_take_to(struct lsa_know *k, const struct lsa_loops *l, const struct lsa_thr *t)
{
	size_t slot = (size_t)(t - l->thr), i;
	struct lsa_kthr *kt = kthr_of(k, slot);
	uint32_t *hx;

	if (!kt)
		return -LS_ENOMEM;
	/* the functions so far (a later thread's take has these too) */
	if (l->nfuncs > k->nfsb) {
		void *p = ls_reallocarray(k->fsb, l->nfuncs, sizeof(*k->fsb));

		if (!p)
			return -LS_ENOMEM;
		k->fsb = p;
		for (i = 0; i < l->nfuncs; i++)
			k->fsb[i] = l->funcs[i].sb;
		k->nfsb = l->nfuncs;
	}
	hx = malloc((l->nloops ? l->nloops : 1) * sizeof(*hx));
	kt->head = malloc((l->nloops ? l->nloops : 1) * sizeof(*kt->head));
	kt->body = malloc((t->body.n ? t->body.n : 1) * sizeof(*kt->body));
	if (!hx || !kt->head || !kt->body) {
		free(hx);
		return -LS_ENOMEM;
	}
	for (i = 0; i < l->nloops; i++) {
		uint32_t id = l->loops[i].hid;

		hx[i] = LSA_NONE;
		if (id < t->nk && t->head[id] == i + 1) {
			hx[i] = kt->nhead;
			kt->head[kt->nhead++] = l->loops[i].head;
		}
	}
	for (i = 0; i < t->body.cap; i++) {
		const struct lsa_kent *e = &t->body.t[i];

		/* (a body's loop is one the thread knows: never LSA_NONE) */
		if (e->a != LSA_KMAP_EMPTY && e->a < l->nloops && hx[e->a] != LSA_NONE)
			kt->body[kt->nbody++] = (uint64_t)hx[e->a] << 32 | e->b;
	}
	free(hx);
	if (t->land.n) {
		kt->land = malloc(t->land.n * sizeof(*kt->land));
		if (!kt->land)
			return -LS_ENOMEM;
		for (i = 0; i < t->land.cap; i++)
			if (t->land.t[i].a != LSA_KMAP_EMPTY)
				kt->land[kt->nland++] = (uint32_t)t->land.t[i].b;
	}
	return 0;
}

int lsa_know_give(struct lsa_loops *l, struct lsa_thr *t)
{
	return lsa_know_give_slot(l, t, (size_t)(t - l->thr));
}

int lsa_know_give_slot(struct lsa_loops *l, struct lsa_thr *t, size_t slot)
{
	size_t i;
	const struct lsa_kthr *kt;
	uint64_t known = l->st.know_new;	/* (what is given is not new) */
	uint32_t *loop;
	int err = 0;

	if (!l->know || slot >= l->know->n || !l->know->t[slot].nhead)
		return 0;
	kt = &l->know->t[slot];
	loop = malloc(kt->nhead * sizeof(*loop));
	if (!loop)
		return -LS_ENOMEM;
	for (i = 0; i < kt->nhead && !err; i++)
		err = lsa_loops_know_head(l, t, kt->head[i], &loop[i]);
	for (i = 0; i < kt->nbody && !err; i++)
		err = lsa_loops_know_body(l, t, loop[kt->body[i] >> 32],
					  (uint32_t)kt->body[i]);
	free(loop);
	/* the eager pass keeps frames lazy from these blocks on */
	if (!err && l->eager && kt->nland)
		err = lsa_loops_know_lands(l, t, kt->land, kt->nland);
	l->st.know_new = known;
	return err;
}
