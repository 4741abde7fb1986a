/* perf_run.c - spawning `perf record` for the pt backend and sampling. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ls_err.h"
#include "perf_run.h"
#include "recorder/record.h"

#define MAX_ARGS 4096

int lsr_have_intel_pt(void)
{
	return access("/sys/bus/event_source/devices/intel_pt", F_OK) == 0;
}

int lsr_have_hw_cycles(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}

/* fork/exec argv; a CLOEXEC pipe tells exec failure from the command's
 * own exit status. */
static int spawn_wait(char *const *av)
{
	int pfd[2], st, e = 0;
	pid_t pid, parent = getpid();
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -LS_ECHILD;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -LS_ECHILD;
	}
	if (pid == 0) {
		lsr_child_prepare(parent);
		close(pfd[0]);
		execvp(av[0], av);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -LS_ECHILD;
	if (n == (ssize_t)sizeof(e))
		return -LS_ENOENT;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return -LS_ECHILD;
}

/* sampling: with call chains, and the build-id of every mapped file: perf
 * records by default only those of files with samples, and a file without
 * one could not be matched to the trace's safely. */
static int run(const struct lsr_perf_run *o, const char *event, int sampling,
	       char *const argv[])
{
	const char *av[MAX_ARGS + 16];
	size_t n = 0, i;

	if (!o || LS_OPTS_BAD(o) || !o->output || !argv || !argv[0])
		return -LS_EINVAL;
	av[n++] = o->perf ? o->perf : "perf";
	av[n++] = "record";
	if (o->quiet)
		av[n++] = "-q";
	av[n++] = "-e";
	av[n++] = event;
	if (sampling) {
		av[n++] = "-g";
		av[n++] = "--buildid-all";
	}
	av[n++] = "-o";
	av[n++] = o->output;
	for (i = 0; o->perf_args && o->perf_args[i]; i++) {
		if (n >= MAX_ARGS)
			return -LS_EINVAL;
		av[n++] = o->perf_args[i];
	}
	av[n++] = "--";
	for (i = 0; argv[i]; i++) {
		if (n >= MAX_ARGS + 14)
			return -LS_EINVAL;
		av[n++] = argv[i];
	}
	av[n] = NULL;
	/* execvp takes char *const[]; nothing here is written to. */
	return spawn_wait((char *const *)(uintptr_t)av);
}

int lsr_perf_record_pt(const struct lsr_perf_run *o, char *const argv[])
{
	char ev[512];
	int k;

	if (!lsr_have_intel_pt())
		return -LS_ENOPT;
	if (!o)
		return -LS_EINVAL;
	k = snprintf(ev, sizeof(ev), "intel_pt/%s/u", o->pt_config ? o->pt_config : "");
	if (k < 0 || (size_t)k >= sizeof(ev))
		return -LS_EINVAL;
	return run(o, ev, 0, argv);
}

int lsr_perf_record_sample(const struct lsr_perf_run *o, char *const argv[])
{
	const char *ev;

	if (!o)
		return -LS_EINVAL;
	ev = o->event ? o->event : lsr_have_hw_cycles() ? "cycles:u" : "cpu-clock:u";
	return run(o, ev, 1, argv);
}
