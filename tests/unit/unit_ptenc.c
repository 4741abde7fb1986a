/* unit_ptenc.c - the Valgrind tool's PT encoder against libipt.
 *
 * Every sequence is driven through lsc_ptenc and, in parallel, described
 * as a list of struct pt_packet we derive by hand from the SDM rules
 * (TNT grouping, IP compression, PSB+ layout).  The test then checks that
 * (a) libipt's packet decoder parses our bytes into exactly that list and
 * (b) libipt's encoder turns that list into exactly our bytes.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "../../recorder/vgtool/lsc_ptenc.c"
#include "tap.h"

#define MAXPKT 4096

static uint8_t ubuf[1 << 16];
static struct lsc_ptenc enc;
static struct pt_packet want[MAXPKT];
static int nwant;

static void expect(enum pt_packet_type type)
{
	memset(&want[nwant], 0, sizeof(want[nwant]));
	want[nwant].type = type;
	nwant++;
}

static void expect_ip(enum pt_packet_type type, enum pt_ip_compression ipc,
		      uint64_t ip)
{
	static const int bytes[7] = { 0, 2, 4, 6, 6, 0, 8 };

	expect(type);
	want[nwant - 1].payload.ip.ipc = ipc;
	want[nwant - 1].payload.ip.ip = bytes[ipc] == 8 ? ip :
		ip & ((1ull << (8 * bytes[ipc])) - 1);
}

static void expect_tnt(int nbits, uint64_t bits)
{
	expect(nbits <= 6 ? ppt_tnt_8 : ppt_tnt_64);
	want[nwant - 1].payload.tnt.bit_size = (uint8_t)nbits;
	want[nwant - 1].payload.tnt.payload = bits;
}

static void expect_mode_exec(void)
{
	expect(ppt_mode);
	want[nwant - 1].payload.mode.leaf = pt_mol_exec;
	want[nwant - 1].payload.mode.bits.exec.csl = 1;
}

static void expect_psb_plus(int fup, uint64_t ip)
{
	expect(ppt_psb);
	expect_mode_exec();
	if (fup)
		expect_ip(ppt_fup, pt_ipc_sext_48, ip);
	expect(ppt_psbend);
}

static void reset(void)
{
	lsc_ptenc_init(&enc, ubuf, sizeof(ubuf));
	nwant = 0;
}

static int same_packet(const struct pt_packet *a, const struct pt_packet *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		return a->payload.tnt.bit_size == b->payload.tnt.bit_size &&
		       a->payload.tnt.payload == b->payload.tnt.payload;
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		return a->payload.ip.ipc == b->payload.ip.ipc &&
		       a->payload.ip.ip == b->payload.ip.ip;
	case ppt_mode:
		return a->payload.mode.leaf == b->payload.mode.leaf &&
		       a->payload.mode.bits.exec.csl ==
			       b->payload.mode.bits.exec.csl &&
		       a->payload.mode.bits.exec.csd ==
			       b->payload.mode.bits.exec.csd;
	default:
		return 1;
	}
}

/* Check our bytes against the expected list both ways. */
static void check(const char *what)
{
	static uint8_t ibuf[1 << 16];
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_encoder *ienc;
	struct pt_packet pkt;
	int i, n = 0, err, ok = 1;

	pt_config_init(&cfg);
	cfg.begin = ubuf;
	cfg.end = ubuf + enc.len;
	dec = pt_pkt_alloc_decoder(&cfg);
	err = pt_pkt_sync_set(dec, 0);
	while (err >= 0) {
		err = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (err < 0)
			break;
		if (n >= nwant || !same_packet(&pkt, &want[n])) {
			if (ok)
				printf("# packet %d: type %d, expected %d\n", n,
				       pkt.type, n < nwant ? (int)want[n].type : -1);
			ok = 0;
		}
		n++;
	}
	pt_pkt_free_decoder(dec);
	TAP_OK(ok && n == nwant && err == -pte_eos,
	       "%s: libipt parses %d packets (%zu bytes) as expected", what, n,
	       enc.len);

	pt_config_init(&cfg);
	cfg.begin = ibuf;
	cfg.end = ibuf + sizeof(ibuf);
	ienc = pt_alloc_encoder(&cfg);
	for (i = 0; i < nwant; i++) {
		err = pt_enc_next(ienc, &want[i]);
		if (err < 0)
			break;
	}
	{
		uint64_t off = 0;

		pt_enc_get_offset(ienc, &off);
		TAP_OK(err >= 0 && off == enc.len && !memcmp(ibuf, ubuf, off),
		       "%s: libipt's encoder writes the same bytes", what);
	}
	pt_free_encoder(ienc);
}

