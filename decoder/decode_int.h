/* decode_int.h - internals of the block-stream decoder. */
#ifndef LSD_DECODE_INT_H
#define LSD_DECODE_INT_H

#include <capstone/capstone.h>
#include <intel-pt.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "decoder/decode.h"
#include "decoder/iclass.h"
#include "decoder/image.h"

/* Kind of a static block's last instruction, for exit classification. */
enum lsd_kind {
	LSD_K_OTHER = 0,	/* not a branch: the block falls through */
	LSD_K_COND,		/* jcc, loop, jrcxz */
	LSD_K_JMP,		/* direct jmp */
	LSD_K_IJMP,		/* indirect jmp */
	LSD_K_CALL,		/* direct call */
	LSD_K_ICALL,		/* indirect call */
	LSD_K_RET,
	LSD_K_FAR,		/* syscall, sysenter, int, iret, far transfers */
};

/* A range of addresses whose members a bitmap holds, a bit a byte
 * (lsd_addrset_cover()). */
struct lsd_arange {
	uint64_t lo, hi;	/* [lo, hi) */
	uint64_t *bits;
};

/* A set of addresses (0 is never stored): a bitmap for each range
 * covered (the code the sweep found heads in), an open-addressing hash
 * set for the rest.  The heads of a process are dense in its code, so
 * there a look is a bit (sqlite3's hash set had grown to 4 MB, a cache
 * and TLB miss a look, and each look of a new block's walk was one). */
struct lsd_addrset {
	uint64_t *keys;
	size_t n;		/* members in all */
	size_t nkeys, cap;	/* in keys; cap is a power of two */
	struct lsd_arange *r;	/* sorted by lo, disjoint */
	size_t nr;
};

/* The split of one dynamic block shape (start, last) into static blocks. */
struct lsd_dyn {
	uint64_t start, last;
	uint64_t next;		/* address after the last instruction */
	uint32_t first;		/* index into lsd_decoder.parts */
	uint32_t nparts;
	uint32_t ninsn;		/* instructions of the whole shape */
	uint32_t ninsn_last;	/* instructions of its last static block */
	uint8_t kind;		/* enum lsd_kind of the last instruction */
	uint8_t mode;		/* enum lsd_mode it was decoded in */
};

/* Static blocks with their table and index by start address.  Blocks live
 * in pages that never move, so pointers to them stay valid until
 * lsd_close() (callbacks and pending blocks hold them). */
#define LSD_SB_PAGE 4096
struct lsd_sbtab {
	struct lsd_sblock **pages;
	size_t npages;
	size_t n, cap;
	size_t pf;		/* bytes of the last page prefaulted */
	/* Another decoder's blocks (lsd_twin_share()): no block is made
	 * (-LS_EUNSUP), and pages[0 .. nlent) are not freed here. */
	int lent;
	size_t nlent;
};

/* A block shape in the direct-mapped cache: everything the hot path needs
 * in one 32-byte entry, aligned so that it never straddles two cache
 * lines, and a hit costs one memory access (an index into the shape table
 * cost a second, dependent one, often a cache miss).  The last static
 * block is named by its id, not found through parts[]: that was such a
 * second access, on every block.  The instruction counts are here so that
 * the hot path need not read the static blocks themselves: a callback
 * that does not look at them never touches them. */
struct lsd_dcent {
	uint64_t start;
	uint32_t lastoff;	/* last - start; UINT32_MAX: empty (no shape
				 * is that long), so address 0 never hits */
	uint32_t first;		/* index into lsd_decoder.parts, .pre, .partn */
	uint32_t nparts;
	uint32_t last_id;	/* static block id of the last part */
	uint32_t ninsn_last;	/* instructions of the last part */
	uint8_t nextoff;	/* next - last: the last instruction's size */
	uint8_t kind;		/* enum lsd_kind of the last instruction */
	uint8_t mode;		/* enum lsd_mode */
	uint8_t pad;
};

/* Entries of the shape cache: it starts small and doubles while the
 * process has more than half as many shapes as entries, up to
 * LSD_DCACHE_MAX (512 KB, within L2).  A program with many hot shapes
 * (sqlite3: 13,600) missed a fixed 1024 entries on one block in six, and
 * a miss costs ten hits; a small one keeps its cache in L1. */
#define LSD_DCACHE_MIN 1024
#define LSD_DCACHE_MAX 16384

