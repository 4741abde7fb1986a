/* image.c - a process image from a bundle's mmap events and modules. */
#include <errno.h>
#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder/image.h"
#include "decoder/modfile.h"
#include "ls_buf.h"
#include "ls_crc32.h"
#include "ls_err.h"
#include "ls_out.h"

/* Bytes of mapped sections (and their block caches: several bytes per
 * code byte) libipt keeps within a chunk's decode (lsd_image_cold()). */
#define LSD_ISCACHE_LIMIT (1ull << 30)

/* The images of every process of one run, built in one pass over the
 * sideband so that a forked child starts with its parent's mappings. */
struct build_ctx {
	struct lsb_reader *r;
	int run;
	struct lsd_module_bytes *mods;	/* shared by all images */
	size_t nmods;
	struct lsd_image *imgs;
	size_t n, cap;
	int err;
};

static size_t module_by_build_id(struct lsb_reader *r, const struct lsb_event *ev)
{
	size_t i, n = lsb_reader_nmodules(r);

	for (i = 0; i < n; i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);

		if (m->build_id_len == ev->build_id_len && ev->build_id_len &&
		    !memcmp(m->build_id, ev->build_id, ev->build_id_len))
			return i;
	}
	return (size_t)-1;
}

/* Removes [start, end) from the map list: a new mapping replaces what it
 * overlaps, as mmap(MAP_FIXED) does. */
static void unmap_range(struct lsd_image *img, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < img->nmaps) {
		struct lsd_mapping *m = &img->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			/* Split: keep the head here, the tail appended. */
			struct lsd_mapping tail = *m;

			tail.pgoff += end - m->start;
			tail.start = end;
			m->end = start;
			if (img->nmaps == img->capmaps)
				return;	/* capacity was reserved by the caller */
			img->maps[img->nmaps++] = tail;
			i++;
			continue;
		}
		if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			i++;
		} else {
			img->maps[i] = img->maps[--img->nmaps];
		}
	}
}

/* The image of pid, created (empty, or a copy of FROM's mappings). */
static struct lsd_image *image_of(struct build_ctx *c, uint32_t pid,
				  size_t from)
{
	struct lsd_image *img;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->imgs[i].pid == pid)
			return &c->imgs[i];
	if (LS_GROW(c->imgs, c->n + 1, c->cap, 4))
		return NULL;
	img = &c->imgs[c->n];
	memset(img, 0, sizeof(*img));
	img->pid = pid;
	img->borrowed = c->n > 0;	/* the first owns modules and cache */
	img->mods = c->mods;
	img->nmods = c->nmods;
	if (from < c->n && c->imgs[from].nmaps) {
		const struct lsd_image *f = &c->imgs[from];

		img->maps = malloc((f->nmaps + 2) * sizeof(*img->maps));
		if (!img->maps)
			return NULL;
		memcpy(img->maps, f->maps, f->nmaps * sizeof(*img->maps));
		img->nmaps = f->nmaps;
		img->capmaps = f->nmaps + 2;
	}
	c->n++;
	return img;
}

static int on_event(const struct lsb_event *ev, void *arg)
{
	struct build_ctx *c = arg;
	struct lsd_image *img;
	size_t mod;

	if (ev->run != c->run)
		return 0;
	if (ev->type == LSB_EV_FORK && ev->arg != ev->pid) {
		/* A new process: it inherits its parent's address space
		 * (perf writes no mmap events for it). */
		size_t i, parent;

		for (i = 0; i < c->n && c->imgs[i].pid != ev->arg; i++)
			;
		if (i < c->n)
			return 0;
		if (!(img = image_of(c, ev->pid, SIZE_MAX)))
			goto nomem;
		parent = (size_t)(img - c->imgs);
		if (!image_of(c, ev->arg, parent))
			goto nomem;
		return 0;
	}
	if (ev->type != LSB_EV_MMAP && ev->type != LSB_EV_THREAD_START)
		return 0;
	img = image_of(c, ev->pid, SIZE_MAX);
	if (!img)
		goto nomem;
	if (ev->type != LSB_EV_MMAP || ev->len == 0 || ev->addr + ev->len < ev->addr)
		return 0;
	if (LS_GROW(img->maps, img->nmaps + 2, img->capmaps, 64))
		goto nomem;
	/* munmap is not applied: the sw recorder's sideband is not yet
	 * placed in the PT stream, so code that was unmapped (dlclose) stays
	 * readable for the PT that ran before.  A later mmap over the same
	 * range still replaces it. */
	unmap_range(img, ev->addr, ev->addr + ev->len);
	if (!(ev->prot & 4))
		return 0;
	mod = module_by_build_id(c->r, ev);
	if (mod == (size_t)-1 || !c->mods[mod].data) {
		img->missing++;
		return 0;
	}
	img->maps[img->nmaps].start = ev->addr;
	img->maps[img->nmaps].end = ev->addr + ev->len;
	img->maps[img->nmaps].pgoff = ev->pgoff;
	img->maps[img->nmaps].module = mod;
	img->nmaps++;
	return 0;
nomem:
	c->err = -LS_ENOMEM;
	return 1;
}

