/* unit_out.c - common/ls_out.h: a temporary renamed over the final name
 * only when every write succeeded; devices written in place.  Expected
 * errno values are the kernel's: /dev/full fails every write with ENOSPC. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_err.h"
#include "ls_out.h"
#include "tap.h"

static char dir[] = "/tmp/unit_out-XXXXXX";

/* The entries of dir, for "no temporary left". */
static int entries(void)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

int main(void)
{
	char path[64], buf[64];
	struct ls_out o;
	struct stat st;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/a.txt", dir);

	TAP_EQ(ls_out_open(&o, path, "w"), 0, "open a new name");
	TAP_OK(o.tmp && access(path, F_OK) < 0, "... written under a temporary name, the name not there yet");
	fputs("one\n", o.f);
	TAP_EQ(ls_out_commit(&o), 0, "commit");
	slurp(path, buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "one\n"), "... the file holds what was written");
	TAP_EQ(entries(), 1, "... and no temporary is left");

	TAP_EQ(ls_out_open(&o, path, "w"), 0, "open an existing file");
	fputs("two\n", o.f);
	ls_out_abort(&o);
	slurp(path, buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "one\n"), "abort: the old file is as it was");
	TAP_EQ(entries(), 1, "... and no temporary is left");

	TAP_EQ(ls_out_open(&o, path, "w"), 0, "open again");
	fputs("three\n", o.f);
	TAP_EQ(ls_out_finish(&o, -LS_ENOMEM), -LS_ENOMEM, "finish after a writer's error returns it");
	slurp(path, buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "one\n"), "... the old file is as it was");
	TAP_EQ(ls_out_write_file(path, "four\n", 5), 0, "ls_out_write_file");
	slurp(path, buf, sizeof(buf));
	TAP_OK(!strcmp(buf, "four\n"), "... replaces the file");

	TAP_EQ(ls_out_open(&o, "/dev/full", "w"), 0, "open /dev/full");
	TAP_OK(!o.tmp, "... a device is written in place (no temporary)");
	fputs("x\n", o.f);
	errno = 0;
	TAP_EQ(ls_out_commit(&o), -LS_EIO, "... the commit fails");
	TAP_EQ(errno, ENOSPC, "... with ENOSPC");
	TAP_OK(!stat("/dev/full", &st) && S_ISCHR(st.st_mode), "... and /dev/full is still a device");

	snprintf(path, sizeof(path), "%s/none/a.txt", dir);
	TAP_EQ(ls_out_open(&o, path, "w"), -LS_EIO, "a missing directory: -LS_EIO");
	TAP_EQ(errno, ENOENT, "... with ENOENT");
	TAP_EQ(ls_out_open(NULL, path, "w"), -LS_EINVAL, "no ls_out: -LS_EINVAL");

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	unlink(path);
	rmdir(dir);
	return TAP_DONE();
}
