/* linecache.c - a module's DWARF answers in the build-id cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/image.h"
#include "decoder/linecache.h"
#include "ls_buf.h"
#include "ls_crc32.h"
#include "ls_err.h"
#include "ls_out.h"

/* DIR/<build-id>.lines:
 *   "LSLINES\n", u32 version, u32 build-id length, build-id (64 bytes,
 *   zero padded), u64 length of the DWARF file, u32 its CRC-32,
 *   u32 answers, u32 inlined-name references, u32 string
 *   bytes;
 *   the strings, each NUL-terminated;
 *   per answer: u64 vaddr, u32 line, u32 file (string offset, ~0: none),
 *   u32 first reference, u32 references (inlined names, innermost first);
 *   the references (string offsets, ~0: a name DWARF did not give);
 *   u32 CRC-32 of everything before it.
 * All little-endian. */
#define LC_MAGIC "LSLINES\n"
#define LC_VERSION 1u
#define LC_HEAD 104
#define LC_ENT 24
#define LC_NONE UINT32_MAX

struct lc_ent {
	uint64_t vaddr;
	const char *file;	/* NULL: none */
	int line;
	uint32_t inl, ninl;	/* c->inl[inl .. inl + ninl) */
};

struct lsd_lcache {
	uint8_t head[LC_HEAD];	/* the header a matching file has (counts 0) */
	char path[4200];
	char *arena;		/* the strings read from the file */
	char **own;		/* strings added since, each malloc'd */
	size_t nown, capown;
	struct lc_ent *e;
	size_t ne, cape;
	size_t nread;		/* answers read from the file */
	const char **inl;
	size_t ninl, capinl;
	uint32_t *idx;		/* vaddr -> answer + 1, open addressing */
	size_t capidx;		/* 0 or a power of two */
	const char **str;	/* every string once, by content */
	size_t nstr, capstr;	/* capstr: 0 or a power of two */
};

static size_t addr_hash(uint64_t a)
{
	a ^= a >> 31;
	a *= 0x9e3779b97f4a7c15ull;
	return (size_t)(a ^ (a >> 29));
}

static size_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

/* Indexes answer i (the table has room). */
static void idx_put(struct lsd_lcache *c, size_t i)
{
	size_t h;

	for (h = addr_hash(c->e[i].vaddr) & (c->capidx - 1); c->idx[h];
	     h = (h + 1) & (c->capidx - 1))
		;
	c->idx[h] = (uint32_t)i + 1;
}

/* Doubles the index and indexes answers [0, c->ne) again. */
static int idx_grow(struct lsd_lcache *c)
{
	size_t cap = c->capidx ? 2 * c->capidx : 256, i;
	uint32_t *p = calloc(cap, sizeof(*p));

	if (!p)
		return -LS_ENOMEM;
	free(c->idx);
	c->idx = p;
	c->capidx = cap;
	for (i = 0; i < c->ne; i++)
		idx_put(c, i);
	return 0;
}

static const struct lc_ent *idx_get(const struct lsd_lcache *c, uint64_t vaddr)
{
	size_t h;

	if (!c->capidx)
		return NULL;
	for (h = addr_hash(vaddr) & (c->capidx - 1); c->idx[h];
	     h = (h + 1) & (c->capidx - 1))
		if (c->e[c->idx[h] - 1].vaddr == vaddr)
			return &c->e[c->idx[h] - 1];
	return NULL;
}

/* The string equal to s that c keeps, added when new: s itself when
 * borrow (a string of the arena), else a copy; NULL: out of memory. */
static const char *str_intern(struct lsd_lcache *c, const char *s, int borrow)
{
	size_t h, i;
	char *add;

	if ((c->nstr + 1) * 2 > c->capstr) {
		size_t cap = c->capstr ? 2 * c->capstr : 64;
		const char **p = calloc(cap, sizeof(*p));

		if (!p)
			return NULL;
		for (i = 0; i < c->capstr; i++) {
			if (!c->str[i])
				continue;
			for (h = str_hash(c->str[i]) & (cap - 1); p[h]; h = (h + 1) & (cap - 1))
				;
			p[h] = c->str[i];
		}
		free(c->str);
		c->str = p;
		c->capstr = cap;
	}
	for (h = str_hash(s) & (c->capstr - 1); c->str[h]; h = (h + 1) & (c->capstr - 1))
		if (!strcmp(c->str[h], s))
			return c->str[h];
	if (borrow) {
		c->str[h] = s;
	} else {
		if (LS_GROW(c->own, c->nown + 1, c->capown, 16) || !(add = strdup(s)))
			return NULL;
		c->own[c->nown++] = add;
		c->str[h] = add;
	}
	c->nstr++;
	return c->str[h];
}

/* Reads c->path into c when it matches c->head; a file that does not is
 * left for lsd_lcache_close() to replace. */
