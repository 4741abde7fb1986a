/* lspcheck - check a record stream written by the Valgrind tool with
 * libipt: every packet must parse, and the block decoder must follow the
 * whole stream of every thread, and each LSW_PT chunk on its own, without
 * an error.
 *
 * usage: lspcheck [-s] FILE
 *   One line per thread:
 *     tid T chunks C bytes B packets P insns I blocks K errors E
 *       chunk_insns I2 chunk_errors E2 verify V
 *   preceded by one line "records hello N thread_start N ... accesses N"
 *   -s (strict) also fails when insns != verify (with --lsc-verify=yes)
 *   or insns != chunk_insns.  Exit status 0 if all is well, 1 otherwise.
 *
 * A chunk is decoded on its own and stops where the next chunk's PSB+
 * resumes (the rule of tests/tools/ptoracle.h, shared with ptcheck), so
 * the chunks' counts add up to the whole.
 */
#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/lsc_proto.h"
#include "tests/tools/ptoracle.h"

struct lc_chunk {
	const uint8_t *p;
	size_t n;
};

struct lc_thread {
	uint32_t tid;
	struct lc_chunk *chunks;
	size_t nchunks;
	uint64_t verify;
	int have_verify;
	uint64_t mem_last;	/* highest insn index of a memory access */
};

static struct lc_thread *lc_threads;
#define LC_MAXTYPE LSW_VERIFY
static unsigned long lc_counts[LC_MAXTYPE + 1];
static unsigned long lc_mem_accesses;
static const char *const lc_names[LC_MAXTYPE + 1] = {
	"?", "hello", "thread_start", "thread_exit", "mmap", "munmap",
	"memdump", "pt", "memacc", "exec", "fork", "signal", "end", "verify",
};
static size_t lc_nthreads;
static struct pt_image *lc_image;
static int lc_verbose_errors = 5;

static struct lc_thread *lc_thread(uint32_t tid)
{
	size_t i;

	for (i = 0; i < lc_nthreads; i++)
		if (lc_threads[i].tid == tid)
			return &lc_threads[i];
	lc_threads = realloc(lc_threads, (lc_nthreads + 1) * sizeof(*lc_threads));
	if (!lc_threads)
		exit(2);
	memset(&lc_threads[lc_nthreads], 0, sizeof(*lc_threads));
	lc_threads[lc_nthreads].tid = tid;
	return &lc_threads[lc_nthreads++];
}

static int lc_add_dump(uint64_t addr, const uint8_t *p, size_t n)
{
	char path[] = "/tmp/lspcheck-XXXXXX";
	int fd = mkstemp(path), err;

	if (fd < 0 || write(fd, p, n) != (ssize_t)n) {
		perror("lspcheck: temp file");
		return -1;
	}
	close(fd);
	err = pt_image_add_file(lc_image, path, 0, n, NULL, addr);
	unlink(path);	/* libipt keeps its own copy of the bytes it needs */
	return err;
}

