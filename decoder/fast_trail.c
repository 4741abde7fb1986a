/* fast_trail.c - trails: the blocks a run of TNT and TIP packets leads
 * through from a block, keyed by the packets' bytes (fast_int.h, struct
 * lsd_ftrail), built once from the code as a chain is and taken whole.
 *
 * A trail is what the block loop of fast.c would make of the same
 * packets from the same block, given the same last IP and return stack:
 * its build walks the blocks with fast.c's rules (step_direct(),
 * step_cond(), libipt's return compression) and gives up wherever the
 * loop would do anything but take the next packet (an event, another
 * kind of packet, a return with a bit not taken or an empty stack): the
 * loop then does it.  The packet after a trail is a TNT or a TIP too,
 * so that what the loop reads ahead after the trail (no event) is what
 * it read ahead after each of its TIPs.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/fast_int.h"
#include "ls_err.h"

/* By a packet's first byte, whether a trail takes it: its size in bits
 * 3:0 (a TNT-8, a TIP with an IP: TR_TIP set), TR_EXT for 0x02 (a
 * TNT-64, or another extended packet), 0 for anything else. */
#define TR_TIP 0x80
#define TR_EXT 0x40
static const uint8_t trail_tab[256] = {
	0x00, 0x00, 0x40, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x83, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x85, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x87, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x87, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x89, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00,
};

/* The size of the packet at p (left bytes readable) where a trail takes
 * it: a TNT-8, a TNT-64 with bits, a TIP with an IP; 0 otherwise.  *tip
 * says it is a TIP. */
static inline size_t trail_pkt(const uint8_t *p, size_t left, int *tip)
{
	const unsigned t = trail_tab[p[0]];
	uint64_t v;

	*tip = t & TR_TIP;
	if (t != TR_EXT)
		return (t & 15) <= left ? t & 15 : 0;
	if (left < 8 || p[1] != 0xa3)
		return 0;
	/* (lsd_fast_tnt64(): no bits where only its stop bit is set) */
	v = (uint64_t)(p[2] >> 1) | p[3] | p[4] | p[5] | p[6] | p[7];
	return v ? 8 : 0;
}

/* The bytes of the trail at p: packets the trail takes, up to maxtips
 * TIPs (at most LSD_TR_TIPS) in LSD_TR_BYTES bytes, ending with a TIP
 * that one it takes follows.  Returns 0 where there is none. */
static size_t trail_len(const uint8_t *p, size_t left, unsigned maxtips)
{
	const size_t lim = left < LSD_TR_BYTES ? left : LSD_TR_BYTES;
	size_t i = 0, ends[LSD_TR_TIPS];
	unsigned tips = 0;
	int tip;

	while (tips < maxtips && i < lim) {
		size_t sz = trail_pkt(p + i, lim - i, &tip);

		if (!sz)
			break;
		i += sz;
		if (tip)
			ends[tips++] = i;
	}
	while (tips) {
		i = ends[--tips];
		if (i < left && trail_pkt(p + i, left - i, &tip))
			return i;
	}
	return 0;
}

