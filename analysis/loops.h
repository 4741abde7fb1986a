/* loops.h - the loop detector (LoopProf, Moseley et al., sections 3-4) and
 * the loop-nest / call-site view of Sato et al.
 *
 * The detector consumes the decoder's stream of executed static blocks.
 * Per thread it keeps a stack of call frames, following calls and returns
 * in the block stream (never the stack pointer), each frame with the path
 * of blocks executed in it and a membership table; a block that recurs on
 * the current frame's path is a loop back to a loop head.  Counts are
 * exact: entries, iterations (executions of the head inside the loop),
 * the trip-count histogram, self and total instructions per loop and per
 * instruction class, the loop call graph across calls, call sites and
 * back branches, and per-function instruction counts.
 *
 * Memory grows with the executed code (and the call depth), never with
 * the length of the trace.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_LOOPS_H
#define LSA_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "decoder/decode.h"
#include "decoder/symbols.h"
#include "formats/profile.h"

struct lsa_loops;

struct lsa_loops_opts {
	size_t size;		/* sizeof(struct lsa_loops_opts) */
	uint32_t trip_limit;	/* exact histogram below this (0: LSP_TRIP_LIMIT) */
	int want_lines;		/* resolve file:line of loops and functions */
	/* Every block through the per-block path, no iteration memo (the
	 * same profile, slower; also set by LOOPSCOPE_REFERENCE=1). */
	int reference;
	/* Threads for lsa_loops_analyze(): 2 or more decode on a second
	 * thread while the detector runs (lsd_decode_all_piped), and run
	 * lsa_loops_analyze_with()'s second consumer on a third
	 * (lsd_decode_all_tee); 0 or 1, one thread.  The profile is the
	 * same. */
	unsigned jobs;
	/* A second pass of one or two jobs through the iteration and call
	 * memos (what the pieces of three or more jobs run), not the eager
	 * pass (loops_eager.c; also set by LOOPSCOPE_EAGER=0).  The profile
	 * is the same. */
	int no_eager;
};

/* Statistics of the detector itself. */
struct lsa_loops_stats {
	uint64_t blocks;	/* executed blocks seen */
	uint64_t loop_backs;
	uint64_t frame_mismatches;	/* returns that matched no frame */
	uint64_t unwinds;	/* frames dropped by longjmp/exceptions/signals */
	uint64_t resets;	/* state resets at trace gaps */
	uint64_t max_frames, max_path;
	/* the iteration memo: blocks it took, times it started */
	uint64_t memo_blocks, memo_starts;
	/* the call memo: calls it applied, their blocks */
	uint64_t cmemo_calls, cmemo_blocks;
	/* a pass that knows (lsa_loops_know()): loop heads and body blocks
	 * it met that the learning pass had not learned (0, unless the two
	 * passes saw other streams) */
	uint64_t know_new;
	/* the learning pass: blocks it took block by block, and the
	 * blocks and iterations its memo matched whole (struct lsa_know) */
	uint64_t learn_blocks, learn_memo_blocks, learn_memo_iters;
	/* ... nested levels it began whose trie's blocks of the head's frame
	 * were checked one by one (wide levels, loops_fmatch.c) */
	uint64_t learn_wide;
	/* ... times its tries were dropped at their bound of nodes (and
	 * rebuilt as they ran: loops_fmemo.c) */
	uint64_t learn_clears;
	/* the second pass in pieces (lsa_loops_opts.jobs): pieces joined;
	 * second passes made again on one thread after a join found a
	 * worker's state unlike its own (0 unless the pieces are wrong) */
	uint64_t pieces, piece_retries;
	/* ... of those, pieces whose twin's blocks were named as the pass's
	 * decoder's, block by block (0 where the twins share its static
	 * blocks: loops_dpieces.c) */
	uint64_t pieces_named;
	/* ... pieces replayed from the learning pass's tape, recorded
	 * chunk by chunk, rather than decoded (loops_dpieces.c) */
	uint64_t pieces_taped;
	/* blocks the iteration memo and the learning pass's took as whole
	 * iterations that repeat the one before block for block (a compare
	 * a block, no trie walked) */
	uint64_t memo_again, learn_again;
	/* iterations the iteration memo took whole with inner loops'
	 * iterations in them (flat iterations, struct lsa_mlog) */
	uint64_t memo_flat;
	/* passes whose decode ran on another thread than the detector only
	 * while that cost less (lsd_decode_all_adapt(), --jobs above one):
	 * the windows timed, the times the detector moved off the
	 * decode's thread, and the passes begun with it there (long
	 * traces: LSD_ADAPT_PIPED_PT) */
	uint64_t pipe_windows, pipe_to_thread, pipe_first;
	/* blocks the eager second pass took (one or two jobs,
	 * lsa_loops_opts.no_eager not set) */
	uint64_t eager_blocks;
	/* calls the eager pass took whole in its tight loop although their
	 * callee jumped to another function's entry (a PLT stub's jump) */
	uint64_t eager_tails;
	/* calls it took whole inside such a call (a local frame nested in
	 * another: lsa_eager_run()) */
	uint64_t eager_nested;
	/* loop entries it opened inside such a call (a local frame's own,
	 * given to the caller's owner at the return) */
	uint64_t eager_floops;
	/* the learning pass in halves (loops_halves.c): excursions the
	 * worker learned, their blocks, passes whose worker stopped early
	 * (the rest learned by the calling thread), passes made again whole */
	uint64_t halves_exc, halves_skip, halves_off, halves_redo;
	/* ... the windows of blocks its probe decoded before it said
	 * whether they pay (loops_halves.h), passes it said they do not */
	uint64_t halves_probe, halves_no;
	/* blocks the second pass took from the first's tape, not decoded
	 * again (decoder/tape.h) */
	uint64_t tape_blocks;
	/* ... the tape's words, and why it held none (enum lsd_tape_drop) */
	uint64_t tape_words;
	int tape_drop;
	/* the second pass begun beside the learning pass (loops_follow.c):
	 * whether the learning pass began it (1: handed it its first
	 * knowledge, whether or not its thread ran before the end), its
	 * starts over (the first, and one at each fact the learning
	 * pass learned after the knowledge it had about a block it ran),
	 * the later knowledge it took on without one, the shares of blocks
	 * it took, the chunks it decoded, and the pieces its one stood for
	 * in the second pass (0: none taken) */
	uint64_t follow_begun, follow_restarts, follow_more, follow_shares, follow_chunks, follow_pieces;
};

