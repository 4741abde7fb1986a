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
 *    missing (e.g. perf.data imported from elsewhere).
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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
	csh cs;
	int have_cs;
	uint8_t *code;		/* --insn: bytes of one static block */
	size_t codecap;
};

/* The whole raw PT of stream i, its chunks concatenated: packet views
 * decode across chunk boundaries the way the hardware wrote them. */
static int read_stream(struct lsb_reader *r, size_t i, uint8_t **pbuf,
		       size_t *plen)
{
	size_t n = lsb_reader_nchunks(r, i), k, total = 0, off = 0;
	uint8_t *buf;

	for (k = 0; k < n; k++)
		total += lsb_reader_chunk(r, i, k)->raw_size;
	buf = malloc(total ? total : 1);
	if (!buf)
		return -LS_ENOMEM;
	for (k = 0; k < n; k++) {
		int64_t got = lsb_reader_read_chunk(r, lsb_reader_chunk(r, i, k),
						    buf + off, total - off);

		if (got < 0) {
			free(buf);
			return (int)got;
		}
		off += (size_t)got;
	}
	*pbuf = buf;
	*plen = off;
	return 0;
}

/* The CPU of the recording, for libipt's errata workarounds. */
static void config_cpu(struct lsb_reader *r, struct pt_config *cfg)
{
	const char *fam = lsb_reader_meta(r, "cpu.family");
	const char *mod = lsb_reader_meta(r, "cpu.model");
	const char *step = lsb_reader_meta(r, "cpu.stepping");

	if (!fam || !mod)
		return;
	cfg->cpu.vendor = pcv_intel;
	cfg->cpu.family = (uint16_t)strtoul(fam, NULL, 0);
	cfg->cpu.model = (uint8_t)strtoul(mod, NULL, 0);
	cfg->cpu.stepping = step ? (uint8_t)strtoul(step, NULL, 0) : 0;
	pt_cpu_errata(&cfg->errata, &cfg->cpu);
}

static const char *ipc_name(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed: return "suppressed";
	case pt_ipc_update_16: return "update-16";
	case pt_ipc_update_32: return "update-32";
	case pt_ipc_sext_48: return "sext-48";
	case pt_ipc_update_48: return "update-48";
	case pt_ipc_full: return "full";
	}
	return "?";
}

/* Applies an IP packet to the last IP, as the hardware compressed it
 * (SDM 32.4.2.2); returns 0 if the IP is suppressed. */
static int ip_update(uint64_t *last, const struct pt_packet_ip *p)
{
	switch (p->ipc) {
	case pt_ipc_suppressed:
		return 0;
	case pt_ipc_update_16:
		*last = (*last & ~0xffffull) | (p->ip & 0xffffull);
		return 1;
	case pt_ipc_update_32:
		*last = (*last & ~0xffffffffull) | (p->ip & 0xffffffffull);
		return 1;
	case pt_ipc_update_48:
		*last = (*last & ~0xffffffffffffull) | (p->ip & 0xffffffffffffull);
		return 1;
	case pt_ipc_sext_48:
		*last = p->ip & 0xffffffffffffull;
		if (*last & 0x800000000000ull)
			*last |= 0xffff000000000000ull;
		return 1;
	case pt_ipc_full:
		*last = p->ip;
		return 1;
	}
	return 0;
}