static int lc_leb(const uint8_t *p, size_t n, size_t *i, uint64_t *v,
		  int is_signed)
{
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (*i >= n || shift > 63)
			return -1;
		b = p[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		*v |= ~0ull << shift;
	return 0;
}

/* Decode one LSW_MEMACC payload (see lsc_proto.h). */
static int lc_memacc(struct lc_thread *t, const uint8_t *p, size_t n)
{
	uint64_t idx = 0, ia = 0, da = 0, d;
	size_t i = 0;

	while (i < n) {
		if (lc_leb(p, n, &i, &d, 0) < 0)
			return -1;
		idx += d;
		if (lc_leb(p, n, &i, &d, 1) < 0)
			return -1;
		ia += d;
		if (lc_leb(p, n, &i, &d, 1) < 0)
			return -1;
		da += d;
		if (i >= n)
			return -1;
		if (p[i] == 0) {
			/* An allocation record: the block's size follows. */
			i++;
			if (lc_leb(p, n, &i, &d, 0) < 0)
				return -1;
			continue;
		}
		if ((p[i] >> 1) == 0)
			return -1;
		i++;
		lc_mem_accesses++;
		if (idx > t->mem_last)
			t->mem_last = idx;
	}
	return 0;
}

static int lc_parse(const uint8_t *buf, size_t len, uint32_t *flags)
{
	size_t off = 0;
	int end = 0;

	while (off < len) {
		struct lsw_hdr h;
		const uint8_t *p;

		if (len - off < sizeof(h)) {
			fprintf(stderr, "lspcheck: truncated header at %zu\n", off);
			return -1;
		}
		memcpy(&h, buf + off, sizeof(h));
		p = buf + off + sizeof(h);
		if (h.size > LSW_MAX_PAYLOAD || h.size > len - off - sizeof(h)) {
			fprintf(stderr, "lspcheck: bad size %u at %zu\n", h.size, off);
			return -1;
		}
		switch (h.type) {
		case LSW_HELLO: {
			struct lsw_hello he;

			if (h.size < sizeof(he))
				return -1;
			memcpy(&he, p, sizeof(he));
			if (he.magic != LSW_MAGIC || off != 0) {
				fprintf(stderr, "lspcheck: bad HELLO\n");
				return -1;
			}
			*flags = he.flags;
			break;
		}
		case LSW_MMAP: {
			struct lsw_mmap m;
			const char *path = (const char *)p + sizeof(m);

			if (h.size <= sizeof(m) || p[h.size - 1] != 0)
				return -1;
			memcpy(&m, p, sizeof(m));
			if (!strcmp(path, "[vdso]"))
				break;	/* its bytes come in LSW_MEMDUMP */
			if (pt_image_add_file(lc_image, path, m.pgoff, m.len,
					      NULL, m.addr) < 0)
				fprintf(stderr, "lspcheck: cannot add '%s'\n",
					path);
			break;
		}
		case LSW_MEMDUMP: {
			struct lsw_memdump d;

			if (h.size <= sizeof(d))
				return -1;
			memcpy(&d, p, sizeof(d));
			if (lc_add_dump(d.addr, p + sizeof(d),
					h.size - sizeof(d)) < 0)
				return -1;
			break;
		}
		case LSW_PT: {
			struct lc_thread *t = lc_thread(h.tid);

			t->chunks = realloc(t->chunks, (t->nchunks + 1) *
						       sizeof(*t->chunks));
			if (!t->chunks)
				exit(2);
			t->chunks[t->nchunks].p = p;
			t->chunks[t->nchunks].n = h.size;
			t->nchunks++;
			break;
		}
		case LSW_MEMACC:
			if (lc_memacc(lc_thread(h.tid), p, h.size) < 0) {
				fprintf(stderr, "lspcheck: bad MEMACC at %zu\n",
					off);
				return -1;
			}
			break;
		case LSW_THREAD_EXIT: {
			struct lsw_thread th;
			struct lc_thread *t = lc_thread(h.tid);

			if (h.size < sizeof(th))
				return -1;
			memcpy(&th, p, sizeof(th));
			t->verify = th.insns;
			t->have_verify = 1;
			break;
		}
		case LSW_VERIFY: {
			struct lsw_verify v;
			struct lc_thread *t = lc_thread(h.tid);

			if (h.size < sizeof(v))
				return -1;
			memcpy(&v, p, sizeof(v));
			t->verify = v.insns;
			t->have_verify = 1;
			break;
		}
		case LSW_END:
			end = 1;
			break;
		default:
			if (h.type < LSW_HELLO || h.type > LC_MAXTYPE) {
				fprintf(stderr, "lspcheck: bad type %u at %zu\n",
					h.type, off);
				return -1;
			}
		}
		if (h.type <= LC_MAXTYPE)
			lc_counts[h.type]++;
		off += sizeof(h) + h.size;
	}
	if (!end)
		fprintf(stderr, "lspcheck: note: no LSW_END record\n");
	return 0;
}

/* libipt's packet decoder over buf: packets parsed, -errors. */
static long lc_packets(const uint8_t *buf, size_t n, int *errors)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	long count = 0;
	int err;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + n;
	dec = pt_pkt_alloc_decoder(&cfg);
	err = pt_pkt_sync_set(dec, 0);
	while (err >= 0) {
		err = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (err >= 0)
			count++;
	}
	if (err != -pte_eos) {
		uint64_t off = 0;

		pt_pkt_get_offset(dec, &off);
		fprintf(stderr, "lspcheck: packet error at %" PRIu64 ": %s\n",
			off, pt_errstr(pt_errcode(err)));
		(*errors)++;
	}
	pt_pkt_free_decoder(dec);
	return count;
}

