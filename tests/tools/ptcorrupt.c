/* ptcorrupt.c - damages the PT of a bundle, for the decoder's error tests.
 *
 *   ptcorrupt chunks FILE
 *	prints, for every chunk of every stream, the instructions libipt's
 *	instruction decoder finds in that chunk decoded on its own, with
 *	ptcheck's next-PSB stop rule (tests/tools/ptcheck.c):
 *	"stream IDX id ID chunk K offset O size N insn M decerr E"
 *	That is what a decoder that meets damage elsewhere must still find.
 *
 *   ptcorrupt write IN OUT STREAM_ID OP...
 *	copies bundle IN to OUT (metadata, modules, events, samples, memory
 *	accesses, every stream) with the PT of stream STREAM_ID changed by
 *	each OP, in stream offsets of the original:
 *	  smash:OFF   16 bytes at OFF become 02 00 02 00 ...: whatever packet
 *	              boundary the decoder is at inside them, it meets the
 *	              undefined extended opcode 02 00, so the damage is always
 *	              detected (a flipped TNT bit, by contrast, silently takes
 *	              the other path and no decoder can tell);
 *	  flip:OFF:X  the byte at OFF is xor'ed with X;
 *	  cut:OFF     the stream ends at OFF.
 *	OUT is written with 4096-byte chunks (the writer cuts at PSBs).
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/image.h"
#include "formats/bundle.h"
#include "tests/tools/ptoracle.h"
#include "ls_err.h"

static int read_stream(struct lsb_reader *r, size_t s, uint8_t **pbuf,
		       size_t *plen, size_t **pstarts)
{
	size_t n = lsb_reader_nchunks(r, s), i, total = 0, off = 0;
	size_t *starts = calloc(n + 1, sizeof(*starts));
	uint8_t *buf;

	for (i = 0; i < n; i++)
		total += lsb_reader_chunk(r, s, i)->raw_size;
	buf = malloc(total ? total : 1);
	if (!buf || !starts) {
		free(buf);
		free(starts);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int64_t got = lsb_reader_read_chunk(r, lsb_reader_chunk(r, s, i),
						    buf + off, total - off);

		if (got < 0) {
			fprintf(stderr, "ptcorrupt: %s\n", lsb_reader_errmsg(r));
			free(buf);
			free(starts);
			return -1;
		}
		starts[i] = off;
		off += (size_t)got;
	}
	starts[n] = off;
	*pbuf = buf;
	*plen = off;
	if (pstarts)
		*pstarts = starts;
	else
		free(starts);
	return 0;
}

static int cmd_chunks(struct lsb_reader *r)
{
	struct lsd_image img;
	size_t s, i;

	if (lsd_image_build(&img, r, 0, LSB_RUN_TRACE) < 0) {
		fprintf(stderr, "ptcorrupt: cannot build the image\n");
		return 2;
	}
	for (s = 0; s < lsb_reader_nstreams(r); s++) {
		size_t n = lsb_reader_nchunks(r, s), len, *starts;
		uint8_t *buf;

		if (read_stream(r, s, &buf, &len, &starts) < 0)
			return 2;
		for (i = 0; i < n; i++) {
			uint64_t stop = 0, decerr = 0, insn, resumes;
			char f1[24], f2[24];

			if (i + 1 < n)
				stop = ptoracle_psb_ip(buf + starts[i + 1],
						  starts[i + 2 > n ? n : i + 2] - starts[i + 1]);
			insn = ptoracle_chunk(buf + starts[i], starts[i + 1] - starts[i],
					    img.pt, stop, &decerr);
			/* "-" where libipt 2.0.5's instruction decoder
			 * stops early (ptoracle.h). */
			resumes = ptoracle_resumes(buf + starts[i], starts[i + 1] - starts[i]);
			printf("stream %zu id %" PRIu32 " chunk %zu offset %zu size %zu insn %s"
			       " decerr %s\n", s, lsb_reader_stream(r, s)->id, i, starts[i],
			       starts[i + 1] - starts[i], ptoracle_fmt(f1, insn, resumes),
			       ptoracle_fmt(f2, decerr, resumes));
		}
		free(buf);
		free(starts);
	}
	lsd_image_release(&img);
	return 0;
}

static int copy_event(const struct lsb_event *ev, void *arg)
{
	return lsb_writer_event(arg, ev) < 0;
}

