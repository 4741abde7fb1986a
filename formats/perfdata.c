/* perfdata.c - perf.data reader: input, file header, attrs, features and
 * the record loop.  Record bodies are decoded in perfdata_rec.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "ls_err.h"
#include "formats/perfdata_int.h"

#define PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ull
#define FILE_HEADER_SIZE 104u	/* magic, size, attr_size, 3 sections, bitmap */
#define PIPE_HEADER_SIZE 16u

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2", [PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_names[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA",
	"HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
	"AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
	"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE",
	"COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
};

const char *lspd_type_name(uint32_t type, char *buf, size_t cap)
{
	const char *s = NULL;

	if (type < sizeof(kernel_names) / sizeof(kernel_names[0]))
		s = kernel_names[type];
	else if (type >= 64 && type - 64 < sizeof(user_names) / sizeof(user_names[0]))
		s = user_names[type - 64];
	if (s)
		return s;
	snprintf(buf, cap, "type %" PRIu32, type);
	return buf;
}

int lspd_fail(struct lspd_file *f, int err, uint32_t type, uint64_t off,
	      const char *fmt, ...)
{
	char what[200], tb[24];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (type == UINT32_MAX)
		snprintf(f->errmsg, sizeof(f->errmsg), "%s: %s at offset %" PRIu64
			 " (0x%" PRIx64 ")", f->name, what, off, off);
	else
		snprintf(f->errmsg, sizeof(f->errmsg), "%s: %s record at offset %"
			 PRIu64 " (0x%" PRIx64 "): %s", f->name,
			 lspd_type_name(type, tb, sizeof(tb)), off, off, what);
	return -err;
}

const char *lspd_errmsg(const struct lspd_file *f)
{
	return f && f->errmsg[0] ? f->errmsg : "no error";
}

/* Sequential input.  Returns the bytes read (< n only at end of input) or
 * -LS_EIO. */
static int64_t rd_read(struct lspd_file *f, void *dst, size_t n)
{
	uint8_t *d = dst;
	size_t done = 0;

	while (done < n) {
		if (f->rd_off == f->rd_len) {
			ssize_t k;

			if (n - done >= LSPD_RDBUF) {
				/* Large payloads bypass the buffer. */
				k = read(f->fd, d + done, n - done);
				if (k < 0 && errno == EINTR)
					continue;
				if (k < 0)
					return lspd_fail(f, LS_EIO, UINT32_MAX, f->pos,
							 "read failed: %s", strerror(errno));
				if (k == 0)
					break;
				done += (size_t)k;
				f->pos += (uint64_t)k;
				continue;
			}
			k = read(f->fd, f->rdbuf, LSPD_RDBUF);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return lspd_fail(f, LS_EIO, UINT32_MAX, f->pos,
						 "read failed: %s", strerror(errno));
			if (k == 0)
				break;
			f->rd_len = (size_t)k;
			f->rd_off = 0;
		}
		{
			size_t c = f->rd_len - f->rd_off;

			if (c > n - done)
				c = n - done;
			memcpy(d + done, f->rdbuf + f->rd_off, c);
			f->rd_off += c;
			done += c;
			f->pos += c;
		}
	}
	return (int64_t)done;
}

