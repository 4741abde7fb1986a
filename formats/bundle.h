/* bundle.h - the loopscope trace bundle (.lsc): writer and reader.
 *
 * The format is specified in formats/bundle.md.  A bundle is an append-only
 * sequence of checksummed sections followed by an index and a trailer, so
 * a writer streams in bounded memory and a bundle cut short (crash,
 * kill -9) is readable up to its last complete section.
 *
 * Every function returns >= 0 on success or a negative LS_E* code (see
 * common/ls_err.h).  Writer and reader keep a message naming the file,
 * section and offset of the last failure: lsb_writer_errmsg(),
 * lsb_reader_errmsg().
 */
#ifndef LSB_BUNDLE_H
#define LSB_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#define LSB_BUILD_ID_MAX 32
#define LSB_MAX_CHUNK	(64u << 20)	/* largest raw PT chunk we read */
#define LSB_DEFAULT_CHUNK (1u << 20)	/* raw PT bytes per chunk, target */
#define LSB_MIN_CHUNK	64u		/* smallest chunk_size option */
/* Limits a reader enforces (formats/bundle.md, "Limits"); the writer
 * refuses input beyond them with -LS_ELIMIT. */
#define LSB_MAX_STRING	4096u		/* path, comm name, meta key: bytes */
#define LSB_MAX_VALUE	65536u		/* meta value: bytes */
#define LSB_MAX_META	4096u		/* distinct meta keys */
#define LSB_MAX_BATCH	(4u << 20)	/* raw bytes of a META/EVENTS/SAMPLES/MEMACC section */
#define LSB_MAX_MEMACC	(1u << 20)	/* bytes of one memory-access record */
#define LSB_MAX_MODULE	(1u << 30)	/* bytes of one embedded module */
#define LSB_MAX_HEADS	(8u << 20)	/* raw bytes of a PTHEADS section */

/* Which run an event or sample belongs to: the traced run, or the separate
 * sampling run of `record --sample` with the sw backend (its addresses are
 * mapped with its own mmap events, ASLR differs). */
enum lsb_run { LSB_RUN_TRACE = 0, LSB_RUN_SAMPLE = 1 };

enum lsb_event_type {
	LSB_EV_THREAD_START = 1,	/* pid, tid, arg = parent tid */
	LSB_EV_THREAD_EXIT = 2,		/* pid, tid, arg = exit status */
	LSB_EV_MMAP = 3,		/* addr, len, pgoff, prot, build_id, name = path */
	LSB_EV_MUNMAP = 4,		/* addr, len */
	LSB_EV_EXEC = 5,		/* name = path */
	LSB_EV_FORK = 6,		/* arg = child pid */
	LSB_EV_SIGNAL = 7,		/* arg = signal, addr = ip */
	LSB_EV_COMM = 8,		/* name = command name */
	LSB_EV_SWITCH = 9,		/* context switch: arg = LSB_SWITCH_* flags, cpu */
	LSB_EV_ITRACE_START = 10,	/* pid, tid, cpu */
	LSB_EV_LOST = 11,		/* arg = what was lost (records, bytes) */
};
#define LSB_SWITCH_OUT 1u
#define LSB_SWITCH_PREEMPT 2u

struct lsb_event {
	uint16_t type;		/* enum lsb_event_type */
	uint8_t run;		/* enum lsb_run */
	uint8_t build_id_len;	/* 0 if unknown */
	uint32_t pid;
	uint32_t tid;
	int32_t cpu;		/* -1 if unknown */
	uint64_t time;		/* perf time (ns) for pt; sequence number for sw */
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;
	uint32_t prot;		/* 1 read, 2 write, 4 exec */
	uint32_t arg;
	uint8_t build_id[LSB_BUILD_ID_MAX];
	const char *name;	/* path or comm; NULL if none.  The reader's
				 * pointer is valid until the callback returns. */
};

enum lsb_stream_kind { LSB_STREAM_THREAD = 1, LSB_STREAM_CPU = 2 };

