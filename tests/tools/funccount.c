/* funccount.c - executed instructions per function of one module, from a
 * bundle through our decoder (compared with the native oracle sstep).
 *
 *   funccount FILE.lsc MODULE_PATH
 *
 * Decodes every stream with lsd_decode_stream() and adds each executed
 * static block's instructions to the function that holds it, found with
 * lsd_symbols_lookup().  Prints "FUNCTION COUNT" sorted by name for the
 * functions of the module recorded as MODULE_PATH, then "total N": every
 * instruction executed in that module, inside a function symbol or not.
 * Exits 1 if the decoder lost any trace (the counts would be short), 2 on
 * other errors.
 *
 * A static block normally lies within one function, but one may run into
 * the next symbol (code without symbols between, a function falling into
 * the next) or through a nested symbol and back out, so each static
 * block is attributed instruction by instruction, once, with capstone
 * finding the instruction starts in the bundle's image.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "decoder/iclass.h"
#include "decoder/image.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "ls_err.h"

struct fn {
	char *name;
	uint64_t count;
};

/* How the instructions of one static block divide among functions:
 * nparts (function index, instructions) pairs; fn -1 is "no function". */
struct part {
	int fn;
	uint32_t n;
};

struct split {
	int done;
	int in_module;
	uint32_t nparts;
	struct part *parts;
};

struct ctx {
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *syms;
	struct lsd_image img;
	int have_img;
	csh cs;
	const char *module;
	struct fn *fns;
	size_t nfns, capfns;
	struct split *splits;
	size_t nsplits;
	uint64_t total, lost;
	int err;
};

static int fn_index(struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nfns; i++)
		if (!strcmp(c->fns[i].name, name))
			return (int)i;
	if (c->nfns == c->capfns) {
		c->capfns = c->capfns ? 2 * c->capfns : 64;
		c->fns = realloc(c->fns, c->capfns * sizeof(*c->fns));
		if (!c->fns)
			exit(2);
	}
	c->fns[c->nfns].name = strdup(name);
	c->fns[c->nfns].count = 0;
	return (int)c->nfns++;
}

/* Function of the instruction at module offset off, -1 if none; *start
 * gets the function's start offset. */
static int fn_at(struct ctx *c, int mod, uint64_t off, uint64_t *start)
{
	struct lsd_symbol_info info;

	if (lsd_symbols_lookup(c->syms, mod, off, 0, &info) < 0 || !info.function) {
		*start = UINT64_MAX;
		return -1;
	}
	*start = info.func_start;
	return fn_index(c, info.function);
}

static void add_part(struct split *s, int fn, uint32_t n)
{
	if (s->nparts && s->parts[s->nparts - 1].fn == fn) {
		s->parts[s->nparts - 1].n += n;
		return;
	}
	s->parts = realloc(s->parts, (s->nparts + 1) * sizeof(*s->parts));
	if (!s->parts)
		exit(2);
	s->parts[s->nparts].fn = fn;
	s->parts[s->nparts++].n = n;
}