static uint64_t trail_hash(uint32_t cur, size_t len, const uint64_t *w)
{
	uint64_t h = (cur | (uint64_t)len << 32) * 0x9e3779b97f4a7c15ull;
	unsigned i;

	for (i = 0; i < LSD_TR_BYTES / 8; i++) {
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1;	/* (0: an empty slot) */
}

/* Bytes of a TIP's payload, little-endian. */
static uint64_t trail_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Builds into e the trail of len bytes p from block cur, from c's last
 * IP and return stack.  Returns 1, or 0 where the block loop is to take
 * these packets itself (e is left empty of blocks: nb 0). */
static int trail_build(struct lsd_fctx *c, struct lsd_ftrail *e, uint32_t cur, const uint8_t *p,
		     size_t len)
{
	const uint64_t *const keep = lsd_ip_keep;
	uint64_t tnt = 0, ip = c->last_ip, insns = 0;
	unsigned ntnt = 0, nb = 0, nown = 0, nout = 0, tips = 0;
	/* The stack's depth after each operation, as a function of its
	 * depth rn before the trail: min(rn + ra, rb) (a push on a full
	 * stack drops its oldest entry), defined for rn >= rneed (a return
	 * pops from an empty stack otherwise).  rs: the depth here. */
	int ra = 0, rb = 1 << 20, rneed = 0, rs = (int)c->rn;
	/* the calls made here and not returned: their addresses and call
	 * blocks, the innermost last */
	uint64_t opush[LSD_TR_OPS];
	uint32_t ocall[LSD_TR_OPS];
	int err = 0;
	size_t i = 0;

	e->nb = 0;
	for (;;) {
		const struct lsd_fblk *f;
		uint64_t to = 0;
		uint32_t nx = 0;
		uint8_t exit = 0;
		int tip = 0, direct = 1, sz;

		if (nb == LSD_TR_MAX || !(f = lsd_fast_fblk(c, cur - 1)))
			return 0;
		if (insns + f->ninsn > UINT32_MAX)
			return 0;
		/* the packet a block takes, where it needs one it has not */
		if ((f->kind == LSD_K_COND || f->kind == LSD_K_RET) && !ntnt) {
			if (i >= len)
				return 0;
			if ((p[i] & 0x1f) == 0x0d) {
				tip = 1;
			} else if (p[i] == 0x02) {
				ntnt = lsd_fast_tnt64(p + i, &tnt);
				i += 8;
			} else {
				ntnt = lsd_fast_tnt8(p[i], &tnt);
				i += 1;
			}
		} else if (f->kind == LSD_K_IJMP || f->kind == LSD_K_ICALL) {
			if (ntnt || i >= len || (p[i] & 0x1f) != 0x0d)
				return 0;
			tip = 1;
		}
		if (tip) {
			unsigned ipc = p[i] >> 5;

			sz = lsd_ip_size[ipc];
			if (!tips++) {
				e->kmask = keep[ipc];
				e->kbase = c->last_ip & keep[ipc];
			}
			to = trail_le(p + i + 1, (size_t)sz);
			if (ipc == 3)
				to = (to & (1ull << 47)) ? to | 0xffff000000000000ull : to;
			ip = to | (ip & keep[ipc]);
			to = ip;
			i += 1 + (size_t)sz;
			direct = 0;
		}
		switch (f->kind) {
		case LSD_K_CALL:
		case LSD_K_OTHER:
		case LSD_K_JMP:
			step_direct(f, &to, &nx, &exit);
			break;
		case LSD_K_COND:
			if (tip)
				return 0;
			step_cond(f, (int)(tnt >> 63), &to, &nx, &exit);
			tnt <<= 1;
			ntnt--;
			break;
		case LSD_K_RET:
			exit = LSD_EXIT_RET;
			if (tip)
				break;
			/* a compressed return: a taken bit, the stack's top */
			if (!(tnt >> 63))
				return 0;
			tnt <<= 1;
			ntnt--;
			if (!rs--)
				return 0;
			if (1 - ra > rneed)
				rneed = 1 - ra;
			ra--;
			rb--;
			if (nown) {
				to = opush[--nown];
			} else {
				/* to a call made before the trail: the stack's
				 * entry, the deepest one yet (none of the
				 * trail's calls wrote it, even on a full stack:
				 * they write at most LSD_TR_OPS above it) */
				if (nout == LSD_TR_OPS)
					return 0;
				to = c->rs[(c->rtop - ++nout) & (LSD_FAST_RSTACK - 1)];
				e->outer[nout - 1] = to;
			}
			direct = 0;
			break;
		case LSD_K_IJMP:
			exit = LSD_EXIT_IJUMP;
			break;
		case LSD_K_ICALL:
			exit = LSD_EXIT_ICALL;
			break;
		default:
			return 0;
		}
		if (f->push && (f->kind == LSD_K_CALL || f->kind == LSD_K_ICALL)) {
			if (nown == LSD_TR_OPS)
				return 0;
			opush[nown] = f->end;
			ocall[nown++] = cur;
			rs += rs < LSD_FAST_RSTACK;
			ra++;
			rb = rb + 1 < LSD_FAST_RSTACK ? rb + 1 : LSD_FAST_RSTACK;
		}
		lsd_fast_put(&e->b[nb++], f, cur, exit, to);
		insns += f->ninsn;
		if (!nx && !(nx = lsd_fast_next_block(c, cur, to, direct, &err)))
			return 0;
		cur = nx;
		if (tip && i == len)
			break;
	}
	e->nb = (uint8_t)nb;
	e->nouter = (uint8_t)nout;
	e->nleft = (uint8_t)nown;
	e->ra = (int8_t)ra;
	e->rb = (int16_t)(rb < LSD_FAST_RSTACK ? rb : LSD_FAST_RSTACK);
	e->rneed = (uint8_t)rneed;
	memcpy(e->push, opush, nown * sizeof(*opush));
	memcpy(e->pcall, ocall, nown * sizeof(*ocall));
	e->last_ip = ip;
	e->insns = insns;
	e->end = cur;
	return 1;
}

/* A set's score (struct lsd_ftset.score): while below zero its misses
 * are not looked up (no key remembered, no trail built), up one at each.
 * A miss looked up sets it to -TR_MISS, and so does a hit where it is
 * not below zero already (one below leaves it counting): where a set's
 * trails hit, the keys that miss there are mostly those of bits that
 * follow the data (base64 xz's range coder), which seldom come again,
 * and a build goes over a way that may be one that hits.  Until stop 81
 * a hit raised the score instead, up to 16: base64 xz's decode then
 * built 10.4K trails for 3.8K now, took 17.7 blocks a hit for 19.3, and
 * took 15% more CPU (314 ms against 264, median of 7 in turns; sqlite3
 * 33.8 against 32.9, xz of text the same). */
#define TR_MISS 16
/* The trails as a whole rest where their looks yield few blocks: a look
 * costs a few cache misses (the set, its trail), and a hit saves the
 * chains' walk of its blocks.  sqlite3 (5,000 rows) gets 17 blocks a
 * look and its analysis 0.33 s of CPU against 0.37 without trails; xz
 * -6 (2 MB) 4.5 blocks a look, and its analysis 5.05-5.24 s against
 * 4.81-5.07 without (2026-12-05).  So every TR_WINDOW looks that gave
 * fewer than TR_YIELD blocks each, the next TR_REST trails are not
 * looked for; then a window is tried again.  (A count, not a clock: the
 * same trace decodes the same way each time.) */
#define TR_WINDOW (1u << 16)
#define TR_YIELD 8
#define TR_REST (1u << 20)

/* Where the trail at p (left bytes, at least LSD_TR_BYTES) from block
 * cur is looked for: a set of LSD_TR_WAYS trails, by cur and its first
 * eight bytes (a trail's own and, for a short one, the next packet's). */
static struct lsd_ftset *trail_set(const struct lsd_decoder *d, uint32_t cur, uint64_t w0)
{
	uint64_t h = (w0 ^ (uint64_t)cur << 40 ^ cur) * 0x9e3779b97f4a7c15ull;

	return &d->tr_sets[(size_t)(h >> (64 - (d->trail_log - 2)))];
}

/* The mask of a set's fp for a key of len bytes (3 or more). */
static inline uint32_t trail_fpmask(unsigned len)
{
	return len >= 4 ? ~0u : 0xffffffu;
}

/* The mask of word j of a key of len bytes: ones for its bytes. */
static inline uint64_t trail_wmask(unsigned len, unsigned j)
{
	return len >= 8 * j + 8 ? ~0ull : len <= 8 * j ? 0 : ~0ull >> (64 - 8 * (len - 8 * j));
}

/* Whether trail e's key is the bytes s (the key's length and more). */
static inline int trail_key_eq(const struct lsd_ftrail *e, const uint64_t *s)
{
	const unsigned len = e->len;

	return !(((s[0] ^ e->w[0]) & trail_wmask(len, 0)) |
		 ((s[1] ^ e->w[1]) & trail_wmask(len, 1)) |
		 ((s[2] ^ e->w[2]) & trail_wmask(len, 2)) |
		 ((s[3] ^ e->w[3]) & trail_wmask(len, 3)));
}

/* Builds the trail at p (left bytes) from block cur into a way of set
 * set, where it is the second time its key misses there: the key of up
 * to LSD_TR_TIPS TIPs, else the one of a TIP fewer.  Where the TNT bits
 * between TIPs follow the data (xz's range coder on base64 text), keys
 * of three TIPs seldom come twice and their blocks went to the chains;
 * keys of two, kept where they come again, took base64 xz's decode
 * 10% less CPU, sqlite3's the same (its keys of three repeat, and are
 * taken first, as the longest).  Returns the way's trail, or NULL. */
static struct lsd_ftrail *trail_miss(struct lsd_fctx *c, struct lsd_ftset *set, uint32_t cur,
				 const uint8_t *p, size_t left)
{
	size_t len = trail_len(p, left, LSD_TR_TIPS), len2;
	uint64_t w[LSD_TR_BYTES / 8] = { 0 }, w2[LSD_TR_BYTES / 8] = { 0 }, h, h2 = 0;
	uint64_t *cand = c->d->tr_cand + (size_t)(set - c->d->tr_sets) * LSD_TR_CANDS;
	struct lsd_ftrail *e;
	unsigned i, slot;

	if (!len)
		return NULL;
	memcpy(w, p, len);
	h = trail_hash(cur, len, w);
	for (i = 0; i < LSD_TR_CANDS && cand[i] != h; i++)
		;
	if (i == LSD_TR_CANDS) {
		/* the key of one TIP fewer, seen before where the whole one
		 * was not: its trail (the TNT bits after a TIP follow the
		 * data, so that a longer key seldom comes again) */
		len2 = trail_len(p, left, LSD_TR_TIPS - 1);
		if (len2 && len2 < len) {
			memcpy(w2, p, len2);
			h2 = trail_hash(cur, len2, w2);
			for (i = 0; i < LSD_TR_CANDS && cand[i] != h2; i++)
				;
		}
		if (i == LSD_TR_CANDS) {
			/* seen once: built if it comes again */
			cand[set->rr++ % LSD_TR_CANDS] = h;
			if (h2)
				cand[set->rr++ % LSD_TR_CANDS] = h2;
			return NULL;
		}
		len = len2;
		memcpy(w, w2, sizeof(w));
	}
	/* (the way: the candidate's slot's) */
	slot = i;
	i /= LSD_TR_CANDS / LSD_TR_WAYS;
	if (set->body[i]) {
		e = &c->d->trails[set->body[i] - 1];
		/* (a run not handed out yet points into it: built at a later
		 * miss) */
		if (e->pend == c->d->ch_epoch)
			return NULL;
	} else {
		/* (at most one trail a way: never past the table; built in
		 * order, the pages ahead mapped in a stretch at a time) */
		ls_prefault_ahead(c->d->trails, (c->d->tr_built + 1) * sizeof(*e),
				  &c->d->tr_pf, c->d->trails_len);
		e = &c->d->trails[c->d->tr_built++];
		set->body[i] = (uint32_t)c->d->tr_built;
	}
	cand[slot] = 0;
	e->out = 0;
	memcpy(e->w, w, sizeof(w));
	e->sp = c->sp;
	e->len = (uint8_t)len;
	set->cur[i] = cur;
	set->fp[i] = (uint32_t)w[0] & trail_fpmask((unsigned)len);
	set->len[i] = (uint8_t)len;
	/* (no trail: kept as such, nb 0, so that a key the loop must take
	 * itself is not built again at each second miss; the code of a new
	 * block may have failed to decode: the loop says so where it meets
	 * it) */
	(void)trail_build(c, e, cur, p, len);
	return e;
}

struct lsd_ftrail *lsd_fast_trail(struct lsd_fctx *c, uint32_t cur)
{
	const uint8_t *p = c->buf + c->pos;
	const size_t left = c->len - c->pos;
	uint64_t s[LSD_TR_BYTES / 8];
	struct lsd_ftset *set;
	struct lsd_ftrail *e = NULL;
	uint32_t s4;
	unsigned i, k;
	int tip;

	/* (near the chunk's end: the loop) */
	if (left <= LSD_TR_BYTES)
		return NULL;
	if (c->d->tr_rest) {
		c->d->tr_rest--;
		return NULL;
	}
	if (++c->d->tr_looks == TR_WINDOW) {
		if (c->d->tr_yield < (uint64_t)TR_YIELD * TR_WINDOW) {
			c->d->tr_rest = TR_REST;
			c->d->tr_rests++;
		}
		c->d->tr_looks = 0;
		c->d->tr_yield = 0;
	}
	memcpy(s, p, sizeof(s));
	set = trail_set(c->d, cur, s[0]);
	s4 = (uint32_t)s[0];
	/* The longest key that matches: a set holds keys of LSD_TR_TIPS
	 * TIPs and of one fewer (trail_miss()); a way whose tag matches is
	 * compared (its trail's first line read) where it is longer than
	 * the one found. */
	for (i = 0, k = LSD_TR_WAYS; i < LSD_TR_WAYS; i++) {
		struct lsd_ftrail *f;

		if (set->cur[i] != cur || ((s4 ^ set->fp[i]) & trail_fpmask(set->len[i])) ||
		    (k < LSD_TR_WAYS && set->len[i] <= set->len[k]))
			continue;
		f = &c->d->trails[set->body[i] - 1];
		if (trail_key_eq(f, s) && f->sp == c->sp) {
			e = f;
			k = i;
		}
	}
	if (k == LSD_TR_WAYS) {
		/* A miss is looked up (its key remembered, a trail built
		 * where it comes again) only after TR_MISS misses since the
		 * set's last hit or miss looked up: where the TNT bits after
		 * its TIPs vary with the data, a look costs about what a hit
		 * saves. */
		if (set->score < 0) {
			set->score++;
			return NULL;
		}
		set->score = -TR_MISS;
		if (!(e = trail_miss(c, set, cur, p, left)))
			return NULL;
	} else if (set->score >= 0) {
		set->score = -TR_MISS;
	}
	if (!e->nb || (c->last_ip & e->kmask) != e->kbase || !c->have_ip ||
	    c->rn < e->rneed ||
	    !trail_pkt(p + e->len, left - e->len, &tip))
		return NULL;
	/* its returns to calls made before it, against the stack; then its
	 * calls not returned, where they are after one at a time (the
	 * entries its pushes on a full stack dropped are below the depth) */
	for (i = 0; i < e->nouter; i++)
		if (c->rs[(c->rtop - 1 - i) & (LSD_FAST_RSTACK - 1)] != e->outer[i])
			return NULL;
	c->rtop = (c->rtop - e->nouter) & (LSD_FAST_RSTACK - 1);
	for (i = 0; i < e->nleft; i++) {
		c->rs[c->rtop] = e->push[i];
		c->rscall[c->rtop] = e->pcall[i];
		c->rtop = (c->rtop + 1) & (LSD_FAST_RSTACK - 1);
	}
	c->rn = (int)c->rn + e->ra < e->rb ? (unsigned)((int)c->rn + e->ra) : (unsigned)e->rb;
	c->pos += e->len;
	c->last_ip = e->last_ip;
	c->d->tr_yield += e->nb;
	return e;
}