static void lc_load(struct lsd_lcache *c)
{
	uint8_t *b = NULL;
	uint32_t ne, nref, nstr, crc, i, k;
	const uint8_t *p, *q;
	long size;
	FILE *f = fopen(c->path, "rb");

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < LC_HEAD + 4 ||
	    fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)size)) ||
	    fread(b, 1, (size_t)size, f) != (size_t)size)
		goto out;
	ne = ls_le32(b + 92);
	nref = ls_le32(b + 96);
	nstr = ls_le32(b + 100);
	crc = ls_le32(b + size - 4);
	if (memcmp(b, c->head, 92) || ne > LSD_LCACHE_MAX || nref > LSD_LCACHE_MAX ||
	    (uint64_t)LC_HEAD + nstr + (uint64_t)ne * LC_ENT + (uint64_t)nref * 4 + 4 !=
	    (uint64_t)size || crc != ls_crc32(0, b, (size_t)size - 4) ||
	    (nstr && b[LC_HEAD + nstr - 1]))
		goto out;
	if (!(c->arena = malloc(nstr ? nstr : 1)) ||
	    LS_GROW(c->e, ne, c->cape, 64) || LS_GROW(c->inl, nref, c->capinl, 64))
		goto drop;
	memcpy(c->arena, b + LC_HEAD, nstr);
	q = b + LC_HEAD + nstr + (size_t)ne * LC_ENT;
	for (i = 0; i < nref; i++) {
		uint32_t o = ls_le32(q + 4 * i);

		if (o == LC_NONE)
			c->inl[i] = NULL;	/* a name libdw did not give */
		else if (o >= nstr || !(c->inl[i] = str_intern(c, c->arena + o, 1)))
			goto drop;
	}
	for (i = 0, p = b + LC_HEAD + nstr; i < ne; i++, p += LC_ENT) {
		struct lc_ent *e = &c->e[i];
		uint32_t fo = ls_le32(p + 12);

		e->vaddr = ls_le64(p);
		e->line = (int)ls_le32(p + 8);
		e->inl = ls_le32(p + 16);
		e->ninl = ls_le32(p + 20);
		if ((fo != LC_NONE && fo >= nstr) || e->ninl > LSD_MAX_INLINE ||
		    e->inl > nref || e->ninl > nref - e->inl ||
		    idx_get(c, e->vaddr))
			goto drop;
		e->file = fo == LC_NONE ? NULL : str_intern(c, c->arena + fo, 1);
		if (fo != LC_NONE && !e->file)
			goto drop;
		/* (grown over answers [0, i): i goes in once) */
		if ((i + 1) * 2 > c->capidx && idx_grow(c))
			goto drop;
		idx_put(c, i);
		c->ne = i + 1;
	}
	c->ninl = nref;
	c->nread = ne;
	goto out;
drop:	/* damaged, or no memory: start empty (the file is rewritten) */
	c->ne = c->ninl = c->nstr = 0;
	if (c->str)
		memset(c->str, 0, c->capstr * sizeof(*c->str));
	if (c->idx)
		memset(c->idx, 0, c->capidx * sizeof(*c->idx));
	for (k = 0; k < c->nown; k++)
		free(c->own[k]);
	c->nown = 0;
	free(c->arena);
	c->arena = NULL;
out:
	free(b);
	fclose(f);
}

struct lsd_lcache *lsd_lcache_open(const uint8_t *bid, size_t n,
				   const void *dw, size_t dwlen)
{
	/* the whole file: 4e6 instructions for glibc's debug file, against
	 * 2.3e8 to open its DWARF */
	if (!bid || n < 2 || n > 64 || !dw)
		return NULL;
	return lsd_lcache_open_crc(bid, n, dw, dwlen, ls_crc32(0, dw, dwlen));
}

struct lsd_lcache *lsd_lcache_open_crc(const uint8_t *bid, size_t n,
				       const void *dw, size_t dwlen, uint32_t crc)
{
	struct lsd_lcache *c;
	uint32_t v;
	uint64_t l = dwlen;

	if (!bid || n < 2 || n > 64 || !dw)
		return NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	if (lsd_image_cache_path(bid, n, ".lines", c->path, sizeof(c->path)) < 0) {
		free(c);
		return NULL;
	}
	memcpy(c->head, LC_MAGIC, 8);
	v = LC_VERSION;
	c->head[8] = (uint8_t)v, c->head[9] = (uint8_t)(v >> 8);
	c->head[12] = (uint8_t)n;
	memcpy(c->head + 16, bid, n);
	for (int i = 0; i < 8; i++)
		c->head[80 + i] = (uint8_t)(l >> 8 * i);
	v = crc;
	for (int i = 0; i < 4; i++)
		c->head[88 + i] = (uint8_t)(v >> 8 * i);
	lc_load(c);
	return c;
}

