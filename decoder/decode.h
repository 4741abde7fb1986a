/* decode.h - the exact stream of executed static basic blocks, per thread.
 *
 * libipt's block decoder (end_on_call, end_on_jump) runs over each PT
 * stream of a bundle with the process image rebuilt from the bundle
 * (decoder/image.h).  Its dynamic blocks are split at every block head,
 * so every instruction belongs to exactly one static block (LoopProf
 * 3.1).  The heads are known before decoding starts (decoder/heads.c):
 * every direct branch target in the executed modules' code and every IP
 * the packets name (TIP, TIP.PGE, FUP); the set, and so the static
 * blocks, do not depend on the order in which anything is met.  One
 * pass then emits the block stream through callbacks: the fast path
 * (fast.c) walks each chunk's packets straight over the static blocks,
 * and hands a chunk holding anything it does not model to libipt's block
 * decoder from the chunk's start; both give the same blocks, losses and
 * counts (lsd_opts.reference forces libipt).  Memory is bounded by the
 * executed code, not by the trace length.
 *
 * Every process of the bundle has its own image (its mappings from the
 * sideband; a forked child starts with its parent's) and its own static
 * blocks: the same address may hold other code in another process.  A
 * stream is decoded with the image of its process.
 *
 * Decode errors never stop a stream: the lost span is counted (bytes, and
 * instructions where libipt knows them), the decoder resyncs at the next
 * PSB and goes on; the callbacks see a LSD_EXIT_GAP exit before the gap.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSD_DECODE_H
#define LSD_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/bundle.h"

/* How control left a block. */
enum lsd_exit {
	LSD_EXIT_FALL = 0,	/* fell through into the next static block */
	LSD_EXIT_COND_TAKEN,	/* conditional branch, taken */
	LSD_EXIT_COND_NOT,	/* conditional branch, not taken */
	LSD_EXIT_JUMP,		/* direct unconditional jump */
	LSD_EXIT_IJUMP,		/* indirect jump */
	LSD_EXIT_CALL,		/* direct call */
	LSD_EXIT_ICALL,		/* indirect call */
	LSD_EXIT_RET,		/* return */
	LSD_EXIT_SYSCALL,	/* system call (far transfer; tracing paused) */
	LSD_EXIT_ASYNC,		/* interrupted: signal delivery (FUP + PGD) */
	LSD_EXIT_GAP,		/* decode error or overflow: the trace has a gap */
	LSD_EXIT_END,		/* tracing stopped (thread end, exec, disabled) */
	LSD_EXIT_MAX
};

/* Execution modes, as libipt reports them per block (MODE.Exec): the
 * code of a static block is disassembled in its mode.  64-bit is 0, so
 * that a zeroed block is 64-bit code. */
enum lsd_mode {
	LSD_MODE_64 = 0, LSD_MODE_32, LSD_MODE_16, LSD_MODE_MAX
};

/* Instruction classes, counted per static block with capstone. */
enum lsd_iclass {
	LSD_IC_LOAD = 0, LSD_IC_STORE, LSD_IC_BRANCH, LSD_IC_CALL, LSD_IC_RET,
	LSD_IC_INT, LSD_IC_FP, LSD_IC_SIMD, LSD_IC_OTHER, LSD_IC_MAX
};

/* A static block: [start, last] with ninsn instructions. */
struct lsd_sblock {
	uint64_t start;		/* runtime address of the first instruction */
	uint64_t last;		/* runtime address of the last instruction */
	uint64_t end;		/* address after the last instruction */
	uint32_t ninsn;
	uint32_t id;		/* index in the decoder's static block table */
	int32_t module;		/* bundle module index, -1 if unknown */
	uint64_t mod_off;	/* start as an offset in the module's file */
	uint16_t iclass[LSD_IC_MAX];	/* filled when classes are asked for */
	uint8_t last_kind;	/* how the last instruction leaves (decoder's own) */
	uint8_t mode;		/* enum lsd_mode: the code's execution mode */
	uint32_t pid;		/* the process whose code it is */
};

