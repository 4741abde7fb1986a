/* perf_convert.h - perf.data (Intel PT recording or sampling run) and raw
 * PT captures into an open trace bundle. */
#ifndef LSR_PERF_CONVERT_H
#define LSR_PERF_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bundle.h"
#include "formats/perfdata.h"

struct lsr_convert_opts {
	size_t size;		/* sizeof(struct lsr_convert_opts) */
	enum lsb_run run;	/* LSB_RUN_TRACE: PT streams, pt.* meta, events
				 * and samples; LSB_RUN_SAMPLE: a separate
				 * sampling run: events and samples only */
	int embed;		/* embed ELF files found at their recorded
				 * paths whose build-id matches */
	const char *cpu;	/* "FAMILY/MODEL[/STEPPING]" to use instead of
				 * the file's cpuid feature, or NULL */
	/* Called with remarks the user should see (modules not embedded and
	 * why, lost data); may be NULL.  Only cli/ prints. */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

struct lsr_convert_stats {
	uint64_t records;	/* perf.data records read */
	uint64_t samples;	/* samples written */
	uint64_t events;	/* sideband events written */
	uint64_t pt_bytes;	/* AUXTRACE bytes written */
	uint64_t lost;		/* LOST records' counts, summed */
	uint64_t aux_truncated;	/* AUX records flagged truncated */
	uint32_t streams;
	uint32_t modules;	/* modules written (embedded or referenced) */
	uint32_t embedded;
	uint32_t missing;	/* executable mappings not embedded */
};

/* Reads the perf.data at PATH ("-": a pipe-mode stream on stdin) and
 * writes it into w: metadata (backend "pt", cpu.*, pt.* = every Intel PT
 * AUXTRACE_INFO field, time.*), one PT stream per AUXTRACE idx (per-CPU or
 * per-thread as recorded), sideband events, samples, and modules for the
 * executable mappings.  *st may be NULL.  On failure errbuf gets a message
 * naming the file, record type and offset.
 * Returns -LS_ENOENT, -LS_EIO, -LS_EFORMAT, -LS_ETRUNC, -LS_ECORRUPT,
 * -LS_EPERF, -LS_EUNSUP, -LS_ELIMIT, -LS_ENOMEM, -LS_EINVAL, or an error of
 * the bundle writer. */
int lsr_perf_convert(struct lsb_writer *w, const char *path,
		     const struct lsr_convert_opts *o,
		     struct lsr_convert_stats *st, char *errbuf, size_t errlen);

/* Parses "FAMILY/MODEL[/STEPPING]" (decimal or 0x hex).  Returns 0 or
 * -LS_EINVAL. */
int lsr_parse_cpu(const char *s, unsigned *family, unsigned *model,
		  unsigned *stepping);

/* A memory image for a raw PT import: an ELF file's loadable segments, or
 * a raw dump mapped at base. */
struct lsr_raw_image {
	const char *path;
	uint64_t base;
	int has_base;		/* ELF: 0 = at the file's own addresses */
	int raw;		/* 1: raw bytes at base, 0: ELF file */
	uint64_t from, to;	/* raw: the bytes [from, to) of the file, to 0
				 * = to its end (ptxed's FILE:FROM-TO:BASE) */
};

/* A perf_event sideband file, as libipt-sb takes it (ptxed's
 * --pevent:primary/secondary FILE[:FROM[-TO]]). */
struct lsr_pevent_file {
	const char *path;
	uint64_t from, to;	/* bytes [from, to); to 0 = its end */
	int primary;		/* the sideband of one traced CPU */
	int32_t cpu;		/* out: that CPU (its records' PERF_SAMPLE_CPU,
				 * else the primary's rank), -1 secondary */
	unsigned named_cpu;	/* internal: records that named a CPU */
};

struct lsr_pevent_opts {
	size_t size;		/* sizeof(struct lsr_pevent_opts) */
	struct lsr_pevent_file *files;
	size_t nfiles;
	uint64_t sample_type;	/* --pevent:sample-type, for every record */
	const struct lspd_pevent_config *cfg;	/* --pevent:sample-config */
	size_t ncfg;
	uint64_t time_zero, time_shift, time_mult;	/* time.*: perf time
				 * from TSC; ptxed's defaults are 0, 0, 1 */
	uint64_t tsc_offset;	/* events this many TSC ticks earlier */
	const char *sysroot;	/* prefix of the recorded paths here */
	int embed;		/* embed the files found whose build-id matches */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

/* Writes the records of the sideband files, merged in time order, into w
 * as events, samples and modules (as lsr_perf_convert() does), and the
 * time conversion as time.* metadata.  Fills files[i].cpu.
 * Returns -LS_EINVAL, the errors of lspd_open_pevent() and lspd_next(),
 * or an error of the bundle writer; errbuf names the file and offset. */
int lsr_pevent_convert(struct lsb_writer *w, struct lsr_pevent_opts *po,
		       struct lsr_convert_stats *st, char *errbuf, size_t errlen);

/* What is given of a raw import, as ptxed's options. */
enum lsr_raw_have {
	LSR_RAW_MTC_FREQ = 1, LSR_RAW_NOM_FREQ = 2, LSR_RAW_CPUID_EAX = 4,
	LSR_RAW_CPUID_EBX = 8,
};

/* One raw PT capture: the bytes [from, to) of path, to 0 = its end. */
struct lsr_raw_pt {
	const char *path;
	uint64_t from, to;
};

struct lsr_raw_opts {
	size_t size;		/* sizeof(struct lsr_raw_opts) */
	/* One capture: a thread stream, unless a primary sideband file
	 * names its CPU.  Several (one per CPU, as perf records them): the
	 * k-th goes with the k-th primary sideband file, whose CPU it gets. */
	const struct lsr_raw_pt *pts;
	size_t npts;
	struct lsr_pevent_opts *pevent;	/* sideband, or NULL */
	const char *cpu;	/* NULL or "none": no cpu.* (libipt applies no
				 * errata, ptxed's default); "auto": this
				 * machine's; else "FAMILY/MODEL[/STEPPING]" */
	unsigned have;		/* enum lsr_raw_have */
	uint8_t mtc_freq, nom_freq;
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;
	/* IA32_RTIT_CTL.ADDRn_CFG (4 bits each, n = 0..3) and the ranges
	 * IA32_RTIT_ADDRn_A/B, as libipt's pt_conf_addr_filter. */
	uint64_t addr_cfg;
	uint64_t addr_a[4], addr_b[4];
};

/* Writes raw Intel PT captures (as libipt's ptxed reads them) into w, with
 * metadata for the CPU and the decoder settings of o, every image as an
 * embedded module plus mmap events, and the sideband of o->pevent.
 * Images without a GNU build-id get one derived from a hash of their
 * bytes.
 * Returns -LS_EINVAL (a bad cpu, a range outside its file, captures and
 * primary sideband files that do not pair up), -LS_ENOENT,
 * -LS_EIO, -LS_ELF, -LS_ELIMIT, -LS_ENOMEM, or an error of the bundle
 * writer. */
int lsr_raw_pt_import(struct lsb_writer *w, const struct lsr_raw_opts *o,
		      const struct lsr_raw_image *img, size_t nimg,
		      char *errbuf, size_t errlen);

#endif
