/* symbols.h - functions, source lines and inlined functions for code
 * addresses of a bundle's modules.
 *
 * Addresses are given as (module index, file offset): the decoder knows
 * both for every static block (struct lsd_sblock.module/.mod_off), and
 * they do not depend on where the module was loaded (ASLR).  Symbols come
 * from .symtab, .dynsym and PLT entries (as "name@plt"); lines and
 * inlined functions from DWARF via libdw, read from the embedded module,
 * else from the recorded path, a --debug-dir,
 * /usr/lib/debug/.build-id/xx/rest.debug when its build-id matches, or
 * the debuginfod servers of DEBUGINFOD_URLS.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSD_SYMBOLS_H
#define LSD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bundle.h"

#define LSD_MAX_INLINE 16

struct lsd_symbols;

struct lsd_symbol_info {
	const char *module;	/* path of the module as recorded */
	/* NULL if no function covers the address.  Code no symbol
	 * covers belongs to the synthetic function of the nearest entry
	 * before it that calls or taken addresses show, named
	 * "module+0xVADDR" (its ELF address, as nm prints it). */
	const char *function;
	int synthetic;		/* function is such a name, no symbol */
	uint64_t func_off;	/* address - function start */
	uint64_t func_start;	/* function start as a file offset */
	uint64_t vaddr;		/* the address as an ELF virtual address */
	const char *file;	/* source file, NULL if no line info */
	int line;		/* 0 if unknown */
	int ninline;		/* inlined functions, innermost first */
	const char *inlined[LSD_MAX_INLINE];
};

/* Prepares symbol lookup for every module of r (loading lazily).
 * debug_dir may be NULL.  Returns -LS_ENOMEM, -LS_EINVAL. */
int lsd_symbols_open(struct lsd_symbols **ps, struct lsb_reader *r,
		     const char *debug_dir);
void lsd_symbols_close(struct lsd_symbols *s);
/* Lends s the bytes of embedded module mod (what lsb_reader_module_data()
 * gives, already decompressed elsewhere: lsd_module_bytes()), read where
 * they are when the module is loaded instead of decompressed again, and
 * never written: a module with compressed sections (which libdw would
 * decompress in its image) is read from a copy.  data must stay valid
 * until lsd_symbols_close() or a lend of NULL.  Ignored for a module not
 * embedded or out of range. */
void lsd_symbols_lend(struct lsd_symbols *s, size_t mod, const void *data, size_t len);
/* The CRC-32 of the bytes lent for mod (lsd_module_crc()): the key of
 * their lines cache without reading them all again.  Dropped at the next
 * lend. */
void lsd_symbols_lend_crc(struct lsd_symbols *s, size_t mod, uint32_t crc);
/* Reads every module's symbols now, not at its first lookup (which reads
 * the bundle): lookups then touch the reader no more (the first lookup
 * of code no symbol covers still sweeps that module's code for entries,
 * ~0.2 s for libc, from the bytes loaded here).  A module that
 * cannot be read keeps its error for its lookups.  Returns 0, or
 * -LS_EINVAL. */
int lsd_symbols_load(struct lsd_symbols *s);
/* Fills *info for the instruction at file offset off of module mod.
 * Fields stay NULL/0 when unknown; lines are looked up only when
 * want_lines.  The module is loaded on its first lookup; when that fails,
 * info still names the module (the rest unknown) and every lookup in it
 * returns the same error.  Strings stay valid until lsd_symbols_close.
 * Not thread-safe (loading is lazy).  Returns 0, or
 *   -LS_ENOENT	mod is out of range, or the module is not embedded and
 *		no file with its build-id was found;
 *   -LS_EBUILDID	the only files found have another build-id;
 *   -LS_ELF	the module is not a valid ELF file (libelf failed);
 *   -LS_ENOMEM, -LS_EIO.
 * lsd_symbols_errmsg() then names the file(s).  Broken DWARF only makes
 * lines unknown. */
int lsd_symbols_lookup(struct lsd_symbols *s, int mod, uint64_t off,
		       int want_lines, struct lsd_symbol_info *info);

struct Elf;
/* The ELF files module mod's symbols are read from, as lookups load them:
 * *own the module itself, *dbg its separate debug file (NULL when none was
 * found or needed); owned by s until lsd_symbols_close().  Returns 0, or
 * lsd_symbols_lookup()'s errors when the module cannot be loaded. */
int lsd_symbols_elf(struct lsd_symbols *s, int mod, struct Elf **own, struct Elf **dbg);
struct Dwarf;
/* The DWARF of module mod, the same its line lookups read (the module's
 * own or its separate debug file's; addresses are the module's link-time
 * ones, lsd_symbol_info.vaddr), opened at the first use and owned by s
 * until lsd_symbols_close().  Returns 0, lsd_symbols_lookup()'s errors
 * when the module cannot be loaded, or -LS_ENOENT when it has no DWARF
 * (or it cannot be read: lsd_symbols_errmsg() says why). */
int lsd_symbols_dwarf(struct lsd_symbols *s, int mod, struct Dwarf **dw);

/* Whether this build can ask debuginfod servers (libdebuginfod was there
 * when it was compiled). */
int lsd_debuginfod_built(void);
/* Whether it can here: built so, and the client library (loaded at the
 * first call, not at start) loads. */
int lsd_debuginfod_usable(void);
/* Asks the servers of DEBUGINFOD_URLS for the separate debug file of
 * build-id id[0..len), through *client (made at the first call, NULL
 * before; lsd_debuginfod_end() frees it); its path in the client's cache
 * goes to path.  Returns 0, or
 *   -LS_ENOENT	DEBUGINFOD_URLS is unset or empty, or no server has it;
 *   -LS_EUNSUP	built without libdebuginfod;
 *   -LS_ENOMEM, -LS_EINVAL. */
int lsd_debuginfod_find(void **client, const uint8_t *id, size_t len,
			char *path, size_t cap);
/* lsd_debuginfod_find() for the executable (or library) itself, for a
 * module the bundle only references; same returns. */
int lsd_debuginfod_find_exec(void **client, const uint8_t *id, size_t len,
			     char *path, size_t cap);
void lsd_debuginfod_end(void *client);

/* Text of the last failure: the module, and for a build-id mismatch both
 * the file found and the recorded module.  Never NULL. */
const char *lsd_symbols_errmsg(const struct lsd_symbols *s);

#endif