/* Random access for the file-mode header parts. */
static int rd_pread(struct lspd_file *f, void *dst, size_t n, uint64_t off,
		    const char *what)
{
	size_t done = 0;

	if (f->file_size && (off > f->file_size || n > f->file_size - off))
		return lspd_fail(f, LS_ETRUNC, UINT32_MAX, off,
				 "%s (%zu bytes) extends past the end of the file (%" PRIu64
				 " bytes)", what, n, f->file_size);
	while (done < n) {
		ssize_t k = pread(f->fd, (uint8_t *)dst + done, n - done,
				  (off_t)(off + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return lspd_fail(f, LS_EIO, UINT32_MAX, off, "reading %s: %s",
					 what, strerror(errno));
		if (k == 0)
			return lspd_fail(f, LS_ETRUNC, UINT32_MAX, off,
					 "%s is cut short", what);
		done += (size_t)k;
	}
	return 0;
}

static int read_file_attrs(struct lspd_file *f, uint64_t attr_size,
			   uint64_t off, uint64_t size)
{
	uint8_t *buf;
	uint64_t n, i;
	int err = 0;

	if (attr_size < 16 + 64 || attr_size > 4096)
		return lspd_fail(f, LS_ECORRUPT, UINT32_MAX, 16,
				 "bad attr entry size %" PRIu64, attr_size);
	n = size / attr_size;
	if (size % attr_size || n > LSPD_MAX_ATTRS)
		return lspd_fail(f, LS_ECORRUPT, UINT32_MAX, 24,
				 "attr section size %" PRIu64 " is not a whole number of %"
				 PRIu64 "-byte entries (at most %u)", size, attr_size,
				 LSPD_MAX_ATTRS);
	f->attrs = calloc(n ? n : 1, sizeof(*f->attrs));
	buf = malloc(attr_size);
	if (!f->attrs || !buf) {
		free(buf);
		return -LS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint64_t ids_off, ids_size, k;
		uint64_t eoff = off + i * attr_size;

		err = rd_pread(f, buf, attr_size, eoff, "attr section");
		if (err < 0)
			break;
		err = lspd_parse_attr(f, buf, attr_size - 16, &f->attrs[i], eoff);
		if (err < 0)
			break;
		f->nattrs = i + 1;
		ids_off = lspd_get64(buf + attr_size - 16);
		ids_size = lspd_get64(buf + attr_size - 8);
		if (ids_size % 8 || ids_size / 8 > LSPD_MAX_IDS) {
			err = lspd_fail(f, LS_ECORRUPT, UINT32_MAX, eoff,
					"attr %" PRIu64 " has a bad id list size %" PRIu64,
					i, ids_size);
			break;
		}
		for (k = 0; k < ids_size / 8; k++) {
			uint8_t idb[8];

			err = rd_pread(f, idb, 8, ids_off + k * 8, "attr id list");
			if (err < 0)
				goto out;
			err = lspd_add_id(f, lspd_get64(idb), (uint32_t)i);
			if (err < 0)
				goto out;
		}
	}
out:
	free(buf);
	return err < 0 ? err : 0;
}

static int read_features(struct lspd_file *f, uint64_t sec_off,
			 const uint64_t bits[4])
{
	unsigned feat;
	uint64_t idx = 0;
	int err;

	for (feat = 0; feat < LSPD_FEAT_MAX; feat++) {
		uint8_t sec[16];
		uint64_t off, size;
		uint8_t *buf;

		if (!(bits[feat / 64] >> (feat % 64) & 1))
			continue;
		err = rd_pread(f, sec, 16, sec_off + 16 * idx++, "feature table");
		if (err < 0)
			return err;
		if (feat == LSPD_FEAT_TRACING_DATA ||
		    (feat != LSPD_FEAT_BUILD_ID && feat != LSPD_FEAT_EVENT_DESC &&
		     (feat > LSPD_FEAT_CPUID || feat == LSPD_FEAT_NRCPUS)))
			continue;	/* not needed: skipped unread */
		off = lspd_get64(sec);
		size = lspd_get64(sec + 8);
		if (size > LSPD_SECTION_MAX)
			return lspd_fail(f, LS_ELIMIT, UINT32_MAX, sec_off,
					 "feature %u section of %" PRIu64 " bytes exceeds %u",
					 feat, size, LSPD_SECTION_MAX);
		buf = malloc(size ? size : 1);
		if (!buf)
			return -LS_ENOMEM;
		err = rd_pread(f, buf, size, off, "feature section");
		if (err >= 0)
			err = lspd_parse_feature(f, feat, buf, size, off);
		free(buf);
		if (err < 0)
			return err;
	}
	return 0;
}

static int open_file_mode(struct lspd_file *f, const uint8_t *h16)
{
	uint8_t h[FILE_HEADER_SIZE];
	uint64_t hsize, attr_size, data_off, data_size, attrs_off, attrs_size;
	uint64_t feat[4];
	int err, i;

	hsize = lspd_get64(h16 + 8);
	if (hsize < FILE_HEADER_SIZE)
		return lspd_fail(f, LS_EFORMAT, UINT32_MAX, 8,
				 "file header size %" PRIu64 " is below %u", hsize,
				 FILE_HEADER_SIZE);
	err = rd_pread(f, h, sizeof(h), 0, "file header");
	if (err < 0)
		return err;
	attr_size = lspd_get64(h + 16);
	attrs_off = lspd_get64(h + 24);
	attrs_size = lspd_get64(h + 32);
	data_off = lspd_get64(h + 40);
	data_size = lspd_get64(h + 48);
	for (i = 0; i < 4; i++)
		feat[i] = f->features[i] = lspd_get64(h + 72 + 8 * i);
	if (data_off > f->file_size)
		return lspd_fail(f, LS_ETRUNC, UINT32_MAX, 40,
				 "data section starts at %" PRIu64 ", past the end of the file (%"
				 PRIu64 " bytes)", data_off, f->file_size);
	err = read_file_attrs(f, attr_size, attrs_off, attrs_size);
	if (err < 0)
		return err;
	/* perf leaves data.size 0 when a recording was interrupted; like perf
	 * we then read to the end of the file. */
	if (data_size == 0)
		data_size = f->file_size - data_off;
	if (data_size > UINT64_MAX - data_off)
		return lspd_fail(f, LS_ECORRUPT, UINT32_MAX, 48,
				 "data section size %" PRIu64 " overflows", data_size);
	f->data_end = data_off + data_size;
	/* A file cut short loses its feature sections first; the records up
	 * to the cut are still readable, and the record loop reports where the
	 * data ends, so features past the end are not an open error. */
	if (f->data_end <= f->file_size) {
		err = read_features(f, f->data_end, feat);
		if (err < 0)
			return err;
	}
	if (lseek(f->fd, (off_t)data_off, SEEK_SET) < 0)
		return lspd_fail(f, LS_EIO, UINT32_MAX, data_off, "seek failed: %s",
				 strerror(errno));
	f->pos = data_off;
	return 0;
}

int lspd_open_fd(struct lspd_file **pf, int fd, const char *name)
{
	struct lspd_file *f;
	uint8_t h[PIPE_HEADER_SIZE];
	struct stat st;
	int64_t n;
	uint64_t magic;

	*pf = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -LS_ENOMEM;
	*pf = f;
	f->fd = fd;
	f->name = strdup(name ? name : "perf.data");
	f->rdbuf = malloc(LSPD_RDBUF);
	if (!f->name || !f->rdbuf)
		return -LS_ENOMEM;
	f->data_end = UINT64_MAX;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		f->file_size = (uint64_t)st.st_size;
	n = rd_read(f, h, sizeof(h));
	if (n < 0)
		return (int)n;
	if (n < (int64_t)sizeof(h))
		return lspd_fail(f, LS_EFORMAT, UINT32_MAX, 0,
				 "too short for a perf.data header (%" PRId64 " bytes)", n);
	magic = lspd_get64(h);
	if (magic == PERF_MAGIC2_SWAPPED)
		return lspd_fail(f, LS_EUNSUP, UINT32_MAX, 0,
				 "big-endian perf.data is not supported");
	if (magic != PERF_MAGIC2)
		return lspd_fail(f, LS_EFORMAT, UINT32_MAX, 0,
				 "not a perf.data file (bad magic)");
	if (lspd_get64(h + 8) == PIPE_HEADER_SIZE) {
		f->pipe = 1;
		return 0;
	}
	if (!f->file_size)
		return lspd_fail(f, LS_EFORMAT, UINT32_MAX, 8,
				 "a file-mode perf.data needs a seekable file");
	f->rd_len = f->rd_off = 0;
	return open_file_mode(f, h);
}

int lspd_open(struct lspd_file **pf, const char *path)
{
	int fd, err;

	*pf = NULL;
	if (!strcmp(path, "-")) {
		err = lspd_open_fd(pf, 0, "<stdin>");
		return err;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		*pf = calloc(1, sizeof(**pf));
		if (!*pf)
			return -LS_ENOMEM;
		(*pf)->fd = -1;
		snprintf((*pf)->errmsg, sizeof((*pf)->errmsg), "%s: %s", path,
			 strerror(e));
		return e == ENOENT ? -LS_ENOENT : -LS_EIO;
	}
	err = lspd_open_fd(pf, fd, path);
	if (*pf)
		(*pf)->own_fd = 1;
	else
		close(fd);
	return err;
}

/* One attr per sample_type a sideband record may have. */
static int pevent_attrs(struct lspd_file *f, uint64_t sample_type,
			const struct lspd_pevent_config *cfg, size_t ncfg)
{
	size_t i, n = ncfg ? ncfg : 1;
	int err;

	if (n > LSPD_MAX_ATTRS)
		return lspd_fail(f, LS_ELIMIT, UINT32_MAX, 0,
				 "more than %u sample configurations", LSPD_MAX_ATTRS);
	f->attrs = calloc(n, sizeof(*f->attrs));
	if (!f->attrs)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		f->attrs[i].sample_type = ncfg ? cfg[i].sample_type : sample_type;
		f->attrs[i].sample_id_all = 1;
		f->nattrs = i + 1;
		if (ncfg && (err = lspd_add_id(f, cfg[i].id, (uint32_t)i)) < 0)
			return err;
	}
	return 0;
}

int lspd_open_pevent(struct lspd_file **pf, const char *path, uint64_t from,
		     uint64_t to, uint64_t sample_type,
		     const struct lspd_pevent_config *cfg, size_t ncfg)
{
	struct lspd_file *f;
	struct stat st;
	int fd, err;

	*pf = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -LS_ENOMEM;
	*pf = f;
	f->fd = -1;
	f->name = strdup(path);
	f->rdbuf = malloc(LSPD_RDBUF);
	if (!f->name || !f->rdbuf)
		return -LS_ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(f->errmsg, sizeof(f->errmsg), "%s: %s", path, strerror(e));
		return e == ENOENT ? -LS_ENOENT : -LS_EIO;
	}
	f->fd = fd;
	f->own_fd = 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return lspd_fail(f, LS_EIO, UINT32_MAX, 0, "not a regular file");
	f->file_size = (uint64_t)st.st_size;
	if (!to)
		to = f->file_size;
	if (to > f->file_size || from > to)
		return lspd_fail(f, LS_EINVAL, UINT32_MAX, from,
				 "range 0x%" PRIx64 "-0x%" PRIx64 " is not inside its %" PRIu64
				 " bytes", from, to, f->file_size);
	err = pevent_attrs(f, sample_type, cfg, ncfg);
	if (err < 0)
		return err;
	if (lseek(fd, (off_t)from, SEEK_SET) < 0)
		return lspd_fail(f, LS_EIO, UINT32_MAX, from, "seek failed: %s",
				 strerror(errno));
	f->pos = from;
	f->data_end = to;
	return 0;
}

