/* modfile.c - files of referenced modules, checked by build-id. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder/modfile.h"
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
	int n = 0, i, err, worst = -LS_ENOENT;

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
	if (worst == -LS_ENOENT)
		snprintf(errmsg, errlen, "module '%s' is not in the bundle and no file "
			 "with its build-id was found", m->path);
	else
		snprintf(errmsg, errlen, "%s", msg);
	return worst;
}