/* A detector over the static blocks of decoder d (of bundle r), adding to profile p
 * (run `run` of p) and naming code with sym (may be NULL: no names).
 * Returns -LS_ENOMEM, -LS_EINVAL. */
int lsa_loops_new(struct lsa_loops **pl, struct lsd_decoder *d,
		  struct lsb_reader *r, struct lsd_symbols *sym, struct lsp_profile *p, uint32_t run,
		  const struct lsa_loops_opts *o);
/* Callbacks to pass to lsd_decode_stream() with the detector as arg. */
extern const struct lsd_callbacks lsa_loops_callbacks;
/* Feeds one executed block of stream `stream` (what the callback does). */
int lsa_loops_block(struct lsa_loops *l, size_t stream, const struct lsd_block *b);
/* Ends the stream's thread: closes its frames and writes its rows into
 * the profile.  The threads of a per-CPU stream may go on in another
 * one: they end at lsa_loops_finish().  Returns -LS_ENOMEM. */
int lsa_loops_stream_end(struct lsa_loops *l, size_t stream);
/* Ends every open thread (as lsa_loops_stream_end). */
int lsa_loops_finish(struct lsa_loops *l);
void lsa_loops_get_stats(const struct lsa_loops *l, struct lsa_loops_stats *st);
/* The state of l's threads as text, for tests that hold two detectors
 * to each other (tests/tools/memocheck -L): per thread its frames (path
 * base, function, running function, return address, whether a handler
 * runs) and the static block ids on its path (a loop head marked).
 * With stop, a learning pass's memo first stops matching, as at a
 * thread switch (its frames and paths are then the per-block path's;
 * while it matches they lag).  *out is the caller's to free.  Returns
 * 0, -LS_EINVAL or -LS_ENOMEM. */
int lsa_loops_describe(struct lsa_loops *l, int stop, char **out);
void lsa_loops_free(struct lsa_loops *l);

/* What a detector's threads learned of the trace: the loop heads (each
 * found at its loop's first loop back) and which blocks ran in each
 * loop's iterations.  The detector decides with what it knows when it
 * decides (is this head, run once, an entry of trip count 1? is this
 * block of an entry's last iteration the loop's?), so one pass charges
 * the same executions otherwise before a loop is found than after;
 * given all of it from the start, every decision takes the thread's
 * final knowledge, and the profile depends on the executions only, not
 * on their order.  lsa_loops_analyze() makes two passes so. */
struct lsa_know;
/* Makes l a learning pass: each thread's knowledge goes into a new *pk
 * at its end, and no rows are written (what it learns follows from the
 * frames and paths alone: it keeps no counts, and an iteration that
 * repeats one it ran, block for block, it skips).  Call before the
 * first block.  Returns 0, -LS_EINVAL or -LS_ENOMEM. */
int lsa_loops_learn(struct lsa_loops *l, struct lsa_know **pk);
/* Gives l's threads k's knowledge from their start, thread by thread in
 * the order the learning pass made them (the same decode makes them in
 * the same order).  k must outlive l.  Call before the first block. */
void lsa_loops_know(struct lsa_loops *l, const struct lsa_know *k);
void lsa_know_free(struct lsa_know *k);

/* Decodes every stream of the bundle behind d and profiles it into p: the
 * whole of `loopscope analyze`, two passes (see struct lsa_know).
 * Returns a decoder or detector error. */
int lsa_loops_analyze(struct lsd_decoder *d, struct lsb_reader *r,
		      struct lsd_symbols *sym, struct lsp_profile *p,
		      const struct lsa_loops_opts *o, struct lsa_loops_stats *st);

/* lsa_loops_analyze() with a second consumer of the same decode (another
 * analysis' callbacks and their argument; may be NULL): the first pass
 * over the trace, the one that learns the loops, feeds both (the second
 * pass is the one that takes the jobs).  With o->jobs of 2 or more its
 * callbacks run on a thread of their own (see lsd_decode_all_tee()): they
 * must then touch neither the decoder, its reader, the symbols nor the
 * profile before the decode returns. */
int lsa_loops_analyze_with(struct lsd_decoder *d, struct lsb_reader *r,
			   struct lsd_symbols *sym, struct lsp_profile *p,
			   const struct lsa_loops_opts *o,
			   struct lsa_loops_stats *st,
			   const struct lsd_callbacks *also, void *also_arg);

#endif
