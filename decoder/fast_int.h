/* fast_int.h - the fast path's internals (fast.c: the walk over a
 * chunk's blocks; fast_pkt.c: the packets, the commonest ones parsed
 * inline here; fast_blk.c: the blocks and their chains).  Internal to
 * decoder/. */
#ifndef LSD_FAST_INT_H
#define LSD_FAST_INT_H

#include <stddef.h>
#include <string.h>

#include "decoder/run.h"
#include "ls_buf.h"

/* Blocks entered but not handed out: those since the last packet that
 * decided a branch are not final until the next one (an event may end
 * the block before them). */
#define LSD_FAST_OUT 16384
/* Final blocks handed out at once: 192 KB, half of out.  The decode and
 * the callback each run longer on their own tables (the chains and
 * trails; the tries, rows and counts) before the other's push them out
 * of the caches: 1,024 blocks (24 KB, within L1 with the callback's data)
 * cost base64 xz's and bzip2's `analyze -j1` 5% more CPU, 256 blocks 10%
 * more; 16,384 (out twice as large) no less than 8,192. */
#define LSD_FAST_COMMIT 8192
/* libipt's return-compression stack holds this many returns. */
#define LSD_FAST_RSTACK 64
/* TIP targets remembered by address (direct-mapped; sqlite3 has
 * thousands: 1024 missed one in ten). */
#define LSD_FAST_TIPC 4096
/* Chains: the blocks a run of TNT bits leads through from a block, built
 * once and handed out whole (direct-mapped by block and bits; a chain
 * holds at most LSD_CH_MAX blocks and LSD_CH_PUSH calls and returns). */
#define LSD_CH_MAX 24
#define LSD_CH_PUSH 8
/* 2^15 slots (headers of 768 KB; room for as many chains of 704 bytes,
 * 23 MB, touched as they are built): xz -6 has 16,100 distinct keys,
 * bzip2 -9 26,000; 2^13 rebuilt chains pushed out of their slot (and
 * each miss hands out blocks first): info --decode Ir -2% (xz), -7%
 * (bzip2).  2^14 still rebuilt 449,000 chains in an analysis of 2 MB of
 * xz's text (203,000 now), and on a core of 1 MB of L2 the larger
 * header table costs less than they did: analyze -j1 xz of text 1.7 to
 * 2% less CPU, bzip2 and sqlite3 1%, the others the same (2026-12-07). */
#define LSD_CH_LOG 15
/* Fewer for little code: two entries per block head (rounded up to a
 * power of two), at least 2^LSD_CH_LOG_MIN.  Any program with libc has
 * over 2^12 heads and so the whole table; a tiny static one (the fuzz
 * targets' templates) clears a few KB for each decoder, not 5 MB. */
#define LSD_CH_LOG_MIN 6
/* The most TNT bits a chain takes (up to 16): a TNT-8 packet's 6 in one
 * chain, a TNT-64's 47 in six or more.  16 was tried: more distinct bit
 * patterns to build cost more than the fewer lookups gain
 * (doc/performance.md). */
#define LSD_CH_BITS 8
/* fast.c takes chains while fewer than LSD_FAST_COMMIT blocks are out;
 * lsd_fchain_out() copies up to 24 blocks, two at a time */
_Static_assert(LSD_FAST_COMMIT + LSD_CH_MAX <= LSD_FAST_OUT, "room for a chain");
_Static_assert(LSD_CH_MAX <= 24 && LSD_CH_MAX % 2 == 0, "lsd_fchain_out()'s units");

/* A chain's key: its first block (id + 1), the bits and how many (one
 * compare finds it); 0: an empty slot.  A chain that stopped after u < k
 * bits at a return, an indirect branch or its length is also kept under
 * its u bits alone (lsd_fchain_skey()), for every bit pattern that
 * starts with them. */
static inline uint64_t lsd_fchain_key(uint32_t cur, unsigned k, unsigned bits)
{
	return cur | (uint64_t)bits << 32 | (uint64_t)k << 48;
}

static inline uint64_t lsd_fchain_skey(uint32_t cur, unsigned u, unsigned bits)
{
	return lsd_fchain_key(cur, u, bits) | 1ull << 56;
}

/* The slot of key in a table of 2^(64 - shift) chains: the high bits of
 * a multiplicative hash, which every bit of the key reaches. */
static inline size_t lsd_fchain_slot(uint64_t key, unsigned shift)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> shift);
}

