/* meta.c - metadata every recording carries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ls_err.h"
#include "recorder/record.h"

extern char **environ;

/* "vendor_id : GenuineIntel" -> "GenuineIntel" for the first CPU. */
static void cpuinfo_field(const char *key, char *out, size_t outlen)
{
	char line[512];
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cpuinfo", "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon, *v;

		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						 line[klen] != ':'))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		v = colon + 1;
		while (*v == ' ')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, outlen, "%s", v);
		break;
	}
	fclose(f);
}

/* Joins argv shell-style, quoting words with special characters. */
static char *join_argv(char *const *argv)
{
	size_t len = 1, i, j;
	char *s, *p;

	for (i = 0; argv[i]; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int q = !*a || strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL;

		if (i)
			*p++ = ' ';
		if (q)
			*p++ = '\'';
		for (j = 0; a[j]; j++) {
			if (q && a[j] == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = a[j];
			}
		}
		if (q)
			*p++ = '\'';
	}
	*p = '\0';
	return s;
}

int lsr_write_cpu_meta(struct lsb_writer *w)
{
	char buf[512];
	int err;

	cpuinfo_field("vendor_id", buf, sizeof(buf));
	if ((err = lsb_writer_meta(w, "cpu.vendor", buf)) < 0)
		return err;
	cpuinfo_field("cpu family", buf, sizeof(buf));
	if ((err = lsb_writer_meta(w, "cpu.family", buf)) < 0)
		return err;
	cpuinfo_field("model", buf, sizeof(buf));
	if ((err = lsb_writer_meta(w, "cpu.model", buf)) < 0)
		return err;
	cpuinfo_field("stepping", buf, sizeof(buf));
	if ((err = lsb_writer_meta(w, "cpu.stepping", buf)) < 0)
		return err;
	cpuinfo_field("model name", buf, sizeof(buf));
	if ((err = lsb_writer_meta(w, "cpu.name", buf)) < 0)
		return err;
	return 0;
}

int lsr_write_host_meta(struct lsb_writer *w, char *const *argv)
{
	static const char *const envkeys[] = {
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_BIND_NOW", "OMP_NUM_THREADS",
		"GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "LANG",
	};
	struct utsname u;
	char buf[512], key[64];
	time_t now = time(NULL);
	struct tm tm;
	char *cmd;
	size_t i, nenv = 0;
	int err;

	cmd = join_argv(argv);
	if (!cmd)
		return -LS_ENOMEM;
	err = lsb_writer_meta(w, "cmdline", cmd);
	free(cmd);
	if (err < 0)
		return err;
	if (!uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
		if ((err = lsb_writer_meta(w, "host", u.nodename)) < 0 ||
		    (err = lsb_writer_meta(w, "kernel", buf)) < 0 ||
		    (err = lsb_writer_meta(w, "arch", u.machine)) < 0)
			return err;
	}
	if ((err = lsr_write_cpu_meta(w)) < 0)
		return err;
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if ((err = lsb_writer_meta(w, "start_time", buf)) < 0)
		return err;
	if (getcwd(buf, sizeof(buf)) && (err = lsb_writer_meta(w, "cwd", buf)) < 0)
		return err;
	if ((err = lsb_writer_meta(w, "recorder", "loopscope " LS_RECORDER_VERSION)) < 0)
		return err;
	/* The environment summary: its size and the variables that change
	 * how a program runs, not the whole (possibly secret) environment. */
	while (environ && environ[nenv])
		nenv++;
	snprintf(buf, sizeof(buf), "%zu", nenv);
	if ((err = lsb_writer_meta(w, "env.count", buf)) < 0)
		return err;
	for (i = 0; i < sizeof(envkeys) / sizeof(envkeys[0]); i++) {
		const char *v = getenv(envkeys[i]);

		if (!v)
			continue;
		snprintf(key, sizeof(key), "env.%s", envkeys[i]);
		if ((err = lsb_writer_meta(w, key, v)) < 0)
			return err;
	}
	return 0;
}
