/* deps_dwarf.c - names of stack slots from DWARF: the local variable or
 * parameter whose DW_AT_location is DW_OP_fbreg N in a function whose
 * DW_AT_frame_base is DW_OP_call_frame_cfa (what gcc emits), so that N is
 * the slot's offset from the frame's CFA, as the analysis measures it. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"

/* Whether die's location is one DW_OP_fbreg of offset off. */
static int at_fbreg(Dwarf_Die *die, int64_t off)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(die, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &n) != 0 ||
	    n != 1)
		return 0;
	return ops[0].atom == DW_OP_fbreg && (int64_t)ops[0].number == off;
}

/* The variable at CFA offset off among die's children, lexical blocks
 * searched too; NULL. */
static const char *find_var(Dwarf_Die *die, int64_t off, int depth)
{
	Dwarf_Die c;
	const char *nm;

	if (depth > 16 || dwarf_child(die, &c) != 0)
		return NULL;
	do {
		int tag = dwarf_tag(&c);

		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    at_fbreg(&c, off) && (nm = dwarf_diename(&c)))
			return nm;
		if (tag == DW_TAG_lexical_block && (nm = find_var(&c, off, depth + 1)))
			return nm;
	} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

/* Whether the function's frame base is the CFA. */
static int cfa_based(Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	return dwarf_attr(fn, DW_AT_frame_base, &at) && !dwarf_getlocation(&at, &ops, &n) &&
	       n == 1 && ops[0].atom == DW_OP_call_frame_cfa;
}

/* The DIE offset of the CFA-based subprogram holding fn_vaddr, + 2 (1:
 * none).  dwarf_getscopes() walks the unit's tree from its root, costly in
 * a large unit: once per function, kept in D->fdie. */
static uint64_t func_die(Dwarf *dw, uint64_t fn_vaddr)
{
	Dwarf_Die cu, *scopes = NULL;
	uint64_t v = 1;
	int n, i;

	if (!dwarf_addrdie(dw, fn_vaddr, &cu))
		return 1;
	n = dwarf_getscopes(&cu, fn_vaddr, &scopes);
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && cfa_based(&scopes[i])) {
			v = dwarf_dieoffset(&scopes[i]) + 2;
			break;
		}
	free(scopes);
	return v;
}

const char *deps_dwarf_local(struct lsa_deps *D, int32_t module, uint64_t fn_vaddr,
			     int64_t cfaoff)
{
	Dwarf *dw;
	Dwarf_Die fn;
	uint64_t *v;

	/* the symbols' DWARF: a separate debug file's too, opened once */
	if (module < 0 || !D->sym || lsd_symbols_dwarf(D->sym, module, &dw) < 0 ||
	    !(v = lsa_kmap_get(&D->fdie, (uint64_t)module, fn_vaddr)))
		return NULL;
	if (!*v)
		*v = func_die(dw, fn_vaddr);
	if (*v < 2 || !dwarf_offdie(dw, *v - 2, &fn))
		return NULL;
	return find_var(&fn, cfaoff, 0);
}