static int cmp_map(const void *a, const void *b)
{
	const struct lsd_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct lsd_mapping *find_map(const struct lsd_image *img, uint64_t ip)
{
	size_t lo = 0, hi = img->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lsd_mapping *m = &img->maps[mid];

		if (ip < m->start)
			hi = mid;
		else if (ip >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

int lsd_image_read(const struct lsd_image *img, uint8_t *buf, size_t size,
		   uint64_t ip)
{
	const struct lsd_mapping *m = find_map(img, ip);
	const struct lsd_module_bytes *mb;
	uint64_t off, n;

	if (!m)
		return -LS_ENOENT;
	mb = &img->mods[m->module];
	off = m->pgoff + (ip - m->start);
	n = m->end - ip;
	if (off >= mb->len)
		return -LS_ENOENT;
	if (n > mb->len - off)
		n = mb->len - off;
	if (n > size)
		n = size;
	memcpy(buf, (const uint8_t *)mb->data + off, (size_t)n);
	return (int)n;
}

int lsd_image_locate(const struct lsd_image *img, uint64_t ip, size_t *module,
		     uint64_t *file_off)
{
	const struct lsd_mapping *m = find_map(img, ip);

	if (!m)
		return -LS_ENOENT;
	*module = m->module;
	*file_off = m->pgoff + (ip - m->start);
	return 0;
}

static int read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid,
		   uint64_t ip, void *context)
{
	int n;

	(void)asid;
	n = lsd_image_read(context, buffer, size, ip);
	return n < 0 ? -pte_nomap : n;
}

void lsd_image_cache_dir(char *dir, size_t len)
{
	const char *env = getenv("LOOPSCOPE_CACHE"), *xdg, *home;
	char *p;

	if (env && *env) {
		snprintf(dir, len, "%s", env);
	} else if ((xdg = getenv("XDG_CACHE_HOME")) && *xdg) {
		snprintf(dir, len, "%s/loopscope", xdg);
	} else if ((home = getenv("HOME")) && *home) {
		snprintf(dir, len, "%s/.cache/loopscope", home);
	} else {
		dir[0] = '\0';
		return;
	}
	/* mkdir -p */
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		dir[0] = '\0';
}

/* DIR/<build-id hex><suffix> into path.  Returns 0, or -LS_ENOENT when
 * there is no directory or build-id, or the path does not fit. */
static int id_path(const char *dir, const uint8_t *bid, size_t n, const char *suffix,
		   char *path, size_t len)
{
	size_t i, off;

	if (!dir[0] || !bid || !n)
		return -LS_ENOENT;
	off = (size_t)snprintf(path, len, "%s/", dir);
	for (i = 0; i < n && off + 3 < len; i++)
		off += (size_t)snprintf(path + off, len - off, "%02x", bid[i]);
	if (i < n || off + strlen(suffix) >= len)
		return -LS_ENOENT;
	snprintf(path + off, len - off, "%s", suffix);
	return 0;
}

int lsd_image_cache_path(const uint8_t *bid, size_t n, const char *suffix,
			 char *path, size_t len)
{
	char dir[4096];

	lsd_image_cache_dir(dir, sizeof(dir));
	return id_path(dir, bid, n, suffix, path, len);
}

/* Whether the file at path holds exactly the n bytes at data. */
static int same_bytes(const char *path, const void *data, size_t n)
{
	void *f;
	size_t len;
	int same;

	if (lsd_modfile_map(path, &f, &len) < 0)
		return 0;
	same = len == n && !memcmp(f, data, n);
	lsd_modfile_unmap(f, len);
	return same;
}

/* A file holding the module's bytes: DIR/<build-id hex>, written once
 * (to a temporary name, then renamed, so a reader never sees half).  A
 * file there with other bytes (damaged, or another build of the same
 * build-id: stripped or not) is written again: libipt must read what
 * the fast path reads. */
static char *cache_file(const char *dir, const struct lsb_module *m,
			const struct lsd_module_bytes *mb)
{
	char path[4200];

	if (id_path(dir, m->build_id, m->build_id_len, "", path, sizeof(path)) < 0)
		return NULL;
	if (same_bytes(path, mb->data, mb->len))
		return strdup(path);
	if (ls_out_write_file(path, mb->data, mb->len) < 0)
		return NULL;
	return strdup(path);
}

/* What names an embedded module's bytes in DIR/<build-id hex>.sum: the
 * stored (compressed) bytes of its bundle section, by CRC-32 and length,
 * and the bytes they decompress to, by length and CRC-32.  A bundle whose
 * module section is stored as recorded then maps DIR/<build-id hex>
 * (checked against the record's CRC) instead of decompressing it: a
 * short analysis spent a fifth of its time on that and its copies.  40
 * bytes in the machine's byte order (as the cache's other files): magic,
 * version, stored CRC, stored length, length, CRC of the bytes, CRC of
 * the 36 bytes before. */
#define SUM_MAGIC "LSMODSUM"
#define SUM_VERSION 1u
#define SUM_LEN 40

struct msum {
	uint32_t pcrc;
	uint64_t stored, len;
};

static void sum_pack(uint8_t *b, const struct msum *k, uint32_t crc)
{
	uint32_t v = SUM_VERSION;

	memcpy(b, SUM_MAGIC, 8);
	memcpy(b + 8, &v, 4);
	memcpy(b + 12, &k->pcrc, 4);
	memcpy(b + 16, &k->stored, 8);
	memcpy(b + 24, &k->len, 8);
	memcpy(b + 32, &crc, 4);
	v = ls_crc32(0, b, 36);
	memcpy(b + 36, &v, 4);
}

/* Module m's bytes from DIR/<build-id> into *mb (mapped) where its .sum
 * file names them by k, and they have its CRC.  Returns 1 if so, else
 * 0 (nothing kept). */
static int sum_load(const char *dir, const struct lsb_module *m, const struct msum *k,
		    struct lsd_module_bytes *mb)
{
	char path[4200];
	uint8_t b[SUM_LEN + 1], want[SUM_LEN];
	uint32_t crc;
	size_t n;
	void *data;
	FILE *f;

	if (id_path(dir, m->build_id, m->build_id_len, ".sum", path, sizeof(path)) < 0 ||
	    !(f = fopen(path, "rb")))
		return 0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n != SUM_LEN)
		return 0;
	memcpy(&crc, b + 32, 4);
	sum_pack(want, k, crc);
	if (memcmp(b, want, SUM_LEN))
		return 0;
	path[strlen(path) - 4] = '\0';
	if (lsd_modfile_map(path, &data, &n) < 0)
		return 0;
	if (n != k->len || ls_crc32(0, data, n) != crc || !(mb->file = strdup(path))) {
		lsd_modfile_unmap(data, n);
		return 0;
	}
	mb->data = data;
	mb->len = n;
	mb->mapped = 1;
	mb->crc = crc;
	mb->has_crc = 1;
	return 1;
}

/* Writes DIR/<build-id>.sum for the bytes in *mb, read from the bundle
 * (stored as k), once DIR/<build-id> holds them (mb->file); their CRC is
 * then known (mb->crc). */
static void sum_save(const char *dir, const struct lsb_module *m, const struct msum *k,
		     struct lsd_module_bytes *mb)
{
	char path[4200];
	uint8_t b[SUM_LEN];

	mb->crc = ls_crc32(0, mb->data, mb->len);
	mb->has_crc = 1;
	if (id_path(dir, m->build_id, m->build_id_len, ".sum", path, sizeof(path)) < 0)
		return;
	sum_pack(b, k, mb->crc);
	(void)ls_out_write_file(path, b, sizeof(b));
}

/* Hands every mapping whose bytes are in a file to libipt's section cache
 * (ISCACHE, shared by the images of all processes: a module mapped alike
 * in several is one section); the rest stays with the read callback. */
static void add_sections(struct lsd_image *img, struct lsb_reader *r,
			 struct pt_image_section_cache *iscache)
{
	char dir[4096] = "";
	size_t i;

	if (!iscache)
		return;
	for (i = 0; i < img->nmaps; i++) {
		const struct lsd_mapping *m = &img->maps[i];
		struct lsd_module_bytes *mb = &img->mods[m->module];
		int isid;

		if (!mb->data)
			continue;
		if (!mb->file) {
			if (!dir[0])
				lsd_image_cache_dir(dir, sizeof(dir));
			mb->file = cache_file(dir, lsb_reader_module(r, m->module), mb);
			if (!mb->file)
				continue;
		}
		isid = pt_iscache_add_file(iscache, mb->file, m->pgoff,
					   m->end - m->start, m->start);
		if (isid >= 0 && pt_image_add_cached(img->pt, iscache, isid,
						     NULL) >= 0)
			img->cached++;
	}
}

/* The bytes of every module of the bundle, embedded or found on disk;
 * or those FROM holds (the same bundle's, another decoder's), borrowed. */
static int load_modules(struct build_ctx *c, const char *debug_dir,
			const struct lsd_image *from, char *errmsg, size_t errlen)
{
	struct lsb_reader *r = c->r;
	char dir[4096];
	size_t i;
	int err;

	c->nmods = lsb_reader_nmodules(r);
	c->mods = calloc(c->nmods ? c->nmods : 1, sizeof(*c->mods));
	if (!c->mods)
		return -LS_ENOMEM;
	if (from && from->mods && from->nmods == c->nmods) {
		for (i = 0; i < c->nmods; i++) {
			c->mods[i] = from->mods[i];
			c->mods[i].borrowed = 1;
			if (from->mods[i].file &&
			    !(c->mods[i].file = strdup(from->mods[i].file)))
				return -LS_ENOMEM;
		}
		return 0;
	}
	lsd_image_cache_dir(dir, sizeof(dir));
	for (i = 0; i < c->nmods; i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);

		if (m->flags & LSB_MOD_EMBEDDED) {
			struct lsd_module_bytes *mb = &c->mods[i];
			struct msum k;
			int named = dir[0] && m->build_id_len &&
				    !lsb_reader_module_stored(r, i, &k.pcrc, &k.stored, &k.len);

			/* the build-id cache's copy, else decompressed (and
			 * then kept there, with what names it) */
			if (named && sum_load(dir, m, &k, mb))
				continue;
			err = lsb_reader_module_data(r, i, &mb->data, &mb->len);
			if (!err && named && (mb->file = cache_file(dir, m, mb)))
				sum_save(dir, m, &k, mb);
		} else {
			char used[4096];

			err = lsd_modfile_find_path(m, debug_dir, 1, &c->mods[i].data,
						    &c->mods[i].len, used, sizeof(used),
						    errmsg, errlen);
			c->mods[i].mapped = !err;
			if (!err)
				c->mods[i].file = strdup(used);
			if (err == -LS_ENOENT)	/* counted as missing */
				errmsg[0] = '\0';
		}
		if (err < 0 && err != -LS_ENOENT) {
			if (!errmsg[0])
				snprintf(errmsg, errlen, "module '%s': %s", m->path,
					 lsb_reader_errmsg(r));
			return err;
		}
	}
	return 0;
}