/* One execution of a static block. */
struct lsd_block {
	const struct lsd_sblock *sb;
	/* enum lsd_exit; a word, so that with id it makes one defined
	 * 64-bit key (lsd_block_key()) */
	uint32_t exit;
	/* sb->id (the decoder fills it in), in what was padding: a consumer
	 * that only marks or counts static blocks by id need not read the
	 * static block at all. */
	uint32_t id;
	uint64_t next;		/* where control went (0: unknown, gap, end); for
				 * LSD_EXIT_ASYNC where the interrupted code
				 * resumes (the FUP), or the async branch's target */
};

_Static_assert(offsetof(struct lsd_block, id) == offsetof(struct lsd_block, exit) + 4,
	       "lsd_block_key(): exit and id side by side");

/* b's exit and static block id as one word: two records of one decoder
 * are the same static block left by the same exit exactly where their
 * keys are equal (every record carries its block's id).  One load where
 * a run of records is compared with the run before it. */
static inline uint64_t lsd_block_key(const struct lsd_block *b)
{
	uint64_t k;

	memcpy(&k, &b->exit, sizeof(k));
	return k;
}

/* Blocks handed out by reference (struct lsd_callbacks.spans): b[0 .. n),
 * n >= 1, in execution order.  again: these very block records (a chain
 * where the decoder keeps it) were handed out before by this decoder, so
 * an analysis that only notes which blocks ran may skip them. */
struct lsd_bspan {
	const struct lsd_block *b;
	size_t n;
	int again;
	/* b[0 .. n) is the whole array of a chain or trail the decoder
	 * keeps, handed out whole for the first time since it was made: a
	 * later run with again set at the same b holds the first of the
	 * same records (decoder/tape.c names them by b). */
	uint8_t whole;
};

/* A span of trace that could not be decoded, as ptxed reports it: the
 * stream offset of the packet libipt's decoder was at (pt_blk_get_offset()
 * when the error or the overflow came), libipt's own error, the last IP. */
struct lsd_loss {
	uint64_t offset;	/* in the stream, where the error was found */
	uint64_t bytes;		/* PT bytes skipped to the next PSB */
	uint64_t insns;		/* instructions known lost (0 if unknown) */
	int error;		/* libipt's error code (negative pte_*), the one
				 * that stopped decoding, not the resync's */
	uint64_t ip;		/* the last instruction decoded before it (0 if
				 * none in this chunk) */
};

struct lsd_stream_stats {
	uint64_t insns, blocks;	/* executed instructions and static blocks */
	uint64_t losses;	/* decode errors */
	uint64_t lost_bytes, lost_insns;
	uint64_t syscalls, async, enables;
	uint64_t pt_bytes;
	uint64_t switches;	/* thread changes on a per-CPU stream */
	/* Chunks the fast path decoded, and those it left to libipt's
	 * block decoder (all of them with lsd_opts.reference). */
	uint64_t fast_chunks, libipt_chunks;
	/* Chunks read and decompressed ahead on a thread (lsd_opts.jobs). */
	uint64_t read_ahead;
	/* Chunks the open's scan read and decompressed, kept for every
	 * decode (up to LSD_KEEP_MAX bytes a decoder), so read once. */
	uint64_t kept;
};

