/* fast_pkt.c - the fast path's packets: each parsed where it lies in the
 * chunk, IP compression and PSB+ followed as libipt follows them, and
 * the read-ahead of libipt's query decoder (which binds events at IPs).
 * Anything malformed or not modelled is left to libipt (fast.c).
 */
#include <string.h>

#include "decoder/fast_int.h"

/* The IP packet at p (its first byte's IP compression in bits 5-7): its
 * size and IP in *k, c->last_ip updated.  Returns 0, changing nothing,
 * where it is malformed or a partial IP has nothing to complete it
 * (libipt's rules for that are left to libipt).  Tables, not a switch:
 * TIPs come by the million in code with indirect branches. */
static inline __attribute__((always_inline)) int
ip_packet(struct lsd_fctx *c, const uint8_t *p, size_t left, struct lsd_fpk *k)
{
	static const uint8_t ipsize[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	/* the payload's bits, and the last IP's bits kept above them */
	static const uint64_t mask[8] = {
		0, 0xffffull, 0xffffffffull, 0xffffffffffffull, 0xffffffffffffull,
		0, ~0ull, 0,
	};
	static const uint64_t keep[8] = {
		0, ~0xffffull, ~0xffffffffull, 0, ~0xffffffffffffull, 0, 0, 0,
	};
	const unsigned ipc = p[0] >> 5;
	const size_t n = ipsize[ipc];
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
	v |= c->last_ip & keep[ipc];
	c->last_ip = v;
	k->ip = v;
	return 1;
}

/* A TNT-8 byte b (even, not 0x02): its bits in *bits, the next one
 * highest.  Returns how many (0: none). */
static inline unsigned tnt8_bits(uint8_t b, uint64_t *bits)
{
	unsigned n = 30 - (unsigned)__builtin_clz(b);

	*bits = n ? (uint64_t)(b >> 1) << (64 - n) : 0;
	return n;
}

/* The TNT-64 packet at p (8 bytes readable): as tnt8_bits(). */
static inline unsigned tnt64_bits(const uint8_t *p, uint64_t *bits)
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

void lsd_fast_peek(struct lsd_fctx *c, struct lsd_fpk *k)
{
	const uint8_t *p = c->buf + c->pos;
	size_t left = c->len - c->pos;
	uint8_t b;

	k->k = LSD_FP_OTHER;
	k->size = 1;
	if (!left) {
		k->k = LSD_FP_EOS;
		return;
	}
	b = p[0];
	if (b == 0x00) {			/* PAD */
		k->k = LSD_FP_SKIP;
		return;
	}
	if (!(b & 1) && b != 0x02) {		/* TNT-8 */
		k->nbits = tnt8_bits(b, &k->bits);
		k->k = k->nbits ? LSD_FP_TNT : LSD_FP_OTHER;
		return;
	}
	if ((b & 3) == 3) {			/* CYC */
		/* one libipt fails on is left to it */
		if ((k->size = lsd_pkt_cyc_len(p, left)) != 0)
			k->k = LSD_FP_SKIP;
		else
			k->size = 1;
		return;
	}
	switch (b & 0x1f) {
	case 0x0d: case 0x11: case 0x01: case 0x1d:
		if (!ip_packet(c, p, left, k))
			return;
		k->k = (b & 0x1f) == 0x0d ? LSD_FP_TIP : (b & 0x1f) == 0x11 ? LSD_FP_PGE :
		       (b & 0x1f) == 0x01 ? LSD_FP_PGD : LSD_FP_FUP;
		return;
	default:
		break;
	}
	switch (b) {
	case 0x19:				/* TSC */
		if (left >= 8) {
			k->k = LSD_FP_SKIP, k->size = 8;
			c->tsc_pos = c->pos;
		}
		return;
	case 0x59:				/* MTC */
		if (left >= 2)
			k->k = LSD_FP_SKIP, k->size = 2;
		return;
	case 0x99:				/* MODE */
		if (left >= 2) {
			k->k = LSD_FP_MODE;
			k->size = 2;
			k->bits = p[1];
		}
		return;
	case 0x02:
		break;
	default:
		return;
	}
	if (left < 2)
		return;
	switch (p[1]) {
	case 0x82: {				/* PSB */
		static const uint8_t psb[16] = {
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
		};

		if (left >= 16 && !memcmp(p, psb, 16))
			k->k = LSD_FP_PSB, k->size = 16;
		return;
	}
	case 0x23:
		k->k = LSD_FP_PSBEND;
		k->size = 2;
		return;
	case 0xa3:				/* TNT-64 */
		if (left < 8 || !(k->nbits = tnt64_bits(p, &k->bits)))
			return;
		k->k = LSD_FP_TNT;
		k->size = 8;
		return;
	case 0x03:				/* CBR */
		if (left >= 4)
			k->k = LSD_FP_SKIP, k->size = 4;
		return;
	case 0x73:				/* TMA */
		/* the frequency's high byte holds one bit; one TMA after a
		 * TSC (peeked again: the same one) */
		if (left >= 7 && !(p[6] & 0xfe) && c->tsc_pos != SIZE_MAX &&
		    (c->tma_pos == SIZE_MAX || c->tma_pos < c->tsc_pos ||
		     c->tma_pos == c->pos)) {
			k->k = LSD_FP_SKIP, k->size = 7;
			c->tma_pos = c->pos;
		}
		return;
	default:
		return;
	}
}

/* Execution mode 64-bit (CS.L set, CS.D clear), or a TSX mode outside a
 * transaction: nothing the blocks depend on.  Returns 0 for anything
 * else. */
static int mode_ok(const struct lsd_fpk *k)
{
	switch (k->bits >> 5) {
	case 0:
		return (k->bits & 3) == 1;
	case 1:
		return !(k->bits & 3);
	default:
		return 0;
	}
}

/* PSB+ at c->pos: the PSB, then up to PSBEND.  *fup gets the FUP's IP
 * (0: none, tracing off there).  Returns 1, or 0 for anything the fast
 * path leaves to libipt. */
int lsd_fast_psb_plus(struct lsd_fctx *c, uint64_t *fup, int *mode)
{
	struct lsd_fpk k;

	c->pos += 16;
	c->last_ip = 0;
	c->have_ip = 0;
	*fup = 0;
	*mode = 0;
	for (;;) {
		lsd_fast_peek(c, &k);
		switch (k.k) {
		case LSD_FP_SKIP:
			break;
		case LSD_FP_MODE:
			if (!mode_ok(&k))
				return 0;
			*mode |= (k.bits >> 5) == 0;
			c->mode64 |= (k.bits >> 5) == 0;
			break;
		case LSD_FP_FUP:
			/* (a FUP at IP 0 says tracing is on there: not the
			 * "no FUP" that *fup 0 means; libipt fails on it) */
			if (k.suppressed || *fup || !k.ip)
				return 0;
			*fup = k.ip;
			break;
		case LSD_FP_PSBEND:
			c->pos += k.size;
			return 1;
		default:
			return 0;
		}
		c->pos += k.size;
	}
}

/* The packet after a TNT's last bit, or after a TIP, is most often a TNT
 * or a TIP: where it is one, it goes to c->pk (k, size and bits, or the
 * IP) without lsd_fast_peek()'s tests for every other kind.  Returns 1,
 * or 0 where it is not (or not simply) one. */
static int pk_quick(struct lsd_fctx *c)
{
	const uint8_t *p = c->buf + c->pos;
	size_t left = c->len - c->pos;
	unsigned nbits;
	uint64_t v;

	if (!left)
		return 0;
	if (p[0] && !(p[0] & 1) && p[0] != 0x02) {	/* TNT-8, bits >= 1 */
		nbits = tnt8_bits(p[0], &v);
		c->pk.size = 1;
	} else if (p[0] == 0x02) {
		/* TNT-64; no bits: left to lsd_fast_peek() */
		if (left < 8 || p[1] != 0xa3 || !(nbits = tnt64_bits(p, &v)))
			return 0;
		c->pk.size = 8;
	} else if ((p[0] & 0x1f) == 0x0d) {		/* TIP */
		/* (as lsd_fast_peek(): a suppressed one too) */
		if (!ip_packet(c, p, left, &c->pk))
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

/* Reads ahead as libipt's query decoder does once its TNT bits are used
 * up: the timing packets, and an event (PSB+, FUP + TIP.PGD or TIP) to
 * bind at an IP.  Stops before a packet that decides a branch.  Returns
 * 1, or 0 to leave the chunk to libipt.
 *
 * libipt's block ends only once the events its query decoder read ahead
 * are processed, and an error there fails that block (it reads ahead
 * right after the packet that decided the block's branch).  So the final
 * blocks become safe to hand out (c->safe) only where the read ahead
 * stops at a branch's packet with nothing but timing packets before it.
 * A MODE.Exec is an event bound to the next TIP: it is taken only where
 * a TIP or TIP.PGE with an IP follows (after timing packets), as in a far
 * branch; before anything else libipt fails ("trace stream does not
 * match query" before a TNT).  A MODE.TSX while tracing binds to a FUP,
 * which it consumes: left to libipt. */
int lsd_fast_read_ahead(struct lsd_fctx *c)
{
	struct lsd_fpk k;
	int exec = 0;		/* a MODE.Exec waits for its TIP */

	if (c->ntnt || c->ev)
		return 1;
	/* (the read ahead moves neither delivered nor fin) */
	if (pk_quick(c)) {
		c->safe = c->delivered + c->fin;
		return 1;
	}
	for (;;) {
		lsd_fast_peek(c, &k);
		if (exec && k.k != LSD_FP_SKIP && k.k != LSD_FP_MODE &&
		    ((k.k != LSD_FP_TIP && k.k != LSD_FP_PGE) || k.suppressed))
			return 0;
		switch (k.k) {
		case LSD_FP_SKIP:
			c->pos += k.size;
			continue;
		case LSD_FP_MODE:
			if (!mode_ok(&k) || ((k.bits >> 5) == 1 && c->enabled))
				return 0;
			exec |= (k.bits >> 5) == 0;
			c->mode64 |= exec;
			c->pos += k.size;
			continue;
		case LSD_FP_PSB: {
			uint64_t fup;
			int mode;

			if (!lsd_fast_psb_plus(c, &fup, &mode) || !fup != !c->enabled)
				return 0;
			if (fup) {
				c->ev = LSD_FEV_STATUS;
				c->ev_ip = fup;
			}
			return 1;
		}
		case LSD_FP_FUP:
			if (k.suppressed || !c->enabled)
				return 0;
			c->pos += k.size;
			c->ev_ip = k.ip;
			for (;;) {
				lsd_fast_peek(c, &k);
				if (k.k != LSD_FP_SKIP)
					break;
				c->pos += k.size;
			}
			if (k.k == LSD_FP_PGD && k.suppressed) {
				c->ev = LSD_FEV_ASYNC_PGD;
			} else if (k.k == LSD_FP_TIP && !k.suppressed) {
				c->ev = LSD_FEV_ASYNC_TIP;
				c->ev_to = k.ip;
			} else {
				return 0;
			}
			c->pos += k.size;
			return 1;
		default:
			c->pk = k;
			c->pk_pos = c->pos;
			if (!exec && (k.k == LSD_FP_TNT || k.k == LSD_FP_TIP))
				c->safe = c->delivered + c->fin;
			return 1;
		}
	}
}