static const char *packet_name(enum pt_packet_type t)
{
	static const char *names[] = {
		[ppt_invalid] = "invalid", [ppt_unknown] = "unknown",
		[ppt_pad] = "pad", [ppt_psb] = "psb", [ppt_psbend] = "psbend",
		[ppt_fup] = "fup", [ppt_tip] = "tip", [ppt_tip_pge] = "tip.pge",
		[ppt_tip_pgd] = "tip.pgd", [ppt_tnt_8] = "tnt.8",
		[ppt_tnt_64] = "tnt.64", [ppt_mode] = "mode", [ppt_pip] = "pip",
		[ppt_vmcs] = "vmcs", [ppt_cbr] = "cbr", [ppt_tsc] = "tsc",
		[ppt_tma] = "tma", [ppt_mtc] = "mtc", [ppt_cyc] = "cyc",
		[ppt_stop] = "stop", [ppt_ovf] = "ovf", [ppt_mnt] = "mnt",
		[ppt_exstop] = "exstop", [ppt_mwait] = "mwait", [ppt_pwre] = "pwre",
		[ppt_pwrx] = "pwrx", [ppt_ptw] = "ptw",
	};

	if ((size_t)t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "?";
}

static void print_packet(FILE *f, uint64_t off, const struct pt_packet *p,
			 uint64_t *last_ip)
{
	uint8_t k;

	fprintf(f, "%016" PRIx64 "  %-8s", off, packet_name(p->type));
	switch (p->type) {
	case ppt_psb:
		/* The IP compression restarts at every PSB. */
		*last_ip = 0;
		break;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		fprintf(f, " %d: %-10s %016" PRIx64, (int)p->payload.ip.ipc,
			ipc_name(p->payload.ip.ipc), p->payload.ip.ip);
		if (ip_update(last_ip, &p->payload.ip))
			fprintf(f, "  ip=%016" PRIx64, *last_ip);
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		/* Oldest branch first: '!' taken, '.' not taken. */
		fputc(' ', f);
		for (k = p->payload.tnt.bit_size; k > 0; k--)
			fputc((p->payload.tnt.payload >> (k - 1)) & 1 ? '!' : '.', f);
		fprintf(f, "  (%u)", p->payload.tnt.bit_size);
		break;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_exec)
			fprintf(f, " exec cs.l=%u cs.d=%u",
				p->payload.mode.bits.exec.csl,
				p->payload.mode.bits.exec.csd);
		else
			fprintf(f, " tsx intx=%u abrt=%u",
				p->payload.mode.bits.tsx.intx,
				p->payload.mode.bits.tsx.abrt);
		break;
	case ppt_pip:
		fprintf(f, " cr3=%016" PRIx64 " nr=%u", p->payload.pip.cr3,
			p->payload.pip.nr);
		break;
	case ppt_tsc:
		fprintf(f, " %" PRIx64, p->payload.tsc.tsc);
		break;
	case ppt_cbr:
		fprintf(f, " %u", p->payload.cbr.ratio);
		break;
	case ppt_tma:
		fprintf(f, " ctc=%x fc=%x", p->payload.tma.ctc, p->payload.tma.fc);
		break;
	case ppt_mtc:
		fprintf(f, " %x", p->payload.mtc.ctc);
		break;
	case ppt_cyc:
		fprintf(f, " %" PRIx64, p->payload.cyc.value);
		break;
	case ppt_vmcs:
		fprintf(f, " %" PRIx64, p->payload.vmcs.base);
		break;
	case ppt_mnt:
		fprintf(f, " %" PRIx64, p->payload.mnt.payload);
		break;
	case ppt_exstop:
		fprintf(f, " ip=%u", p->payload.exstop.ip);
		break;
	case ppt_mwait:
		fprintf(f, " hints=%x ext=%x", p->payload.mwait.hints,
			p->payload.mwait.ext);
		break;
	case ppt_pwre:
		fprintf(f, " c%u.%u%s", p->payload.pwre.state,
			p->payload.pwre.sub_state, p->payload.pwre.hw ? " hw" : "");
		break;
	case ppt_pwrx:
		fprintf(f, " last=c%u deepest=c%u%s%s%s", p->payload.pwrx.last,
			p->payload.pwrx.deepest,
			p->payload.pwrx.interrupt ? " int" : "",
			p->payload.pwrx.store ? " st" : "",
			p->payload.pwrx.autonomous ? " hw" : "");
		break;
	case ppt_ptw:
		fprintf(f, " %u: %" PRIx64 "%s", p->payload.ptw.plc,
			p->payload.ptw.payload, p->payload.ptw.ip ? " ip" : "");
		break;
	default:
		break;
	}
	fputc('\n', f);
}

/* --packets: every packet, resyncing at the next PSB after an error as
 * ptdump does, so one damaged byte costs one PSB period. */
