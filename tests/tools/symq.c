/* symq.c - looks up file offsets of a bundle's module with
 * lsd_symbols_lookup (for tests).
 *
 * usage: symq [-l] [-L] [-d DEBUG_DIR] BUNDLE MODULE OFFSET...
 *
 * MODULE is a module index or the last component of a module's path (the
 * first module matching).  For each OFFSET (hex, 0x optional) one line:
 *   OFFSET<TAB>FUNCTION+0xFUNC_OFF<TAB>VADDR<TAB>FILE:LINE<TAB>INLINED
 * with "??" where unknown; FILE is the file's last component and INLINED
 * the inlined functions innermost first, comma-separated ("-": none).
 * -L lends the module's bytes (lsd_symbols_lend(), as analyze lends the
 * decoder's) and checks after the lookups that they were not written:
 * exits 1 with "lent bytes written" where they were.
 * Exits 1 (message on stderr) when the module cannot be read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/symbols.h"
#include "ls_err.h"

static int find_module(struct lsb_reader *r, const char *want)
{
	size_t i, n = lsb_reader_nmodules(r);
	char *end;
	long idx = strtol(want, &end, 10);

	if (*want && !*end)
		return (int)idx;
	for (i = 0; i < n; i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		const char *base = m->path ? strrchr(m->path, '/') : NULL;

		base = base ? base + 1 : m->path;
		if (base && !strcmp(base, want))
			return (int)i;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_symbols *s = NULL;
	const char *debug_dir = NULL;
	int opt, lines = 0, lend = 0, mod, err, status = 0;
	void *lent = NULL, *orig = NULL;
	size_t nlent = 0;

	while ((opt = getopt(argc, argv, "lLd:")) != -1) {
		if (opt == 'l')
			lines = 1;
		else if (opt == 'L')
			lend = 1;
		else if (opt == 'd')
			debug_dir = optarg;
		else
			return 2;
	}
	if (argc - optind < 3) {
		fprintf(stderr, "usage: symq [-l] [-L] [-d DIR] BUNDLE MODULE OFFSET...\n");
		return 2;
	}
	err = lsb_reader_open(&r, argv[optind]);
	if (err < 0) {
		fprintf(stderr, "symq: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 1;
	}
	mod = find_module(r, argv[optind + 1]);
	err = lsd_symbols_open(&s, r, debug_dir);
	if (err < 0) {
		fprintf(stderr, "symq: %s\n", ls_errstr(err));
		lsb_reader_close(r);
		return 1;
	}
	if (lend && mod >= 0 && lsb_reader_module_data(r, (size_t)mod, &lent, &nlent) >= 0) {
		if (!(orig = malloc(nlent ? nlent : 1)))
			return 1;
		memcpy(orig, lent, nlent);
		lsd_symbols_lend(s, (size_t)mod, lent, nlent);
	}
	for (int i = optind + 2; i < argc; i++) {
		struct lsd_symbol_info info;
		uint64_t off = strtoull(argv[i], NULL, 16);
		const char *file;

		err = lsd_symbols_lookup(s, mod, off, lines, &info);
		if (err < 0) {
			fprintf(stderr, "symq: %s: %s\n", ls_errstr(err),
				lsd_symbols_errmsg(s));
			status = 1;
		}
		file = info.file ? strrchr(info.file, '/') : NULL;
		file = file ? file + 1 : info.file;
		printf("%" PRIx64 "\t%s+0x%" PRIx64 "\t%" PRIx64 "\t%s:%d\t",
		       off, info.function ? info.function : "??", info.func_off,
		       info.vaddr, file ? file : "??", info.line);
		for (int j = 0; j < info.ninline; j++)
			printf("%s%s", j ? "," : "", info.inlined[j]);
		printf("%s\n", info.ninline ? "" : "-");
	}
	lsd_symbols_close(s);
	if (lent && memcmp(lent, orig, nlent)) {
		fprintf(stderr, "symq: lent bytes written\n");
		status = 1;
	}
	free(lent);
	free(orig);
	lsb_reader_close(r);
	return status;
}
