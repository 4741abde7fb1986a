/* bundle_write.c - writes trace bundles (formats/bundle.md).
 *
 * Everything is appended: each section is built in memory, compressed and
 * written with one write() loop, and its header is copied into the index
 * kept in memory until close.  Memory stays bounded: per stream at most
 * two chunk sizes of PT are pending, event/sample/memacc batches are
 * written at LSB_BATCH bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "bundle.h"
#include "bundle_int.h"
#include "ls_buf.h"
#include "ls_crc32.h"
#include "ls_err.h"

struct w_stream {
	struct lsb_stream s;
	struct ls_buf pend;	/* PT not yet in a chunk */
	size_t scanned;		/* pend[0, scanned) holds no cut point */
	uint32_t seq;		/* next chunk's */
	uint64_t offset;	/* raw stream bytes already in chunks */
	int ended;
	int heads_bad;		/* lsb_writer_opts.heads failed: no PTHEADS */
};

struct w_meta {
	char *key;
	char *value;
	int pending;		/* changed since the last META section */
};

struct w_modid {
	uint8_t len;
	uint8_t id[LSB_BUILD_ID_MAX];
};

struct lsb_writer {
	int fd;
	char *path;
	uint64_t off;		/* bytes written so far */
	int failed;		/* sticky: the first I/O error */
	uint32_t chunk_size;
	int level;
	int desc_shared;	/* lsb_writer_opts.desc_shared */
	int (*heads)(void *, uint32_t, const uint8_t *, size_t, uint64_t **, size_t *);
	void *heads_arg;
	ZSTD_CCtx *cctx;
	struct ls_buf zbuf;	/* compressed payload being written */
	struct ls_buf index;	/* LSB_INDEX_ENTRY per section */
	uint32_t nsec;
	struct w_stream *streams;
	size_t nstreams, streams_cap;
	size_t last_stream;	/* lookup cache: callers alternate little */
	struct w_meta *meta;
	size_t nmeta, meta_cap;
	struct w_modid *mods;
	size_t nmods, mods_cap;
	struct ls_buf events, samples, memacc;
	uint32_t nevents, nsamples, nmemacc, batch_seq;
	char err[512];
};

