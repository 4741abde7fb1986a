/* linecache.h - a module's DWARF answers (source file, line, inlined
 * functions by address) kept in the build-id cache (decoder/symbols.c's
 * lookups; internal to decoder/).
 *
 * Opening a module's DWARF decompresses and indexes its sections: for
 * glibc's separate debug file about 2.3e8 instructions, the most of what
 * an analysis of a short run spends on symbols, every time.  The answers
 * a profile asks for depend only on the DWARF file, so they are kept per
 * module in DIR/<build-id>.lines (the heads cache's directory) with the
 * length and the CRC-32 of the file the DWARF is read from; a later analysis
 * of any bundle of that module answers from the file and opens the
 * DWARF only for an address not in it.  A file whose magic, version,
 * build-id, DWARF file or CRC do not match is ignored and rewritten;
 * failures only cost a DWARF read.
 */
#ifndef LSD_LINECACHE_H
#define LSD_LINECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "decoder/symbols.h"

struct lsd_lcache;

/* The cached answers of the module with build-id bid[0 .. n) whose DWARF
 * is read from the ELF file dw[0 .. dwlen) (empty when no cache file
 * matches).  Returns NULL when there is nothing to key it by (no build-id,
 * one longer than 64 bytes, no cache directory) or memory runs out: the
 * lookups then read the DWARF as before. */
struct lsd_lcache *lsd_lcache_open(const uint8_t *bid, size_t n,
				   const void *dw, size_t dwlen);
/* The same where the CRC-32 of dw[0 .. dwlen) is known already (the
 * build-id cache's check of an embedded module's copy): the key without
 * reading the whole file again. */
struct lsd_lcache *lsd_lcache_open_crc(const uint8_t *bid, size_t n,
				       const void *dw, size_t dwlen, uint32_t crc);
/* Fills info's file, line and inlined functions for vaddr from c.
 * Returns 1 when c holds vaddr, 0 when it does not (info untouched).
 * The strings stay valid until lsd_lcache_close(). */
int lsd_lcache_get(const struct lsd_lcache *c, uint64_t vaddr,
		   struct lsd_symbol_info *info);
/* Keeps info's file, line and inlined functions as vaddr's answer
 * (copying the strings).  Past LSD_LCACHE_MAX answers nothing more is
 * kept.  Returns 0, or -LS_ENOMEM (then nothing was kept). */
#define LSD_LCACHE_MAX (1u << 20)
int lsd_lcache_put(struct lsd_lcache *c, uint64_t vaddr,
		   const struct lsd_symbol_info *info);
/* Writes c's file when answers were added since it was read, and frees
 * c.  A failed write leaves the file as it was. */
void lsd_lcache_close(struct lsd_lcache *c);

#endif
