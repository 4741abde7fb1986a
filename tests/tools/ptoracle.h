/* ptoracle.h - libipt alone, for the test tools (ptcheck, ptcorrupt,
 * lspcheck, ptbench): the instructions of one chunk decoded on its own
 * with libipt's instruction decoder, stopped by the next-PSB rule (see
 * ptcheck.c), and libipt's block decoder over a whole stream.
 * Independent of decoder/ on purpose: it is the oracle decoder/ is checked
 * against.  Header-only: each test tool is one source file.
 *
 * libipt 2.0.5's instruction decoder (ptoracle_chunk()) stops early where
 * tracing is disabled and re-enabled at the same IP after an indirect
 * branch (TIP.PGD X, then TIP.PGE X; fixed in later libipt, and its block
 * decoder is right): ptoracle_resumes() finds those spots, and a tool
 * that meets one prints "-" for the instruction decoder's counts, so that
 * no test can take them for a number (t0542). */
#ifndef LS_PTORACLE_H
#define LS_PTORACLE_H

#include <inttypes.h>
#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* libipt's packet decoder over buf, or NULL. */
static inline struct pt_packet_decoder *ptoracle_pkt_open(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	return pt_pkt_alloc_decoder(&cfg);
}

/* The FUP IP of the PSB+ at buf, 0 if tracing was off there. */
static inline uint64_t ptoracle_psb_ip(const uint8_t *buf, size_t len)
{
	struct pt_packet_decoder *d = ptoracle_pkt_open(buf, len);
	struct pt_packet p;
	uint64_t ip = 0;

	if (!d)
		return 0;
	if (pt_pkt_sync_set(d, 0) >= 0) {
		while (pt_pkt_next(d, &p, sizeof(p)) >= 0 && p.type != ppt_psbend) {
			if (p.type == ppt_fup && p.payload.ip.ipc != pt_ipc_suppressed) {
				ip = p.payload.ip.ip;
				break;
			}
		}
	}
	pt_pkt_free_decoder(d);
	return ip;
}

/* The IP of an IP packet, decompressed against *last (updated; Intel SDM
 * Vol. 3 33.4.2.2), or 0 if suppressed. */
static inline uint64_t ptoracle_ip(const struct pt_packet_ip *p, uint64_t *last)
{
	switch (p->ipc) {
	case pt_ipc_update_16:
		*last = (*last & ~0xffffull) | (p->ip & 0xffff);
		return *last;
	case pt_ipc_update_32:
		*last = (*last & ~0xffffffffull) | (p->ip & 0xffffffff);
		return *last;
	case pt_ipc_update_48:
		*last = (*last & ~0xffffffffffffull) | (p->ip & 0xffffffffffffull);
		return *last;
	case pt_ipc_sext_48:
		*last = p->ip & 0x800000000000ull ? p->ip | 0xffff000000000000ull
			: p->ip & 0xffffffffffffull;
		return *last;
	case pt_ipc_full:
		*last = p->ip;
		return *last;
	default:
		return 0;
	}
}

/* The spots in buf where tracing re-enables at the IP of a synchronous
 * disable: a TIP.PGD with IP X (not bound to a FUP: an asynchronous
 * disable is another case) whose next IP packet is TIP.PGE X.  Where this
 * is not 0, ptoracle_chunk()'s counts of buf are libipt 2.0.5's bug, not
 * an oracle. */
static inline uint64_t ptoracle_resumes(const uint8_t *buf, size_t len)
{
	struct pt_packet_decoder *d = ptoracle_pkt_open(buf, len);
	struct pt_packet p;
	uint64_t last = 0, pgd = 0, n = 0;
	int fup = 0;

	if (!d)
		return 0;
	while (pt_pkt_sync_forward(d) >= 0) {
		while (pt_pkt_next(d, &p, sizeof(p)) >= 0) {
			uint64_t ip;

			switch (p.type) {
			case ppt_psb:
				last = pgd = 0;
				fup = 0;
				continue;
			case ppt_fup:
			case ppt_tip:
			case ppt_tip_pgd:
			case ppt_tip_pge:
				break;
			default:
				continue;
			}
			ip = ptoracle_ip(&p.payload.ip, &last);
			n += p.type == ppt_tip_pge && pgd && ip == pgd;
			pgd = p.type == ppt_tip_pgd && !fup ? ip : 0;
			fup = p.type == ppt_fup;
		}
	}
	pt_pkt_free_decoder(d);
	return n;
}

