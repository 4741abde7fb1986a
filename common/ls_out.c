/* ls_out.c - checked output files (see ls_out.h). */
#include "ls_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_err.h"

int ls_out_open(struct ls_out *o, const char *path, const char *mode)
{
	struct stat st;
	size_t len;

	if (!o || !mode)
		return -LS_EINVAL;
	o->f = NULL;
	o->tmp = NULL;
	o->path = path;
	if (!path || !strcmp(path, "-")) {
		o->path = "stdout";
		o->f = stdout;
		return 0;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (!(o->f = fopen(path, mode)))
			return -LS_EIO;
		return 0;
	}
	len = strlen(path) + 32;
	if (!(o->tmp = malloc(len)))
		return -LS_ENOMEM;
	snprintf(o->tmp, len, "%s.%ld.tmp", path, (long)getpid());
	if (!(o->f = fopen(o->tmp, mode))) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -LS_EIO;
	}
	return 0;
}

int ls_out_commit(struct ls_out *o)
{
	int e = 0;

	if (!o || !o->f)
		return -LS_EINVAL;
	/* A failed buffered write leaves its bytes in the buffer, so the
	 * flush fails again and says why; ferror() catches the rest. */
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		e = errno ? errno : EIO;
	if (o->f == stdout) {
		o->f = NULL;
	} else {
		if (fclose(o->f) && !e)
			e = errno ? errno : EIO;
		o->f = NULL;
		if (!e && o->tmp && rename(o->tmp, o->path))
			e = errno;
	}
	if (e && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	errno = e;
	return e ? -LS_EIO : 0;
}

void ls_out_abort(struct ls_out *o)
{
	int e = errno;

	if (!o)
		return;
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	errno = e;
}

int ls_out_finish(struct ls_out *o, int err)
{
	int e = errno;

	if (err >= 0)
		return ls_out_commit(o);
	/* The flush repeats a failed write and so sets errno; where stdio
	 * dropped the bytes, the writer's errno is the failed write's. */
	errno = 0;
	if (o && o->f)
		fflush(o->f);
	e = errno ? errno : e ? e : EIO;
	ls_out_abort(o);
	errno = e;
	return err;
}

int ls_out_write_file(const char *path, const void *data, size_t n)
{
	struct ls_out o;
	int err;

	if (!path || (n && !data))
		return -LS_EINVAL;
	if ((err = ls_out_open(&o, path, "wb")) < 0)
		return err;
	if (n && fwrite(data, 1, n, o.f) != n) {
		err = errno ? errno : EIO;
		ls_out_abort(&o);
		errno = err;
		return -LS_EIO;
	}
	return ls_out_commit(&o);
}