/* A run of n TNT bits from a fixed pseudo-random pattern: we expect
 * TNT-64s of 47 bits each and the rest as one TNT-8 (<= 6) or TNT-64.
 */
static void test_tnt(int n)
{
	uint64_t acc = 0, x = 0x9e3779b97f4a7c15ull * (uint64_t)n;
	int i, k = 0;
	char what[64];

	reset();
	for (i = 0; i < n; i++) {
		int b = (int)((x >> (i % 61)) & 1);

		lsc_ptenc_tnt(&enc, b);
		acc = (acc << 1) | (uint64_t)b;
		if (++k == 47) {
			expect_tnt(47, acc);
			acc = 0;
			k = 0;
		}
	}
	lsc_ptenc_tnt_flush(&enc);
	if (k)
		expect_tnt(k, acc);
	snprintf(what, sizeof(what), "tnt run of %d bits", n);
	check(what);
}

static void test_ip_compression(void)
{
	reset();
	/* After a PSB there is no last IP: sign-extended 48 bits. */
	lsc_ptenc_psb(&enc, 0);
	expect_psb_plus(0, 0);
	lsc_ptenc_pge(&enc, 0x401000);
	expect_mode_exec();
	expect_ip(ppt_tip_pge, pt_ipc_sext_48, 0x401000);
	lsc_ptenc_tip(&enc, 0x401234);		/* upper 48 bits equal */
	expect_ip(ppt_tip, pt_ipc_update_16, 0x401234);
	lsc_ptenc_tip(&enc, 0x7f0012345678);	/* only bits 63..48 equal */
	expect_ip(ppt_tip, pt_ipc_sext_48, 0x7f0012345678);
	lsc_ptenc_tip(&enc, 0x7f0087654321);	/* upper 32 bits equal */
	expect_ip(ppt_tip, pt_ipc_update_32, 0x7f0087654321);
	lsc_ptenc_tip(&enc, 0x7f0087654321);	/* same IP */
	expect_ip(ppt_tip, pt_ipc_update_16, 0x7f0087654321);
	lsc_ptenc_fup(&enc, 0x5612345678);	/* only bits 63..48 equal */
	expect_ip(ppt_fup, pt_ipc_sext_48, 0x5612345678);
	lsc_ptenc_tip(&enc, 0xffff800000001000ull); /* canonical kernel */
	expect_ip(ppt_tip, pt_ipc_sext_48, 0xffff800000001000ull);
	lsc_ptenc_tip(&enc, 0xffff000000002000ull); /* not sext-48 */
	expect_ip(ppt_tip, pt_ipc_update_48, 0xffff000000002000ull);
	lsc_ptenc_tip(&enc, 0x1234000000003000ull); /* non-canonical */
	expect_ip(ppt_tip, pt_ipc_full, 0x1234000000003000ull);
	lsc_ptenc_pgd(&enc);
	expect_ip(ppt_tip_pgd, pt_ipc_suppressed, 0);
	lsc_ptenc_pge(&enc, 0x1234000000003002ull);
	expect_mode_exec();
	expect_ip(ppt_tip_pge, pt_ipc_update_16, 0x1234000000003002ull);
	lsc_ptenc_tnt(&enc, 1);
	lsc_ptenc_async_pgd(&enc, 0x1234000000013002ull);
	expect_tnt(1, 1);
	expect_ip(ppt_fup, pt_ipc_update_32, 0x1234000000013002ull);
	expect_ip(ppt_tip_pgd, pt_ipc_suppressed, 0);
	check("ip compression, pge/pgd/fup");
	TAP_EQ(lsc_ptenc_ipc(&enc, 0x1234000000013002ull), 1,
	       "ipc after an IP packet uses the last IP");
}

