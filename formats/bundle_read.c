/* bundle_read.c - opens trace bundles: header, index or recovery scan,
 * metadata, streams, chunks and modules; reads payloads.
 *
 * Nothing read from the file is trusted: every declared size is checked
 * against the file size and the limits of formats/bundle.md before it
 * sizes anything, and decompressed buffers grow only as zstd actually
 * produces output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle_int.h"
#include "ls_crc32.h"
#include "ls_buf.h"
#include "ls_err.h"

static const char *const sec_names[] = {
	[LSB_SEC_META] = "META",
	[LSB_SEC_STREAM] = "STREAM",
	[LSB_SEC_PTCHUNK] = "PTCHUNK",
	[LSB_SEC_MODULE] = "MODULE",
	[LSB_SEC_EVENTS] = "EVENTS",
	[LSB_SEC_SAMPLES] = "SAMPLES",
	[LSB_SEC_MEMACC] = "MEMACC",
	[LSB_SEC_INDEX] = "INDEX",
	[LSB_SEC_PTHEADS] = "PTHEADS",
};

const char *lsb_sec_name(unsigned type)
{
	if (type < sizeof(sec_names) / sizeof(sec_names[0]) && sec_names[type])
		return sec_names[type];
	return "unknown type";
}

static int rerr(struct lsb_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rerr(struct lsb_reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "'%s': ", r->path);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

static int vsec_err(struct lsb_reader *r, size_t i, int code, const char *fmt,
		    va_list ap)
{
	const struct r_sec *s = &r->secs[i];
	int n;

	n = snprintf(r->err, sizeof(r->err), "'%s': section #%zu (%s) at offset %llu: ",
		     r->path, i, lsb_sec_name(s->type),
		     (unsigned long long)s->off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	return code;
}

int lsb_rsec_err(struct lsb_reader *r, size_t i, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsec_err(r, i, code, fmt, ap);
	va_end(ap);
	return code;
}

int lsb_rsec_damaged(struct lsb_reader *r, size_t i, const char *fmt, ...)
{
	va_list ap;

	if (!r->secs[i].damaged) {
		r->secs[i].damaged = 1;
		r->st.damaged++;
	}
	va_start(ap, fmt);
	vsec_err(r, i, -LS_ECORRUPT, fmt, ap);
	va_end(ap);
	return -LS_ECORRUPT;
}

int lsb_rpread(struct lsb_reader *r, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(r->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rerr(r, -LS_EIO, "read at offset %llu: %s",
				    (unsigned long long)off, strerror(errno));
		if (n == 0)	/* the file shrank under us */
			return rerr(r, -LS_ETRUNC, "unexpected end of file at offset %llu",
				    (unsigned long long)off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Largest raw payload a section of this type may declare. */
static uint64_t sec_raw_limit(const struct lsb_reader *r, unsigned type)
{
	switch (type) {
	case LSB_SEC_META:
	case LSB_SEC_EVENTS:
	case LSB_SEC_SAMPLES:
	case LSB_SEC_MEMACC:
		return LSB_MAX_BATCH;
	case LSB_SEC_STREAM:
		return LSB_STREAM_PAYLOAD;
	case LSB_SEC_PTCHUNK:
		return LSB_MAX_CHUNK;
	case LSB_SEC_MODULE:
		return (uint64_t)LSB_MAX_MODULE + LSB_MODDESC_MAX;
	case LSB_SEC_PTHEADS:
		return LSB_MAX_HEADS;
	case LSB_SEC_INDEX:
		/* one entry per section header the file can hold */
		return r->fsize / LSB_SEC_HDR * LSB_INDEX_ENTRY;
	default:
		return UINT64_MAX;	/* never read */
	}
}

/* Decodes a section header.  Returns 0 if it is intact (magic, checksum,
 * reserved bits), else -LS_ECORRUPT with *why set. */
static int sec_decode(const uint8_t *h, uint64_t off, struct r_sec *s,
		      const char **why)
{
	if (ls_le32(h + LSB_SH_MAGIC) != LSB_SEC_MAGIC) {
		*why = "bad section magic";
		return -LS_ECORRUPT;
	}
	if (ls_le32(h + LSB_SH_HCRC) != ls_crc32(0, h, LSB_SH_HCRC)) {
		*why = "section header checksum mismatch";
		return -LS_ECORRUPT;
	}
	memset(s, 0, sizeof(*s));
	s->off = off;
	s->type = ls_le16(h + LSB_SH_TYPE);
	s->flags = ls_le16(h + LSB_SH_FLAGS);
	s->id = ls_le32(h + LSB_SH_ID);
	s->aux32 = ls_le32(h + LSB_SH_AUX32);
	s->aux64 = ls_le64(h + LSB_SH_AUX64);
	s->stored = ls_le64(h + LSB_SH_STORED);
	s->raw = ls_le64(h + LSB_SH_RAW);
	s->pcrc = ls_le32(h + LSB_SH_PCRC);
	memcpy(s->hdr, h, LSB_SEC_HDR);
	return 0;
}

static int add_sec(struct lsb_reader *r, const struct r_sec *s)
{
	if (LS_GROW(r->secs, r->nsecs + 1, r->secs_cap, 64))
		return rerr(r, -LS_ENOMEM, "out of memory for the section table");
	r->secs[r->nsecs++] = *s;
	return 0;
}

/* Checks what a header declares against the type's limits; the section's
 * extent is already known to lie within the file. */
static void sec_check(struct lsb_reader *r, size_t i)
{
	const struct r_sec *s = &r->secs[i];
	uint64_t lim = sec_raw_limit(r, s->type);

	if (s->flags & LSB_SF_RESERVED)
		lsb_rsec_damaged(r, i, "reserved flags 0x%x set", s->flags);
	else if (s->raw > lim)
		lsb_rsec_damaged(r, i, "declared size %llu exceeds the limit %llu",
				 (unsigned long long)s->raw,
				 (unsigned long long)lim);
	else if (!(s->flags & LSB_SF_ZSTD) && s->stored != s->raw)
		lsb_rsec_damaged(r, i, "stored size %llu differs from raw size %llu",
				 (unsigned long long)s->stored,
				 (unsigned long long)s->raw);
	else if ((s->flags & LSB_SF_ZSTD) && (s->stored > s->raw || !s->raw))
		lsb_rsec_damaged(r, i, "compressed size %llu with raw size %llu",
				 (unsigned long long)s->stored,
				 (unsigned long long)s->raw);
	else if (s->type == LSB_SEC_MODULE &&
		 (s->aux32 > s->raw || s->aux32 > LSB_MODDESC_MAX))
		lsb_rsec_damaged(r, i, "module descriptor of %u bytes", s->aux32);
}

/* Recovery: walks sections from the file header on and keeps each whose
 * header is intact and whose payload lies within the file.  The first
 * header that is not stops the walk: without it the next one cannot be
 * found. */
static int scan(struct lsb_reader *r, uint64_t off)
{
	uint8_t h[LSB_SEC_HDR];
	const char *why = NULL;
	struct r_sec s;
	int err, intact = 0;

	r->nsecs = 0;
	r->st.damaged = 0;
	while (r->fsize - off >= LSB_SEC_HDR) {
		if ((err = lsb_rpread(r, h, sizeof(h), off)) < 0)
			return err;
		if (sec_decode(h, off, &s, &why) < 0)
			break;
		if (s.stored > r->fsize - off - LSB_SEC_HDR) {
			intact = 1;
			break;
		}
		if (s.type == LSB_SEC_INDEX) {
			/* an index before the end was not the last thing
			 * written; it is of no use to a scan */
			off += LSB_SEC_HDR + s.stored;
			continue;
		}
		if ((err = add_sec(r, &s)) < 0)
			return err;
		sec_check(r, r->nsecs - 1);
		off += LSB_SEC_HDR + s.stored;
	}
	r->data_end = off;
	r->st.truncated_at = off;
	r->st.lost_bytes = r->fsize - off;
	if (intact)
		rerr(r, -LS_ETRUNC, "truncated: section #%zu (%s) at offset %llu needs %llu bytes, %llu present; data ends there, %llu bytes lost",
		     r->nsecs, lsb_sec_name(s.type), (unsigned long long)off,
		     (unsigned long long)(LSB_SEC_HDR + s.stored),
		     (unsigned long long)(r->fsize - off),
		     (unsigned long long)(r->fsize - off));
	else if (off < r->fsize)
		rerr(r, -LS_ETRUNC, "truncated: section #%zu at offset %llu: %s; data ends there, %llu bytes lost",
		     r->nsecs, (unsigned long long)off,
		     why ? why : "incomplete section header",
		     (unsigned long long)(r->fsize - off));
	else
		rerr(r, -LS_ETRUNC, "truncated: no index and trailer after offset %llu",
		     (unsigned long long)off);
	return 0;
}

/* Decompresses a zstd frame from src into out (growing, when fixed is
 * NULL) or fixed, producing exactly want bytes; with prefix, stops once
 * want bytes came out. */
int lsb_rsec_inflate(struct lsb_reader *r, size_t i, const uint8_t *src,
		   size_t srclen, struct ls_buf *out, uint8_t *fixed,
		   uint64_t want, int prefix)
{
	ZSTD_inBuffer in = { src, srclen, 0 };
	uint64_t got = 0;
	size_t rc = 1;
	int err;

	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	if (out)
		out->len = 0;
	while (got < want) {
		ZSTD_outBuffer o;
		size_t room;

		if (fixed) {
			o.dst = fixed + got;
			room = (size_t)(want - got);
		} else {
			/* Grow with what came out, not with what the header
			 * claims: a lying header costs at most 2x output. */
			room = out->len < (64u << 10) ? (64u << 10) : out->len;
			if (room > want - got)
				room = (size_t)(want - got);
			if ((err = ls_buf_reserve(out, room)) < 0)
				return lsb_rsec_err(r, i, err, "out of memory");
			o.dst = out->p + out->len;
		}
		o.size = room;
		o.pos = 0;
		rc = ZSTD_decompressStream(r->dctx, &o, &in);
		if (ZSTD_isError(rc))
			return lsb_rsec_damaged(r, i, "zstd: %s", ZSTD_getErrorName(rc));
		got += o.pos;
		if (out)
			out->len += o.pos;
		if (rc == 0 || (o.pos == 0 && in.pos == in.size))
			break;
	}
	if (prefix && got == want)
		return 0;
	if (got < want)
		return lsb_rsec_damaged(r, i, "payload decompresses to %llu bytes, %llu declared",
					(unsigned long long)got,
					(unsigned long long)want);
	if (rc != 0) {
		/* Output is complete: the frame must end without more. */
		uint8_t extra;
		ZSTD_outBuffer o = { &extra, 1, 0 };

		rc = ZSTD_decompressStream(r->dctx, &o, &in);
		if (ZSTD_isError(rc) || o.pos || rc != 0)
			return lsb_rsec_damaged(r, i, "payload larger than its declared %llu bytes",
						(unsigned long long)want);
	}
	if (in.pos != in.size)
		return lsb_rsec_damaged(r, i, "%zu bytes after the zstd frame",
					in.size - in.pos);
	return 0;
}

/* (bundle_int.h) */
int lsb_rsec_peek(struct lsb_reader *r, const uint8_t *src, size_t srclen,
		  struct ls_buf *out, uint64_t want)
{
	ZSTD_inBuffer in = { src, srclen, 0 };
	ZSTD_outBuffer o;
	size_t rc;
	int err;

	if (want > SIZE_MAX || (err = ls_buf_reserve(out, (size_t)want)) < 0)
		return -LS_ENOMEM;
	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	o.dst = out->p;
	o.size = (size_t)want;
	o.pos = 0;
	do {
		rc = ZSTD_decompressStream(r->dctx, &o, &in);
	} while (!ZSTD_isError(rc) && rc && o.pos < o.size && in.pos < in.size);
	out->len = o.pos;
	return !ZSTD_isError(rc) && o.pos == o.size;
}

/* Reads section i's stored bytes into r->stored and checks them against
 * the indexed header and the payload checksum. */
/* Reads section i's header and checks it against its index entry. */
static int rsec_head(struct lsb_reader *r, size_t i)
{
	struct r_sec *s = &r->secs[i];
	uint8_t h[LSB_SEC_HDR];
	int err;

	if (s->damaged)
		return -LS_ECORRUPT;	/* r->err still says why */
	if ((err = lsb_rpread(r, h, sizeof(h), s->off)) < 0)
		return err;
	if (memcmp(h, s->hdr, sizeof(h)))
		return lsb_rsec_damaged(r, i, "header differs from its index entry (declares %llu bytes stored, %llu raw; index: %llu, %llu)",
					(unsigned long long)ls_le64(h + LSB_SH_STORED),
					(unsigned long long)ls_le64(h + LSB_SH_RAW),
					(unsigned long long)s->stored,
					(unsigned long long)s->raw);
	return 0;
}

int lsb_rsec_stored(struct lsb_reader *r, size_t i)
{
	struct r_sec *s = &r->secs[i];
	int err;

	if ((err = rsec_head(r, i)) < 0)
		return err;
	r->stored.len = 0;
	/* stored <= file size and <= the type's limit, checked at open */
	if ((err = ls_buf_reserve(&r->stored, (size_t)s->stored)) < 0)
		return lsb_rsec_err(r, i, err, "out of memory");
	/* (written whole by the read: its pages at once, where new) */
	ls_prefault(r->stored.p, (size_t)s->stored);
	if ((err = lsb_rpread(r, r->stored.p, (size_t)s->stored,
			   s->off + LSB_SEC_HDR)) < 0)
		return err;
	r->stored.len = (size_t)s->stored;
	if (ls_crc32(0, r->stored.p, r->stored.len) != s->pcrc)
		return lsb_rsec_damaged(r, i, "payload checksum mismatch");
	return 0;
}

/* Bytes lsb_reader_verify() reads at a time: a section's checksum needs
 * none of it kept (the whole of a bundle's largest section, read at once,
 * cost sqlite3's `info --decode` 300 fresh pages). */
#define LSB_VERIFY_PIECE (64u << 10)

int lsb_rsec_verify(struct lsb_reader *r, size_t i)
{
	struct r_sec *s = &r->secs[i];
	uint64_t done = 0;
	uint32_t crc = 0;
	int err;

	if ((err = rsec_head(r, i)) < 0)
		return err;
	r->stored.len = 0;
	if ((err = ls_buf_reserve(&r->stored, LSB_VERIFY_PIECE)) < 0)
		return lsb_rsec_err(r, i, err, "out of memory");
	while (done < s->stored) {
		size_t n = s->stored - done < LSB_VERIFY_PIECE ?
			   (size_t)(s->stored - done) : LSB_VERIFY_PIECE;

		if ((err = lsb_rpread(r, r->stored.p, n, s->off + LSB_SEC_HDR + done)) < 0)
			return err;
		crc = ls_crc32(crc, r->stored.p, n);
		done += n;
	}
	if (crc != s->pcrc)
		return lsb_rsec_damaged(r, i, "payload checksum mismatch");
	return 0;
}

int lsb_rsec_load(struct lsb_reader *r, size_t i)
{
	struct r_sec *s = &r->secs[i];
	int err;

	if ((err = lsb_rsec_stored(r, i)) < 0)
		return err;
	if (!(s->flags & LSB_SF_ZSTD)) {
		r->raw.len = 0;
		return ls_buf_add(&r->raw, r->stored.p, r->stored.len);
	}
	return lsb_rsec_inflate(r, i, r->stored.p, r->stored.len, &r->raw, NULL, s->raw, 0);
}

/* Reads the index named by a valid trailer.  Returns 1 if the section
 * table came from it, 0 if the bundle must be scanned instead. */
static int load_index(struct lsb_reader *r, uint64_t hsize)
{
	uint8_t t[LSB_TRAILER], h[LSB_SEC_HDR];
	const char *why;
	uint64_t ioff, off, end;
	uint32_t nsec, k;
	struct r_sec is, s;
	int err;

	if (r->fsize < hsize + LSB_SEC_HDR + LSB_TRAILER)
		return 0;
	if ((err = lsb_rpread(r, t, sizeof(t), r->fsize - LSB_TRAILER)) < 0)
		return err;
	if (ls_le32(t + LSB_TR_MAGIC) != LSB_TRAILER_MAGIC ||
	    ls_le32(t + LSB_TR_CRC) != ls_crc32(0, t, LSB_TR_CRC))
		return 0;
	nsec = ls_le32(t + LSB_TR_NSEC);
	ioff = ls_le64(t + LSB_TR_INDEX);
	end = r->fsize - LSB_TRAILER;
	if (ioff < hsize || ioff > end - LSB_SEC_HDR)
		return 0;
	if ((err = lsb_rpread(r, h, sizeof(h), ioff)) < 0)
		return err;
	if (sec_decode(h, ioff, &is, &why) < 0 || is.type != LSB_SEC_INDEX ||
	    is.stored != end - ioff - LSB_SEC_HDR || is.aux32 != nsec ||
	    is.raw != (uint64_t)nsec * LSB_INDEX_ENTRY)
		return 0;
	/* Load it through the common path as a provisional section 0. */
	r->nsecs = 0;
	if ((err = add_sec(r, &is)) < 0)
		return err;
	sec_check(r, 0);
	err = lsb_rsec_load(r, 0);
	r->nsecs = 0;
	r->st.damaged = 0;
	if (err == -LS_ENOMEM || err == -LS_EIO)
		return err;
	if (err < 0)
		return 0;
	off = hsize;
	for (k = 0; k < nsec; k++) {
		const uint8_t *e = r->raw.p + (size_t)k * LSB_INDEX_ENTRY;

		/* Sections follow each other with no gap, so a scan would
		 * find the same ones. */
		if (ls_le64(e) != off || sec_decode(e + 8, off, &s, &why) < 0 ||
		    s.type == LSB_SEC_INDEX ||
		    s.stored > ioff - off - LSB_SEC_HDR)
			goto bad;
		if ((err = add_sec(r, &s)) < 0)
			return err;
		sec_check(r, r->nsecs - 1);
		off += LSB_SEC_HDR + s.stored;
	}
	if (off != ioff)
		goto bad;
	r->data_end = ioff;
	return 1;
bad:
	r->nsecs = 0;
	r->st.damaged = 0;
	return 0;
}

int lsb_is_bundle(const char *path, uint64_t *size)
{
	char h[LSB_MAGIC_LEN];
	struct stat sb;
	int fd, yes;

	if (!path)
		return -LS_EIO;
	/* (a FIFO, or a device, is not opened: an open or a read there
	 * would wait for a writer, or take what it writes) */
	if (stat(path, &sb) < 0)
		return errno == ENOENT ? -LS_ENOENT : -LS_EIO;
	if (!S_ISREG(sb.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -LS_ENOENT : -LS_EIO;
	yes = !fstat(fd, &sb) && S_ISREG(sb.st_mode) &&
	      read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
	      !memcmp(h, LSB_MAGIC, LSB_MAGIC_LEN);
	if (yes && size)
		*size = (uint64_t)sb.st_size;
	close(fd);
	return yes;
}

int lsb_reader_open(struct lsb_reader **pr, const char *path)
{
	uint8_t h[LSB_FILE_HDR_MAX];
	struct lsb_reader *r;
	struct stat sb;
	uint32_t hsize;
	size_t n;
	int err;

	if (pr)
		*pr = NULL;
	if (!pr || !path)
		return -LS_EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -LS_ENOMEM;
	r->fd = -1;
	r->path = strdup(path);
	r->dctx = ZSTD_createDCtx();
	/* A payload buffer from the start, so that an empty payload is not a
	 * NULL pointer that the parsers add 0 to. */
	if (!r->path || !r->dctx || ls_buf_reserve(&r->raw, 64) < 0) {
		lsb_reader_close(r);
		return -LS_ENOMEM;
	}
	*pr = r;
	ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, LSB_WINDOW_LOG_MAX);
	/* (O_NONBLOCK: a FIFO or a device given is refused below, not
	 * waited on; a regular file's reads ignore it) */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		if (errno == ENOENT)
			return rerr(r, -LS_ENOENT, "no such file");
		return rerr(r, -LS_EIO, "cannot open: %s", strerror(errno));
	}
	if (fstat(r->fd, &sb) < 0)
		return rerr(r, -LS_EIO, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return rerr(r, -LS_EINVAL, "not a regular file");
	r->fsize = (uint64_t)sb.st_size;
	r->st.file_size = r->fsize;

	n = r->fsize < LSB_FILE_HDR ? (size_t)r->fsize : LSB_FILE_HDR;
	if ((err = lsb_rpread(r, h, n, 0)) < 0)
		return err;
	if (memcmp(h, LSB_MAGIC, n < LSB_MAGIC_LEN ? n : LSB_MAGIC_LEN) || !n)
		return rerr(r, -LS_EFORMAT,
			    "not a loopscope trace bundle (bad magic at offset 0)");
	if (n < LSB_FILE_HDR)
		return rerr(r, -LS_ETRUNC,
			    "truncated file header at offset 0 (%zu of %d bytes)",
			    n, LSB_FILE_HDR);
	r->st.version_major = ls_le16(h + LSB_FH_MAJOR);
	r->st.version_minor = ls_le16(h + LSB_FH_MINOR);
	if (r->st.version_major != LSB_VERSION_MAJOR)
		return rerr(r, -LS_EVERSION,
			    "file header at offset 0: format version %u.%u, this loopscope reads %d.x; upgrade loopscope",
			    r->st.version_major, r->st.version_minor,
			    LSB_VERSION_MAJOR);
	hsize = ls_le32(h + LSB_FH_SIZE);
	if (hsize < LSB_FILE_HDR || hsize > LSB_FILE_HDR_MAX || hsize > r->fsize)
		return rerr(r, -LS_ECORRUPT,
			    "file header at offset 0: bad header size %u", hsize);
	if (hsize > LSB_FILE_HDR &&
	    (err = lsb_rpread(r, h + LSB_FILE_HDR, hsize - LSB_FILE_HDR,
			   LSB_FILE_HDR)) < 0)
		return err;
	if (ls_le32(h + hsize - 4) != ls_crc32(0, h, hsize - 4))
		return rerr(r, -LS_ECORRUPT,
			    "file header at offset 0: checksum mismatch");
	r->st.created = ls_le64(h + LSB_FH_CTIME);

	err = load_index(r, hsize);
	if (err < 0)
		return err;
	if (!err && (err = scan(r, hsize)) < 0)
		return err;
	return lsb_rtab_load(r);
}

void lsb_reader_close(struct lsb_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	for (i = 0; i < r->nstreams; i++)
		free(r->streams[i].chunks);
	for (i = 0; i < r->nmods; i++)
		free((char *)r->mods[i].m.path);
	free(r->meta);
	free(r->streams);
	free(r->mods);
	free(r->secs);
	ls_buf_release(&r->stored);
	ls_buf_release(&r->raw);
	ZSTD_freeDCtx(r->dctx);
	free(r->path);
	free(r);
}

const char *lsb_reader_errmsg(const struct lsb_reader *r)
{
	return r && r->err[0] ? r->err : "no error";
}

const char *lsb_reader_path(const struct lsb_reader *r)
{
	return r ? r->path : NULL;
}

void lsb_reader_stats(const struct lsb_reader *r, struct lsb_stats *st)
{
	if (r && st)
		*st = r->st;
}

int lsb_reader_verify(struct lsb_reader *r)
{
	char first[sizeof(r->err)] = "";
	size_t i;
	int err, ret = 0;

	if (!r || r->fd < 0)
		return -LS_EINVAL;
	for (i = 0; i < r->nsecs; i++) {
		if (r->secs[i].damaged) {
			err = -LS_ECORRUPT;
			lsb_rsec_err(r, i, err, "damaged");
		} else {
			err = lsb_rsec_verify(r, i);
		}
		if (err == -LS_EIO || err == -LS_ENOMEM)
			return err;
		if (err < 0 && !ret) {
			ret = err;
			memcpy(first, r->err, sizeof(first));
		}
	}
	/* The first damage is the one to report: later ones may follow
	 * from it. */
	if (ret)
		memcpy(r->err, first, sizeof(first));
	return ret;
}
