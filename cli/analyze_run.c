/* analyze_run.c - one analysis of a bundle: its shards, on threads.
 *
 * A bundle's threads are independent to the loop detector: `analyze
 * --shard k/n` profiles a set of whole threads, and merging every shard
 * gives the whole bundle's profile byte for byte (t0930).  So with
 * --jobs above one, a bundle of several threads is cut into as many
 * shards as there are jobs (cli_shard_plan()), each decoded and analyzed
 * on a thread of its own, and the shards are merged in memory: the same
 * profile, near-linear over the jobs while there are threads to spread.
 *
 * Only the detector runs on the worker threads.  Everything that may
 * write a file or print - opening the bundle, the decoder (its caches in
 * LOOPSCOPE_CACHE), the symbols, the error messages - happens on the
 * calling thread, one shard after the other.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/consume.h"
#include "analysis/loops.h"
#include "analysis/cgraph.h"
#include "analysis/cpiview.h"
#include "analysis/sview.h"
#include "cli.h"
#include "cli/term.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

/* One shard being analyzed. */
struct shard {
	const char *path, *debug_dir;
	uint32_t k, n;
	unsigned jobs;
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym;
	uint8_t *mask;
	/* the analyses beside the detector (analysis/consume.h) */
	const struct cli_analyses *ca;
	struct lsa_consumers set;
	struct lsa_sview *sv;
	struct lsa_cgraph *cg;
	struct lsa_cpiview *cv;
	/* The graph the dependences read (ca->deps): the CPI's, or g_own
	 * fed by a consumer of its own, which the graph records and the
	 * structural loops then share. */
	struct lsa_cfg *g, *g_own;
	struct lsd_image img;
	int have_img;
	struct lsp_profile *p;
	struct lsa_loops_stats st;
	int err;		/* lsa_loops_analyze()'s */
	pthread_t th;
	int started;
};

static void shard_close(struct shard *s)
{
	lsa_sview_free(s->sv);
	s->sv = NULL;
	lsa_cgraph_free(s->cg);
	s->cg = NULL;
	lsa_cpiview_free(s->cv);
	s->cv = NULL;
	lsa_cfg_free(s->g_own);
	s->g = s->g_own = NULL;
	if (s->have_img)
		lsd_image_release(&s->img);
	s->have_img = 0;
	lsd_symbols_close(s->sym);
	lsd_close(s->d);
	lsb_reader_close(s->r);
	free(s->mask);
	s->sym = NULL;
	s->d = NULL;
	s->r = NULL;
	s->mask = NULL;
}

/* The sampled CPI's analysis (its graph, with the call stacks counted
 * beside it), into s->cv; its consumer is added last.  Returns 0, 1 after
 * printing the error, or a negative LS_E* code. */
static int new_cpi(struct shard *s)
{
	struct lsa_cpiview_opts co = { .size = sizeof(co), .no_skid_fix = s->ca->no_skid_fix,
				       .debug_dir = s->debug_dir };

	if (!s->have_img) {
		cli_error("cannot read the code of '%s': the executables are neither "
			  "embedded nor found (try --debug-dir)", s->path);
		return 1;
	}
	co.img = &s->img;
	return lsa_cpiview_new(&s->cv, s->r, s->sym, &co);
}

static int graph_finish(void *arg, struct lsp_profile *p)
{
	(void)p;
	return lsa_cfg_finish(arg);
}

/* The graph the dependences read, when no CPI builds one: fed and
 * finished by a consumer of its own, added first.  Returns 0 or a
 * negative LS_E* code. */
static int add_graph(struct shard *s)
{
	struct lsa_cfg_opts co = { .size = sizeof(co), .img = s->have_img ? &s->img : NULL };
	struct lsa_consumer c = { .name = "graph", .cb = &lsa_cfg_callbacks,
				  .finish = graph_finish };
	int err;

	if ((err = lsa_cfg_new(&s->g_own, s->sym, &co)) < 0)
		return err;
	s->g = c.arg = s->g_own;
	return lsa_consumers_add(&s->set, &c);
}

