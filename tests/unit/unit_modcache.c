/* unit_modcache.c - an embedded module's bytes from the build-id cache
 * (decoder/image.c): the first open decompresses them and writes
 * DIR/<build-id> and DIR/<build-id>.sum; a later open of a bundle that
 * stores the module as recorded maps the file instead; a damaged file,
 * a damaged or stale .sum, or one of another bundle's module are not
 * used (the bytes decompressed again, the files written again); a
 * damaged module section is the bundle's error either way; a twin's
 * images borrow the first's bytes.  The
 * expected bytes are testdata/calls itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/image.h"
#include "ls_buildid.h"
#include "ls_err.h"
#include "tap.h"

static char dir[] = "/tmp/unit_modcache_XXXXXX";
static char idhex[2 * LSB_BUILD_ID_MAX + 1];
static const void *want;
static size_t wlen;

/* Writes a bundle at path embedding data under build-id id. */
static int bundle(const char *path, const uint8_t *id, size_t idlen, const void *data,
		  size_t len)
{
	struct lsb_writer *w;
	struct lsb_module m;

	memset(&m, 0, sizeof(m));
	memcpy(m.build_id, id, idlen);
	m.build_id_len = (uint8_t)idlen;
	m.path = "/testdata/calls";
	if (lsb_writer_open(&w, path, NULL) < 0)
		return -1;
	if (lsb_writer_module(w, &m, data, len) < 0) {
		lsb_writer_close(w);
		return -1;
	}
	return lsb_writer_close(w) < 0 ? -1 : 0;
}

/* Opens path's images: 1 if module 0 came from the cache (mapped), 0 if
 * it was decompressed, -1 on an error; *same whether its bytes are
 * testdata/calls. */
static int open_mod(const char *path, int *same)
{
	struct lsb_reader *r;
	struct lsd_image *imgs;
	char msg[256];
	size_t n;
	int mapped;

	*same = 0;
	if (lsb_reader_open(&r, path) < 0)
		return -1;
	if (lsd_image_build_all(&imgs, &n, r, 0, NULL, msg, sizeof(msg)) < 0 || !n) {
		lsb_reader_close(r);
		return -1;
	}
	mapped = imgs[0].mods[0].mapped;
	*same = imgs[0].mods[0].len == wlen && !memcmp(imgs[0].mods[0].data, want, wlen);
	lsd_image_release_all(imgs, n);
	lsb_reader_close(r);
	return mapped;
}

/* Runs the command fmt with its %s the cache path of the module
 * (suffix added). */
static int sh(const char *fmt, const char *suffix)
{
	char path[512], cmd[1200];

	snprintf(path, sizeof(path), "%s/%s%s", dir, idhex, suffix);
	snprintf(cmd, sizeof(cmd), fmt, path);
	return system(cmd);
}

/* Inverts byte `at` of the cached file of this suffix (writing a fixed
 * byte left it as it was where that byte was there already: the CRC at
 * 36 is 0xff for some bundles).  Returns 0 or -1. */
static int flip(long at, const char *suffix)
{
	char path[512];
	FILE *f;
	int c, ret = -1;

	snprintf(path, sizeof(path), "%s/%s%s", dir, idhex, suffix);
	if (!(f = fopen(path, "r+b")))
		return -1;
	if (!fseek(f, at, SEEK_SET) && (c = fgetc(f)) != EOF && !fseek(f, at, SEEK_SET) &&
	    fputc(~c & 0xff, f) != EOF)
		ret = 0;
	return fclose(f) || ret < 0 ? -1 : 0;
}

