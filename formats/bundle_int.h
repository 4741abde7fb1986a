/* bundle_int.h - on-disk layout shared by bundle_write.c and bundle_read.c.
 *
 * formats/bundle.md is the specification; the offsets here follow it
 * field by field.  All integers are little-endian.
 */
#ifndef LSB_BUNDLE_INT_H
#define LSB_BUNDLE_INT_H

#include <stdint.h>
#include <zstd.h>

#include "bundle.h"
#include "ls_buf.h"

/* File header: 0x89 "LSC" \r \n 0x1a \n, as PNG does, so text-mode
 * transfers and 7-bit channels show up as a bad magic. */
#define LSB_MAGIC	"\x89LSC\r\n\x1a\n"
#define LSB_MAGIC_LEN	8
#define LSB_VERSION_MAJOR 1
#define LSB_VERSION_MINOR 0
#define LSB_FILE_HDR	32	/* header_size of version 1.0 */
#define LSB_FILE_HDR_MAX 4096	/* a later minor may grow it, this far */
/* offsets in the file header */
#define LSB_FH_MAJOR	8
#define LSB_FH_MINOR	10
#define LSB_FH_SIZE	12
#define LSB_FH_FLAGS	16
#define LSB_FH_CTIME	20
#define LSB_FH_CRC	28	/* of bytes [0, header_size - 4) */

/* Section header, 48 bytes, then stored_size payload bytes. */
#define LSB_SEC_MAGIC	0x5343534cu	/* "LSCS" */
#define LSB_SEC_HDR	48
#define LSB_SH_MAGIC	0
#define LSB_SH_TYPE	4
#define LSB_SH_FLAGS	6
#define LSB_SH_ID	8
#define LSB_SH_AUX32	12
#define LSB_SH_AUX64	16
#define LSB_SH_STORED	24
#define LSB_SH_RAW	32
#define LSB_SH_PCRC	40
#define LSB_SH_HCRC	44	/* of bytes [0, 44) */

enum lsb_sec_type {
	LSB_SEC_META = 1,
	LSB_SEC_STREAM = 2,
	LSB_SEC_PTCHUNK = 3,
	LSB_SEC_MODULE = 4,
	LSB_SEC_EVENTS = 5,
	LSB_SEC_SAMPLES = 6,
	LSB_SEC_MEMACC = 7,
	LSB_SEC_INDEX = 8,
	LSB_SEC_PTHEADS = 9,
};

#define LSB_SF_ZSTD	0x0001u	/* payload is one zstd frame */
#define LSB_SF_RESERVED	0x00feu	/* must be 0 */
#define LSB_SF_PSB	0x0100u	/* PTCHUNK: starts at a PSB packet */

#define LSB_STREAM_PAYLOAD 20	/* kind, pid, tid, cpu, flags */
#define LSB_INDEX_ENTRY	(8 + LSB_SEC_HDR)	/* offset + header copy */
#define LSB_MODDESC_MAX	(1 + LSB_BUILD_ID_MAX + 4 + 8 + 2 + LSB_MAX_STRING)

/* Trailer, the last 24 bytes of a closed bundle. */
#define LSB_TRAILER_MAGIC 0x4543534cu	/* "LSCE" */
#define LSB_TRAILER	24
#define LSB_TR_MAGIC	0
#define LSB_TR_NSEC	4
#define LSB_TR_INDEX	8
#define LSB_TR_CRC	20	/* of bytes [0, 20) */

/* PSB: 02 82 repeated 8 times (Intel SDM 32.4.2.17). */
#define LSB_PSB_LEN	16

/* Writer: batches of events, samples, memory accesses are written once
 * they reach this size, bounding memory and loss on a crash. */
#define LSB_BATCH	(64u << 10)
/* Payloads shorter than this are stored raw: a zstd frame costs more
 * than it saves. */
#define LSB_TINY	64

/* Reader: largest zstd window accepted, so a hostile frame cannot make
 * zstd allocate more than 32 MiB; the writer never exceeds level 19
 * (window log 23). */
#define LSB_WINDOW_LOG_MAX 25
#define LSB_ZSTD_LEVEL_MAX 19

