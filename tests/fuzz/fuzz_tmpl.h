/* fuzz_tmpl.h - the template bundle of the fuzz entry points that decode
 * (fuzz_decode, fuzz_memacc): a recorded bundle, named by an environment
 * variable, whose metadata, small embedded modules, traced-run events and
 * (on request) streams with their PT are read once per process and kept
 * in memory, to be written around each input into a tiny bundle at one
 * temporary path, also made once (on tmpfs when there is one) and
 * rewritten for every input.  Modules above the caller's limit (ld.so,
 * libc of a dynamic template) are left out to keep each run small, so PT
 * that goes there decodes to losses; bench/fuzz.sh's templates are static
 * programs without libc (testdata/static), whose whole code is kept.
 * Nothing of one input outlives it: each is written, read, decoded and
 * analysed by objects made for it and freed after it.  Header-only: each
 * entry point is one source file (as the Makefile builds them).
 */
#ifndef LS_FUZZ_TMPL_H
#define LS_FUZZ_TMPL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode.h"
#include "formats/bundle.h"
#include "formats/profile.h"

#define FZ_MAX_MODULE (64u << 10)
#define FZ_MAX_STREAMS 8

struct fz_module {
	struct lsb_module m;
	void *data;
	size_t len;
};

struct fz_tmpl {
	int loaded;
	struct fz_module *mods;
	size_t nmods;
	struct lsb_event *evs;
	size_t nevs, capevs;
	char **keys, **values;
	size_t nmeta;
	struct lsb_stream streams[FZ_MAX_STREAMS];
	uint8_t *pt[FZ_MAX_STREAMS];	/* each stream's PT, when asked */
	size_t ptlen[FZ_MAX_STREAMS];
	size_t nstreams;
	char path[64];			/* each input's bundle ("" if none) */
};

/* The temporary file to remove when the process exits. */
static char fz_tmp_made[64];

static inline void fz_tmp_remove(void)
{
	if (fz_tmp_made[0])
		unlink(fz_tmp_made);
}

static inline int fz_tmpl_keep_module(const struct fz_tmpl *T, const struct lsb_event *ev)
{
	size_t i;

	for (i = 0; i < T->nmods; i++)
		if (T->mods[i].m.build_id_len == ev->build_id_len &&
		    !memcmp(T->mods[i].m.build_id, ev->build_id, ev->build_id_len))
			return 1;
	return 0;
}

static inline int fz_tmpl_on_event(const struct lsb_event *ev, void *arg)
{
	struct fz_tmpl *T = arg;

	if (ev->run != LSB_RUN_TRACE || (ev->type != LSB_EV_MMAP &&
					 ev->type != LSB_EV_THREAD_START &&
					 ev->type != LSB_EV_SWITCH &&
					 ev->type != LSB_EV_ITRACE_START))
		return 0;
	if (ev->type == LSB_EV_MMAP && !fz_tmpl_keep_module(T, ev))
		return 0;
	if (T->nevs == T->capevs) {
		size_t cap = T->capevs ? 2 * T->capevs : 16;
		struct lsb_event *p = realloc(T->evs, cap * sizeof(*p));

		if (!p)
			return 1;
		T->evs = p;
		T->capevs = cap;
	}
	T->evs[T->nevs] = *ev;
	T->evs[T->nevs].name = ev->name ? strdup(ev->name) : NULL;
	T->nevs++;
	return 0;
}

/* Stream i's PT, all its chunks, into T->pt[i]. */
static inline void fz_tmpl_read_pt(struct fz_tmpl *T, struct lsb_reader *r, size_t i)
{
	size_t k, len = 0;

	for (k = 0; k < lsb_reader_nchunks(r, i); k++)
		len += lsb_reader_chunk(r, i, k)->raw_size;
	T->pt[i] = malloc(len ? len : 1);
	for (k = 0; T->pt[i] && k < lsb_reader_nchunks(r, i); k++) {
		const struct lsb_chunk *c = lsb_reader_chunk(r, i, k);
		int64_t n = lsb_reader_read_chunk(r, c, T->pt[i] + T->ptlen[i],
						  len - T->ptlen[i]);

		if (n < 0)
			break;
		T->ptlen[i] += (size_t)n;
	}
}

/* A fresh temporary file's name in path (on tmpfs when there is one:
 * the writer syncs on close, which costs nothing there).  Returns 0 or
 * -1. */