struct lsd_callbacks {
	/* Called for every executed static block, in execution order. */
	int (*block)(void *arg, size_t stream, const struct lsd_block *b);
	/* Called for every decode error, after the GAP block. */
	int (*loss)(void *arg, size_t stream, const struct lsd_loss *l);
	/* Called when a stream starts / ends (may be NULL). */
	int (*stream_begin)(void *arg, size_t stream, const struct lsb_stream *s);
	int (*stream_end)(void *arg, size_t stream, const struct lsd_stream_stats *st);
	/* May be NULL.  The thread that runs the blocks that follow: called
	 * before the first block of a stream (after stream_begin), and again
	 * whenever the thread on the stream changes.  A per-thread stream
	 * calls it once; a per-CPU stream calls it with the thread the
	 * sideband first puts on that CPU (tid 0 if it names none; see
	 * README, Known limits).  lsd_decode_chunk() calls it too, so every
	 * chunk's blocks come with their thread. */
	int (*thread)(void *arg, size_t stream, uint32_t pid, uint32_t tid);
	/* May be NULL.  When set, called instead of block: the executed
	 * static blocks in execution order, n >= 1 at a time (b[0 .. n) is
	 * valid during the call only).  One call per batch, not one per
	 * block, for analyses that are cheap per block.  A batch is always
	 * handed over before the loss or stream_end call that follows its
	 * blocks, so every callback sees the order block would. */
	int (*blocks)(void *arg, size_t stream, const struct lsd_block *b, size_t n);
	/* May be NULL; used only with blocks set.  The same blocks as
	 * blocks would get, as ns >= 1 runs s[0 .. ns) of consecutive
	 * blocks, each valid during the call only: the fast path hands its
	 * chains out where they are kept (no copy of each block), and calls
	 * it instead of blocks wherever it can; elsewhere blocks is called.
	 * For analyses that look at each block once and keep nothing. */
	int (*spans)(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns);
	/* May be NULL (spans always wanted); used only with spans set.
	 * Asked as each chunk's fast path begins: 0 says no runs are wanted
	 * for now (a tape that stopped recording), and that chunk's blocks
	 * go to blocks, the chains copied as they are taken, which costs the
	 * fast path less than runs made and then copied for blocks. */
	int (*want_spans)(void *arg);
};

struct lsd_opts {
	size_t size;		/* sizeof(struct lsd_opts) */
	int iclasses;		/* classify instructions of static blocks */
	const char *debug_dir;	/* where to look for referenced modules */
	/* Decode every chunk with libipt's block decoder, never with the
	 * fast path; also set by LOOPSCOPE_REFERENCE=1 in the environment.
	 * Both give the same blocks: this is for tests and comparisons. */
	int reference;
	/* NULL: lsd_decode_all() decodes every stream; else only the
	 * streams i with streams[i] != 0 (one entry per stream of the
	 * bundle, kept by the caller while the decoder lives): a shard of
	 * the bundle.  The image and the block heads are the whole
	 * bundle's, so every static block is the same. */
	const uint8_t *streams;
	/* Threads the decoder may use (0 or 1: the caller's alone).  With 2
	 * or more, a stream decoded whole (lsd_decode_stream(), the streams
	 * of one thread in lsd_decode_all()) and open's scan of the packets
	 * read and decompress its chunks on a thread of their own, ahead of
	 * the decode.  The blocks are the same. */
	unsigned jobs;
	/* Threads open's scan of the packets may use (0: jobs).  The scan
	 * runs alone, so where the decode's consumer takes a core of its
	 * own (an analysis at two jobs gives the decode one) it may still
	 * read and decompress its chunks on two threads or more, that many
	 * chunks at once. */
	unsigned scan_jobs;
	/* Where a stream's heads come from the bundle (no scan of its
	 * packets, decoder/ptheads.c), read its chunks at the open anyway
	 * and keep them (up to 32 MiB, on scan_jobs threads), as the scan
	 * would have: for a caller that decodes every chunk more than once
	 * with a core for each (analyze at two jobs: its second pass's
	 * pieces, decoded beside the first pass, then read none). */
	int keep_chunks;
};

struct lsd_decoder;

/* Whether LOOPSCOPE_REFERENCE (set, not "0") asks every stage for its
 * reference path: libipt's block decoder, the detector block by block. */
int lsd_env_reference(void);

/* Builds the image and collects the block heads (a sweep of the code, read
 * back from the build-id cache where an earlier open left it, and a packet
 * scan of every stream; no instruction decoding).
 * Returns -LS_ENOMEM, -LS_EINVAL, a reader error, or -LS_EBUILDID for a
 * module whose file has another build-id; errmsg (may be NULL) gets a
 * message naming the files. */
int lsd_open_msg(struct lsd_decoder **pd, struct lsb_reader *r,
		 const struct lsd_opts *o, char *errmsg, size_t errlen);
/* lsd_open_msg() without a message. */
int lsd_open(struct lsd_decoder **pd, struct lsb_reader *r,
	     const struct lsd_opts *o);
/* Executable mappings whose bytes are not in the bundle nor found (all
 * processes). */
