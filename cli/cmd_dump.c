/* cmd_dump.c - `loopscope dump`: the decoded trace of a bundle, line by line.
 *
 * Four views of the same PT streams:
 *  - blocks (default): the block stream of decoder/decode.h, one line per
 *    executed static block, and a line per loss;
 *  - --insn: the same blocks with every instruction disassembled (capstone);
 *  - --packets: libipt's packet decoder, one line per packet, like ptdump,
 *    with the IP of IP packets reconstructed from the last IP;
 *  - --query: libipt's query decoder (control-flow queries without an
 *    image): the TNT bits, TIPs and events it hands out, per stream.
 *    These need no code, so they work on recordings whose binaries are
 *    missing (e.g. perf.data imported from elsewhere).  Those two live in
 *    dump_pt.c.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/dump.h"
#include "decoder/decode.h"
#include "decoder/iclass.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "ls_err.h"

static const char dump_usage[] =
	"usage: loopscope dump [--stream=<id> | --tid=<tid>] [--limit=<n>]\n"
	"                      [--packets | --insn | --query] [FILE]\n"
	"\n"
	"Prints the decoded trace of a bundle (default: loopscope.lsc): one line\n"
	"per executed static block (tid, first-last address, instructions, exit,\n"
	"next address, symbol+offset) and one per loss; in a per-CPU stream, a\n"
	"'thread' line wherever another thread's blocks begin.\n"
	"\n"
	"    --stream=<id>    only the PT stream with this id (see 'loopscope info')\n"
	"    --tid=<tid>      only the blocks of thread <tid> (with --packets and\n"
	"                     --query: its per-thread streams)\n"
	"    --limit=<n>      at most <n> blocks, instructions or packets per stream\n"
	"    --packets        the PT packets instead, as libipt's ptdump prints them\n"
	"    --insn           every instruction, disassembled, grouped by block\n"
	"    --query          libipt's query decoder: TNT bits, TIPs and events\n"
	"                     counted per stream (needs no binaries)\n"
	"    --debug-dir=<d>  look for executables the bundle only references\n"
	"                     (record --no-embed) and for debug info in <d> too\n"
	"    -h, --help       show this help\n";

enum { OPT_STREAM = 256, OPT_TID, OPT_LIMIT, OPT_PACKETS, OPT_INSN, OPT_QUERY,
       OPT_DEBUG_DIR };

static const struct option dump_options[] = {
	{ "stream", required_argument, NULL, OPT_STREAM },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "packets", no_argument, NULL, OPT_PACKETS },
	{ "insn", no_argument, NULL, OPT_INSN },
	{ "query", no_argument, NULL, OPT_QUERY },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum dump_mode { MODE_BLOCKS, MODE_INSN, MODE_PACKETS, MODE_QUERY };

struct dump {
	FILE *out;
	struct lsb_reader *r;
	enum dump_mode mode;
	uint64_t limit;		/* 0: no limit */
	uint64_t nlines;	/* of the current stream */
	uint32_t tid;		/* whose blocks these are (thread callback) */
	int cpu_stream;		/* the stream is per CPU: threads change */
	int have_tid;		/* --tid: only the blocks of want_tid */
	uint32_t want_tid;
	int skip;		/* the current thread is not the one wanted */
	struct lsd_symbols *syms;
	const char *debug_dir;	/* --debug-dir, or NULL */
	struct lsd_decoder *dec;	/* --insn: the code bytes of each process */
	csh cs[LSD_MODE_MAX];	/* --insn: one per execution mode */
	int have_cs;
	uint8_t *code;		/* --insn: bytes of one static block */
	size_t codecap;
};

/* symbol+offset; module+file offset where no symbol covers the address
 * (or the module cannot be read: lookup still names it). */
