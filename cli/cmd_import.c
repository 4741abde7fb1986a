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
	"                        [--cpuid-0x15.ebx N] [--filter:addrN_cfg|_a|_b V]...\n"
	"                        [--pevent:primary|secondary FILE[:FROM[-TO]]]...\n"
	"                        [--pevent:sample-type V] [--pevent:sample-config ID:V]...\n"
	"                        [--pevent:time-zero|time-shift|time-mult|tsc-offset V]\n"
	"                        [--pevent:sysroot DIR] [-o OUT.lsc]\n"
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
	"                          TO, TO excluded) instead of perf.data; several:\n"
	"                          one per CPU, each with its --pevent:primary\n"
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
	"    --pevent:primary FILE[:FROM[-TO]]\n"
	"                          raw PT: the perf_event sideband of a capture's CPU\n"
	"                          (the k-th goes with the k-th --raw-pt)\n"
	"    --pevent:secondary FILE[:FROM[-TO]]\n"
	"                          raw PT: sideband of other CPUs or of none\n"
	"    --pevent:sample-type V  perf_event_attr.sample_type of the records\n"
	"    --pevent:sample-config ID:V  the sample_type of event ID\n"
	"    --pevent:time-zero V, --pevent:time-shift V, --pevent:time-mult V\n"
	"                          perf time from TSC (defaults 0, 0, 1)\n"
	"    --pevent:tsc-offset V place the sideband V TSC ticks earlier\n"
	"    --pevent:sysroot DIR  read the files the sideband maps under DIR\n"
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
		cli_writer_close(w);
		unlink(out);
		return 1;
	}
	cerr = cli_writer_close(w);
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

/* The --pevent:* options into po (files and cfg have room for argc
 * entries).  Returns 1 when a is one, 0 when not, -1 on a bad value
 * (already said). */
static int pevent_opt(int argc, char **argv, int *i, struct lsr_pevent_opts *po,
		      struct lspd_pevent_config *cfg)
{
	static const char *const num[] = {
		"--pevent:sample-type", "--pevent:time-zero", "--pevent:time-shift",
		"--pevent:time-mult", "--pevent:tsc-offset",
	};
	uint64_t *dst[] = { &po->sample_type, &po->time_zero, &po->time_shift,
			    &po->time_mult, &po->tsc_offset };
	const char *v;
	size_t k;

	if (strncmp(argv[*i], "--pevent:", 9))
		return 0;
	for (k = 0; k < sizeof(num) / sizeof(num[0]); k++)
		if ((v = opt_value(argc, argv, i, num[k])))
			return *v && cli_opt_u64(num[k], v, 0, k == 3, UINT64_MAX,
						 dst[k]) == 0 ? 1 : -1;	/* time-mult > 0 */
	for (k = 0; k < 2; k++) {
		struct lsr_pevent_file *f = &po->files[po->nfiles];

		v = opt_value(argc, argv, i, k ? "--pevent:secondary" : "--pevent:primary");
		if (!v)
			continue;
		if (!*v)
			return -1;
		f->path = v;
		f->primary = !k;
		if (split_range((char *)v, &f->from, &f->to) < 0) {
			cli_error("'%s': the end of a range must lie above its start", v);
			return -1;
		}
		po->nfiles++;
		return 1;
	}
	if ((v = opt_value(argc, argv, i, "--pevent:sample-config"))) {
		char *colon = strchr(v, ':');

		if (!*v || !colon) {
			cli_error("--pevent:sample-config wants ID:SAMPLE_TYPE, not '%s'", v);
			return -1;
		}
		*colon = '\0';
		if (cli_opt_u64("--pevent:sample-config", v, 0, 0, UINT64_MAX, &cfg[po->ncfg].id) < 0 ||
		    cli_opt_u64("--pevent:sample-config", colon + 1, 0, 0, UINT64_MAX,
				&cfg[po->ncfg].sample_type) < 0)
			return -1;
		po->ncfg++;
		return 1;
	}
	if ((v = opt_value(argc, argv, i, "--pevent:sysroot"))) {
		po->sysroot = v;
		return *v ? 1 : -1;
	}
	return 0;
}

struct import_args {
	struct lsr_raw_image *img;
	size_t nimg;
	struct lsr_raw_pt *pts;
	struct lsr_pevent_file *pev;
	struct lspd_pevent_config *cfg;
	struct lsr_raw_opts ro;
	struct lsr_pevent_opts po;
	const char *out, *cpu, *input;
	int embed, sample, quiet, raw_only;
};