uint64_t lsd_missing_mappings(const struct lsd_decoder *d);
/* Chunks d read and decompressed so far, the open's scan's and every
 * decode's, on its own thread or ahead on another (a chunk kept from the
 * open's scan is read once however many decodes take it). */
uint64_t lsd_chunk_reads(const struct lsd_decoder *d);
/* Bytes of PT in the streams d decodes (lsd_opts.streams: a shard's). */
uint64_t lsd_pt_bytes(const struct lsd_decoder *d);
/* Chunks the open's scan took read ahead by threads of their own, and how
 * many threads read them (struct lsd_opts.scan_jobs; 0 and 0: none). */
uint64_t lsd_scan_read_ahead(const struct lsd_decoder *d, unsigned *threads);
/* ... of those, chunks whose heads those threads scanned for too (one
 * process's streams), not the caller. */
uint64_t lsd_scan_heads(const struct lsd_decoder *d);
/* Streams whose heads d took from the bundle (its PTHEADS sections,
 * decoder/ptheads.c) rather than from a scan of their packets. */
uint64_t lsd_heads_from_bundle(const struct lsd_decoder *d);

/* The heads a bundle's writer keeps of each stream (formats/bundle.h,
 * lsb_writer_opts.heads): lsd_pt_heads_cb() with arg a set made by
 * lsd_pt_heads_new() (NULL: no memory), freed after the writer closes.
 * The callback returns 0, or -LS_ENOMEM (that stream then has none). */
struct lsd_pt_heads;
struct lsd_pt_heads *lsd_pt_heads_new(void);
void lsd_pt_heads_free(struct lsd_pt_heads *h);
int lsd_pt_heads_cb(void *arg, uint32_t stream, const uint8_t *pt, size_t len,
		    uint64_t **ips, size_t *n);
/* Blocks d's fast path took from its trails (runs of TNT and TIP
 * packets decoded once and taken whole, decoder/fast_trail.c), those of
 * chunks it then left to libipt too. */
uint64_t lsd_trail_blocks(const struct lsd_decoder *d);
/* Times d's trails rested: a window of 2^16 looks for them gave fewer
 * than 8 blocks a look, and the next 2^20 were not looked for
 * (fast_trail.c). */
uint64_t lsd_trail_rests(const struct lsd_decoder *d);
void lsd_close(struct lsd_decoder *d);
/* Decodes stream i (pass 2), calling cb.  A non-zero return from a callback
 * stops decoding and is returned. */
int lsd_decode_stream(struct lsd_decoder *d, size_t i,
		      const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st);
/* Decodes every stream, calling cb with each one's index as
 * lsd_decode_stream() does; st (may be NULL) gets one entry per stream.
 * Per-thread streams go one after the other; the per-CPU streams whose
 * switches the decoder follows are decoded side by side, switching
 * between them at thread switches in PT time order, so that the runs of
 * a thread that moved between CPUs reach the callbacks in the order they
 * ran.  The calls for one stream keep their order (stream_begin, thread,
 * blocks and losses, stream_end); those of different streams interleave.
 * Holds two chunks of every per-CPU stream.  Returns as
 * lsd_decode_stream(). */
int lsd_decode_all(struct lsd_decoder *d, const struct lsd_callbacks *cb,
		   void *arg, struct lsd_stream_stats *st);
/* lsd_decode_all() on a second thread: the decoding (reading and
 * decompressing the chunks too) runs ahead of the callbacks, which run on
 * the calling thread with the same arguments in the same order, through a
 * bounded queue (about 2 MB).  While it runs, the callbacks may use the
 * blocks and static blocks they are given, but neither d nor its reader
 * (lsd_sblock(), lsb_reader_module_data()...), except in stream_end: the
 * decoder waits until that callback returns.  Falls back to
 * lsd_decode_all() where no thread can be made.  Returns as
 * lsd_decode_all(). */
int lsd_decode_all_piped(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			 void *arg, struct lsd_stream_stats *st);
/* Several analyses' callbacks as one set, for one decode: with
 * lsd_fan_callbacks and the set as arg, every callback goes to each
 * member in the order added (a batch whole to members with blocks,
 * block by block to the others; the decoder's runs by reference to
 * members with spans, copied once for the others), and the first error
 * ends it. */
