/* symtab.c - function tables of ELF modules: symbols, PLT entries, and the
 * flattening into disjoint segments that makes a lookup O(log n). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/symtab.h"
#include "ls_buf.h"
#include "ls_err.h"
#include "ls_sort.h"

static int add_sym(struct lsd_symtab *t, uint64_t start, uint64_t size,
		   const char *name, int rank)
{
	if (LS_GROW(t->syms, t->nsyms + 1, t->capsyms, 256))
		return -LS_ENOMEM;
	t->syms[t->nsyms].start = start;
	/* A size running past the address space ends there. */
	t->syms[t->nsyms].end = start + size < start ? UINT64_MAX : start + size;
	t->syms[t->nsyms].name = name;
	t->syms[t->nsyms].rank = (uint8_t)rank;
	t->nsyms++;
	return 0;
}

static Elf_Scn *find_scn(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static Elf_Scn *find_type(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static int add_zero(struct lsd_symtab *t, uint64_t start, const char *name)
{
	if (LS_GROW(t->zero, t->nzero + 1, t->capzero, 16))
		return -LS_ENOMEM;
	t->zero[t->nzero].start = start;
	t->zero[t->nzero].end = start;
	t->zero[t->nzero].name = name;
	t->zero[t->nzero++].rank = 0;
	return 0;
}

/* Adds the functions of one symbol table section (sized ones to syms). */
static int add_symbols(struct lsd_symtab *t, Elf *elf, Elf_Scn *scn,
		       const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, i, ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	int err;

	if (!d || !ent || sh->sh_type == SHT_NOBITS)
		return 0;
	n = d->d_size / ent;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type, bind;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (!sym.st_size) {
			/* No extent (crt's frame_dummy, _init): an entry that
			 * names a synthetic function (entries.c). */
			err = add_zero(t, sym.st_value, name);
			if (err < 0)
				return err;
			continue;
		}
		err = add_sym(t, sym.st_value, sym.st_size, name,
			      bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
		if (err < 0)
			return err;
	}
	return 0;
}

struct got_slot {
	uint64_t addr;		/* the GOT slot a PLT entry jumps through */
	const char *name;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Collects the GOT slots of JUMP_SLOT and GLOB_DAT relocations of one
 * SHT_RELA section, named by their dynamic symbol. */
static int add_slots(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		     struct got_slot **slots, size_t *n, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL), *symd;
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	size_t i, nrel, ent = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);

	if (!d || !ent || !symscn || !gelf_getshdr(symscn, &symsh))
		return 0;
	symd = elf_getdata(symscn, NULL);
	if (!symd)
		return 0;
	nrel = d->d_size / ent;
	for (i = 0; i < nrel; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		const char *name;
		size_t type;

		if (!gelf_getrela(d, (int)i, &rela))
			break;
		type = GELF_R_TYPE(rela.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(symd, (int)GELF_R_SYM(rela.r_info), &sym))
			continue;
		name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (LS_GROW(*slots, *n + 1, *cap, 64))
			return -LS_ENOMEM;
		(*slots)[*n].addr = rela.r_offset;
		(*slots)[(*n)++].name = name;
	}
	return 0;
}

int lsd_symtab_add_owned(struct lsd_symtab *t, uint64_t start, uint64_t size,
			 const char *name, int rank)
{
	size_t len = strlen(name) + 1;
	char *s;

	if (LS_GROW(t->names, t->nnames + 1, t->capnames, 64))
		return -LS_ENOMEM;
	s = malloc(len);
	if (!s)
		return -LS_ENOMEM;
	memcpy(s, name, len);
	t->names[t->nnames++] = s;
	return add_sym(t, start, size, s, rank);
}

static int add_plt_name(struct lsd_symtab *t, uint64_t start, uint64_t size,
			const char *base)
{
	char name[1024];

	snprintf(name, sizeof(name), "%s@plt", base);
	return lsd_symtab_add_owned(t, start, size, name, 0);
}

/* Names the entries of one PLT section as binutils does: each entry holds
 * a "jmp *disp32(%rip)" (ff 25, maybe after a bnd/notrack prefix); the
 * GOT slot it jumps through is the r_offset of the relocation that names
 * the function.  This does not depend on the order of .rela.plt, which
 * IRELATIVE entries and .plt.sec/.plt.got break. */
static int add_plt_section(struct lsd_symtab *t, Elf *elf, const char *name,
			   uint64_t skip, uint64_t entsize,
			   const struct got_slot *slots, size_t nslots)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, name, &sh);
	Elf_Data *d;
	uint64_t off;
	int err;

	if (!scn || sh.sh_type != SHT_PROGBITS)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return 0;
	if (sh.sh_entsize == 8 || sh.sh_entsize == 16)
		entsize = sh.sh_entsize;
	for (off = skip; off + entsize <= d->d_size; off += entsize) {
		const uint8_t *e = (const uint8_t *)d->d_buf + off;
		uint64_t ent_addr = sh.sh_addr + off;

		for (uint64_t p = 0; p + 6 <= entsize; p++) {
			struct got_slot key, *hit;
			int32_t disp;

			if (e[p] != 0xff || e[p + 1] != 0x25)
				continue;
			memcpy(&disp, e + p + 2, 4);	/* little-endian x86 */
			key.addr = ent_addr + p + 6 + (uint64_t)(int64_t)disp;
			hit = bsearch(&key, slots, nslots, sizeof(*slots),
				      cmp_slot);
			if (hit) {
				err = add_plt_name(t, ent_addr, entsize,
						   hit->name);
				if (err < 0)
					return err;
			}
			break;
		}
	}
	return 0;
}