const char *lsb_sec_name(unsigned type);
int lsb_is_psb(const uint8_t *p);

/* Reader state, shared by bundle_read.c (open, tables, payloads) and
 * bundle_walk.c (events, samples, memory accesses). */
struct r_sec {
	uint64_t off;		/* of the section header */
	uint64_t stored, raw, aux64;
	uint32_t id, aux32, pcrc;
	uint16_t type, flags;
	uint8_t hdr[LSB_SEC_HDR];	/* as indexed, compared on read */
	uint8_t damaged;
};

struct r_stream {
	struct lsb_stream s;
	struct lsb_chunk *chunks;
	size_t nchunks, cap;
	size_t heads;		/* its PTHEADS section's index + 1, or 0 */
};

struct r_module {
	struct lsb_module m;
	size_t sec;
};

struct r_meta {
	char *key;
	char *value;
};

struct lsb_reader {
	char *path;
	int fd;
	uint64_t fsize;
	uint64_t data_end;	/* end of the last section before INDEX */
	ZSTD_DCtx *dctx;
	struct r_sec *secs;
	size_t nsecs, secs_cap;
	struct r_meta *meta;
	size_t nmeta, meta_cap;
	struct r_stream *streams;
	size_t nstreams, streams_cap;
	struct r_module *mods;
	size_t nmods, mods_cap;
	struct lsb_stats st;
	struct ls_buf stored;	/* a section's stored bytes */
	struct ls_buf raw;	/* its decompressed payload */
	char name[LSB_MAX_STRING + 1];
	uint64_t callchain[LSB_MAX_CALLCHAIN];
	char err[512];
};

/* Formats "'path': section #i (TYPE) at offset N: " + message into r->err
 * and returns code. */
int lsb_rsec_err(struct lsb_reader *r, size_t i, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Marks section i damaged and records why; returns -LS_ECORRUPT. */
int lsb_rsec_damaged(struct lsb_reader *r, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reads, checks and decompresses section i's payload into r->raw. */
int lsb_rsec_load(struct lsb_reader *r, size_t i);
/* bundle_read.c, for bundle_tab.c.  Reads len bytes at off (retrying on
 * EINTR); returns 0, -LS_EIO or -LS_ETRUNC (the file ends first), the
 * message in r->err. */
int lsb_rpread(struct lsb_reader *r, void *buf, size_t len, uint64_t off);
/* Reads section i's stored bytes into r->stored and checks them against
 * the indexed header and the payload checksum.  Returns 0 or a negative
 * LS_E* code (the section marked damaged where it is). */
int lsb_rsec_stored(struct lsb_reader *r, size_t i);
/* lsb_rsec_stored()'s checks, the payload read a piece at a time into
 * the same small buffer (LSB_VERIFY_PIECE bytes): where only its
 * checksum is wanted, no fresh pages for a whole payload.  Returns what
 * lsb_rsec_stored() returns. */
int lsb_rsec_verify(struct lsb_reader *r, size_t i);
/* Decompresses section i's zstd frame src[0 .. srclen) into out (grown),
 * or into fixed when out is NULL, producing exactly want bytes; with
 * prefix, stops once want bytes came out.  Returns 0 or a negative LS_E*
 * code (-LS_ECORRUPT for a frame that does not give want bytes). */
int lsb_rsec_inflate(struct lsb_reader *r, size_t i, const uint8_t *src,
		     size_t srclen, struct ls_buf *out, uint8_t *fixed,
		     uint64_t want, int prefix);
/* The first want bytes of a zstd frame from src[0 .. srclen) into out,
 * where those bytes hold them (nothing reported where they do not: the
 * caller reads more).  Returns 1 if so, 0 if not, or -LS_ENOMEM. */
int lsb_rsec_peek(struct lsb_reader *r, const uint8_t *src, size_t srclen,
		  struct ls_buf *out, uint64_t want);
/* bundle_tab.c, for lsb_reader_open(): the tables from the sections found
 * (metadata, streams, chunks, modules).  A damaged section is left out
 * and counted; returns 0, or -LS_ENOMEM or a read's error. */
int lsb_rtab_load(struct lsb_reader *r);

#endif
