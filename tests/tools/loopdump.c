/* loopdump.c - the loop detector's rows for a bundle, unformatted, for the
 * tests to compare with hand-derived counts (independent of the report
 * code).
 *
 *   loopdump [-j JOBS] FILE.lsc [MODULE_SUBSTRING]
 *
 * Per loop of the module (merged over threads unless -t): one line
 *   loop FUNC+0xOFF LINE entries=E iterations=I self=S total=T min=A max=B trips=t:n,t:n
 * (head= is the head's ELF address), then per thread "tloop THREAD NAME
 * entries=E iterations=I", then per loop its edges ("edge PARENT -> CHILD count total"), tails and
 * calls, per function "func NAME self total loop_level calls", and per
 * thread "thread insns outside toplevel" where toplevel is the sum of the
 * totals of the loops entered at the top level.  The detector's own
 * statistics go to stderr (with -j above 1, a thread's second pass in
 * pieces: "pieces" counts them, and the counts of the detector's work
 * other than "blocks" are the joiner's alone; "pipe_windows" and
 * "pipe_to_thread", on a line of their own, and "pipe_first" on the
 * next, what lsd_decode_all_adapt() chose; "follow_begun",
 * "follow_restarts", "follow_more", "follow_shares", "follow_chunks" and "follow_first" on
 * the next, what the second pass begun beside the learning pass did:
 * analysis/loops_follow.c).  Exits 2 on errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops.h"
#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "decoder/tape.h"
#include "formats/bundle.h"
#include "formats/profile.h"
#include "ls_err.h"

static const struct lsp_profile *P;
static const char *sub;

static int mine(uint32_t mod)
{
	return !sub || (mod < P->n_modules && strstr(P->modules[mod].path, sub));
}

static void lname(uint32_t loop, char *buf, size_t n)
{
	const struct lsp_loop *lp;

	if (loop == LSP_NONE) {
		snprintf(buf, n, "top");
		return;
	}
	lp = &P->loops[loop];
	if (lp->func != LSP_NONE)
		snprintf(buf, n, "%s+0x%" PRIx64 ":%u", P->funcs[lp->func].name,
			 lp->head_vaddr - P->funcs[lp->func].vaddr, lp->line);
	else
		snprintf(buf, n, "0x%" PRIx64, lp->head_vaddr);
}

static int cmp_trip(const void *a, const void *b)
{
	const struct lsp_trip *x = a, *y = b;

	return x->trips < y->trips ? -1 : x->trips > y->trips;
}

int main(int argc, char **argv)
{
	struct lsd_opts o = { .size = sizeof(o), .iclasses = 1 };
	struct lsa_loops_opts lo = { .size = sizeof(lo), .want_lines = 1 };
	struct lsa_loops_stats st;
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym;
	struct lsp_profile *p;
	size_t i, j;
	int err;

	if (argc > 3 && !strcmp(argv[1], "-j")) {
		lo.jobs = (unsigned)atoi(argv[2]);
		o.jobs = lo.jobs;
		o.keep_chunks = lo.jobs > 1;	/* (as analyze asks) */
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: loopdump [-j JOBS] FILE.lsc [MODULE_SUBSTRING]\n");
		return 2;
	}
	sub = argc > 2 ? argv[2] : NULL;
	if ((err = lsb_reader_open(&r, argv[1])) < 0 ||
	    (err = lsd_open(&d, r, &o)) < 0 ||
	    (err = lsd_symbols_open(&sym, r, NULL)) < 0 ||
	    (err = lsp_new(&p, 0)) < 0 ||
	    (err = lsa_loops_analyze(d, r, sym, p, &lo, &st)) < 0) {
		fprintf(stderr, "loopdump: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	{
		char msg[512];

		/* what the detector made must obey the profile reader's rules */
		if ((err = lsp_check(p, msg, sizeof(msg))) < 0) {
			fprintf(stderr, "loopdump: the profile does not read back: %s\n", msg);
			return 2;
		}
	}
	P = p;
	for (i = 0; i < p->n_loops; i++) {
		uint64_t e = 0, it = 0, s = 0, t = 0, mn = UINT64_MAX, mx = 0;
		struct lsp_trip *tr;
		size_t nt = 0;
		char name[256], pn[256];

		if (!mine(p->loops[i].module))
			continue;
		tr = malloc((p->n_trips + 1) * sizeof(*tr));
		if (!tr)
			return 2;
		for (j = 0; j < p->n_lstats; j++) {
			const struct lsp_lstat *ls = &p->lstats[j];

			if (ls->loop != i)
				continue;
			e += ls->entries;
			it += ls->iterations;
			s += ls->self;
			t += ls->total;
			if (ls->trip_min < mn)
				mn = ls->trip_min;
			if (ls->trip_max > mx)
				mx = ls->trip_max;
		}
		/* merge the histogram over threads */
		for (j = 0; j < p->n_trips; j++) {
			size_t k;

			if (p->trips[j].loop != i)
				continue;
			for (k = 0; k < nt && tr[k].trips != p->trips[j].trips; k++)
				;
			if (k == nt)
				tr[nt++] = p->trips[j];
			else
				tr[k].entries += p->trips[j].entries;
		}
		qsort(tr, nt, sizeof(*tr), cmp_trip);
		lname((uint32_t)i, name, sizeof(name));
		printf("loop %s head=0x%" PRIx64 " entries=%" PRIu64
		       " iterations=%" PRIu64 " self=%" PRIu64 " total=%" PRIu64
		       " min=%" PRIu64 " max=%" PRIu64 " trips=", name,
		       p->loops[i].head_vaddr, e, it, s, t, mn, mx);
		for (j = 0; j < nt; j++)
			printf("%s%" PRIu64 ":%" PRIu64, j ? "," : "", tr[j].trips,
			       tr[j].entries);
		printf("\n");
		free(tr);
		for (j = 0; j < p->n_edges; j++)
			if (p->edges[j].child == i) {
				lname(p->edges[j].parent, pn, sizeof(pn));
				printf("edge %s -> %s %" PRIu64 " %" PRIu64 "\n", pn,
				       name, p->edges[j].count, p->edges[j].total);
			}
		for (j = 0; j < p->n_lstats; j++)
			if (p->lstats[j].loop == i)
				printf("tloop %u %s entries=%" PRIu64 " iterations=%"
				       PRIu64 "\n", p->lstats[j].thread, name,
				       p->lstats[j].entries, p->lstats[j].iterations);
		for (j = 0; j < p->n_tails; j++)
			if (p->tails[j].loop == i)
				printf("tail %s 0x%" PRIx64 " %" PRIu64 "\n", name,
				       p->tails[j].vaddr, p->tails[j].count);
		for (j = 0; j < p->n_calls; j++)
			if (p->calls[j].loop == i)
				printf("call %s -> %s %" PRIu64 "\n", name,
				       p->calls[j].callee == LSP_NONE ? "?" :
				       p->funcs[p->calls[j].callee].name,
				       p->calls[j].count);
	}
	for (i = 0; i < p->n_funcs; i++) {
		uint64_t s = 0, t = 0, ll = 0, c = 0;

		if (!mine(p->funcs[i].module))
			continue;
		for (j = 0; j < p->n_fstats; j++)
			if (p->fstats[j].func == i) {
				s += p->fstats[j].self;
				t += p->fstats[j].total;
				ll += p->fstats[j].loop_level;
				c += p->fstats[j].calls;
			}
		printf("func %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       p->funcs[i].name, s, t, ll, c);
	}
	for (i = 0; i < p->n_threads; i++) {
		uint64_t top = 0;

		for (j = 0; j < p->n_edges; j++)
			if (p->edges[j].thread == i && p->edges[j].parent == LSP_NONE)
				top += p->edges[j].total;
		printf("thread %zu insns=%" PRIu64 " outside=%" PRIu64
		       " toplevel=%" PRIu64 " losses=%" PRIu64 "\n", i,
		       p->threads[i].insns, p->threads[i].outside, top,
		       p->threads[i].losses);
	}
	fprintf(stderr, "blocks %" PRIu64 " loop_backs %" PRIu64 " mismatches %"
		PRIu64 " unwinds %" PRIu64 " resets %" PRIu64 " max_frames %"
		PRIu64 " max_path %" PRIu64 " memo_blocks %" PRIu64
		" memo_starts %" PRIu64 " cmemo_calls %" PRIu64 " cmemo_blocks %"
		PRIu64 " know_new %" PRIu64 " learn_blocks %" PRIu64
		" learn_memo_blocks %" PRIu64 " learn_memo_iters %" PRIu64
		" memo_again %" PRIu64 " learn_again %" PRIu64 " memo_flat %" PRIu64
		" pieces %" PRIu64 " pieces_named %" PRIu64 " pieces_taped %" PRIu64
		" piece_retries %" PRIu64 "\n",
		st.blocks, st.loop_backs,
		st.frame_mismatches, st.unwinds, st.resets, st.max_frames,
		st.max_path, st.memo_blocks, st.memo_starts, st.cmemo_calls,
		st.cmemo_blocks, st.know_new, st.learn_blocks, st.learn_memo_blocks,
		st.learn_memo_iters, st.memo_again, st.learn_again, st.memo_flat, st.pieces,
		st.pieces_named, st.pieces_taped, st.piece_retries);
	fprintf(stderr, "learn_wide %" PRIu64 " learn_clears %" PRIu64 "\n", st.learn_wide,
		st.learn_clears);
	fprintf(stderr, "pipe_windows %" PRIu64 " pipe_to_thread %" PRIu64 "\n",
		st.pipe_windows, st.pipe_to_thread);
	fprintf(stderr, "pipe_first %" PRIu64 "\n", st.pipe_first);
	fprintf(stderr, "follow_begun %" PRIu64 " follow_restarts %" PRIu64 " follow_more %"
		PRIu64 " follow_shares %" PRIu64 " follow_chunks %" PRIu64 " follow_first %"
		PRIu64 "\n", st.follow_begun, st.follow_restarts, st.follow_more,
		st.follow_shares, st.follow_chunks, st.follow_pieces);
	fprintf(stderr, "halves_exc %" PRIu64 " halves_skip %" PRIu64 " halves_off %" PRIu64
		" halves_redo %" PRIu64 " halves_probe %" PRIu64 " halves_no %" PRIu64 "\n",
		st.halves_exc, st.halves_skip, st.halves_off, st.halves_redo, st.halves_probe,
		st.halves_no);
	fprintf(stderr, "eager_blocks %" PRIu64 " eager_tails %" PRIu64 " eager_nested %" PRIu64
		" eager_floops %" PRIu64 "\n", st.eager_blocks, st.eager_tails, st.eager_nested,
		st.eager_floops);
	fprintf(stderr, "tape_blocks %" PRIu64 " tape_words %" PRIu64 " tape_drop %s chunk_reads %"
		PRIu64 " trail_blocks %" PRIu64 " trail_rests %" PRIu64 "\n", st.tape_blocks,
		st.tape_words,
		st.tape_drop == LSD_TAPE_BOUND ? "bound" : st.tape_drop == LSD_TAPE_WORTH ? "worth" :
		st.tape_drop == LSD_TAPE_OTHER ? "other" : "none", lsd_chunk_reads(d),
		lsd_trail_blocks(d), lsd_trail_rests(d));
	{
		unsigned th;
		uint64_t ahead = lsd_scan_read_ahead(d, &th);

		fprintf(stderr, "scan_ahead %" PRIu64 " scan_threads %u\n", ahead, th);
		fprintf(stderr, "scan_heads %" PRIu64 "\n", lsd_scan_heads(d));
	}
	lsp_free(p);
	lsd_symbols_close(sym);
	lsd_close(d);
	lsb_reader_close(r);
	return 0;
}