void lspd_close(struct lspd_file *f)
{
	size_t i;

	if (!f)
		return;
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	for (i = 0; i < f->nattrs; i++)
		free(f->attrs[i].name);
	for (i = 0; i < f->nbids; i++)
		free(f->bids[i].filename);
	for (i = 0; i < sizeof(f->strfeat) / sizeof(f->strfeat[0]); i++)
		free(f->strfeat[i]);
	lspd_z_free(f);
	free(f->attrs);
	free(f->ids);
	free(f->bids);
	free(f->rdbuf);
	free(f->name);
	free(f);
}

/* Skips what is left of the current payload. */
static int skip_payload(struct lspd_file *f)
{
	uint8_t tmp[4096];

	if (f->aux_left && !f->pipe) {
		size_t buffered = f->rd_len - f->rd_off;

		if (f->aux_left <= buffered) {
			f->rd_off += (size_t)f->aux_left;
			f->pos += f->aux_left;
			f->aux_left = 0;
			return 0;
		}
		/* Seek instead of reading the bytes. */
		if (lseek(f->fd, (off_t)f->aux_end, SEEK_SET) < 0)
			return lspd_fail(f, LS_EIO, UINT32_MAX, f->pos,
					 "seek failed: %s", strerror(errno));
		f->rd_off = f->rd_len = 0;
		f->pos = f->aux_end;
		f->aux_left = 0;
		return 0;
	}
	while (f->aux_left) {
		int64_t n = lspd_read_aux(f, tmp, sizeof(tmp));

		if (n < 0)
			return (int)n;
	}
	return 0;
}

