/* ls_buf.c - growable byte buffers and arrays, little-endian and LEB128
 * coding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ls_buf.h"
#include "ls_err.h"

void ls_buf_init(struct ls_buf *b)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}

void ls_buf_release(struct ls_buf *b)
{
	free(b->p);
	ls_buf_init(b);
}

int ls_buf_reserve(struct ls_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (n <= b->cap - b->len)
		return 0;
	if (n > SIZE_MAX / 2 - b->len)
		return -LS_ENOMEM;
	/* Grow geometrically so appends stay amortised O(1). */
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	if (!b->len) {		/* nothing to keep: no copy, as realloc() makes */
		free(b->p);
		b->p = NULL;
		b->cap = 0;
		p = malloc(cap);
	} else {
		p = realloc(b->p, cap);
	}
	if (!p)
		return -LS_ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int ls_buf_add(struct ls_buf *b, const void *data, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = ls_buf_reserve(b, n);
	if (err < 0)
		return err;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

int ls_buf_put_u8(struct ls_buf *b, uint8_t v)
{
	return ls_buf_add(b, &v, 1);
}

int ls_buf_put_le32(struct ls_buf *b, uint32_t v)
{
	uint8_t t[4];

	ls_st32(t, v);
	return ls_buf_add(b, t, sizeof(t));
}

int ls_buf_put_le64(struct ls_buf *b, uint64_t v)
{
	uint8_t t[8];

	ls_st64(t, v);
	return ls_buf_add(b, t, sizeof(t));
}

int ls_buf_put_uleb(struct ls_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	return ls_buf_add(b, t, n);
}

int ls_buf_put_sleb(struct ls_buf *b, int64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	int more;

	do {
		uint8_t byte = (uint8_t)(v & 0x7f);

		/* Arithmetic shift; implementation-defined in C11 but what
		 * every compiler we build with does. */
		v >>= 7;
		more = !((v == 0 && !(byte & 0x40)) ||
			 (v == -1 && (byte & 0x40)));
		t[n++] = byte | (more ? 0x80 : 0);
	} while (more);
	return ls_buf_add(b, t, n);
}

void ls_buf_consume(struct ls_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

int ls_get_u8(const uint8_t **p, const uint8_t *end, uint8_t *v)
{
	if (*p >= end)
		return -LS_ECORRUPT;
	*v = *(*p)++;
	return 0;
}

int ls_get_le32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	if (end - *p < 4)
		return -LS_ECORRUPT;
	*v = ls_le32(*p);
	*p += 4;
	return 0;
}

int ls_get_le64(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	if (end - *p < 8)
		return -LS_ECORRUPT;
	*v = ls_le64(*p);
	*p += 8;
	return 0;
}

int ls_get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t byte;

		if (q >= end || shift > 63)
			return -LS_ECORRUPT;
		byte = *q++;
		/* The tenth byte may only carry the top bit of 64. */
		if (shift == 63 && (byte & 0x7e))
			return -LS_ECORRUPT;
		r |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80))
			break;
	}
	*p = q;
	*v = r;
	return 0;
}

int ls_get_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		if (q >= end || shift > 63)
			return -LS_ECORRUPT;
		byte = *q++;
		r |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (shift < 64 && (byte & 0x40))
		r |= ~(uint64_t)0 << shift;
	*p = q;
	*v = (int64_t)r;
	return 0;
}

int ls_get_bytes(const uint8_t **p, const uint8_t *end, size_t n,
		 const uint8_t **data)
{
	if ((size_t)(end - *p) < n)
		return -LS_ECORRUPT;
	*data = *p;
	*p += n;
	return 0;
}

void *ls_reallocarray(void *p, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		return NULL;
	return realloc(p, n && elem ? n * elem : 1);
}