/* The consumers of the decode besides the loop detector that s->ca asks
 * for, into s->set.  Returns 0, 1 after printing the error, or a
 * negative LS_E* code. */
static int add_consumers(struct shard *s)
{
	struct lsa_sview_opts so = { .size = sizeof(so) };
	struct lsa_consumer c;
	int err;

	memset(&s->set, 0, sizeof(s->set));
	if (!s->ca || (!s->ca->structural && !s->ca->cfg && !s->ca->cpi && !s->ca->deps))
		return 0;
	/* code bytes find the targets of branches never taken */
	if (lsd_image_build_dir(&s->img, s->r, 0, LSB_RUN_TRACE, s->debug_dir) >= 0) {
		s->have_img = 1;
		so.img = &s->img;
	}
	/* One graph for all: the CPI's (it counts the call stacks beside
	 * it) is the one the graph records and structural loops read, whose
	 * consumers, finishing first, then feed nothing. */
	if (s->ca->cpi && (err = new_cpi(s)) != 0)
		return err;
	if (s->cv)
		s->g = lsa_cpiview_graph(s->cv);
	else if (s->ca->deps && (err = add_graph(s)) < 0)
		return err;
	so.cfg = s->g;
	if (!s->ca->structural && s->ca->cfg) {
		if ((err = so.cfg ? lsa_cgraph_new_on(&s->cg, s->r, s->sym, so.cfg) :
			   lsa_cgraph_new(&s->cg, s->r, s->sym, so.img)) < 0)
			return err;
		lsa_cgraph_consumer(s->cg, &c);
		if ((err = lsa_consumers_add(&s->set, &c)) < 0)
			return err;
	} else if (s->ca->structural) {
		/* one graph serves both */
		so.merge_t = s->ca->merge_t;
		so.graph = s->ca->cfg;
		if ((err = lsa_sview_new(&s->sv, s->r, s->sym, &so)) < 0)
			return err;
		lsa_sview_consumer(s->sv, &c);
		if ((err = lsa_consumers_add(&s->set, &c)) < 0)
			return err;
	}
	if (s->cv) {
		lsa_cpiview_consumer(s->cv, &c);
		return lsa_consumers_add(&s->set, &c);
	}
	return 0;
}

/* Opens the bundle (unless open), the decoder of the shard's streams and
 * the symbols.  Returns 0, or 1 after printing the error (s closed). */
static int shard_open(struct shard *s)
{
	/* the detector and the decode take two jobs; the read-ahead of the
	 * chunks is a third thread, worth it only with a core of its own.
	 * The open's scan runs before them, alone: it takes every job. */
	struct lsd_opts o = { .size = sizeof(o), .iclasses = 1,
			      .debug_dir = s->debug_dir, .jobs = s->jobs > 2 ? 2 : 1,
			      .scan_jobs = s->jobs, .keep_chunks = s->jobs > 1 };
	char msg[600];
	int err;

	if (!s->r && cli_open_bundle(s->path, &s->r))
		return 1;
	/* (cli_analyze_into() cut its own shard already) */
	if (!s->mask && cli_shard_streams(s->r, s->path, s->k, s->n, &s->mask))
		goto fail;
	o.streams = s->mask;
	err = lsd_open_msg(&s->d, s->r, &o, msg, sizeof(msg));
	/* (a build-id not found, capstone not loaded: the open says which) */
	if (err == -LS_EBUILDID || (err == -LS_EUNSUP && msg[0])) {
		cli_error("cannot decode '%s': %s", s->path, msg);
		goto fail;
	}
	if (err < 0) {
		cli_reader_error(s->r, err);
		goto fail;
	}
	/* (NULL: loops without names; shard_close() closes them first) */
	s->sym = cli_symbols_open(s->r, s->d, s->debug_dir);
	if ((err = add_consumers(s)) != 0) {
		if (err < 0)
			cli_error("'%s': %s", s->path, ls_errstr(err));
		goto fail;
	}
	return 0;
fail:
	shard_close(s);
	return 1;
}