/* What lsd_fast_chain_build() made. */
enum lsd_fchs {
	LSD_FCH_NONE = 0,	/* no chain from this block, ever: it reaches a
				 * return, an indirect branch or LSD_CH_MAX
				 * blocks before any bit */
	LSD_FCH_LATER,		/* none for now: a successor is not known
				 * yet, or a return's bit is not taken */
	LSD_FCH_BITS,		/* a chain that took all its bits */
	LSD_FCH_CODE,		/* one that stopped short of them at the code
				 * (a return, an indirect branch, its length):
				 * the same for any bits after those it took */
	LSD_FCH_PART,		/* one that stopped at a successor not known yet */
};

/* A chain's header, kept apart from its blocks (lsd_decoder.chead, by
 * the chain's slot: lsd_fchain_head()): what the walk reads to go on to
 * the next chain.  Each lookup depends on the one before, so its latency
 * is the walk's: 2^15 headers of 24 bytes (768 KB) stay in a 1 MB L2,
 * where 2^15 chains of 704 bytes (23 MB) do not. */
struct lsd_fchead {
	uint64_t key;		/* lsd_fchain_key() of what it was built for */
	uint32_t insns;		/* (a build stops before 2^32) */
	uint32_t end;		/* id + 1 of the block it stops at */
	uint8_t used;		/* the bits it takes */
	uint8_t nb;		/* its blocks */
	uint8_t nops;		/* its return-stack operations */
	uint8_t lastc;		/* index + 1 of its last block that took a bit */
	/* its blocks were handed out whole from its slot (lsd_bspan.again);
	 * cleared where the slot is built or copied into.  Here, not in the
	 * chain: a walk that hands a chain out by reference reads the
	 * header alone, and a consumer that skips what it saw before (info
	 * --decode's marks) never touches the chain (perf's samples put a
	 * quarter of the walk at that load; info --decode -j1 on bzip2,
	 * median of 8: 0.55 to 0.53 s, xz the same, 2026-12-02). */
	uint8_t out;
	/* its end block starts no chain (lsd_fblk.chmask's bit 0 when it
	 * was built; the bit is never cleared): a walk with bits left goes
	 * on there block by block, with no lookup that would miss (a
	 * return or an indirect branch ends most chains that stop at the
	 * code: sqlite3 looked up one chain in two in vain) */
	uint8_t endnc;
	/* lsd_decoder.ch_epoch when a run not handed out yet was made of
	 * this slot's blocks by reference: the slot must not be built or
	 * copied into before they are handed out or copied (an older value,
	 * or one the 16 bits wrapped to, only costs a needless commit). */
	uint16_t pend;
};
_Static_assert(sizeof(struct lsd_fchead) == 24, "a chain's header: 24 bytes");

/* The rest of a chain: lsd_decoder.chains[chbody[slot] - 1], given to
 * its slot at the slot's first build and its for good (so the array a
 * run points into is the slot's, as lsd_fchead.pend and .out say, and
 * tape.c names it by its place).  Given in the order built, the chains'
 * pages are those of the chains built: by slot, sqlite3's 5,744 chains
 * touched 2,500 pages of the 2,720, and a trivial program's 790. */
struct lsd_fchain {
	/* First, and each chain on a line of its own (704 bytes, the array
	 * aligned: lsd_fast_zmap()): a chain of 8 blocks is 3 lines
	 * read, not 3 or 4 from 96 bytes in; the copy waits on the first
	 * (bzip2's `analyze -j1` 2.2% less CPU, 2026-12-06) */
	_Alignas(64) struct lsd_block b[LSD_CH_MAX];
	/* In order: the return address a call pushes and its call block (id
	 * + 1), or 0 for a return that pops the last one pushed here (its
	 * target known: the chain goes on through it). */
	uint64_t push[LSD_CH_PUSH];
	uint32_t pcall[LSD_CH_PUSH];
	uint32_t slot;		/* its slot (after b: chain_copy() leaves it) */
};
_Static_assert(sizeof(struct lsd_fchain) == 704, "a chain: 11 lines");

/* Trails: the blocks a run of packets leads through from a block, TIPs
 * and compressed returns included (fast_trail.c).  A chain ends at every
 * indirect branch and at every return to a call made before it; where
 * those come every few blocks (an interpreter's dispatch, calls through
 * pointers: sqlite3 has a TIP every 8 blocks), the walk spent most of
 * its time between chains.  A trail is keyed by its first block and the
 * packets' own bytes, from a TIP the loop read ahead (or the packet
 * after another trail) to the end of a TIP: up to LSD_TR_TIPS TIPs in
 * LSD_TR_BYTES bytes, TNT and TIP packets only.
 * Its TIPs' addresses follow from its bytes and the high bits of the
 * last IP its first TIP keeps (kmask, kbase); its returns to calls made
 * before it, from the return stack's top entries (checked).  Built at a
 * key's second miss (a key seen once is only remembered, in cand), so a
 * trace without repeats costs a lookup per trail, not a build. */