/* Divides a static block among functions, once per block. */
static void compute_split(struct ctx *c, const struct lsd_sblock *sb, struct split *s)
{
	const struct lsb_module *m;

	s->done = 1;
	if (sb->module < 0)
		return;
	/* Only the asked module's symbols are loaded. */
	m = lsb_reader_module(c->r, (size_t)sb->module);
	if (!m || !m->path || strcmp(m->path, c->module))
		return;
	s->in_module = 1;
	/* Instruction by instruction: a block may run through a nested
	 * symbol and back out, so its ends alone do not tell. */
	{
		size_t len = (size_t)(sb->end - sb->start);
		uint8_t *buf = malloc(len ? len : 1);
		const uint8_t *p;
		uint64_t addr;
		size_t left;
		uint32_t n = 0;
		cs_insn *insn = lsd_cs.malloc(c->cs);

		if (!buf || !insn || lsd_image_read(&c->img, buf, len, sb->start) != (int)len) {
			fprintf(stderr, "funccount: no bytes for the block at %#" PRIx64 "\n",
				sb->start);
			c->err = 1;
			add_part(s, -1, sb->ninsn);
			free(buf);
			if (insn)
				lsd_cs.free(insn, 1);
			return;
		}
		p = buf;
		left = len;
		addr = sb->start;
		while (n < sb->ninsn && lsd_cs.disasm_iter(c->cs, &p, &left, &addr, insn)) {
			uint64_t st;
			int f = fn_at(c, sb->module, sb->mod_off + (insn->address - sb->start), &st);

			add_part(s, f, 1);
			n++;
		}
		if (n != sb->ninsn) {
			fprintf(stderr, "funccount: block at %#" PRIx64 ": %u of %u instructions decoded\n",
				sb->start, n, sb->ninsn);
			c->err = 1;
		}
		lsd_cs.free(insn, 1);
		free(buf);
	}
}

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct ctx *c = arg;
	struct split *s;
	uint32_t i;

	(void)stream;
	if (!b->sb || !b->sb->ninsn)
		return 0;
	if (b->sb->id >= c->nsplits) {
		size_t n = c->nsplits ? c->nsplits : 1024;

		while (n <= b->sb->id)
			n *= 2;
		c->splits = realloc(c->splits, n * sizeof(*c->splits));
		if (!c->splits)
			return -LS_ENOMEM;
		memset(c->splits + c->nsplits, 0, (n - c->nsplits) * sizeof(*c->splits));
		c->nsplits = n;
	}
	s = &c->splits[b->sb->id];
	if (!s->done)
		compute_split(c, b->sb, s);
	if (!s->in_module)
		return 0;
	for (i = 0; i < s->nparts; i++) {
		if (s->parts[i].fn >= 0)
			c->fns[s->parts[i].fn].count += s->parts[i].n;
		c->total += s->parts[i].n;
	}
	return 0;
}

static int on_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct ctx *c = arg;

	fprintf(stderr, "funccount: stream %zu: %" PRIu64 " bytes lost at offset %" PRIu64 "\n",
		stream, l->bytes, l->offset);
	c->lost++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsd_callbacks cb = { .block = on_block, .loss = on_loss };
	struct ctx c;
	size_t i;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: funccount FILE.lsc MODULE_PATH\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	c.module = argv[2];
	err = lsb_reader_open(&r, argv[1]);
	if (err < 0) {
		fprintf(stderr, "funccount: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	c.r = r;
	if ((err = lsd_open(&c.d, r, &o)) < 0 ||
	    (err = lsd_symbols_open(&c.syms, r, NULL)) < 0 ||
	    (err = lsd_image_build(&c.img, r, 0, LSB_RUN_TRACE)) < 0) {
		fprintf(stderr, "funccount: %s: %s\n", argv[1], ls_errstr(err));
		return 2;
	}
	if (lsd_cs_open_mode(&c.cs, 0, LSD_MODE_64) < 0) {
		fprintf(stderr, "funccount: capstone\n");
		return 2;
	}
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		struct lsd_stream_stats st;

		memset(&st, 0, sizeof(st));
		err = lsd_decode_stream(c.d, i, &cb, &c, &st);
		if (err < 0) {
			fprintf(stderr, "funccount: stream %zu: %s\n", i, ls_errstr(err));
			return 2;
		}
	}
	qsort(c.fns, c.nfns, sizeof(*c.fns), by_name);
	for (i = 0; i < c.nfns; i++)
		if (c.fns[i].count)
			printf("%s %" PRIu64 "\n", c.fns[i].name, c.fns[i].count);
	printf("total %" PRIu64 "\n", c.total);
	for (i = 0; i < c.nsplits; i++)
		free(c.splits[i].parts);
	free(c.splits);
	for (i = 0; i < c.nfns; i++)
		free(c.fns[i].name);
	free(c.fns);
	lsd_cs.close(&c.cs);
	lsd_image_release(&c.img);
	lsd_symbols_close(c.syms);
	lsd_close(c.d);
	lsb_reader_close(r);
	if (c.err)
		return 2;
	return c.lost ? 1 : 0;
}
