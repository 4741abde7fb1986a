/* main.c - loopscope's command dispatcher, after perf's and git's. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli/term.h"

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cli_command commands[] = {
	{ "record", cmd_record, "Run a command and record its control flow into a trace bundle" },
	{ "info", cmd_info, "Describe a trace bundle" },
	{ "import", cmd_import, "Convert a perf.data or raw PT capture into a trace bundle" },
	{ "dump", cmd_dump, "Print the decoded trace: blocks, instructions, packets" },
	{ "analyze", cmd_analyze, "Find the loops of a recorded run and write its loop profile" },
	{ "report", cmd_report, "Print a loop profile: flat, tree, per function, JSON, CSV" },
	{ "graph", cmd_graph, "Draw the loop call graph (Graphviz DOT or SVG)" },
	{ "merge", cmd_merge, "Merge loop profiles of several runs into one" },
	{ "probes", cmd_probes, "Print the minimal set of edges to count per function" },
	{ "annotate", cmd_annotate, "Print hot functions' instructions with samples, executions and CPI" },
	{ "deps", cmd_deps, "Find loop-carried dependences and which loops can run in parallel" },
	{ "export", cmd_export, "Write the edge profile as BOLT fdata, AutoFDO text, JSON or CSV, callgrind or speedscope" },
	{ "html", cmd_html, "Write the loop profile as one self-contained HTML report" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void cli_error(const char *fmt, ...)
{
	va_list ap;

	cli_progress_clear();
	fprintf(stderr, "%sloopscope:%s ", cli_color(stderr, "err"), cli_color(stderr, "off"));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;

	cli_progress_clear();
	fprintf(stderr, "loopscope: %swarning:%s ", cli_color(stderr, "warn"),
		cli_color(stderr, "off"));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage(const char *usage, int err)
{
	fputs(usage, err ? stderr : stdout);
	return err ? CLI_EXIT_USAGE : 0;
}

const char *cli_exe_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	return dir;
}

static void main_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: loopscope [--version] [--help] [-q] [--color=auto|always|never]\n"
		   "                 <command> [<args>]\n\n"
		   "    -q, --quiet      no progress line on stderr\n"
		   "    --color=<when>   colour messages, and report's text views, on a\n"
		   "                     terminal: auto (default; off when NO_COLOR is\n"
		   "                     set), always or never\n\n"
		   "Commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'loopscope help <command>' or 'man loopscope-<command>'.\n");
}

static const struct cli_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Runs cmd and checks its writes to stdout as a file's are (git's
 * run_builtin): a full disk fails naming stdout instead of exiting 0
 * with the output lost.  A command that failed has said why already. */
static int run_command(const struct cli_command *cmd, int argc, char **argv)
{
	struct stat st;
	int status = cmd->fn(argc, argv);

	if (status || fstat(1, &st) < 0)	/* failed, or no stdout at all */
		return status;
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		cli_error("cannot write 'stdout': %s", errno ? strerror(errno) : "write error");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	char **all = argv;
	int mode;

	/* A file size limit (ulimit -f) is a full disk: the write fails
	 * with EFBIG and the command says which file, instead of dying by
	 * SIGXFSZ with its files half written.  Children get the default
	 * back (lsr_child_prepare()). */
	signal(SIGXFSZ, SIG_IGN);
	cli_progress_init();
	/* Options of loopscope itself, before the command. */
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-q") || !strcmp(argv[1], "--quiet")) {
			cli_progress_quiet();
		} else if (!strncmp(argv[1], "--color=", 8)) {
			if (cli_color_parse(argv[1] + 8, &mode)) {
				cli_error("--color wants auto, always or never, not '%s'",
					  argv[1] + 8);
				return CLI_EXIT_USAGE;
			}
			cli_color_set(mode);
		} else {
			break;
		}
		argc--;
		argv++;
	}
	if (argc < 2) {
		main_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("loopscope %s\n", LS_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { NULL, "-h", NULL };

		if (argc < 3) {
			main_usage(stdout);
			return 0;
		}
		cmd = find_command(argv[2]);
		if (!cmd) {
			cli_error("'%s' is not a loopscope command; see 'loopscope --help'",
				  argv[2]);
			return CLI_EXIT_USAGE;
		}
		hargv[0] = argv[2];
		return run_command(cmd, 2, hargv);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		cli_error("'%s' is not a loopscope command; see 'loopscope --help'",
			  argv[1]);
		return CLI_EXIT_USAGE;
	}
	/* (every command may read a bundle; the exec costs about 7 ms,
	 * and is not made for --help, --version or a mistyped command) */
	cli_tune_malloc(all);
	return run_command(cmd, argc - 1, argv + 1);
}