#define LSD_TR_TIPS 3
#define LSD_TR_BYTES 32	/* four words: lsd_fast_trail() compares them */
#define LSD_TR_MAX 64
#define LSD_TR_OPS 16
/* 2^12 trails of 2 KB (8 MB, touched as they are built); fewer for
 * little code, as the chains. */
#define LSD_TR_LOG 12
/* Looked up by the block and the first 8 bytes, in sets of this many:
 * trails that begin alike and go on otherwise share a set. */
#define LSD_TR_WAYS 4
/* Keys missed once a set remembers (two a way: each miss remembers its
 * whole key and the one of a TIP fewer, fast_trail.c's trail_miss()). */
#define LSD_TR_CANDS 8
_Static_assert(LSD_TR_BYTES == 32, "a trail's bytes: four words");
/* lsd_bspan.again of a run made of a trail's whole array, where its
 * slot keeps it (a chain's is -1): fast_out.c's spans_again(). */
#define LSD_TR_AGAIN (-2)

/* A set of the trails' table: its ways' tags on one line, the rest of
 * each key in the trail it leads to.  Looks come at every TIP and most
 * miss, so a look reads this line and, for a way whose tag matches, the
 * first line of its trail, which a hit reads anyway; a miss touches no
 * trail.  (Before, a way's 96-byte key held its bytes, their mask and
 * the tag, and a look touched about two lines a way it passed: on xz -6
 * of base64 text the hits spread evenly over the four ways, and the
 * looks were 14% of its analysis.) */
struct lsd_ftset {
	_Alignas(64) uint32_t cur[LSD_TR_WAYS];	/* id + 1 of the block it
						 * starts at; 0: none */
	/* its first 4 bytes, 3 where the key has 3 (the shortest: a TIP of
	 * 16 bits alone): a way whose cur and fp match is compared whole
	 * (the longest key that matches is taken: a set holds keys of
	 * LSD_TR_TIPS TIPs and of one fewer) */
	uint32_t fp[LSD_TR_WAYS];
	/* index + 1 of its trail in lsd_decoder.trails, given at the way's
	 * first build, in the order built (so the trails' pages are those
	 * of the trails built) and kept while the way is built again */
	uint32_t body[LSD_TR_WAYS];
	uint8_t len[LSD_TR_WAYS];	/* its bytes */
	/* the next of its LSD_TR_CANDS slots in lsd_decoder.tr_cand to take
	 * a key missed once (a slot's key, built, goes to way slot / 2) */
	uint8_t rr;
	int8_t score;		/* below zero: its misses not looked up */
};
_Static_assert(sizeof(struct lsd_ftset) == 64, "a set of trails: one line");
_Static_assert(LSD_TR_WAYS == 4, "a set's tags: one line");

/* The trail a key leads to.  Its first line holds what a look compares
 * and checks (the key's bytes, its space, the IP's bits); its blocks
 * begin on the third, as a chain's (the copy waits on their first). */
struct lsd_ftrail {
	_Alignas(64) uint64_t w[LSD_TR_BYTES / 8];	/* the key's bytes, zero
							 * after len */
	const struct lsd_space *sp;	/* the key's address space */
	uint64_t kmask, kbase;	/* last IP & kmask must be kbase */
	uint8_t len;		/* its bytes (its key's) */
	uint8_t nb;		/* its blocks; 0: none (the loop takes them) */
	uint8_t nouter;		/* its returns to calls made before it */
	uint8_t nleft;		/* its calls not returned */
	/* the return stack's depth after it, min(rn + ra, rb), from a depth
	 * rn >= rneed before it (libipt's stack of 64 drops its oldest
	 * entry at a push on a full one) */
	int8_t ra;
	uint8_t rneed;
	int16_t rb;
	uint64_t last_ip;	/* after it: its last TIP's */
	uint64_t insns;
	uint32_t end;		/* id + 1 of the block its last TIP goes to */
	/* lsd_decoder.ch_epoch when a run not handed out yet was made of
	 * its blocks by reference (as lsd_fchead.pend): not built into
	 * before they are handed out or copied */
	uint16_t pend;
	uint8_t out;		/* handed out whole from here (lsd_fchead.out) */
	_Alignas(64) struct lsd_block b[LSD_TR_MAX];
	/* the return addresses its returns to calls made before it take,
	 * in order (the stack's top down), checked against the stack */
	uint64_t outer[LSD_TR_OPS];
	/* its calls not returned, the innermost last: their return
	 * addresses and call blocks (id + 1) */
	uint64_t push[LSD_TR_OPS];
	uint32_t pcall[LSD_TR_OPS];
};
_Static_assert(offsetof(struct lsd_ftrail, last_ip) == 64, "a trail's key: one line");

