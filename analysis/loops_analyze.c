/* loops_analyze.c - the driver: the learning pass and the profiling pass
 * over a whole bundle (decoder and detector, on the threads the jobs
 * allow), and the loops' labels (their source lines) once both ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "analysis/loops_follow.h"
#include "decoder/tape.h"
#include "ls_err.h"

/* Loop pidx's inline chain from its label's lookup: the inlined functions,
 * innermost first, ';' between.  Returns 0 or -LS_ENOMEM. */
static int set_inline(struct lsa_loops *l, uint32_t pidx,
		      const struct lsd_symbol_info *info)
{
	const struct lsp_loop *pl = &l->p->loops[pidx];
	char buf[1024];
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < info->ninline && n + 1 < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ";" : "",
				      info->inlined[i] ? info->inlined[i] : "?");
	return lsp_loop_set_range(l->p, pidx, pl->first_line, pl->last_line, buf);
}

static void widen(struct lsp_loop *pl, const char *file, int line);

/* Widens loop pl's line range to the line info names, where that is in
 * the loop's own function: its label's file, and the same innermost
 * inlined function as its label (or none), so that the lines of a
 * function inlined into the loop do not count. */
static void widen_info(struct lsp_loop *pl, const struct lsd_symbol_info *info)
{
	const char *in = pl->inlined_from, *semi = strchr(in, ';');
	size_t n = semi ? (size_t)(semi - in) : strlen(in);
	const char *f = info->ninline ? info->inlined[0] : NULL;

	if (n ? !f || strlen(f) != n || strncmp(f, in, n) : f != NULL)
		return;
	widen(pl, info->file, info->line);
}

/* Widens loop pl's line range to line, in its label's file. */
static void widen(struct lsp_loop *pl, const char *file, int line)
{
	if (!file || line <= 0 || strcmp(file, pl->file))
		return;
	if (!pl->first_line || (uint32_t)line < pl->first_line)
		pl->first_line = (uint32_t)line;
	if ((uint32_t)line > pl->last_line)
		pl->last_line = (uint32_t)line;
}

/* The lines each loop's own code spans in its label's file: the first
 * and last instruction of every block of its body (nested loops
 * included, callees and functions inlined into it not), and its label.
 * Returns 0. */
static int body_ranges(struct lsa_loops *l)
{
	struct lsp_profile *p = l->p;
	size_t i;

	for (i = 0; i < l->nloops; i++) {
		const struct lsa_loopdef *ld = &l->loops[i];
		struct lsp_loop *pl;

		if (ld->pidx == LSA_NONE || ld->pidx >= p->n_loops)
			continue;
		pl = &p->loops[ld->pidx];
		pl->first_line = pl->last_line = 0;
		widen(pl, pl->file, (int)pl->line);
	}
	for (i = 0; i < l->body.cap; i++) {
		const struct lsa_kent *e = &l->body.t[i];
		const struct lsd_sblock *sb;
		struct lsd_symbol_info info;
		const struct lsa_loopdef *ld;

		if (e->a == LSA_KMAP_EMPTY || e->a >= l->nloops)
			continue;
		ld = &l->loops[e->a];
		sb = lsd_sblock(l->d, (size_t)e->b);
		if (ld->pidx == LSA_NONE || ld->pidx >= p->n_loops || !sb || sb->module < 0)
			continue;
		lsa_loops_sym_lookup(l, sb->module, sb->mod_off, l->o.want_lines, &info);
		widen_info(&p->loops[ld->pidx], &info);
		lsa_loops_sym_lookup(l, sb->module, sb->mod_off + (sb->last - sb->start),
				     l->o.want_lines, &info);
		widen_info(&p->loops[ld->pidx], &info);
	}
	return 0;
}

/* Labels each loop the detector found with its own source line: the line
 * of its most executed back branch (ties: the lowest address), which
 * compilers attribute to the loop's for/while line; at -O2 the head is
 * often the body's first statement, since the loop was rotated.  Where
 * that block falls through into the head (no branch: the head holds the
 * loop's test, as at -O0), or its instruction has no line, the head's
 * line stays.  Returns 0 or -LS_ENOMEM. */
