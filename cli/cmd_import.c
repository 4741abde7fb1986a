/* cmd_import.c - `loopscope import`: a perf.data file (Intel PT or a
 * sampling run) or a raw PT capture into a trace bundle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ls_err.h"
#include "formats/bundle.h"
#include "recorder/perf_convert.h"

static const char import_usage[] =
	"usage: loopscope import [-o OUT.lsc] [--no-embed] [--cpu F/M[/S]] [--sample] perf.data\n"
	"   or: loopscope import --raw-pt FILE --cpu FAMILY/MODEL[/STEPPING]\n"
	"                        [--elf FILE[:BASE]]... [--raw FILE:ADDRESS]... [-o OUT.lsc]\n"
	"\n"
	"    -o, --output FILE     write the bundle to FILE (default: perf.lsc, or\n"
	"                          the raw capture's name with .lsc)\n"
	"    --no-embed            keep module references only, embed no ELF files\n"
	"    --cpu F/M[/S]         CPU family/model/stepping of the recording machine\n"
	"    --sample              the perf.data is a sampling run (LSB_RUN_SAMPLE)\n"
	"    --raw-pt FILE         import a raw Intel PT capture instead of perf.data\n"
	"    --elf FILE[:BASE]     raw PT: an ELF file loaded at BASE (default: its\n"
	"                          own addresses)\n"
	"    --raw FILE:ADDRESS    raw PT: a raw memory image at ADDRESS\n"
	"    -q, --quiet           do not name missing modules\n"
	"    -h, --help            show this help\n"
	"\n"
	"A perf.data of '-' is read from stdin (perf record -o - pipe mode).\n";

static void print_note(void *arg, const char *msg)
{
	if (!*(int *)arg)
		cli_warning("%s", msg);
}

/* "FILE:NUMBER" -> FILE (in place) and the number; the last colon
 * separates, so paths with colons still work when a number follows. */
static int split_addr(char *s, uint64_t *addr)
{
	char *colon = strrchr(s, ':'), *end;
	unsigned long long v;

	if (!colon || colon == s || !colon[1])
		return 0;
	v = strtoull(colon + 1, &end, 0);
	if (*end)
		return 0;
	*colon = '\0';
	*addr = v;
	return 1;
}

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc) {
		cli_error("option '%s' needs a value", name);
		return "";
	}
	return argv[++*i];
}

static int finish(struct lsb_writer *w, const char *out, int err,
		  const char *errbuf)
{
	int cerr;

	if (err < 0) {
		cli_error("%s", errbuf[0] ? errbuf : ls_errstr(err));
		lsb_writer_close(w);
		unlink(out);
		return 1;
	}
	cerr = lsb_writer_close(w);
	if (cerr < 0) {
		cli_error("'%s': %s", out, ls_errstr(cerr));
		return 1;
	}
	return 0;
}

int cmd_import(int argc, char **argv)
{
	struct lsr_raw_image *img;
	struct lsr_convert_opts co;
	struct lsr_convert_stats st;
	struct lsb_writer_opts wo;
	struct lsb_writer *w;
	const char *out = NULL, *raw_pt = NULL, *cpu = NULL, *input = NULL, *v;
	char errbuf[512] = "", outbuf[4096];
	size_t nimg = 0;
	int i, embed = 1, sample = 0, quiet = 0, err, rc;

	img = calloc((size_t)argc, sizeof(*img));
	if (!img) {
		cli_error("out of memory");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		v = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(img);
			return cli_usage(import_usage, 0);
		} else if (!strcmp(a, "--no-embed")) {
			embed = 0;
		} else if (!strcmp(a, "--sample")) {
			sample = 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if ((v = opt_value(argc, argv, &i, "-o")) ||
			   (v = opt_value(argc, argv, &i, "--output"))) {
			out = v;
		} else if ((v = opt_value(argc, argv, &i, "--cpu"))) {
			cpu = v;
		} else if ((v = opt_value(argc, argv, &i, "--raw-pt"))) {
			raw_pt = v;
		} else if ((v = opt_value(argc, argv, &i, "--elf"))) {
			img[nimg].path = v;
			img[nimg].has_base = split_addr((char *)v, &img[nimg].base);
			nimg++;
		} else if ((v = opt_value(argc, argv, &i, "--raw"))) {
			img[nimg].path = v;
			img[nimg].raw = 1;
			if (!split_addr((char *)v, &img[nimg].base)) {
				cli_error("--raw needs FILE:ADDRESS, got '%s'", v);
				free(img);
				return cli_usage(import_usage, 1);
			}
			nimg++;
		} else if (a[0] == '-' && a[1]) {
			cli_error("unknown option '%s'", a);
			free(img);
			return cli_usage(import_usage, 1);
		} else if (!input) {
			input = a;
		} else {
			cli_error("more than one input: '%s' and '%s'", input, a);
			free(img);
			return cli_usage(import_usage, 1);
		}
		if (v && !*v) {
			free(img);
			return cli_usage(import_usage, 1);
		}
	}
	if (raw_pt ? input != NULL || !cpu : (!input || nimg)) {
		cli_error(raw_pt ? "--raw-pt needs --cpu and takes no perf.data"
			  : !input ? "no perf.data given"
			  : "--elf/--raw need --raw-pt");
		free(img);
		return cli_usage(import_usage, 1);
	}
	if (!out) {
		const char *base = raw_pt ? raw_pt : input, *slash;

		if (!raw_pt || !strcmp(base, "-")) {
			out = "perf.lsc";
		} else {
			slash = strrchr(base, '/');
			snprintf(outbuf, sizeof(outbuf), "%s.lsc", slash ? slash + 1 : base);
			out = outbuf;
		}
	}
	if (!raw_pt && strcmp(input, "-") && access(input, R_OK) != 0) {
		cli_error("'%s' not found; record one with 'perf record -e intel_pt//u' or 'loopscope record'",
			  input);
		free(img);
		return 1;
	}
	memset(&wo, 0, sizeof(wo));
	wo.size = sizeof(wo);
	if (cli_writer_open(&w, out, &wo)) {
		free(img);
		return 1;
	}
	if (raw_pt) {
		err = lsr_raw_pt_import(w, raw_pt, cpu, img, nimg, errbuf, sizeof(errbuf));
		free(img);
		return finish(w, out, err, errbuf);
	}
	free(img);
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = sample ? LSB_RUN_SAMPLE : LSB_RUN_TRACE;
	co.embed = embed;
	co.cpu = cpu;
	co.note = print_note;
	co.note_arg = &quiet;
	err = lsr_perf_convert(w, input, &co, &st, errbuf, sizeof(errbuf));
	rc = finish(w, out, err, errbuf);
	if (!rc && !quiet)
		fprintf(stderr, "loopscope: wrote '%s': %" PRIu64 " records, %" PRIu32
			" PT streams (%" PRIu64 " bytes), %" PRIu64 " events, %" PRIu64
			" samples, %" PRIu32 " modules (%" PRIu32 " embedded, %" PRIu32
			" missing)\n", out, st.records, st.streams, st.pt_bytes, st.events,
			st.samples, st.modules, st.embedded, st.missing);
	return rc;
}