#define LSD_FAN_MAX 8
struct lsd_fan {
	const struct lsd_callbacks *cb[LSD_FAN_MAX];
	void *arg[LSD_FAN_MAX];
	size_t n;
	struct lsd_block *buf;	/* (the runs copied: lsd_fan_release()) */
	size_t capbuf;
};
/* Adds cb with arg to f (zeroed by the caller).  Returns 0, or
 * -LS_EINVAL (NULL, or LSD_FAN_MAX are there). */
int lsd_fan_add(struct lsd_fan *f, const struct lsd_callbacks *cb, void *arg);
/* The memory a decode through f took (f stays usable). */
void lsd_fan_release(struct lsd_fan *f);
extern const struct lsd_callbacks lsd_fan_callbacks;
/* Two analyses of one decode: cb (with arg) and tee (with tee_arg; NULL:
 * none) each get every callback lsd_decode_all() makes, in its order.
 * threads 0: all on the calling thread, cb's call first each time; 1: as
 * lsd_decode_all_piped(), both on the calling thread; 2 or more: tee's
 * on a third thread of their own, side by side with cb's, from the same
 * buffers, so that neither waits for the other beyond the queue's
 * length (tee NULL: lsd_decode_all_adapt()).  tee's callbacks must
 * then not use d or its reader at all (stream_end too), nor anything
 * cb's touch.  Falls back to fewer
 * threads where no thread can be made.  Returns as lsd_decode_all(), or
 * the first callback error of either. */
int lsd_decode_all_tee(struct lsd_decoder *d, const struct lsd_callbacks *cb,
		       void *arg, const struct lsd_callbacks *tee, void *tee_arg,
		       int threads, struct lsd_stream_stats *st);
/* PT bytes from which lsd_decode_all_adapt() begins piped (pipe_adapt.c). */
#define LSD_ADAPT_PIPED_PT ((uint64_t)2 << 20)
/* What lsd_decode_all_adapt() chose. */
struct lsd_pipe_stats {
	uint64_t windows;	/* blocks timed, then a choice made */
	uint64_t to_thread;	/* times the callbacks moved to the thread */
	uint64_t piped_first;	/* passes begun with the calls on the thread */
};
/* While hold is set, an adaptive decode of d (lsd_decode_all_adapt())
 * makes its callbacks on its decoding thread, from its next blocks on
 * (the calls in its ring made first); cleared, it chooses again as it
 * does otherwise.  May be called from a callback, on either thread. */
void lsd_decode_hold(struct lsd_decoder *d, int hold);
/* Whether d's callbacks run on the thread that decodes now: 0 in a call
 * an adaptive decode makes through its ring, 1 otherwise (a plain
 * lsd_decode_all(), or an adaptive one making them there).  Only of
 * those two: the piped and tee decodes make them elsewhere always. */
int lsd_decode_here(const struct lsd_decoder *d);
/* lsd_decode_all() on the calling thread, cb's calls moved to a second
 * thread (through the queue of lsd_decode_all_piped()) only while that
 * costs less: the decode times both sides over a window of blocks now
 * and then (a decode of LSD_ADAPT_PIPED_PT bytes of PT or more begins
 * with the calls on the thread, its first window later).  The calls,
 * their arguments and their order are those of lsd_decode_all(); cb
 * must not use d or its reader, except in
 * stream_end (the decode waits until it returns).  ps (may be NULL)
 * gets what was chosen.  LOOPSCOPE_PIPE_SWITCH=N in the environment
 * switches threads every N blocks instead (tests).  Returns as
 * lsd_decode_all(), or cb's first error. */
int lsd_decode_all_adapt(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			 void *arg, struct lsd_stream_stats *st,
			 struct lsd_pipe_stats *ps);
/* The same with tape (decoder/tape.h; NULL: none) recording the decode's
 * calls on the calling thread, in front of cb's, wherever those are
 * made. */
struct lsd_tape;
int lsd_decode_all_adapt_tape(struct lsd_decoder *d, const struct lsd_callbacks *cb,
			      void *arg, struct lsd_stream_stats *st,
			      struct lsd_pipe_stats *ps, struct lsd_tape *tape);