int64_t lspd_read_aux(struct lspd_file *f, void *buf, size_t cap)
{
	int64_t n;

	if (!f->aux_left)
		return 0;
	if (cap > f->aux_left)
		cap = (size_t)f->aux_left;
	n = rd_read(f, buf, cap);
	if (n < 0)
		return n;
	f->aux_left -= (uint64_t)n;
	if ((size_t)n < cap)
		return lspd_fail(f, LS_ETRUNC, f->aux_type,
				 f->rec_offset, "payload cut short: %" PRIu64
				 " of its bytes are missing", f->aux_left + (cap - (size_t)n));
	return n;
}

/* The next record of the data section itself. */
static int next_outer(struct lspd_file *f, struct lspd_record *r)
{
	uint8_t *rec = (uint8_t *)f->rec;
	uint64_t off;
	uint32_t size;
	int64_t n;
	int err;

	err = skip_payload(f);
	if (err < 0)
		return err;
	memset(r, 0, sizeof(*r));
	off = f->pos;
	if (off >= f->data_end)
		return 0;
	if (!f->pipe && f->data_end - off < 8)
		return lspd_fail(f, LS_ECORRUPT, UINT32_MAX, off,
				 "%" PRIu64 " stray bytes at the end of the data section",
				 f->data_end - off);
	n = rd_read(f, rec, 8);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		if (f->pipe)
			return 0;
		return lspd_fail(f, LS_ETRUNC, UINT32_MAX, off,
				 "data ends at the end of the file, %" PRIu64
				 " bytes before the end of the data section",
				 f->data_end - off);
	}
	if (n < 8)
		return lspd_fail(f, LS_ETRUNC, UINT32_MAX, off,
				 "record header cut short (%" PRId64 " of 8 bytes)", n);
	r->type = lspd_get32(rec);
	r->misc = lspd_get16(rec + 4);
	size = r->size = lspd_get16(rec + 6);
	r->offset = f->rec_offset = off;
	r->data = rec;
	if (size < 8)
		return lspd_fail(f, LS_ECORRUPT, r->type, off,
				 "record size %" PRIu32 " is below the 8-byte header", size);
	if (!f->pipe && size > f->data_end - off)
		return lspd_fail(f, LS_ECORRUPT, r->type, off,
				 "record size %" PRIu32 " runs past the end of the data section",
				 size);
	n = rd_read(f, rec + 8, size - 8);
	if (n < 0)
		return (int)n;
	if (n < size - 8)
		return lspd_fail(f, LS_ETRUNC, r->type, off,
				 "record cut short: %" PRId64 " of %" PRIu32 " bytes", n + 8,
				 size);
	err = lspd_decode(f, r);
	if (err < 0)
		return err;
	if (r->type == LSPD_REC_AUXTRACE || r->type == LSPD_REC_HEADER_TRACING_DATA) {
		uint64_t len = r->type == LSPD_REC_AUXTRACE ? r->u.auxtrace.size
			: (lspd_get32(rec + 8) + 7ull) & ~7ull;

		if (!f->pipe && len > f->data_end - f->pos)
			return lspd_fail(f, LS_ECORRUPT, r->type, off,
					 "payload of %" PRIu64 " bytes runs past the end of the data section",
					 len);
		if (!f->pipe && f->file_size && len > f->file_size - f->pos)
			return lspd_fail(f, LS_ETRUNC, r->type, off,
					 "payload of %" PRIu64 " bytes runs past the end of the file (%"
					 PRIu64 " bytes)", len, f->file_size);
		f->aux_left = len;
		f->aux_end = f->pos + len;
		f->aux_type = r->type;
	}
	return 1;
}

