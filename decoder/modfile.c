/* modfile.c - files of referenced modules, checked by build-id. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder/modfile.h"
#include "decoder/symbols.h"
#include "ls_buildid.h"
#include "ls_err.h"

static void hex(char *out, size_t cap, const uint8_t *id, size_t len)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < cap; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

int lsd_modfile_map(const char *path, void **data, size_t *len)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -LS_ENOENT : -LS_EIO;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return -LS_EIO;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -LS_EIO;
	*data = p;
	*len = (size_t)st.st_size;
	return 0;
}

void lsd_modfile_unmap(void *data, size_t len)
{
	if (data)
		munmap(data, len);
}

int lsd_modfile_try(const struct lsb_module *m, const char *path, void **data,
		    size_t *len, char *errmsg, size_t errlen)
{
	uint8_t id[LSB_BUILD_ID_MAX];
	char want[2 * LSB_BUILD_ID_MAX + 1], got[2 * LSB_BUILD_ID_MAX + 1];
	int n, err;

	err = lsd_modfile_map(path, data, len);
	if (err < 0)
		return err;
	n = ls_buildid_mem(*data, *len, id, sizeof(id));
	if (n == 0)	/* the recorder names such files by a hash */
		n = ls_buildid_hash(*data, *len, id);
	if (n == m->build_id_len && !memcmp(id, m->build_id, (size_t)n))
		return 0;
	hex(want, sizeof(want), m->build_id, m->build_id_len);
	hex(got, sizeof(got), id, n > 0 ? (size_t)n : 0);
	snprintf(errmsg, errlen,
		 "build-id mismatch: the trace ran '%s' with build-id %s, but '%s' has build-id %s",
		 m->path ? m->path : "?", want, path, n > 0 ? got : "none");
	lsd_modfile_unmap(*data, *len);
	*data = NULL;
	return -LS_EBUILDID;
}

int lsd_modfile_buildid_path(char *out, size_t cap, const char *dir,
			     const struct lsb_module *m)
{
	char h[2 * LSB_BUILD_ID_MAX + 1];
	int n;

	hex(h, sizeof(h), m->build_id, m->build_id_len);
	n = snprintf(out, cap, "%s/.build-id/%.2s/%s.debug", dir, h, h + 2);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* What the debuginfod servers said, for the message of a module not found. */
enum { DBGD_UNBUILT, DBGD_NOURLS, DBGD_NOLIB, DBGD_MISSING, DBGD_WRONG };

static const char *const servers[] = {
	/* in parentheses: one string, not two elements (clang asks) */
	[DBGD_UNBUILT] = ("debuginfod not asked (this loopscope was built "
			  "without libdebuginfod)"),
	[DBGD_NOURLS] = "debuginfod not asked (DEBUGINFOD_URLS is unset)",
	[DBGD_NOLIB] = ("debuginfod not asked (its client library, "
			"libdebuginfod.so.1, cannot be loaded)"),
	[DBGD_MISSING] = "not on the debuginfod servers of DEBUGINFOD_URLS",
	[DBGD_WRONG] = "the debuginfod servers gave another build",
};

/* Asks the servers of DEBUGINFOD_URLS for m's executable by build-id and
 * maps it (its path, in the client's cache, to path).  Returns 0 or
 * -LS_ENOENT, -LS_EBUILDID, -LS_EIO, -LS_ENOMEM; *state says why not. */
static int from_servers(const struct lsb_module *m, void **data, size_t *len,
			char *path, size_t cap, int *state)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	void *client = NULL;
	char msg[8];
	int err;

	/* (the library loaded only where DEBUGINFOD_URLS asks for it) */
	*state = !lsd_debuginfod_built() ? DBGD_UNBUILT
		 : !urls || !*urls ? DBGD_NOURLS
		 : !lsd_debuginfod_usable() ? DBGD_NOLIB : DBGD_MISSING;
	if (*state != DBGD_MISSING || !m->build_id_len)
		return -LS_ENOENT;
	err = lsd_debuginfod_find_exec(&client, m->build_id, m->build_id_len,
				       path, cap);
	lsd_debuginfod_end(client);
	if (err == -LS_ENOMEM)
		return err;
	if (err < 0)
		return -LS_ENOENT;
	err = lsd_modfile_try(m, path, data, len, msg, sizeof(msg));
	if (err == -LS_EBUILDID)
		*state = DBGD_WRONG;
	return err;
}