static void release_mods(struct lsd_module_bytes *mods, size_t n)
{
	size_t i;

	for (i = 0; i < n && mods; i++) {
		if (mods[i].borrowed)
			;	/* (another decoder's) */
		else if (mods[i].mapped)
			lsd_modfile_unmap(mods[i].data, mods[i].len);
		else
			free(mods[i].data);
		free(mods[i].file);
	}
	free(mods);
}

int lsd_image_build_all(struct lsd_image **pimgs, size_t *pn, struct lsb_reader *r,
			int run, const char *debug_dir, char *errmsg, size_t errlen)
{
	return lsd_image_build_all_from(pimgs, pn, r, run, debug_dir, NULL, errmsg, errlen);
}

int lsd_image_build_all_from(struct lsd_image **pimgs, size_t *pn, struct lsb_reader *r,
			     int run, const char *debug_dir, const struct lsd_image *from,
			     char *errmsg, size_t errlen)
{
	struct build_ctx c;
	struct pt_image_section_cache *iscache;
	char msg[512] = "";
	size_t i;
	int err;

	*pimgs = NULL;
	*pn = 0;
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.run = run;
	err = load_modules(&c, debug_dir, from, msg, sizeof(msg));
	if (err >= 0) {
		err = lsb_reader_events(r, on_event, &c);
		if (c.err < 0)
			err = c.err;
	}
	/* A bundle without sideband still gets one (empty) image. */
	if (err >= 0 && !c.n && !image_of(&c, 0, SIZE_MAX))
		err = -LS_ENOMEM;
	if (err < 0)
		goto fail;
	/* Sections stay mapped, with libipt's block caches, up to
	 * LSD_ISCACHE_LIMIT; lsd_image_cold() drops them before each chunk
	 * libipt decodes (see there).  Limit 0 (every section unmapped when
	 * a decoder leaves it) cost sqlite3's reference decode 11 minutes
	 * against seconds: a section's block cache is allocated per
	 * mapping, and the decoder moves between libsqlite3 and libc at
	 * every call. */
	iscache = pt_iscache_alloc("loopscope");
	if (iscache)
		pt_iscache_set_limit(iscache, LSD_ISCACHE_LIMIT);
	for (i = 0; i < c.n; i++) {
		struct lsd_image *img = &c.imgs[i];

		if (img->nmaps)
			qsort(img->maps, img->nmaps, sizeof(*img->maps), cmp_map);
		img->iscache = iscache;
		img->pt = pt_image_alloc("loopscope");
		if (!img->pt) {
			err = -LS_ENOMEM;
			goto fail;
		}
		pt_image_set_callback(img->pt, read_cb, img);
		add_sections(img, r, iscache);
	}
	*pimgs = c.imgs;
	*pn = c.n;
	return 0;
fail:
	if (errmsg && errlen)
		snprintf(errmsg, errlen, "%s", msg);
	if (c.n) {
		lsd_image_release_all(c.imgs, c.n);
	} else {
		release_mods(c.mods, c.nmods);
		free(c.imgs);
	}
	return err;
}

