/* perfdata.h - a streaming, bounds-checked reader of perf.data files.
 *
 * Reads both layouts perf writes: file mode (a header pointing at attr,
 * data and feature sections) and pipe mode (a 16-byte header followed by
 * records only, attrs and features arriving as records of their own).
 * The format is documented in the Linux tree in
 * tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h.
 *
 * Records inside COMPRESSED records (perf record -z, zstd) are returned
 * like the others, their offset being that of the COMPRESSED record.
 *
 * Memory stays bounded: one record (at most 64 KiB, the u16 size limit)
 * is held at a time, and AUXTRACE payloads, which follow their record and
 * may be gigabytes, are streamed with lspd_read_aux().  Every length read
 * from the input is checked against the record or the file before use.
 *
 * Functions return >= 0 on success or a negative LS_E* code; after a
 * failure lspd_errmsg() names the file, the record type and the offset.
 */
#ifndef LSPD_PERFDATA_H
#define LSPD_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/* Record types that perf itself defines (the kernel's stop below 64). */
enum lspd_user_type {
	LSPD_REC_HEADER_ATTR = 64,
	LSPD_REC_HEADER_EVENT_TYPE = 65,
	LSPD_REC_HEADER_TRACING_DATA = 66,
	LSPD_REC_HEADER_BUILD_ID = 67,
	LSPD_REC_FINISHED_ROUND = 68,
	LSPD_REC_ID_INDEX = 69,
	LSPD_REC_AUXTRACE_INFO = 70,
	LSPD_REC_AUXTRACE = 71,
	LSPD_REC_AUXTRACE_ERROR = 72,
	LSPD_REC_THREAD_MAP = 73,
	LSPD_REC_CPU_MAP = 74,
	LSPD_REC_STAT_CONFIG = 75,
	LSPD_REC_STAT = 76,
	LSPD_REC_STAT_ROUND = 77,
	LSPD_REC_EVENT_UPDATE = 78,
	LSPD_REC_TIME_CONV = 79,
	LSPD_REC_HEADER_FEATURE = 80,
	LSPD_REC_COMPRESSED = 81,
	LSPD_REC_FINISHED_INIT = 82,
	LSPD_REC_COMPRESSED2 = 83,
	LSPD_REC_MAX = 128	/* size of the per-type counters below */
};

/* Feature bits of the file header (HEADER_* in perf's header.h). */
enum lspd_feature {
	LSPD_FEAT_TRACING_DATA = 1,
	LSPD_FEAT_BUILD_ID = 2,
	LSPD_FEAT_HOSTNAME = 3,
	LSPD_FEAT_OSRELEASE = 4,
	LSPD_FEAT_VERSION = 5,
	LSPD_FEAT_ARCH = 6,
	LSPD_FEAT_NRCPUS = 7,
	LSPD_FEAT_CPUDESC = 8,
	LSPD_FEAT_CPUID = 9,
	LSPD_FEAT_CMDLINE = 11,
	LSPD_FEAT_EVENT_DESC = 12,
	LSPD_FEAT_MAX = 256
};

#define LSPD_MAX_ATTRS 4096	/* events per file we accept */
#define LSPD_MAX_IDS (1u << 20)	/* sample ids over all events */
#define LSPD_MAX_BUILD_IDS (1u << 20)
#define LSPD_BUILD_ID_MAX 20	/* what perf records */

/* The fields of a perf_event_attr we use. */
struct lspd_attr {
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t sample_period;	/* or frequency when freq */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;		/* the bitfield word */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	uint64_t sample_regs_intr;
	unsigned freq : 1;
	unsigned sample_id_all : 1;
	char *name;		/* from EVENT_DESC/EVENT_UPDATE, or NULL */
};

/* Sample ids carried by every record when sample_id_all is set, and the
 * leading fields of a SAMPLE.  Fields not present in sample_type are 0
 * (cpu: -1); have says which are (PERF_SAMPLE_* bits). */
struct lspd_sample_id {
	uint64_t have;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	int32_t cpu;
	int attr;		/* index of the matching attr, -1 if unknown */
};

struct lspd_sample {
	struct lspd_sample_id sid;
	uint64_t ip;
	uint64_t addr;
	uint64_t period;
	uint64_t nr_callchain;
	const uint64_t *callchain;	/* points into the record (aligned) */
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_branches;
};

struct lspd_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t prot;		/* PROT_*; MMAP records: 5 unless data */
	uint32_t flags;
	uint8_t build_id_len;	/* 0 unless an MMAP2 with a build-id */
	uint8_t build_id[LSPD_BUILD_ID_MAX];
	const char *filename;	/* NUL-terminated inside the record */
};

struct lspd_task {		/* FORK, EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct lspd_auxtrace {
	uint64_t size;		/* payload bytes that follow the record */
	uint64_t offset;	/* in the AUX area */
	uint64_t reference;
	uint32_t idx, tid;
	int32_t cpu;
};

/* AUXTRACE_INFO of type 1 (Intel PT), priv words in perf's order
 * (tools/perf/util/intel-pt.h, enum INTEL_PT_*). */
