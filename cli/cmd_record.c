/* cmd_record.c - `loopscope record`: run a command, write a trace bundle. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli/record_summary.h"
#include "cli/term.h"
#include "ls_err.h"
#include "recorder/perf_convert.h"
#include "recorder/perf_run.h"
#include "recorder/record.h"

static const char record_usage[] =
	"usage: loopscope record [<options>] [--] <command> [<args>...]\n"
	"\n"
	"    -o, --output <file>   write the trace bundle to <file> (default loopscope.lsc)\n"
	"    --backend <name>      auto (default), sw (Valgrind tool) or pt (perf intel_pt)\n"
	"    --sample              add a perf sampling run for CPI (cycles:u, or cpu-clock:u)\n"
	"    --sample-freq <hz>    samples per second of the sampling run (perf -F;\n"
	"                          1 to 1000000, default perf's, 4000); implies --sample\n"
	"    --mem                 record every load and store, and every malloc,\n"
	"                          calloc, realloc and new (sw backend)\n"
	"    --mem-only <list>     record only the loads and stores of these functions'\n"
	"                          own instructions (names, or runtime address ranges\n"
	"                          0xSTART-0xEND; comma-separated); implies --mem\n"
	"    --no-embed            reference executables by path and build-id, do not embed\n"
	"                          (analyze finds them there, in --debug-dir, or on the\n"
	"                          debuginfod servers of DEBUGINFOD_URLS)\n"
	"    --no-retcomp          write every return as a TIP packet, never compressed\n"
	"                          (intel_pt's noretcomp)\n"
	"    --psb-period <bytes>  sw: PT bytes between PSB packets (256 to 1048576,\n"
	"                          default 4096)\n"
	"    --chunk-size <bytes>  raw PT bytes per compressed chunk (4096 to\n"
	"                          67108864, default 1048576)\n"
	"    --pt-config <terms>   pt: intel_pt event terms, e.g. 'cyc,noretcomp=0'\n"
	"    --perf-arg <arg>      pt: pass <arg> to 'perf record' (repeatable)\n"
	"    -q, --quiet           print no summary and no progress line\n"
	"    -h, --help            show this help\n"
	"\n"
	"On a terminal (stderr), a progress line while the command runs: with the\n"
	"sw backend the PT bytes received (and memory-access bytes with --mem),\n"
	"the bundle's size, the time and, after a second, the PT rate; with the pt\n"
	"backend (perf keeps the trace until the command ends) the bundle's size,\n"
	"the time and its rate.  Instructions are not known until the trace is\n"
	"decoded: 'analyze' and 'info --decode' show them.\n";

enum { OPT_BACKEND = 256, OPT_SAMPLE, OPT_SAMPLE_FREQ, OPT_MEM, OPT_NO_EMBED, OPT_PSB,
       OPT_CHUNK, OPT_PT_CONFIG, OPT_PERF_ARG, OPT_NO_RETCOMP, OPT_MEM_ONLY };

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "sample", no_argument, NULL, OPT_SAMPLE },
	{ "sample-freq", required_argument, NULL, OPT_SAMPLE_FREQ },
	{ "mem", no_argument, NULL, OPT_MEM },
	{ "mem-only", required_argument, NULL, OPT_MEM_ONLY },
	{ "no-embed", no_argument, NULL, OPT_NO_EMBED },
	{ "no-retcomp", no_argument, NULL, OPT_NO_RETCOMP },
	{ "psb-period", required_argument, NULL, OPT_PSB },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK },
	{ "pt-config", required_argument, NULL, OPT_PT_CONFIG },
	{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The directory with the Valgrind tool: $LOOPSCOPE_VGLIB, the build tree's
 * vglib/ beside the binary, or the installed libexec/loopscope. */
static const char *find_vglib(void)
{
	static char path[4096];
	const char *env = getenv("LOOPSCOPE_VGLIB");
	const char *cands[2] = { "%s/vglib", "%s/../libexec/loopscope" };
	char tool[4200];
	size_t i;

	if (env && *env)
		return env;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), cands[i], cli_exe_dir());
		snprintf(tool, sizeof(tool), "%s/loopscope-amd64-linux", path);
		if (!access(tool, X_OK))
			return path;
	}
	return NULL;
}