static int label_loops(struct lsa_loops *l)
{
	const struct lsp_profile *p = l->p;
	struct lsp_best *best = NULL;
	size_t i;
	int err;

	if ((err = lsp_best_tails(p, &best)) < 0)
		return err;
	for (i = 0; i < l->nloops && !err; i++) {
		const struct lsa_loopdef *ld = &l->loops[i];
		const struct lsp_loop *pl;
		struct lsd_symbol_info info;
		char *hfile;

		if (ld->pidx == LSA_NONE || ld->pidx >= p->n_loops || !best[ld->pidx].count ||
		    lsa_kmap_find(&l->falltail, ld->pidx, best[ld->pidx].off))
			continue;
		pl = &p->loops[ld->pidx];
		lsa_loops_sym_lookup(l, ld->head->module, best[ld->pidx].off,
				     l->o.want_lines, &info);
		if (!info.file || info.line <= 0)
			continue;
		if (!(hfile = strdup(pl->head_file))) {
			err = -LS_ENOMEM;
			break;
		}
		err = lsp_loop_set_lines(l->p, ld->pidx, info.file, (uint32_t)info.line,
					 hfile, pl->head_line);
		free(hfile);
		if (!err)
			err = set_inline(l, ld->pidx, &info);
	}
	if (!err)
		err = body_ranges(l);
	free(best);
	return err;
}

uint64_t lsa_env_num(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	n = strtoull(v, &end, 10);
	return *end ? dflt : (uint64_t)n;
}

/* Blocks per piece of a second pass on several threads (where the
 * learning pass keeps snapshots): LOOPSCOPE_PIECE_BLOCKS (0: no pieces;
 * small ones test the joins), else LSA_PIECE_BLOCKS. */
static uint64_t piece_blocks(void)
{
	return lsa_env_num("LOOPSCOPE_PIECE_BLOCKS", LSA_PIECE_BLOCKS);
}

/* Percent of a stream's blocks the learning pass took as repeats above
 * which the second pass stays on one thread (struct lsa_loops.here):
 * 98.5 on the stencil of bench/; 76 on spmv, 54 on bzip2, whose
 * second passes gain from pieces. */
#define LSA_HERE_PCT 90

/* One pass of the detector l over the bundle (with also beside it).  On
 * one thread, the first pass records what the decode hands the detector
 * on tape (may be NULL), and the second replays it where the tape holds
 * all of it (sqlite3's decode costs 6.4 ns a block, recording and
 * replaying 2.3: doc/performance.md). */
static int pass(struct lsa_loops *l, struct lsd_symbols *sym,
		const struct lsd_callbacks *also, void *also_arg,
		struct lsa_loops_stats *st, struct lsd_tape *tape, int replay,
		struct lsa_follow **ptr)
{
	struct lsd_pipe_stats pps = { 0 };
	int err, fo = 0;