enum lspd_pt_priv {
	LSPD_PT_PMU_TYPE, LSPD_PT_TIME_SHIFT, LSPD_PT_TIME_MULT,
	LSPD_PT_TIME_ZERO, LSPD_PT_CAP_USER_TIME_ZERO, LSPD_PT_TSC_BIT,
	LSPD_PT_NORETCOMP_BIT, LSPD_PT_HAVE_SCHED_SWITCH, LSPD_PT_SNAPSHOT_MODE,
	LSPD_PT_PER_CPU_MMAPS, LSPD_PT_MTC_BIT, LSPD_PT_MTC_FREQ_BITS,
	LSPD_PT_TSC_CTC_N, LSPD_PT_TSC_CTC_D, LSPD_PT_CYC_BIT,
	LSPD_PT_MAX_NONTURBO_RATIO, LSPD_PT_FILTER_STR_LEN,
	LSPD_PT_PRIV_MAX
};
#define LSPD_AUXTRACE_INTEL_PT 1
#define LSPD_PT_FILTER_MAX 4096

struct lspd_auxtrace_info {
	uint32_t type;		/* LSPD_AUXTRACE_INTEL_PT, ... */
	uint32_t npriv;		/* priv words present */
	uint64_t priv[LSPD_PT_PRIV_MAX];	/* the first npriv words */
	const char *filter;	/* Intel PT address filter, or NULL */
};

struct lspd_time_conv {
	uint64_t time_shift, time_mult, time_zero;
};

/* One record.  Pointers stay valid until the next lspd_next(). */
struct lspd_record {
	uint32_t type;		/* PERF_RECORD_* or enum lspd_user_type */
	uint16_t misc;
	uint16_t size;		/* header.size */
	uint64_t offset;	/* of the record in the file / stream */
	const uint8_t *data;	/* the whole record, header included */
	struct lspd_sample_id sid;	/* from sample_id_all (not SAMPLE) */
	union {
		struct lspd_sample sample;
		struct lspd_mmap mmap;
		struct {
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct lspd_task task;
		struct {
			uint32_t pid, tid;
		} itrace_start;
		struct {
			uint32_t next_prev_pid, next_prev_tid;
		} sw;
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t offset, size, flags;
		} aux;
		struct lspd_auxtrace auxtrace;
		struct lspd_auxtrace_info auxtrace_info;
		struct lspd_time_conv time_conv;
	} u;
};

/* Build-ids from the BUILD_ID feature or HEADER_BUILD_ID records. */
struct lspd_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t len;
	uint8_t id[LSPD_BUILD_ID_MAX];
	char *filename;
};

struct lspd_file;

/* Opens PATH ("-" reads stdin; a pipe-mode stream is also accepted from a
 * regular file) and reads the header, attrs and, in file mode, feature
 * sections.  On failure *pf is still set when non-NULL so lspd_errmsg()
 * can be read; close it with lspd_close().
 * Returns -LS_ENOENT, -LS_EIO, -LS_EFORMAT, -LS_ETRUNC, -LS_ECORRUPT,
 * -LS_ELIMIT, -LS_ENOMEM. */
int lspd_open(struct lspd_file **pf, const char *path);
/* Same, reading from an open descriptor (not closed by lspd_close()).
 * NAME is used in messages. */
int lspd_open_fd(struct lspd_file **pf, int fd, const char *name);
/* The sample_type of the events whose id is id, for a sideband file. */
struct lspd_pevent_config {
	uint64_t id;
	uint64_t sample_type;
};

/* Opens a perf_event sideband file as libipt-sb reads it (ptxed's
 * --pevent:primary/secondary): bare records, no header, the bytes [from,
 * to) of PATH (to 0: its end), every record with a sample_id trailer laid
 * out by sample_type, or, with ncfg > 0, by the entry of cfg whose id the
 * record's PERF_SAMPLE_IDENTIFIER names (id 0 takes cfg[0]'s type, as for
 * perf's synthesized records).  Same returns as lspd_open(), and
 * -LS_EINVAL for a range outside the file. */
int lspd_open_pevent(struct lspd_file **pf, const char *path, uint64_t from,
		     uint64_t to, uint64_t sample_type,
		     const struct lspd_pevent_config *cfg, size_t ncfg);
void lspd_close(struct lspd_file *f);
const char *lspd_errmsg(const struct lspd_file *f);

/* Reads the next data record into *rec.  Returns 1 when a record was
 * read, 0 at the end of the data, or -LS_EIO, -LS_ETRUNC, -LS_ECORRUPT,
 * -LS_EPERF, -LS_ELIMIT, -LS_ENOMEM, -LS_EUNSUP.  Pipe-mode attr and
 * feature records are both absorbed into the file's state and returned.
 * The unread part of an AUXTRACE payload is skipped. */
int lspd_next(struct lspd_file *f, struct lspd_record *rec);
/* Reads up to cap bytes of the current AUXTRACE record's payload.
 * Returns the number read (0 when the payload is done), -LS_EIO or
 * -LS_ETRUNC. */
int64_t lspd_read_aux(struct lspd_file *f, void *buf, size_t cap);

int lspd_is_pipe(const struct lspd_file *f);
size_t lspd_nattrs(const struct lspd_file *f);
const struct lspd_attr *lspd_attr(const struct lspd_file *f, size_t i);
size_t lspd_nbuild_ids(const struct lspd_file *f);
const struct lspd_build_id *lspd_build_id(const struct lspd_file *f, size_t i);
/* Build-id recorded for FILENAME, or NULL. */
const struct lspd_build_id *lspd_find_build_id(const struct lspd_file *f,
					       const char *filename);
/* A string feature (hostname, osrelease, version, arch, cpudesc, cpuid),
 * or NULL if the file has none. */
const char *lspd_feature_string(const struct lspd_file *f,
				enum lspd_feature feat);
/* Name of a record type for messages ("MMAP2", "AUXTRACE", "type 200"). */
const char *lspd_type_name(uint32_t type, char *buf, size_t cap);

#endif
