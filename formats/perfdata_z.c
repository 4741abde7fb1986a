/* perfdata_z.c - the records inside PERF_RECORD_COMPRESSED (perf record -z).
 *
 * perf compresses the ring-buffer data with one zstd stream for the whole
 * session (tools/perf/util/zstd.c: ZSTD_compressStream + ZSTD_flushStream,
 * never ending a frame), cut into records of at most 64 KiB; a record
 * inside may straddle two COMPRESSED records.  So one DStream lives as long
 * as the file, and the bytes of a record not yet complete wait in zout.
 * Memory stays bounded: one compressed record in, at most ZOUT_CAP out. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ls_err.h"
#include "formats/perfdata_int.h"

#define ZOUT_CAP (2 * LSPD_REC_MAX_SIZE)

/* Takes the payload of the COMPRESSED (81) or COMPRESSED2 (83) record r,
 * already read into f->rec.  COMPRESSED2 adds a data_size word and pads
 * the record to 8 bytes.  Returns 0, -LS_ENOMEM or -LS_ECORRUPT. */
int lspd_z_feed(struct lspd_file *f, const struct lspd_record *r)
{
	const uint8_t *p = r->data + 8;
	size_t len = r->size - 8u;

	if (r->type == LSPD_REC_COMPRESSED2) {
		uint64_t dsz = len >= 8 ? lspd_get64(p) : UINT64_MAX;

		if (dsz > len - 8)
			return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
					 "data_size %llu does not fit in its %u bytes",
					 (unsigned long long)dsz, r->size);
		p += 8;
		len = (size_t)dsz;
	}
	if (!f->zds) {
		f->zds = ZSTD_createDStream();
		f->zin = malloc(LSPD_REC_MAX_SIZE);
		f->zout = malloc(ZOUT_CAP);
		if (!f->zds || !f->zin || !f->zout)
			return -LS_ENOMEM;
		ZSTD_initDStream(f->zds);
	}
	if (f->zin_pos < f->zin_len)	/* lspd_z_next drains before reading on */
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
				 "previous compressed data not consumed");
	memcpy(f->zin, p, len);
	f->zin_len = len;
	f->zin_pos = 0;
	f->zflushed = 0;
	f->zrec_offset = r->offset;
	f->zrec_type = r->type;
	return 0;
}

/* Next record from the decompressed bytes.  Returns 1 with *r filled, 0
 * when more compressed input is needed, or -LS_EZSTD, -LS_ECORRUPT,
 * -LS_EUNSUP and what lspd_decode() returns. */
int lspd_z_next(struct lspd_file *f, struct lspd_record *r)
{
	uint8_t *rec = (uint8_t *)f->rec;

	if (!f->zds)
		return 0;
	for (;;) {
		size_t avail = f->zout_len - f->zout_off;
		ZSTD_outBuffer out;
		ZSTD_inBuffer in;
		size_t ret;
		int err;

		if (avail >= 8) {
			const uint8_t *h = f->zout + f->zout_off;
			uint16_t size = lspd_get16(h + 6);

			if (size < 8)
				return lspd_fail(f, LS_ECORRUPT, f->zrec_type,
						 f->zrec_offset,
						 "holds a record of size %u, below the 8-byte header",
						 size);
			if (avail >= size) {
				memcpy(rec, h, size);
				f->zout_off += size;
				memset(r, 0, sizeof(*r));
				r->type = lspd_get32(rec);
				r->misc = lspd_get16(rec + 4);
				r->size = size;
				/* Messages name the COMPRESSED record that holds it. */
				r->offset = f->rec_offset = f->zrec_offset;
				r->data = rec;
				if (r->type == LSPD_REC_AUXTRACE ||
				    r->type == LSPD_REC_HEADER_TRACING_DATA ||
				    r->type == LSPD_REC_COMPRESSED ||
				    r->type == LSPD_REC_COMPRESSED2)
					return lspd_fail(f, LS_EUNSUP, f->zrec_type,
							 f->zrec_offset,
							 "holds a record of type %u, which perf never compresses",
							 (unsigned)r->type);
				err = lspd_decode(f, r);
				return err < 0 ? err : 1;
			}
		}
		if (f->zin_pos == f->zin_len && f->zflushed)
			return 0;
		memmove(f->zout, f->zout + f->zout_off, avail);
		f->zout_len = avail;
		f->zout_off = 0;
		out.dst = f->zout;
		out.size = ZOUT_CAP;
		out.pos = avail;
		in.src = f->zin;
		in.size = f->zin_len;
		in.pos = f->zin_pos;
		ret = ZSTD_decompressStream(f->zds, &out, &in);
		if (ZSTD_isError(ret))
			return lspd_fail(f, LS_EZSTD, f->zrec_type, f->zrec_offset,
					 "zstd: %s", ZSTD_getErrorName(ret));
		f->zin_pos = in.pos;
		f->zout_len = out.pos;
		/* Output room left over means zstd has flushed all it can. */
		f->zflushed = out.pos < out.size;
	}
}

/* Returns 0, or -LS_ETRUNC when the data ends inside a compressed record. */
int lspd_z_end(struct lspd_file *f)
{
	if (f->zds && f->zout_len > f->zout_off)
		return lspd_fail(f, LS_ETRUNC, f->zrec_type, f->zrec_offset,
				 "the data ends %zu bytes into a record compressed here",
				 f->zout_len - f->zout_off);
	return 0;
}

void lspd_z_free(struct lspd_file *f)
{
	ZSTD_freeDStream(f->zds);
	free(f->zin);
	free(f->zout);
}
