/* perfdata_int.h - state shared by perfdata.c (I/O, header, features) and
 * perfdata_rec.c (record bodies).  Not a public interface. */
#ifndef LSPD_PERFDATA_INT_H
#define LSPD_PERFDATA_INT_H

#include "formats/perfdata.h"

#define LSPD_REC_MAX_SIZE 65536u	/* header.size is a u16 */
#define LSPD_SECTION_MAX (64u << 20)	/* largest feature section we load */
#define LSPD_RDBUF (64u << 10)

struct lspd_idmap {
	uint64_t id;
	uint32_t attr;
};

struct lspd_file {
	int fd;
	int own_fd;
	char *name;
	int pipe;
	uint64_t pos;		/* stream offset of the next unread byte */
	uint64_t data_end;	/* UINT64_MAX in pipe mode */
	uint64_t file_size;	/* 0 if unknown (pipe) */
	uint8_t *rdbuf;
	size_t rd_len, rd_off;

	/* The current record, 8-byte aligned for the callchain pointer. */
	uint64_t rec[LSPD_REC_MAX_SIZE / 8 + 1];
	uint64_t aux_left;	/* payload bytes of the current record unread */
	uint64_t aux_end;	/* stream offset where that payload ends */
	uint32_t aux_type;	/* AUXTRACE or HEADER_TRACING_DATA */
	uint64_t rec_offset;

	struct lspd_attr *attrs;
	size_t nattrs;
	struct lspd_idmap *ids;
	size_t nids, capids;
	int ids_sorted;

	struct lspd_build_id *bids;
	size_t nbids, capbids;
	char *strfeat[LSPD_FEAT_CPUID + 1];
	uint64_t features[4];

	/* perfdata_z.c: the zstd stream of COMPRESSED records. */
	void *zds;		/* ZSTD_DStream, NULL until the first one */
	uint8_t *zin, *zout;
	size_t zin_len, zin_pos, zout_len, zout_off;
	int zflushed;
	uint32_t zrec_type;
	uint64_t zrec_offset;

	char errmsg[320];
};

int lspd_fail(struct lspd_file *f, int err, uint32_t type, uint64_t off,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* perfdata_rec.c */
int lspd_parse_attr(struct lspd_file *f, const uint8_t *p, size_t len,
		    struct lspd_attr *a, uint64_t off);
int lspd_add_id(struct lspd_file *f, uint64_t id, uint32_t attr);
int lspd_attr_of_id(struct lspd_file *f, uint64_t id);
int lspd_decode(struct lspd_file *f, struct lspd_record *r);
int lspd_parse_feature(struct lspd_file *f, unsigned feat, const uint8_t *p,
		       size_t len, uint64_t off);

/* perfdata_z.c */
int lspd_z_feed(struct lspd_file *f, const struct lspd_record *r);
int lspd_z_next(struct lspd_file *f, struct lspd_record *r);
int lspd_z_end(struct lspd_file *f);
void lspd_z_free(struct lspd_file *f);

static inline uint64_t lspd_get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	/* perf.data is written in the recording host's byte order; we read
	 * little-endian files only (checked via the magic). */
	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint32_t lspd_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint16_t lspd_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

#endif