/* The blocks not yet handed out are runs (sp[]): a chain's own blocks,
 * where its slot keeps them (not copied; the slots change only after
 * every run pointing into them is handed out or copied into loc), or
 * blocks made one at a time in loc. */
struct lsd_fast {
	struct lsd_bspan sp[LSD_FAST_OUT];
	/* +1: lsd_fchain_out() may read and write one block past a run */
	struct lsd_block loc[LSD_FAST_OUT + 1];
	/* The runs copied into one array, for a consumer without the spans
	 * callback, and as scratch where runs are copied into loc. */
	struct lsd_block out[LSD_FAST_OUT + 1];
	uint64_t tipc_ip[LSD_FAST_TIPC];
	uint32_t tipc_id[LSD_FAST_TIPC];
	const struct lsd_space *tipc_sp;
};

/* The header of chain ch of d's table. */
static inline struct lsd_fchead *lsd_fchain_head(const struct lsd_decoder *d,
						 const struct lsd_fchain *ch)
{
	return &d->chead[ch->slot];
}

/* The chain of slot `slot`, which has one: its header's key is set. */
static inline struct lsd_fchain *lsd_fchain_at(const struct lsd_decoder *d, size_t slot)
{
	return &d->chains[d->chbody[slot] - 1];
}

/* The chain of slot `slot`, given one where it has none yet (the table
 * has room for one a slot). */
static inline struct lsd_fchain *lsd_fchain_take(struct lsd_decoder *d, size_t slot)
{
	if (!d->chbody[slot]) {
		/* given in order: the pages ahead mapped in a stretch at a
		 * time, not a fault each (sqlite3: 1,300 faults) */
		ls_prefault_ahead(d->chains, (size_t)(d->ch_given + 1) * sizeof(*d->chains),
				  &d->ch_pf, d->chains_len);
		d->chains[d->ch_given].slot = (uint32_t)slot;
		d->chbody[slot] = ++d->ch_given;
	}
	return lsd_fchain_at(d, slot);
}

/* What was read ahead of the decoding: an event bound to an IP. */
enum lsd_fev {
	LSD_FEV_NONE = 0,
	LSD_FEV_STATUS,		/* PSB+ FUP: only checked */
	LSD_FEV_ASYNC_PGD,		/* FUP + TIP.PGD */
	LSD_FEV_ASYNC_TIP,		/* FUP + TIP */
};

/* Packet kinds the walk tells apart. */
enum lsd_fpkt {
	LSD_FP_EOS = 0, LSD_FP_SKIP, LSD_FP_TNT, LSD_FP_TIP, LSD_FP_PGE, LSD_FP_PGD, LSD_FP_FUP, LSD_FP_PSB,
	LSD_FP_PSBEND, LSD_FP_MODE, LSD_FP_OTHER,
};

/* One packet at c->pos: its kind, size, IP payload.  Never reads past
 * the buffer; anything malformed is LSD_FP_OTHER. */
struct lsd_fpk {
	enum lsd_fpkt k;
	size_t size;
	uint64_t ip;		/* IP packets: the decompressed IP */
	int suppressed;
	uint64_t bits;		/* TNT: the bits, next highest; MODE: payload */
	unsigned nbits;
};

