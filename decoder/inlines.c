/* inlines.c - each unit's inlined-subroutine ranges, walked once. */
#include <dwarf.h>
#include <stdlib.h>

#include "decoder/inlines.h"
#include "ls_buf.h"
#include "ls_err.h"

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
	uint32_t depth;		/* inlined subroutines around it, + 1 */
	const char *name;
};

struct unit {
	Dwarf_Off off;		/* the unit DIE's offset */
	struct range *r;
	size_t n, cap;
};

struct lsd_inl {
	struct unit *u;
	size_t n, cap;
};

static int push(struct unit *u, uint64_t lo, uint64_t hi, uint32_t depth,
		const char *name)
{
	if (LS_GROW(u->r, u->n + 1, u->cap, 64))
		return -1;
	u->r[u->n++] = (struct range){ lo, hi, depth, name };
	return 0;
}

/* Every DIE below die (as dwarf_getscopes() looks at them), depth the
 * inlined subroutines around it.  Returns -1 when out of memory. */
static int walk(struct unit *u, Dwarf_Die *die, uint32_t depth)
{
	Dwarf_Die c;

	if (dwarf_child(die, &c) != 0)
		return 0;
	do {
		uint32_t d = depth;

		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			const char *name = dwarf_diename(&c);
			ptrdiff_t off = 0;

			d = depth + 1;
			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0)
				if (push(u, lo, hi, d, name ? name : "??") < 0)
					return -1;
		}
		if (walk(u, &c, d) < 0)
			return -1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static struct unit *unit_of(struct lsd_inl *c, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct unit *u;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->u[i].off == off)
			return &c->u[i];
	if (LS_GROW(c->u, c->n + 1, c->cap, 16))
		return NULL;
	u = &c->u[c->n];
	*u = (struct unit){ off, NULL, 0, 0 };
	if (walk(u, cudie, 0) < 0) {
		free(u->r);
		return NULL;
	}
	c->n++;
	return u;
}

int lsd_inl_chain(struct lsd_inl **pc, Dwarf_Die *cudie, uint64_t vaddr,
		  const char **names, int max)
{
	const struct range *best[64];
	struct unit *u;
	size_t i;
	int n = 0, j;

	if (max > 64)
		max = 64;
	if (!*pc && !(*pc = calloc(1, sizeof(**pc))))
		return -LS_ENOMEM;
	if (!(u = unit_of(*pc, cudie)))
		return -LS_ENOMEM;
	/* the max deepest ranges holding vaddr, deepest (innermost) first:
	 * proper nesting gives one per depth */
	for (i = 0; i < u->n; i++) {
		const struct range *x = &u->r[i];

		if (x->lo > vaddr || vaddr >= x->hi)
			continue;
		if (n == max && (!n || best[n - 1]->depth >= x->depth))
			continue;
		j = n < max ? n++ : n - 1;
		for (; j > 0 && best[j - 1]->depth < x->depth; j--)
			best[j] = best[j - 1];
		best[j] = x;
	}
	for (j = 0; j < n; j++)
		names[j] = best[j]->name;
	return n;
}

void lsd_inl_free(struct lsd_inl *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->u[i].r);
	free(c->u);
	free(c);
}
