/* cslib.c - capstone loaded at its first use (cslib.h says why). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/cslib.h"
#include "ls_dl.h"
#include "ls_err.h"

#ifndef LS_CAPSTONE_SONAME
#define LS_CAPSTONE_SONAME "libcapstone.so.4"
#endif

/* Until capstone is loaded (or where it cannot be), calls that fail as
 * capstone fails on a handle never opened: a close in the cleanup of an
 * open that failed must not jump to NULL. */
static cs_err no_open(cs_arch arch, cs_mode mode, csh *h)
{
	(void)arch;
	(void)mode;
	if (h)
		*h = 0;
	return CS_ERR_MEM;
}

static cs_err no_close(csh *h)
{
	(void)h;
	return CS_ERR_HANDLE;
}

static cs_err no_option(csh h, cs_opt_type type, size_t value)
{
	(void)h;
	(void)type;
	(void)value;
	return CS_ERR_HANDLE;
}

static size_t no_disasm(csh h, const uint8_t *code, size_t size, uint64_t address,
			size_t count, cs_insn **insn)
{
	(void)h;
	(void)code;
	(void)size;
	(void)address;
	(void)count;
	if (insn)
		*insn = NULL;
	return 0;
}

static bool no_disasm_iter(csh h, const uint8_t **code, size_t *size, uint64_t *address,
			   cs_insn *insn)
{
	(void)h;
	(void)code;
	(void)size;
	(void)address;
	(void)insn;
	return false;
}

static void no_free(cs_insn *insn, size_t count)
{
	(void)insn;
	(void)count;
}

static cs_insn *no_malloc(csh h)
{
	(void)h;
	return NULL;
}

static bool no_insn_group(csh h, const cs_insn *insn, unsigned int group_id)
{
	(void)h;
	(void)insn;
	(void)group_id;
	return false;
}

static unsigned int no_version(int *major, int *minor)
{
	if (major)
		*major = 0;
	if (minor)
		*minor = 0;
	return 0;
}

struct lsd_cslib lsd_cs = {
	no_open, no_close, no_option, no_disasm, no_disasm_iter, no_free, no_malloc,
	no_insn_group, no_version,
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[512];

static void load(void)
{
	/* (another file: for tests, and installs that keep it elsewhere) */
	const char *env = getenv("LOOPSCOPE_CAPSTONE_LIB");
	const char *so = env && *env ? env : LS_CAPSTONE_SONAME;
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	struct lsd_cslib got;
	int ok = 1;

	if (!h) {
		const char *e = dlerror();

		snprintf(why, sizeof(why), "capstone (%s) cannot be loaded: %s", so,
			 e ? e : "no reason given");
		return;
	}
	LS_DLSYM(h, got.open, "cs_open", ok);
	LS_DLSYM(h, got.close, "cs_close", ok);
	LS_DLSYM(h, got.option, "cs_option", ok);
	LS_DLSYM(h, got.disasm, "cs_disasm", ok);
	LS_DLSYM(h, got.disasm_iter, "cs_disasm_iter", ok);
	LS_DLSYM(h, got.free, "cs_free", ok);
	LS_DLSYM(h, got.malloc, "cs_malloc", ok);
	LS_DLSYM(h, got.insn_group, "cs_insn_group", ok);
	LS_DLSYM(h, got.version, "cs_version", ok);
	if (!ok) {
		snprintf(why, sizeof(why), "capstone (%s) lacks a call loopscope uses", so);
		dlclose(h);
		return;
	}
	lsd_cs = got;
	loaded = 1;	/* (kept loaded: handles live until the process ends) */
}

int lsd_cslib_load(void)
{
	(void)pthread_once(&once, load);
	return loaded ? 0 : -LS_EUNSUP;
}

uint32_t lsd_cslib_version(void)
{
	int major = 0, minor = 0;

	(void)lsd_cslib_load();
	lsd_cs.version(&major, &minor);
	return (uint32_t)major << 16 | (uint32_t)minor;
}

const char *lsd_cslib_error(void)
{
	(void)pthread_once(&once, load);
	return why;
}