static void print_where(struct dump *d, int mod, uint64_t off)
{
	struct lsd_symbol_info si;
	const char *base;

	memset(&si, 0, sizeof(si));
	if (mod < 0 || !d->syms) {
		fprintf(d->out, "??\n");
		return;
	}
	if (lsd_symbols_lookup(d->syms, mod, off, 0, &si) >= 0 && si.function) {
		fprintf(d->out, "%s+0x%" PRIx64 "\n", si.function, si.func_off);
		return;
	}
	base = si.module ? strrchr(si.module, '/') : NULL;
	fprintf(d->out, "%s+0x%" PRIx64 "\n", base ? base + 1 :
		si.module ? si.module : "??", off);
}

/* --insn: the instructions of one static block, from the image. */
static int print_insns(struct dump *d, const struct lsd_sblock *sb)
{
	size_t len = (size_t)(sb->end - sb->start), i, n;
	cs_insn *insn = NULL;
	int got;

	if (len > d->codecap) {
		uint8_t *p = realloc(d->code, len);

		if (!p)
			return -LS_ENOMEM;
		d->code = p;
		d->codecap = len;
	}
	got = lsd_sblock_code(d->dec, sb->pid, sb->start, d->code, len);
	if (got <= 0 || !d->have_cs || sb->mode >= LSD_MODE_MAX) {
		fprintf(d->out, "    %016" PRIx64 "  (no code)\n", sb->start);
		return 0;
	}
	n = lsd_cs.disasm(d->cs[sb->mode], d->code, (size_t)got, sb->start, sb->ninsn, &insn);
	for (i = 0; i < n; i++) {
		char bytes[3 * 16 + 1] = "";
		uint16_t k;

		for (k = 0; k < insn[i].size && k < 15; k++)
			sprintf(bytes + 3 * k, "%02x ", insn[i].bytes[k]);
		fprintf(d->out, "    %016" PRIx64 "  %-30s %-8s %-32s ",
			insn[i].address, bytes, insn[i].mnemonic, insn[i].op_str);
		print_where(d, sb->module,
			    sb->mod_off + (insn[i].address - sb->start));
	}
	if (n < sb->ninsn)
		fprintf(d->out, "    %016" PRIx64 "  (%zu of %u instructions "
			"disassembled)\n", sb->start, n, sb->ninsn);
	if (insn)
		lsd_cs.free(insn, n);
	return 0;
}

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct dump *d = arg;
	const struct lsd_sblock *sb = b->sb;

	(void)stream;
	if (d->skip)
		return 0;
	if (d->limit && d->nlines >= d->limit)
		return 1;	/* stop this stream; see dump_blocks() */
	d->nlines++;
	fprintf(d->out, "%-7" PRIu32 " %016" PRIx64 "-%016" PRIx64 " %5" PRIu32
		" %-8s %016" PRIx64 "  ", d->tid, sb->start, sb->last, sb->ninsn,
		lsd_exit_name(b->exit), b->next);
	print_where(d, sb->module, sb->mod_off);
	if (d->mode == MODE_INSN)
		return print_insns(d, sb);
	return 0;
}

static int on_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct dump *d = arg;
	int e = l->error < 0 ? -l->error : l->error;

	(void)stream;
	if (d->skip)
		return 0;
	/* ptxed's "[offset, ip: error: message]", in our words. */
	fprintf(d->out, "%-7" PRIu32 " loss at offset %" PRIu64 ": %" PRIu64
		" bytes, %" PRIu64 " instructions (%s), ip ", d->tid, l->offset,
		l->bytes, l->insns, pt_errstr((enum pt_error_code)e));
	if (l->ip)
		fprintf(d->out, "%016" PRIx64 "\n", l->ip);
	else
		fprintf(d->out, "-\n");
	return 0;
}

/* The thread of the blocks that follow: a per-CPU stream says so at
 * every switch, in a line of its own. */
static int on_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct dump *d = arg;

	(void)stream;
	d->tid = tid;
	d->skip = d->have_tid && tid != d->want_tid;
	if (d->cpu_stream && !d->skip)
		fprintf(d->out, "%-7" PRIu32 " thread pid %" PRIu32 " tid %" PRIu32
			"\n", tid, pid, tid);
	return 0;
}