/* True if CMD names an executable, directly or through $PATH. */
/* One candidate file of command_check(). */
static int file_check(const char *file, const char **why)
{
	struct stat st;

	if (stat(file, &st) < 0) {
		*why = errno == ENOENT ? "command not found" : "permission denied";
		return errno == ENOENT ? 127 : 126;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = "is a directory";
		return 126;
	}
	if (access(file, X_OK) < 0) {
		*why = "permission denied";
		return 126;
	}
	return 0;
}

/* How a shell would find cmd: 0 when it can be run, else 127 (not
 * found) or 126 (found but not executable or a directory), as shells
 * exit; *why says which. */
static int command_check(const char *cmd, const char **why)
{
	const char *path = getenv("PATH");
	int status = 127;
	char buf[4096];

	*why = "command not found";
	if (strchr(cmd, '/'))
		return file_check(cmd, why);
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		const char *w;

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (!file_check(buf, &w))
			return 0;
		if (!access(buf, F_OK) && status == 127) {	/* the first found */
			status = 126;
			*why = w;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return status;
}

static void human(uint64_t n, char *buf, size_t len)
{
	if (n >= 10u << 20)
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else if (n >= 10u << 10)
		snprintf(buf, len, "%.1f KiB", n / 1024.0);
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

static int exit_code_of(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 1;
}

static void note_cb(void *arg, const char *msg)
{
	(void)arg;
	cli_warning("%s", msg);
}

/* A private directory for perf.data files; "" on failure. */
static void temp_dir(char *dir, size_t len)
{
	lsr_mkdtemp(dir, len, "loopscope-perf");
}

/* sw with --sample: a separate native run under perf's sampler.  Its
 * output is discarded (the traced run's output is the one the user sees)
 * and its stdin is /dev/null; its samples are matched to the trace by
 * build-id and offset, so ASLR does not matter. */
static void sample_run(const struct lsr_opts *o, struct lsb_writer *w, int quiet)
{
	struct lsr_perf_run pr;
	struct lsr_convert_opts co;
	struct lsr_convert_stats cs;
	char dir[4096], data[4200], errbuf[512], buf[32], freq[16];
	char *fargs[3] = { "-F", freq, NULL };
	int saved[3], nul, status, err, i;

	temp_dir(dir, sizeof(dir));
	if (!dir[0]) {
		cli_warning("--sample: cannot create a temporary directory; no samples recorded");
		return;
	}
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	memset(&pr, 0, sizeof(pr));
	pr.size = sizeof(pr);
	pr.output = data;
	pr.quiet = 1;
	if (o->sample_freq) {
		snprintf(freq, sizeof(freq), "%u", (unsigned)o->sample_freq);
		pr.perf_args = fargs;
		lsb_writer_meta(w, "sample.freq", freq);
	}
	fflush(stdout);
	fflush(stderr);
	nul = open("/dev/null", O_RDWR);
	for (i = 0; i < 3; i++) {
		saved[i] = dup(i);
		if (nul >= 0)
			dup2(nul, i);
	}
	status = lsr_perf_record_sample(&pr, o->argv);
	for (i = 0; i < 3; i++) {
		if (saved[i] >= 0) {
			dup2(saved[i], i);
			close(saved[i]);
		}
	}
	if (nul >= 0)
		close(nul);
	if (status < 0) {
		cli_warning("--sample: perf record failed (%s); no samples recorded",
			    ls_errstr(status));
		goto out;
	}
	snprintf(buf, sizeof(buf), "%d", status);
	lsb_writer_meta(w, "sample.exit_status", buf);
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = LSB_RUN_SAMPLE;
	co.embed = o->embed;
	co.note = note_cb;
	err = lsr_perf_convert(w, data, &co, &cs, errbuf, sizeof(errbuf));
	if (err < 0)
		cli_warning("--sample: %s; samples may be incomplete", errbuf);
	else if (!quiet)
		fprintf(stderr, "[ loopscope record: %llu samples from a separate native run ]\n",
			(unsigned long long)cs.samples);
out:
	unlink(data);
	rmdir(dir);
}

/* The sw recorder's counts while the command runs: the progress line's. */
static void on_recorded(void *arg, const struct lsr_stats *st)
{
	(void)arg;
	cli_progress_recorded(st->pt_bytes, st->memacc_bytes);
}

int cmd_record(int argc, char **argv)
{
	const char *output = "loopscope.lsc", *pt_config = NULL;
	const char *cmd_why;
	struct lsr_opts o;
	struct lsr_stats st;
	struct lsb_writer_opts wo;
	struct lsb_writer *w = NULL;
	char errbuf[512], old[4200], buf[64], sz[32];
	int c, err, quiet = 0, code;
	struct stat sb;
	char *perf_args[64];
	size_t nperf_args = 0;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.embed = 1;
	memset(&wo, 0, sizeof(wo));
	wo.size = sizeof(wo);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", record_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "auto"))
				o.backend = LSR_BACKEND_AUTO;
			else if (!strcmp(optarg, "sw"))
				o.backend = LSR_BACKEND_SW;
			else if (!strcmp(optarg, "pt"))
				o.backend = LSR_BACKEND_PT;
			else {
				cli_error("unknown backend '%s' (want auto, sw or pt)", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_SAMPLE:
			o.sample = 1;
			break;
		case OPT_SAMPLE_FREQ:
			/* perf refuses more than perf_event_max_sample_rate
			 * (100000 by default) and says so. */
			if (cli_opt_u32("--sample-freq", optarg, 0, 1, 1000000, &o.sample_freq))
				return CLI_EXIT_USAGE;
			o.sample = 1;
			break;
		case OPT_MEM:
			o.mem = 1;
			break;
		case OPT_MEM_ONLY:
			if (!*optarg || strchr(optarg, ' ')) {
				cli_error("--mem-only: '%s' is not a comma-separated list of "
					  "functions or 0xSTART-0xEND ranges", optarg);
				return CLI_EXIT_USAGE;
			}
			o.mem = 1;
			o.mem_only = optarg;
			break;
		case OPT_NO_EMBED:
			o.embed = 0;
			break;
		case OPT_NO_RETCOMP:
			o.no_retcomp = 1;
			break;
		case OPT_PSB:
			if (cli_opt_u32("--psb-period", optarg, 0, 256, 1u << 20, &o.psb_period))
				return CLI_EXIT_USAGE;
			break;
		case OPT_CHUNK:
			if (cli_opt_u32("--chunk-size", optarg, 0, 4096, 64u << 20, &wo.chunk_size))
				return CLI_EXIT_USAGE;
			break;
		case OPT_PT_CONFIG:
			pt_config = optarg;
			break;
		case OPT_PERF_ARG:
			if (nperf_args + 1 >= sizeof(perf_args) / sizeof(perf_args[0])) {
				cli_error("too many --perf-arg options");
				return CLI_EXIT_USAGE;
			}
			perf_args[nperf_args++] = optarg;
			break;
		case 'q':
			quiet = 1;
			cli_progress_quiet();
			break;
		case 'h':
			return cli_usage(record_usage, 0);
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(record_usage, 1);
		}
	}
	perf_args[nperf_args] = NULL;
	if (optind >= argc) {
		cli_error("no command to record");
		return cli_usage(record_usage, 1);
	}
	o.argv = argv + optind;
	if ((code = command_check(o.argv[0], &cmd_why))) {
		cli_error("%s: '%s'", cmd_why, o.argv[0]);
		return code;
	}
	if (o.backend == LSR_BACKEND_PT && !lsr_have_intel_pt()) {
		cli_error("the pt backend needs Intel PT, and this machine has none "
			  "(no /sys/bus/event_source/devices/intel_pt); use --backend=sw");
		return 1;
	}
	if (o.backend == LSR_BACKEND_AUTO)
		o.backend = lsr_have_intel_pt() ? LSR_BACKEND_PT : LSR_BACKEND_SW;
	if (o.backend == LSR_BACKEND_PT && o.mem) {
		cli_error("--mem needs the sw backend (Intel PT does not record data addresses)");
		return CLI_EXIT_USAGE;
	}
	if (o.backend == LSR_BACKEND_SW) {
		o.vglib = find_vglib();
		if (!o.vglib) {
			cli_error("cannot find the loopscope Valgrind tool beside '%s'; "
				  "set LOOPSCOPE_VGLIB to the directory holding loopscope-amd64-linux",
				  cli_exe_dir());
			return 1;
		}
	}
	o.perf_args = perf_args;
	/* Keep the previous bundle, as perf keeps perf.data.old. */
	if (!stat(output, &sb) && S_ISREG(sb.st_mode) && !lsb_writer_busy(output)) {
		snprintf(old, sizeof(old), "%s.old", output);
		rename(output, old);
	}
	if (cli_writer_open(&w, output, &wo))
		return 1;
	err = lsr_write_host_meta(w, o.argv);
	if (err >= 0 && o.backend == LSR_BACKEND_SW)
		err = lsb_writer_meta(w, "backend", "sw");
	if (err >= 0)
		err = lsb_writer_flush(w);
	if (err < 0) {
		cli_error("cannot write '%s': %s", output, lsb_writer_errmsg(w));
		cli_writer_close(w);
		return 1;
	}
	cli_progress_watch(output);
	o.progress = on_recorded;
	if (o.backend == LSR_BACKEND_PT) {
		memset(&st, 0, sizeof(st));
		o.pt_config = pt_config;
		o.note = note_cb;
		err = lsr_record_pt(&o, w, &st, errbuf, sizeof(errbuf));
	} else {
		err = lsr_record_sw(&o, w, &st, errbuf, sizeof(errbuf));
	}
	cli_progress_watch_stop();
	code = exit_code_of(st.wait_status);
	if (err >= 0 && o.sample && o.backend == LSR_BACKEND_SW)
		sample_run(&o, w, quiet);
	snprintf(buf, sizeof(buf), "%d", code);
	lsb_writer_meta(w, "exit_status", buf);
	if (WIFSIGNALED(st.wait_status)) {
		snprintf(buf, sizeof(buf), "%d", WTERMSIG(st.wait_status));
		lsb_writer_meta(w, "exit_signal", buf);
	}
	if (err < 0 && lsb_writer_error(w) < 0) {
		/* errbuf names the file: "'OUT': write at offset N: why" */
		cli_error("cannot write the bundle: %s; '%s' ran to its end (exit status %d), "
			  "the bundle reads up to its last complete section", errbuf,
			  o.argv[0], code);
		cli_writer_close(w);
		return code ? code : 1;
	}
	if (err < 0) {
		cli_error("recording '%s' into '%s' failed: %s", o.argv[0], output, errbuf);
		cli_writer_close(w);
		return code ? code : 1;
	}
	if (errbuf[0])
		cli_warning("%s; the trace cannot be decoded there (%u executable%s missing)",
			    errbuf, st.missing_modules, st.missing_modules == 1 ? "" : "s");
	if (!st.tool_ended)
		cli_warning("the tool stopped before the command ended (exec or crash); "
			    "the trace covers the run up to that point");
	if (st.tool_lost)
		cli_warning("the tool lost %llu records", (unsigned long long)st.tool_lost);
	err = cli_writer_close(w);
	if (err < 0) {
		cli_error("cannot finish '%s': %s", output, ls_errstr(err));
		return code ? code : 1;
	}
	if (!quiet && !stat(output, &sb)) {
		human((uint64_t)sb.st_size, sz, sizeof(sz));
		human(st.pt_bytes, buf, sizeof(buf));
		fprintf(stderr, "[ loopscope record: wrote %s to '%s' (%u thread%s, %u module%s, %s of PT) ]\n",
			sz, output, st.threads, st.threads == 1 ? "" : "s",
			st.modules, st.modules == 1 ? "" : "s", buf);
		cli_record_summary(output, st.pt_bytes);
	}
	return code;
}
