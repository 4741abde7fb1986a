/* unit_symoom.c - a source line looked up while memory runs out is not
 * kept in the build-id cache's answers (decoder/linecache.c), where a
 * later analysis would read it as the module's.  The n-th allocation
 * fails during one lookup (n = 0, 1, ... until the lookup makes fewer:
 * one, as the later ones may succeed and write what the failure cut
 * short); the module's answer is then asked again with memory
 * back, by a new symbolizer over the same cache directory.  It must be
 * the answer a lookup without failures gives (which t0211 compares with
 * addr2line).  Only our code's allocations fail: libdw exits the
 * process when one of its own fails.  The allocator is replaced in this program, which a
 * sanitizer's own cannot share: under SANITIZE the test is skipped. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/symbols.h"
#include "ls_buildid.h"
#include "ls_err.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKIP 1
#endif
#endif

#ifndef SKIP
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Allocations left before one fails (-1: none fails); hits: failed. */
static long fail_in = -1, hits;
extern const char __executable_start[], etext[];

/* Only our code's allocations fail (those made from this program's text):
 * libdw ends the process when its own fail. */
static int fail_now(const void *from)
{
	if (fail_in < 0 || (const char *)from < __executable_start ||
	    (const char *)from >= etext)
		return 0;
	if (fail_in == 0) {
		hits++;
		fail_in = -1;
		return 1;
	}
	fail_in--;
	return 0;
}

void *malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

struct answer {
	char file[512];
	int line, ninline;
	char inl[LSD_MAX_INLINE][128];
};

static void keep(struct answer *a, const struct lsd_symbol_info *in)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->file, sizeof(a->file), "%s", in->file ? in->file : "-");
	a->line = in->line;
	a->ninline = in->ninline;
	for (int k = 0; k < in->ninline && k < LSD_MAX_INLINE; k++)
		snprintf(a->inl[k], sizeof(a->inl[k]), "%s",
			 in->inlined[k] ? in->inlined[k] : "-");
}

/* Module 0's answer at off, with a new symbolizer (its .lines file read
 * from and written to the cache at its close); first a lookup without
 * lines (the module loaded with memory), then allocation fail_from (-1:
 * none) fails in the lookup with lines.  Returns that lookup's error. */
static int ask(struct lsb_reader *r, uint64_t off, long fail_from, struct answer *a)
{
	struct lsd_symbols *s;
	struct lsd_symbol_info info;
	int err;

	if (lsd_symbols_open(&s, r, NULL) < 0)
		return -LS_ENOMEM;
	err = lsd_symbols_lookup(s, 0, off, 0, &info);
	if (!err) {
		fail_in = fail_from;
		err = lsd_symbols_lookup(s, 0, off, 1, &info);
		fail_in = -1;
		keep(a, &info);
	}
	lsd_symbols_close(s);
	return err;
}

static int same(const struct answer *a, const struct answer *b)
{
	return !memcmp(a, b, sizeof(*a));
}

int main(void)
{
	const char *td = getenv("TESTDATA");
	char inl[4096], bundle[] = "/tmp/unit_symoom_XXXXXX", dir[] = "/tmp/unit_symoom_dXXXXXX";
	char cmd[256];
	struct lsb_writer *w;
	struct lsb_reader *r = NULL;
	struct lsb_module m;
	struct answer truth, got;
	uint64_t off = 0;
	void *elf;
	size_t len;
	long n;
	int fd, bad = 0, id;

	snprintf(inl, sizeof(inl), "%s/inl", td ? td : "build/testdata");
	if (ls_map_file(inl, &elf, &len) < 0) {
		printf("not ok 1 - cannot read %s\n", inl);
		return 1;
	}
	fd = mkstemp(bundle);
	if (fd < 0 || !mkdtemp(dir))
		return 1;
	close(fd);
	setenv("LOOPSCOPE_CACHE", dir, 1);
	memset(&m, 0, sizeof(m));
	id = ls_buildid_mem(elf, len, m.build_id, sizeof(m.build_id));
	TAP_OK(id > 1, "inl has a build-id");
	m.build_id_len = (uint8_t)(id > 0 ? id : 0);
	m.path = "/testdata/inl";
	TAP_EQ(lsb_writer_open(&w, bundle, NULL), 0, "writer open");
	TAP_EQ(lsb_writer_module(w, &m, elf, len), 0, "module inl");
	TAP_EQ(lsb_writer_close(w), 0, "writer close");
	TAP_EQ(lsb_reader_open(&r, bundle), 0, "reader open");

	/* An instruction of main with a line and an inlined function (inl
	 * is built so; its ELF file offsets are its addresses): the first,
	 * looked up with memory.  Each answer is asked with an empty cache
	 * directory (rm -rf between). */
	for (uint64_t a = 0x1129; a < 0x1129 + 256 && !off; a++) {
		if (ask(r, a, -1, &truth) == 0 && truth.line > 0 && truth.ninline > 0)
			off = a;
		snprintf(cmd, sizeof(cmd), "rm -rf %s/*", dir);
		if (system(cmd))
			return 1;
	}
	TAP_OK(off != 0, "an instruction of main at %#llx: %s:%d, %d inlined (%s)",
	       (unsigned long long)off, truth.file, truth.line, truth.ninline, truth.inl[0]);
	for (n = 0; off; n++) {
		hits = 0;
		ask(r, off, n, &got);
		if (!hits)
			break;		/* the lookup made n allocations */
		if (ask(r, off, -1, &got) != 0 || !same(&got, &truth)) {
			bad++;
			printf("# allocation %ld failing: kept %s:%d, %d inlined\n",
			       n, got.file, got.line, got.ninline);
		}
		snprintf(cmd, sizeof(cmd), "rm -rf %s/*", dir);
		if (system(cmd))
			return 1;
	}
	TAP_OK(n > 10, "the lookup with lines made %ld allocations", n);
	TAP_EQ(bad, 0, "no answer found out of memory was kept");
	/* and the answer a lookup with memory puts is read back */
	TAP_EQ(ask(r, off, -1, &got), 0, "cold lookup");
	TAP_OK(same(&got, &truth), "cold answer");
	TAP_EQ(ask(r, off, -1, &got), 0, "warm lookup");
	TAP_OK(same(&got, &truth), "warm answer");
	snprintf(cmd, sizeof(cmd), "ls %s | grep -q '[.]lines$'", dir);
	TAP_EQ(system(cmd), 0, "the answers file was written");
	lsb_reader_close(r);
	unlink(bundle);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return TAP_DONE();
}
#else
int main(void)
{
	TAP_OK(1, "# SKIP the allocator cannot be replaced under a sanitizer");
	return TAP_DONE();
}
#endif
