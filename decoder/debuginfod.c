/* debuginfod.c - separate debug files, and the executables of modules a
 * bundle only references (record --no-embed), fetched by build-id from
 * the servers DEBUGINFOD_URLS names, through elfutils' client library.
 *
 * The library keeps its own cache (DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client), so a file is downloaded once.  It is
 * loaded (dlopen) at the first lookup with DEBUGINFOD_URLS set, not
 * linked: with libcurl and the TLS and Kerberos libraries it pulls in it
 * cost every run of every command 4.6 ms of loading and 60% of its page
 * faults.  Built without its header (elfutils/debuginfod.h), every
 * lookup says -LS_EUNSUP and lsd_debuginfod_built() 0; where the
 * library cannot be loaded, the same and lsd_debuginfod_usable() 0: for
 * the CLI to say why DEBUGINFOD_URLS had no effect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/symbols.h"
#include "ls_err.h"

#ifdef LS_HAVE_DEBUGINFOD
#include <pthread.h>
#include <elfutils/debuginfod.h>

#include "ls_dl.h"

#define DBGD_SONAME "libdebuginfod.so.1"

typedef int (*find_fn)(debuginfod_client *, const unsigned char *, int, char **);

static struct {
	debuginfod_client *(*begin)(void);
	find_fn find_exec, find_debug;
	void (*end)(debuginfod_client *);
	int ok;
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* Loads the client library and its four calls (kept loaded). */
static void lib_load(void)
{
	/* (another file name: for tests, and installs that keep it elsewhere) */
	const char *so = getenv("LOOPSCOPE_DEBUGINFOD_LIB");
	void *h = dlopen(so && *so ? so : DBGD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	lib.ok = 1;
	LS_DLSYM(h, lib.begin, "debuginfod_begin", lib.ok);
	LS_DLSYM(h, lib.find_exec, "debuginfod_find_executable", lib.ok);
	LS_DLSYM(h, lib.find_debug, "debuginfod_find_debuginfo", lib.ok);
	LS_DLSYM(h, lib.end, "debuginfod_end", lib.ok);
	if (!lib.ok)
		dlclose(h);
}

int lsd_debuginfod_built(void)
{
	return 1;
}

int lsd_debuginfod_usable(void)
{
	pthread_once(&lib_once, lib_load);
	return lib.ok;
}

static int find(void **client, const uint8_t *id, size_t len, char *path,
		size_t cap, int exec)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *got = NULL;
	int fd, n;

	if (!client || !id || !len || !path || !cap)
		return -LS_EINVAL;
	if (!urls || !*urls)
		return -LS_ENOENT;
	if (!lsd_debuginfod_usable())
		return -LS_EUNSUP;
	if (!*client && !(*client = lib.begin()))
		return -LS_ENOMEM;
	fd = (exec ? lib.find_exec : lib.find_debug)(*client, id, (int)len, &got);
	if (fd < 0)
		return -LS_ENOENT;
	close(fd);
	n = snprintf(path, cap, "%s", got);
	free(got);
	return n < 0 || (size_t)n >= cap ? -LS_ENOENT : 0;
}

int lsd_debuginfod_find(void **client, const uint8_t *id, size_t len,
			char *path, size_t cap)
{
	return find(client, id, len, path, cap, 0);
}

int lsd_debuginfod_find_exec(void **client, const uint8_t *id, size_t len,
			     char *path, size_t cap)
{
	return find(client, id, len, path, cap, 1);
}

void lsd_debuginfod_end(void *client)
{
	if (client && lib.ok)	/* (a client was made: the library is loaded) */
		lib.end(client);
}

#else

int lsd_debuginfod_built(void)
{
	return 0;
}

int lsd_debuginfod_usable(void)
{
	return 0;
}

int lsd_debuginfod_find(void **client, const uint8_t *id, size_t len,
			char *path, size_t cap)
{
	(void)client;
	(void)id;
	(void)len;
	(void)path;
	(void)cap;
	return -LS_EUNSUP;
}

int lsd_debuginfod_find_exec(void **client, const uint8_t *id, size_t len,
			     char *path, size_t cap)
{
	return lsd_debuginfod_find(client, id, len, path, cap);
}

void lsd_debuginfod_end(void *client)
{
	(void)client;
}

#endif
