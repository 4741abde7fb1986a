/* unit_symbols.c - the symbolizer on damaged modules: never a crash, an
 * error code and "unknown".  Modules are embedded into a bundle written
 * here: bytes that are no ELF, a cut-short ELF, and copies of
 * testdata/calls with bytes overwritten at deterministic pseudo-random
 * places (headers, section table, symbols, DWARF).  Under
 * SANITIZE=address,undefined every read out of bounds is a failure. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/symbols.h"
#include "ls_err.h"
#include "ls_buildid.h"
#include "rng.h"
#include "tap.h"

#define NDAMAGED 40

static uint64_t rng = 0x9e3779b97f4a7c15u;

static int add(struct lsb_writer *w, int i, const void *data, size_t len)
{
	struct lsb_module m;

	memset(&m, 0, sizeof(m));
	m.build_id[0] = (uint8_t)i;
	m.build_id[1] = 0xee;
	m.build_id_len = 2;
	m.path = "/damaged";
	return lsb_writer_module(w, &m, data, len);
}

static int allowed(int err)
{
	return err == 0 || err == -LS_ELF || err == -LS_ENOMEM;
}

int main(void)
{
	const char *td = getenv("TESTDATA");
	char calls[4096], bundle[] = "/tmp/unit_symbols_XXXXXX";
	struct lsb_writer *w;
	struct lsb_reader *r = NULL;
	struct lsd_symbols *s;
	struct lsd_symbol_info info;
	void *elf;
	size_t len;
	int fd, bad = 0, elf_errors = 0;

	snprintf(calls, sizeof(calls), "%s/calls", td ? td : "build/testdata");
	if (ls_map_file(calls, &elf, &len) < 0) {
		printf("not ok 1 - cannot read %s\n", calls);
		return 1;
	}
	fd = mkstemp(bundle);
	if (fd < 0)
		return 1;
	close(fd);
	TAP_EQ(lsb_writer_open(&w, bundle, NULL), 0, "writer open");

	static const char junk[] = "this is not an ELF file at all";
	uint8_t *copy = malloc(len);

	add(w, 0, junk, sizeof(junk));
	add(w, 1, elf, 200);	/* the ELF header and part of the phdrs */
	add(w, 2, elf, len);	/* intact */
	for (int i = 0; i < NDAMAGED; i++) {
		memcpy(copy, elf, len);
		/* A third of the copies damaged in the first KiB (ELF and
		 * program headers, .dynsym), a third in the last 2 KiB (the
		 * section headers), a third anywhere. */
		for (int k = 0; k < 16; k++) {
			size_t at = (size_t)(rng_next(&rng) % (i % 3 == 2 ? len : i % 3 ? 2048 : 1024));

			if (i % 3 == 1)
				at = len - 1 - at;

			copy[at] = (uint8_t)rng_next(&rng);
		}
		add(w, 3 + i, copy, len);
	}
	TAP_EQ(lsb_writer_close(w), 0, "writer close");
	TAP_EQ(lsb_reader_open(&r, bundle), 0, "reader open");
	TAP_EQ(lsd_symbols_open(&s, r, NULL), 0, "lsd_symbols_open");

	TAP_EQ(lsd_symbols_lookup(s, 0, 0, 1, &info), -LS_ELF,
	       "bytes that are no ELF: -LS_ELF");
	TAP_OK(info.module && !strcmp(info.module, "/damaged") &&
	       !info.function && !info.file, "... and the module, else unknown");
	TAP_OK(strstr(lsd_symbols_errmsg(s), "/damaged") != NULL,
	       "... and the message names the module: %s",
	       lsd_symbols_errmsg(s));
	TAP_OK(allowed(lsd_symbols_lookup(s, 1, 0x40, 1, &info)),
	       "an ELF cut after 200 bytes: no crash");
	TAP_EQ(lsd_symbols_lookup(s, 2, 0x1000, 1, &info), 0,
	       "the intact copy symbolizes");
	TAP_EQ(lsd_symbols_lookup(s, 3 + NDAMAGED, 0, 0, &info), -LS_ENOENT,
	       "module index out of range: -LS_ENOENT");
	TAP_EQ(lsd_symbols_lookup(s, -1, 0, 0, &info), -LS_ENOENT,
	       "module -1: -LS_ENOENT");
	for (int i = 0; i < NDAMAGED; i++) {
		for (uint64_t off = 0; off < len; off += 61) {
			int err = lsd_symbols_lookup(s, 3 + i, off, 1, &info);

			if (!allowed(err))
				bad++;
			if (err == -LS_ELF)
				elf_errors++;
		}
	}
	TAP_EQ(bad, 0, "%d damaged copies, every %d bytes looked up: only 0 or "
	       "-LS_ELF (%d -LS_ELF)", NDAMAGED, 61, elf_errors);
	lsd_symbols_close(s);
	lsb_reader_close(r);
	unlink(bundle);
	free(copy);
	ls_unmap(elf, len);
	return TAP_DONE();
}