static int werr(struct lsb_writer *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int werr(struct lsb_writer *w, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(w->err, sizeof(w->err), "'%s': ", w->path);
	if (n < 0 || (size_t)n >= sizeof(w->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(w->err + n, sizeof(w->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

static int w_write(struct lsb_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;

	/* After a failed write (a full disk, a file size limit) nothing more
	 * is appended, so the file stays complete sections and one cut: a
	 * reader recovers up to the last complete one. */
	if (w->failed)
		return werr(w, w->failed, "%s", "an earlier write failed");
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = -LS_EIO;
			return werr(w, -LS_EIO, "write at offset %llu: %s",
				    (unsigned long long)w->off,
				    n < 0 ? strerror(errno) : "short write");
		}
		p += n;
		len -= (size_t)n;
		w->off += (uint64_t)n;
	}
	return 0;
}

/* Writes one section whose raw payload is a followed by b (either may be
 * empty).  Two parts so a module's descriptor and ELF bytes become one
 * frame without being copied together first; where both are there, a
 * ends the frame's first block (ZSTD_e_flush), so that a reader gets the
 * descriptor from that block alone: otherwise the block was the first
 * 128 KB of the ELF file too, decompressed at every open to list the
 * modules (lsb_reader_open() of a sqlite3 bundle: 10 modules, 13M
 * instructions of zstd and 1.6 MB read). */
static int w_section(struct lsb_writer *w, unsigned type, unsigned flags,
		     uint32_t id, uint32_t aux32, uint64_t aux64,
		     const void *a, size_t alen, const void *b, size_t blen)
{
	uint8_t h[LSB_SEC_HDR];
	uint64_t raw = (uint64_t)alen + blen;
	uint32_t crc;
	int zipped = 0, err;

	if (w->failed)
		return w->failed;
	if (raw >= LSB_TINY) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t bound = ZSTD_compressBound(raw), rc;
		int part;

		err = ls_buf_reserve(&w->zbuf, bound);
		if (err < 0)
			return werr(w, err, "out of memory compressing a %s section",
				    lsb_sec_name(type));
		ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
		ZSTD_CCtx_setPledgedSrcSize(w->cctx, raw);
		out.dst = w->zbuf.p;
		out.size = bound;
		out.pos = 0;
		for (part = 0; part < 2; part++) {
			const ZSTD_EndDirective how = part ? ZSTD_e_end :
				blen && alen && !w->desc_shared ? ZSTD_e_flush :
				ZSTD_e_continue;

			in.src = part ? b : a;
			in.size = part ? blen : alen;
			in.pos = 0;
			do {
				rc = ZSTD_compressStream2(w->cctx, &out, &in, how);
				if (ZSTD_isError(rc))
					return werr(w, -LS_EZSTD, "compressing a %s section: %s",
						    lsb_sec_name(type),
						    ZSTD_getErrorName(rc));
				/* (the bound holds any frame: no way on) */
				if (rc && out.pos == out.size)
					return werr(w, -LS_EZSTD, "compressing a %s section: "
						    "past the bound", lsb_sec_name(type));
			} while (how == ZSTD_e_continue ? in.pos < in.size : rc != 0);
		}
		/* Incompressible data is kept raw: readers then copy it. */
		if (out.pos < raw) {
			zipped = 1;
			w->zbuf.len = out.pos;
		}
	}
	if (zipped) {
		crc = ls_crc32(0, w->zbuf.p, w->zbuf.len);
		flags |= LSB_SF_ZSTD;
	} else {
		crc = ls_crc32(ls_crc32(0, a, alen), b, blen);
	}
	ls_st32(h + LSB_SH_MAGIC, LSB_SEC_MAGIC);
	ls_st16(h + LSB_SH_TYPE, (uint16_t)type);
	ls_st16(h + LSB_SH_FLAGS, (uint16_t)flags);
	ls_st32(h + LSB_SH_ID, id);
	ls_st32(h + LSB_SH_AUX32, aux32);
	ls_st64(h + LSB_SH_AUX64, aux64);
	ls_st64(h + LSB_SH_STORED, zipped ? w->zbuf.len : raw);
	ls_st64(h + LSB_SH_RAW, raw);
	ls_st32(h + LSB_SH_PCRC, crc);
	ls_st32(h + LSB_SH_HCRC, ls_crc32(0, h, LSB_SH_HCRC));

	if ((err = ls_buf_put_le64(&w->index, w->off)) < 0 ||
	    (err = ls_buf_add(&w->index, h, sizeof(h))) < 0)
		return werr(w, err, "out of memory for the index");
	w->nsec++;
	if ((err = w_write(w, h, sizeof(h))) < 0)
		return err;
	if (zipped)
		return w_write(w, w->zbuf.p, w->zbuf.len);
	if (alen && (err = w_write(w, a, alen)) < 0)
		return err;
	return blen ? w_write(w, b, blen) : 0;
}

int lsb_writer_open(struct lsb_writer **pw, const char *path,
		    const struct lsb_writer_opts *opts)
{
	struct lsb_writer *w;
	uint8_t h[LSB_FILE_HDR];
	int err;

	if (!pw || !path)
		return -LS_EINVAL;
	*pw = NULL;
	if (LS_OPTS_BAD(opts))
		return -LS_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -LS_ENOMEM;
	w->fd = -1;
	w->chunk_size = opts && opts->chunk_size ? opts->chunk_size
						 : LSB_DEFAULT_CHUNK;
	w->level = opts && opts->zstd_level ? opts->zstd_level : 3;
	w->desc_shared = opts && opts->desc_shared;
	w->heads = opts ? opts->heads : NULL;
	w->heads_arg = opts ? opts->heads_arg : NULL;
	/* Chunks reach at most twice chunk_size when no PSB comes. */
	if (w->chunk_size < LSB_MIN_CHUNK || w->chunk_size > LSB_MAX_CHUNK / 2 ||
	    w->level < 1 || w->level > LSB_ZSTD_LEVEL_MAX) {
		free(w);
		return -LS_EINVAL;
	}
	w->path = strdup(path);
	w->cctx = ZSTD_createCCtx();
	if (!w->path || !w->cctx) {
		err = -LS_ENOMEM;
		goto fail;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
	/* Truncated only once locked: a second writer of the same path
	 * refuses instead of interleaving its sections with the first's. */
	w->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -LS_EIO;
		goto fail;
	}
	if (flock(w->fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -LS_EEXIST : -LS_EIO;
		goto fail;
	}
	if (ftruncate(w->fd, 0) < 0) {
		err = -LS_EIO;
		goto fail;
	}
	memset(h, 0, sizeof(h));
	memcpy(h, LSB_MAGIC, LSB_MAGIC_LEN);
	ls_st16(h + LSB_FH_MAJOR, LSB_VERSION_MAJOR);
	ls_st16(h + LSB_FH_MINOR, LSB_VERSION_MINOR);
	ls_st32(h + LSB_FH_SIZE, LSB_FILE_HDR);
	ls_st32(h + LSB_FH_FLAGS, 0);
	ls_st64(h + LSB_FH_CTIME, (uint64_t)time(NULL));
	ls_st32(h + LSB_FH_CRC, ls_crc32(0, h, LSB_FH_CRC));
	err = w_write(w, h, sizeof(h));
	if (err < 0)
		goto fail;
	*pw = w;
	return 0;
fail:
	if (w->fd >= 0) {
		int e = errno;

		close(w->fd);
		errno = e;
	}
	ZSTD_freeCCtx(w->cctx);
	free(w->path);
	free(w);
	return err;
}

int lsb_writer_busy(const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1, busy = 0;

	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		busy = errno == EWOULDBLOCK;
	close(fd);	/* drops our lock, if we got it */
	return busy;
}

int lsb_writer_error(const struct lsb_writer *w)
{
	return w ? w->failed : -LS_EINVAL;
}

const char *lsb_writer_errmsg(const struct lsb_writer *w)
{
	return w && w->err[0] ? w->err : "no error";
}

int lsb_writer_meta(struct lsb_writer *w, const char *key, const char *value)
{
	size_t i, klen, vlen;
	char *v;

	if (!w || !key || !value)
		return -LS_EINVAL;
	klen = strlen(key);
	vlen = strlen(value);
	if (!klen || klen > LSB_MAX_STRING || vlen > LSB_MAX_VALUE)
		return werr(w, -LS_ELIMIT, "meta key '%.64s': key or value too long",
			    key);
	v = strdup(value);
	if (!v)
		return -LS_ENOMEM;
	for (i = 0; i < w->nmeta; i++) {
		if (!strcmp(w->meta[i].key, key)) {
			free(w->meta[i].value);
			w->meta[i].value = v;
			w->meta[i].pending = 1;
			return 0;
		}
	}
	if (w->nmeta >= LSB_MAX_META) {
		free(v);
		return werr(w, -LS_ELIMIT, "more than %u meta keys", LSB_MAX_META);
	}
	if (LS_GROW(w->meta, w->nmeta + 1, w->meta_cap, 16)) {
		free(v);
		return -LS_ENOMEM;
	}
	w->meta[w->nmeta].key = strdup(key);
	if (!w->meta[w->nmeta].key) {
		free(v);
		return -LS_ENOMEM;
	}
	w->meta[w->nmeta].value = v;
	w->meta[w->nmeta].pending = 1;
	w->nmeta++;
	return 0;
}

static int w_flush_meta(struct lsb_writer *w)
{
	struct ls_buf b = LS_BUF_INIT;
	uint32_t n = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < w->nmeta && !err; i++) {
		size_t kl, vl;

		if (!w->meta[i].pending)
			continue;
		kl = strlen(w->meta[i].key);
		vl = strlen(w->meta[i].value);
		if ((err = ls_buf_put_uleb(&b, kl)) < 0 ||
		    (err = ls_buf_add(&b, w->meta[i].key, kl)) < 0 ||
		    (err = ls_buf_put_uleb(&b, vl)) < 0 ||
		    (err = ls_buf_add(&b, w->meta[i].value, vl)) < 0)
			break;
		n++;
		/* A META section stays under LSB_MAX_BATCH for readers. */
		if (b.len > LSB_MAX_BATCH - 2 * LSB_MAX_VALUE) {
			err = w_section(w, LSB_SEC_META, 0, 0, n, 0, b.p, b.len,
					NULL, 0);
			b.len = 0;
			n = 0;
		}
	}
	if (!err && n)
		err = w_section(w, LSB_SEC_META, 0, 0, n, 0, b.p, b.len, NULL, 0);
	ls_buf_release(&b);
	if (err < 0)
		return err;
	for (i = 0; i < w->nmeta; i++)
		w->meta[i].pending = 0;
	return 0;
}

static struct w_stream *w_find_stream(struct lsb_writer *w, uint32_t id)
{
	size_t i;

	if (w->last_stream < w->nstreams &&
	    w->streams[w->last_stream].s.id == id)
		return &w->streams[w->last_stream];
	for (i = 0; i < w->nstreams; i++) {
		if (w->streams[i].s.id == id) {
			w->last_stream = i;
			return &w->streams[i];
		}
	}
	return NULL;
}

int lsb_writer_stream(struct lsb_writer *w, const struct lsb_stream *s)
{
	uint8_t p[LSB_STREAM_PAYLOAD];
	struct w_stream *ws;
	int err;

	if (!w || !s)
		return -LS_EINVAL;
	if (s->kind != LSB_STREAM_THREAD && s->kind != LSB_STREAM_CPU)
		return werr(w, -LS_EINVAL, "stream %u: bad kind %u", s->id, s->kind);
	if (w_find_stream(w, s->id))
		return werr(w, -LS_EINVAL, "stream %u declared twice", s->id);
	if (LS_GROW(w->streams, w->nstreams + 1, w->streams_cap, 8))
		return -LS_ENOMEM;
	ls_st32(p, s->kind);
	ls_st32(p + 4, s->pid);
	ls_st32(p + 8, s->tid);
	ls_st32(p + 12, (uint32_t)s->cpu);
	ls_st32(p + 16, s->flags);
	err = w_section(w, LSB_SEC_STREAM, 0, s->id, 0, 0, p, sizeof(p), NULL, 0);
	if (err < 0)
		return err;
	ws = &w->streams[w->nstreams++];
	memset(ws, 0, sizeof(*ws));
	ws->s = *s;
	return 0;
}

int lsb_is_psb(const uint8_t *p)
{
	int i;

	for (i = 0; i < LSB_PSB_LEN; i += 2)
		if (p[i] != 0x02 || p[i + 1] != 0x82)
			return 0;
	return 1;
}

static int w_batch(struct lsb_writer *w, unsigned type, struct ls_buf *b,
		   uint32_t *n)
{
	int err;

	if (!b->len)
		return 0;
	err = w_section(w, type, 0, w->batch_seq++, *n, 0, b->p, b->len, NULL, 0);
	b->len = 0;
	*n = 0;
	return err;
}

/* Sideband goes out before the PT that depends on it: a bundle cut short
 * after this chunk still has every mmap needed to decode it. */
static int w_chunk(struct lsb_writer *w, struct w_stream *ws, size_t len)
{
	unsigned flags = 0;
	int err;

	err = w_batch(w, LSB_SEC_EVENTS, &w->events, &w->nevents);
	if (err < 0)
		return err;

	if (len >= LSB_PSB_LEN && lsb_is_psb(ws->pend.p))
		flags |= LSB_SF_PSB;
	err = w_section(w, LSB_SEC_PTCHUNK, flags, ws->s.id, ws->seq,
			ws->offset, ws->pend.p, len, NULL, 0);
	if (err < 0)
		return err;
	if (w->heads && !ws->heads_bad &&
	    w->heads(w->heads_arg, ws->s.id, ws->pend.p, len, NULL, NULL) < 0)
		ws->heads_bad = 1;
	ws->seq++;
	ws->offset += len;
	ls_buf_consume(&ws->pend, len);
	ws->scanned = 0;
	return 0;
}

/* Cuts chunks at the first PSB that starts in [chunk_size, 2 * chunk_size),
 * else at 2 * chunk_size (the next chunk then does not start at a PSB and
 * says so).  A cut is only made once every candidate position before it
 * has been seen whole, so chunk boundaries depend on the stream's bytes
 * alone, not on how the caller split its writes. */
static int w_cut(struct lsb_writer *w, struct w_stream *ws)
{
	size_t cs = w->chunk_size;

	while (ws->pend.len >= cs) {
		const uint8_t *p = ws->pend.p;
		size_t i = ws->scanned > cs ? ws->scanned : cs;
		size_t cut = 0;
		int err;

		for (; i < 2 * cs && i + LSB_PSB_LEN <= ws->pend.len; i++) {
			if (p[i] == 0x02 && lsb_is_psb(p + i)) {
				cut = i;
				break;
			}
		}
		if (!cut && i >= 2 * cs)
			cut = 2 * cs;
		if (!cut) {
			ws->scanned = i;
			return 0;
		}
		err = w_chunk(w, ws, cut);
		if (err < 0)
			return err;
	}
	return 0;
}

int lsb_writer_pt(struct lsb_writer *w, uint32_t stream, const void *data,
		  size_t len)
{
	const uint8_t *p = data;
	struct w_stream *ws;
	int err;

	if (!w || (!data && len))
		return -LS_EINVAL;
	ws = w_find_stream(w, stream);
	if (!ws || ws->ended)
		return werr(w, -LS_EINVAL, "PT for %s stream %u",
			    ws ? "ended" : "undeclared", stream);
	/* Feed at most a chunk at a time so pending stays under
	 * 2 * chunk_size + chunk_size however large the caller's write. */
	while (len) {
		size_t n = len < w->chunk_size ? len : w->chunk_size;

		err = ls_buf_add(&ws->pend, p, n);
		if (err < 0)
			return err;
		err = w_cut(w, ws);
		if (err < 0)
			return err;
		p += n;
		len -= n;
	}
	return 0;
}

/* The PTHEADS section of stream ws, after its last chunk: the heads the
 * callback found in its chunks, as ascending uleb deltas (the first from
 * 0), aux32 its chunks, aux64 the heads.  A callback that has none
 * leaves the stream without one (a decode then scans its packets). */
static int w_heads(struct lsb_writer *w, struct w_stream *ws)
{
	struct ls_buf b = LS_BUF_INIT;
	uint64_t *ips = NULL, prev = 0;
	size_t n = 0, i;
	int err;

	if (w->heads(w->heads_arg, ws->s.id, NULL, 0, &ips, &n) < 0 || (n && !ips)) {
		free(ips);
		return 0;
	}
	for (i = 0, err = 0; i < n && err >= 0; i++) {
		if (i && ips[i] <= prev)	/* (not the callback's promise) */
			break;
		err = ls_buf_put_uleb(&b, ips[i] - prev);
		prev = ips[i];
	}
	free(ips);
	if (err >= 0 && i == n && b.len <= LSB_MAX_HEADS)
		err = w_section(w, LSB_SEC_PTHEADS, 0, ws->s.id, ws->seq, n, b.p, b.len,
				NULL, 0);
	else if (err < 0)
		err = werr(w, err, "out of memory for the heads of stream %u", ws->s.id);
	ls_buf_release(&b);
	return err < 0 ? err : 0;
}

int lsb_writer_stream_end(struct lsb_writer *w, uint32_t stream)
{
	struct w_stream *ws;
	int err = 0;

	if (!w)
		return -LS_EINVAL;
	ws = w_find_stream(w, stream);
	if (!ws)
		return werr(w, -LS_EINVAL, "end of undeclared stream %u", stream);
	if (ws->pend.len)
		err = w_chunk(w, ws, ws->pend.len);
	ls_buf_release(&ws->pend);
	ws->ended = 1;
	if (err >= 0 && w->heads && !ws->heads_bad && ws->seq)
		err = w_heads(w, ws);
	return err;
}

static int w_find_mod(const struct lsb_writer *w, const uint8_t *id, size_t len)
{
	size_t i;

	for (i = 0; i < w->nmods; i++)
		if (w->mods[i].len == len && !memcmp(w->mods[i].id, id, len))
			return 1;
	return 0;
}

int lsb_writer_has_module(const struct lsb_writer *w, const uint8_t *build_id,
			  size_t len)
{
	if (!w || !build_id || !len || len > LSB_BUILD_ID_MAX)
		return 0;
	return w_find_mod(w, build_id, len);
}

int lsb_writer_module(struct lsb_writer *w, const struct lsb_module *m,
		      const void *elf, size_t elf_len)
{
	struct ls_buf d = LS_BUF_INIT;
	uint64_t size;
	uint32_t flags;
	size_t plen;
	int err;

	if (!w || !m || !m->path || (!elf && elf_len) ||
	    !m->build_id_len || m->build_id_len > LSB_BUILD_ID_MAX)
		return -LS_EINVAL;
	if ((m->flags & LSB_MOD_VDSO) && !elf)
		return werr(w, -LS_EINVAL, "vDSO module '%s' without its bytes",
			    m->path);
	size = elf ? elf_len : m->file_size;
	if (elf && m->file_size && m->file_size != elf_len)
		return werr(w, -LS_EINVAL, "module '%s': file_size %llu but %zu bytes",
			    m->path, (unsigned long long)m->file_size, elf_len);
	plen = strlen(m->path);
	if (plen > LSB_MAX_STRING || (elf && elf_len > LSB_MAX_MODULE))
		return werr(w, -LS_ELIMIT, "module '%.64s': path or size over the limit",
			    m->path);
	if (w_find_mod(w, m->build_id, m->build_id_len))
		return 1;
	if (LS_GROW(w->mods, w->nmods + 1, w->mods_cap, 16))
		return -LS_ENOMEM;
	flags = (m->flags & ~LSB_MOD_EMBEDDED) | (elf ? LSB_MOD_EMBEDDED : 0);
	if ((err = ls_buf_put_u8(&d, m->build_id_len)) < 0 ||
	    (err = ls_buf_add(&d, m->build_id, m->build_id_len)) < 0 ||
	    (err = ls_buf_put_le32(&d, flags)) < 0 ||
	    (err = ls_buf_put_le64(&d, size)) < 0 ||
	    (err = ls_buf_put_uleb(&d, plen)) < 0 ||
	    (err = ls_buf_add(&d, m->path, plen)) < 0)
		goto out;
	err = w_section(w, LSB_SEC_MODULE, 0, (uint32_t)w->nmods, (uint32_t)d.len,
			ls_crc32(0, d.p, d.len), d.p, d.len, elf, elf_len);
	if (err < 0)
		goto out;
	w->mods[w->nmods].len = m->build_id_len;
	memcpy(w->mods[w->nmods].id, m->build_id, m->build_id_len);
	w->nmods++;
out:
	ls_buf_release(&d);
	return err;
}

int lsb_writer_event(struct lsb_writer *w, const struct lsb_event *ev)
{
	struct ls_buf *b;
	size_t nlen = 0, mark;
	int err;

	if (!w || !ev || ev->build_id_len > LSB_BUILD_ID_MAX)
		return -LS_EINVAL;
	if (w->failed)
		return w->failed;
	if (ev->name) {
		nlen = strlen(ev->name);
		if (nlen > LSB_MAX_STRING)
			return werr(w, -LS_ELIMIT, "event name '%.64s...' too long",
				    ev->name);
	}
	b = &w->events;
	mark = b->len;
	if ((err = ls_buf_put_uleb(b, ev->type)) < 0 ||
	    (err = ls_buf_put_u8(b, ev->run)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->pid)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->tid)) < 0 ||
	    (err = ls_buf_put_sleb(b, ev->cpu)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->time)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->addr)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->len)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->pgoff)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->prot)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->arg)) < 0 ||
	    (err = ls_buf_put_u8(b, ev->build_id_len)) < 0 ||
	    (err = ls_buf_add(b, ev->build_id, ev->build_id_len)) < 0 ||
	    (err = ls_buf_put_uleb(b, ev->name ? nlen + 1 : 0)) < 0 ||
	    (err = ls_buf_add(b, ev->name, nlen)) < 0) {
		b->len = mark;	/* no half record */
		return err;
	}
	w->nevents++;
	return b->len >= LSB_BATCH ? w_batch(w, LSB_SEC_EVENTS, b, &w->nevents) : 0;
}