int main(void)
{
	const char *td = getenv("TESTDATA");
	char calls[4096], b1[] = "/tmp/unit_modcache_b1XXXXXX", b2[] = "/tmp/unit_modcache_b2XXXXXX";
	uint8_t id[LSB_BUILD_ID_MAX], *other;
	int idlen, same, fd;
	void *elf;
	size_t len;

	snprintf(calls, sizeof(calls), "%s/calls", td ? td : "build/testdata");
	if (ls_map_file(calls, &elf, &len) < 0) {
		printf("not ok 1 - cannot read %s\n", calls);
		return 1;
	}
	want = elf;
	wlen = len;
	idlen = ls_buildid_mem(elf, len, id, sizeof(id));
	TAP_OK(idlen > 1, "calls has a build-id");
	if (idlen < 1)
		return TAP_DONE();
	for (int i = 0; i < idlen; i++)
		snprintf(idhex + 2 * i, 3, "%02x", id[i]);
	if (!mkdtemp(dir) || (fd = mkstemp(b1)) < 0)
		return 1;
	close(fd);
	if ((fd = mkstemp(b2)) < 0)
		return 1;
	close(fd);
	setenv("LOOPSCOPE_CACHE", dir, 1);
	TAP_EQ(bundle(b1, id, (size_t)idlen, elf, len), 0, "bundle embedding calls");

	TAP_EQ(open_mod(b1, &same), 0, "cold: decompressed");
	TAP_OK(same, "cold: the bytes of calls");
	{
		char cmd[5000];

		snprintf(cmd, sizeof(cmd), "cmp -s %s/%s %s", dir, idhex, calls);
		TAP_EQ(system(cmd), 0, "the module file holds calls");
	}
	TAP_EQ(sh("test \"$(wc -c < %s)\" -eq 40", ".sum"), 0, "its .sum (40 bytes)");
	TAP_EQ(open_mod(b1, &same), 1, "warm: mapped from the cache");
	TAP_OK(same, "warm: the bytes of calls");

	/* A twin's images (another reader of the same bundle) borrow the
	 * first's bytes: the same pointer, not freed by the twin's release
	 * (ASan's make check would see a double free or a use after it). */
	{
		struct lsb_reader *r1 = NULL, *r2 = NULL;
		struct lsd_image *i1 = NULL, *i2 = NULL;
		size_t n1 = 0, n2 = 0;
		char msg[256];
		int ok = lsb_reader_open(&r1, b1) >= 0 && lsb_reader_open(&r2, b1) >= 0 &&
			 lsd_image_build_all(&i1, &n1, r1, 0, NULL, msg, sizeof(msg)) >= 0 &&
			 n1 && lsd_image_build_all_from(&i2, &n2, r2, 0, NULL, &i1[0], msg,
							sizeof(msg)) >= 0 && n2;

		TAP_OK(ok, "twin: images built from the first's");
		TAP_OK(ok && i2[0].mods[0].data == i1[0].mods[0].data &&
		       i2[0].mods[0].borrowed && !i1[0].mods[0].borrowed,
		       "twin: module 0's bytes borrowed, not read again");
		if (n2)
			lsd_image_release_all(i2, n2);
		TAP_OK(ok && i1[0].mods[0].len == wlen &&
		       !memcmp(i1[0].mods[0].data, want, wlen),
		       "twin released: the first's bytes still calls");
		if (n1)
			lsd_image_release_all(i1, n1);
		lsb_reader_close(r2);
		lsb_reader_close(r1);
	}

	/* the module file damaged, its size kept: not used, written again */
	TAP_EQ(sh("printf 'XXXX' | dd of=%s bs=1 seek=4000 conv=notrunc 2>/dev/null", ""), 0,
	       "damage the module file");
	TAP_EQ(open_mod(b1, &same), 0, "damaged file: decompressed");
	TAP_OK(same, "damaged file: the bytes of calls");
	TAP_EQ(open_mod(b1, &same), 1, "written again: mapped");
	TAP_OK(same, "written again: the bytes of calls");
	TAP_EQ(sh("truncate -s 1000 %s", ""), 0, "cut the module file short");
	TAP_EQ(open_mod(b1, &same), 0, "short file: decompressed");
	TAP_OK(same, "short file: the bytes of calls");

	/* the .sum damaged (each part), cut short, or gone */
	static const int at[] = { 0, 8, 12, 16, 24, 32, 36 };
	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		TAP_EQ(flip(at[k], ".sum"), 0, ".sum: byte %d inverted", at[k]);
		TAP_EQ(open_mod(b1, &same), 0, ".sum damaged at byte %d: decompressed", at[k]);
		TAP_OK(same, ".sum damaged at byte %d: the bytes of calls", at[k]);
		TAP_EQ(open_mod(b1, &same), 1, ".sum written again: mapped");
	}
	sh("truncate -s 39 %s", ".sum");
	TAP_EQ(open_mod(b1, &same), 0, ".sum cut short: decompressed");
	sh("rm -f %s", ".sum");
	TAP_EQ(open_mod(b1, &same), 0, "no .sum: decompressed");
	TAP_EQ(open_mod(b1, &same), 1, "then mapped");

	/* Another bundle, same build-id, other bytes (a byte of calls
	 * changed): the cache's file is not its module; each bundle gets
	 * its own bytes, and the file follows the last one decompressed. */
	other = malloc(len);
	if (!other)
		return 1;
	memcpy(other, elf, len);
	other[len - 1] ^= 0x55;
	TAP_EQ(bundle(b2, id, (size_t)idlen, other, len), 0, "bundle of other bytes, same build-id");
	want = other;
	TAP_EQ(open_mod(b2, &same), 0, "other bytes: decompressed");
	TAP_OK(same, "other bytes: its own bytes");
	TAP_EQ(open_mod(b2, &same), 1, "other bytes again: mapped");
	TAP_OK(same, "other bytes again: its own bytes");
	want = elf;
	TAP_EQ(open_mod(b1, &same), 0, "the first bundle: decompressed");
	TAP_OK(same, "the first bundle: the bytes of calls");

	/* a damaged module section stays the bundle's error with a warm
	 * cache: its stored bytes are checked before the cache is asked */
	TAP_EQ(open_mod(b1, &same), 1, "warm again");
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd),
			 "printf 'ZZZZ' | dd of=%s bs=1 seek=$(($(wc -c < %s) / 2)) conv=notrunc 2>/dev/null",
			 b1, b1);
		TAP_EQ(system(cmd), 0, "damage the bundle's module section");
	}
	TAP_EQ(open_mod(b1, &same), -1, "damaged section: an error, not the cache's bytes");

	free(other);
	unlink(b1);
	unlink(b2);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return TAP_DONE();
}
