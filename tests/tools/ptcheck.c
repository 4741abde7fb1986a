/* ptcheck.c - checks a bundle's PT with libipt alone (test oracle).
 *
 * For every stream: libipt's packet decoder must parse every byte of every
 * chunk; libipt's block decoder, with the image rebuilt from the bundle's
 * embedded modules, decodes the whole stream and then each chunk on its
 * own.  Prints one line per stream:
 *   tid T packets P tnt B tip I fup F psb S pge G pgd D pkterr E insn N
 *       blocks K decerr X insn_insn N2 chunks C chunk_insn M chunk_decerr Y
 *       resumes R
 * (insn/blocks from the block decoder, insn_insn from the instruction
 * decoder, both over the whole stream) and exits 1 if any packet or decode
 * error occurred or the chunk-by-chunk instruction total differs from the
 * whole-stream total.  R counts the spots where libipt 2.0.5's instruction
 * decoder stops early (ptoracle.h): where R is not 0, insn_insn,
 * chunk_insn and chunk_decerr are "-" and left out of the exit status.
 *
 * Chunk by chunk: a decoder that reaches the end of chunk k goes on along
 * the deterministic path after the last packet, past the point X where
 * the recorder put chunk k+1's PSB (X is the IP in chunk k+1's PSB+ FUP).
 * Those instructions belong to chunk k+1, so chunk k's count stops at the
 * last time it reaches X.  With that rule the chunks' sum must equal the
 * whole stream's count exactly; it is the rule a parallel decoder uses.
 *
 * `ptcheck --events FILE` instead prints the sideband event counts of the
 * traced run: "thread_start N thread_exit N mmap N munmap N exec N fork N
 * signal N", and each mmap'd executable path on a line "exec-map PATH".
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/image.h"
#include "formats/bundle.h"
#include "ls_err.h"
#include "tests/tools/ptoracle.h"

struct counts {
	uint64_t packets, tnt_bits, tip, fup, psb, pge, pgd, pkterr;
	uint64_t insn, blocks, decerr;
};

static void count_packets(const uint8_t *buf, size_t len, struct counts *c)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d) {
		c->pkterr++;
		return;
	}
	st = pt_pkt_sync_set(d, 0);
	while (st >= 0) {
		st = pt_pkt_next(d, &p, sizeof(p));
		if (st < 0)
			break;
		c->packets++;
		switch (p.type) {
		case ppt_tnt_8:
		case ppt_tnt_64:
			c->tnt_bits += p.payload.tnt.bit_size;
			break;
		case ppt_tip:
			c->tip++;
			break;
		case ppt_fup:
			c->fup++;
			break;
		case ppt_psb:
			c->psb++;
			break;
		case ppt_tip_pge:
			c->pge++;
			break;
		case ppt_tip_pgd:
			c->pgd++;
			break;
		default:
			break;
		}
	}
	if (st != -pte_eos) {
		uint64_t off = 0;

		pt_pkt_get_offset(d, &off);
		fprintf(stderr, "packet error at offset %" PRIu64 ": %s\n", off,
			pt_errstr(pt_errcode(st)));
		c->pkterr++;
	}
	pt_pkt_free_decoder(d);
}

static int count_event(const struct lsb_event *ev, void *arg)
{
	uint64_t *n = arg;

	if (ev->run != LSB_RUN_TRACE || ev->type >= 16)
		return 0;
	n[ev->type]++;
	if (ev->type == LSB_EV_MMAP && (ev->prot & 4) && ev->name)
		printf("exec-map %s\n", ev->name);
	return 0;
}

static int print_events(struct lsb_reader *r)
{
	uint64_t n[16] = { 0 };
	int err = lsb_reader_events(r, count_event, n);

	printf("thread_start %" PRIu64 " thread_exit %" PRIu64 " mmap %" PRIu64
	       " munmap %" PRIu64 " exec %" PRIu64 " fork %" PRIu64 " signal %" PRIu64 "\n",
	       n[LSB_EV_THREAD_START], n[LSB_EV_THREAD_EXIT], n[LSB_EV_MMAP],
	       n[LSB_EV_MUNMAP], n[LSB_EV_EXEC], n[LSB_EV_FORK], n[LSB_EV_SIGNAL]);
	lsb_reader_close(r);
	return err < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_image img;
	size_t s, i;
	int err, bad = 0;

	int events = argc == 3 && !strcmp(argv[1], "--events");

	if (argc != 2 && !events) {
		fprintf(stderr, "usage: ptcheck [--events] FILE.lsc\n");
		return 2;
	}
	err = lsb_reader_open(&r, argv[argc - 1]);
	if (err < 0) {
		fprintf(stderr, "ptcheck: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	if (events)
		return print_events(r);
	err = lsd_image_build(&img, r, 0, LSB_RUN_TRACE);
	if (err < 0) {
		fprintf(stderr, "ptcheck: image: %s\n", ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	if (img.missing)
		fprintf(stderr, "ptcheck: %" PRIu64 " executable mappings without bytes\n",
			img.missing);
	for (s = 0; s < lsb_reader_nstreams(r); s++) {
		const struct lsb_stream *st = lsb_reader_stream(r, s);
		size_t n = lsb_reader_nchunks(r, s), total = 0, off = 0;
		struct counts whole, chunks, whole_insn;
		uint64_t resumes;
		char f1[24], f2[24], f3[24];
		uint8_t *all;

		memset(&whole, 0, sizeof(whole));
		memset(&chunks, 0, sizeof(chunks));
		memset(&whole_insn, 0, sizeof(whole_insn));
		for (i = 0; i < n; i++)
			total += lsb_reader_chunk(r, s, i)->raw_size;
		all = malloc(total ? total : 1);
		if (!all)
			return 2;
		size_t *starts = calloc(n + 1, sizeof(*starts));

		if (!starts)
			return 2;
		for (i = 0; i < n; i++) {
			const struct lsb_chunk *c = lsb_reader_chunk(r, s, i);
			int64_t got = lsb_reader_read_chunk(r, c, all + off, total - off);

			if (got < 0) {
				fprintf(stderr, "chunk %zu: %s\n", i, lsb_reader_errmsg(r));
				whole.pkterr++;
				n = i;
				break;
			}
			count_packets(all + off, (size_t)got, &whole);
			starts[i] = off;
			off += (size_t)got;
		}
		starts[n] = off;
		for (i = 0; i < n; i++) {
			uint64_t stop = i + 1 < n ? ptoracle_psb_ip(all + starts[i + 1],
							       starts[i + 2 > n ? n : i + 2] - starts[i + 1]) : 0;

			chunks.insn += ptoracle_chunk(all + starts[i], starts[i + 1] - starts[i],
						      img.pt, stop, &chunks.decerr);
		}
		free(starts);
		ptoracle_blocks(all, off, img.pt, &whole.insn, &whole.blocks, &whole.decerr);
		/* The instruction decoder on the whole stream: the reference for
		 * the chunks.  The block decoder (whole.insn) agrees with it
		 * except at a cut end, where it counts the branch that waits
		 * for the missing packet. */
		whole_insn.insn = ptoracle_chunk(all, off, img.pt, 0, &whole_insn.decerr);
		resumes = ptoracle_resumes(all, off);
		printf("tid %u packets %" PRIu64 " tnt %" PRIu64 " tip %" PRIu64
		       " fup %" PRIu64 " psb %" PRIu64 " pge %" PRIu64 " pgd %" PRIu64
		       " pkterr %" PRIu64 " insn %" PRIu64 " blocks %" PRIu64
		       " decerr %" PRIu64 " insn_insn %s chunks %zu chunk_insn %s"
		       " chunk_decerr %s resumes %" PRIu64 "\n",
		       st->tid, whole.packets, whole.tnt_bits, whole.tip, whole.fup,
		       whole.psb, whole.pge, whole.pgd, whole.pkterr, whole.insn,
		       whole.blocks, whole.decerr,
		       ptoracle_fmt(f1, whole_insn.insn, resumes), n,
		       ptoracle_fmt(f2, chunks.insn, resumes),
		       ptoracle_fmt(f3, chunks.decerr, resumes), resumes);
		if (whole.pkterr || whole.decerr)
			bad = 1;
		if (!resumes && (chunks.decerr || whole_insn.decerr ||
				 chunks.insn != whole_insn.insn))
			bad = 1;
		free(all);
	}
	lsd_image_release(&img);
	lsb_reader_close(r);
	return bad;
}