/* The message for a module found nowhere: which module, and every place
 * it was looked for. */
static void not_found(const struct lsb_module *m, const char *debug_dir,
		      int code_only, int state, char *errmsg, size_t errlen)
{
	char id[2 * LSB_BUILD_ID_MAX + 1], dd[4200] = "";

	hex(id, sizeof(id), m->build_id, m->build_id_len);
	if (debug_dir)
		snprintf(dd, sizeof(dd), "not in --debug-dir '%s' (by path%s)",
			 debug_dir, code_only ? " and name" : ", name and build-id");
	else
		snprintf(dd, sizeof(dd), "no --debug-dir given");
	snprintf(errmsg, errlen, "module '%s' (build-id %s) is not in the bundle and "
		 "no file with its build-id was found: not at its recorded path, %s%s, %s",
		 m->path, id, dd, code_only ? "" : ", not under " LSD_SYS_DEBUG_DIR "/.build-id",
		 servers[state]);
}

int lsd_modfile_find(const struct lsb_module *m, const char *debug_dir,
		     int code_only, void **data, size_t *len, char *errmsg,
		     size_t errlen)
{
	return lsd_modfile_find_path(m, debug_dir, code_only, data, len, NULL, 0,
				     errmsg, errlen);
}

int lsd_modfile_find_path(const struct lsb_module *m, const char *debug_dir,
			  int code_only, void **data, size_t *len, char *used,
			  size_t usedlen, char *errmsg, size_t errlen)
{
	char cand[5][4096], msg[1024] = "";
	const char *base;
	int n = 0, i, err, worst = -LS_ENOENT, dstate;

	if (!m->path || !*m->path)
		return -LS_ENOENT;
	base = strrchr(m->path, '/');
	snprintf(cand[n++], sizeof(cand[0]), "%s", m->path);
	if (debug_dir) {
		snprintf(cand[n++], sizeof(cand[0]), "%s/%s", debug_dir, m->path);
		snprintf(cand[n++], sizeof(cand[0]), "%s/%s", debug_dir,
			 base ? base + 1 : m->path);
	}
	if (!code_only && m->build_id_len > 1) {
		if (debug_dir && !lsd_modfile_buildid_path(cand[n], sizeof(cand[0]),
							   debug_dir, m))
			n++;
		if (!lsd_modfile_buildid_path(cand[n], sizeof(cand[0]),
					      LSD_SYS_DEBUG_DIR, m))
			n++;
	}
	for (i = 0; i < n; i++) {
		err = lsd_modfile_try(m, cand[i], data, len, msg[0] ? NULL : msg,
				      msg[0] ? 0 : sizeof(msg));
		if (!err) {
			if (used && usedlen)
				snprintf(used, usedlen, "%s", cand[i]);
			return 0;
		}
		/* A file of another build says more than a missing one. */
		if (err != -LS_ENOENT && worst == -LS_ENOENT)
			worst = err;
	}
	/* Nothing here, or another build (the analysis machine's own
	 * libraries): the servers may have the build that ran. */
	err = from_servers(m, data, len, cand[0], sizeof(cand[0]), &dstate);
	if (!err) {
		if (used && usedlen)
			snprintf(used, usedlen, "%s", cand[0]);
		return 0;
	}
	if (worst == -LS_ENOENT && err != -LS_ENOENT)
		worst = err;
	if (worst == -LS_EBUILDID && msg[0])
		snprintf(errmsg, errlen, "%s; %s", msg, servers[dstate]);
	else
		not_found(m, debug_dir, code_only, dstate, errmsg, errlen);
	return worst;
}
