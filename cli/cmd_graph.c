/* cmd_graph.c - `loopscope graph`: the loop call graph (LoopProf figure
 * 3) as Graphviz DOT, or as SVG through Graphviz's own `dot`, which we
 * run rather than link: it is a large optional dependency only this
 * command needs.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli/report.h"
#include "formats/profile.h"
#include "ls_err.h"
#include "ls_out.h"

static const char graph_usage[] =
	"usage: loopscope graph [-o <out>] [-T dot|svg] [--min-percent=<p>]\n"
	"                       [--thread=<tid>] [FILE]\n"
	"\n"
	"Writes the loop call graph of the profile or bundle FILE (default\n"
	"loopscope.lsc): a node per loop with its % of the instructions (total\n"
	"and self), function and file:line; an edge per parent-child pair\n"
	"labelled with the child's entries from that parent.\n"
	"\n"
	"    -o, --output=<out>   write to <out> (default: standard output)\n"
	"    -T dot|svg           Graphviz DOT (default) or SVG made by 'dot -Tsvg'\n"
	"    --min-percent=<p>    leave out loops below p% (0 to 100, default 1)\n"
	"    --thread=<tid>       only the threads with this tid\n"
	"    --debug-dir=<dir>    for a bundle: executables it only references\n"
	"    -h, --help           show this help\n";

enum { OPT_MIN = 256, OPT_THREAD, OPT_DEBUG_DIR };

static const struct option graph_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "min-percent", required_argument, NULL, OPT_MIN },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* 1 when an executable `dot` is on $PATH. */
static int have_dot(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/dot", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

/* Pipes the DOT text into `dot -Tsvg` writing to out.  Returns 0 or 1
 * after a message. */
static int run_dot(const struct lsp_view *v, const struct report_opts *o, FILE *out)
{
	int fd[2], st;
	pid_t pid;
	FILE *f;

	if (pipe(fd) < 0) {
		cli_error("cannot run 'dot': %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		cli_error("cannot run 'dot': %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		signal(SIGXFSZ, SIG_DFL);	/* main() ignores it */
		dup2(fd[0], 0);
		dup2(fileno(out), 1);
		close(fd[0]);
		close(fd[1]);
		execlp("dot", "dot", "-Tsvg", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	f = fdopen(fd[1], "w");
	if (f) {
		report_dot(f, v, o);
		fclose(f);
	} else {
		close(fd[1]);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		cli_error("'dot -Tsvg' failed (its messages are above)");
		return 1;
	}
	return 0;
}

int cmd_graph(int argc, char **argv)
{
	const char *file = "loopscope.lsc", *out = NULL, *debug_dir = NULL;
	struct report_opts o = { .min_pct = 1.0 };
	struct lsp_profile *p = NULL;
	struct lsp_view *v = NULL;
	int c, svg = 0, status = 0, err;
	int64_t tid = LSP_VIEW_ALL;
	uint64_t tv;
	struct ls_out of;

	while ((c = getopt_long(argc, argv, "ho:T:", graph_options, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'T':
			if (!strcmp(optarg, "svg")) {
				svg = 1;
			} else if (strcmp(optarg, "dot")) {
				cli_error("unknown output type '%s' (dot or svg)", optarg);
				return cli_usage(graph_usage, 1);
			}
			break;
		case OPT_MIN:
			if (report_parse_pct(optarg, &o.min_pct) < 0)
				return cli_usage(graph_usage, 1);
			break;
		case OPT_THREAD:
			if (cli_opt_u64("--thread", optarg, 10, 0, UINT32_MAX - 1, &tv))
				return cli_usage(graph_usage, 1);
			tid = (int64_t)tv;
			break;
		case OPT_DEBUG_DIR: debug_dir = optarg; break;
		case 'h': return cli_usage(graph_usage, 0);
		default: return cli_usage(graph_usage, 1);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		return cli_usage(graph_usage, 1);
	/* Before the analysis, which may take long: fail early. */
	if (svg && !have_dot()) {
		cli_error("cannot make SVG: 'dot' (Graphviz) is not installed; install "
			  "graphviz or write DOT with -T dot");
		return 1;
	}
	o.source = file;
	if (cli_load_profile(file, debug_dir, &p))
		return 1;
	err = lsp_view_new(&v, p, tid);
	if (err < 0) {
		if (err == -LS_ENOENT)
			cli_error("no thread with tid %lld in '%s'", (long long)tid, file);
		else
			cli_error("cannot draw '%s': %s", file, ls_errstr(err));
		lsp_free(p);
		return 1;
	}
	if (cli_out_open(&of, out)) {
		status = 1;
	} else if (svg) {
		fflush(of.f);	/* dot writes to its file descriptor */
		if ((status = run_dot(v, &o, of.f)))
			ls_out_abort(&of);
		else
			status = cli_out_finish(&of, 0);
	} else {
		status = cli_out_finish(&of, report_dot(of.f, v, &o));
	}
	lsp_view_free(v);
	lsp_free(p);
	return status;
}
