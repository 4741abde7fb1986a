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
	"   or: loopscope import --raw-pt FILE[:FROM[-TO]] [--cpu none|auto|F/M[/S]]\n"
	"                        [--elf FILE[:BASE]]... [--raw FILE[:FROM[-TO]]:ADDRESS]...\n"
	"                        [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N]\n"
	"                        [--cpuid-0x15.ebx N] [--filter:addrN_cfg|_a|_b V]... [-o OUT.lsc]\n"
	"\n"
	"    -o, --output FILE     write the bundle to FILE (default: perf.lsc, or\n"
	"                          the raw capture's name with .lsc)\n"
	"    --no-embed            keep module references only, embed no ELF files\n"
	"    --cpu F/M[/S]         CPU family/model/stepping of the recording machine;\n"
	"                          raw PT also takes none (no errata, the default)\n"
	"                          and auto (this machine's)\n"
	"    --sample              the perf.data is a sampling run (LSB_RUN_SAMPLE)\n"
	"    --raw-pt FILE[:FROM[-TO]]\n"
	"                          import a raw Intel PT capture (its bytes FROM to\n"
	"                          TO, TO excluded) instead of perf.data\n"
	"    --elf FILE[:BASE]     raw PT: an ELF file loaded at BASE (default: its\n"
	"                          own addresses)\n"
	"    --raw FILE[:FROM[-TO]]:ADDRESS\n"
	"                          raw PT: a raw memory image (or its bytes FROM to\n"
	"                          TO) at ADDRESS\n"
	"    --mtc-freq N          raw PT: IA32_RTIT_CTL.MTCFreq (0-15)\n"
	"    --nom-freq N          raw PT: MSR_PLATFORM_INFO[15:8], the nominal ratio\n"
	"    --cpuid-0x15.eax N, --cpuid-0x15.ebx N\n"
	"                          raw PT: CPUID leaf 0x15, the TSC/crystal ratio\n"
	"    --filter:addrN_cfg C, --filter:addrN_a A, --filter:addrN_b B\n"
	"                          raw PT: address filter N (0-3) as traced:\n"
	"                          IA32_RTIT_CTL.ADDRn_CFG, IA32_RTIT_ADDRn_A/B\n"
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

/* "FILE:FROM" or "FILE:FROM-TO" -> FILE (in place) and the range, as
 * ptxed reads it: a suffix that is no range stays part of the name.
 * Returns 1 with a range, 0 without, -1 for TO not above FROM. */
static int split_range(char *s, uint64_t *from, uint64_t *to)
{
	char *colon = strrchr(s, ':'), *end;
	unsigned long long a, b = 0;

	if (!colon || !colon[1] || colon[1] == '-')
		return 0;
	a = strtoull(colon + 1, &end, 0);
	if (*end == '-' && end[1] && end[1] != '-') {
		b = strtoull(end + 1, &end, 0);
		if (*end)
			return 0;
		if (b <= a)
			return -1;
	} else if (*end) {
		return 0;
	}
	*colon = '\0';
	*from = a;
	*to = b;
	return 1;
}

/* --filter:addrN_cfg|_a|_b VALUE into ro.  Returns 1 when a is one, 0
 * when not, -1 on a bad value (already said). */
static int filter_opt(int argc, char **argv, int *i, struct lsr_raw_opts *ro)
{
	static const char pre[] = "--filter:addr";
	const char *a = argv[*i], *v;
	char name[32];
	unsigned n;
	uint64_t x;

	if (strncmp(a, pre, sizeof(pre) - 1) || a[sizeof(pre) - 1] < '0' ||
	    a[sizeof(pre) - 1] > '3' || a[sizeof(pre)] != '_')
		return 0;
	n = (unsigned)(a[sizeof(pre) - 1] - '0');
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, "="), a);
	if (strcmp(name + sizeof(pre), "_cfg") && strcmp(name + sizeof(pre), "_a") &&
	    strcmp(name + sizeof(pre), "_b"))
		return 0;
	v = opt_value(argc, argv, i, name);
	if (!v || !*v)
		return -1;
	if (!strcmp(name + sizeof(pre), "_cfg")) {
		if (cli_opt_u64(name, v, 0, 0, 15, &x) < 0)
			return -1;
		ro->addr_cfg = (ro->addr_cfg & ~(0xfull << (4 * n))) | x << (4 * n);
	} else if (cli_opt_u64(name, v, 0, 0, UINT64_MAX, &x) < 0) {
		return -1;
	} else if (name[sizeof(pre) + 1] == 'a') {
		ro->addr_a[n] = x;
	} else {
		ro->addr_b[n] = x;
	}
	return 1;
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