/* The streams to print; blocks (blocks 1) of thread tid may be in any
 * per-CPU stream. */
static int selected(const struct lsb_stream *s, int have_id, uint64_t id,
		    int have_tid, uint64_t tid, int blocks)
{
	if (have_id && s->id != id)
		return 0;
	if (have_tid && !(blocks && s->kind == LSB_STREAM_CPU) &&
	    (s->kind != LSB_STREAM_THREAD || s->tid != tid))
		return 0;
	return 1;
}

static const char *stream_who(const struct lsb_stream *s, char *buf, size_t n)
{
	if (s->kind == LSB_STREAM_CPU)
		snprintf(buf, n, "stream %" PRIu32 " cpu %" PRId32, s->id, s->cpu);
	else
		snprintf(buf, n, "stream %" PRIu32 " tid %" PRIu32, s->id, s->tid);
	return buf;
}

static int dump_blocks(struct dump *d, int have_id, uint64_t id, int have_tid,
		       uint64_t tid)
{
	struct lsd_callbacks cb = {
		.block = on_block, .loss = on_loss, .thread = on_thread,
	};
	struct lsd_opts o = { .size = sizeof(o), .debug_dir = d->debug_dir };
	struct lsd_decoder *dec;
	char msg[600];
	size_t i;
	int err;

	cli_warn_missing_code(d->r, d->debug_dir);
	err = lsd_open_msg(&dec, d->r, &o, msg, sizeof(msg));
	/* (a build-id not found, capstone not loaded: the open says which) */
	if (err == -LS_EBUILDID || (err == -LS_EUNSUP && msg[0])) {
		cli_error("cannot decode '%s': %s", lsb_reader_path(d->r), msg);
		return 1;
	}
	if (err < 0) {
		cli_reader_error(d->r, err);
		return 1;
	}
	if (lsd_symbols_open(&d->syms, d->r, d->debug_dir) < 0)
		d->syms = NULL;	/* addresses without names */
	if (d->mode == MODE_INSN) {
		d->dec = dec;
		d->have_cs = 1;
		for (i = 0; i < LSD_MODE_MAX; i++)
			if (lsd_cs_open_mode(&d->cs[i], 0, (int)i) < 0)
				d->have_cs = 0;
	}
	for (i = 0; i < lsb_reader_nstreams(d->r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(d->r, i);
		struct lsd_stream_stats st;

		if (!selected(s, have_id, id, have_tid, tid, 1))
			continue;
		d->tid = s->tid;
		d->cpu_stream = s->kind == LSB_STREAM_CPU;
		d->have_tid = have_tid;
		d->want_tid = (uint32_t)tid;
		d->skip = 0;
		d->nlines = 0;
		memset(&st, 0, sizeof(st));
		err = lsd_decode_stream(dec, i, &cb, d, &st);
		if (err < 0) {
			cli_reader_error(d->r, err);
			goto fail;
		}
	}
	err = 0;
fail:
	for (i = 0; d->mode == MODE_INSN && i < LSD_MODE_MAX; i++)
		if (d->cs[i])
			lsd_cs.close(&d->cs[i]);
	free(d->code);
	lsd_symbols_close(d->syms);
	lsd_close(dec);
	return err ? 1 : 0;
}

int cmd_dump(int argc, char **argv)
{
	const char *file = "loopscope.lsc";
	struct dump d = { .out = stdout, .mode = MODE_BLOCKS };
	uint64_t id = 0, tid = 0;
	int have_id = 0, have_tid = 0, c, ret = 0, nsel = 0;
	struct dump_query total;
	size_t i;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", dump_options, NULL)) != -1) {
		switch (c) {
		case OPT_DEBUG_DIR:
			d.debug_dir = optarg;
			break;
		case OPT_STREAM:
			if (cli_opt_u64("--stream", optarg, 0, 0, UINT64_MAX, &id))
				return cli_usage(dump_usage, 1);
			have_id = 1;
			break;
		case OPT_TID:
			if (cli_opt_u64("--tid", optarg, 0, 0, UINT64_MAX, &tid))
				return cli_usage(dump_usage, 1);
			have_tid = 1;
			break;
		case OPT_LIMIT:
			if (cli_opt_u64("--limit", optarg, 0, 0, UINT64_MAX, &d.limit))
				return cli_usage(dump_usage, 1);
			break;
		case OPT_PACKETS:
		case OPT_INSN:
		case OPT_QUERY:
			if (d.mode != MODE_BLOCKS) {
				cli_error("--packets, --insn and --query exclude each other");
				return cli_usage(dump_usage, 1);
			}
			d.mode = c == OPT_PACKETS ? MODE_PACKETS :
				 c == OPT_INSN ? MODE_INSN : MODE_QUERY;
			break;
		case 'h':
			return cli_usage(dump_usage, 0);
		default:
			if (optopt && optopt < 256)
				cli_error("unknown option '-%c'", optopt);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage(dump_usage, 1);
		}
	}
	if (have_id && have_tid) {
		cli_error("--stream and --tid exclude each other");
		return cli_usage(dump_usage, 1);
	}
	if (optind + 1 < argc) {
		cli_error("dump takes one file");
		return cli_usage(dump_usage, 1);
	}
	if (optind < argc)
		file = argv[optind];

	if (cli_open_bundle(file, &d.r))
		return 1;
	/* Checksums first, as info does: the decoder would turn a damaged
	 * chunk into a gap, but a dump of a damaged file should say so. */
	if (lsb_reader_verify(d.r) < 0) {
		cli_error("%s", lsb_reader_errmsg(d.r));
		lsb_reader_close(d.r);
		return 1;
	}
	for (i = 0; i < lsb_reader_nstreams(d.r); i++)
		nsel += selected(lsb_reader_stream(d.r, i), have_id, id, have_tid, tid,
				 d.mode == MODE_BLOCKS || d.mode == MODE_INSN);
	if (!nsel && (have_id || have_tid)) {
		cli_error("no stream with %s %" PRIu64 " in '%s'; see 'loopscope info'",
			  have_id ? "id" : "tid", have_id ? id : tid, file);
		lsb_reader_close(d.r);
		return 1;
	}
	/* blocks, instructions or packets of a bundle with no PT left: an
	 * error, as for analyze, not an empty dump */
	if (d.mode != MODE_QUERY && cli_no_trace(d.r, file)) {
		lsb_reader_close(d.r);
		return 1;
	}
	if (d.mode == MODE_BLOCKS || d.mode == MODE_INSN) {
		ret = dump_blocks(&d, have_id, id, have_tid, tid);
		lsb_reader_close(d.r);
		return ret;
	}
	memset(&total, 0, sizeof(total));
	for (i = 0; i < lsb_reader_nstreams(d.r) && !ret; i++) {
		const struct lsb_stream *s = lsb_reader_stream(d.r, i);
		struct dump_query qc;
		uint8_t *buf = NULL;
		size_t len = 0;
		char who[64];
		int err;

		if (!selected(s, have_id, id, have_tid, tid, 0))
			continue;
		err = dump_read_stream(d.r, i, &buf, &len);
		if (err < 0) {
			cli_reader_error(d.r, err);
			ret = 1;
			break;
		}
		stream_who(s, who, sizeof(who));
		d.nlines = 0;
		if (d.mode == MODE_PACKETS) {
			fprintf(d.out, "%s: %zu bytes\n", who, len);
			if (dump_packets(d.out, d.r, buf, len, d.limit) < 0) {
				cli_error("out of memory");
				ret = 1;
			}
		} else {
			dump_query_stream(d.r, buf, len, &qc);
			dump_query_print(d.out, who, &qc);
			dump_query_add(&total, &qc);
		}
		free(buf);
	}
	if (d.mode == MODE_QUERY && !ret)
		dump_query_print(d.out, "total", &total);
	lsb_reader_close(d.r);
	return ret;
}
