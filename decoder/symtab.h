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
				 * weak 1, local 2; LSD_SYM_SYNTHETIC */
};

/* The rank of a function named by its entry (entries.c), not a symbol. */
#define LSD_SYM_SYNTHETIC 3
/* ... at which a FUNC symbol of size 0 gives it a name. */
#define LSD_SYM_ZEROSIZE 4

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
	/* FUNC symbols of size 0 (crt code, _init): not in syms, they
	 * name the synthetic function of an entry there. */
	struct lsd_sym *zero;
	size_t nzero, capzero;
};

/* Adds the functions of elf to t: symtab_elf's .symtab when it has one,
 * else elf's .symtab, else elf's .dynsym; and elf's PLT entries.  Strings
 * point into the Elf handles, which must outlive t.  symtab_elf may be
 * NULL or elf.  Returns 0, -LS_ENOMEM, -LS_ELF. */
int lsd_symtab_build(struct lsd_symtab *t, Elf *elf, Elf *symtab_elf);
void lsd_symtab_release(struct lsd_symtab *t);
/* Adds function [start, start + size) named by a copy of name (owned by
 * t); lsd_symtab_flatten() then makes it visible.  Returns 0,
 * -LS_ENOMEM. */
int lsd_symtab_add_owned(struct lsd_symtab *t, uint64_t start, uint64_t size,
			 const char *name, int rank);
/* Rebuilds the segments from every function added.  Returns 0,
 * -LS_ENOMEM, -LS_EINVAL (2^32 functions or more). */
int lsd_symtab_flatten(struct lsd_symtab *t);
/* Adds a synthetic function "MODNAME+0xVADDR" at each entry of elf's code
 * no function of t covers: direct call targets and addresses the code
 * takes of itself (entries.c).  The sweep of its code is cached by
 * build_id (NULL: not cached) in the heads cache's directory.  Returns 0,
 * -LS_ENOMEM, -LS_EINVAL, -LS_EUNSUP (capstone cannot be opened). */
int lsd_symtab_add_entries(struct lsd_symtab *t, Elf *elf, const char *modname,
			   const uint8_t *build_id, size_t build_id_len);
/* The index of the first segment starting after vaddr (t->nsegs: none). */
size_t lsd_symtab_seg_after(const struct lsd_symtab *t, uint64_t vaddr);
/* The innermost function covering vaddr, or NULL. */
const struct lsd_sym *lsd_symtab_find(const struct lsd_symtab *t,
				      uint64_t vaddr);

#endif