int lsb_writer_sample(struct lsb_writer *w, const struct lsb_sample *s)
{
	struct ls_buf *b;
	size_t mark;
	uint32_t i;
	int err;

	if (!w || !s || (s->nr_callchain && !s->callchain))
		return -LS_EINVAL;
	if (s->nr_callchain > LSB_MAX_CALLCHAIN)
		return werr(w, -LS_ELIMIT, "call chain of %u entries (limit %u)",
			    s->nr_callchain, LSB_MAX_CALLCHAIN);
	if (w->failed)
		return w->failed;
	b = &w->samples;
	mark = b->len;
	if ((err = ls_buf_put_u8(b, s->run)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->pid)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->tid)) < 0 ||
	    (err = ls_buf_put_sleb(b, s->cpu)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->time)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->ip)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->period)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->event)) < 0 ||
	    (err = ls_buf_put_uleb(b, s->nr_callchain)) < 0)
		goto fail;
	for (i = 0; i < s->nr_callchain; i++)
		if ((err = ls_buf_put_uleb(b, s->callchain[i])) < 0)
			goto fail;
	w->nsamples++;
	return b->len >= LSB_BATCH ? w_batch(w, LSB_SEC_SAMPLES, b, &w->nsamples) : 0;
fail:
	b->len = mark;
	return err;
}