/* Progress for a command line: when fn is set, it is called each time
 * decoding reads a chunk, with the bundle, the chunk's PT bytes and the
 * instructions decoded since the previous call of that stream's decode,
 * on the thread that decodes (lsd_decode_all_piped(): not the caller's).
 * One setting for the whole process; NULL turns it off. */
typedef void lsd_progress_fn(void *arg, const struct lsb_reader *r,
			     uint64_t pt_bytes, uint64_t insns);
void lsd_set_progress(lsd_progress_fn *fn, void *arg);
/* Decodes one chunk of stream i on its own, stopping where the next chunk
 * begins (its PSB+ FUP IP reached after the chunk's last packet), so the
 * chunks of a stream may be decoded by several workers and their results
 * concatenated.  Returns as lsd_decode_stream(). */
int lsd_decode_chunk(struct lsd_decoder *d, size_t i, size_t chunk,
		     const struct lsd_callbacks *cb, void *arg,
		     struct lsd_stream_stats *st);
/* Chunks first to last of stream i, the same way (last: not the stream's
 * last chunk, then the stream ends after it), as the one run of blocks
 * those chunks make in the whole stream's decode.  Returns as
 * lsd_decode_stream(), or -LS_EINVAL (first > last, or last not a
 * chunk index). */
int lsd_decode_chunks(struct lsd_decoder *d, size_t i, size_t first, size_t last,
		      const struct lsd_callbacks *cb, void *arg,
		      struct lsd_stream_stats *st);
/* Where stream i's chunks begin in its blocks: (*v)[c] blocks came before
 * chunk c in the first decode of the whole stream (lsd_decode_all(),
 * lsd_decode_stream() and the pipes over them), or of chunks from its
 * first on, or on from a chunk whose start is known (lsd_decode_chunks()),
 * and (*v)[nc] is the stream's blocks (nc: its chunks) once a decode
 * reached its end.  Returns how
 * many entries are set, from 0: a consumer may ask while the decode runs,
 * on any thread, and then gets at least the chunks begun before the
 * blocks it was handed last.  0 (*v NULL) before any such decode. */
size_t lsd_chunk_starts(const struct lsd_decoder *d, size_t i, const uint64_t **v);
/* Sets (*v)[c] of lsd_chunk_starts() for stream i: v blocks before chunk
 * c, counted by another decoder (a twin's run of the chunks after c - 1).
 * c must be the next not set.  Returns 0, -LS_ENOMEM or -LS_EINVAL. */
int lsd_chunk_starts_put(struct lsd_decoder *d, size_t i, size_t c, uint64_t v);
/* How lsd_decode_all() decodes stream i: 1 on its own, as
 * lsd_decode_stream() does (a per-thread stream, or a per-CPU one whose
 * switches it does not follow); -1 side by side with the other per-CPU
 * streams; 0 not at all (outside the shard the options ask for). */
int lsd_stream_alone(const struct lsd_decoder *d, size_t i);
/* The process and thread whose blocks stream i holds, as the decode's
 * thread callback tells them first. */
void lsd_stream_thread(const struct lsd_decoder *d, size_t i, uint32_t *pid,
		       uint32_t *tid);

/* A decoder of the same bundle as d for another thread: a reader of its
 * own (the file d's reader opened), d's options on one job, so the same
 * heads and static blocks (numbered in the order this one meets them;
 * lsd_sbmap_find() names d's).  Returns 0, -LS_ENOMEM, a reader error, or
 * an error of lsd_open(). */
int lsd_open_twin(struct lsd_decoder **pd, const struct lsd_decoder *d);
/* d's static blocks by what they are (process, first and last address,
 * mode), made when d decodes no more of them: then read by any thread. */
struct lsd_sbmap;
/* Returns 0 or -LS_ENOMEM. */
int lsd_sbmap_new(struct lsd_sbmap **pm, const struct lsd_decoder *d);
/* d's static block alike sb (another decoder's of the same bundle: a
 * twin's), in the address space of stream i, made as a copy of sb if d
 * has none: so d names a block it did not decode itself.  Returns 0,
 * -LS_ENOMEM, -LS_EINVAL (sb is another process's code) or -LS_EUNSUP
 * (d hands out another decoder's blocks: lsd_twin_share()). */