int lspd_next(struct lspd_file *f, struct lspd_record *r)
{
	int err;

	for (;;) {
		err = lspd_z_next(f, r);
		if (err)
			return err;
		err = next_outer(f, r);
		if (err == 0)
			return lspd_z_end(f);
		if (err < 0 || (r->type != LSPD_REC_COMPRESSED &&
				r->type != LSPD_REC_COMPRESSED2))
			return err;
		err = lspd_z_feed(f, r);
		if (err < 0)
			return err;
	}
}

int lspd_is_pipe(const struct lspd_file *f)
{
	return f->pipe;
}

size_t lspd_nattrs(const struct lspd_file *f)
{
	return f->nattrs;
}

const struct lspd_attr *lspd_attr(const struct lspd_file *f, size_t i)
{
	return i < f->nattrs ? &f->attrs[i] : NULL;
}

size_t lspd_nbuild_ids(const struct lspd_file *f)
{
	return f->nbids;
}

const struct lspd_build_id *lspd_build_id(const struct lspd_file *f, size_t i)
{
	return i < f->nbids ? &f->bids[i] : NULL;
}

const struct lspd_build_id *lspd_find_build_id(const struct lspd_file *f,
					       const char *filename)
{
	size_t i;

	for (i = 0; i < f->nbids; i++)
		if (!strcmp(f->bids[i].filename, filename))
			return &f->bids[i];
	return NULL;
}

const char *lspd_feature_string(const struct lspd_file *f,
				enum lspd_feature feat)
{
	if ((unsigned)feat >= sizeof(f->strfeat) / sizeof(f->strfeat[0]))
		return NULL;
	return f->strfeat[feat];
}
