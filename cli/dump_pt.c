/* dump_pt.c - the views of `loopscope dump` that read the PT packets
 * themselves, without code: --packets (libipt's packet decoder, like
 * ptdump) and --query (libipt's query decoder, counted per stream). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/dump.h"
#include "ls_err.h"

/* The whole raw PT of stream i, its chunks concatenated: packet views
 * decode across chunk boundaries the way the hardware wrote them. */
int dump_read_stream(struct lsb_reader *r, size_t i, uint8_t **pbuf,
		       size_t *plen)
{
	size_t n = lsb_reader_nchunks(r, i), k, off = 0;
	size_t total = (size_t)lsb_reader_stream_raw(r, i);
	uint8_t *buf = malloc(total ? total : 1);

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
int dump_packets(FILE *out, struct lsb_reader *r, const uint8_t *buf,
		 size_t len, uint64_t limit)
{
	uint64_t nlines = 0;
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet p;
	uint64_t off, last_ip = 0, errors = 0;
	int st;

	pt_config_init(&cfg);
	config_cpu(r, &cfg);
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
			if (limit && nlines >= limit)
				goto out;
			print_packet(out, off, &p, &last_ip);
			nlines++;
		}
		if (st == -pte_eos)
			break;
		fprintf(out, "%016" PRIx64 "  error: %s\n", off,
			pt_errstr(pt_errcode(st)));
		errors++;
	}
out:
	pt_pkt_free_decoder(dec);
	return errors ? 1 : 0;
}

/* --query: with no image, the decoder cannot know which query comes next,
 * so it asks for a conditional branch and, when the next packet is no TNT
 * (-pte_bad_query), for an indirect branch.  Every TNT bit and every TIP
 * is handed out exactly once, by a query or as part of an event. */
void dump_query_stream(struct lsb_reader *r, const uint8_t *buf, size_t len,
		       struct dump_query *c)
{
	struct pt_config cfg;
	struct pt_query_decoder *q;
	uint64_t ip;
	int st, taken;

	memset(c, 0, sizeof(*c));
	pt_config_init(&cfg);
	config_cpu(r, &cfg);
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

void dump_query_print(FILE *f, const char *who, const struct dump_query *c)
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

void dump_query_add(struct dump_query *total, const struct dump_query *c)
{
	size_t k;

	total->tnt += c->tnt;
	total->tip += c->tip;
	total->events += c->events;
	total->errors += c->errors;
	for (k = 0; k <= ptev_mnt; k++)
		total->ev[k] += c->ev[k];
}