struct lsd_fctx {
	struct lsd_run *r;
	struct lsd_decoder *d;
	struct lsd_space *sp;
	struct lsd_fast *f;
	const uint8_t *buf;
	size_t len, pos;
	uint64_t last_ip;	/* IP compression's last IP */
	int have_ip;		/* a full IP since the last PSB */
	uint64_t tnt;		/* pending TNT bits, the next one highest */
	unsigned ntnt;
	uint64_t rs[LSD_FAST_RSTACK];
	/* Per return address, the id + 1 of the call block that pushed it:
	 * its lsd_fblk.fall keeps the block at the return address, found
	 * once (no lookup by address per return). */
	uint32_t rscall[LSD_FAST_RSTACK];
	unsigned rtop, rn;
	int enabled;
	enum lsd_fev ev;
	uint64_t ev_ip, ev_to;
	size_t n, fin;		/* blocks not handed out; the final ones, the first fin */
	size_t nsp, nloc;	/* their runs in f->sp; blocks in f->loc */
	int tail_loc;		/* the last run is loc's last blocks: a block goes on it */
	int copy;		/* chains are copied into loc as they are taken */
	int mode64;		/* a MODE.Exec for 64-bit code seen in the chunk */
	/* The packet read ahead stopped at, parsed, at pk_pos (SIZE_MAX:
	 * none): the branch it decides takes it without a second parse. */
	struct lsd_fpk pk;
	size_t pk_pos;
	/* The last TSC and TMA seen (SIZE_MAX: none in this chunk): libipt
	 * takes one TMA after each TSC, and fails on any other ("unexpected
	 * packet context"). */
	size_t tsc_pos, tma_pos;
	uint64_t insns;		/* of the blocks made, handed out or not */
	uint64_t delivered;	/* blocks handed out (on success: all the chunk's) */
	/* delivered + fin where libipt had read past the packets that made
	 * them, and no event after them: lsd_fast_read_ahead() with no TNT
	 * bit left, stopped at a TNT or TIP.  libipt reads
	 * ahead when it fetches a TNT packet, so an error after it fails
	 * the packet's first bit; the blocks its bits made may go out only
	 * when the fast path has read past it too (a chunk left to libipt
	 * is decoded again from its start, and the blocks handed out are
	 * not handed out again: they must be libipt's). */
	uint64_t safe;
};

#define LSD_FAST_EOS (LSD_FAST_BAIL + 1)

/* fast_out.c.  lsd_fast_commit() hands out the final blocks libipt has
 * read past (the first c->fin, up to c->safe; before the chunk's end,
 * where all is 0, the last of them stays unless tracing stopped after
 * it) and flattens the others: returns 0 or a callback's return.
 * lsd_fast_flatten() copies the blocks not handed out into loc as one
 * run (none points into a chain's slot after it).  lsd_fast_last_own()
 * makes the last block made a copy of its own in loc and returns it, to
 * change its exit; it cannot fail. */
int lsd_fast_commit(struct lsd_fctx *c, int all);
void lsd_fast_flatten(struct lsd_fctx *c);
struct lsd_block *lsd_fast_last_own(struct lsd_fctx *c);

/* The packet at c->pos into *k (fast_pkt.c). */
void lsd_fast_peek(struct lsd_fctx *c, struct lsd_fpk *k);
/* PSB+ at c->pos: the PSB, then up to PSBEND.  *fup gets the FUP's IP
 * (0: none, tracing off there), *mode whether a MODE.Exec said 64-bit.
 * Returns 1, or 0 for anything the fast path leaves to libipt (a FUP at
 * IP 0 among them). */
int lsd_fast_psb_plus(struct lsd_fctx *c, uint64_t *fup, int *mode);

/* The IP packet at p (its first byte's IP compression in bits 5-7): its
 * size and IP in *k, c->last_ip updated.  Returns 0, changing nothing,
 * where it is malformed or a partial IP has nothing to complete it
 * (libipt's rules for that are left to libipt).  Tables, not a switch:
 * TIPs come by the million in code with indirect branches. */
static inline __attribute__((always_inline)) int
lsd_fast_ip_packet(struct lsd_fctx *c, const uint8_t *p, size_t left, struct lsd_fpk *k)
{
	/* the payload's bits */
	static const uint64_t mask[8] = {
		0, 0xffffull, 0xffffffffull, 0xffffffffffffull, 0xffffffffffffull,
		0, ~0ull, 0,
	};
	const unsigned ipc = p[0] >> 5;
	const size_t n = lsd_ip_size[ipc];
	uint64_t v = 0;
	size_t i;

	if (ipc == 5 || ipc == 7 || left < 1 + n)
		return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (left >= 9) {
		/* the payload in one load, masked to its size */
		memcpy(&v, p + 1, 8);
		v &= mask[ipc];
	} else
#endif
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[1 + i] << (8 * i);
	k->size = 1 + n;
	k->suppressed = ipc == 0;
	if (!ipc) {		/* suppressed: the last IP, whatever it is */
		k->ip = c->last_ip;
		return 1;
	}
	if (ipc == 3)		/* sign-extended from bit 47 */
		v = (v & (1ull << 47)) ? v | 0xffff000000000000ull : v;
	/* 3 and 6 are full IPs; the others complete the last one */
	if (ipc == 3 || ipc == 6)
		c->have_ip = 1;
	else if (!c->have_ip)
		return 0;
	v |= c->last_ip & lsd_ip_keep[ipc];
	c->last_ip = v;
	k->ip = v;
	return 1;
}

/* A TNT-8 byte b (even, not 0x02): its bits in *bits, the next one
 * highest.  Returns how many (0: none). */
