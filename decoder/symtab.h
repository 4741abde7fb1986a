/* symtab.h - the function table of one ELF module (internal to symbols.c).
 *
 * Functions come from .symtab (else .dynsym) and from the PLT; the table
 * is flattened once into disjoint address segments, each naming the
 * innermost function covering it, so a lookup is one binary search.
 */
#ifndef LSD_SYMTAB_H
#define LSD_SYMTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct lsd_sym {
	uint64_t start, end;	/* ELF virtual addresses, [start, end) */
	const char *name;	/* in the ELF's string table, or names[] */
	uint8_t rank;		/* among aliases the lowest wins: global 0,
				 * weak 1, local 2 */
};

struct lsd_seg {
	uint64_t start;		/* up to the next segment's start */
	int32_t sym;		/* index in syms, -1: no function here */
};

struct lsd_symtab {
	struct lsd_sym *syms;
	size_t nsyms, capsyms;
	struct lsd_seg *segs;
	size_t nsegs;
	char **names;		/* owned strings ("puts@plt") */
	size_t nnames, capnames;
};

/* Adds the functions of elf to t: symtab_elf's .symtab when it has one,
 * else elf's .symtab, else elf's .dynsym; and elf's PLT entries.  Strings
 * point into the Elf handles, which must outlive t.  symtab_elf may be
 * NULL or elf.  Returns 0, -LS_ENOMEM, -LS_ELF. */
int lsd_symtab_build(struct lsd_symtab *t, Elf *elf, Elf *symtab_elf);
void lsd_symtab_release(struct lsd_symtab *t);
/* The innermost function covering vaddr, or NULL. */
const struct lsd_sym *lsd_symtab_find(const struct lsd_symtab *t,
				      uint64_t vaddr);

#endif
