/* pktscan.c - a fast walk over PT packets for the IPs they name, for the
 * heads from the trace (heads.c).
 *
 * libipt's packet decoder costs about 160 instructions a packet, and the
 * scan of every packet was most of lsd_open()'s time on a long trace
 * (sqlite3: 0.66e9 instructions, a tenth of libipt's whole block decode).
 * The heads need the IP packets only.  This walk knows the packets by
 * their first bytes, as libipt's own fetch does, and accepts a packet only
 * where libipt (2.0) decodes it alike: the packets the sw recorder writes
 * and the common ones of hardware traces.  At anything else (an unknown
 * opcode, a reserved encoding, a packet cut by the end of the buffer) it
 * stops, and heads.c has libipt decode from the last PSB the walk passed,
 * so the heads are exactly those of libipt's packets.
 */
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

/* Bytes of a PSB: 02 82, 8 times. */
#define PSB_SIZE 16

/* Little-endian value of n (1 to 8) payload bytes, of left readable. */
static uint64_t le(const uint8_t *p, size_t n, size_t left)
{
	uint64_t v = 0;
	size_t i;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (left >= 8) {	/* one load, not a loop */
		memcpy(&v, p, 8);
		return v & (~0ull >> (64 - 8 * n));
	}
#endif
	(void)left;
	for (i = n; i-- > 0; )
		v = v << 8 | p[i];
	return v;
}

/* Payload bytes of each IP compression (bits 7:5 of the opcode); -1:
 * reserved, which libipt rejects. */
static const int8_t ip_bytes[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };

/* Last-IP decompression (Intel SDM 33.4.2.2), as heads.c's ip_update(). */
static uint64_t ip_next(uint64_t last, unsigned ipc, uint64_t ip)
{
	switch (ipc) {
	case 1:
		return (last & ~0xffffull) | ip;
	case 2:
		return (last & ~0xffffffffull) | ip;
	case 3:
		return (uint64_t)((int64_t)(ip << 16) >> 16);
	case 4:
		return (last & ~0xffffffffffffull) | ip;
	case 6:
		return ip;
	default:
		return last;
	}
}

static int is_psb(const uint8_t *p, size_t n)
{
	size_t i;

	if (n < PSB_SIZE)
		return 0;
	for (i = 0; i < PSB_SIZE; i += 2)
		if (p[i] != 0x02 || p[i + 1] != 0x82)
			return 0;
	return 1;
}

/* IPs recently added, direct-mapped: traces name the same few targets
 * over and over, and an add searches the head set's ranges, then its
 * hash set (a range's bit set directly instead, when the target was in
 * the last target's range, was slower: the targets change ranges often,
 * doc/performance.md). */
#define SEEN 2048

static size_t seen_slot(uint64_t ip)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 53) & (SEEN - 1);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_SCAN 1
/* Bytes left that let fast_scan() read any packet it takes (and 8 bytes
 * of payload) without a bounds check: its longest, TNT-64, needs 10. */
#define FAST_LEFT 16

/* The payload bits of each IP compression (the bits of the last IP it
 * keeps: lsd_ip_keep). */
static const uint64_t ip_mask[8] = {
	0, 0xffffull, 0xffffffffull, 0xffffffffffffull, 0xffffffffffffull, 0, ~0ull, 0
};

/* By first byte, what fast_scan() does with a packet: SC_SKIP a TNT-8 or
 * PAD (one byte); SC_IP an IP packet with a payload (TIP, TIP.PGE, FUP,
 * TIP.PGD), its size in bits 3:0, SC_HEAD where its IP is a head (not
 * TIP.PGD's); 0 anything else. */
#define SC_IP 0x10
#define SC_HEAD 0x20
#define SC_SKIP 0x40
static const uint8_t scan_cls[256] = {
	0x41, 0x00, 0x00, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
	0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
	0x41, 0x13, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x33, 0x41, 0x00,
	0x41, 0x33, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x33, 0x41, 0x00,
	0x41, 0x15, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x35, 0x41, 0x00,
	0x41, 0x35, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x35, 0x41, 0x00,
	0x41, 0x17, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x37, 0x41, 0x00,
	0x41, 0x37, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x37, 0x41, 0x00,
	0x41, 0x17, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x37, 0x41, 0x00,
	0x41, 0x37, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x37, 0x41, 0x00,
	0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
	0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
	0x41, 0x19, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x39, 0x41, 0x00,
	0x41, 0x39, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x39, 0x41, 0x00,
	0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
	0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00,
};

/* The packets that make up nearly all of a trace (TNT-8 and PAD, TIP,
 * TIP.PGE, TIP.PGD and FUP with an IP, TNT-64 with its stop bit), from
 * buf[*ppos] while at least FAST_LEFT bytes are left: one load per IP,
 * no bounds checks.  Stops before anything else, for the packet by
 * packet walk, which also knows what libipt rejects.  sqlite3's 12 MB
 * of PT: 1.3e8 instructions packet by packet, 4e7 here.  Returns 0 or
 * -LS_ENOMEM. */