void lsd_image_cold(const struct lsd_image *img)
{
	if (!img || !img->iscache)
		return;
	pt_iscache_set_limit(img->iscache, 0);
	pt_iscache_set_limit(img->iscache, LSD_ISCACHE_LIMIT);
}

void lsd_image_release_all(struct lsd_image *imgs, size_t n)
{
	size_t i;

	/* The owner last: the others' sections live in its cache. */
	for (i = n; i-- > 0; )
		lsd_image_release(&imgs[i]);
	free(imgs);
}

int lsd_image_build(struct lsd_image *img, struct lsb_reader *r,
		    uint32_t pid, int run)
{
	return lsd_image_build_dir(img, r, pid, run, NULL);
}

int lsd_image_build_dir(struct lsd_image *img, struct lsb_reader *r,
			uint32_t pid, int run, const char *debug_dir)
{
	struct lsd_image *imgs;
	size_t n, i, k = 0;
	int err;

	memset(img, 0, sizeof(*img));
	err = lsd_image_build_all(&imgs, &n, r, run, debug_dir, img->errmsg,
				  sizeof(img->errmsg));
	if (err < 0)
		return err;
	for (i = 0; pid && i < n; i++)
		if (imgs[i].pid == pid)
			k = i;
	/* The one asked for takes over the modules and the cache. */
	imgs[0].borrowed = 1;
	imgs[k].borrowed = 0;
	for (i = 0; i < n; i++)
		if (i != k)
			lsd_image_release(&imgs[i]);
	*img = imgs[k];
	pt_image_set_callback(img->pt, read_cb, img);
	free(imgs);
	return 0;
}

void lsd_image_release(struct lsd_image *img)
{
	if (img->pt)
		pt_image_free(img->pt);
	if (!img->borrowed) {
		if (img->iscache)
			pt_iscache_free(img->iscache);
		release_mods(img->mods, img->nmods);
	}
	free(img->maps);
	/* The message outlives the image: callers read it after failure. */
	img->iscache = NULL;
	img->mods = NULL;
	img->maps = NULL;
	img->pt = NULL;
	img->nmods = img->nmaps = img->capmaps = 0;
	img->missing = 0;
	img->cached = 0;
}
