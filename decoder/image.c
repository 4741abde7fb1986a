/* image.c - a process image from a bundle's mmap events and modules. */
#include <errno.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder/image.h"
#include "decoder/modfile.h"
#include "ls_err.h"

struct build_ctx {
	struct lsd_image *img;
	struct lsb_reader *r;
	uint32_t pid;
	int run;
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

static int on_event(const struct lsb_event *ev, void *arg)
{
	struct build_ctx *c = arg;
	struct lsd_image *img = c->img;
	size_t mod;

	if (ev->run != c->run)
		return 0;
	if (!c->pid && (ev->type == LSB_EV_MMAP || ev->type == LSB_EV_THREAD_START))
		c->pid = ev->pid;
	if (ev->pid != c->pid || ev->len == 0 || ev->addr + ev->len < ev->addr)
		return 0;
	if (img->nmaps + 2 > img->capmaps) {
		size_t ncap = img->capmaps ? img->capmaps * 2 : 64;
		void *p = realloc(img->maps, ncap * sizeof(*img->maps));

		if (!p) {
			c->err = -LS_ENOMEM;
			return 1;
		}
		img->maps = p;
		img->capmaps = ncap;
	}
	/* munmap is not applied: the sw recorder's sideband is not yet
	 * placed in the PT stream, so code that was unmapped (dlclose) stays
	 * readable for the PT that ran before.  A later mmap over the same
	 * range still replaces it. */
	if (ev->type == LSB_EV_MUNMAP)
		return 0;
	if (ev->type != LSB_EV_MMAP)
		return 0;
	unmap_range(img, ev->addr, ev->addr + ev->len);
	if (!(ev->prot & 4))
		return 0;
	mod = module_by_build_id(c->r, ev);
	if (mod == (size_t)-1 || !img->mods[mod].data) {
		img->missing++;
		return 0;
	}
	img->maps[img->nmaps].start = ev->addr;
	img->maps[img->nmaps].end = ev->addr + ev->len;
	img->maps[img->nmaps].pgoff = ev->pgoff;
	img->maps[img->nmaps].module = mod;
	img->nmaps++;
	return 0;
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
		return -1;
	mb = &img->mods[m->module];
	off = m->pgoff + (ip - m->start);
	n = m->end - ip;
	if (off >= mb->len)
		return -1;
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
		return -1;
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

/* The cache directory for embedded modules, created; "" if none. */
static void cache_dir(char *dir, size_t len)
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

/* A file holding the module's bytes: DIR/<build-id hex>, written once
 * (to a temporary name, then renamed, so a reader never sees half). */
static char *cache_file(const char *dir, const struct lsb_module *m,
			const struct lsd_module_bytes *mb)
{
	char path[4200], tmp[4300];
	struct stat st;
	size_t i, off;
	FILE *f;

	if (!dir[0] || !m->build_id_len)
		return NULL;
	off = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	for (i = 0; i < m->build_id_len && off + 3 < sizeof(path); i++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, "%02x",
					m->build_id[i]);
	if (!stat(path, &st) && (size_t)st.st_size == mb->len)
		return strdup(path);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return NULL;
	if (fwrite(mb->data, 1, mb->len, f) != mb->len) {
		fclose(f);
		unlink(tmp);
		return NULL;
	}
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return NULL;
	}
	return strdup(path);
}

/* Hands every mapping whose bytes are in a file to libipt's section cache;
 * the rest stays with the read callback. */
static void add_sections(struct lsd_image *img, struct lsb_reader *r)
{
	char dir[4096] = "";
	size_t i;

	img->iscache = pt_iscache_alloc("loopscope");
	if (!img->iscache)
		return;
	for (i = 0; i < img->nmaps; i++) {
		const struct lsd_mapping *m = &img->maps[i];
		struct lsd_module_bytes *mb = &img->mods[m->module];
		int isid;

		if (!mb->data)
			continue;
		if (!mb->file) {
			if (!dir[0])
				cache_dir(dir, sizeof(dir));
			mb->file = cache_file(dir, lsb_reader_module(r, m->module), mb);
			if (!mb->file)
				continue;
		}
		isid = pt_iscache_add_file(img->iscache, mb->file, m->pgoff,
					   m->end - m->start, m->start);
		if (isid >= 0 && pt_image_add_cached(img->pt, img->iscache, isid,
						     NULL) >= 0)
			img->cached++;
	}
}

int lsd_image_build(struct lsd_image *img, struct lsb_reader *r,
		    uint32_t pid, int run)
{
	return lsd_image_build_dir(img, r, pid, run, NULL);
}

int lsd_image_build_dir(struct lsd_image *img, struct lsb_reader *r,
			uint32_t pid, int run, const char *debug_dir)
{
	struct build_ctx c = { img, r, pid, run, 0 };
	size_t i;
	int err;

	memset(img, 0, sizeof(*img));
	img->nmods = lsb_reader_nmodules(r);
	img->mods = calloc(img->nmods ? img->nmods : 1, sizeof(*img->mods));
	if (!img->mods)
		return -LS_ENOMEM;
	for (i = 0; i < img->nmods; i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);

		if (m->flags & LSB_MOD_EMBEDDED) {
			err = lsb_reader_module_data(r, i, &img->mods[i].data,
						     &img->mods[i].len);
		} else {
			char used[4096];

			err = lsd_modfile_find_path(m, debug_dir, 1, &img->mods[i].data,
						    &img->mods[i].len, used, sizeof(used),
						    img->errmsg, sizeof(img->errmsg));
			img->mods[i].mapped = !err;
			if (!err)
				img->mods[i].file = strdup(used);
			if (err == -LS_ENOENT)	/* counted as missing */
				img->errmsg[0] = '\0';
		}
		if (err < 0 && err != -LS_ENOENT) {
			if (!img->errmsg[0])
				snprintf(img->errmsg, sizeof(img->errmsg),
					 "module '%s': %s", m->path, lsb_reader_errmsg(r));
			lsd_image_release(img);
			return err;
		}
	}
	err = lsb_reader_events(r, on_event, &c);
	if (c.err < 0 || err < 0) {
		lsd_image_release(img);
		return c.err < 0 ? c.err : err;
	}
	if (img->nmaps)
		qsort(img->maps, img->nmaps, sizeof(*img->maps), cmp_map);
	img->pt = pt_image_alloc("loopscope");
	if (!img->pt) {
		lsd_image_release(img);
		return -LS_ENOMEM;
	}
	pt_image_set_callback(img->pt, read_cb, img);
	add_sections(img, r);
	return 0;
}

void lsd_image_release(struct lsd_image *img)
{
	size_t i;

	if (img->pt)
		pt_image_free(img->pt);
	if (img->iscache)
		pt_iscache_free(img->iscache);
	img->iscache = NULL;
	for (i = 0; i < img->nmods && img->mods; i++) {
		if (img->mods[i].mapped)
			lsd_modfile_unmap(img->mods[i].data, img->mods[i].len);
		else
			free(img->mods[i].data);
		free(img->mods[i].file);
	}
	free(img->mods);
	free(img->maps);
	/* The message outlives the image: callers read it after failure. */
	img->mods = NULL;
	img->maps = NULL;
	img->pt = NULL;
	img->nmods = img->nmaps = img->capmaps = 0;
	img->missing = 0;
	img->cached = 0;
}
