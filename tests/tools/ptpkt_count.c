/* ptpkt_count - runs libipt's packet decoder over a raw PT file and
 * prints "packets N tnt_bits N tip N fup N psb N" (TIP counts all TIP
 * kinds: tip, tip.pge, tip.pgd).  Decoding starts at the first PSB, as
 * every PT decoder must; a decode error is a failure (exit 1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>

int main(int argc, char **argv)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	uint64_t npkt = 0, tnt = 0, tip = 0, fup = 0, psb = 0;
	uint8_t *buf;
	long len;
	FILE *f;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: ptpkt_count FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "ptpkt_count: cannot read %s\n", argv[1]);
		return 1;
	}
	buf = malloc((size_t)len);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 1;
	fclose(f);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return 1;
	err = pt_pkt_sync_forward(d);
	while (err >= 0) {
		err = pt_pkt_next(d, &p, sizeof(p));
		if (err < 0)
			break;
		npkt++;
		switch (p.type) {
		case ppt_tnt_8:
		case ppt_tnt_64:
			tnt += p.payload.tnt.bit_size;
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			tip++;
			break;
		case ppt_fup:
			fup++;
			break;
		case ppt_psb:
			psb++;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(d);
	free(buf);
	if (err != -pte_eos) {
		fprintf(stderr, "ptpkt_count: %s: %s after %" PRIu64 " packets\n",
			argv[1], pt_errstr(pt_errcode(err)), npkt);
		return 1;
	}
	printf("packets %" PRIu64 " tnt_bits %" PRIu64 " tip %" PRIu64 " fup %"
	       PRIu64 " psb %" PRIu64 "\n", npkt, tnt, tip, fup, psb);
	return 0;
}