int lsb_writer_memacc(struct lsb_writer *w, uint32_t stream, const void *enc,
		      size_t len)
{
	struct ls_buf *b;
	size_t mark;
	int err;

	if (!w || !enc || !len)
		return -LS_EINVAL;
	if (len > LSB_MAX_MEMACC)
		return werr(w, -LS_ELIMIT, "memory-access record of %zu bytes (limit %u)",
			    len, LSB_MAX_MEMACC);
	if (!w_find_stream(w, stream))
		return werr(w, -LS_EINVAL, "memory accesses for undeclared stream %u",
			    stream);
	if (w->failed)
		return w->failed;
	b = &w->memacc;
	mark = b->len;
	if ((err = ls_buf_put_uleb(b, stream)) < 0 ||
	    (err = ls_buf_put_uleb(b, len)) < 0 ||
	    (err = ls_buf_add(b, enc, len)) < 0) {
		b->len = mark;
		return err;
	}
	w->nmemacc++;
	return b->len >= LSB_BATCH ? w_batch(w, LSB_SEC_MEMACC, b, &w->nmemacc) : 0;
}

int lsb_writer_flush(struct lsb_writer *w)
{
	size_t i;
	int err;

	if (!w)
		return -LS_EINVAL;
	if ((err = w_flush_meta(w)) < 0 ||
	    (err = w_batch(w, LSB_SEC_EVENTS, &w->events, &w->nevents)) < 0 ||
	    (err = w_batch(w, LSB_SEC_SAMPLES, &w->samples, &w->nsamples)) < 0 ||
	    (err = w_batch(w, LSB_SEC_MEMACC, &w->memacc, &w->nmemacc)) < 0)
		return err;
	for (i = 0; i < w->nstreams; i++) {
		struct w_stream *ws = &w->streams[i];

		if (ws->pend.len && (err = w_chunk(w, ws, ws->pend.len)) < 0)
			return err;
	}
	return w->failed;
}

