/* cpi_util.c - the sampled-CPI records for `report --cpi`, `annotate`,
 * `html` and `export --callgrind` (cpi_util.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/cpiview.h"
#include "cli/cpi_util.h"
#include "ls_err.h"

static void warn_unattributed(const char *file, uint64_t samples, uint64_t attributed,
			      uint64_t no_module, uint64_t not_executed, uint64_t unmapped);

double cli_cpi_pct(double x, double all)
{
	return all > 0 ? 100.0 * x / all : 0.0;
}

/* Samples the trace cannot place are not guessed; when they are a
 * noticeable share the numbers describe only part of the run. */
static void warn_unattributed(const char *file, uint64_t samples, uint64_t attributed,
			      uint64_t no_module, uint64_t not_executed, uint64_t unmapped)
{
	if (samples - attributed <= samples / 20)
		return;
	cli_warning("%.1f%% of the %" PRIu64 " samples of '%s' could not be "
		    "attributed to the trace (%" PRIu64 " in modules the trace "
		    "never executed, %" PRIu64 " at addresses it never executed, %"
		    PRIu64 " unmapped): were the sampling and the traced run "
		    "the same program and input?",
		    cli_cpi_pct((double)(samples - attributed), (double)samples),
		    samples, file, no_module, not_executed, unmapped);
}

/* The records annotate prints, of bundle file: its graph alone, one
 * decode without the loop detector.  Returns 0 or -1 after a message. */
static int bundle_insns(const char *file, const char *debug_dir, int no_skid_fix,
			struct lsp_profile **out)
{
	struct lsa_cpiview_opts o = { .size = sizeof(o), .no_skid_fix = no_skid_fix,
				      .debug_dir = debug_dir };
	struct cli_cfg cc;
	struct lsp_profile *p = NULL;
	int err;

	if (cli_cfg_open(&cc, file, debug_dir))
		return -1;
	if (!cc.have_img) {
		cli_error("cannot read the code of '%s': the executables are neither "
			  "embedded nor found (try --debug-dir)", file);
		cli_cfg_close(&cc);
		return -1;
	}
	o.img = &cc.img;
	if ((err = lsp_new(&p, 0)) < 0 || !(p->source = strdup(file)) ||
	    (err = lsa_cpiview_put(p, cc.cfg, cc.r, cc.sym, &o)) < 0 ||
	    (err = lsp_sort(p)) < 0) {
		cli_error("cannot read the samples of '%s': %s", file,
			  ls_errstr(err < 0 ? err : -LS_ENOMEM));
		lsp_free(p);
		p = NULL;
	}
	cli_cfg_close(&cc);
	*out = p;
	return p ? 0 : -1;
}

int cli_cpi_load(const char *file, const char *debug_dir, int no_skid_fix,
		 int need_samples, int want_loops, struct lsp_profile **out)
{
	struct cli_analyses ca = { .cpi = 1, .no_skid_fix = no_skid_fix > 0 };
	struct lsp_profile *p = NULL;
	char msg[512] = "";
	int r = lsp_is_profile(file);

	*out = NULL;
	if (r == 1) {
		if ((r = lsp_read(&p, file, msg, sizeof(msg))) < 0) {
			cli_error("%s", msg[0] ? msg : ls_errstr(r));
			return -1;
		}
		if (!p->has_cpi) {
			cli_error("'%s' has no sampled-CPI records: run 'loopscope analyze "
				  "--cpi' on its bundle (recorded with 'loopscope record "
				  "--sample'), or give the bundle", file);
			lsp_free(p);
			return -1;
		}
		if (no_skid_fix >= 0 && !p->cpi.skid_fix != !!no_skid_fix) {
			cli_error("'%s' was analyzed with%s the skid fix: give the bundle, or "
				  "analyze it with 'loopscope analyze --cpi%s'", file,
				  p->cpi.skid_fix ? "" : "out",
				  no_skid_fix ? " --no-skid-fix" : "");
			lsp_free(p);
			return -1;
		}
	} else if (want_loops ? cli_analyze_bundle_with(file, debug_dir, &ca, &p) < 0 :
		   bundle_insns(file, debug_dir, no_skid_fix > 0, &p) < 0) {
		return -1;
	}
	if (!p->cpi.samples && need_samples) {
		cli_error("no samples in '%s': record with 'loopscope record --sample'", file);
		lsp_free(p);
		return -1;
	}
	warn_unattributed(file, p->cpi.samples, p->cpi.attributed, p->cpi.no_module,
			  p->cpi.not_executed, p->cpi.unmapped);
	*out = p;
	return 0;
}

void cli_cpi_print_account(FILE *out, const struct lsp_cpi *c)
{
	uint64_t un = c->samples - c->attributed;

	fprintf(out, "samples: %" PRIu64 " of %s, %" PRIu64 " attributed; %" PRIu64
		" not attributed (%.1f%%): %" PRIu64 " unmapped, %" PRIu64
		" in modules the trace never executed, %" PRIu64
		" at addresses the trace never executed\n",
		c->samples, c->event && c->event[0] ? c->event : "?",
		c->attributed, un, cli_cpi_pct((double)un, (double)c->samples),
		c->unmapped, c->no_module, c->not_executed);
}

double cli_cpi_per(uint64_t cost, uint64_t execs)
{
	return execs ? (double)cost / (double)execs : 0.0;
}
