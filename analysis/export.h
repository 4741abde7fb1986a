/* export.h - the edge profile of a finished lsa_cfg in other tools'
 * formats.
 *
 *  - BOLT fdata (perf2bolt's output, read by llvm-bolt --data): one line
 *    per branch and per fall-through,
 *      <is_sym> <name> <from_off> <is_sym> <name> <to_off> <mispreds> <count>
 *    with offsets in hex from the function's start; a branch goes from its
 *    branch instruction to its target, a fall-through from the last
 *    instruction of a block to the next block (as perf2bolt records the
 *    fall-throughs of a trace); code outside the module is "0 [unknown] 0".
 *    A trace has no mispredictions: 0.
 *  - AutoFDO text (create_llvm_prof --profiler=text, sample_reader.cc):
 *    the number of address ranges, then "begin-end:count" per range
 *    (begin: first instruction, end: last instruction), the number of
 *    sampled addresses (0: a trace has none), then "from->to:count" per
 *    taken branch, addresses as hexadecimal offsets in the module file,
 *    as perf's DSO offsets are.
 *  - the edge profile as JSON or CSV: every edge of the graph; an end is
 *    a block (module, offset, function), outside (null), or the target
 *    of a conditional's way never taken that never ran (module, offset).
 *
 * Functions return >= 0 on success or a negative LS_E* code (-LS_EIO
 * when writing fails).
 */
#ifndef LSA_EXPORT_H
#define LSA_EXPORT_H

#include <stdio.h>

#include "analysis/cfg.h"
#include "formats/profile.h"

/* The module with the most executed instructions (the program, usually),
 * or -1 when nothing was executed. */
int lsa_export_main_module(const struct lsa_cfg *c);
/* BOLT fdata for edges touching module mod. */
int lsa_export_bolt(FILE *out, const struct lsa_cfg *c, int mod);
/* AutoFDO text for module mod. */
int lsa_export_autofdo(FILE *out, const struct lsa_cfg *c, int mod);
/* Every edge; csv != 0 for CSV with a header line, else a JSON array.
 * The graph's module indexes are p's (may be NULL), which names them
 * (analysis/cgraph.h). */
int lsa_export_edges(FILE *out, const struct lsa_cfg *c, const struct lsp_profile *p,
		     int csv);

#endif