	/* a learning pass of one thread's stream: its chunks after a cut
	 * learned at once on another core (loops_halves.c) */
	if (l->learn && !also && !l->nohalves && (err = lsa_halves_run(l)) != 1)
		return err ? err : lsa_loops_finish(l);
	/* ... or the second pass begun beside it on the other core, where
	 * its facts stop coming (loops_follow.c); forced, the learning
	 * pass on this one from its start */
	if (l->learn && !also && ptr && (fo = lsa_follow_can(l)) &&
	    !lsa_follow_start(ptr, l, fo >= 2, fo == 3))
		l->follow = *ptr;
	if (l->follow && fo >= 2) {
		err = lsd_decode_all_tee(l->d, &lsa_loops_callbacks, l, NULL, NULL, 0, NULL);
		l->follow = NULL;
		return err ? err : lsa_loops_finish(l);
	}
	/* each per-thread stream's end (its stream_end callback) ends its
	 * thread; the threads of per-CPU streams end at finish */
	if (l->know && l->eager && !also && l->dpieces) {
		/* each piece decoded where it runs */
		err = lsa_dpieces_run(l, l->o.jobs - 1);
	} else if (l->o.jobs > 1 && (l->memo || l->fmemo || l->eager) && !(l->here && !also)) {
		/* (the reference: one thread; a light second pass alone too) */
		struct lsa_pieces *ps = NULL;

		/* the detector then reads symbols, never the reader */
		if (sym)
			lsd_symbols_load(sym);
		/* the second pass in pieces (where the learning pass cut the
		 * streams): the eager pass's on jobs - 1 workers, this thread
		 * running pieces too while they have one waiting; the memos'
		 * on `jobs` (LOOPSCOPE_PIECE_WORKERS=0: one after the other
		 * on this thread, as where no thread can be made) */
		if (l->know && (l->memo || l->eager) && piece_blocks() && !l->here &&
		    (err = lsa_pieces_new(&ps, l, (unsigned)lsa_env_num("LOOPSCOPE_PIECE_WORKERS",
								     l->eager ? l->o.jobs - 1 : l->o.jobs),
					  piece_blocks())))
			return err;
		/* The other consumer on a thread of its own: with the decode's
		 * (mostly waiting) on 2 cores as fast as on 3 (bench/).  With
		 * pieces alone the decode stays here, beside the workers (its
		 * own thread cost more than it saved: bench/). */
		if (ps)
			err = lsd_decode_all_tee(l->d, &lsa_pieces_callbacks, ps, also, also_arg,
						 also ? 2 : 0, NULL);
		else if (also)
			err = lsd_decode_all_tee(l->d, &lsa_loops_callbacks, l, also, also_arg,
						 2, NULL);
		else	/* the detector on a thread of its own where that pays;
			 * the learning pass's tape on the decoding thread */
			err = lsd_decode_all_adapt_tape(l->d, &lsa_loops_callbacks, l, NULL, &pps,
							l->learn && !replay ? tape : NULL);
		/* (a following pass held the decode here: the next may not) */
		if (l->learn && l->follow) {
			lsd_decode_hold(l->d, 0);
			l->follow = NULL;
		}
		lsa_pieces_free(ps);
		st->pipe_windows += pps.windows;
		st->pipe_to_thread += pps.to_thread;
		st->pipe_first += pps.piped_first;
	} else if (replay && lsd_tape_whole(tape)) {
		err = lsd_tape_replay(tape, &lsa_loops_callbacks, l);
	} else if (tape && !replay) {
		lsd_tape_to(tape, &lsa_loops_callbacks, l);
		err = lsd_decode_all_tee(l->d, &lsd_tape_callbacks, tape, also, also_arg,
					 0, NULL);
	} else {
		err = lsd_decode_all_tee(l->d, &lsa_loops_callbacks, l, also, also_arg,
					 0, NULL);
	}
	return err ? err : lsa_loops_finish(l);
}