static int dump_packets(struct dump *d, const uint8_t *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet p;
	uint64_t off, last_ip = 0, errors = 0;
	int st;

	pt_config_init(&cfg);
	config_cpu(d->r, &cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -LS_ENOMEM;
	for (;;) {
		st = pt_pkt_sync_forward(dec);
		if (st < 0)
			break;
		last_ip = 0;
		for (;;) {
			off = 0;
			pt_pkt_get_offset(dec, &off);
			st = pt_pkt_next(dec, &p, sizeof(p));
			if (st < 0)
				break;
			if (d->limit && d->nlines >= d->limit)
				goto out;
			print_packet(d->out, off, &p, &last_ip);
			d->nlines++;
		}
		if (st == -pte_eos)
			break;
		fprintf(d->out, "%016" PRIx64 "  error: %s\n", off,
			pt_errstr(pt_errcode(st)));
		errors++;
	}
out:
	pt_pkt_free_decoder(dec);
	return errors ? 1 : 0;
}

struct query_counts {
	uint64_t tnt, tip, events, errors;
	uint64_t ev[ptev_mnt + 1];
};

/* --query: with no image, the decoder cannot know which query comes next,
 * so it asks for a conditional branch and, when the next packet is no TNT
 * (-pte_bad_query), for an indirect branch.  Every TNT bit and every TIP
 * is handed out exactly once, by a query or as part of an event. */
static void query_stream(struct dump *d, const uint8_t *buf, size_t len,
			 struct query_counts *c)
{
	struct pt_config cfg;
	struct pt_query_decoder *q;
	uint64_t ip;
	int st, taken;

	memset(c, 0, sizeof(*c));
	pt_config_init(&cfg);
	config_cpu(d->r, &cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	q = pt_qry_alloc_decoder(&cfg);
	if (!q) {
		c->errors++;
		return;
	}
	st = pt_qry_sync_forward(q, &ip);
	while (st != -pte_eos) {
		if (st >= 0 && (st & pts_event_pending)) {
			struct pt_event ev;

			st = pt_qry_event(q, &ev, sizeof(ev));
			if (st >= 0) {
				c->events++;
				if ((size_t)ev.type <= ptev_mnt)
					c->ev[ev.type]++;
			}
			continue;
		}
		if (st >= 0) {
			st = pt_qry_cond_branch(q, &taken);
			if (st >= 0) {
				c->tnt++;
				continue;
			}
			if (st == -pte_bad_query) {
				st = pt_qry_indirect_branch(q, &ip);
				if (st >= 0) {
					c->tip++;
					continue;
				}
			}
		}
		if (st == -pte_eos)
			break;
		c->errors++;
		st = pt_qry_sync_forward(q, &ip);
	}
	pt_qry_free_decoder(q);
}

static void print_query(FILE *f, const char *who, const struct query_counts *c)
{
	/* TIP packets are handed out as indirect branches and inside the
	 * enabled (TIP.PGE), disabled (TIP.PGD), async disabled (FUP +
	 * TIP.PGD) and async branch (FUP + TIP) events. */
	uint64_t tips = c->tip + c->ev[ptev_enabled] + c->ev[ptev_disabled] +
			c->ev[ptev_async_disabled] + c->ev[ptev_async_branch];

	fprintf(f, "%s tnt %" PRIu64 " tip %" PRIu64 " tip_all %" PRIu64
		" events %" PRIu64 " enabled %" PRIu64 " disabled %" PRIu64
		" async_disabled %" PRIu64 " async_branch %" PRIu64
		" paging %" PRIu64 " overflow %" PRIu64 " exec_mode %" PRIu64
		" errors %" PRIu64 "\n", who, c->tnt, c->tip, tips, c->events,
		c->ev[ptev_enabled], c->ev[ptev_disabled],
		c->ev[ptev_async_disabled], c->ev[ptev_async_branch],
		c->ev[ptev_paging] + c->ev[ptev_async_paging],
		c->ev[ptev_overflow], c->ev[ptev_exec_mode], c->errors);
}

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
	if (got <= 0 || !d->have_cs) {
		fprintf(d->out, "    %016" PRIx64 "  (no code)\n", sb->start);
		return 0;
	}
	n = cs_disasm(d->cs, d->code, (size_t)got, sb->start, sb->ninsn, &insn);
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
		cs_free(insn, n);
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
	fprintf(d->out, "%-7" PRIu32 " loss at offset %" PRIu64 ": %" PRIu64
		" bytes, %" PRIu64 " instructions (%s)\n", d->tid, l->offset,
		l->bytes, l->insns, pt_errstr((enum pt_error_code)e));
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
	if (err == -LS_EBUILDID) {
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
		if (lsd_cs_open(&d->cs, 0) == 0)
			d->have_cs = 1;
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
	if (d->have_cs)
		cs_close(&d->cs);
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
	struct query_counts total;
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
	if (d.mode == MODE_BLOCKS || d.mode == MODE_INSN) {
		ret = dump_blocks(&d, have_id, id, have_tid, tid);
		lsb_reader_close(d.r);
		return ret;
	}
	memset(&total, 0, sizeof(total));
	for (i = 0; i < lsb_reader_nstreams(d.r) && !ret; i++) {
		const struct lsb_stream *s = lsb_reader_stream(d.r, i);
		struct query_counts qc;
		uint8_t *buf = NULL;
		size_t len = 0, k;
		char who[64];
		int err;

		if (!selected(s, have_id, id, have_tid, tid, 0))
			continue;
		err = read_stream(d.r, i, &buf, &len);
		if (err < 0) {
			cli_reader_error(d.r, err);
			ret = 1;
			break;
		}
		stream_who(s, who, sizeof(who));
		d.nlines = 0;
		if (d.mode == MODE_PACKETS) {
			fprintf(d.out, "%s: %zu bytes\n", who, len);
			if (dump_packets(&d, buf, len) < 0) {
				cli_error("out of memory");
				ret = 1;
			}
		} else {
			query_stream(&d, buf, len, &qc);
			print_query(d.out, who, &qc);
			total.tnt += qc.tnt;
			total.tip += qc.tip;
			total.events += qc.events;
			total.errors += qc.errors;
			for (k = 0; k <= ptev_mnt; k++)
				total.ev[k] += qc.ev[k];
		}
		free(buf);
	}
	if (d.mode == MODE_QUERY && !ret)
		print_query(d.out, "total", &total);
	lsb_reader_close(d.r);
	return ret;
}