/* Runs the detector over the opened shard into s->p. */
static void shard_run(struct shard *s)
{
	struct lsa_loops_opts lo = { .size = sizeof(lo), .want_lines = 1,
				     .trip_limit = s->p->trip_limit,
				     .jobs = s->jobs };

	memset(&s->st, 0, sizeof(s->st));
	/* one decode: the detector drives it, the others consume it */
	s->err = lsa_loops_analyze_with(s->d, s->r, s->sym, s->p, &lo, &s->st,
					s->set.n ? &lsa_consumers_callbacks : NULL,
					&s->set);
	lsa_consumers_release(&s->set);
}

static void *shard_main(void *arg)
{
	shard_run(arg);
	return NULL;
}

/* After shard_run(): the error said, or the part record added and the
 * profile sorted.  Returns 0, or 1 after printing the error. */
static int shard_finish(struct shard *s, const char *id)
{
	int err = s->err;

	if (err < 0) {
		if (err == -LS_ENOMEM)
			cli_error("'%s': %s", s->path, ls_errstr(err));
		else
			cli_reader_error(s->r, err);
		return 1;
	}
	if (!s->p->source && !(s->p->source = strdup(s->path)))
		err = -LS_ENOMEM;
	if (err < 0 || (err = lsa_consumers_finish(&s->set, s->p)) < 0 ||
	    (err = lsp_part_add(s->p, 0, id, s->k, s->n)) < 0 ||
	    (err = lsp_sort(s->p)) < 0) {
		cli_error("'%s': %s", s->path, ls_errstr(err));
		return 1;
	}
	return 0;
}

static void stats_add(struct lsa_loops_stats *a, const struct lsa_loops_stats *b)
{
	a->blocks += b->blocks;
	a->loop_backs += b->loop_backs;
	a->frame_mismatches += b->frame_mismatches;
	a->unwinds += b->unwinds;
	a->resets += b->resets;
	if (b->max_frames > a->max_frames)
		a->max_frames = b->max_frames;
	if (b->max_path > a->max_path)
		a->max_path = b->max_path;
	a->memo_blocks += b->memo_blocks;
	a->memo_starts += b->memo_starts;
	a->cmemo_calls += b->cmemo_calls;
	a->cmemo_blocks += b->cmemo_blocks;
}

/* The shards 0 .. n-1 of the whole bundle on n threads, merged into p
 * (new, empty); shard 0 takes over reader r (closed in any case), the
 * others open their own.  Returns 0, or 1 after printing the error. */
static int analyze_parallel(struct lsb_reader *r, const char *path,
			    const char *debug_dir, unsigned jobs,
			    const struct cli_analyses *ca, uint32_t n,
			    const char *id, struct lsp_profile *p,
			    struct lsa_loops_stats *st)
{
	struct shard *s = calloc(n, sizeof(*s));
	uint32_t i;
	int ret = 1, err;