static int add_plt(struct lsd_symtab *t, Elf *elf)
{
	struct got_slot *slots = NULL;
	size_t n = 0, cap = 0;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err = 0;

	scn = find_scn(elf, ".rela.plt", &sh);
	if (scn && sh.sh_type == SHT_RELA)
		err = add_slots(elf, scn, &sh, &slots, &n, &cap);
	scn = find_scn(elf, ".rela.dyn", &sh);
	if (!err && scn && sh.sh_type == SHT_RELA)
		err = add_slots(elf, scn, &sh, &slots, &n, &cap);
	if (!err && n) {
		qsort(slots, n, sizeof(*slots), cmp_slot);
		/* With IBT, .plt holds only the lazy stubs and .plt.sec the
		 * entries code calls; else .plt after its first entry. */
		if (find_scn(elf, ".plt.sec", &sh))
			err = add_plt_section(t, elf, ".plt.sec", 0, 16, slots, n);
		else
			err = add_plt_section(t, elf, ".plt", 16, 16, slots, n);
		if (!err)
			err = add_plt_section(t, elf, ".plt.got", 0, 8, slots, n);
	}
	free(slots);
	return err;
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/* Start ascending, then end descending, then worse binding, then more
 * leading underscores, then name descending: among symbols with the same
 * start the one pushed last wins -- the innermost, then (as perf chooses
 * among aliases) global over weak over local, fewer leading underscores
 * (printf over _IO_printf), then the first name in byte order. */
static int cmp_sym(const void *a, const void *b)
{
	const struct lsd_sym *x = a, *y = b;
	size_t ux, uy;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	return -strcmp(x->name, y->name);
}

/* Sorts t's symbols by cmp_sym(): by start with a radix sort, then the
 * few with one start (aliases, nested symbols) by the rest.  The order
 * is qsort()'s, as cmp_sym() tells apart any two symbols that differ.
 * Returns 0 or ls_sort_order()'s errors. */
static int sort_syms(struct lsd_symtab *t)
{
	size_t n = t->nsyms, i, j;
	uint64_t *keys = malloc(n * sizeof(*keys));
	uint32_t *ord = malloc(n * sizeof(*ord));
	struct lsd_sym *to = malloc(n * sizeof(*to));
	int err = keys && ord && to ? 0 : -LS_ENOMEM;

	for (i = 0; !err && i < n; i++)
		keys[i] = t->syms[i].start;
	if (!err)
		err = ls_sort_order(keys, n, ord);
	free(keys);
	if (err) {
		free(ord);
		free(to);
		return err;
	}
	for (i = 0; i < n; i++)
		to[i] = t->syms[ord[i]];
	/* insertion sort of each run of one start */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && to[j - 1].start == to[j].start &&
		     cmp_sym(&to[j - 1], &to[j]) > 0; j--) {
			struct lsd_sym x = to[j];

			to[j] = to[j - 1];
			to[j - 1] = x;
		}
	free(t->syms);
	t->syms = to;
	t->capsyms = n;
	free(ord);
	return 0;
}

