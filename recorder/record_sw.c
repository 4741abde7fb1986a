/* record_sw.c - the sw backend: the command runs under Valgrind with our
 * tool, which writes its records into a FIFO that we drain into the
 * bundle while the command runs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ls_err.h"
#include "recorder/lsc_proto.h"
#include "recorder/record.h"
#include "recorder/sw_ingest.h"

#define SW_BUF (LSW_MAX_PAYLOAD + sizeof(struct lsw_hdr) + (256u << 10))

/* Arguments for valgrind: fixed options, ours, then the command. */
static char **sw_argv(const struct lsr_opts *o, const char *fifo,
		      char *outopt, size_t outlen, char *psbopt, size_t psblen,
		      char *logopt)
{
	size_t n = 0, i;
	char **av;

	while (o->argv[n])
		n++;
	av = calloc(n + 14, sizeof(*av));
	if (!av)
		return NULL;
	snprintf(outopt, outlen, "--lsc-out=%s", fifo);
	snprintf(psbopt, psblen, "--lsc-psb-period=%u",
		 o->psb_period ? o->psb_period : 4096u);
	i = 0;
	av[i++] = (char *)(o->valgrind ? o->valgrind : "valgrind");
	av[i++] = "-q";
	/* Valgrind's own lines ("Process terminating with default action
	 * of signal 11") stay off the program's stderr: relay_log(). */
	av[i++] = logopt;
	/* No gdbserver FIFOs in $TMPDIR: a command killed with its
	 * recorder (kill -9) would leave them behind. */
	av[i++] = "--vgdb=no";
	av[i++] = "--tool=loopscope";
	/* Valgrind would otherwise run glibc's freeres at exit: code the
	 * program never runs natively. */
	av[i++] = "--run-libc-freeres=no";
	av[i++] = "--run-cxx-freeres=no";
	av[i++] = outopt;
	av[i++] = psbopt;
	if (o->mem)
		av[i++] = "--lsc-mem=yes";
	if (o->mem && o->mem_only) {
		size_t len = strlen(o->mem_only) + 16;
		char *a = malloc(len);

		if (!a) {
			free(av);
			return NULL;
		}
		snprintf(a, len, "--lsc-mem-only=%s", o->mem_only);
		av[i++] = a;	/* freed with av by the caller */
	}
	if (o->no_retcomp)
		av[i++] = "--lsc-retcomp=no";
	memcpy(av + i, o->argv, (n + 1) * sizeof(*av));
	return av;
}

/* Reads what the tool wrote and feeds it to in; with in NULL (the
 * bundle can no longer be written) it is read and dropped, so the
 * command runs on to its end. */
static int drain(int fd, struct lsr_ingest *in, uint8_t *buf, size_t *fill,
		 int *eof)
{
	ssize_t r;
	size_t used;
	int err;

	r = read(fd, buf + *fill, SW_BUF - *fill);
	if (r < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		if (in)
			snprintf(in->errmsg, sizeof(in->errmsg), "reading the tool's FIFO: %s",
				 strerror(errno));
		return -LS_EIO;
	}
	if (r == 0) {
		*eof = 1;
		return 0;
	}
	if (!in)
		return 0;
	*fill += (size_t)r;
	err = lsr_ingest_feed(in, buf, *fill, &used);
	if (err < 0)
		return err;
	memmove(buf, buf + used, *fill - used);
	*fill -= used;
	return 0;
}

/* Signals to record while the command runs: forwarded to it, so that
 * `kill record` ends the command as it would end the command run alone,
 * and the bundle is closed properly.  A terminal's ^C reaches the
 * command itself (the whole foreground group): not sent twice. */
static const int fwd_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFWD (sizeof(fwd_sigs) / sizeof(fwd_sigs[0]))
static volatile sig_atomic_t fwd_pending;

static void on_fwd(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code != SI_KERNEL)
		fwd_pending = sig;
}

/* Copies Valgrind's log to stderr but for the report of the command's
 * death by a signal (the "Process terminating" block), which record
 * gives itself as the exit status; what else Valgrind says (a failure
 * to start, unsupported instructions) stays visible. */
static void relay_log(const char *path)
{
	char line[1024];
	int skip = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *t = line;

		if (line[0] == '=' && line[1] == '=' && (t = strstr(line + 2, "== ")))
			t += 3;
		else
			t = line;
		if (!strncmp(t, "Process terminating", 19))
			skip = 1;
		else if (skip && *t != ' ' && *t != '\n')
			skip = 0;
		/* The empty "==PID== " line before the block goes too. */
		if (!skip && *t != '\n')
			fputs(line, stderr);
	}
	fclose(f);
}

int lsr_record_sw(const struct lsr_opts *o, struct lsb_writer *w,
		  struct lsr_stats *st, char *errbuf, size_t errlen)
{
	char dir[4096];
	char fifo[sizeof(dir) + 16], outopt[sizeof(fifo) + 16], psbopt[48];
	char log[sizeof(dir) + 16], logopt[sizeof(log) + 16];
	struct lsr_ingest in;
	struct sigaction fwd, old[NFWD];
	char **av = NULL;
	uint8_t *buf = NULL;
	size_t fill = 0, n;
	int rfd = -1, wfd = -1, pidfd = -1, eof = 0, err = 0, exited = 0, status = 0;
	int wfail = 0;
	pid_t pid = -1, parent = getpid();