/* The fast path's view of a static block (fast.c), by static block id:
 * what stepping over it needs, in one place. */
struct lsd_fblk {
	const struct lsd_sblock *sb;
	uint64_t end;		/* address after the last instruction */
	uint64_t target;	/* a direct branch's target */
	uint32_t fall, taken;	/* id + 1 of the block at end, at target;
				 * 0 until first needed */
	uint32_t ninsn;
	uint8_t kind;		/* enum lsd_kind */
	uint8_t push;		/* a call whose return libipt remembers */
	uint8_t known;		/* filled */
	/* Bit 0: no chain starts here (a return or an indirect branch
	 * before any conditional one); bit u: a chain from here stopped
	 * after u bits at something other than a bit, kept under those
	 * bits alone (fast_blk.c). */
	uint8_t chmask;
};

/* Per IP compression (an IP packet's first byte, bits 7:5): its payload
 * bytes (0: none, or reserved) and the bits of the last IP it keeps
 * (compression 3 sign-extends instead): the fast path's packets, its
 * trails and the open's packet scan. */
static const uint8_t lsd_ip_size[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
static const uint64_t lsd_ip_keep[8] = {
	0, ~0xffffull, ~0xffffffffull, 0, ~0xffffffffffffull, 0, 0, 0,
};

struct lsd_fchain;
struct lsd_ftrail;
struct lsd_ftset;

/* One process: its image, its heads, the index of its static blocks and
 * the split cache.  Each process has its own static blocks, since the
 * same address may hold other code in another process. */
struct lsd_space {
	struct lsd_image *img;
	struct lsd_addrset heads;
	uint32_t *idx;		/* hash: start -> static block id + 1 */
	size_t nidx, idxcap;
	struct lsd_dyn *dyn;		/* hash by (start, last) */
	size_t ndyn, dyncap;
	/* By start, direct-mapped, dmask + 1 entries, 64-byte aligned;
	 * NULL until the first split. */
	struct lsd_dcent *dcache;
	size_t dmask;
	/* The fast path's index of whole static blocks by head address
	 * (a block libipt cut short shares its start, not its id). */
	uint64_t *fkey;
	uint32_t *fid;
	size_t fn, fcap;
};

/* The direct branch targets of one swept range of a module's file, as
 * offsets from the runtime address of the range's start (modulo 2^64), so
 * they hold wherever the module is mapped. */
struct lsd_hrange {
	uint64_t lo, hi;	/* file offsets swept */
	uint64_t *rel;		/* malloc'd, or in lsd_hmod.map (read only) */
	size_t n;
};

/* The sweep results of one bundle module, shared by every process that
 * maps it, and kept in the build-id cache (heads.c). */
struct lsd_hmod {
	struct lsd_hrange *r;
	size_t n;
	int loaded;		/* the cache file was tried */
	int dirty;		/* has ranges the cache file lacks */
	/* The cache file, mapped: the ranges it held point into it (read
	 * where they lie: a copy cost sqlite3's decode 700 fresh pages). */
	void *map;
	size_t maplen;
};

/* A switch event of a CPU's sideband, its time converted to TSC. */
struct lsd_swent {
	uint64_t tsc;
	uint32_t pid, tid;
	uint32_t seq;		/* order in the bundle, for equal times */
	uint32_t next_in;	/* index of the first switch-in at or after
				 * this one, UINT32_MAX if none */
	uint8_t in;		/* switched in (or ITRACE_START), else out */
};

/* The switch events of one per-CPU stream's CPU, by time (switch.c). */
struct lsd_timeline {
	struct lsd_swent *e;
	size_t n, cap;
};

/* Two chunk buffers: a chunk, and the start of the next. */
struct lsd_chunkbuf {
	uint8_t *p[2];		/* the slots' own memory */
	size_t cap[2];
	const uint8_t *at[2];	/* the chunk read: p[k], or a kept one's */
};

struct lsd_decoder {
	struct lsb_reader *r;
	struct lsd_image *imgs;		/* one per process, [0] owns the modules */
	size_t nimgs;
	struct lsd_space *spaces;	/* one per image, same order, then one
					 * for threads without an image */
	struct lsd_space *sp;		/* the process being split */
	size_t *stream_space;		/* per stream: index into spaces */
	struct { uint32_t pid, tid; } *stream_tid;	/* per stream: its thread */
	/* Per stream: the switch events of a per-CPU stream's CPU (NULL
	 * where no PT time can be had: no per-CPU stream, no time.*). */
	struct lsd_timeline *tl;
	size_t nswitch;
	struct lsd_image noimg;		/* the image of a thread without one */
	struct lsd_opts o;
	struct pt_config base;		/* cpu, errata, timing from the bundle */
	struct lsd_sbtab sbt;		/* the static blocks of all processes */
	struct lsd_sblock **parts;	/* static blocks never move */
	/* Parallel to parts: each static block as executed, when it is not
	 * the last of its shape (it falls through into the next part), built
	 * once per shape so the hot path hands them out as they are. */
	struct lsd_block *pre;
	uint32_t *partn;		/* parallel to parts: instructions of each */
	size_t nparts, capparts;
	/* Capstone per execution mode, and the mode of the block being
	 * split (64-bit but while lsd_split() runs for a libipt block of
	 * another mode: the fast path decodes 64-bit code only). */
	csh cs[LSD_MODE_MAX];
	uint8_t mode;
	struct lsd_iclass_ctx *ic;
	struct lsd_hmod *hmods;		/* per bundle module */
	size_t nhmods;
	struct lsd_chunkbuf cbuf;	/* for one stream at a time */
	/* Chunks lsd_open()'s scan read, kept for the decode (decode_run.c):
	 * of each stream a prefix, LSD_KEEP_MAX bytes in all. */
	struct lsd_kept *kept;
	size_t nkept, kept_bytes;
	/* A twin's first decoder, whose kept chunks it reads as its own:
	 * they were all kept when the twin was opened, and are freed only
	 * when that decoder closes, after its twins. */
	const struct lsd_decoder *kfrom;
	size_t keep_max;		/* LSD_KEEP_MAX; 0 if LOOPSCOPE_KEEP_CHUNKS=0 */
	uint64_t chunk_reads;		/* lsd_chunk_reads() */
	uint64_t scan_ahead;		/* lsd_scan_read_ahead() */
	uint64_t scan_heads;		/* lsd_scan_heads() */
	uint64_t heads_recorded;	/* lsd_heads_from_bundle() */
	unsigned scan_threads;
	struct lsd_prefetch *pf;	/* reading that stream ahead, or NULL */
	struct lsd_fblk *fb;		/* by static block id (fast.c) */
	size_t capfb;
	struct lsd_fchain *chains;	/* fast.c's chains of blocks, as built */
	size_t chains_len;		/* ... their mapping's bytes (lsd_fast_zmap()) */
	size_t ch_pf;			/* ... of them prefaulted (lsd_fchain_take()) */
	struct lsd_fchead *chead;	/* ... their headers, by slot */
	uint32_t *chbody;		/* ... by slot: index + 1 in chains, or 0 */
	uint32_t ch_given;		/* chains given to a slot */
	unsigned ch_log;		/* log2 of their table's entries */
	/* Bumped each time no run left to hand out points into a chain's
	 * slot (lsd_fast_flatten()): a slot whose header holds the current
	 * value (lsd_fchead.pend) may be pointed into. */
	uint16_t ch_epoch;
	/* fast_trail.c's trails of packets: the table's sets (a way for
	 * each trail), the hashes of keys missed once (tr_cand,
	 * LSD_TR_CANDS a set), and the trails, the first tr_built of them
	 * built; tr_len and trails_len their mappings' bytes (lsd_fast_zmap()) */
	struct lsd_ftset *tr_sets;
	uint64_t *tr_cand;
	struct lsd_ftrail *trails;
	size_t tr_len, trails_len;
	size_t tr_built;
	size_t tr_pf;			/* bytes of trails prefaulted */
	unsigned trail_log;		/* log2 of their table's entries */
	uint64_t trail_blocks;		/* lsd_trail_blocks() */
	int no_trails;			/* LOOPSCOPE_TRAILS=0 */
	/* fast_trail.c's yield: looks and the blocks their hits gave in the
	 * window under way; looks left to skip (trails resting) */
	uint32_t tr_looks, tr_rest;
	uint64_t tr_yield;
	uint64_t tr_rests;		/* lsd_trail_rests() */
	struct lsd_fast *fspare;	/* a run's fast-path state, kept for the
					 * next run (fast.c) */
	uint64_t pt_read;	/* raw PT of the chunks decodes began (tape.c) */
	/* Per stream: the blocks before each chunk, as the last decode of
	 * the whole stream counted them (lsd_chunk_starts()). */
	struct lsd_cstarts *cst;
	int own_r;		/* r is this decoder's to close (a twin's) */
	/* lsd_decode_hold() (set on any thread), and whether an adaptive
	 * decode makes the callbacks on another thread now (pipe_adapt.c):
	 * read and written with __atomic builtins */
	int hold, away;
};

/* lsd_chunk_starts()'s counts of one stream: v[c] set for c < n, v[nc]
 * (the stream's blocks) once its decode ended.  n is stored after v[n -
 * 1] (release), so a thread that loads it (acquire) reads set values. */
struct lsd_cstarts {
	uint64_t *v;		/* nc + 1 entries, made as the first decode begins */
	size_t nc;
	_Atomic size_t n;
};

/* The decoder's hash tables' mix of a 64-bit key (addresses, whose low
 * and high bits both vary): every bit reaches the low bits a table
 * masks. */
static inline size_t lsd_hash64(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return (size_t)a;
}

static inline struct lsd_sblock *lsd_sb(const struct lsd_decoder *d, size_t id)
{
	return &d->sbt.pages[id / LSD_SB_PAGE][id % LSD_SB_PAGE];
}

/* Adds a.  Returns 1 where it is new, 0 where it was there (or is 0),
 * -LS_ENOMEM. */
int lsd_addrset_add(struct lsd_addrset *s, uint64_t a);
/* Makes room for n more addresses outside the ranges covered, so that
 * adding them rehashes no more.  Returns 0 or -LS_ENOMEM. */
int lsd_addrset_reserve(struct lsd_addrset *s, size_t n);
/* Holds the members of [lo, hi) in a bitmap from now on (those already
 * in the hash set move there).  Returns 1, 0 where the range is empty,
 * longer than LSD_ARANGE_MAX or overlaps one covered (its members stay
 * hashed), or -LS_ENOMEM. */
#define LSD_ARANGE_MAX ((uint64_t)1 << 32)
int lsd_addrset_cover(struct lsd_addrset *s, uint64_t lo, uint64_t hi);
/* The range covered that holds all of [lo, hi), or NULL. */
const struct lsd_arange *lsd_addrset_covers(const struct lsd_addrset *s, uint64_t lo,
					    uint64_t hi);

/* Sets a's bit in r, which holds a.  Returns 1 where it was clear. */
static inline int lsd_arange_set(const struct lsd_arange *r, uint64_t a)
{
	const uint64_t o = a - r->lo, m = 1ull << (o & 63), w = r->bits[o >> 6];

	r->bits[o >> 6] = w | m;
	return !(w & m);
}

/* Adds a, which range r of s holds: a bit (the sweep's heads come by the
 * hundred thousand, most in the range swept). */
static inline void lsd_arange_add(struct lsd_addrset *s, const struct lsd_arange *r, uint64_t a)
{
	s->n += (size_t)lsd_arange_set(r, a);
}
int lsd_addrset_has(const struct lsd_addrset *s, uint64_t a);
/* dst (empty) becomes a copy of src.  Returns 0 or -LS_ENOMEM (dst then
 * holds part of it, to be released). */
int lsd_addrset_copy(struct lsd_addrset *dst, const struct lsd_addrset *src);
/* lsd_open_msg() whose heads are from's (its twin's: twin.c), not found
 * again: no sweep, no packet scan, no chunk kept; the chunks from kept
 * are read there. */
int lsd_open_from(struct lsd_decoder **pd, struct lsb_reader *r,
		  const struct lsd_opts *o, const struct lsd_decoder *from,
		  char *errmsg, size_t errlen);
void lsd_addrset_release(struct lsd_addrset *s);
/* Adds every member of src to dst.  Returns 0 or -LS_ENOMEM. */
int lsd_addrset_merge(struct lsd_addrset *dst, const struct lsd_addrset *src);
/* Empties s, keeping its hash's memory. */
void lsd_addrset_clear(struct lsd_addrset *s);

/* The static blocks that make up the dynamic block [start .. last] of
 * ninsn instructions: *sbs gets a pointer to nparts static blocks (valid
 * until the next call); *shape (may be NULL) the block's own entry, whose next and
 * kind describe its last instruction (a static block found by its start
 * may be longer than this block, when libipt cut it short).  Returns the
 * count, or -LS_ENOMEM, -LS_EDECODE. */
int lsd_split(struct lsd_decoder *d, uint64_t start, uint64_t last,
	      uint32_t ninsn, struct lsd_sblock *const **sbs,
	      const struct lsd_dyn **shape);
/* Heads from the code: direct branch targets in the executable sections
 * of every module mapped in d->sp's image (heads.c).  Returns 0,
 * -LS_ENOMEM, -LS_EUNSUP. */
int lsd_heads_static(struct lsd_decoder *d);
/* Frees the sweep results of lsd_heads_static(). */
void lsd_heads_release(struct lsd_decoder *d);
/* Heads from the trace: the IPs of TIP, TIP.PGE and FUP packets in buf,
 * into d->sp.  Returns 0 or -LS_ENOMEM. */
int lsd_heads_packets(struct lsd_decoder *d, const uint8_t *buf, size_t len);
/* ... into set (needs no decoder: the prefetch threads' scan). */
int lsd_heads_packets_into(struct lsd_addrset *set, const uint8_t *buf, size_t len);
/* ptheads.c: stream's heads from the bundle's PTHEADS section into
 * d->sp->heads, where it holds them for every chunk the scan would read.
 * Returns 1 if so, 0 where the stream is to be scanned, or -LS_ENOMEM. */
int lsd_heads_recorded(struct lsd_decoder *d, size_t stream);
/* The same for one chunk of per-CPU stream `stream` whose CPU ran several
 * processes: each IP into the space of the process that ran it, followed
 * as the block decoder follows it (heads_cpu.c), from d->sp on; cold: the
 * first chunk, whose thread the first sync tells.  Returns 0 or
 * -LS_ENOMEM. */
int lsd_heads_cpu(struct lsd_decoder *d, size_t stream, const uint8_t *buf,
		  size_t len, int cold);
/* The fast walk of lsd_heads_packets() (pktscan.c): from the PSB at off,
 * adds the IPs of TIP, TIP.PGE and FUP packets of buf to set, as libipt's
 * packet decoder would decode them.  Returns 0 at the end of buf; 1 at a
 * packet it leaves to libipt, *psb then holding the offset of the last
 * PSB it passed (from there libipt decodes what it decoded); or
 * -LS_ENOMEM. */
int lsd_pkt_scan_ips(const uint8_t *buf, size_t len, size_t off, size_t *psb,
		     struct lsd_addrset *set);
void lsd_sbtab_release(struct lsd_decoder *d);
/* A decompressed chunk the open's scan kept for the decode. */
struct lsd_kept {
	size_t s, c;		/* stream, chunk */
	uint8_t *p;		/* NULL once taken */
	size_t cap;
	int64_t len;
};
/* What the kept chunks may hold: the open's scan of a trace of up to 32
 * MiB of PT hands its chunks to every decode (an analysis' two passes)
 * instead of each being read, checked and decompressed three times;
 * longer traces keep their first 32 MiB.  Memory stays bounded, whatever
 * the trace's length.  Off with LOOPSCOPE_KEEP_CHUNKS=0 (their memory's
 * page faults cost more than a read where malloc has no huge pages:
 * doc/performance.md, "Each chunk read once"). */
#define LSD_KEEP_MAX (32u << 20)
/* Keeps chunk c of stream s, just read into d->cbuf.p[0] (len bytes), if
 * it fits LSD_KEEP_MAX; d->cbuf.p[0] is then the kept one's (NULL).
 * Returns 1 if kept, 0 if not (then no later chunk of s should be). */
int lsd_keep_chunk(struct lsd_decoder *d, size_t s, size_t c, int64_t len);
/* The first chunk from c on of stream s that is not kept. */
size_t lsd_kept_end(const struct lsd_decoder *d, size_t s, size_t c);
/* Frees the kept chunks. */
void lsd_kept_release(struct lsd_decoder *d);
/* Reads chunk c of stream s into slot k (0 or 1) of b: the kept one
 * (counted in *nkept if not NULL), or from d->pf where it is reading that
 * stream ahead.  Returns its length, -LS_ENOMEM, -LS_ECORRUPT or a reader
 * error. */
int64_t lsd_read_chunk(struct lsd_decoder *d, size_t s, size_t c,
		       struct lsd_chunkbuf *b, int k, uint64_t *nkept);

/* prefetch.c: chunks [first, last] of stream s of r's bundle read ahead,
 * to be taken in order, by up to nthreads threads (at most one a chunk,
 * and fewer where the chunks are large), each with its own reader of the
 * bundle (r is read here only, on the caller's thread, for its index).
 * Returns 0 (*ppf set), -LS_EINVAL (fewer than two chunks: nothing to
 * gain) or -LS_ENOMEM (no memory, no thread); the caller then reads
 * every chunk itself, as it does each chunk a thread could not read. */
struct lsd_prefetch;
int lsd_prefetch_start(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
		       size_t first, size_t last, unsigned nthreads);
/* The same, each thread also scanning the chunks it reads for the heads
 * their packets name (lsd_heads_packets_into()), for open's scan: the
 * caller takes them with lsd_prefetch_heads(). */
int lsd_prefetch_start_scan(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
			    size_t first, size_t last, unsigned nthreads);
/* The heads of chunk c, the chunk lsd_prefetch_take() gave last, added
 * to set.  Returns 1 (added), 0 (none scanned: the caller scans the
 * chunk itself) or -LS_ENOMEM. */
int lsd_prefetch_heads(struct lsd_prefetch *pf, size_t c, struct lsd_addrset *set);
/* Chunk c of stream s, the next one in order: swapped into *p, *cap (the
 * caller's buffer goes to the thread).  Returns its length, or
 * LSD_PF_MISS where the caller must read it itself (another chunk, or
 * one that did not read: the caller's reader then tells why). */
#define LSD_PF_MISS (-0x7fff)
int64_t lsd_prefetch_take(struct lsd_prefetch *pf, size_t s, size_t c,
			  uint8_t **p, size_t *cap);
/* Stops the threads and frees everything (NULL: nothing).  Returns the
 * chunks taken from them. */
uint64_t lsd_prefetch_stop(struct lsd_prefetch *pf);
/* pf's threads (0: pf NULL). */
unsigned lsd_prefetch_threads(const struct lsd_prefetch *pf);

/* libipt's packet decoder over buf[0 .. len) (heads.c), or NULL: out of
 * memory. */
struct pt_packet_decoder *lsd_pkt_decoder(const uint8_t *buf, size_t len);
/* The IP a packet's compressed payload names after last (libipt's
 * pt_last_ip rules). */
uint64_t lsd_ip_update(uint64_t last, const struct pt_packet_ip *ip);
/* What the PSB+ at offset off of buf holds: the FUP's IP (tracing on
 * there) into *ip, the TSC packet's time into *tsc.  libipt has no time
 * right after a sync (pt_qry_time() reports the time of the last query),
 * so the time at a PSB is read here.  Returns LSD_PSB_IP | LSD_PSB_TSC
 * for what it found, 0 if no PSB is at off, or -LS_ENOMEM. */
#define LSD_PSB_IP 1
#define LSD_PSB_TSC 2
int lsd_psb_read(const uint8_t *buf, size_t len, uint64_t off, uint64_t *ip,
		 uint64_t *tsc);

/* The per-CPU streams' switch timelines, from the sideband (switch.c).
 * Returns 0, -LS_ENOMEM or a reader error. */
int lsd_switch_build(struct lsd_decoder *d);
void lsd_switch_release(struct lsd_decoder *d);
/* The switch event whose thread runs at PT time tsc on tl's CPU, or NULL
 * if the sideband does not say: at an enable (running 0), or at a PSB
 * where tracing is on (running 1); see switch.c for the rule. */
const struct lsd_swent *lsd_switch_at(const struct lsd_timeline *tl,
				      uint64_t tsc, int running);
/* The index in d->spaces of process pid's space: the empty one (no image)
 * for a process the bundle has no mappings of. */
size_t lsd_space_of(const struct lsd_decoder *d, uint32_t pid);

/* The whole static block that starts at head `start` in d->sp, walked
 * with capstone as a libipt block would run through it (to the first
 * branch, or just before the next head); created where new.  *id gets
 * its id, *target a direct branch's target.  Returns 0, -LS_EDECODE (code
 * unmapped or undecodable) or -LS_ENOMEM. */
int lsd_sblock_walk(struct lsd_decoder *d, uint64_t start, uint32_t *id,
		    uint64_t *target);
/* The kind and direct target of the instruction at ip in d->sp.  Returns
 * its size, or -LS_EDECODE. */
int lsd_insn_branch(struct lsd_decoder *d, uint64_t ip, enum lsd_kind *kind,
		    uint64_t *target);
/* The kind of capstone's instruction in (decoded with details) as the
 * static blocks take it, and *target its direct branch target (else 0).
 * Never fails. */
enum lsd_kind lsd_cs_branch(csh cs, const cs_insn *in, uint64_t *target);
/* The 64-bit mode instruction at code (n bytes readable, runtime address
 * ip) by xinsn.c's tables: its size, with *kind and *target (a direct
 * branch's, else 0) exactly as capstone gives them through sblock.c; or 0
 * where the tables are not sure (capstone decides).  Never fails. */
int lsd_xinsn(const uint8_t *code, size_t n, uint64_t ip, enum lsd_kind *kind,
	      uint64_t *target);

/* The classes of the 64-bit mode instruction at code (n bytes readable)
 * as bits (1 << LSD_IC_*) into *cls, exactly as iclass.c's rule gives
 * them from capstone, for the general-purpose opcodes: its size, or 0
 * where xinsn.c defers (SSE, AVX, x87 and whatever lsd_xinsn() leaves to
 * capstone).  Never fails. */
int lsd_xinsn_class(const uint8_t *code, size_t n, unsigned *cls);

/* One step of a linear sweep over code (the heads' and the entries'
 * sweeps): the instruction at *p (*len bytes left, at runtime address *a)
 * in execution mode mode, by xinsn.c's tables for 64-bit code and by
 * capstone (cs, with in for its result) where they defer.  Advances the
 * three past it and returns its size; or, where nothing decodes (data,
 * padding), advances them one byte and returns 0.  The tables give
 * capstone's size wherever they answer and always defer where capstone
 * fails (unit_xinsn checks both at every byte offset), so the sweep is
 * capstone's, at a tenth of its cost.  *len must not be 0. */
int lsd_sweep_step(csh cs, cs_insn *in, int mode, const uint8_t **p, size_t *len,
		   uint64_t *a);

/* Releases what lsd_split() built in sp (not the image). */
void lsd_space_release(struct lsd_space *sp);

static inline size_t lsd_dcache_slot(uint64_t start, size_t mask)
{
	return (size_t)(start ^ (start >> 12)) & mask;
}

/* lsd_split()'s cache hit, inline on the hot path: a block shape seen
 * recently.  Returns its entry (parts at d->parts + first), or NULL on a
 * miss (then call lsd_split_known(), or lsd_split()). */
static inline const struct lsd_dcent *lsd_split_hit(const struct lsd_decoder *d,
						    uint64_t start, uint64_t last,
						    uint8_t mode)
{
	const struct lsd_space *sp = d->sp;
	const struct lsd_dcent *c;

	if (!sp->dcache)
		return NULL;
	c = &sp->dcache[lsd_dcache_slot(start, sp->dmask)];
	if (c->start != start || c->lastoff != (uint32_t)(last - start) || c->mode != mode)
		return NULL;
	return c;
}

/* Starts loading the cache entry of a shape that starts at start, so that
 * it is in L1 when lsd_split_hit() asks: the decoder holds each block
 * back until libipt has decoded the next, and that hides the latency of
 * a cache larger than L1.  always_inline: GCC 12 deems a function that
 * only reads and prefetches pure, and drops the call before inlining. */
static inline __attribute__((always_inline)) void
lsd_split_prefetch(const struct lsd_decoder *d, uint64_t start)
{
	const struct lsd_space *sp = d->sp;

	if (sp->dcache)
		__builtin_prefetch(&sp->dcache[lsd_dcache_slot(start, sp->dmask)]);
}

/* The cache's miss path for a shape split before: puts it in the cache
 * and returns its entry, or NULL if [start .. last] is new (then call
 * lsd_split()).  Cheap enough to keep the caller on its fast path. */
const struct lsd_dcent *lsd_split_known(struct lsd_decoder *d, uint64_t start,
					uint64_t last, uint8_t mode);

/* The length of the CYC packet at p (p[0] & 3 == 3; left >= 1 bytes
 * readable), or 0 where libipt fails on it: cut by the end, or more than
 * 8 extension bytes (5 bits of the count in the header and 7 in each;
 * libipt's shift passes 64 on a ninth: "unknown packet").  The packet
 * scan and the fast path skip CYCs by it. */
static inline size_t lsd_pkt_cyc_len(const uint8_t *p, size_t left)
{
	size_t n = 1;
	int more = p[0] & 4;

	for (; more && n <= 8 && n < left; n++)
		more = p[n] & 1;
	return more ? 0 : n;
}

#endif