	if (!s) {
		lsb_reader_close(r);
		cli_error("out of memory");
		return 1;
	}
	s[0].r = r;
	for (i = 0; i < n; i++) {
		s[i].path = path;
		s[i].debug_dir = debug_dir;
		s[i].ca = ca;
		s[i].k = i;
		s[i].n = n;
		/* the jobs left over go to the first shards' decode threads */
		s[i].jobs = jobs / n + (i < jobs % n);
		/* shard 0 into p, the others merged into it, as `merge`
		 * does with its first file */
		if (!i)
			s[i].p = p;
		else if (lsp_new(&s[i].p, p->trip_limit) < 0) {
			cli_error("out of memory");
			goto out;
		}
		if (shard_open(&s[i]))
			goto out;
	}
	/* The progress line counts the chunks of all shards as one pass. */
	cli_progress_group(s[0].r);
	for (i = 0; i < n; i++)
		s[i].started = !pthread_create(&s[i].th, NULL, shard_main, &s[i]);
	for (i = 0; i < n; i++) {
		if (s[i].started)
			pthread_join(s[i].th, NULL);
		else
			shard_run(&s[i]);	/* no thread to be had: here */
	}
	cli_progress_group(NULL);
	for (i = 0; i < n; i++) {
		if (shard_finish(&s[i], id))
			goto out;
		stats_add(st, &s[i].st);
		if (i && (err = lsp_merge(p, s[i].p)) < 0) {
			cli_error("'%s': merging its shards: %s", path, ls_errstr(err));
			goto out;
		}
	}
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		shard_close(&s[i]);
		if (i)
			lsp_free(s[i].p);
	}
	free(s);
	return ret;
}

static int analyze_into(const char *path, const char *debug_dir, int allow_missing,
			unsigned jobs, const struct cli_analyses *ca, uint32_t k,
			uint32_t nshards, struct lsp_profile *p, struct lsa_loops_stats *st);

int cli_analyze_into(const char *path, const char *debug_dir, int allow_missing,
		     unsigned jobs, const struct cli_analyses *ca, uint32_t k,
		     uint32_t nshards, struct lsp_profile *p, struct lsa_loops_stats *st)
{
	int ret;

	/* one progress line over the loops' two passes (struct lsa_know),
	 * and the dependences' decode */
	cli_progress_passes(2 + (ca && ca->deps));
	ret = analyze_into(path, debug_dir, allow_missing, jobs, ca, k, nshards, p, st);
	cli_progress_passes(1);
	return ret;
}

static int analyze_into(const char *path, const char *debug_dir, int allow_missing,
			unsigned jobs, const struct cli_analyses *ca, uint32_t k,
			uint32_t nshards, struct lsp_profile *p, struct lsa_loops_stats *st)
{
	struct shard s = { .path = path, .debug_dir = debug_dir, .k = k,
			   .n = nshards, .jobs = jobs, .ca = ca, .p = p };
	char id[64];
	int n = 1;

	/* What concerns the whole bundle is checked and said once, whatever
	 * the shards: the trace is there, its executables are found. */
	if (cli_open_bundle(path, &s.r))
		return 1;
	if (cli_bundle_id(path, id, sizeof(id)) ||
	    cli_shard_streams(s.r, path, k, nshards, &s.mask) ||
	    (nshards <= 1 && cli_no_trace(s.r, path)) ||
	    (!allow_missing && cli_need_referenced(s.r, debug_dir) < 0)) {
		shard_close(&s);
		return 1;
	}
	cli_warn_missing_code(s.r, debug_dir);
	/* the structural loops, the graph and the CPI are the whole graph's: not cut
	 * (shards split the code at other heads) */
	if (nshards == 1 && jobs > 1 &&
	    !(ca && (ca->structural || ca->cfg || ca->cpi || ca->deps)) &&
	    (n = cli_shard_plan(s.r, jobs)) != 1) {
		struct lsb_reader *r = s.r;

		s.r = NULL;
		shard_close(&s);
		if (n < 0) {
			lsb_reader_close(r);
			cli_error("out of memory");
			return 1;
		}
		return analyze_parallel(r, path, debug_dir, jobs, ca, (uint32_t)n, id,
					p, st);
	}
	if (shard_open(&s))
		return 1;
	shard_run(&s);
	n = shard_finish(&s, id);
	*st = s.st;
	/* the dependences: a second decode by the same decoder, whose
	 * blocks the graph holds */
	if (!n && ca && ca->deps)
		n = cli_deps_on(path, s.r, s.d, s.sym, s.g, p);
	shard_close(&s);
	return n;
}
