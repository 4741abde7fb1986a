/* cpi_util.c - the sampled-CPI records for `report --cpi`, `annotate` and
 * `html`, and a bundle's samples combined with its executed CFG and its
 * loops for the exports (cpi_util.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "analysis/cpiview.h"
#include "cli/cpi_util.h"
#include "ls_err.h"

static void warn_unattributed(const char *file, uint64_t samples, uint64_t attributed,
			      uint64_t no_module, uint64_t not_executed, uint64_t unmapped);

int cli_cpi_open(struct cli_cpi *c, const char *file, const char *debug_dir,
		 int no_skid_fix, int want_loops, int need_samples)
{
	struct lsa_cpi_opts o = { .size = sizeof(o), .no_skid_fix = no_skid_fix,
				  .debug_dir = debug_dir };
	int err, r;

	memset(c, 0, sizeof(*c));
	r = lsp_is_profile(file);
	if (r == 1) {
		cli_error("'%s' is a loop profile, which holds no samples: CPI needs "
			  "the bundle itself (recorded with 'loopscope record --sample')",
			  file);
		return -1;
	}
	/* the call stacks of the graph's one decode give the totals */
	if (want_loops) {
		struct lsa_cfg_observer obs;

		if ((err = lsa_cpi_stacks_new(&c->stacks)) < 0) {
			cli_error("out of memory");
			return -1;
		}
		lsa_cpi_stacks_observer(c->stacks, &obs);
		if (cli_cfg_open_obs(&c->cc, file, debug_dir, &obs)) {
			cli_cpi_close(c);
			return -1;
		}
	} else if (cli_cfg_open(&c->cc, file, debug_dir)) {
		return -1;
	}
	if (!c->cc.have_img) {
		cli_error("cannot read the code of '%s': the executables are neither "
			  "embedded nor found (try --debug-dir)", file);
		cli_cpi_close(c);
		return -1;
	}
	o.img = &c->cc.img;
	if ((err = lsa_cpi_new(&c->cpi, c->cc.cfg, c->cc.r, &o)) < 0) {
		cli_error("cannot read the samples of '%s': %s", file, ls_errstr(err));
		cli_cpi_close(c);
		return -1;
	}
	lsa_cpi_get_stats(c->cpi, &c->st);
	if (!c->st.samples && need_samples) {
		cli_error("no samples in '%s': record with 'loopscope record --sample'",
			  file);
		cli_cpi_close(c);
		return -1;
	}
	if (want_loops) {
		if (cli_analyze_bundle(file, debug_dir, &c->prof) < 0) {
			cli_cpi_close(c);
			return -1;
		}
		if ((err = lsa_cpi_add_loops(c->cpi, c->cc.cfg, c->cc.r, c->prof, &c->dyn_loop,
					     &c->ndyn, &c->sl)) < 0) {
			cli_error("cannot find the loops of '%s': %s", file, ls_errstr(err));
			cli_cpi_close(c);
			return -1;
		}
	}
	if ((err = lsa_cpi_finish(c->cpi)) < 0) {
		cli_error("cannot combine the samples of '%s': %s", file, ls_errstr(err));
		cli_cpi_close(c);
		return -1;
	}
	/* Totals follow the trace's call stacks, counted in the decode. */
	if (want_loops && (err = lsa_cpi_chains(c->cpi, c->stacks)) < 0) {
		cli_error("cannot follow the call stacks of '%s': %s", file,
			  ls_errstr(err));
		cli_cpi_close(c);
		return -1;
	}
	warn_unattributed(file, c->st.samples, c->st.attributed, c->st.no_module,
			  c->st.not_executed, c->st.unmapped);
	return 0;
}

void cli_cpi_close(struct cli_cpi *c)
{
	lsa_sloops_free(c->sl);
	lsa_cpi_free(c->cpi);
	lsa_cpi_stacks_free(c->stacks);
	lsp_free(c->prof);
	free(c->dyn_loop);
	cli_cfg_close(&c->cc);
	memset(c, 0, sizeof(*c));
}

const char *cli_cpi_func_name(const struct cli_cpi *c, uint32_t f, char *buf,
			      size_t len)
{
	const struct lsa_cfg_func *fn = lsa_cfg_func(c->cc.cfg, f);
	const struct lsb_module *m;
	const char *base;

	if (!fn)
		return "?";
	if (fn->name)
		return fn->name;
	m = fn->module >= 0 ? lsb_reader_module(c->cc.r, (size_t)fn->module) : NULL;
	base = m && m->path ? strrchr(m->path, '/') : NULL;
	snprintf(buf, len, "%s+0x%" PRIx64,
		 base ? base + 1 : m && m->path ? m->path : "?", fn->start);
	return buf;
}

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
	struct cli_analyses ca = { .cpi = 1, .no_skid_fix = no_skid_fix };
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
		if (!p->cpi.skid_fix != !!no_skid_fix) {
			cli_error("'%s' was analyzed with%s the skid fix: give the bundle, or "
				  "analyze it with 'loopscope analyze --cpi%s'", file,
				  p->cpi.skid_fix ? "" : "out",
				  no_skid_fix ? " --no-skid-fix" : "");
			lsp_free(p);
			return -1;
		}
	} else if (want_loops ? cli_analyze_bundle_with(file, debug_dir, &ca, &p) < 0 :
		   bundle_insns(file, debug_dir, no_skid_fix, &p) < 0) {
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