int lsa_loops_analyze_with(struct lsd_decoder *d, struct lsb_reader *r,
			   struct lsd_symbols *sym, struct lsp_profile *p,
			   const struct lsa_loops_opts *o,
			   struct lsa_loops_stats *st,
			   const struct lsd_callbacks *also, void *also_arg)
{
	struct lsa_loops_stats lst = { 0 }, pst = { 0 };
	struct lsa_know *k = NULL;
	struct lsd_tape *tape = NULL;
	struct lsa_follow *fo = NULL;
	struct lsa_loops *l;
	uint64_t nin, ntape, nword;
	int tdrop, dpieces = 0;
	size_t nthr;
	uint32_t run;
	int err;

	if (!d || !r || !p)
		return -LS_EINVAL;
	/* a new profile has its one run, empty; else this is one more */
	run = p->n_threads ? p->nruns : 0;
	/* The first pass learns each thread's loops, the second profiles
	 * them knowing all of it from the start (struct lsa_know). */
	err = lsa_loops_new(&l, d, r, sym, p, run, o);
	if (err)
		return err;
	if ((err = lsd_tape_new(&tape, d, LSD_TAPE_MAX))) {
		lsa_loops_free(l);
		return err;
	}
	err = lsa_loops_learn(l, &k);
	/* two jobs or more: the second pass in pieces, whose cuts this
	 * keeps */
	if (!err && l->o.jobs > 1 && l->fmemo) {
		/* an eager pass in pieces decoded where they run, cut at
		 * chunks, where every stream may be (loops_dpieces.c) */
		dpieces = lsa_loops_eager_for(&l->o) && piece_blocks() && lsa_dpieces_can(l);
		if (dpieces) {
			l->snap_chunks = 1;
			/* (whose chunks its pieces replay where it holds all) */
			lsd_tape_chunked(tape);
		} else
			l->snap = piece_blocks();
	}
	/* The other consumers need no knowledge of the loops: they take this
	 * pass's stream, where a thread of their own has a core to share with
	 * the decode's (the learning pass is the detector's serial part; the
	 * second, in pieces, keeps every job busy: xz -6 with --cfg, -j2,
	 * README). */
	if (!err)
		err = pass(l, sym, also, also_arg, &pst, tape, 0, &fo);
	/* The learning pass in halves found its worker stopped inside an
	 * excursion it had begun to skip (a signal's return, a longjmp or a
	 * hole there, which no bench program makes): again, whole. */
	if (err == -LS_EINVAL && l->hfail) {
		lsa_loops_free(l);
		lsa_know_free(k);
		k = NULL;
		if (!(err = lsa_loops_new(&l, d, r, sym, p, run, o)) &&
		    !(err = lsa_loops_learn(l, &k))) {
			l->snap_chunks = 1;
			l->nohalves = 1;
			err = pass(l, sym, also, also_arg, &pst, tape, 0, NULL);
			l->st.halves_redo++;
		}
	}
	lsa_loops_get_stats(l, &lst);
	nin = l->nin;
	lsa_loops_free(l);
	if (!err)
		err = lsa_loops_new(&l, d, r, sym, p, run, o);
	if (err) {
		lsa_know_free(k);
		lsd_tape_free(tape);
		lsa_follow_free(fo);
		return err;
	}
	lsa_loops_know(l, k);
	l->dpieces = dpieces;
	l->tape = dpieces && lsd_tape_whole(tape) ? tape : NULL;
	/* Blocks the learning pass took as repeats cost the second about
	 * as little (a compare each).  Where they are more than
	 * LSA_HERE_PCT percent of its blocks, their decode and the copies to other threads cost
	 * more than the work those threads share (the stencil of bench/:
	 * 0.92 s at -j2 in pieces, 0.82 piped, 0.66 on the one thread). */
	l->here = lst.learn_again * 100 > nin * LSA_HERE_PCT;
	nthr = p->n_threads;
	l->follow = fo;
	err = pass(l, sym, NULL, NULL, &pst, tape, 1, NULL);
	/* A join that found a worker's state unlike its own (which no test
	 * program nor bundle of bench/ makes: t0659 forces one): the second
	 * pass again on this thread, where nothing of it reached the
	 * profile yet (a thread's rows go there as it ends). */
	if (err == -LS_EINVAL && l->pfail && p->n_threads == nthr) {
		lsa_loops_free(l);
		if ((err = lsa_loops_new(&l, d, r, sym, p, run, o))) {
			lsa_know_free(k);
			lsd_tape_free(tape);
			lsa_follow_free(fo);
			return err;
		}
		lsa_loops_know(l, k);
		l->here = 1;	/* (no pieces) */
		err = pass(l, sym, NULL, NULL, &pst, tape, 1, NULL);
		l->st.piece_retries++;
	}
	ntape = lsd_tape_blocks(tape);
	nword = lsd_tape_words(tape);
	tdrop = (int)lsd_tape_dropped(tape);
	lsd_tape_free(tape);
	if (!err)
		err = label_loops(l);
	if (!err)
		p->nruns = run + 1;
	if (st) {
		lsa_loops_get_stats(l, st);
		st->learn_blocks = lst.blocks;
		st->learn_memo_blocks = lst.learn_memo_blocks;
		st->learn_memo_iters = lst.learn_memo_iters;
		st->learn_wide = lst.learn_wide;
		st->learn_clears = lst.learn_clears;
		st->learn_again = lst.learn_again;
		st->halves_exc = lst.halves_exc;
		st->halves_skip = lst.halves_skip;
		st->halves_off = lst.halves_off;
		st->halves_redo = lst.halves_redo;
		st->halves_probe = lst.halves_probe;
		st->halves_no = lst.halves_no;
		st->pipe_windows = pst.pipe_windows;
		st->pipe_to_thread = pst.pipe_to_thread;
		st->pipe_first = pst.pipe_first;
		st->tape_blocks = ntape;
		st->tape_words = nword;
		st->tape_drop = tdrop;
		lsa_follow_stats(fo, &st->follow_begun, &st->follow_restarts, &st->follow_more,
				 &st->follow_shares, &st->follow_chunks);
	}
	lsa_loops_free(l);
	lsa_know_free(k);
	lsa_follow_free(fo);
	return err;
}

int lsa_loops_analyze(struct lsd_decoder *d, struct lsb_reader *r,
		      struct lsd_symbols *sym, struct lsp_profile *p,
		      const struct lsa_loops_opts *o, struct lsa_loops_stats *st)
{
	return lsa_loops_analyze_with(d, r, sym, p, o, st, NULL, NULL);
}
