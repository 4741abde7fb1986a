/* tape.h - one decode's callbacks, recorded and replayed.
 *
 * An analysis that decodes a bundle twice (the loop detector's learning
 * pass, then its profiling pass) may record what the first decode handed
 * its consumer and replay it to the second instead of decoding again.  A
 * chain or trail of blocks the decoder hands out again (by reference,
 * its spans) costs one 32-bit word on the tape, its blocks written out
 * the first time only; any other block costs a word (its static block id
 * and exit; where control went only where it is not the next block's
 * start), rebuilt by the replay from the decoder's static block table.
 * The tape holds at most a bound of memory, and only words worth their
 * cost: a decode that needs more, or more than a word for every
 * LSD_TAPE_PT_PER_WORD bytes of PT (conditional branches in long chains,
 * which decode about as fast as they replay), drops it
 * (lsd_tape_whole() says so) and the second pass decodes.  Its
 * memory is mapped in huge pages where the kernel gives them (a fresh
 * 4 KiB page costs as much to fault in as several blocks take to decode).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSD_TAPE_H
#define LSD_TAPE_H

#include <stddef.h>

#include "decoder/decode.h"

/* Bytes a tape holds by default: 32M words (sqlite3's 5,000-row run of
 * bench/, 13M blocks, takes 1.6M). */
#define LSD_TAPE_MAX ((size_t)128 << 20)

struct lsd_tape;

/* A tape of at most max bytes (rounded up to its segments) for the blocks
 * of decoder d.  LOOPSCOPE_TAPE_MAX (bytes, in the environment) replaces
 * max; 0 there makes no tape (*pt NULL, returns 0), and so does d's
 * reference path (lsd_opts.reference).  Returns 0 or -LS_ENOMEM. */
int lsd_tape_new(struct lsd_tape **pt, struct lsd_decoder *d, size_t max);
/* Callbacks that record each call on t and then make it to cb with arg,
 * for a decode with t as their argument.  cb's block (single blocks) is
 * not taken: cb must have blocks; its spans are, where it has them (its
 * want_spans is not asked: t's says whether runs are wanted). */
extern const struct lsd_callbacks lsd_tape_callbacks;
void lsd_tape_to(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg);
/* Whether t holds every call of the decode it recorded: none was left
 * off for the tape's bound (or for memory). */
int lsd_tape_whole(const struct lsd_tape *t);
/* Makes t's calls, in order, to cb with arg (as the decode made them to
 * the callbacks t recorded for).  Returns 0 or the first nonzero return
 * of a callback, or -LS_ENOMEM. */
int lsd_tape_replay(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg);
/* Why t holds none of a decode: it did not drop it, its bound was to be
 * passed, its words cost more than decoding again would (more than one
 * for each LSD_TAPE_PT_PER_WORD bytes of PT), or a block or record a
 * word cannot hold, or no memory. */
enum lsd_tape_drop {
	LSD_TAPE_KEPT,
	LSD_TAPE_BOUND,
	LSD_TAPE_WORTH,
	LSD_TAPE_OTHER,
};
#define LSD_TAPE_PT_PER_WORD 4
enum lsd_tape_drop lsd_tape_dropped(const struct lsd_tape *t);
/* Blocks t holds (0: not whole); its words (4 bytes each), and the
 * decoder's runs it named by reference (chains and trails given before)
 * rather than wrote out, for the tests and bench. */
size_t lsd_tape_blocks(const struct lsd_tape *t);
size_t lsd_tape_words(const struct lsd_tape *t);
size_t lsd_tape_refs(const struct lsd_tape *t);
void lsd_tape_free(struct lsd_tape *t);

/* Chunk by chunk: t marks where each chunk of each stream begins (by
 * the decoder's counts, lsd_chunk_starts(): the decode it records must
 * publish them) and names a run only where it gave its blocks since the
 * last such start, so that the records of a chunk replay without those
 * before (lsd_tape_replay_chunks(), the second pass's pieces on
 * several threads).  Before lsd_tape_to(). */
void lsd_tape_chunked(struct lsd_tape *t);
/* Whether chunks [first, last] of stream i replay alone: t is whole and
 * chunked, and each chunk began where a record did. */
int lsd_tape_has_chunks(const struct lsd_tape *t, size_t i, size_t first, size_t last);
/* A player of t's chunks, for one thread.  The first made makes t's
 * table of static blocks by id: t's decode must be over, and no other
 * player be made at once.  Returns 0, -LS_EINVAL (t not whole) or
 * -LS_ENOMEM. */
struct lsd_tape_player;
int lsd_tape_player_new(struct lsd_tape_player **pp, struct lsd_tape *t);
void lsd_tape_player_free(struct lsd_tape_player *pl);
/* Makes the blocks and losses of chunks [first, last] of stream i, as
 * the decode recorded them (a loss where a chunk begins is the later
 * chunk's), to cb with arg.  Returns 0, the first nonzero return of a
 * callback, -LS_EUNSUP (not lsd_tape_has_chunks()), -LS_EINVAL (a name
 * of a run not given: a tape unlike its writer's) or -LS_ENOMEM. */
int lsd_tape_replay_chunks(struct lsd_tape_player *pl, size_t i, size_t first, size_t last,
			   const struct lsd_callbacks *cb, void *arg);

#endif