static inline unsigned lsd_fast_tnt8(uint8_t b, uint64_t *bits)
{
	unsigned n = 30 - (unsigned)__builtin_clz(b);

	*bits = n ? (uint64_t)(b >> 1) << (64 - n) : 0;
	return n;
}

/* The TNT-64 packet at p (8 bytes readable): as lsd_fast_tnt8(). */
static inline unsigned lsd_fast_tnt64(const uint8_t *p, uint64_t *bits)
{
	uint64_t v = 0;
	unsigned n;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the 6 payload bytes in one load (the hot packet of loops) */
	memcpy(&v, p, 8);
	v >>= 16;
#else
	for (unsigned i = 0; i < 6; i++)
		v |= (uint64_t)p[2 + i] << (8 * i);
#endif
	n = v ? 63 - (unsigned)__builtin_clzll(v) : 0;
	*bits = n ? v << (64 - n) : 0;
	return n;
}

/* The packet after a TNT's last bit, or after a TIP, is most often a TNT
 * or a TIP: where it is one, it goes to c->pk (k, size and bits, or the
 * IP) without lsd_fast_peek()'s tests for every other kind.  Returns 1,
 * or 0 where it is not (or not simply) one. */
static inline int lsd_fast_pk_quick(struct lsd_fctx *c)
{
	const uint8_t *p = c->buf + c->pos;
	size_t left = c->len - c->pos;
	unsigned nbits;
	uint64_t v;

	if (!left)
		return 0;
	if (p[0] && !(p[0] & 1) && p[0] != 0x02) {	/* TNT-8, bits >= 1 */
		nbits = lsd_fast_tnt8(p[0], &v);
		c->pk.size = 1;
	} else if (p[0] == 0x02) {
		/* TNT-64; no bits: left to lsd_fast_peek() */
		if (left < 8 || p[1] != 0xa3 || !(nbits = lsd_fast_tnt64(p, &v)))
			return 0;
		c->pk.size = 8;
	} else if ((p[0] & 0x1f) == 0x0d) {		/* TIP */
		/* (as lsd_fast_peek(): a suppressed one too) */
		if (!lsd_fast_ip_packet(c, p, left, &c->pk))
			return 0;
		c->pk.k = LSD_FP_TIP;
		c->pk_pos = c->pos;
		return 1;
	} else {
		return 0;
	}
	c->pk.k = LSD_FP_TNT;
	c->pk.bits = v;
	c->pk.nbits = nbits;
	c->pk_pos = c->pos;
	return 1;
}

/* lsd_fast_read_ahead() past its quick cases. */
int lsd_fast_read_ahead_rest(struct lsd_fctx *c);

/* Reads ahead as libipt's query decoder does once its TNT bits are used
 * up: the timing packets, and an event (PSB+, FUP + TIP.PGD or TIP) to
 * bind at an IP.  Stops before a packet that decides a branch.  Returns
 * 1, or 0 to leave the chunk to libipt.  Inline, the next packet a TNT
 * or a TIP (most often), without a call (fast_pkt.c: the rest). */
static inline int lsd_fast_read_ahead(struct lsd_fctx *c)
{
	if (c->ntnt || c->ev)
		return 1;
	/* (the read ahead moves neither delivered nor fin) */
	if (lsd_fast_pk_quick(c)) {
		c->safe = c->delivered + c->fin;
		return 1;
	}
	return lsd_fast_read_ahead_rest(c);
}

/* Block record o: block cur (id + 1, its fast view f) left by exit for
 * `to`, as the block loop, the chains and the trails all make it. */
static inline void lsd_fast_put(struct lsd_block *o, const struct lsd_fblk *f, uint32_t cur,
				uint8_t exit, uint64_t to)
{
	o->sb = f->sb;
	o->id = cur - 1;
	o->exit = exit;
	o->next = to;
}

/* The fast view of static block id, filled on first use (fast_blk.c).
 * Returns NULL out of memory, or where its last instruction does not
 * decode. */
struct lsd_fblk *lsd_fast_fblk(struct lsd_fctx *c, uint32_t id);
/* The id + 1 of the whole static block at head ip in c->sp, created
 * where new; 0 where there is none (unmapped, undecodable) or out of
 * memory (*err). */
uint32_t lsd_fast_head_id(struct lsd_fctx *c, uint64_t ip, int *err);
/* The block control goes to from block cur (id + 1) at `to`: a direct
 * successor found once and kept in its lsd_fblk, else looked up.
 * Returns its id + 1, or 0 (*err, or LSD_FAST_BAIL). */
uint32_t lsd_fast_next_block(struct lsd_fctx *c, uint32_t cur, uint64_t to, int direct,
			     int *err);
