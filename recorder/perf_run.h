/* perf_run.h - running `perf record` for the hardware pt backend and for
 * sampling runs.  perf is spawned with fork/exec (no shell); the command's
 * stdin, stdout and stderr pass through. */
#ifndef LSR_PERF_RUN_H
#define LSR_PERF_RUN_H

#include <stddef.h>

struct lsr_perf_run {
	size_t size;		/* sizeof(struct lsr_perf_run) */
	const char *perf;	/* perf binary, NULL: "perf" from PATH */
	const char *output;	/* perf.data to write (-o) */
	const char *pt_config;	/* pt run: terms inside intel_pt/.../, e.g.
				 * "cyc,noretcomp=1"; NULL: none */
	const char *event;	/* sampling run: NULL picks cycles:u, or
				 * cpu-clock:u without a hardware PMU */
	char *const *perf_args;	/* extra `perf record` arguments, NULL-ended,
				 * or NULL */
	int quiet;		/* pass -q to perf */
};

/* 1 if this machine has Intel PT (/sys/bus/event_source/devices/intel_pt),
 * else 0. */
int lsr_have_intel_pt(void);
/* 1 if perf_event_open of PERF_COUNT_HW_CPU_CYCLES for user space works
 * here, else 0 (virtual machines, containers without a PMU). */
int lsr_have_hw_cycles(void);

/* Runs `perf record -e intel_pt/<config>/u -o OUTPUT [perf_args] -- argv`.
 * Returns the exit status of the command as perf reports it (perf exits
 * with its child's status), or -LS_ENOPT
 * without Intel PT, -LS_ENOENT if perf cannot be run, -LS_EINVAL,
 * -LS_ECHILD if perf died of a signal or could not be waited for. */
int lsr_perf_record_pt(const struct lsr_perf_run *o, char *const argv[]);

/* Runs `perf record -e cycles:u -g --buildid-all -o OUTPUT [perf_args] --
 * argv`, with cpu-clock:u instead of cycles:u when lsr_have_hw_cycles()
 * says no.
 * Returns as lsr_perf_record_pt(), without -LS_ENOPT. */
int lsr_perf_record_sample(const struct lsr_perf_run *o, char *const argv[]);

#endif
