/* unit_pktscan.c - the heads from the packets (decoder/heads.c with its
 * fast walk, decoder/pktscan.c) are exactly those of libipt's packet
 * decoder alone.
 *
 * Oracle: libipt's packet decoder over the same bytes, in the loop
 * lsd_heads_packets() had before the fast walk (every packet through
 * pt_pkt_next(), a decode error ending the span up to the next PSB).
 * Inputs: random streams of every packet kind libipt knows, well-formed
 * and not (reserved IP compressions and mode leaves, TNT-64 without a
 * payload, CYC too long, packets cut by the end), then the same with
 * random bytes changed, inserted and dropped.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "rng.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rng_next(&rng) >> 11) % n;
}

/* The oracle: libipt's packet decoder alone. */
static void heads_ipt(const uint8_t *buf, size_t len, struct lsd_addrset *s)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet p;
	uint64_t last = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	for (st = pt_pkt_sync_forward(pd); st >= 0; ) {
		st = pt_pkt_next(pd, &p, sizeof(p));
		if (st < 0) {
			if (st == -pte_eos)
				break;
			st = pt_pkt_sync_forward(pd);
			last = 0;
			continue;
		}
		switch (p.type) {
		case ppt_psb:
			last = 0;
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_fup:
			if (p.payload.ip.ipc == pt_ipc_suppressed)
				break;
			last = lsd_ip_update(last, &p.payload.ip);
			lsd_addrset_add(s, last);
			break;
		case ppt_tip_pgd:
			if (p.payload.ip.ipc != pt_ipc_suppressed)
				last = lsd_ip_update(last, &p.payload.ip);
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(pd);
}

static size_t put(uint8_t *b, size_t n, size_t cap, const uint8_t *p, size_t k)
{
	if (n + k > cap)
		k = cap - n;
	memcpy(b + n, p, k);
	return n + k;
}

/* One random packet at b + n; returns the new length.  Mostly
 * well-formed, sometimes not. */
static size_t packet(uint8_t *b, size_t n, size_t cap)
{
	static const uint8_t psb[16] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
	};
	static const uint8_t ipop[4] = { 0x0d, 0x11, 0x1d, 0x01 };
	static const uint8_t ipsz[8] = { 0, 2, 4, 6, 6, 3, 8, 5 };
	static const uint64_t ips[4] = {
		0x401000, 0x7f0012345678, 0xffffffff81000000, 0x401234,
	};
	uint8_t p[32];
	size_t k, i;
	uint64_t v;

	for (i = 0; i < sizeof(p); i++)
		p[i] = (uint8_t)rnd(256);
	switch (rnd(20)) {
	case 0:
		return put(b, n, cap, psb, sizeof(psb));
	case 1:
		p[0] = 2; p[1] = 0x23; k = 2;			/* PSBEND */
		break;
	case 2:
		p[0] = 0; k = 1;				/* PAD */
		break;
	case 3: case 4:
		p[0] = (uint8_t)(4 + 2 * rnd(126)); k = 1;	/* TNT-8 */
		break;
	case 5:
		p[0] = 2; p[1] = 0xa3; k = 8;			/* TNT-64 */
		if (!rnd(4))
			memset(p + 2, 0, 6), p[2] = (uint8_t)rnd(2);
		break;
	case 6: case 7: case 8: case 9: {		/* TIP, PGE, FUP, PGD */
		unsigned ipc = rnd(8) < 6 ? rnd(5) : rnd(8);

		if (ipc == 5 && rnd(2))
			ipc = 6;
		p[0] = (uint8_t)(ipop[rnd(4)] | ipc << 5);
		v = ips[rnd(4)] + rnd(64);
		for (i = 0; i < 8; i++)
			p[1 + i] = (uint8_t)(v >> (8 * i));
		k = 1 + ipsz[ipc];
		break;
	}
	case 10:
		p[0] = 0x99; k = 2;				/* MODE */
		if (rnd(4))
			p[1] = (uint8_t)(p[1] & 0x3f);
		break;
	case 11:
		p[0] = 0x19; k = 8;				/* TSC */
		break;
	case 12:
		p[0] = 0x59; k = 2;				/* MTC */
		break;
	case 13: {					/* CYC */
		size_t ext = rnd(3) ? rnd(3) : rnd(11);

		p[0] = (uint8_t)((p[0] & 0xf8) | 3 | (ext ? 4 : 0));
		for (i = 1; i <= ext; i++)
			p[i] = (uint8_t)((p[i] & 0xfe) | (i < ext));
		k = 1 + ext;
		break;
	}
	case 14:
		p[0] = 2; p[1] = 0x03; k = 4;			/* CBR */
		break;
	case 15:
		p[0] = 2; p[1] = 0xf3; k = 2;			/* OVF */
		break;
	case 16:
		p[0] = 2; p[1] = 0x73; k = 7;			/* TMA */
		if (rnd(2))
			p[4] = 0, p[6] &= 1;
		break;
	case 17:
		p[0] = 2; p[1] = 0x43; k = 8;			/* PIP */
		break;
	case 18:
		p[0] = 2; p[1] = rnd(2) ? 0xc8 : 0x83; k = 7;	/* VMCS, STOP */
		if (p[1] == 0x83)
			k = 2;
		break;
	default:
		k = 1 + rnd(3);					/* anything */
		break;
	}
	return put(b, n, cap, p, k);
}