static inline int fz_tmp_path(char *path, size_t cap, const char *what)
{
	int fd;

	snprintf(path, cap, "%s/fuzz_%s.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", what);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Reads the template at $VAR once; a missing one leaves it empty (one
 * thread stream, pid and tid 1).  With want_pt every stream's PT too.
 * Makes T->path, the file of every input's bundle ("what" names it),
 * removed at exit. */
static inline void fz_tmpl_load(struct fz_tmpl *T, const char *var, int want_pt,
				uint64_t max_module, const char *what)
{
	const char *path = getenv(var);
	struct lsb_reader *r = NULL;
	const char *k, *v;
	size_t i, n;

	T->loaded = 1;
	if (fz_tmp_path(T->path, sizeof(T->path), what) < 0) {
		T->path[0] = '\0';
	} else {
		snprintf(fz_tmp_made, sizeof(fz_tmp_made), "%s", T->path);
		atexit(fz_tmp_remove);
	}
	T->streams[0] = (struct lsb_stream){ .id = 1, .kind = LSB_STREAM_THREAD,
					     .pid = 1, .tid = 1, .cpu = -1 };
	if (!path || lsb_reader_open(&r, path) < 0) {
		if (path)
			fprintf(stderr, "fuzz: cannot read %s\n", path);
		lsb_reader_close(r);
		return;
	}
	for (i = 0; i < lsb_reader_nstreams(r) && i < FZ_MAX_STREAMS; i++) {
		T->streams[i] = *lsb_reader_stream(r, i);
		if (want_pt)
			fz_tmpl_read_pt(T, r, i);
		T->nstreams++;
	}
	n = lsb_reader_nmeta(r);
	T->keys = calloc(n + 1, sizeof(char *));
	T->values = calloc(n + 1, sizeof(char *));
	for (i = 0; T->keys && T->values && lsb_reader_meta_at(r, i, &k, &v) == 0; i++) {
		T->keys[T->nmeta] = strdup(k);
		T->values[T->nmeta++] = strdup(v);
	}
	n = lsb_reader_nmodules(r);
	T->mods = calloc(n + 1, sizeof(*T->mods));
	for (i = 0; T->mods && i < n; i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		struct fz_module *t = &T->mods[T->nmods];

		if (!(m->flags & LSB_MOD_EMBEDDED) || m->file_size > max_module)
			continue;
		if (lsb_reader_module_data(r, i, &t->data, &t->len) < 0)
			continue;
		t->m = *m;
		t->m.path = strdup(m->path ? m->path : "");
		T->nmods++;
	}
	lsb_reader_events(r, fz_tmpl_on_event, T);
	lsb_reader_close(r);
}

/* The heads the writer fz_tmpl_open() made keeps, as `loopscope record`
 * keeps them (one writer at a time). */
static struct lsd_pt_heads *fz_heads;

/* Opens a bundle at path with the template's metadata, modules and
 * events written and flushed, its PT cut into chunks at the first PSB
 * from chunk_size bytes on, the heads its packets name kept in it (a
 * PTHEADS section a stream; close it with fz_tmpl_close()).  Returns 0
 * or -1. */
static inline int fz_tmpl_open(const struct fz_tmpl *T, struct lsb_writer **pw, const char *path,
			       uint32_t chunk_size)
{
	struct lsb_writer_opts o = { .size = sizeof(o), .chunk_size = chunk_size, .zstd_level = 1,
				     .heads = lsd_pt_heads_cb };
	size_t i;

	lsd_pt_heads_free(fz_heads);
	o.heads_arg = fz_heads = lsd_pt_heads_new();
	if (!fz_heads || lsb_writer_open(pw, path, &o) < 0)
		return -1;
	for (i = 0; i < T->nmeta; i++)
		if (T->keys[i] && T->values[i])
			lsb_writer_meta(*pw, T->keys[i], T->values[i]);
	for (i = 0; i < T->nmods; i++)
		lsb_writer_module(*pw, &T->mods[i].m, T->mods[i].data, T->mods[i].len);
	for (i = 0; i < T->nevs; i++)
		lsb_writer_event(*pw, &T->evs[i]);
	lsb_writer_flush(*pw);
	return 0;
}

/* lsb_writer_close() of fz_tmpl_open()'s writer: its return. */
static inline int fz_tmpl_close(struct lsb_writer *w)
{
	int err = lsb_writer_close(w);

	lsd_pt_heads_free(fz_heads);
	fz_heads = NULL;
	return err;
}

/* FNV-1a of n bytes at p, from h. */
static inline uint64_t fz_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* Whether $LSD_FUZZ_DIGEST asks for each input's digest line. */
static inline int fz_want_digest(void)
{
	return getenv("LSD_FUZZ_DIGEST") != NULL;
}

/* A digest of profile p's text (0 when it cannot be written), for
 * fz_digest(). */
static inline uint64_t fz_profile_digest(const struct lsp_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	uint64_t h = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return 0;
	if (lsp_write_file(p, f, "fuzz", NULL, 0) >= 0 && fflush(f) == 0)
		h = fz_fnv(0xcbf29ce484222325ull, buf, len);
	fclose(f);
	free(buf);
	return h;
}

/* With $LSD_FUZZ_DIGEST set, prints what an input gave as one line (before
 * replay.c's own), so that tests/t0301 and t0312 can compare an input run
 * alone with the same input run after others in one process: nothing an
 * input leaves may change the next one's result. */
static inline void fz_digest(uint64_t a, uint64_t b)
{
	if (fz_want_digest())
		printf("digest %016llx %016llx\n", (unsigned long long)a,
		       (unsigned long long)b);
}

#endif
