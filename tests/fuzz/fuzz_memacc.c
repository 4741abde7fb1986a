/* fuzz_memacc.c - libFuzzer entry point for the memory-access records
 * (MEMACC, `record --mem`) and the dependence analysis that reads them.
 *
 * The input is a sequence of records, each a u16 little-endian length
 * and that many bytes (a last record shorter than its length takes what
 * is left): the LSW_MEMACC payloads of the template's first stream
 * (`lsb_dump -x` writes a recording's in this form).  The template is a
 * bundle recorded with --mem named by $LSD_FUZZ_BUNDLE (t0311 records
 * testdata/deps/kern; fuzz_tmpl.h): its metadata, small modules, events
 * and every stream with its PT are written with the input's records into
 * a tiny bundle, which goes through what `loopscope deps` and `analyze
 * --deps` do: the executed CFG, its structural loops, the dependences
 * (lsa_deps_load, lsa_deps_run), and their verdicts into the loop
 * profile, which must then read back (lsp_check), else abort().
 * ($LSD_FUZZ_KEEP names a file to write the input's bundle to.)  Build
 * with `make fuzz` for libFuzzer, or link with replay.c (as `make check`
 * does).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cfg.h"
#include "analysis/deps.h"
#include "analysis/loops.h"
#include "analysis/sloops.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "fuzz_tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_tmpl T;
/* The template's symbols, read once: every input's bundle has the
 * template's modules in the same order, so module indices agree, and
 * once loaded (lsd_symbols_load) lookups read no bundle, only module
 * names from sym_r, a reader of the template written without records
 * (its file removed, the reader keeps it open).  What it caches (a
 * module's DWARF, its code's entries) comes from the module bytes alone,
 * the same whatever input asked first. */
static struct lsb_reader *sym_r;
static struct lsd_symbols *sym;

static int write_bundle(const char *path, const uint8_t *data, size_t size)
{
	struct lsb_writer *w;
	size_t i, len;

	if (fz_tmpl_open(&T, &w, path, 4096) < 0)
		return -1;
	for (i = 0; i < T.nstreams; i++) {
		lsb_writer_stream(w, &T.streams[i]);
		if (T.ptlen[i])
			lsb_writer_pt(w, T.streams[i].id, T.pt[i], T.ptlen[i]);
		lsb_writer_stream_end(w, T.streams[i].id);
	}
	while (size >= 2) {
		len = (size_t)data[0] | (size_t)data[1] << 8;
		data += 2;
		size -= 2;
		len = len < size ? len : size;
		lsb_writer_memacc(w, T.streams[0].id, data, len);
		data += len;
		size -= len;
	}
	return fz_tmpl_close(w) < 0 ? -1 : 0;
}

/* Touches every loop and dependence the analysis hands out. */
static uint64_t touch(const struct lsa_deps *D)
{
	uint64_t sink = 0;
	size_t i, k;

	for (i = 0; i < lsa_deps_nloops(D); i++) {
		const struct lsa_deps_loop *L = lsa_deps_loop(D, i);

		sink += strlen(L->func) + strlen(L->file) + L->iterations;
		sink += strlen(lsa_deps_verdict_name(L->verdict));
		for (k = 0; k < L->ndeps; k++) {
			const struct lsa_deps_dep *d = lsa_deps_dep(D, L->first + k);

			sink += strlen(d->var) + d->count + d->dmin;
			sink += strlen(d->src_file) + strlen(d->dst_file);
			sink += strlen(lsa_deps_kind_name(d->kind));
			sink += strlen(lsa_deps_note_name(d->note));
			sink += strlen(lsa_deps_storage_name(d->storage));
		}
	}
	return sink;
}

static void init(void)
{
	fz_tmpl_load(&T, "LSD_FUZZ_BUNDLE", 1, UINT64_MAX, "memacc");
	if (!T.path[0] || write_bundle(T.path, NULL, 0) < 0 ||
	    lsb_reader_open(&sym_r, T.path) < 0 || lsd_symbols_open(&sym, sym_r, NULL) < 0) {
		lsb_reader_close(sym_r);
		sym_r = NULL;
		return;
	}
	unlink(T.path);
	lsd_symbols_load(sym);
}

static uint64_t analyze(struct lsb_reader *r)
{
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsa_cfg_opts co = { .size = sizeof(co) };
	struct lsa_loops_opts lo = { .size = sizeof(lo) };
	struct lsd_decoder *d = NULL;
	struct lsa_cfg *c = NULL;
	struct lsa_sloops *sl = NULL;
	struct lsa_deps *D = NULL;
	struct lsp_profile *p = NULL;
	uint64_t sink = 0;
	size_t unmatched;
	char msg[256];

	if (lsd_open(&d, r, &o) < 0)
		return 0;
	if (lsa_cfg_new(&c, sym, &co) < 0 || lsa_cfg_build(c, d) < 0 ||
	    lsa_sloops_find(&sl, c, NULL) < 0 ||
	    lsa_deps_new(&D, d, r, sym, c, sl) < 0 || lsa_deps_load(D) <= 0 ||
	    lsa_deps_run(D) < 0)
		goto out;
	sink = touch(D);
	if (lsp_new(&p, 16) < 0 || lsa_loops_analyze(d, r, sym, p, &lo, NULL) < 0)
		goto out;
	if (lsa_deps_to_profile(D, p, &unmatched) >= 0 &&
	    lsp_check(p, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fuzz_memacc: the profile with dependences does not read back: %s\n",
			msg);
		abort();
	}
	if (fz_want_digest())
		sink ^= fz_profile_digest(p) ^ unmatched;
out:
	lsp_free(p);
	lsa_deps_free(D);
	lsa_sloops_free(sl);
	lsa_cfg_free(c);
	lsd_close(d);
	return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lsb_reader *r = NULL;
	const char *keep = getenv("LSD_FUZZ_KEEP");
	uint64_t sink = 0;

	if (!T.loaded)
		init();
	/* keep: the input's bundle, for a look with loopscope */
	if (!keep && !T.path[0])
		return 0;
	if (write_bundle(keep ? keep : T.path, data, size) >= 0 &&
	    lsb_reader_open(&r, keep ? keep : T.path) >= 0)
		sink = analyze(r);
	lsb_reader_close(r);
	fz_digest(sink, size);
	/* keep sink alive without printing */
	return sink == 1 ? 0 : 0;
}