static size_t stream(uint8_t *b, size_t cap)
{
	size_t n = 0;

	if (rnd(2))	/* bytes before the first PSB */
		while (n < 5)
			b[n++] = (uint8_t)rnd(256);
	while (n < cap - 64) {
		n = packet(b, n, cap);
		if (!rnd(40))
			n = put(b, n, cap, (const uint8_t *)"\x02\x82\x02\x82\x02\x82\x02\x82"
				"\x02\x82\x02\x82\x02\x82\x02\x82", 16);
	}
	return n;
}

/* Changes, inserts or drops a few bytes. */
static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
	int i, m = 1 + (int)rnd(4);

	for (i = 0; i < m && n > 1; i++) {
		size_t at = rnd((uint32_t)n);

		switch (rnd(3)) {
		case 0:
			b[at] = (uint8_t)rnd(256);
			break;
		case 1:
			if (n < cap) {
				memmove(b + at + 1, b + at, n - at);
				b[at] = (uint8_t)rnd(256);
				n++;
			}
			break;
		default:
			memmove(b + at, b + at + 1, n - at - 1);
			n--;
			break;
		}
	}
	return n;
}

static int same(const struct lsd_addrset *a, const struct lsd_addrset *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->cap; i++)
		if (a->keys[i] && !lsd_addrset_has(b, a->keys[i]))
			return 0;
	return 1;
}

/* Runs both over buf; returns whether they agree, and counts heads. */
static int check(const uint8_t *buf, size_t len, size_t *nheads)
{
	struct lsd_decoder d;
	struct lsd_space sp;
	struct lsd_addrset want = { 0 };
	int ok;

	memset(&d, 0, sizeof(d));
	memset(&sp, 0, sizeof(sp));
	d.sp = &sp;
	heads_ipt(buf, len, &want);
	ok = lsd_heads_packets(&d, buf, len) == 0 && same(&want, &sp.heads);
	*nheads += want.n;
	lsd_addrset_release(&want);
	lsd_addrset_release(&sp.heads);
	return ok;
}

int main(void)
{
	static uint8_t buf[4096 + 64];
	size_t i, bad = 0, badm = 0, nh = 0, nhm = 0, n;

	for (i = 0; i < 3000; i++) {
		n = stream(buf, 64 + rnd(4096));
		if (!check(buf, n, &nh))
			bad++;
		n = mutate(buf, n, sizeof(buf));
		if (!check(buf, n, &nhm))
			badm++;
	}
	TAP_OK(nh > 10000 && nhm > 10000, "the streams name heads (%zu, %zu mutated)", nh, nhm);
	TAP_EQ(bad, 0, "3000 random packet streams: the heads are libipt's");
	TAP_EQ(badm, 0, "the same streams with bytes changed: the heads are libipt's");
	return TAP_DONE();
}