static int copy_sample(const struct lsb_sample *smp, void *arg)
{
	return lsb_writer_sample(arg, smp) < 0;
}

static int copy_memacc(uint32_t stream, const void *enc, size_t len, void *arg)
{
	return lsb_writer_memacc(arg, stream, enc, len) < 0;
}

/* Applies the OPs to the PT of one stream; returns its new length. */
static size_t damage(uint8_t *buf, size_t len, char **ops, int nops)
{
	int i;

	for (i = 0; i < nops; i++) {
		unsigned long long off = 0, x = 0;
		size_t k;

		if (sscanf(ops[i], "smash:%lli", &off) == 1) {
			for (k = 0; k < 16 && off + k < len; k++)
				buf[off + k] = k % 2 ? 0x00 : 0x02;
		} else if (sscanf(ops[i], "flip:%lli:%lli", &off, &x) == 2) {
			if (off < len)
				buf[off] ^= (uint8_t)x;
		} else if (sscanf(ops[i], "cut:%lli", &off) == 1) {
			if (off < len)
				len = (size_t)off;
		} else {
			fprintf(stderr, "ptcorrupt: bad op '%s'\n", ops[i]);
			exit(2);
		}
	}
	return len;
}

static int cmd_write(struct lsb_reader *r, const char *out, uint32_t id,
		     char **ops, int nops)
{
	struct lsb_writer_opts wo = { .size = sizeof(wo), .chunk_size = 4096 };
	struct lsb_writer *w;
	const char *k, *v;
	size_t i;
	int found = 0;

	if (lsb_writer_open(&w, out, &wo) < 0) {
		fprintf(stderr, "ptcorrupt: cannot write %s\n", out);
		return 2;
	}
	for (i = 0; lsb_reader_meta_at(r, i, &k, &v) == 0; i++)
		lsb_writer_meta(w, k, v);
	for (i = 0; i < lsb_reader_nmodules(r); i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		void *data = NULL;
		size_t len = 0;

		if (lsb_reader_module_data(r, i, &data, &len) < 0)
			data = NULL;
		if (lsb_writer_module(w, m, data, len) < 0)
			goto fail;
		free(data);
	}
	if (lsb_reader_events(r, copy_event, w) || lsb_reader_samples(r, copy_sample, w) ||
	    lsb_writer_flush(w) < 0)
		goto fail;
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		uint8_t *buf;
		size_t len;

		if (read_stream(r, i, &buf, &len, NULL) < 0)
			goto fail;
		if (s->id == id) {
			len = damage(buf, len, ops, nops);
			found = 1;
		}
		if (lsb_writer_stream(w, s) < 0 || lsb_writer_pt(w, s->id, buf, len) < 0 ||
		    lsb_writer_stream_end(w, s->id) < 0) {
			free(buf);
			goto fail;
		}
		free(buf);
	}
	if (lsb_reader_memacc(r, copy_memacc, w))
		goto fail;
	if (lsb_writer_close(w) < 0) {
		fprintf(stderr, "ptcorrupt: cannot write %s\n", out);
		return 2;
	}
	if (!found) {
		fprintf(stderr, "ptcorrupt: no stream %" PRIu32 "\n", id);
		return 2;
	}
	return 0;
fail:
	fprintf(stderr, "ptcorrupt: %s\n", lsb_writer_errmsg(w));
	lsb_writer_close(w);
	return 2;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	int ret;

	if (argc < 3 || (strcmp(argv[1], "chunks") && strcmp(argv[1], "write")) ||
	    (!strcmp(argv[1], "write") && argc < 5)) {
		fprintf(stderr, "usage: ptcorrupt chunks FILE\n"
				"       ptcorrupt write IN OUT STREAM_ID OP...\n");
		return 2;
	}
	if (lsb_reader_open(&r, argv[2]) < 0) {
		fprintf(stderr, "ptcorrupt: %s\n", r ? lsb_reader_errmsg(r) : argv[2]);
		lsb_reader_close(r);
		return 2;
	}
	if (!strcmp(argv[1], "chunks"))
		ret = cmd_chunks(r);
	else
		ret = cmd_write(r, argv[3], (uint32_t)strtoul(argv[4], NULL, 0),
				argv + 5, argc - 5);
	lsb_reader_close(r);
	return ret;
}
