/* debuginfod.c - separate debug files, and the executables of modules a
 * bundle only references (record --no-embed), fetched by build-id from
 * the servers DEBUGINFOD_URLS names, through elfutils' client library.
 *
 * The library keeps its own cache (DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client), so a file is downloaded once.  Built
 * without the library (no elfutils/debuginfod.h when compiling), every
 * lookup says -LS_EUNSUP and lsd_debuginfod_built() 0, for the CLI to
 * say why DEBUGINFOD_URLS had no effect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/symbols.h"
#include "ls_err.h"

#ifdef LS_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

int lsd_debuginfod_built(void)
{
	return 1;
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
	if (!*client && !(*client = debuginfod_begin()))
		return -LS_ENOMEM;
	fd = exec ? debuginfod_find_executable(*client, id, (int)len, &got)
		  : debuginfod_find_debuginfo(*client, id, (int)len, &got);
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
	if (client)
		debuginfod_end(client);
}

#else

int lsd_debuginfod_built(void)
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
