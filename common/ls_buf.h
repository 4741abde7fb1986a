/* ls_buf.h - growable byte buffers and arrays, little-endian and LEB128
 * coding.
 *
 * Writers append with ls_buf_put_*(); readers decode from a bounded
 * [p, end) range with ls_get_*(), which never read past end and return
 * -LS_ECORRUPT when the input stops early or a value does not fit.
 */
#ifndef LS_BUF_H
#define LS_BUF_H

#include <stddef.h>
#include <stdint.h>

struct ls_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

#define LS_BUF_INIT { NULL, 0, 0 }

void ls_buf_init(struct ls_buf *b);
void ls_buf_release(struct ls_buf *b);
/* Makes room for n more bytes.  Returns 0 or -LS_ENOMEM. */
int ls_buf_reserve(struct ls_buf *b, size_t n);
int ls_buf_add(struct ls_buf *b, const void *data, size_t n);
int ls_buf_put_u8(struct ls_buf *b, uint8_t v);
int ls_buf_put_le32(struct ls_buf *b, uint32_t v);
int ls_buf_put_le64(struct ls_buf *b, uint64_t v);
int ls_buf_put_uleb(struct ls_buf *b, uint64_t v);
int ls_buf_put_sleb(struct ls_buf *b, int64_t v);
/* Drops the first n bytes (n <= len). */
void ls_buf_consume(struct ls_buf *b, size_t n);

/* Growing arrays (git's ALLOC_GROW).  LS_GROW(arr, need, alloc, first)
 * makes room for `need` elements in arr, whose capacity in elements is
 * alloc (a size_t; LS_GROW32 for a uint32_t): the capacity doubles, from
 * `first` when it is 0, until it holds need.  arr and alloc change only
 * on success; the new elements are not initialized.  Returns 0, or
 * -LS_ENOMEM when out of memory or when the bytes (or, for LS_GROW32, the
 * capacity) would overflow.  The room already there is checked inline:
 * most calls (a pool's next element) need no call at all; need and alloc
 * are evaluated twice, so neither may have side effects. */
#define LS_GROW(arr, need, alloc, first) \
	((size_t)(need) <= (alloc) ? 0 : \
	 ls_grow(&(arr), (need), &(alloc), sizeof(*(arr)), (first)))
#define LS_GROW32(arr, need, alloc, first) \
	((uint64_t)(need) <= (alloc) ? 0 : \
	 ls_grow32(&(arr), (need), &(alloc), sizeof(*(arr)), (first)))
/* parr points at the array pointer (any T **). */
int ls_grow(void *parr, size_t need, size_t *alloc, size_t elem, size_t first);
int ls_grow32(void *parr, uint32_t need, uint32_t *alloc, size_t elem,
	      uint32_t first);
/* realloc(p, n * elem), NULL (p untouched) when the product overflows. */
void *ls_reallocarray(void *p, size_t n, size_t elem);
/* Asks the kernel to map in, at once, the pages wholly inside [p, p + n)
 * of memory about to be written whole (a chunk's buffer): one call
 * rather than a fault a page (MADV_POPULATE_WRITE, Linux 5.14; on a VM
 * whose page faults trap to its host, half their cost here).  Does
 * nothing where the kernel cannot; the memory stays what it was. */
void ls_prefault(void *p, size_t n);
/* realloc(p, n * elem) for an array of old elements that grows, the
 * elements past old zero: a new block whose pages are mapped in at once
 * (ls_prefault()) before the old ones are copied and the rest cleared,
 * where realloc() and a memset() would fault each page of the copy and
 * of the new room in alone.  NULL (p untouched) when out of memory or
 * the product overflows; free() it as any other. */
void *ls_zgrow(void *p, size_t old, size_t n, size_t elem);
/* calloc(n, elem) for a table about to be written all over (a hash
 * table, a bitmap): its pages mapped in at once, then cleared. */
static inline void *ls_zalloc(size_t n, size_t elem)
{
	return ls_zgrow(NULL, 0, n, elem);
}
/* For memory [p, p + size) written from its start on (an array that
 * grows by appending, a bump allocator), with its first *done bytes
 * prefaulted: where used passes *done, maps in at once the pages of
 * the next stretch (up to used and an eighth more, at least
 * LS_PREFAULT_STEP bytes, at most size) and sets *done to its end.  A
 * page then costs a share of one call rather than a fault of its own,
 * and an eighth of what is used at most is mapped in unused. */
#define LS_PREFAULT_STEP ((size_t)64 << 10)
/* (ls_prefault_ahead()'s call, where used passes *done) */
void ls_prefault_more(void *p, size_t used, size_t *done, size_t size);
static inline void ls_prefault_ahead(void *p, size_t used, size_t *done, size_t size)
{
	if (used > *done)	/* (most calls: inline, no call) */
		ls_prefault_more(p, used, done, size);
}
/* A scratch buffer *pp (any T *) of *cap bytes, whose bytes are not
 * needed, made at least n bytes: freed and allocated again where it is
 * smaller (no copy, as realloc() makes), its pages then mapped in at once
 * (about to be written whole: a chunk read into it).  Returns 0, or
 * -LS_ENOMEM (*pp NULL, *cap 0). */
int ls_fresh(void *pp, size_t *cap, size_t n);

/* Fixed-width little-endian access to memory the caller has checked. */
static inline uint16_t ls_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ls_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ls_le64(const uint8_t *p)
{
	return (uint64_t)ls_le32(p) | (uint64_t)ls_le32(p + 4) << 32;
}

static inline void ls_st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ls_st32(uint8_t *p, uint32_t v)
{
	ls_st16(p, (uint16_t)v);
	ls_st16(p + 2, (uint16_t)(v >> 16));
}

static inline void ls_st64(uint8_t *p, uint64_t v)
{
	ls_st32(p, (uint32_t)v);
	ls_st32(p + 4, (uint32_t)(v >> 32));
}

/* Bounded decoders: advance *p, never beyond end. */
int ls_get_u8(const uint8_t **p, const uint8_t *end, uint8_t *v);
int ls_get_le32(const uint8_t **p, const uint8_t *end, uint32_t *v);
int ls_get_le64(const uint8_t **p, const uint8_t *end, uint64_t *v);
int ls_get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
int ls_get_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);
/* Points *data at the next n bytes. */
int ls_get_bytes(const uint8_t **p, const uint8_t *end, size_t n,
		 const uint8_t **data);

#endif
