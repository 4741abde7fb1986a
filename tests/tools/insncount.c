/* insncount.c - how many times each instruction ran, from a bundle through
 * our decoder, for comparing with callgrind's per-instruction counts
 * (bench/oracle.sh).
 *
 *   insncount FILE.lsc
 *
 * Decodes every stream with lsd_decode_stream(), counts the executions of
 * each static block, and prints one line per executed instruction, by
 * address: "OBJECT:OFFSET COUNT REP ADDRESS", OFFSET in hex in the module's file
 * (callgrind's object-relative position; an absolute address in "???"
 * where no module holds it), REP 1 for a rep-prefixed
 * string instruction (which Intel PT, and so our count, sees once per
 * execution, and Valgrind's tools once per iteration), else 0, and
 * ADDRESS the runtime address in hex.  Then
 * "total N".  Exits 1 if the decoder lost any trace, 2 on other errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "decoder/iclass.h"
#include "decoder/image.h"
#include "formats/bundle.h"
#include "ls_err.h"

struct ctx {
	const struct lsd_sblock **sb;	/* by static block id */
	uint64_t *execs;
	size_t cap;
	uint64_t lost;
};

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct ctx *c = arg;
	uint32_t id;

	(void)stream;
	if (!b->sb || !b->sb->ninsn)
		return 0;
	id = b->sb->id;
	if (id >= c->cap) {
		size_t n = c->cap ? c->cap : 1024;
		const struct lsd_sblock **ns;
		uint64_t *ne;

		while (n <= id)
			n *= 2;
		ns = realloc(c->sb, n * sizeof(*ns));
		if (!ns)
			return -LS_ENOMEM;
		c->sb = ns;
		ne = realloc(c->execs, n * sizeof(*ne));
		if (!ne)
			return -LS_ENOMEM;
		c->execs = ne;
		memset(c->sb + c->cap, 0, (n - c->cap) * sizeof(*ns));
		memset(c->execs + c->cap, 0, (n - c->cap) * sizeof(*ne));
		c->cap = n;
	}
	c->sb[id] = b->sb;
	c->execs[id]++;
	return 0;
}

static int on_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct ctx *c = arg;

	fprintf(stderr, "insncount: stream %zu: %" PRIu64 " bytes lost at offset %" PRIu64 "\n",
		stream, l->bytes, l->offset);
	c->lost++;
	return 0;
}

/* A rep/repe/repne string instruction, by capstone's mnemonic. */
static int is_rep_string(const char *mn)
{
	static const char *const ops[] = { "movs", "stos", "cmps", "scas", "lods", "ins", "outs" };
	const char *sp;
	size_t i;

	if (strncmp(mn, "rep", 3) || !(sp = strchr(mn, ' ')))
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(sp + 1, ops[i], strlen(ops[i])))
			return 1;
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct lsd_sblock *const *a = x, *const *b = y;

	return (*a)->start < (*b)->start ? -1 : (*a)->start > (*b)->start;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d = NULL;
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsd_callbacks cb = { .block = on_block, .loss = on_loss };
	struct lsd_image img;
	struct ctx c;
	const struct lsd_sblock **run;
	uint64_t total = 0;
	size_t i, n = 0;
	cs_insn *insn;
	csh cs;
	int err, bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: insncount FILE.lsc\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	err = lsb_reader_open(&r, argv[1]);
	if (err < 0) {
		fprintf(stderr, "insncount: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	if ((err = lsd_open(&d, r, &o)) < 0 ||
	    (err = lsd_image_build(&img, r, 0, LSB_RUN_TRACE)) < 0) {
		fprintf(stderr, "insncount: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	if (lsd_cs_open_mode(&cs, 0, LSD_MODE_64) < 0 || !(insn = lsd_cs.malloc(cs))) {
		fprintf(stderr, "insncount: capstone\n");
		return 2;
	}
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		struct lsd_stream_stats st;

		memset(&st, 0, sizeof(st));
		err = lsd_decode_stream(d, i, &cb, &c, &st);
		if (err < 0) {
			fprintf(stderr, "insncount: stream %zu: %s\n", i, ls_errstr(err));
			return 2;
		}
	}
	run = malloc((c.cap ? c.cap : 1) * sizeof(*run));
	if (!run)
		return 2;
	for (i = 0; i < c.cap; i++)
		if (c.sb[i])
			run[n++] = c.sb[i];
	qsort(run, n, sizeof(*run), by_start);
	for (i = 0; i < n; i++) {
		const struct lsd_sblock *sb = run[i];
		size_t len = (size_t)(sb->end - sb->start), left = len;
		uint8_t *buf = malloc(len ? len : 1);
		const uint8_t *p = buf;
		uint64_t addr = sb->start, x = c.execs[sb->id];
		uint32_t k = 0;

		if (!buf || lsd_image_read(&img, buf, len, sb->start) != (int)len) {
			fprintf(stderr, "insncount: no bytes for the block at %#" PRIx64 "\n",
				sb->start);
			free(buf);
			bad = 1;
			continue;
		}
		while (k < sb->ninsn && lsd_cs.disasm_iter(cs, &p, &left, &addr, insn)) {
			const struct lsb_module *m = sb->module < 0 ? NULL :
				lsb_reader_module(r, (size_t)sb->module);

			/* Callgrind's position: the offset in the object. */
			printf("%s:%" PRIx64 " %" PRIu64 " %d %" PRIx64 "\n",
			       m && m->path ? m->path : "???",
			       m ? sb->mod_off + (insn->address - sb->start) : insn->address,
			       x, is_rep_string(insn->mnemonic), insn->address);
			k++;
		}
		if (k != sb->ninsn) {
			fprintf(stderr, "insncount: block at %#" PRIx64 ": %u of %u instructions\n",
				sb->start, k, sb->ninsn);
			bad = 1;
		}
		total += x * sb->ninsn;
		free(buf);
	}
	printf("total %" PRIu64 "\n", total);
	free(run);
	free(c.sb);
	free(c.execs);
	lsd_cs.free(insn, 1);
	lsd_cs.close(&cs);
	lsd_image_release(&img);
	lsd_close(d);
	lsb_reader_close(r);
	if (bad)
		return 2;
	return c.lost ? 1 : 0;
}
