/* record.h - `loopscope record`: run a command under a recorder backend and
 * write a trace bundle.
 *
 * The sw backend runs the command under Valgrind with our tool
 * (recorder/vgtool/), reads the tool's record stream from a FIFO
 * (recorder/lsc_proto.h) and writes it into the bundle as it arrives, so
 * memory stays bounded whatever the run's length.
 */
#ifndef LSR_RECORD_H
#define LSR_RECORD_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "formats/bundle.h"

#define LS_RECORDER_VERSION "0.1.0"

enum lsr_backend { LSR_BACKEND_AUTO = 0, LSR_BACKEND_SW, LSR_BACKEND_PT };

struct lsr_stats;

struct lsr_opts {
	size_t size;			/* sizeof(struct lsr_opts) */
	enum lsr_backend backend;
	int sample;			/* add a sampling run */
	uint32_t sample_freq;		/* samples per second, 0: perf's default */
	int mem;			/* record memory accesses (sw) */
	int embed;			/* embed ELF files (else references) */
	int no_retcomp;			/* every return a TIP (perf's noretcomp) */
	uint32_t psb_period;		/* sw: PT bytes between PSBs, 0: 4096 */
	const char *vglib;		/* sw: directory holding the tool */
	const char *valgrind;		/* sw: valgrind binary, NULL: "valgrind" */
	char *const *argv;		/* the command, NULL-terminated */
	char *const *perf_args;		/* pt: extra `perf record` arguments */
	const char *pt_config;		/* pt: intel_pt event terms, or NULL */
	/* pt: called with warnings of the conversion (may be NULL) */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
	/* sw: with mem, only the accesses of these functions' own
	 * instructions (names, or runtime ranges 0xSTART-0xEND,
	 * comma-separated); NULL: all. */
	const char *mem_only;
	/* sw: called with the counts so far (pt_bytes, memacc_bytes) after
	 * each read of the tool's records, while the command runs, for a
	 * progress line (may be NULL). */
	void (*progress)(void *arg, const struct lsr_stats *st);
	void *progress_arg;
};

struct lsr_stats {
	int wait_status;		/* of the traced command, as waitpid() */
	uint32_t threads;
	uint32_t modules;		/* distinct build-ids written */
	uint32_t missing_modules;	/* executable mappings we could not read */
	uint64_t pt_bytes;		/* raw PT bytes */
	uint64_t memacc_bytes;
	uint64_t records;		/* tool records read */
	uint64_t tool_lost;		/* records the tool reported lost */
	int tool_ended;			/* the tool wrote its LSW_END record */
};

/* Runs the command under the sw backend, writing into w (opened by the
 * caller, which also closes it).  Fills *st.  errbuf receives a message on
 * failure.  Returns -LS_EINVAL, -LS_EIO, -LS_ECHILD, -LS_ECORRUPT (bad
 * record stream), -LS_ENOMEM, or an error of the bundle writer. */
int lsr_record_sw(const struct lsr_opts *o, struct lsb_writer *w,
		  struct lsr_stats *st, char *errbuf, size_t errlen);

/* Runs the command under the pt backend: `perf record -e intel_pt//u`
 * (with --sample, cycles in the same run) into a temporary perf.data,
 * converted into w (opened and closed by the caller).  Fills *st.  errbuf
 * receives a message on failure.  Returns -LS_EINVAL (also a pt_config
 * too long), -LS_EIO, a perf run's error (-LS_ENOPT, -LS_ECHILD, ...) or
 * a conversion error. */
int lsr_record_pt(const struct lsr_opts *o, struct lsb_writer *w,
		  struct lsr_stats *st, char *errbuf, size_t errlen);

/* Creates a private directory $TMPDIR/NAME-PID-XXXXXX (/tmp without
 * TMPDIR) into dir (len bytes), after sweeping the NAME-PID-* left by
 * recorders that died (kill -9) without removing theirs.  Returns 0,
 * -LS_ELIMIT (the path does not fit) or -LS_EIO (errno kept). */
int lsr_mkdtemp(char *dir, size_t len, const char *name);
/* Removes the directories TMP/NAME-PID-XXXXXX of our user whose process
 * PID is gone, with the files in them.  Returns how many, or -LS_EINVAL,
 * -LS_EIO (TMP unreadable). */
int lsr_sweep_tmp(const char *tmp, const char *name);
/* In a forked child, before exec of the traced command (or of what runs
 * it): SIGXFSZ back to its default, and killed when the recorder PARENT
 * dies.  _exits if the parent is gone already. */
void lsr_child_prepare(pid_t parent);

/* Writes the metadata every recording has (host, kernel, CPU, command
 * line, start time, recorder); backend-specific keys are the caller's. */
int lsr_write_host_meta(struct lsb_writer *w, char *const *argv);
/* Only the cpu.* part of it: this machine's vendor, family, model,
 * stepping and name from /proc/cpuinfo.  Returns 0 or a writer error. */
int lsr_write_cpu_meta(struct lsb_writer *w);

#endif