static int fast_scan(const uint8_t *buf, size_t len, size_t *ppos, uint64_t *plast,
		     uint64_t *seen, struct lsd_addrset *set)
{
	size_t pos = *ppos;
	uint64_t last = *plast;
	int err = 0;

	while (len - pos >= FAST_LEFT) {
		const uint8_t *p = buf + pos;
		const unsigned op = p[0], cl = scan_cls[op];
		uint64_t v;

		if (cl & SC_SKIP) {				/* TNT-8, PAD */
			pos++;
			continue;
		}
		if (cl & SC_IP) {				/* an IP packet */
			unsigned ipc = op >> 5;

			memcpy(&v, p + 1, 8);
			v &= ip_mask[ipc];
			last = ipc == 3 ? (uint64_t)((int64_t)(v << 16) >> 16)
					: (last & lsd_ip_keep[ipc]) | v;
			pos += cl & 15;
			if ((cl & SC_HEAD) && seen[seen_slot(last)] != last) {
				if (lsd_addrset_add(set, last) < 0) {
					err = -LS_ENOMEM;
					break;
				}
				seen[seen_slot(last)] = last;
			}
			continue;
		}
		if (op == 0x02 && p[1] == 0xa3) {		/* TNT-64 */
			memcpy(&v, p + 2, 8);
			if ((v & 0xffffffffffffull) < 2)
				break;		/* no stop bit: libipt's error */
			pos += 8;
			continue;
		}
		break;
	}
	*ppos = pos;
	*plast = last;
	return err;
}
#else
#define FAST_SCAN 0
#endif

/* (decode_int.h) */
int lsd_pkt_scan_ips(const uint8_t *buf, size_t len, size_t off, size_t *psb,
		     struct lsd_addrset *set)
{
	uint64_t seen[SEEN];
	size_t pos = off;
	uint64_t last = 0;

	memset(seen, 0, sizeof(seen));

	*psb = off;
	while (pos < len) {
		const uint8_t *p;
		size_t left, n;
		uint8_t op;

#if FAST_SCAN
		if (fast_scan(buf, len, &pos, &last, seen, set) < 0)
			return -LS_ENOMEM;
		if (pos >= len)
			break;
#endif
		p = buf + pos;
		left = len - pos;
		op = p[0];

		if (op == 0x00) {				/* PAD */
			pos++;
			continue;
		}
		if (!(op & 1) && op != 0x02) {			/* TNT-8 */
			pos++;
			continue;
		}
		switch (op & 0x1f) {
		case 0x0d: case 0x11: case 0x1d: case 0x01: {	/* TIP, PGE, FUP, PGD */
			unsigned ipc = op >> 5;
			int nb = ip_bytes[ipc];

			if (nb < 0 || left < (size_t)nb + 1)
				return 1;
			pos += (size_t)nb + 1;
			if (!nb)
				continue;
			last = ip_next(last, ipc, le(p + 1, (size_t)nb, left - 1));
			if ((op & 0x1f) != 0x01 && seen[seen_slot(last)] != last) {
				if (lsd_addrset_add(set, last) < 0)
					return -LS_ENOMEM;
				seen[seen_slot(last)] = last;
			}
			continue;
		}
		default:
			break;
		}
		if ((op & 3) == 3) {				/* CYC */
			if (!(n = lsd_pkt_cyc_len(p, left)))
				return 1;
			pos += n;
			continue;
		}
		switch (op) {
		case 0x19:					/* TSC */
			n = 8;
			break;
		case 0x59:					/* MTC */
			n = 2;
			break;
		case 0x99:					/* MODE: exec or tsx leaf */
			if (left < 2 || (p[1] & 0xe0) > 0x20)
				return 1;
			n = 2;
			break;
		case 0x02:
			if (left < 2)
				return 1;
			switch (p[1]) {
			case 0x82:				/* PSB */
				if (!is_psb(p, left))
					return 1;
				*psb = pos;
				last = 0;
				n = PSB_SIZE;
				break;
			case 0x23:				/* PSBEND */
			case 0xf3:				/* OVF */
				n = 2;
				break;
			case 0x03:				/* CBR */
				n = 4;
				break;
			case 0xa3:				/* TNT-64: a payload
								 * beyond the stop bit */
				if (left < 8 || le(p + 2, 6, left - 2) < 2)
					return 1;
				n = 8;
				break;
			default:
				return 1;
			}
			break;
		default:
			return 1;
		}
		if (left < n)
			return 1;
		pos += n;
	}
	return 0;
}
