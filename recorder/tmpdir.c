/* tmpdir.c - the recorder's private temporary directories (the tool's
 * FIFO, perf.data files), swept when their recorder died without
 * removing them, and the setup of a traced command's process. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_err.h"
#include "recorder/record.h"

/* The directory's owner from its name NAME-PID-XXXXXX, or 0. */
static long owner_of(const char *ent, const char *name)
{
	size_t n = strlen(name);
	char *end;
	long pid;

	if (strncmp(ent, name, n) || ent[n] != '-' || ent[n + 1] < '1' || ent[n + 1] > '9')
		return 0;
	pid = strtol(ent + n + 1, &end, 10);
	return *end == '-' && strlen(end) == 7 ? pid : 0;
}

/* Removes what a dead recorder left in dir (its files, no subdirectory:
 * the recorder makes none) and dir itself. */
static void remove_left(const char *dir)
{
	char path[4200];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	closedir(d);
	rmdir(dir);
}

int lsr_sweep_tmp(const char *tmp, const char *name)
{
	char path[4200];
	struct dirent *e;
	struct stat st;
	int n = 0;
	DIR *d;

	if (!tmp || !name)
		return -LS_EINVAL;
	if (!(d = opendir(tmp)))
		return -LS_EIO;
	while ((e = readdir(d))) {
		long pid = owner_of(e->d_name, name);

		/* Ours (same user), and its recorder is gone (a pid reused
		 * since keeps it: a leftover, never a live recorder's). */
		if (!pid || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		remove_left(path);
		n++;
	}
	closedir(d);
	return n;
}

int lsr_mkdtemp(char *dir, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");
	int n;

	if (!t || !*t)
		t = "/tmp";
	n = snprintf(dir, len, "%s/%s-%ld-XXXXXX", t, name, (long)getpid());
	if (n < 0 || (size_t)n >= len) {
		if (len)
			dir[0] = '\0';
		return -LS_ELIMIT;
	}
	lsr_sweep_tmp(t, name);
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -LS_EIO;
	}
	return 0;
}

void lsr_child_prepare(pid_t parent)
{
	/* SIGXFSZ is ignored by loopscope (a file size limit is a full
	 * disk to it); the command gets the default, as from a shell. */
	signal(SIGXFSZ, SIG_DFL);
	/* Dies with its recorder (kill -9 of record): no orphan keeps
	 * running untraced.  Kept across exec. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the recorder died before the prctl */
		_exit(128 + SIGKILL);
}
