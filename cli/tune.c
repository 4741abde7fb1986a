/* tune.c - the process's malloc, tuned before anything runs: freed
 * tables kept for reuse, and huge pages where the user asks for them.
 *
 * A decode and the detector touch tens of megabytes once each (the chain
 * cache, the memos' tries, module images, chunk buffers, growing arrays).
 * By default glibc maps each block above a threshold (at first 128 KiB;
 * it rises as such blocks are freed) on its own and gives it back when
 * freed, so the next large table faults its pages in again and the
 * passes' tables come and go (the learning pass's detector freed, the
 * profiling pass's made; the chunk buffers).  A fixed threshold of
 * TUNE_MMAP (glibc's own highest) serves them from the heap, which keeps
 * its pages up to TUNE_TRIM free at its top: sqlite3's analysis, median
 * of 11, 0.50 to 0.44 s (doc/performance.md).
 *
 * With LOOPSCOPE_HUGEPAGES=1, and where the kernel gives huge pages only
 * to memory advised for them (THP "madvise", Debian's default), glibc
 * advises its own heap and mappings when its tunable glibc.malloc.hugetlb
 * is 1; the tunable is read when the process starts, so loopscope runs
 * itself again with it set, once, and puts the environment back as it
 * was before any command runs (a recorded program, or any other child,
 * sees the user's).  It does so only where a bundle of at least TUNE_MIN
 * bytes, or of modules of at least TUNE_CODE bytes, is named (an
 * argument, or the default loopscope.lsc where no argument names a
 * file): the exec costs about 7 ms on a VM.  Not by default since
 * 2026-12-05: huge pages saved no user time on any of bench/'s programs,
 * and on a VM whose host takes freed memory back they cost more system
 * time than the small pages' faults do wherever the memory is not the
 * last run's (sqlite3's analysis run in turns with another program's,
 * 0.30 s with small pages, 0.40 with huge ones; doc/performance.md).
 *
 * LOOPSCOPE_HUGEPAGES=0 keeps the process and its malloc as they started
 * (to run loopscope under a debugger or valgrind, or to compare); a
 * GLIBC_TUNABLES that sets hugetlb, or a threshold, already is left as
 * the user set it.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "formats/bundle.h"
#include "ls_err.h"

#define TUNE_MARK "LOOPSCOPE_TUNED"	/* the run again's: how it was */
#define TUNE_HUGE "glibc.malloc.hugetlb=1"
/* A bundle this large is worth it: sqlite3's 2.8 MB one saves 90 ms of
 * 580 (doc/performance.md); and a smaller one whose modules hold this
 * much code (the decode's tables grow with it): testdata/spin's 1.0 MB
 * bundle 84 to 46 ms with the exec, testdata/calls' --no-embed one of
 * 6 KB 74 to 47, where a static program's gains nothing (16 ms). */
#define TUNE_MIN ((uint64_t)1 << 20)
#define TUNE_CODE ((uint64_t)1 << 20)
/* malloc's thresholds: blocks mapped on their own from, heap kept free */
#define TUNE_MMAP (32 << 20)
#define TUNE_TRIM (64 << 20)

/* (glibc's malloc alone has the tunable; ASan's replaces it) */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TUNE_CAN 1

/* Whether the kernel gives huge pages to advised memory alone. */
static int thp_madvise(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char buf[128];
	int yes = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		yes = strstr(buf, "[madvise]") != NULL;
	fclose(f);
	return yes;
}

/* Whether path names a bundle of at least TUNE_MIN bytes, or of
 * modules of at least TUNE_CODE bytes: 1, 0, or -LS_ENOENT where nothing
 * is there.  (A bundle that does not open is left to the command.) */
static int big_bundle(const char *path)
{
	struct lsb_reader *r;
	uint64_t size = 0, code = 0;
	size_t i;
	int is = lsb_is_bundle(path, &size);

	if (is != 1)
		return is == -LS_ENOENT ? is : 0;
	if (size >= TUNE_MIN)
		return 1;
	if (lsb_reader_open(&r, path) < 0)
		return 0;
	for (i = 0; i < lsb_reader_nmodules(r); i++)
		code += lsb_reader_module(r, i)->file_size;
	lsb_reader_close(r);
	return code >= TUNE_CODE;
}

/* Whether the arguments name such a bundle, or name no file and the
 * default one is. */
static int worth(char **argv)
{
	int i, r, named = 0;

	for (i = 1; argv[i]; i++) {
		if (argv[i][0] == '-')
			continue;
		if ((r = big_bundle(argv[i])) == 1)
			return 1;
		named |= r != -LS_ENOENT;
	}
	return !named && big_bundle("loopscope.lsc") == 1;
}
#endif

/* Puts GLIBC_TUNABLES back as the mark says it was ("-": unset, else
 * "=" and its value) and drops the mark. */
static void restore(const char *mark)
{
	if (mark[0] == '=')
		setenv("GLIBC_TUNABLES", mark + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(TUNE_MARK);
}

#ifdef TUNE_CAN
/* Whether LOOPSCOPE_HUGEPAGES is set to v: "0" leaves malloc as it is,
 * "1" asks for huge pages. */
static int hugepages_is(const char *v)
{
	const char *e = getenv("LOOPSCOPE_HUGEPAGES");

	return e && !strcmp(e, v);
}

/* malloc's fixed thresholds, where the user's GLIBC_TUNABLES sets none
 * (what the run again restores is what the user set). */
static void thresholds(void)
{
	const char *tun = getenv("GLIBC_TUNABLES");

	if (hugepages_is("0") || (tun && (strstr(tun, "mmap_threshold") || strstr(tun, "trim_threshold"))))
		return;
	mallopt(M_MMAP_THRESHOLD, TUNE_MMAP);
	mallopt(M_TRIM_THRESHOLD, TUNE_TRIM);
}

/* Runs argv again with the tunable, where it is worth it; returns where
 * it is not, or the exec fails (the environment as it was). */
static void run_again(char **argv)
{
	const char *old = getenv("GLIBC_TUNABLES");
	char *keep, *tun;
	size_t n;

	if (!hugepages_is("1") || (old && strstr(old, "glibc.malloc.hugetlb")) ||
	    !thp_madvise() || !worth(argv))
		return;
	n = old ? strlen(old) : 0;
	keep = malloc(n + 2);
	tun = malloc(n + sizeof(TUNE_HUGE) + 1);
	if (!keep || !tun) {
		free(keep);
		free(tun);
		return;
	}
	if (old) {
		snprintf(keep, n + 2, "=%s", old);
		snprintf(tun, n + sizeof(TUNE_HUGE) + 1, "%s:%s", old, TUNE_HUGE);
	} else {
		strcpy(keep, "-");
		strcpy(tun, TUNE_HUGE);
	}
	if (!setenv(TUNE_MARK, keep, 1) && !setenv("GLIBC_TUNABLES", tun, 1))
		execv("/proc/self/exe", argv);
	/* (no /proc, or no exec: as it started) */
	restore(keep);
	free(keep);
	free(tun);
}
#endif

void cli_tune_malloc(char **argv)
{
	const char *mark = getenv(TUNE_MARK);

	if (mark) {		/* run again: tuned (whatever this build is) */
		char *m = strdup(mark);

		if (m) {
			restore(m);
			free(m);
		}
	}
#ifdef TUNE_CAN
	else
		run_again(argv);
	/* (after the environment is the user's again) */
	thresholds();
#else
	(void)argv;
#endif
}
