/* cslib.h - capstone, loaded (dlopen) at the first handle opened, not
 * linked: its x86 tables hold some 77,000 relocations, which the dynamic
 * loader applied at every start of every process (about half of a
 * start's time), also where nothing is disassembled: loopscope's run of
 * itself again with huge pages (cli/tune.c), and every view of a
 * profile.  Every call goes through lsd_cs, filled once by
 * lsd_cslib_load(); lsd_cs_open_mode() (iclass.h), the one place a
 * handle is opened, loads it, so any other call has a handle and so a
 * loaded library. */
#ifndef LSD_CSLIB_H
#define LSD_CSLIB_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lsd_cslib {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *h);
	cs_err (*close)(csh *h);
	cs_err (*option)(csh h, cs_opt_type type, size_t value);
	size_t (*disasm)(csh h, const uint8_t *code, size_t size, uint64_t address,
			 size_t count, cs_insn **insn);
	bool (*disasm_iter)(csh h, const uint8_t **code, size_t *size, uint64_t *address,
			    cs_insn *insn);
	void (*free)(cs_insn *insn, size_t count);
	cs_insn *(*malloc)(csh h);
	bool (*insn_group)(csh h, const cs_insn *insn, unsigned int group_id);
	unsigned int (*version)(int *major, int *minor);
};

/* capstone's calls, once lsd_cslib_load() returned 0; before (or where
 * it cannot be loaded) calls that fail as on a handle never opened. */
extern struct lsd_cslib lsd_cs;

/* Loads capstone (the build's soname, LS_CAPSTONE_SONAME; the file
 * LOOPSCOPE_CAPSTONE_LIB names instead, where set) once per process.
 * Returns 0, or -LS_EUNSUP where it cannot be loaded or lacks a call
 * (lsd_cslib_error() says which). */
int lsd_cslib_load(void);
/* capstone's version, major << 16 | minor, for the keys of caches of what
 * it disassembled: loaded first (a process that reads a cache may have
 * opened no handle yet); 0 where it cannot be loaded.  Never fails. */
uint32_t lsd_cslib_version(void);
/* Why lsd_cslib_load() failed ("" where it did not): the library's name
 * and the dynamic loader's message. */
const char *lsd_cslib_error(void);

#endif