/* Builds the chain from block cur for the k TNT bits `bits` (the first in
 * bit k - 1) into ch.  Returns what it made (enum lsd_fchs). */
int lsd_fast_chain_build(const struct lsd_decoder *d, struct lsd_fchain *ch,
			 uint32_t cur, unsigned k, unsigned bits);
/* The chain from block cur for the k bits `bits`, where its own slot
 * does not hold it: one kept under fewer of the bits, else built into
 * the slot's chain.  Returns NULL where there is none to take. */
struct lsd_fchain *lsd_fast_chain(struct lsd_decoder *d, size_t slot, uint32_t cur,
				  unsigned k, unsigned bits);
/* Frees d's chains and their headers (none: block by block). */
void lsd_fast_chains_free(struct lsd_decoder *d);
/* Frees d's trails and their table (none: chains and blocks alone). */
void lsd_fast_trails_free(struct lsd_decoder *d);
/* n zeroed elements of size bytes from a 64-byte line on, for the
 * chains' and trails' tables; *len gets what to give
 * lsd_fast_zunmap().  Mapped on their own, not from malloc: calloc()
 * writes zeros over every byte of memory the heap had before (a twin's
 * tables after another twin's were freed, where tune.c's thresholds keep
 * them in the heap: 31 MB a decoder, most of it never touched), where a
 * fresh mapping's pages are the kernel's zero pages until a slot is
 * built into.  Returns NULL without memory. */
void *lsd_fast_zmap(size_t n, size_t size, size_t *len);
void lsd_fast_zunmap(void *p, size_t len);

/* The trail at c->pos from block cur (fast_trail.c), its return-stack
 * operations done, c->pos past its packets and c->last_ip its last TIP's;
 * the caller adds its blocks.  NULL where there is none to take (then
 * nothing changed but the table: a build that fails, out of memory or on
 * code that does not decode, leaves it to the loop, which says so). */
struct lsd_ftrail *lsd_fast_trail(struct lsd_fctx *c, uint32_t cur);
/* fast_out.c: copies the blocks of runs s[0 .. ns) to o, in order;
 * returns how many.  A run of up to LSD_CH_MAX blocks goes in
 * lsd_fchain_out()'s units: o, and the array each run is in, have room
 * for one block more (every run the decoder hands out: a chain's whole
 * array or its first blocks, a trail's, or a run in loc). */
size_t lsd_spans_copy(struct lsd_block *o, const struct lsd_bspan *s, size_t ns);
/* fast_out.c: the blocks of runs s[0 .. ns) copied in order into *buf,
 * grown (room for *cap blocks and lsd_fchain_out()'s last unit) where
 * they do not fit; *n their number.  Returns 0 or -LS_ENOMEM (*buf
 * freed, *cap 0). */
int lsd_spans_flat(struct lsd_block **buf, size_t *cap, const struct lsd_bspan *s, size_t ns,
		   size_t *n);

/* The TIP cache's slot of ip (struct lsd_fast.tipc_ip). */
static inline size_t lsd_fast_tipc_slot(uint64_t ip)
{
	return (size_t)(ip ^ (ip >> 10)) & (LSD_FAST_TIPC - 1);
}

/* The id + 1 of the block at TIP target ip where the TIP cache has it and
 * its fast view is filled, else 0 (then lsd_fast_next_block()): a hit
 * inline, without the call's saves (a TIP every 8 blocks in sqlite3). */
static inline uint32_t lsd_fast_tip_hit(const struct lsd_fctx *c, uint64_t ip)
{
	const size_t s = lsd_fast_tipc_slot(ip);
	const uint32_t id = c->f->tipc_id[s];

	return c->f->tipc_ip[s] == ip && id && id <= c->d->capfb && c->d->fb[id - 1].known ?
	       id : 0;
}

/* Where block f goes without a packet (no branch, a direct jump or
 * call): *to, the block there (*nx, id + 1, 0 where not known yet) and
 * f's exit. */
static inline void step_direct(const struct lsd_fblk *f, uint64_t *to, uint32_t *nx,
			       uint8_t *exit)
{
	if (f->kind == LSD_K_OTHER) {
		*to = f->end;
		*nx = f->fall;
		*exit = LSD_EXIT_FALL;
	} else {
		*to = f->target;
		*nx = f->taken;
		*exit = f->kind == LSD_K_CALL ? LSD_EXIT_CALL : LSD_EXIT_JUMP;
	}
}

