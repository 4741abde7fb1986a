/* deps_dwarf.c - names of stack slots from DWARF: the local variable or
 * parameter whose DW_AT_location is DW_OP_fbreg N in a function whose
 * DW_AT_frame_base is DW_OP_call_frame_cfa (what gcc emits), so that N is
 * the slot's offset from the frame's CFA, as the analysis measures it. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps_int.h"

struct deps_dw {
	int tried;
	void *data;		/* the module's bytes (the bundle's copy) */
	Elf *elf;
	Dwarf *dw;
};

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

const char *deps_dwarf_local(struct lsa_deps *D, int32_t module, uint64_t fn_vaddr,
			     int64_t cfaoff)
{
	struct deps_dw *m;
	Dwarf_Die cu, *scopes = NULL;
	const char *nm = NULL;
	size_t len;
	int n, i;

	if (module < 0 || !D->dw || (size_t)module >= D->ndw)
		return NULL;
	m = &D->dw[module];
	if (!m->tried) {
		m->tried = 1;
		if (lsb_reader_module_data(D->r, (size_t)module, &m->data, &len) >= 0 &&
		    elf_version(EV_CURRENT) != EV_NONE &&
		    (m->elf = elf_memory(m->data, len)))
			m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	}
	if (!m->dw || !dwarf_addrdie(m->dw, fn_vaddr, &cu))
		return NULL;
	n = dwarf_getscopes(&cu, fn_vaddr, &scopes);
	for (i = 0; i < n && !nm; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && cfa_based(&scopes[i]))
			nm = find_var(&scopes[i], cfaoff, 0);
	free(scopes);
	return nm;
}

int deps_dwarf_new(struct lsa_deps *D)
{
	D->ndw = lsb_reader_nmodules(D->r);
	D->dw = calloc(D->ndw ? D->ndw : 1, sizeof(*D->dw));
	return D->dw ? 0 : -1;
}

void deps_dwarf_free(struct lsa_deps *D)
{
	size_t i;

	for (i = 0; D->dw && i < D->ndw; i++) {
		if (D->dw[i].dw)
			dwarf_end(D->dw[i].dw);
		if (D->dw[i].elf)
			elf_end(D->dw[i].elf);
		free(D->dw[i].data);
	}
	free(D->dw);
	D->dw = NULL;
	D->ndw = 0;
}