int lsd_sblock_adopt(struct lsd_decoder *d, size_t i, const struct lsd_sblock *sb,
		     const struct lsd_sblock **out);
/* d's static block that is sb (another decoder's, a twin's), or NULL: none,
 * or several alike. */
const struct lsd_sblock *lsd_sbmap_find(const struct lsd_sbmap *m,
					const struct lsd_sblock *sb);
void lsd_sbmap_free(struct lsd_sbmap *m);
/* d's static blocks as they are now, for twins to hand out as their own
 * (lsd_twin_share()): taken on d's thread (or where d decodes nothing),
 * then read by any, while d lives.  Returns 0 or -LS_ENOMEM. */
struct lsd_sbshare;
int lsd_sbshare_new(struct lsd_sbshare **ps, const struct lsd_decoder *d);
void lsd_sbshare_free(struct lsd_sbshare *s);
/* Twin tw of the decoder s was taken of, opened and not yet decoding,
 * hands out that decoder's static blocks themselves (their pointers and
 * ids), so its blocks need no naming; and it makes none of its own: a
 * block s does not hold (code the other decoder had not decoded when s
 * was taken) stops tw's decode with -LS_EUNSUP.  For a decode of what was
 * decoded before (the second pass's pieces).  Returns 0, -LS_ENOMEM, or
 * -LS_EINVAL (tw made static blocks already, or its processes are not
 * s's): tw is then as it was. */
int lsd_twin_share(struct lsd_decoder *tw, const struct lsd_sbshare *s);
/* Twin tw, shared before (lsd_twin_share()), takes s instead: a later
 * share of the same decoder, which holds every block the earlier one
 * did and those made since (a twin that follows its first decoder
 * through a trace the first is still decoding: analysis/loops_trail.c).
 * Its chains and caches stay.  Returns 0, -LS_ENOMEM, or -LS_EINVAL (tw
 * not shared, or s not a later share of its decoder): tw is then as it
 * was. */
int lsd_twin_reshare(struct lsd_decoder *tw, const struct lsd_sbshare *s);

/* The static block table.  Static blocks never move: pointers to them
 * (struct lsd_block.sb included) stay valid until lsd_close(). */
size_t lsd_nsblocks(const struct lsd_decoder *d);
const struct lsd_sblock *lsd_sblock(const struct lsd_decoder *d, size_t id);
/* The static block containing ip, or NULL; in the first process's blocks
 * when several processes have one there. */
const struct lsd_sblock *lsd_sblock_at(const struct lsd_decoder *d, uint64_t ip);
/* Copies up to size bytes of code at ip in process pid's image (the bytes
 * of a static block: lsd_sblock_code(d, sb->pid, sb->start, ...)).
 * Returns the count, or -LS_ENOENT where pid has nothing mapped. */
int lsd_sblock_code(const struct lsd_decoder *d, uint32_t pid, uint64_t ip,
		    uint8_t *buf, size_t size);
/* The bytes of bundle module mod that d's images hold (an embedded
 * module's, decompressed at lsd_open(); a referenced one's file), valid
 * until lsd_close().  Returns 0, or -LS_ENOENT when d has none of them. */
int lsd_module_bytes(const struct lsd_decoder *d, size_t mod, const void **data,
		     size_t *len);
/* The CRC-32 of those bytes into *crc, where the open knows it (checked
 * or computed for the build-id cache).  Returns 0, or -LS_ENOENT where it
 * does not. */
int lsd_module_crc(const struct lsd_decoder *d, size_t mod, uint32_t *crc);
/* Whether sb's last instruction is no branch (sb ends before a head and
 * falls through into it). */
int lsd_sblock_falls(const struct lsd_sblock *sb);
/* Name of an exit kind ("fall", "taken", ...). */
const char *lsd_exit_name(int exit);
/* Name of instruction class ic (lsp_class_name(): "load" .. "other"), "?"
 * outside [0, LSD_IC_MAX). */
const char *lsd_iclass_name(int ic);

#endif
