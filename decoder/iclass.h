/* iclass.h - instruction classes with capstone, once per static block,
 * in the block's execution mode. */
#ifndef LSD_ICLASS_H
#define LSD_ICLASS_H

#include <stddef.h>
#include <stdint.h>

#include "decoder/cslib.h"
#include "decoder/decode.h"

/* lsd_cs_open() flags. */
#define LSD_CS_DETAIL 1u	/* instruction details (groups, operands) */
#define LSD_CS_ATT 2u		/* AT&T syntax, as objdump prints */

/* Opens capstone for x86-64: the one place every layer opens it, so that
 * the architecture and options are chosen once.  Close with lsd_cs.close().
 * Returns 0, or -LS_EUNSUP (capstone lacks x86 or the option). */
int lsd_cs_open(csh *cs, unsigned flags);
/* lsd_cs_open() for code of execution mode mode (enum lsd_mode).
 * Returns 0, or -LS_EUNSUP (also for a mode out of range). */
int lsd_cs_open_mode(csh *cs, unsigned flags, int mode);
/* The execution mode of a module's code from its first len bytes: 32-bit
 * for an ELFCLASS32 i386 file; 64-bit for anything else (x86-64 ELF, raw
 * memory dumps, too few bytes).  Never fails. */
int lsd_cs_elf_mode(const uint8_t *file, size_t len);

struct lsd_iclass_ctx;

/* Opens capstone with details, for each execution mode.  Returns
 * -LS_ENOMEM, -LS_EUNSUP. */
int lsd_iclass_open(struct lsd_iclass_ctx **pc);
void lsd_iclass_close(struct lsd_iclass_ctx *c);
/* Adds the class counts of the ninsn instructions at code (runtime address
 * ip, len bytes available, execution mode mode) to out[LSD_IC_MAX].  An
 * instruction counts in every class it belongs to that the table in
 * iclass.c gives (a load that is also integer ALU counts as both);
 * LSD_IC_OTHER only when no other.
 * Returns the number of instructions classified, or -LS_EDECODE if the
 * bytes do not disassemble, -LS_EINVAL for a bad argument or mode. */
int lsd_iclass_count(struct lsd_iclass_ctx *c, int mode, const uint8_t *code,
		     size_t len, uint64_t ip, uint32_t ninsn, uint16_t out[LSD_IC_MAX]);
/* lsd_iclass_count() that asks decoder/xinsn.c's tables first (64-bit
 * code): the same counts (unit_xinsn compares the two on every
 * instruction of the testdata programs and the system's libraries),
 * capstone only for the instructions the tables defer (about 3,200
 * instructions each, against a few dozen).  Same returns. */
int lsd_iclass_block(struct lsd_iclass_ctx *c, int mode, const uint8_t *code,
		     size_t len, uint64_t ip, uint32_t ninsn, uint16_t out[LSD_IC_MAX]);

#endif
