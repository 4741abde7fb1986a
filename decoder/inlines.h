/* inlines.h - the chain of inlined functions at an address, from a table
 * of each compilation unit's inlined-subroutine ranges built once
 * (decoder/symbols.c's lookups; internal to decoder/).
 *
 * libdw's dwarf_getscopes() walks a unit's DIE tree from its root for
 * every address it is asked about: about a million instructions per
 * lookup in a large unit (glibc's), thousands of lookups per profile.
 * The table walks each unit once.
 */
#ifndef LSD_INLINES_H
#define LSD_INLINES_H

#include <elfutils/libdw.h>
#include <stdint.h>

struct lsd_inl;

/* The names of the inlined subroutines of unit cudie whose code ranges
 * hold vaddr, innermost first, at most max into names[] (strings stay
 * valid while the Dwarf is open).  *pc is the table (made when NULL, the
 * unit's part on its first lookup).  Returns their number, or -LS_ENOMEM
 * (the table could not be made: the answer is not known). */
int lsd_inl_chain(struct lsd_inl **pc, Dwarf_Die *cudie, uint64_t vaddr,
		  const char **names, int max);
void lsd_inl_free(struct lsd_inl *c);

#endif