	if (!o || LS_OPTS_BAD(o) || !w || !st || !o->argv || !o->argv[0] || !o->vglib)
		return -LS_EINVAL;
	memset(st, 0, sizeof(*st));
	lsr_ingest_init(&in, w, st, o->embed);
	errbuf[0] = '\0';
	if ((err = lsr_mkdtemp(dir, sizeof(dir), "loopscope")) < 0) {
		snprintf(errbuf, errlen, "cannot create a temporary directory in %s: %s",
			 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 err == -LS_EIO ? strerror(errno) : "the path is too long");
		return err;
	}
	snprintf(fifo, sizeof(fifo), "%s/tool.fifo", dir);
	snprintf(log, sizeof(log), "%s/valgrind.log", dir);
	snprintf(logopt, sizeof(logopt), "--log-file=%s", log);
	buf = malloc(SW_BUF);
	av = sw_argv(o, fifo, outopt, sizeof(outopt), psbopt, sizeof(psbopt), logopt);
	if (!buf || !av) {
		err = -LS_ENOMEM;
		goto out;
	}
	if (mkfifo(fifo, 0600)) {
		snprintf(errbuf, errlen, "cannot create FIFO '%s': %s", fifo,
			 strerror(errno));
		err = -LS_EIO;
		goto out;
	}
	/* Hold both ends: reads then never see EOF before the tool has
	 * connected, and we close our write end once the child is gone. */
	rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	wfd = rfd < 0 ? -1 : open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (rfd < 0 || wfd < 0) {
		snprintf(errbuf, errlen, "cannot open FIFO '%s': %s", fifo,
			 strerror(errno));
		err = -LS_EIO;
		goto out;
	}
	/* Like a shell running a foreground job: ^C goes to the command,
	 * and we live on to finish the bundle. */
	memset(&fwd, 0, sizeof(fwd));
	fwd.sa_sigaction = on_fwd;
	fwd.sa_flags = SA_SIGINFO;
	fwd_pending = 0;
	for (n = 0; n < NFWD; n++)
		sigaction(fwd_sigs[n], &fwd, &old[n]);
	pid = fork();
	if (pid < 0) {
		snprintf(errbuf, errlen, "fork: %s", strerror(errno));
		err = -LS_ECHILD;
		goto restore;
	}
	if (pid == 0) {
		for (n = 0; n < NFWD; n++)
			sigaction(fwd_sigs[n], &old[n], NULL);
		lsr_child_prepare(parent);
		setenv("VALGRIND_LIB", o->vglib, 1);
		execvp(av[0], av);
		fprintf(stderr, "loopscope: cannot run '%s': %s\n", av[0],
			strerror(errno));
		_exit(127);
	}
	/* A pidfd wakes us the moment the child exits (Linux 5.3); without
	 * one we look every 20 ms. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (!eof) {
		struct pollfd pfd[2] = { { .fd = rfd, .events = POLLIN },
					 { .fd = pidfd, .events = POLLIN } };
		int pr = poll(pfd, pidfd >= 0 && !exited ? 2 : 1, exited ? 0 : 20);

		if (pr < 0 && errno != EINTR) {
			err = -LS_EIO;
			break;
		}
		if (fwd_pending) {
			kill(pid, fwd_pending);
			fwd_pending = 0;
		}
		if (pr > 0 && (pfd[0].revents & (POLLIN | POLLHUP))) {
			err = drain(rfd, wfail ? NULL : &in, buf, &fill, &eof);
			if (err < 0 && !wfail && lsb_writer_error(w) < 0) {
				/* A full disk or a file size limit: the command
				 * runs on (its trace dropped), so its exit status
				 * is still known; the bundle keeps what it has. */
				wfail = err;
				snprintf(errbuf, errlen, "%s", lsb_writer_errmsg(w));
				err = 0;
				fill = 0;
			}
			if (err < 0)
				break;
			if (o->progress)
				o->progress(o->progress_arg, st);
			continue;
		}
		if (exited) {
			/* Child gone and nothing left: done. */
			eof = 1;
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			close(wfd);
			wfd = -1;
		}
	}
	if (err < 0) {
		/* Keep the command from blocking on a FIFO nobody reads. */
		kill(pid, SIGKILL);
		snprintf(errbuf, errlen, "%s", lsr_ingest_errmsg(&in)[0] ? lsr_ingest_errmsg(&in)
								   : ls_errstr(err));
	}
	if (!exited)
		while (waitpid(pid, &status, 0) != pid)
			if (errno != EINTR) {
				status = 0;
				break;
			}
	st->wait_status = status;
	relay_log(log);
	if (wfail) {
		err = wfail;
		goto restore;
	}
	if (!err && fill)
		snprintf(errbuf, errlen, "the tool's stream ends inside a record (%zu bytes left)",
			 fill);
	if (!err && !in.hello_seen) {
		snprintf(errbuf, errlen, "Valgrind ran no loopscope tool (is '%s' a valid tool directory?)",
			 o->vglib);
		err = -LS_ECHILD;
	}
	/* The tool ends without LSW_END when Valgrind dies; what arrived is
	 * kept and the caller says so.  After an exec the trace ends by
	 * design (the new program is not traced). */
	st->tool_ended = in.end_seen || in.exec_seen;
	if (!errbuf[0] && in.missing[0])
		snprintf(errbuf, errlen, "could not read executable '%s'%s", in.missing,
			 st->missing_modules > 1 ? " and others" : "");
restore:
	for (n = 0; n < NFWD; n++)
		sigaction(fwd_sigs[n], &old[n], NULL);
out:
	if (pidfd >= 0)
		close(pidfd);
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	unlink(fifo);
	unlink(log);
	rmdir(dir);
	for (n = 0; av && av[n] && av[n] != o->argv[0]; n++)
		if (!strncmp(av[n], "--lsc-mem-only=", 15))
			free(av[n]);	/* the one argument sw_argv() allocated */
	free(av);
	free(buf);
	lsr_ingest_release(&in);
	return err;
}
