/* tape_int.h - the tape's layout and state, shared by its recorder
 * (tape.c) and its player (tape_play.c).  Internal to those two files.
 *
 * The tape is a list of segments of 32-bit words, each mapped on its own
 * (2 MiB aligned, huge pages asked for), zero where nothing was written:
 * a record that does not fit where the last one ended goes at the start
 * of the next segment, and a zero word tells the replay to go there.
 * A record is its header (op | count << 4), the stream, then:
 *   blocks   a run of count blocks: one word a block, static block id
 *            << 4 | exit; the last block's next (two words); the number
 *            of blocks whose next is not the following block's start, and
 *            for each its index and next (three words)
 *   spans    count spans of the decoder's (lsd_bspan), their blocks in
 *            one call: the number of blocks, then each span's tag, id << 2
 *            | kind: a chain's or trail's whole array given now and named
 *            id from then on (SP_DEF: its number of blocks, a run), given
 *            before (SP_REF: the tag alone), its first blocks (SP_PART:
 *            their number), or other blocks (SP_RUN, the number of
 *            blocks for id: a run)
 *   loss     struct lsd_loss, word by word
 *   begin    struct lsb_stream, word by word (count 1: none was given)
 *   end      struct lsd_stream_stats, word by word
 *   thread   pid, tid
 * Chunk by chunk (lsd_tape_chunked()), the tape notes, for each stream,
 * the record each chunk's blocks begin at (where its count of the
 * stream's blocks meets the decoder's count before the chunk,
 * lsd_chunk_starts()), and an epoch that moves at each such start and
 * at each change of stream: a run named in an epoch that has not given
 * its blocks yet is given again (its whole array; a part of it goes as a
 * run), so a player that starts at a chunk's first record meets no name
 * it has not been given since.
 */
#ifndef LSD_TAPE_INT_H
#define LSD_TAPE_INT_H

#include <stdint.h>

#include "decoder/decode_int.h"
#include "decoder/tape.h"

enum { TP_BLOCKS = 1, TP_LOSS, TP_BEGIN, TP_END, TP_THREAD, TP_SPANS };
enum { SP_REF, SP_DEF, SP_RUN, SP_PART };

/* Words of a segment: 8 MiB, four huge pages. */
#define SEG_WORDS ((size_t)2 << 20)
#define SEG_BYTES (SEG_WORDS * sizeof(uint32_t))
#define HUGE_ALIGN ((size_t)2 << 20)
/* Static block ids and exits a block word holds. */
#define ID_LIMIT (1u << 28)
_Static_assert(LSD_EXIT_MAX <= 16, "an exit in four bits");

/* Words a struct takes on the tape. */
#define WORDS(T) ((sizeof(T) + 3) / 4)

struct seg {
	struct seg *next;
	uint32_t *w;		/* SEG_WORDS words, zeroed by the kernel */
	void *map;
	size_t map_len;
};

/* An id's blocks as last given on the tape (the replay's). */
struct tdef {
	struct lsd_block *b;
	uint32_t n, cap;
};

/* Where a record begins. */
struct tpos {
	const struct seg *s;
	size_t off;
};

/* A stream's records, chunk by chunk: its blocks so far, how many of its
 * chunks' starts were met (pos[0 .. marked)), and whether one fell inside
 * a record (bad: its chunks do not replay alone). */
struct tstream {
	uint64_t nb;
	size_t marked, nchunks;
	struct tpos *pos;
	int bad;
};

/* A replay of chunks on one thread (lsd_tape_replay_chunks()): the ids'
 * blocks as given in the chunks replayed, and the blocks for cb. */
struct lsd_tape_player {
	const struct lsd_tape *t;
	struct tdef *def;
	struct lsd_block *buf;
	size_t capbuf;
};

struct lsd_tape {
	struct lsd_decoder *d;
	const struct lsd_callbacks *cb;
	void *arg;
	struct seg *head, *tail;
	uint32_t *w, *wend;	/* where the next record goes in tail */
	size_t nseg, maxseg;
	size_t blocks, words, refs;
	size_t check;		/* words at the next look at what is to come */
	/* The arrays named, by id: the decoder's chain slots, then its
	 * trails' (nkey of them, known at the first spans call): the blocks
	 * each was last given with (a player keeps their blocks). */
	uint32_t *keyn;
	size_t nkey;
	struct lsd_block *out;	/* a spans call's blocks for cb */
	size_t capout;
	/* raw PT bytes of the streams decoded, and the decoder's count of
	 * those begun when recording began: a decode whose words so far,
	 * for the PT read so far, say the tape will not hold them all, or
	 * are not worth holding, drops it at once rather than at its
	 * bound */
	uint64_t pt_total, pt_base;
	int used;		/* lsd_tape_to() called: a decode recorded */
	int dropped;		/* enum lsd_tape_drop */
	struct lsd_tape_player own;	/* lsd_tape_replay()'s */
	/* Chunk by chunk (lsd_tape_chunked()): where each chunk's records
	 * begin, by stream; and the epoch, bumped at each such start and
	 * each change of stream, in which each id was last given (a run
	 * named in another epoch is given again: the records from a
	 * chunk's start replay alone). */
	int chunked;
	uint32_t epoch, *ep;
	size_t last_stream;
	struct tstream *ts;
	size_t nts;
	/* the static blocks by id, for the players (lsd_tape_player_new()) */
	const struct lsd_sblock **flat;
	size_t nflat;
};

/* (tape_play.c) Frees what a player holds, and clears it. */
void lsd_tape_player_fini(struct lsd_tape_player *pl);

#endif