struct lsb_stream {
	uint32_t id;		/* unique in the bundle, chosen by the writer's caller */
	uint32_t kind;		/* enum lsb_stream_kind */
	uint32_t pid;
	uint32_t tid;		/* LSB_STREAM_THREAD */
	int32_t cpu;		/* LSB_STREAM_CPU, else -1 */
	uint32_t flags;
};

#define LSB_MOD_EMBEDDED 1u	/* the ELF bytes are in the bundle */
#define LSB_MOD_VDSO 2u		/* bytes dumped from memory (vDSO) */

struct lsb_module {
	uint8_t build_id[LSB_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint32_t flags;		/* LSB_MOD_* */
	uint64_t file_size;	/* bytes of the ELF file (or dump) */
	const char *path;	/* as mapped on the recording machine */
};

struct lsb_sample {
	uint8_t run;		/* enum lsb_run */
	uint32_t pid;
	uint32_t tid;
	int32_t cpu;
	uint64_t time;
	uint64_t ip;
	uint64_t period;	/* cycles, or ns for cpu-clock */
	uint32_t event;		/* index into the "sample.events" meta list */
	uint32_t nr_callchain;	/* at most LSB_MAX_CALLCHAIN */
	const uint64_t *callchain;
};
#define LSB_MAX_CALLCHAIN 512

/* Writer. */
struct lsb_writer;

struct lsb_writer_opts {
	size_t size;		/* sizeof(struct lsb_writer_opts) */
	uint32_t chunk_size;	/* raw PT bytes per chunk, 0: LSB_DEFAULT_CHUNK */
	int zstd_level;		/* 0: default (3) */
	/* 1: a module's descriptor shares its frame's first block with the
	 * first bytes of the module, as bundles before 2026-12-06 have it
	 * (for tests of their readers); 0: it ends that block alone, so a
	 * reader lists the modules without decompressing them */
	int desc_shared;
	/* Where set: handed each chunk of a stream's raw PT as the chunk is
	 * written (pt, len), and at the stream's end (pt NULL) asked for the
	 * block heads its packets name, sorted and without repeats, into *ips
	 * (malloc'd; the writer frees it), *n of them, which go into the
	 * stream's PTHEADS section (bundle.md).  A return < 0: none (the
	 * stream then has no such section).  cli/ sets lsd_pt_heads_cb(), so
	 * that a decode need not scan the packets first. */
	int (*heads)(void *arg, uint32_t stream, const uint8_t *pt, size_t len,
		     uint64_t **ips, size_t *n);
	void *heads_arg;
};

/* Creates PATH (truncating it) and writes the file header.  PATH stays
 * locked (flock) until lsb_writer_close(): a second writer of the same
 * file fails instead of interleaving its sections with the first's.
 * After a failed write (ENOSPC, EFBIG) nothing more is appended, so the
 * file reads back up to its last complete section.
 * Returns -LS_EINVAL, -LS_EIO, -LS_ENOMEM, or -LS_EEXIST when another
 * writer holds PATH. */
int lsb_writer_open(struct lsb_writer **pw, const char *path,
		    const struct lsb_writer_opts *opts);
/* Adds metadata key=value; written in a META section at the next flush.
 * A later value for the same key overrides an earlier one. */
int lsb_writer_meta(struct lsb_writer *w, const char *key, const char *value);
/* Declares a PT stream; its id must be new. Returns -LS_EINVAL if not. */
int lsb_writer_stream(struct lsb_writer *w, const struct lsb_stream *s);
/* Appends raw PT bytes to a declared stream.  The writer cuts chunks at
 * PSB packets once chunk_size bytes are pending, so every chunk but a
 * stream's first may be decoded on its own. */
int lsb_writer_pt(struct lsb_writer *w, uint32_t stream, const void *data,
		  size_t len);
/* Ends a stream: its pending bytes become a chunk. */
int lsb_writer_stream_end(struct lsb_writer *w, uint32_t stream);
/* Records a module once per build-id, with its ELF bytes when elf != NULL
 * (else a reference only).  Returns 1 if that build-id was already
 * recorded (nothing written), 0 if written.  build_id_len must be 1 to
 * LSB_BUILD_ID_MAX (a caller without one derives one, e.g. from a hash of
 * the bytes); LSB_MOD_VDSO requires the bytes.  LSB_MOD_EMBEDDED is set
 * by the writer from elf != NULL; file_size 0 means elf_len.
 * Returns -LS_EINVAL, -LS_ELIMIT, -LS_EIO, -LS_ENOMEM. */
int lsb_writer_module(struct lsb_writer *w, const struct lsb_module *m,
		      const void *elf, size_t elf_len);
/* Returns 1 if a module with this build-id was recorded, else 0. */
int lsb_writer_has_module(const struct lsb_writer *w, const uint8_t *build_id,
			  size_t len);
/* Appends a sideband event (buffered, bounded). */
int lsb_writer_event(struct lsb_writer *w, const struct lsb_event *ev);
/* Appends a sample (buffered, bounded). */
int lsb_writer_sample(struct lsb_writer *w, const struct lsb_sample *s);
/* Appends memory accesses of a stream, in the LSW_MEMACC encoding of
 * recorder/lsc_proto.h. */
int lsb_writer_memacc(struct lsb_writer *w, uint32_t stream, const void *enc,
		      size_t len);
/* Writes everything buffered, so a crash after it loses nothing before. */
int lsb_writer_flush(struct lsb_writer *w);
/* Flushes, writes index and trailer, closes and frees.  Frees even on
 * failure. */
int lsb_writer_close(struct lsb_writer *w);
const char *lsb_writer_errmsg(const struct lsb_writer *w);
/* 1 when a writer (of this or another process) holds path, else 0: a
 * recording still running. */
int lsb_writer_busy(const char *path);
/* 0, or the error of a failed write (-LS_EIO): from then on the writer
 * appends nothing, and lsb_writer_errmsg() says why. */
int lsb_writer_error(const struct lsb_writer *w);

/* Reader. */
struct lsb_reader;

struct lsb_chunk {
	uint32_t stream;	/* stream id */
	uint32_t seq;		/* position in the stream, from 0 */
	uint32_t flags;		/* LSB_CHUNK_* */
	uint64_t stream_offset;	/* raw offset of the chunk in its stream */
	uint64_t raw_size;
	uint64_t stored_size;
	uint64_t file_offset;	/* of the section header */
};
#define LSB_CHUNK_PSB 1u	/* starts at a PSB packet */

struct lsb_stats {
	uint64_t file_size;
	uint64_t sections;
	uint64_t pt_raw, pt_stored;
	uint64_t mod_raw, mod_stored;
	uint64_t side_raw, side_stored;	/* events + samples + memacc + meta */
	uint64_t truncated_at;		/* 0, or offset where the data ends */
	uint64_t lost_bytes;		/* bytes after the last good section */
	uint64_t damaged;		/* sections found damaged so far */
	uint32_t version_major, version_minor;	/* of the file */
	uint64_t created;		/* file header: Unix time, seconds */
};

/* Opens and indexes a bundle.  A bundle without a valid trailer (cut short)
 * is scanned up to its last complete section: the open succeeds and
 * stats.truncated_at says where it ends.  Returns -LS_ENOENT, -LS_EIO,
 * -LS_EFORMAT, -LS_EVERSION, -LS_ECORRUPT, -LS_ENOMEM; on failure *pr is
 * still set when non-NULL so lsb_reader_errmsg() can be read, and must be
 * closed. */
int lsb_reader_open(struct lsb_reader **pr, const char *path);
/* Whether path is a regular file that begins as a bundle does (its magic
 * alone: nothing else is read; anything but a regular file is not opened,
 * so a FIFO named is left to its reader); its size goes to *size where
 * that is not NULL.  Returns 1 or 0, or -LS_ENOENT, -LS_EIO. */
int lsb_is_bundle(const char *path, uint64_t *size);
void lsb_reader_close(struct lsb_reader *r);
const char *lsb_reader_errmsg(const struct lsb_reader *r);
const char *lsb_reader_path(const struct lsb_reader *r);
void lsb_reader_stats(const struct lsb_reader *r, struct lsb_stats *st);

/* Reads every section's stored bytes and checks its checksum, so damage
 * anywhere is found without decoding (`loopscope info` does this).
 * Returns 0, or -LS_ECORRUPT naming the first damaged section (all are
 * counted in stats.damaged), or -LS_EIO. */
int lsb_reader_verify(struct lsb_reader *r);

/* Metadata: value of KEY or NULL; or the i-th pair. */
const char *lsb_reader_meta(const struct lsb_reader *r, const char *key);
size_t lsb_reader_nmeta(const struct lsb_reader *r);
int lsb_reader_meta_at(const struct lsb_reader *r, size_t i, const char **key,
		       const char **value);

size_t lsb_reader_nstreams(const struct lsb_reader *r);
const struct lsb_stream *lsb_reader_stream(const struct lsb_reader *r, size_t i);
/* Chunks of the i-th stream, in stream order. */
size_t lsb_reader_nchunks(const struct lsb_reader *r, size_t stream_idx);
const struct lsb_chunk *lsb_reader_chunk(const struct lsb_reader *r,
					 size_t stream_idx, size_t chunk_idx);
/* Raw PT bytes of the i-th stream, its chunks' raw sizes summed (0: no
 * such stream). */
uint64_t lsb_reader_stream_raw(const struct lsb_reader *r, size_t stream_idx);
/* Decompresses a chunk into buf (cap >= chunk->raw_size).  Returns the
 * number of bytes, or -LS_ECORRUPT/-LS_EZSTD/-LS_EIO/-LS_EINVAL. */
int64_t lsb_reader_read_chunk(struct lsb_reader *r, const struct lsb_chunk *c,
			      void *buf, size_t cap);
/* Whether chunk c's stored bytes read back and match their checksum, as
 * lsb_reader_read_chunk() checks them (not decompressed): 1, 0 where they
 * do not (the section counted damaged, as that read would), or a read's
 * error. */
int lsb_reader_chunk_ok(struct lsb_reader *r, const struct lsb_chunk *c);
/* The block heads stream i's packets name, from its PTHEADS section
 * (bundle.md): *ips (malloc'd, the caller frees it), sorted, *n of them,
 * where the section covers the stream's chunks as the reader has them
 * (seq 0 to its chunk count, none missing).  Returns 1 if so; 0 where
 * the stream has no such section or it covers other chunks; -LS_ECORRUPT
 * where it is damaged (counted, the reader's message says how);
 * -LS_ENOMEM or a read's error. */
int lsb_reader_pt_heads(struct lsb_reader *r, size_t stream_idx, uint64_t **ips,
			size_t *n);

size_t lsb_reader_nmodules(const struct lsb_reader *r);
const struct lsb_module *lsb_reader_module(const struct lsb_reader *r, size_t i);
/* The embedded bytes of module i in a malloc'd buffer the caller frees.
 * Returns -LS_ENOENT if the module is a reference only. */
int lsb_reader_module_data(struct lsb_reader *r, size_t i, void **data,
			   size_t *len);
/* Reads and checks the stored bytes of embedded module i as
 * lsb_reader_module_data() does, without decompressing them: *pcrc gets
 * their CRC-32, *stored their length, *len the module's length (what
 * lsb_reader_module_data() would give).  They name the module's bytes
 * in a cache (decoder/image.c).  Returns 0 or lsb_reader_module_data()'s
 * errors. */
int lsb_reader_module_stored(struct lsb_reader *r, size_t i, uint32_t *pcrc,
			     uint64_t *stored, uint64_t *len);

/* Calls cb for every sideband event / sample / memory-access record in file
 * order; a non-zero return from cb stops the walk and is returned.  A
 * damaged section is skipped and the walk goes on; it then returns
 * -LS_ECORRUPT at the end (errmsg names the last damaged section). */
int lsb_reader_events(struct lsb_reader *r,
		      int (*cb)(const struct lsb_event *ev, void *arg),
		      void *arg);
int lsb_reader_samples(struct lsb_reader *r,
		       int (*cb)(const struct lsb_sample *s, void *arg),
		       void *arg);
int lsb_reader_memacc(struct lsb_reader *r,
		      int (*cb)(uint32_t stream, const void *enc, size_t len,
				void *arg),
		      void *arg);

#endif