/* libipt's block decoder over buf. */
static void lc_blocks(const uint8_t *buf, size_t n, uint64_t *insns,
		      uint64_t *blocks, int *errors)
{
	struct pt_config cfg;
	struct pt_block_decoder *dec;
	int status;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + n;
	dec = pt_blk_alloc_decoder(&cfg);
	pt_blk_set_image(dec, lc_image);
	for (;;) {
		status = pt_blk_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct pt_block block;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_blk_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
			}
			if (status < 0)
				break;
			memset(&block, 0, sizeof(block));
			status = pt_blk_next(dec, &block, sizeof(block));
			*insns += block.ninsn;
			if (block.ninsn)
				(*blocks)++;
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			continue;	/* look for another PSB */
		{
			uint64_t off = 0, ip = 0;

			pt_blk_get_offset(dec, &off);
			pt_blk_get_sync_offset(dec, &ip);
			(*errors)++;
			if (lc_verbose_errors-- > 0)
				fprintf(stderr, "lspcheck: decode error at "
					"%" PRIu64 " (sync %" PRIu64 "): %s\n",
					off, ip, pt_errstr(pt_errcode(status)));
		}
	}
	if (status != -pte_eos) {
		(*errors)++;
		fprintf(stderr, "lspcheck: sync error: %s\n",
			pt_errstr(pt_errcode(status)));
	}
	pt_blk_free_decoder(dec);
}

static int lc_check_thread(struct lc_thread *t, int strict)
{
	uint64_t insns = 0, blocks = 0, cinsns = 0, resumes;
	char f1[24], f2[24];
	int errors = 0, cerrors = 0;
	size_t i, total = 0, off = 0;
	uint8_t *whole;
	long packets = 0;

	for (i = 0; i < t->nchunks; i++)
		total += t->chunks[i].n;
	whole = malloc(total + 64);
	if (!whole)
		exit(2);
	for (i = 0; i < t->nchunks; i++) {
		static const uint8_t psb[4] = { 0x02, 0x82, 0x02, 0x82 };

		if (t->chunks[i].n < 16 || memcmp(t->chunks[i].p, psb, 4)) {
			fprintf(stderr, "lspcheck: tid %u chunk %zu does not "
				"start with a PSB\n", t->tid, i);
			errors++;
		}
		memcpy(whole + off, t->chunks[i].p, t->chunks[i].n);
		off += t->chunks[i].n;
	}
	packets = lc_packets(whole, total, &errors);
	lc_blocks(whole, total, &insns, &blocks, &errors);
	/* Chunk by chunk, with the next-PSB stop rule every test tool shares
	 * (ptoracle.h): each chunk stops where the next one's PSB+ resumes. */
	for (i = 0; i < t->nchunks; i++) {
		uint64_t stop = 0, decerr = 0;

		if (i + 1 < t->nchunks)
			stop = ptoracle_psb_ip(t->chunks[i + 1].p, t->chunks[i + 1].n);
		cinsns += ptoracle_chunk(t->chunks[i].p, t->chunks[i].n, lc_image,
					 stop, &decerr);
		cerrors += (int)decerr;
	}
	/* Where libipt 2.0.5's instruction decoder stops early, its counts
	 * are no oracle (ptoracle.h): "-", and not compared. */
	resumes = ptoracle_resumes(whole, total);
	free(whole);
	printf("tid %u chunks %zu bytes %zu packets %ld insns %" PRIu64
	       " blocks %" PRIu64 " errors %d chunk_insns %s"
	       " chunk_errors %s verify %" PRIu64 "\n", t->tid, t->nchunks,
	       total, packets, insns, blocks, errors,
	       ptoracle_fmt(f1, cinsns, resumes),
	       ptoracle_fmt(f2, (uint64_t)cerrors, resumes), t->verify);
	if (errors || (cerrors && !resumes))
		return -1;
	if (strict && ((t->have_verify && t->verify != insns) ||
		       (cinsns != insns && !resumes)))
		return -1;
	/* access indexes count executed instructions: all below the total */
	if (t->mem_last && t->mem_last >= insns) {
		fprintf(stderr, "lspcheck: tid %u: memory access at insn %"
			PRIu64 " of %" PRIu64 "\n", t->tid, t->mem_last, insns);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int strict = 0, bad = 0;
	uint32_t flags = 0;
	const char *path;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, i;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		strict = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: lspcheck [-s] FILE\n");
		return 2;
	}
	path = argv[1];
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "lspcheck: cannot open '%s'\n", path);
		return 2;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				return 2;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	lc_image = pt_image_alloc("lspcheck");
	if (lc_parse(buf, len, &flags) < 0)
		return 1;
	if (!(flags & LSW_HELLO_VERIFY))
		for (i = 0; i < lc_nthreads; i++)
			lc_threads[i].have_verify = 0;
	printf("records");
	for (i = 1; i <= LC_MAXTYPE; i++)
		printf(" %s %lu", lc_names[i], lc_counts[i]);
	printf(" accesses %lu\n", lc_mem_accesses);
	for (i = 0; i < lc_nthreads; i++)
		if (lc_check_thread(&lc_threads[i], strict) < 0)
			bad = 1;
	pt_image_free(lc_image);
	free(buf);
	return bad;
}
