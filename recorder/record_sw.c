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
		      char *outopt, size_t outlen, char *psbopt, size_t psblen)
{
	size_t n = 0, i;
	char **av;

	while (o->argv[n])
		n++;
	av = calloc(n + 12, sizeof(*av));
	if (!av)
		return NULL;
	snprintf(outopt, outlen, "--lsc-out=%s", fifo);
	snprintf(psbopt, psblen, "--lsc-psb-period=%u",
		 o->psb_period ? o->psb_period : 4096u);
	i = 0;
	av[i++] = (char *)(o->valgrind ? o->valgrind : "valgrind");
	av[i++] = "-q";
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
		snprintf(in->errmsg, sizeof(in->errmsg), "reading the tool's FIFO: %s",
			 strerror(errno));
		return -LS_EIO;
	}
	if (r == 0) {
		*eof = 1;
		return 0;
	}
	*fill += (size_t)r;
	err = lsr_ingest_feed(in, buf, *fill, &used);
	if (err < 0)
		return err;
	memmove(buf, buf + used, *fill - used);
	*fill -= used;
	return 0;
}

int lsr_record_sw(const struct lsr_opts *o, struct lsb_writer *w,
		  struct lsr_stats *st, char *errbuf, size_t errlen)
{
	char dir[4096];
	char fifo[sizeof(dir) + 16], outopt[sizeof(fifo) + 16], psbopt[48];
	struct lsr_ingest in;
	struct sigaction ign, old_int, old_quit;
	char **av = NULL;
	uint8_t *buf = NULL;
	size_t fill = 0, n;
	int rfd = -1, wfd = -1, pidfd = -1, eof = 0, err = 0, exited = 0, status = 0;
	pid_t pid = -1;

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
	buf = malloc(SW_BUF);
	av = sw_argv(o, fifo, outopt, sizeof(outopt), psbopt, sizeof(psbopt));
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
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		snprintf(errbuf, errlen, "fork: %s", strerror(errno));
		err = -LS_ECHILD;
		goto restore;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
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
		if (pr > 0 && (pfd[0].revents & (POLLIN | POLLHUP))) {
			err = drain(rfd, &in, buf, &fill, &eof);
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
	if (!exited && waitpid(pid, &status, 0) != pid)
		status = 0;
	st->wait_status = status;
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
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
out:
	if (pidfd >= 0)
		close(pidfd);
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	unlink(fifo);
	rmdir(dir);
	for (n = 0; av && av[n] && av[n] != o->argv[0]; n++)
		if (!strncmp(av[n], "--lsc-mem-only=", 15))
			free(av[n]);	/* the one argument sw_argv() allocated */
	free(av);
	free(buf);
	lsr_ingest_release(&in);
	return err;
}

int lsr_mkdtemp(char *dir, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(dir, len, "%s/%s-XXXXXX", t && *t ? t : "/tmp", name);

	if (n < 0 || (size_t)n >= len) {
		if (len)
			dir[0] = '\0';
		return -LS_ELIMIT;
	}
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -LS_EIO;
	}
	return 0;
}
