/* unit_linecache.c - the DWARF answers kept in the build-id cache
 * (decoder/linecache.c): what is put comes back, from memory and from
 * the file, strings and missing names (NULL) alike; the file is keyed by
 * the build-id and the DWARF file's bytes; a duplicate keeps the first
 * answer.  The expected answers are the ones put (made here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/linecache.h"
#include "ls_crc32.h"
#include "tap.h"

#define N 5000

static const char *files[] = { "/src/a.c", "/src/b.c", NULL, "rel/c.h",
			       "/usr/include/x86_64-linux-gnu/bits/string_fortified.h" };
static const char *names[] = { "sq", "twice", NULL, "memcpy_inline", "" };

static void answer(int i, struct lsd_symbol_info *in)
{
	memset(in, 0, sizeof(*in));
	in->file = files[i % 5];
	in->line = in->file ? i + 1 : 0;
	in->ninline = i % (LSD_MAX_INLINE + 1);
	for (int k = 0; k < in->ninline; k++)
		in->inlined[k] = names[(i + k) % 5];
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Every answer of c equals answer(i) for vaddr i * 7 + 1; the count of
 * differences (a missing one counts). */
static int check(const struct lsd_lcache *c)
{
	int bad = 0;

	for (int i = 0; i < N; i++) {
		struct lsd_symbol_info want, got;

		answer(i, &want);
		memset(&got, 0, sizeof(got));
		if (lsd_lcache_get(c, (uint64_t)i * 7 + 1, &got) != 1 ||
		    !same_str(got.file, want.file) || got.line != want.line ||
		    got.ninline != want.ninline) {
			bad++;
			continue;
		}
		for (int k = 0; k < want.ninline; k++)
			bad += !same_str(got.inlined[k], want.inlined[k]);
	}
	return bad;
}

int main(void)
{
	char dir[] = "/tmp/unit_linecache_XXXXXX", cmd[64];
	uint8_t bid[20], dw[4096];
	struct lsd_symbol_info in;
	struct lsd_lcache *c;
	int i, bad;

	if (!mkdtemp(dir))
		return 1;
	setenv("LOOPSCOPE_CACHE", dir, 1);
	for (i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	for (i = 0; i < (int)sizeof(dw); i++)
		dw[i] = (uint8_t)(i * 31);

	TAP_OK(!lsd_lcache_open(NULL, 0, dw, sizeof(dw)), "no build-id: no cache");
	TAP_OK(!lsd_lcache_open(bid, 1, dw, sizeof(dw)), "a 1-byte build-id: no cache");
	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw));
	TAP_OK(c != NULL, "a cache for a 20-byte build-id");
	if (!c)
		return TAP_DONE();
	TAP_EQ(lsd_lcache_get(c, 1, &in), 0, "empty at first");
	for (i = 0, bad = 0; i < N; i++) {
		answer(i, &in);
		bad += lsd_lcache_put(c, (uint64_t)i * 7 + 1, &in) != 0;
	}
	TAP_EQ(bad, 0, "%d answers put", N);
	answer(1, &in);
	TAP_EQ(lsd_lcache_put(c, 1, &in), 0, "a second answer for vaddr 1 is ignored");
	TAP_EQ(check(c), 0, "every answer comes back, NULL names as NULL");
	lsd_lcache_close(c);

	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw));
	TAP_OK(c && check(c) == 0, "every answer comes back from the file");
	memset(&in, 0, sizeof(in));
	TAP_EQ(lsd_lcache_get(c, 2, &in), 0, "an address never put is not there");
	lsd_lcache_close(c);

	dw[100] ^= 1;
	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw));
	TAP_OK(c && lsd_lcache_get(c, 1, &in) == 0,
	       "another DWARF file (one byte differs): nothing from the file");
	lsd_lcache_close(c);	/* nothing new: the file stays */
	dw[100] ^= 1;
	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw) - 1);
	TAP_OK(c && lsd_lcache_get(c, 1, &in) == 0,
	       "another DWARF file (one byte shorter): nothing from the file");
	lsd_lcache_close(c);
	bid[19] ^= 1;
	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw));
	TAP_OK(c && lsd_lcache_get(c, 1, &in) == 0, "another build-id: another file");
	lsd_lcache_close(c);
	bid[19] ^= 1;
	c = lsd_lcache_open(bid, sizeof(bid), dw, sizeof(dw));
	TAP_OK(c && check(c) == 0, "the first file is still whole");
	lsd_lcache_close(c);
	/* A CRC the caller knows keys the same file: the CRC-32 of dw by the
	 * table way (ls_crc32_table(), not the folding one the cache uses). */
	c = lsd_lcache_open_crc(bid, sizeof(bid), dw, sizeof(dw),
				ls_crc32_table(0, dw, sizeof(dw)));
	TAP_OK(c && check(c) == 0, "dw's CRC given: the same file");
	lsd_lcache_close(c);
	c = lsd_lcache_open_crc(bid, sizeof(bid), dw, sizeof(dw),
				ls_crc32_table(0, dw, sizeof(dw)) ^ 1);
	TAP_OK(c && lsd_lcache_get(c, 1, &in) == 0, "another CRC given: nothing from the file");
	lsd_lcache_close(c);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return TAP_DONE();
}