void ls_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	/* (the kernel's page, not x86's 4 KiB: madvise() wants it aligned) */
	const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(pg - 1);

	/* (an older kernel says EINVAL: the pages come a fault at a time) */
	if (p && pg && !(pg & (pg - 1)) && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void *ls_zgrow(void *p, size_t old, size_t n, size_t elem)
{
	void *q;

	if (elem && n > SIZE_MAX / elem)
		return NULL;
	if (old > n)
		old = n;
	if (!(q = malloc(n && elem ? n * elem : 1)))
		return NULL;
	ls_prefault(q, n * elem);
	if (old)
		memcpy(q, p, old * elem);
	memset((char *)q + old * elem, 0, (n - old) * elem);
	free(p);
	return q;
}

void ls_prefault_more(void *p, size_t used, size_t *done, size_t size)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	size_t to, step;
	uintptr_t a, e;

	if (used > size)
		used = size;	/* (never past the memory) */
	if (used <= *done || !p || !pg || (pg & (pg - 1)))
		return;
	step = used / 8 > LS_PREFAULT_STEP ? used / 8 : LS_PREFAULT_STEP;
	to = size - used > step ? used + step : size;
	/* (outward to whole pages: the first and the last hold bytes of p's,
	 * so they are mapped) */
	a = ((uintptr_t)p + *done) & ~(pg - 1);
	e = ((uintptr_t)p + to + pg - 1) & ~(pg - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
	*done = to;
#else
	(void)p;
	(void)used;
	(void)done;
	(void)size;
#endif
}

int ls_fresh(void *pp, size_t *cap, size_t n)
{
	void *p;

	if (*cap >= n)
		return 0;
	memcpy(&p, pp, sizeof(p));
	free(p);
	*cap = 0;
	p = malloc(n ? n : 1);
	memcpy(pp, &p, sizeof(p));
	if (!p)
		return -LS_ENOMEM;
	*cap = n;
	ls_prefault(p, n);
	return 0;
}

/* The capacity, doubled from first (or alloc) until it holds need, and
 * at most max; 0 if there is none. */
static size_t grown(size_t alloc, size_t need, size_t first, size_t max)
{
	size_t cap = alloc ? alloc : first ? first : 1;

	if (need > max)
		return 0;
	while (cap < need)
		cap = cap > max / 2 ? max : cap * 2;
	return cap;
}

/* Reallocates the array *parr of old elements to cap.  A large one goes
 * to a new block whose pages are mapped in at once before the copy
 * (ls_prefault()): realloc() would fault each page of its copy alone,
 * and the room after it as it is written (the halves' logs of base64
 * xz at two jobs: 3,300 faults).  Half of it at most stays unwritten:
 * a page mapped in costs half a fault here. */
static int resize(void *parr, size_t old, size_t cap, size_t elem)
{
	void *p, *np;

	memcpy(&p, parr, sizeof(p));
	if (elem && cap <= SIZE_MAX / elem && cap * elem >= LS_PREFAULT_STEP) {
		if (!(np = malloc(cap * elem)))
			return -LS_ENOMEM;
		ls_prefault(np, cap * elem);
		if (old && p)
			memcpy(np, p, (old < cap ? old : cap) * elem);
		free(p);
	} else if (!(np = ls_reallocarray(p, cap, elem))) {
		return -LS_ENOMEM;
	}
	memcpy(parr, &np, sizeof(np));
	return 0;
}

int ls_grow(void *parr, size_t need, size_t *alloc, size_t elem, size_t first)
{
	size_t cap;

	if (need <= *alloc)
		return 0;
	cap = grown(*alloc, need, first, elem ? SIZE_MAX / elem : SIZE_MAX);
	if (!cap || resize(parr, *alloc, cap, elem))
		return -LS_ENOMEM;
	*alloc = cap;
	return 0;
}

int ls_grow32(void *parr, uint32_t need, uint32_t *alloc, size_t elem,
	      uint32_t first)
{
	size_t max = elem && SIZE_MAX / elem < UINT32_MAX ? SIZE_MAX / elem : UINT32_MAX;
	size_t cap;

	if (need <= *alloc)
		return 0;
	cap = grown(*alloc, need, first, max);
	if (!cap || resize(parr, *alloc, cap, elem))
		return -LS_ENOMEM;
	*alloc = (uint32_t)cap;
	return 0;
}
