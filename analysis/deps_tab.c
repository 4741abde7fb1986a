/* deps_tab.c - the address tables of the dependence analysis and the
 * spools of recorded memory accesses. */
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* The index of addr's entry in t's array, or DEPS_NONE. */
static uint32_t tab_find(const struct deps_tab *t, uint64_t addr)
{
	size_t j;

	if (!t->ixcap)
		return DEPS_NONE;
	for (j = deps_hash(addr) & (t->ixcap - 1); t->ix[j].idx != DEPS_NONE;
	     j = (j + 1) & (t->ixcap - 1))
		if (t->ix[j].addr == addr)
			return t->ix[j].idx;
	return DEPS_NONE;
}

uint32_t deps_run_upper(const struct deps_tab *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nrun;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (deps_run_at(t, mid)->p.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The position of the run holding addr, or DEPS_NONE; *k its element. */
static uint32_t run_find(const struct deps_tab *t, uint64_t addr, uint64_t *k)
{
	uint32_t lo = deps_run_upper(t, addr);
	const struct deps_run *r;

	if (!lo)
		return DEPS_NONE;
	r = deps_run_at(t, lo - 1);
	if ((addr - r->p.addr) % r->stride || (addr - r->p.addr) / r->stride >= r->n)
		return DEPS_NONE;
	*k = (addr - r->p.addr) / r->stride;
	return lo - 1;
}

static void run_elem(const struct deps_run *r, uint64_t k, struct deps_ent *o)
{
	int m;

	*o = r->p;
	o->addr = r->p.addr + k * r->stride;
	o->wit = r->p.wit + k * r->dwit;
	for (m = 0; m < DEPS_NR; m++)
		o->rit[m] = r->p.rit[m] + k * r->drit[m];
	if (o->odepth >= 0)
		o->cfaoff = (int64_t)((uint64_t)r->p.cfaoff + k * r->stride);
}

static void size_add(struct deps_tab *t, int64_t d)
{
	if (t->size)
		*t->size += (uint64_t)d;
}

const struct deps_ent *deps_tab_peek(const struct deps_tab *t, uint64_t addr,
				     struct deps_ent *tmp)
{
	uint32_t i = tab_find(t, addr);
	uint64_t k;

	if (i != DEPS_NONE)
		return &t->e[i];
	if (!t->nrun || (i = run_find(t, addr, &k)) == DEPS_NONE)
		return NULL;
	run_elem(deps_run_at(t, i), k, tmp);
	return tmp;
}

static int regrow(struct deps_tab *t, uint32_t ncap)
{
	struct deps_slot *nix;
	uint32_t i;

	if (ncap > (1u << 31))
		return -LS_ENOMEM;
	nix = malloc((size_t)ncap * sizeof(*nix));
	if (!nix)
		return -LS_ENOMEM;
	for (i = 0; i < ncap; i++)
		nix[i].idx = DEPS_NONE;
	for (i = 0; i < t->n; i++) {
		size_t j;

		for (j = deps_hash(t->e[i].addr) & (ncap - 1); nix[j].idx != DEPS_NONE;
		     j = (j + 1) & (ncap - 1))
			;
		nix[j].addr = t->e[i].addr;
		nix[j].idx = i;
	}
	free(t->ix);
	t->ix = nix;
	t->ixcap = ncap;
	return 0;
}

/* A new run at position pos of the address order, its pool slot
 * returned (NULL: out of memory); the caller fills it. */
static struct deps_run *run_insert(struct deps_tab *t, uint32_t pos)
{
	if (LS_GROW32(t->run, t->nrun + 1, t->caprun, 16) ||
	    LS_GROW32(t->rix, t->nrun + 1, t->caprix, 16))
		return NULL;
	memmove(&t->rix[pos + 1], &t->rix[pos], (size_t)(t->nrun - pos) * sizeof(*t->rix));
	t->rix[pos] = t->nrun;
	return &t->run[t->nrun++];
}

/* The run at position pos leaves: the pool's last run takes its slot. */
static void run_remove(struct deps_tab *t, uint32_t pos)
{
	uint32_t slot = t->rix[pos], last = t->nrun - 1, q;
	uint64_t k;

	memmove(&t->rix[pos], &t->rix[pos + 1], (size_t)(last - pos) * sizeof(*t->rix));
	t->nrun = last;
	if (slot == last)
		return;
	t->run[slot] = t->run[last];
	/* (its first element finds its position; rix there still says last) */
	q = run_find(t, t->run[slot].p.addr, &k);
	t->rix[q] = slot;
}

/* Element k of the run at position ri leaves it (the run shrinks or
 * splits in two).  Returns 0 or -LS_ENOMEM. */
static int run_take(struct deps_tab *t, uint32_t ri, uint64_t k)
{
	struct deps_run *r = &t->run[t->rix[ri]], *s;

	if (r->n == 1) {
		run_remove(t, ri);
		size_add(t, -1);
	} else if (k == 0) {
		run_elem(r, 1, &r->p);
		r->n--;
	} else if (k == r->n - 1) {
		r->n--;
	} else {
		if (!(s = run_insert(t, ri + 1)))
			return -LS_ENOMEM;
		r = &t->run[t->rix[ri]];	/* the pool may have moved */
		*s = *r;
		run_elem(r, k + 1, &s->p);
		s->n = r->n - k - 1;
		r->n = k;
		size_add(t, 1);
	}
	return 0;
}

struct deps_ent *deps_tab_get(struct deps_tab *t, uint64_t addr, int *isnew)
{
	uint32_t i = tab_find(t, addr), ri = DEPS_NONE;
	uint64_t k = 0;
	struct deps_ent *e;
	size_t j;

	*isnew = 0;
	if (i != DEPS_NONE)
		return &t->e[i];
	if (t->nrun)
		ri = run_find(t, addr, &k);
	if ((t->n + 1) * 2 > t->ixcap && regrow(t, t->ixcap ? t->ixcap * 2 : 64) < 0)
		return NULL;
	if (LS_GROW32(t->e, t->n + 1, t->cap, 32))
		return NULL;
	e = &t->e[t->n];
	if (ri != DEPS_NONE) {
		run_elem(deps_run_at(t, ri), k, e);
		if (run_take(t, ri, k) < 0)
			return NULL;
	} else {
		memset(e, 0, sizeof(*e));
		e->addr = addr;
		e->odepth = -1;
		*isnew = 1;
	}
	for (j = deps_hash(addr) & (t->ixcap - 1); t->ix[j].idx != DEPS_NONE;
	     j = (j + 1) & (t->ixcap - 1))
		;
	t->ix[j].addr = addr;
	t->ix[j].idx = t->n++;
	deps_near_add(t, addr);
	size_add(t, 1);
	return e;
}

uint64_t deps_tab_count(const struct deps_tab *t)
{
	uint64_t c = t->n;
	uint32_t i;

	for (i = 0; i < t->nrun; i++)
		c += t->run[i].n;
	return c;
}

uint64_t deps_tab_size(const struct deps_tab *t)
{
	return (uint64_t)t->n + t->nrun;
}

const struct deps_ent *deps_tab_next(const struct deps_tab *t, struct deps_it *it,
				     struct deps_ent *tmp)
{
	if (it->i < t->n)
		return &t->e[it->i++];
	while (it->r < t->nrun) {
		if (it->k < deps_run_at(t, it->r)->n) {
			run_elem(deps_run_at(t, it->r), it->k++, tmp);
			return tmp;
		}
		it->r++;
		it->k = 0;
	}
	return NULL;
}

/* --- compaction ---------------------------------------------------------- */

struct akey {
	uint64_t addr;
	uint32_t idx;
};

static int by_akey(const void *a, const void *b)
{
	const struct akey *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether b is element k of the run starting at a with stride s and
 * steps dwit, drit. */
static int run_fits(const struct deps_ent *a, const struct deps_ent *b, uint64_t k,
		    uint64_t s, uint64_t dwit, const uint64_t *drit)
{
	int m;

	if (b->addr != a->addr + k * s || b->w != a->w || b->len != a->len ||
	    b->wlen != a->wlen || b->li != a->li || b->odepth != a->odepth ||
	    b->ofn != a->ofn || b->wit != a->wit + k * dwit)
		return 0;
	if (a->odepth >= 0 && (uint64_t)b->cfaoff != (uint64_t)a->cfaoff + k * s)
		return 0;
	for (m = 0; m < DEPS_NR; m++)
		if (b->r[m] != a->r[m] || b->rit[m] != a->rit[m] + k * drit[m])
			return 0;
	return 1;
}

/* Where a run over [lo, hi] goes in t's runs, or DEPS_NONE when it
 * would meet another run's range. */
static uint32_t run_slot(const struct deps_tab *t, uint64_t lo, uint64_t hi)
{
	uint32_t a = deps_run_upper(t, lo);

	if (a) {
		const struct deps_run *r = deps_run_at(t, a - 1);

		if (r->p.addr + (r->n - 1) * r->stride >= lo)
			return DEPS_NONE;
	}
	if (a < t->nrun && deps_run_at(t, a)->p.addr <= hi)
		return DEPS_NONE;
	return a;
}

static void compact(struct deps_tab *t)
{
	struct akey *ak = malloc((size_t)t->n * sizeof(*ak));
	uint8_t *gone = calloc(t->n, 1);
	uint32_t i, j, n = t->n, kept = 0;

	if (!ak || !gone)
		goto out;
	for (i = 0; i < n; i++) {
		ak[i].addr = t->e[i].addr;
		ak[i].idx = i;
	}
	qsort(ak, n, sizeof(*ak), by_akey);
	for (i = 0; i + 1 < n; i = j) {
		const struct deps_ent *a = &t->e[ak[i].idx], *b = &t->e[ak[i + 1].idx];
		uint64_t s = b->addr - a->addr, dwit = b->wit - a->wit, drit[DEPS_NR];
		struct deps_run *nr;
		uint32_t slot;
		int m;

		for (m = 0; m < DEPS_NR; m++)
			drit[m] = b->rit[m] - a->rit[m];
		for (j = i + 1; j < n && run_fits(a, &t->e[ak[j].idx], j - i, s, dwit, drit); j++)
			;
		if (j - i < DEPS_RUN_MIN) {
			j = i + 1;
			continue;
		}
		slot = run_slot(t, a->addr, t->e[ak[j - 1].idx].addr);
		if (slot == DEPS_NONE)
			continue;
		if (!(nr = run_insert(t, slot)))
			break;
		nr->p = *a;
		nr->stride = s;
		nr->n = j - i;
		nr->dwit = dwit;
		memcpy(nr->drit, drit, sizeof(drit));
		size_add(t, 1 - (int64_t)(j - i));
		for (m = 0; (uint32_t)m < j - i; m++)
			gone[ak[i + (uint32_t)m].idx] = 1;
	}
	/* The entries left keep their order. */
	for (i = 0; i < n; i++)
		if (!gone[i])
			t->e[kept++] = t->e[i];
	if (kept != n) {
		t->n = kept;
		for (i = 0; i < t->ixcap; i++)
			t->ix[i].idx = DEPS_NONE;
		for (i = 0; i < kept; i++) {
			size_t h;

			for (h = deps_hash(t->e[i].addr) & (t->ixcap - 1);
			     t->ix[h].idx != DEPS_NONE; h = (h + 1) & (t->ixcap - 1))
				;
			t->ix[h].addr = t->e[i].addr;
			t->ix[h].idx = i;
		}
		/* The entries gone into runs leave the near index (built
		 * again when next needed). */
		deps_near_reset(t);
	}
out:
	free(ak);
	free(gone);
}

void deps_tab_maybe_compact(struct deps_tab *t)
{
	if (!t->cmin || t->n < t->next)
		return;
	compact(t);
	/* Each pass costs the entries left: the next waits for as many new. */
	t->next = t->n + (t->n > t->cmin ? t->n : t->cmin);
}

/* Empties t's odd set.  A pending table is emptied every iteration and
 * its set may have grown big once: a set far bigger than what it holds
 * is given back (grown again as needed), so that emptying costs what
 * was added, not the biggest iteration's size. */
static void odd_reset(struct deps_tab *t)
{
	if (t->nodd && t->oddcap > 64 && (size_t)t->nodd * 8 < t->oddcap) {
		free(t->odd);
		t->odd = NULL;
		t->oddcap = 0;
	} else if (t->nodd) {
		memset(t->odd, 0, (size_t)t->oddcap * sizeof(*t->odd));
	}
	t->nodd = 0;
}

/* Empties t, keeping its memory (a pending table is emptied every
 * iteration: clearing costs its entries, not its capacity). */
void deps_tab_clear(struct deps_tab *t)
{
	uint32_t i;

	size_add(t, -(int64_t)deps_tab_size(t));
	if ((size_t)t->n * 8 >= t->ixcap) {
		for (i = 0; i < t->ixcap; i++)
			t->ix[i].idx = DEPS_NONE;
	} else {
		for (i = 0; i < t->n; i++) {
			size_t j;

			for (j = deps_hash(t->e[i].addr) & (t->ixcap - 1);
			     t->ix[j].idx != i; j = (j + 1) & (t->ixcap - 1))
				;
			t->ix[j].idx = DEPS_NONE;
		}
	}
	t->n = 0;
	t->nrun = 0;
	deps_near_reset(t);
	t->next = t->cmin;
	t->maxlen = t->uni = t->mixed = 0;
	odd_reset(t);
	t->oddnext = 0;
}

void deps_tab_release(struct deps_tab *t)
{
	free(t->e);
	free(t->ix);
	free(t->run);
	free(t->rix);
	free(t->odd);
	deps_near_release(t);
	memset(t, 0, sizeof(*t));
}

static int odd_has(const struct deps_tab *t, uint64_t g)
{
	size_t j;

	if (!t->oddcap)
		return 0;
	for (j = deps_hash(g + 1) & (t->oddcap - 1); t->odd[j]; j = (j + 1) & (t->oddcap - 1))
		if (t->odd[j] == g + 1)
			return 1;
	return 0;
}

/* Adds granule g to t's odd set; out of memory makes every query slow. */
static void odd_add(struct deps_tab *t, uint64_t g)
{
	size_t j;

	if (odd_has(t, g))
		return;
	if ((t->nodd + 1) * 2 > t->oddcap) {
		uint32_t nc = t->oddcap ? t->oddcap * 2 : 16, i;
		uint64_t *no = nc <= (1u << 30) ? calloc(nc, sizeof(*no)) : NULL;

		if (!no) {
			t->mixed = 1;
			return;
		}
		for (i = 0; i < t->oddcap; i++)
			if (t->odd[i]) {
				for (j = deps_hash(t->odd[i]) & (nc - 1); no[j]; j = (j + 1) & (nc - 1))
					;
				no[j] = t->odd[i];
			}
		free(t->odd);
		t->odd = no;
		t->oddcap = nc;
	}
	for (j = deps_hash(g + 1) & (t->oddcap - 1); t->odd[j]; j = (j + 1) & (t->oddcap - 1))
		;
	t->odd[j] = g + 1;
	t->nodd++;
}

/* Marks the granules of an entry at addr, len bytes, when odd. */
static void odd_mark(struct deps_tab *t, uint64_t addr, unsigned len)
{
	uint64_t g;

	if (len == t->uni && !(addr % t->uni))
		return;
	for (g = addr / t->uni; g <= (addr + len - 1) / t->uni; g++)
		odd_add(t, g);
}

/* The first entry's length is not the common one (a loop counter before
 * an array of doubles): the most frequent length becomes uni, and the
 * odd granules are marked again.  Waits for twice as many odd granules
 * before the next time. */
static void odd_repick(struct deps_tab *t)
{
	uint64_t cnt[256], k;
	uint32_t i;
	unsigned l, best = t->uni;

	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < t->n; i++)
		cnt[t->e[i].len]++;
	for (i = 0; i < t->nrun; i++)
		cnt[t->run[i].p.len] += t->run[i].n;
	for (l = 1; l < 256; l++)
		if (cnt[l] > cnt[best])
			best = l;
	if (best != t->uni && !t->mixed) {
		t->uni = (uint8_t)best;
		odd_reset(t);
		for (i = 0; i < t->n; i++)
			odd_mark(t, t->e[i].addr, t->e[i].len);
		for (i = 0; i < t->nrun; i++)
			for (k = 0; k < t->run[i].n; k++)
				odd_mark(t, t->run[i].p.addr + k * t->run[i].stride, t->run[i].p.len);
	}
	t->oddnext = 2 * (t->nodd > 64 ? t->nodd : 64);
}

void deps_tab_len(struct deps_tab *t, struct deps_ent *e, unsigned size)
{
	if (size > e->len)
		e->len = (uint8_t)size;
	if (e->len > t->maxlen)
		t->maxlen = e->len;
	if (!t->uni)
		t->uni = e->len;
	odd_mark(t, e->addr, e->len);
	if (t->nodd >= (t->oddnext ? t->oddnext : 64))
		odd_repick(t);
}

int deps_tab_regular(const struct deps_tab *t, const struct deps_tab *u)
{
	return !t->mixed && !u->mixed && !t->nodd && !u->nodd &&
	       (!t->uni || !u->uni || t->uni == u->uni);
}

size_t deps_tab_overlaps(struct deps_tab *t, uint64_t addr, unsigned len,
			 const struct deps_ent **out, struct deps_ent *buf)
{
	uint64_t a, lo;
	size_t n = 0;

	if (!len)
		len = 1;
	if (!t->uni || (!t->mixed && t->uni == len && !(addr % len) &&
			(!t->nodd || !odd_has(t, addr / len)))) {
		/* Aligned ranges of one length coincide or are disjoint. */
		const struct deps_ent *e = deps_tab_peek(t, addr, buf);

		if (e)
			out[n++] = e;
		return n;
	}
	lo = t->maxlen > 1 && addr >= t->maxlen - 1u ? addr - (t->maxlen - 1u) : addr;
	if (addr + len > addr) {
		long m = deps_near_overlaps(t, lo, addr, addr + len, out, buf);

		if (m >= 0)
			return (size_t)m;
	}
	/* Every start that could reach addr. */
	for (a = lo; a < addr + len && n < DEPS_MAXOV; a++) {
		const struct deps_ent *e = deps_tab_peek(t, a, &buf[n]);

		if (e && e->addr + (e->len ? e->len : 1) > addr)
			out[n++] = e;
	}
	return n;
}

int deps_tab_covered(struct deps_tab *t, uint64_t addr, unsigned len,
		     uint64_t *waddr, struct deps_ent *buf)
{
	const struct deps_ent *ov[DEPS_MAXOV];
	uint8_t cov[128];
	size_t n, i;
	unsigned b;
	int first = 0;

	if (!len)
		len = 1;
	if (len > sizeof(cov))
		len = sizeof(cov);
	n = deps_tab_overlaps(t, addr, len, ov, buf);
	memset(cov, 0, len);
	for (i = 0; i < n; i++) {
		const struct deps_ent *e = ov[i];

		if (!e->w)
			continue;
		for (b = 0; b < len; b++)
			if (addr + b >= e->addr && addr + b < e->addr + (e->wlen ? e->wlen : 1)) {
				cov[b] = 1;
				if (!b) {
					*waddr = e->addr;
					first = 1;
				}
			}
	}
	for (b = 0; b < len; b++)
		if (!cov[b])
			return 0;
	return first;
}

/* The next access of spool s into s's fields; 1 when there is one, 0 at
 * the end.  A record that does not decode to its end is counted in
 * *damaged and the rest of it dropped.  Returns 1, 0 or -LS_ENOMEM. */
int deps_spool_next(struct deps_spool *s, uint64_t *damaged)
{
	for (;;) {
		const uint8_t *p, *end;
		uint64_t di;
		int64_t dia, dda;
		uint8_t sz;
		uint32_t len;

		if (s->pos < s->len) {
			p = s->rec + s->pos;
			end = s->rec + s->len;
			if (ls_get_uleb(&p, end, &di) < 0 || ls_get_sleb(&p, end, &dia) < 0 ||
			    ls_get_sleb(&p, end, &dda) < 0 || p >= end || *p == 1) {
				(*damaged)++;
				s->pos = s->len;
				continue;
			}
			sz = *p++;
			/* Size byte 0: an allocation, its size follows. */
			if (!sz && ls_get_uleb(&p, end, &s->asize) < 0) {
				(*damaged)++;
				s->pos = s->len;
				continue;
			}
			s->pos = (size_t)(p - s->rec);
			s->picount += di;
			s->piaddr += (uint64_t)dia;
			s->pdaddr += (uint64_t)dda;
			s->icount = s->picount;
			s->iaddr = s->piaddr;
			s->daddr = s->pdaddr;
			s->size = sz >> 1;
			s->write = sz & 1;
			return 1;
		}
		if (!s->f || s->eof || fread(&len, sizeof(len), 1, s->f) != 1) {
			s->eof = 1;
			return 0;
		}
		if (len > s->cap) {
			uint8_t *n = realloc(s->rec, len);

			if (!n)
				return -LS_ENOMEM;
			s->rec = n;
			s->cap = len;
		}
		if (fread(s->rec, 1, len, s->f) != len) {
			(*damaged)++;
			s->eof = 1;
			return 0;
		}
		s->len = len;
		s->pos = 0;
		s->picount = s->piaddr = s->pdaddr = 0;
	}
}

void deps_spool_release(struct deps_spool *s)
{
	if (s->f)
		fclose(s->f);
	free(s->rec);
	memset(s, 0, sizeof(*s));
}