/* The raw-only numeric options into ro.  Returns 1 when a is one, 0 when
 * not, -1 on a bad value (already said). */
static int raw_num_opt(int argc, char **argv, int *i, struct lsr_raw_opts *ro)
{
	const char *v;
	uint32_t x;

	if ((v = opt_value(argc, argv, i, "--mtc-freq"))) {
		if (!*v || cli_opt_u32("--mtc-freq", v, 0, 0, 15, &x) < 0)
			return -1;
		ro->mtc_freq = (uint8_t)x;
		ro->have |= LSR_RAW_MTC_FREQ;
	} else if ((v = opt_value(argc, argv, i, "--nom-freq"))) {
		if (!*v || cli_opt_u32("--nom-freq", v, 0, 0, 255, &x) < 0)
			return -1;
		ro->nom_freq = (uint8_t)x;
		ro->have |= LSR_RAW_NOM_FREQ;
	} else if ((v = opt_value(argc, argv, i, "--cpuid-0x15.eax"))) {
		if (!*v || cli_opt_u32("--cpuid-0x15.eax", v, 0, 0, UINT32_MAX,
				       &ro->cpuid_0x15_eax) < 0)
			return -1;
		ro->have |= LSR_RAW_CPUID_EAX;
	} else if ((v = opt_value(argc, argv, i, "--cpuid-0x15.ebx"))) {
		if (!*v || cli_opt_u32("--cpuid-0x15.ebx", v, 0, 0, UINT32_MAX,
				       &ro->cpuid_0x15_ebx) < 0)
			return -1;
		ro->have |= LSR_RAW_CPUID_EBX;
	} else {
		return filter_opt(argc, argv, i, ro);
	}
	return 1;
}

int cmd_import(int argc, char **argv)
{
	struct lsr_raw_image *img;
	struct lsr_convert_opts co;
	struct lsr_convert_stats st;
	struct lsr_raw_opts ro;
	struct lsb_writer_opts wo;
	struct lsb_writer *w;
	const char *out = NULL, *cpu = NULL, *input = NULL, *v;
	char *raw_pt = NULL;
	char errbuf[512] = "", outbuf[4096];
	size_t nimg = 0;
	int i, embed = 1, sample = 0, quiet = 0, raw_only = 0, err, rc;

	img = calloc((size_t)argc, sizeof(*img));
	if (!img) {
		cli_error("out of memory");
		return 1;
	}
	memset(&ro, 0, sizeof(ro));
	ro.size = sizeof(ro);
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
			raw_pt = (char *)v;
			if (split_range(raw_pt, &ro.pt_from, &ro.pt_to) < 0) {
				cli_error("--raw-pt '%s': the end of a range must lie above its start", v);
				free(img);
				return cli_usage(import_usage, 1);
			}
		} else if ((v = opt_value(argc, argv, &i, "--elf"))) {
			img[nimg].path = v;
			img[nimg].has_base = split_addr((char *)v, &img[nimg].base);
			nimg++;
		} else if ((v = opt_value(argc, argv, &i, "--raw"))) {
			img[nimg].path = v;
			img[nimg].raw = 1;
			if (!split_addr((char *)v, &img[nimg].base) ||
			    split_range((char *)v, &img[nimg].from, &img[nimg].to) < 0) {
				cli_error("--raw needs FILE[:FROM[-TO]]:ADDRESS with TO above FROM, got '%s'", v);
				free(img);
				return cli_usage(import_usage, 1);
			}
			nimg++;
		} else if ((rc = raw_num_opt(argc, argv, &i, &ro)) != 0) {
			if (rc < 0) {
				free(img);
				return cli_usage(import_usage, 1);
			}
			raw_only = 1;
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
	if (raw_pt ? input != NULL : (!input || nimg || raw_only ||
				       (cpu && (!strcmp(cpu, "none") || !strcmp(cpu, "auto"))))) {
		cli_error(raw_pt ? "--raw-pt takes no perf.data"
			  : !input ? "no perf.data given"
			  : "--elf, --raw, --mtc-freq, --nom-freq, --cpuid-0x15.*, --filter:* and --cpu none|auto need --raw-pt");
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
	err = lsb_writer_open(&w, out, &wo);
	if (err < 0) {
		char why[4200];

		cli_error("cannot create '%s': %s", out,
			  err == -LS_EIO && cli_create_problem(out, why, sizeof(why)) ?
			  why : ls_errstr(err));
		free(img);
		return 1;
	}
	if (raw_pt) {
		ro.pt_path = raw_pt;
		ro.cpu = cpu;
		err = lsr_raw_pt_import(w, &ro, img, nimg, errbuf, sizeof(errbuf));
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