/* Where conditional block f goes with TNT bit `taken`, as step_direct(). */
static inline void step_cond(const struct lsd_fblk *f, int taken, uint64_t *to,
			     uint32_t *nx, uint8_t *exit)
{
	if (taken) {
		*to = f->target;
		*nx = f->taken;
	} else {
		*to = f->end;
		*nx = f->fall;
	}
	*exit = *to == f->end ? LSD_EXIT_COND_NOT : LSD_EXIT_COND_TAKEN;
}

/* Copies a chain's nb blocks (nb <= LSD_CH_MAX, 24) to o in units of two
 * (48 bytes, three 16-byte moves): a copy of variable size is a `rep
 * movs`, slow to start for a few hundred bytes, and a loop over units of
 * four copied 1.5 blocks too many on average.  o and b have room for the
 * last unit.  always_inline: with two callers GCC calls it (+1% of
 * analyze's Ir). */
static inline __attribute__((always_inline)) void
lsd_fchain_out(struct lsd_block *restrict o, const struct lsd_block *restrict b, unsigned nb)
{
	switch ((nb + 1) / 2) {
	case 12: memcpy(o + 22, b + 22, 2 * sizeof(*o));	/* fall through */
	case 11: memcpy(o + 20, b + 20, 2 * sizeof(*o));	/* fall through */
	case 10: memcpy(o + 18, b + 18, 2 * sizeof(*o));	/* fall through */
	case 9: memcpy(o + 16, b + 16, 2 * sizeof(*o));	/* fall through */
	case 8: memcpy(o + 14, b + 14, 2 * sizeof(*o));	/* fall through */
	case 7: memcpy(o + 12, b + 12, 2 * sizeof(*o));	/* fall through */
	case 6: memcpy(o + 10, b + 10, 2 * sizeof(*o));	/* fall through */
	case 5: memcpy(o + 8, b + 8, 2 * sizeof(*o));	/* fall through */
	case 4: memcpy(o + 6, b + 6, 2 * sizeof(*o));	/* fall through */
	case 3: memcpy(o + 4, b + 4, 2 * sizeof(*o));	/* fall through */
	case 2: memcpy(o + 2, b + 2, 2 * sizeof(*o));	/* fall through */
	case 1: memcpy(o, b, 2 * sizeof(*o));		/* fall through */
	default: break;
	}
}

/* Sixteen bytes, at any address (GCC's and clang's vector extension). */
typedef uint64_t lsd_v16 __attribute__((vector_size(16), aligned(1)));

/* Copies two blocks (48 bytes) from b to o, in vector registers. */
static inline __attribute__((always_inline)) void lsd_blocks_copy2(struct lsd_block *o,
								   const struct lsd_block *b)
{
	const lsd_v16 *s = (const lsd_v16 *)(const void *)b;
	lsd_v16 *d = (lsd_v16 *)(void *)o, t0 = s[0], t1 = s[1], t2 = s[2];

	d[0] = t0;
	d[1] = t1;
	d[2] = t2;
}

/* Copies nb blocks from b to o (apart), two at a time, the last two
 * (where nb is odd) written again from where they end.  (memcpy() of a
 * size known only at run time, or of eight blocks at an offset known
 * only then, became `rep movs`, whose start cost the trails' copies, 19
 * blocks a hit on base64 xz: 18% of the decode's samples there.) */
static inline __attribute__((always_inline)) void
lsd_blocks_copy(struct lsd_block *restrict o, const struct lsd_block *restrict b, size_t nb)
{
	size_t k;

	if (nb < 2) {
		if (nb)
			o[0] = b[0];
		return;
	}
	for (k = 0; k + 2 <= nb; k += 2)
		lsd_blocks_copy2(o + k, b + k);
	if (k < nb)
		lsd_blocks_copy2(o + nb - 2, b + nb - 2);
}

/* Copies a chain's nb blocks from its slot (LSD_CH_MAX blocks, all
 * readable) to o, which has room for LSD_CH_MAX: eight blocks whatever
 * nb, then eight more while any are left.  (lsd_fchain_out()'s jump
 * by nb missed its target where chains' lengths vary: 12% of xz's
 * decode waited at it.) */
_Static_assert(LSD_CH_MAX == 24, "lsd_fchain_out_slot()'s units");
static inline __attribute__((always_inline)) void
lsd_fchain_out_slot(struct lsd_block *restrict o, const struct lsd_block *restrict b, unsigned nb)
{
	memcpy(o, b, 8 * sizeof(*o));
	if (nb > 8) {
		memcpy(o + 8, b + 8, 8 * sizeof(*o));
		if (nb > 16)
			memcpy(o + 16, b + 16, 8 * sizeof(*o));
	}
}

#endif
