/* fuzz_profile.c - libFuzzer entry point for the loop profile reader.
 *
 * A profile that reads is also written back, read again (it must), merged
 * with itself and viewed, so what the reader accepts is what the rest of
 * the code can take.  Build with clang -fsanitize=fuzzer,address, or link
 * with replay.c (as `make check` does) to run a corpus under ASan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/profile.h"
#include "formats/profile_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lsp_profile *p = NULL, *q = NULL, *r = NULL;
	struct lsp_view *v = NULL;
	char msg[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (lsp_read_mem(&p, (const char *)data, size, "fuzz", msg, sizeof(msg)) < 0)
		return 0;
	f = open_memstream(&buf, &len);
	if (f) {
		lsp_write_file(p, f, "fuzz", msg, sizeof(msg));
		fclose(f);
		/* What we wrote must read back. */
		if (lsp_read_mem(&q, buf, len, "fuzz-copy", msg, sizeof(msg)) < 0)
			abort();
		if (lsp_read_mem(&r, buf, len, "fuzz-copy", msg, sizeof(msg)) < 0)
			abort();
		lsp_merge(q, r);
		if (lsp_view_new(&v, q, LSP_VIEW_ALL) == 0)
			lsp_view_free(v);
	}
	if (lsp_view_new(&v, p, LSP_VIEW_ALL) == 0)
		lsp_view_free(v);
	free(buf);
	lsp_free(p);
	lsp_free(q);
	lsp_free(r);
	return 0;
}