/* Flattens the symbols into segments with a sweep over all boundaries: a
 * stack holds the symbols entered, in start order; its top, once expired
 * ones are popped, is the covering symbol with the greatest start. */
int lsd_symtab_flatten(struct lsd_symtab *t)
{
	size_t n = t->nsyms, npts = 0, i, j = 0, top = 0;
	uint64_t *pts;
	int32_t *stack;
	int err;

	free(t->segs);
	t->segs = NULL;
	t->nsegs = 0;
	if (!n)
		return 0;
	if ((err = sort_syms(t)) < 0)
		return err;
	pts = malloc(2 * n * sizeof(*pts));
	stack = malloc(n * sizeof(*stack));
	t->segs = malloc(2 * n * sizeof(*t->segs));
	if (!pts || !stack || !t->segs) {
		free(pts);
		free(stack);
		return -LS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pts[npts++] = t->syms[i].start;
		pts[npts++] = t->syms[i].end;
	}
	if (ls_sort_u64(pts, npts) < 0) {
		free(pts);
		free(stack);
		return -LS_ENOMEM;
	}
	for (i = 0; i < npts; i++) {
		int32_t cur;

		if (i && pts[i] == pts[i - 1])
			continue;
		while (j < n && t->syms[j].start <= pts[i])
			stack[top++] = (int32_t)j++;
		while (top && t->syms[stack[top - 1]].end <= pts[i])
			top--;
		cur = top ? stack[top - 1] : -1;
		if (t->nsegs && t->segs[t->nsegs - 1].sym == cur)
			continue;
		t->segs[t->nsegs].start = pts[i];
		t->segs[t->nsegs++].sym = cur;
	}
	free(pts);
	free(stack);
	return 0;
}

int lsd_symtab_build(struct lsd_symtab *t, Elf *elf, Elf *symtab_elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	int err;

	if (symtab_elf && symtab_elf != elf)
		scn = find_type(symtab_elf, SHT_SYMTAB, &sh);
	if (scn) {
		err = add_symbols(t, symtab_elf, scn, &sh);
	} else if ((scn = find_type(elf, SHT_SYMTAB, &sh))) {
		err = add_symbols(t, elf, scn, &sh);
	} else if ((scn = find_type(elf, SHT_DYNSYM, &sh))) {
		err = add_symbols(t, elf, scn, &sh);
	} else {
		err = 0;
	}
	if (!err)
		err = add_plt(t, elf);
	if (!err)
		err = lsd_symtab_flatten(t);
	return err;
}

void lsd_symtab_release(struct lsd_symtab *t)
{
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->zero);
	free(t->syms);
	free(t->segs);
	memset(t, 0, sizeof(*t));
}

size_t lsd_symtab_seg_after(const struct lsd_symtab *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->segs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct lsd_sym *lsd_symtab_find(const struct lsd_symtab *t,
				      uint64_t vaddr)
{
	/* The last segment starting at or before vaddr. */
	size_t lo = lsd_symtab_seg_after(t, vaddr);

	if (!lo || t->segs[lo - 1].sym < 0)
		return NULL;
	return &t->syms[t->segs[lo - 1].sym];
}
