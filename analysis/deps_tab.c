/* deps_tab.c - the address tables of the dependence analysis and the
 * spools of recorded memory accesses. */
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "common/ls_buf.h"
#include "common/ls_err.h"

static size_t hash_addr(uint64_t a)
{
	/* Addresses step by 4 or 8: mix every bit into the low ones. */
	uint64_t h = (a ^ (a >> 33)) * 0xff51afd7ed558ccdull;

	return (size_t)(h ^ (h >> 33));
}

struct deps_ent *deps_tab_find(const struct deps_tab *t, uint64_t addr)
{
	size_t j;

	if (!t->ixcap)
		return NULL;
	for (j = hash_addr(addr) & (t->ixcap - 1); t->ix[j].idx != DEPS_NONE;
	     j = (j + 1) & (t->ixcap - 1))
		if (t->ix[j].addr == addr)
			return &t->e[t->ix[j].idx];
	return NULL;
}

static int regrow(struct deps_tab *t)
{
	uint32_t ncap = t->ixcap ? t->ixcap * 2 : 64, i;
	struct deps_slot *nix;

	if (ncap > (1u << 31))
		return -LS_ENOMEM;
	nix = malloc((size_t)ncap * sizeof(*nix));
	if (!nix)
		return -LS_ENOMEM;
	for (i = 0; i < ncap; i++)
		nix[i].idx = DEPS_NONE;
	for (i = 0; i < t->n; i++) {
		size_t j;

		for (j = hash_addr(t->e[i].addr) & (ncap - 1); nix[j].idx != DEPS_NONE;
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

/* The entry of addr, added (zeroed, odepth -1) when new; *isnew says
 * which.  NULL: out of memory. */
struct deps_ent *deps_tab_get(struct deps_tab *t, uint64_t addr, int *isnew)
{
	struct deps_ent *e = deps_tab_find(t, addr);
	size_t j;

	*isnew = 0;
	if (e)
		return e;
	if ((t->n + 1) * 2 > t->ixcap && regrow(t) < 0)
		return NULL;
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 32;
		struct deps_ent *ne = realloc(t->e, (size_t)nc * sizeof(*ne));

		if (!ne)
			return NULL;
		t->e = ne;
		t->cap = nc;
	}
	for (j = hash_addr(addr) & (t->ixcap - 1); t->ix[j].idx != DEPS_NONE;
	     j = (j + 1) & (t->ixcap - 1))
		;
	t->ix[j].addr = addr;
	t->ix[j].idx = t->n;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	e->odepth = -1;
	*isnew = 1;
	return e;
}

/* Empties t, keeping its memory (a pending table is emptied every
 * iteration: clearing costs its entries, not its capacity). */
void deps_tab_clear(struct deps_tab *t)
{
	uint32_t i;

	if ((size_t)t->n * 8 >= t->ixcap) {
		for (i = 0; i < t->ixcap; i++)
			t->ix[i].idx = DEPS_NONE;
	} else {
		for (i = 0; i < t->n; i++) {
			size_t j;

			for (j = hash_addr(t->e[i].addr) & (t->ixcap - 1);
			     t->ix[j].idx != i; j = (j + 1) & (t->ixcap - 1))
				;
			t->ix[j].idx = DEPS_NONE;
		}
	}
	t->n = 0;
	t->maxlen = t->uni = t->mixed = 0;
}

void deps_tab_len(struct deps_tab *t, struct deps_ent *e, unsigned size)
{
	if (size > e->len)
		e->len = (uint8_t)size;
	if (e->len > t->maxlen)
		t->maxlen = e->len;
	if (!t->uni)
		t->uni = e->len;
	if (e->len != t->uni || e->addr % e->len)
		t->mixed = 1;
}

size_t deps_tab_overlaps(const struct deps_tab *t, uint64_t addr, unsigned len,
			 struct deps_ent **out)
{
	uint64_t a, lo;
	size_t n = 0;

	if (!len)
		len = 1;
	if (!t->mixed && (!t->uni || t->uni == len) && !(addr % len)) {
		/* Aligned ranges of one length coincide or are disjoint. */
		struct deps_ent *e = deps_tab_find(t, addr);

		if (e)
			out[n++] = e;
		return n;
	}
	lo = t->maxlen > 1 && addr >= t->maxlen - 1u ? addr - (t->maxlen - 1u) : addr;
	for (a = lo; a < addr + len && n < DEPS_MAXOV; a++) {
		struct deps_ent *e = deps_tab_find(t, a);

		if (e && e->addr + (e->len ? e->len : 1) > addr)
			out[n++] = e;
	}
	return n;
}

struct deps_ent *deps_tab_covered(const struct deps_tab *t, uint64_t addr, unsigned len)
{
	struct deps_ent *ov[DEPS_MAXOV], *first = NULL;
	uint8_t cov[128];
	size_t n, i;
	unsigned b;

	if (!len)
		len = 1;
	if (len > sizeof(cov))
		len = sizeof(cov);
	n = deps_tab_overlaps(t, addr, len, ov);
	memset(cov, 0, len);
	for (i = 0; i < n; i++) {
		const struct deps_ent *e = ov[i];

		if (!e->w)
			continue;
		for (b = 0; b < len; b++)
			if (addr + b >= e->addr && addr + b < e->addr + (e->wlen ? e->wlen : 1)) {
				cov[b] = 1;
				if (!b)
					first = ov[i];
			}
	}
	for (b = 0; b < len; b++)
		if (!cov[b])
			return NULL;
	return first;
}

void deps_tab_release(struct deps_tab *t)
{
	free(t->e);
	free(t->ix);
	memset(t, 0, sizeof(*t));
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
			    ls_get_sleb(&p, end, &dda) < 0 || p >= end || !(*p >> 1)) {
				(*damaged)++;
				s->pos = s->len;
				continue;
			}
			sz = *p++;
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
