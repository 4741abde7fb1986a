/* loops_follow.h - the second pass begun beside the learning pass
 * (loops_follow.c): what the learning pass, the analysis and the second
 * pass's pieces (loops_dpieces.c) call of it. */
#ifndef LSA_LOOPS_FOLLOW_H
#define LSA_LOOPS_FOLLOW_H

#include "analysis/loops_int.h"

struct lsa_follow;

/* Whether the learning pass l (cut at chunks for the second pass's
 * pieces, of two jobs or more) may have a second pass follow it: a
 * bundle of one thread's stream of two chunks or more.  Returns 0 (no:
 * or LOOPSCOPE_FOLLOW=0), 1 (where its facts stop coming), 2 (from its
 * start: LOOPSCOPE_FOLLOW=1, the learning pass then on one thread), 3
 * (LOOPSCOPE_FOLLOW=step, the tests': as 2, the learning pass waiting
 * at each cut until the worker took every chunk it may, so that what it
 * did is the same from run to run). */
int lsa_follow_can(const struct lsa_loops *l);
/* The following pass of learning pass l's stream 0, its worker's thread
 * started: it waits for the knowledge and blocks lsa_follow_cut() hands
 * it, from the first cut (now) or from the first where the facts have
 * stopped coming (then l's adaptive decode is held on its decoding
 * thread, lsd_decode_hold(), while the worker runs).  step: the learning
 * pass waits at each cut (lsa_follow_can()'s 3).  l looks symbols up
 * under its lock from now on.  Returns 0 or -LS_ENOMEM (*ptr NULL: the
 * pass goes on without one). */
int lsa_follow_start(struct lsa_follow **ptr, struct lsa_loops *l, int now, int step);
/* The learning pass l took every block of thread t's stream before
 * chunk `chunk` (a cut), on the thread its callbacks run on.  The worker
 * begins where it should (and the decode is here), is handed what l
 * knows where l learned something since its last copy (the worker takes
 * it on, or starts over from the stream's start where the new facts
 * name a block it ran), and the decoder's blocks as they are now where
 * it is near the end of the chunks it may take (those before `chunk`
 * then).  It stops for good where it started over too often.  Returns 0
 * (a copy that fails leaves the worker as it was). */
int lsa_follow_cut(struct lsa_follow *fo, struct lsa_loops *l, const struct lsa_thr *t,
		  size_t stream, size_t chunk);
/* The second pass begins, knowing k (the learning pass's at its end;
 * d, the learning pass's decoder, decodes no more meanwhile).  The
 * worker stops unless it knows what k knows: then it goes on to the
 * first of the second pass's cuts snaps[0 .. nsnap) at or after the
 * chunks it took (or the stream's end), and ends its piece there, its
 * blocks checked against v (lsd_chunk_starts(); NULL: not known) and
 * what it knew against k (lsa_know_new_avoid(): a fact it did not know
 * names none of the blocks it ran).  Returns m >= 1, the pieces its
 * result *res stands for ([0, m) of the cuts' pieces), its losses in
 * *losses; or 0: none (it failed, its blocks were not the pass's, or it
 * ran a block a later fact names).  Its thread is gone on return. */
size_t lsa_follow_finish(struct lsa_follow *fo, struct lsd_decoder *d, const struct lsa_know *k,
			 const struct lsa_ksnap *snaps, size_t nsnap, const uint64_t *v,
			 const struct lsa_pres **res, uint64_t *losses);
/* The stream it follows, and that stream's thread slot in the learning
 * pass (the second pass makes the same; 0 before the first cut). */
size_t lsa_follow_stream(const struct lsa_follow *fo);
size_t lsa_follow_slot(struct lsa_follow *fo);
/* What it did: whether the learning pass began it (1; the same from
 * run to run, unlike the rest, which depend on when its thread ran),
 * starts over, knowledge taken on without one, shares taken, chunks
 * taken. */
void lsa_follow_stats(const struct lsa_follow *fo, uint64_t *begun, uint64_t *restarts,
		      uint64_t *more, uint64_t *shares, uint64_t *chunks);
/* Stops its thread (if any) and frees it. */
void lsa_follow_free(struct lsa_follow *fo);

#endif