/* A count of ptoracle_chunk() for printing: "-" where resumes says the
 * instruction decoder is not to be trusted. */
static inline const char *ptoracle_fmt(char buf[24], uint64_t n, uint64_t resumes)
{
	if (resumes)
		return "-";
	snprintf(buf, 24, "%" PRIu64, n);
	return buf;
}

/* True if executing insn consumed a packet: a conditional branch, a return
 * (TNT bit or TIP), a far transfer, an indirect jump/call (FF /2../5). */
static inline int ptoracle_consumes_packet(const struct pt_insn *insn)
{
	uint8_t i = 0;

	switch (insn->iclass) {
	case ptic_cond_jump:
	case ptic_return:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		return 1;
	case ptic_jump:
	case ptic_call:
		while (i < insn->size && (insn->raw[i] == 0x66 || insn->raw[i] == 0x67 ||
					  insn->raw[i] == 0xf2 || insn->raw[i] == 0xf3 ||
					  insn->raw[i] == 0x2e || insn->raw[i] == 0x3e ||
					  (insn->raw[i] & 0xf0) == 0x40))
			i++;
		return i < insn->size && insn->raw[i] == 0xff;
	default:
		return 0;
	}
}

/* Instructions of one chunk decoded on its own, up to the arrival at
 * stop_ip after the chunk's last packet (0: to the end); decode errors are
 * added to *decerr. */
static inline uint64_t ptoracle_chunk(const uint8_t *buf, size_t len, struct pt_image *img,
			     uint64_t stop_ip, uint64_t *decerr)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	uint64_t n = 0, at_stop = UINT64_MAX, last_pkt = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_insn_alloc_decoder(&cfg);
	if (!d) {
		(*decerr)++;
		return 0;
	}
	pt_insn_set_image(d, img);
	for (;;) {
		st = pt_insn_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_insn insn;

			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
				last_pkt = n;
			}
			if (st < 0)
				break;
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0)
				break;
			if (stop_ip && insn.ip == stop_ip)
				at_stop = n;
			n++;
			if (ptoracle_consumes_packet(&insn))
				last_pkt = n;
		}
		if (st == -pte_eos)
			break;
		(*decerr)++;
	}
	pt_insn_free_decoder(d);
	return at_stop != UINT64_MAX && at_stop >= last_pkt ? at_stop : n;
}

/* libipt's block decoder alone over buf (end_on_call, end_on_jump, as
 * decoder/decode.c configures it), events drained: adds the instructions
 * and blocks to *insns and *blocks, decode errors to *decerr (each named
 * on stderr with its offset and IP as ptxed gives them: the failing
 * block's last instruction, or where it was to start). */
static inline void ptoracle_blocks(const uint8_t *buf, size_t len, struct pt_image *img,
			    uint64_t *insns, uint64_t *blocks, uint64_t *decerr)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	int st;

	if (!len)
		return;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	cfg.flags.variant.block.end_on_call = 1;
	cfg.flags.variant.block.end_on_jump = 1;
	d = pt_blk_alloc_decoder(&cfg);
	if (!d) {
		(*decerr)++;
		return;
	}
	pt_blk_set_image(d, img);
	for (;;) {
		uint64_t off = 0, ip = 0;

		st = pt_blk_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_block b;

			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_blk_event(d, &ev, sizeof(ev));
			}
			if (st < 0)
				break;
			memset(&b, 0, sizeof(b));
			st = pt_blk_next(d, &b, sizeof(b));
			*insns += b.ninsn;
			*blocks += b.ninsn != 0;
			ip = b.ninsn ? b.end_ip : b.ip;
			if (st < 0)
				break;
		}
		if (st == -pte_eos)
			break;
		pt_blk_get_offset(d, &off);
		fprintf(stderr, "decode error at offset %" PRIu64 ", ip %016" PRIx64 ": %s\n",
			off, ip, pt_errstr(pt_errcode(st)));
		(*decerr)++;
	}
	pt_blk_free_decoder(d);
}

#endif