/* argv into a.  Returns -1 to go on, else the exit status (usage printed). */
static int parse_args(int argc, char **argv, struct import_args *a)
{
	const char *v;
	int i, rc;

	for (i = 1; i < argc; i++) {
		char *arg = argv[i];

		v = NULL;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			return cli_usage(import_usage, 0);
		} else if (!strcmp(arg, "--no-embed")) {
			a->embed = 0;
		} else if (!strcmp(arg, "--sample")) {
			a->sample = 1;
		} else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
			a->quiet = 1;
		} else if ((v = opt_value(argc, argv, &i, "-o")) ||
			   (v = opt_value(argc, argv, &i, "--output"))) {
			a->out = v;
		} else if ((v = opt_value(argc, argv, &i, "--cpu"))) {
			a->cpu = v;
		} else if ((v = opt_value(argc, argv, &i, "--raw-pt"))) {
			struct lsr_raw_pt *pt = &a->pts[a->ro.npts++];

			pt->path = v;
			if (split_range((char *)v, &pt->from, &pt->to) < 0) {
				cli_error("--raw-pt '%s': the end of a range must lie above its start", v);
				return cli_usage(import_usage, 1);
			}
		} else if ((v = opt_value(argc, argv, &i, "--elf"))) {
			a->img[a->nimg].path = v;
			a->img[a->nimg].has_base = split_addr((char *)v, &a->img[a->nimg].base);
			a->nimg++;
		} else if ((v = opt_value(argc, argv, &i, "--raw"))) {
			struct lsr_raw_image *m = &a->img[a->nimg++];

			m->path = v;
			m->raw = 1;
			if (!split_addr((char *)v, &m->base) ||
			    split_range((char *)v, &m->from, &m->to) < 0) {
				cli_error("--raw needs FILE[:FROM[-TO]]:ADDRESS with TO above FROM, got '%s'", v);
				return cli_usage(import_usage, 1);
			}
		} else if ((rc = raw_num_opt(argc, argv, &i, &a->ro)) != 0 ||
			   (rc = pevent_opt(argc, argv, &i, &a->po, a->cfg)) != 0) {
			if (rc < 0)
				return cli_usage(import_usage, 1);
			a->raw_only = 1;
		} else if (arg[0] == '-' && arg[1]) {
			cli_error("unknown option '%s'", arg);
			return cli_usage(import_usage, 1);
		} else if (!a->input) {
			a->input = arg;
		} else {
			cli_error("more than one input: '%s' and '%s'", a->input, arg);
			return cli_usage(import_usage, 1);
		}
		if (v && !*v)
			return cli_usage(import_usage, 1);
	}
	if (a->ro.npts ? a->input != NULL
	    : (!a->input || a->nimg || a->raw_only ||
	       (a->cpu && (!strcmp(a->cpu, "none") || !strcmp(a->cpu, "auto"))))) {
		cli_error(a->ro.npts ? "--raw-pt takes no perf.data"
			  : !a->input ? "no perf.data given"
			  : "--elf, --raw, --mtc-freq, --nom-freq, --cpuid-0x15.*, --filter:*, --pevent:* and --cpu none|auto need --raw-pt");
		return cli_usage(import_usage, 1);
	}
	return -1;
}

static int run_import(struct import_args *a)
{
	struct lsr_convert_opts co;
	struct lsr_convert_stats st;
	struct lsb_writer_opts wo;
	struct lsb_writer *w;
	char errbuf[512] = "", outbuf[4096];
	const char *out = a->out;
	int err, rc;

	if (!out) {
		const char *base = a->ro.npts ? a->pts[0].path : a->input, *slash;

		if (!a->ro.npts || !strcmp(base, "-")) {
			out = "perf.lsc";
		} else {
			slash = strrchr(base, '/');
			snprintf(outbuf, sizeof(outbuf), "%s.lsc", slash ? slash + 1 : base);
			out = outbuf;
		}
	}
	if (!a->ro.npts && strcmp(a->input, "-") && access(a->input, R_OK) != 0) {
		cli_error("'%s' not found; record one with 'perf record -e intel_pt//u' or 'loopscope record'",
			  a->input);
		return 1;
	}
	memset(&wo, 0, sizeof(wo));
	wo.size = sizeof(wo);
	if (cli_writer_open(&w, out, &wo))
		return 1;
	if (a->ro.npts) {
		a->ro.pts = a->pts;
		a->ro.cpu = a->cpu;
		a->po.embed = a->embed;
		a->po.note = print_note;
		a->po.note_arg = &a->quiet;
		a->po.files = a->pev;
		a->po.cfg = a->cfg;
		a->ro.pevent = a->po.nfiles ? &a->po : NULL;
		err = lsr_raw_pt_import(w, &a->ro, a->img, a->nimg, errbuf, sizeof(errbuf));
		return finish(w, out, err, errbuf);
	}
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = a->sample ? LSB_RUN_SAMPLE : LSB_RUN_TRACE;
	co.embed = a->embed;
	co.cpu = a->cpu;
	co.note = print_note;
	co.note_arg = &a->quiet;
	err = lsr_perf_convert(w, a->input, &co, &st, errbuf, sizeof(errbuf));
	rc = finish(w, out, err, errbuf);
	if (!rc && !a->quiet)
		fprintf(stderr, "loopscope: wrote '%s': %" PRIu64 " records, %" PRIu32
			" PT streams (%" PRIu64 " bytes), %" PRIu64 " events, %" PRIu64
			" samples, %" PRIu32 " modules (%" PRIu32 " embedded, %" PRIu32
			" missing)\n", out, st.records, st.streams, st.pt_bytes, st.events,
			st.samples, st.modules, st.embedded, st.missing);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	struct import_args a;
	size_t n = (size_t)argc;
	int rc;

	memset(&a, 0, sizeof(a));
	a.embed = 1;
	a.ro.size = sizeof(a.ro);
	a.po.size = sizeof(a.po);
	a.po.time_mult = 1;	/* ptxed's default: perf time is TSC */
	a.img = calloc(n, sizeof(*a.img));
	a.pts = calloc(n, sizeof(*a.pts));
	a.pev = calloc(n, sizeof(*a.pev));
	a.cfg = calloc(n, sizeof(*a.cfg));
	if (!a.img || !a.pts || !a.pev || !a.cfg) {
		cli_error("out of memory");
		rc = 1;
	} else {
		a.po.files = a.pev;
		rc = parse_args(argc, argv, &a);
		if (rc < 0)
			rc = run_import(&a);
	}
	free(a.img);
	free(a.pts);
	free(a.pev);
	free(a.cfg);
	return rc;
}