static int w_finish(struct lsb_writer *w)
{
	uint8_t t[LSB_TRAILER];
	uint64_t index_off;
	uint32_t nsec;
	size_t i;
	int err;

	if ((err = lsb_writer_flush(w)) < 0)
		return err;
	/* (the heads of streams never ended, after their last chunk) */
	for (i = 0; i < w->nstreams; i++) {
		struct w_stream *ws = &w->streams[i];

		if (!ws->ended && w->heads && !ws->heads_bad && ws->seq &&
		    (err = w_heads(w, ws)) < 0)
			return err;
	}
	nsec = w->nsec;
	index_off = w->off;
	err = w_section(w, LSB_SEC_INDEX, 0, 0, nsec, 0, w->index.p,
			w->index.len, NULL, 0);
	if (err < 0)
		return err;
	memset(t, 0, sizeof(t));
	ls_st32(t + LSB_TR_MAGIC, LSB_TRAILER_MAGIC);
	ls_st32(t + LSB_TR_NSEC, nsec);
	ls_st64(t + LSB_TR_INDEX, index_off);
	ls_st32(t + LSB_TR_CRC, ls_crc32(0, t, LSB_TR_CRC));
	return w_write(w, t, sizeof(t));
}

int lsb_writer_close(struct lsb_writer *w)
{
	size_t i;
	int err;

	if (!w)
		return -LS_EINVAL;
	err = w_finish(w);
	if (close(w->fd) < 0 && err >= 0)
		err = werr(w, -LS_EIO, "close: %s", strerror(errno));
	for (i = 0; i < w->nstreams; i++)
		ls_buf_release(&w->streams[i].pend);
	for (i = 0; i < w->nmeta; i++) {
		free(w->meta[i].key);
		free(w->meta[i].value);
	}
	free(w->streams);
	free(w->meta);
	free(w->mods);
	ls_buf_release(&w->zbuf);
	ls_buf_release(&w->index);
	ls_buf_release(&w->events);
	ls_buf_release(&w->samples);
	ls_buf_release(&w->memacc);
	ZSTD_freeCCtx(w->cctx);
	free(w->path);
	free(w);
	return err;
}