int lsd_lcache_get(const struct lsd_lcache *c, uint64_t vaddr,
		   struct lsd_symbol_info *info)
{
	const struct lc_ent *e = c ? idx_get(c, vaddr) : NULL;

	if (!e)
		return 0;
	info->file = e->file;
	info->line = e->line;
	info->ninline = (int)e->ninl;
	for (uint32_t i = 0; i < e->ninl; i++)
		info->inlined[i] = c->inl[e->inl + i];
	return 1;
}

int lsd_lcache_put(struct lsd_lcache *c, uint64_t vaddr,
		   const struct lsd_symbol_info *info)
{
	struct lc_ent e = { vaddr, NULL, info->line, (uint32_t)c->ninl, 0 };
	int k, nin = info->ninline < 0 ? 0 : info->ninline;

	if (nin > LSD_MAX_INLINE)
		nin = LSD_MAX_INLINE;
	if (c->ne >= LSD_LCACHE_MAX || c->ninl + (size_t)nin > LSD_LCACHE_MAX ||
	    idx_get(c, vaddr))
		return 0;
	if (LS_GROW(c->e, c->ne + 1, c->cape, 64) ||
	    LS_GROW(c->inl, c->ninl + (size_t)nin, c->capinl, 64) ||
	    ((c->ne + 1) * 2 > c->capidx && idx_grow(c)))
		return -LS_ENOMEM;
	if (info->file && !(e.file = str_intern(c, info->file, 0)))
		return -LS_ENOMEM;
	for (k = 0; k < nin; k++) {
		const char *s = info->inlined[k];

		if (s && !(s = str_intern(c, s, 0)))
			return -LS_ENOMEM;
		c->inl[c->ninl + (size_t)k] = s;
	}
	e.ninl = (uint32_t)nin;
	c->ninl += (size_t)nin;
	c->e[c->ne] = e;
	idx_put(c, c->ne++);
	return 0;
}

/* The offset of s in the strings written (the table's order). */
static uint32_t str_off(const struct lsd_lcache *c, const uint32_t *off, const char *s)
{
	size_t h;

	for (h = str_hash(s) & (c->capstr - 1); c->str[h] != s; h = (h + 1) & (c->capstr - 1))
		;
	return off[h];
}

static void lc_save(struct lsd_lcache *c)
{
	struct ls_buf b = LS_BUF_INIT;
	uint32_t *off = c->capstr ? calloc(c->capstr, sizeof(*off)) : NULL;
	size_t i, nstr = 0;
	struct ls_out o;
	int ok = 0;

	if (c->capstr && !off)
		return;
	for (i = 0; i < c->capstr; i++)
		if (c->str[i]) {
			off[i] = (uint32_t)nstr;
			nstr += strlen(c->str[i]) + 1;
		}
	if (nstr >= LC_NONE || ls_buf_add(&b, c->head, 92) ||
	    ls_buf_put_le32(&b, (uint32_t)c->ne) || ls_buf_put_le32(&b, (uint32_t)c->ninl) ||
	    ls_buf_put_le32(&b, (uint32_t)nstr))
		goto out;
	for (i = 0; i < c->capstr; i++)
		if (c->str[i] && ls_buf_add(&b, c->str[i], strlen(c->str[i]) + 1))
			goto out;
	for (i = 0; i < c->ne; i++) {
		const struct lc_ent *e = &c->e[i];

		if (ls_buf_put_le64(&b, e->vaddr) || ls_buf_put_le32(&b, (uint32_t)e->line) ||
		    ls_buf_put_le32(&b, e->file ? str_off(c, off, e->file) : LC_NONE) ||
		    ls_buf_put_le32(&b, e->inl) || ls_buf_put_le32(&b, e->ninl))
			goto out;
	}
	for (i = 0; i < c->ninl; i++)
		if (ls_buf_put_le32(&b, c->inl[i] ? str_off(c, off, c->inl[i]) : LC_NONE))
			goto out;
	if (ls_buf_put_le32(&b, ls_crc32(0, b.p, b.len)))
		goto out;
	ok = 1;
out:
	if (ok && ls_out_open(&o, c->path, "wb") >= 0)
		ls_out_finish(&o, fwrite(b.p, 1, b.len, o.f) == b.len ? 0 : -LS_EIO);
	ls_buf_release(&b);
	free(off);
}

void lsd_lcache_close(struct lsd_lcache *c)
{
	if (!c)
		return;
	if (c->ne > c->nread)
		lc_save(c);
	for (size_t i = 0; i < c->nown; i++)
		free(c->own[i]);
	free(c->own);
	free(c->arena);
	free(c->e);
	free(c->inl);
	free(c->idx);
	free(c->str);
	free(c);
}