static void test_psb(void)
{
	reset();
	lsc_ptenc_psb(&enc, 0x401000);
	expect_psb_plus(0, 0);
	lsc_ptenc_pge(&enc, 0x401000);
	expect_mode_exec();
	expect_ip(ppt_tip_pge, pt_ipc_sext_48, 0x401000);
	lsc_ptenc_tnt(&enc, 0);
	lsc_ptenc_tnt(&enc, 1);
	lsc_ptenc_call(&enc, 0x401005);
	lsc_ptenc_psb(&enc, 0x402000);		/* enabled: FUP in PSB+ */
	expect_tnt(2, 1);
	expect_psb_plus(1, 0x402000);
	/* the PSB forgot the return address; the FUP in PSB+ is the
	 * new last IP */
	lsc_ptenc_ret(&enc, 0x401005);
	expect_ip(ppt_tip, pt_ipc_update_16, 0x401005);
	check("psb+ while enabled resets ip and return compression");
}

/* Tracing enabled at 0x400000, then depth calls returning to
 * 0x400000 + 16 * i, with return compression on or off.
 */
static void start_calls(int retcomp, int depth)
{
	int i;

	reset();
	enc.retcomp = (uint32_t)retcomp;
	lsc_ptenc_psb(&enc, 0);
	expect_psb_plus(0, 0);
	lsc_ptenc_pge(&enc, 0x400000);
	expect_mode_exec();
	expect_ip(ppt_tip_pge, pt_ipc_sext_48, 0x400000);
	for (i = 0; i < depth; i++)
		lsc_ptenc_call(&enc, 0x400000 + 16 * (uint64_t)i);
}

/* Calls and returns, depth d: returns within the last 64 calls compress,
 * deeper ones (overwritten in the ring) become TIPs, as in pt_retstack.
 */
static void test_ret(int depth)
{
	char what[64];
	uint64_t acc = 0;
	int i, k = 0;

	start_calls(1, depth);
	for (i = depth - 1; i >= 0; i--) {
		uint64_t ip = 0x400000 + 16 * (uint64_t)i;

		lsc_ptenc_ret(&enc, ip);
		if (depth - i <= 64) {
			acc = (acc << 1) | 1;
			if (++k == 47) {
				expect_tnt(47, acc);
				acc = 0;
				k = 0;
			}
		} else {
			if (k)
				expect_tnt(k, acc);
			acc = 0;
			k = 0;
			expect_ip(ppt_tip, pt_ipc_update_16, ip);
		}
	}
	/* a return to somewhere else never compresses */
	lsc_ptenc_call(&enc, 0x400100);
	lsc_ptenc_ret(&enc, 0x400200);
	if (k)
		expect_tnt(k, acc);
	expect_ip(ppt_tip, pt_ipc_update_16, 0x400200);
	lsc_ptenc_tnt_flush(&enc);
	snprintf(what, sizeof(what), "return compression, depth %d", depth);
	check(what);
}

/* Without return compression (perf's noretcomp) every return is a TIP,
 * also the one that matches the last call, and the taken bits of
 * conditional branches around it are the only TNT bits.
 */
static void test_noretcomp(int depth)
{
	char what[64];
	int i;

	reset();
	TAP_EQ(enc.retcomp, 1, "init turns return compression on");
	start_calls(0, depth);
	lsc_ptenc_tnt(&enc, 1);
	for (i = depth - 1; i >= 0; i--) {
		uint64_t ip = 0x400000 + 16 * (uint64_t)i;

		lsc_ptenc_ret(&enc, ip);
		if (i == depth - 1)
			expect_tnt(1, 1);	/* flushed before the TIP */
		expect_ip(ppt_tip, pt_ipc_update_16, ip);
	}
	lsc_ptenc_tnt(&enc, 0);
	lsc_ptenc_tnt_flush(&enc);
	expect_tnt(1, 0);
	TAP_EQ(enc.ret_count, 0, "no return compression: calls push nothing");
	/* still off after a PSB */
	lsc_ptenc_call(&enc, 0x400100);
	lsc_ptenc_psb(&enc, 0x400200);
	expect_psb_plus(1, 0x400200);
	lsc_ptenc_ret(&enc, 0x400100);
	expect_ip(ppt_tip, pt_ipc_update_16, 0x400100);
	snprintf(what, sizeof(what), "no return compression, depth %d", depth);
	check(what);
}

int main(void)
{
	int n;

	for (n = 1; n <= 100; n++)
		test_tnt(n);
	test_ip_compression();
	test_psb();
	test_ret(1);
	test_ret(10);
	test_ret(64);
	test_ret(65);
	test_ret(100);
	test_noretcomp(1);
	test_noretcomp(65);
	printf("1..%d\n", tap_n);
	return TAP_DONE();
}
