/* tape.h - one decode's callbacks, recorded and replayed.
 *
 * An analysis that decodes a bundle twice (the loop detector's learning
 * pass, then its profiling pass) may record what the first decode handed
 * its consumer and replay it to the second instead of decoding again: a
 * block costs a 32-bit word on the tape (its static block id and exit;
 * where control went only where it is not the next block's start), and
 * the replay rebuilds each block from the decoder's static block table.
 * The tape holds at most a bound of memory: a decode that needs more
 * drops it (lsd_tape_whole() says so) and the second pass decodes.  Its
 * memory is mapped in huge pages where the kernel gives them (a fresh
 * 4 KiB page costs as much to fault in as several blocks take to decode).
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSD_TAPE_H
#define LSD_TAPE_H

#include <stddef.h>

#include "decoder/decode.h"

/* Bytes a tape holds by default: 16M blocks (sqlite3's 5,000-row run of
 * bench/ is 13M; xz -6 on 2 MB, 203M, decodes twice). */
#define LSD_TAPE_MAX ((size_t)128 << 20)

struct lsd_tape;

/* A tape of at most max bytes (rounded up to its segments) for the blocks
 * of decoder d.  LOOPSCOPE_TAPE_MAX (bytes, in the environment) replaces
 * max; 0 there makes no tape (*pt NULL, returns 0), and so does d's
 * reference path (lsd_opts.reference).  Returns 0 or -LS_ENOMEM. */
int lsd_tape_new(struct lsd_tape **pt, struct lsd_decoder *d, size_t max);
/* Callbacks that record each call on t and then make it to cb with arg,
 * for a decode with t as their argument.  cb's block (single blocks) and
 * spans are not taken: cb must have blocks. */
extern const struct lsd_callbacks lsd_tape_callbacks;
void lsd_tape_to(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg);
/* Whether t holds every call of the decode it recorded: none was left
 * off for the tape's bound (or for memory). */
int lsd_tape_whole(const struct lsd_tape *t);
/* Makes t's calls, in order, to cb with arg (as the decode made them to
 * the callbacks t recorded for).  Returns 0 or the first nonzero return
 * of a callback, or -LS_ENOMEM. */
int lsd_tape_replay(struct lsd_tape *t, const struct lsd_callbacks *cb, void *arg);
/* Blocks t holds (0: not whole). */
size_t lsd_tape_blocks(const struct lsd_tape *t);
void lsd_tape_free(struct lsd_tape *t);

#endif
