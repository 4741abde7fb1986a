/* fast_pkt.c - the fast path's packets: each parsed where it lies in the
 * chunk, IP compression and PSB+ followed as libipt follows them, and
 * the read-ahead of libipt's query decoder (which binds events at IPs).
 * Anything malformed or not modelled is left to libipt (fast.c).
 */
#include <string.h>

#include "decoder/fast_int.h"

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
		k->nbits = lsd_fast_tnt8(b, &k->bits);
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
		if (!lsd_fast_ip_packet(c, p, left, k))
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
		if (left < 8 || !(k->nbits = lsd_fast_tnt64(p, &k->bits)))
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

/* The read-ahead (lsd_fast_read_ahead(), fast_int.h) where the next
 * packet is not simply a TNT or a TIP, with no bit left and no event
 * pending.  Returns 1, or 0 to leave the chunk to libipt.
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
int lsd_fast_read_ahead_rest(struct lsd_fctx *c)
{
	struct lsd_fpk k;
	int exec = 0;		/* a MODE.Exec waits for its TIP */

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
