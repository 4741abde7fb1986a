/* heads.c - the block heads, found without decoding the trace.
 *
 * A head is an address control reaches other than by falling through:
 *   - the target of every direct jump, call, conditional branch, loop and
 *     jrcxz in the code of the executed modules (a linear sweep of their
 *     executable sections: cost grows with the code, not the trace);
 *   - every IP the trace itself names: TIP targets (indirect branches,
 *     returns that were not compressed), TIP.PGE (where tracing resumes)
 *     and FUP (PSB+ positions, interrupted IPs), decompressed from the
 *     packets alone.
 * Addresses after branches need no entry: libipt's blocks end at every
 * branch.  The set is the same whatever the order of the trace, so the
 * static blocks are too; they are the leaders of the classical basic
 * blocks, plus the indirect targets the run actually took.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

/* The target of a direct relative branch at code[0..len), or 0. */
static uint64_t direct_target(const uint8_t *c, size_t len, uint64_t next)
{
	size_t i = 0;
	int32_t disp;

	while (i < len && (c[i] == 0x66 || c[i] == 0x67 || c[i] == 0xf2 ||
			   c[i] == 0xf3 || c[i] == 0x2e || c[i] == 0x3e ||
			   (c[i] & 0xf0) == 0x40))
		i++;
	if (i >= len)
		return 0;
	switch (c[i]) {
	case 0xe8: case 0xe9:			/* call/jmp rel32 */
		if (len - i < 5)
			return 0;
		memcpy(&disp, c + i + 1, 4);
		return next + (uint64_t)(int64_t)disp;
	case 0xeb: case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		if (len - i < 2)			/* jmp rel8, loop*, jrcxz */
			return 0;
		return next + (uint64_t)(int64_t)(int8_t)c[i + 1];
	case 0x0f:
		if (len - i < 6 || (c[i + 1] & 0xf0) != 0x80)
			return 0;			/* jcc rel32 */
		memcpy(&disp, c + i + 2, 4);
		return next + (uint64_t)(int64_t)disp;
	default:
		if ((c[i] & 0xf0) == 0x70 && len - i >= 2)	/* jcc rel8 */
			return next + (uint64_t)(int64_t)(int8_t)c[i + 1];
		return 0;
	}
}

/* Sweeps file bytes [off, off + n) of a module mapped at runtime address
 * base + (off - pgoff). */
static int sweep(struct lsd_decoder *d, csh cs, const uint8_t *data,
		 uint64_t off, uint64_t n, uint64_t runtime)
{
	const uint8_t *p = data + off;
	size_t len = (size_t)n;
	uint64_t a = runtime;
	cs_insn *in = cs_malloc(cs);
	int err = 0;

	if (!in)
		return -LS_ENOMEM;
	while (len) {
		const uint8_t *here = p;
		uint64_t t;

		if (!cs_disasm_iter(cs, &p, &len, &a, in)) {
			/* Data or padding: step a byte and go on. */
			p++;
			len--;
			a++;
			continue;
		}
		t = direct_target(here, in->size, a);
		if (t && lsd_addrset_add(&d->sp->heads, t) < 0) {
			err = -LS_ENOMEM;
			break;
		}
	}
	cs_free(in, 1);
	return err;
}

/* Sweeps the part of [lo, hi) (file offsets of executable code) that the
 * mapping m covers. */
static int sweep_range(struct lsd_decoder *d, csh cs, const struct lsd_mapping *m,
		       const struct lsd_module_bytes *mb, uint64_t lo, uint64_t hi)
{
	uint64_t mlo = m->pgoff, mhi = m->pgoff + (m->end - m->start);

	if (lo < mlo)
		lo = mlo;
	if (hi > mhi)
		hi = mhi;
	if (hi > mb->len)
		hi = mb->len;
	if (lo >= hi)
		return 0;
	return sweep(d, cs, mb->data, lo, hi - lo, m->start + (lo - m->pgoff));
}

int lsd_heads_static(struct lsd_decoder *d)
{
	csh cs;
	size_t i;
	int err = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -LS_EUNSUP;
	elf_version(EV_CURRENT);
	for (i = 0; i < d->sp->img->nmaps && !err; i++) {
		const struct lsd_mapping *m = &d->sp->img->maps[i];
		const struct lsd_module_bytes *mb = &d->sp->img->mods[m->module];
		Elf *e;
		Elf_Scn *scn = NULL;
		int any = 0;

		if (!mb->data)
			continue;
		e = elf_memory(mb->data, mb->len);
		if (e && elf_kind(e) == ELF_K_ELF) {
			GElf_Shdr sh;

			while (!err && (scn = elf_nextscn(e, scn))) {
				if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
				    !(sh.sh_flags & SHF_EXECINSTR))
					continue;
				any = 1;
				err = sweep_range(d, cs, m, mb, sh.sh_offset,
						  sh.sh_offset + sh.sh_size);
			}
		}
		if (e)
			elf_end(e);
		/* Raw dumps and ELF files without section headers: the whole
		 * mapping is code. */
		if (!any && !err)
			err = sweep_range(d, cs, m, mb, m->pgoff, UINT64_MAX);
	}
	cs_close(&cs);
	return err;
}

/* Last-IP decompression of an IP packet (Intel SDM 33.4.2.2). */
static uint64_t ip_update(uint64_t last, const struct pt_packet_ip *ip)
{
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffull) | (ip->ip & 0xffffull);
	case pt_ipc_update_32:
		return (last & ~0xffffffffull) | (ip->ip & 0xffffffffull);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffull) | (ip->ip & 0xffffffffffffull);
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

/* Adds the IPs the packets of buf name.  Decoding errors end the scan of
 * the span up to the next PSB, as they end the block decoder's. */
int lsd_heads_packets(struct lsd_decoder *d, const uint8_t *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd;
	struct pt_packet p;
	uint64_t last = 0;
	int st, err = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return -LS_ENOMEM;
	for (st = pt_pkt_sync_forward(pd); st >= 0 && !err; ) {
		st = pt_pkt_next(pd, &p, sizeof(p));
		if (st < 0) {
			if (st == -pte_eos)
				break;
			st = pt_pkt_sync_forward(pd);
			last = 0;
			continue;
		}
		switch (p.type) {
		case ppt_psb:
			last = 0;
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_fup:
			if (p.payload.ip.ipc == pt_ipc_suppressed)
				break;
			last = ip_update(last, &p.payload.ip);
			if (lsd_addrset_add(&d->sp->heads, last) < 0)
				err = -LS_ENOMEM;
			break;
		case ppt_tip_pgd:
			if (p.payload.ip.ipc != pt_ipc_suppressed)
				last = ip_update(last, &p.payload.ip);
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(pd);
	return err;
}
