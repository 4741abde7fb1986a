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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode_int.h"
#include "decoder/modfile.h"
#include "ls_crc32.h"
#include "ls_buf.h"
#include "ls_err.h"
#include "ls_out.h"

/* Whether code[0..len) is a direct relative branch: its target is
 * next + the result (modulo 2^64), 0 being a target too. */
static int direct_disp(const uint8_t *c, size_t len, int64_t *rel)
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
		*rel = disp;
		return 1;
	case 0xeb: case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		if (len - i < 2)			/* jmp rel8, loop*, jrcxz */
			return 0;
		*rel = (int8_t)c[i + 1];
		return 1;
	case 0x0f:
		if (len - i < 6 || (c[i + 1] & 0xf0) != 0x80)
			return 0;			/* jcc rel32 */
		memcpy(&disp, c + i + 2, 4);
		*rel = disp;
		return 1;
	default:
		if ((c[i] & 0xf0) == 0x70 && len - i >= 2) {	/* jcc rel8 */
			*rel = (int8_t)c[i + 1];
			return 1;
		}
		return 0;
	}
}

/* Sweeps file bytes [off, off + n) of a module, its first byte at runtime
 * address runtime: the targets go to *rel as offsets from runtime.  The
 * sweep is capstone's (lsd_sweep_step(); capstone alone took 2.2e9 Ir for
 * libsqlite3 and libc). */
static int sweep(csh cs, int mode, const uint8_t *data, uint64_t off, uint64_t n,
		 uint64_t runtime, struct lsd_hrange *hr)
{
	const uint8_t *p = data + off;
	size_t len = (size_t)n, cap = 0;
	uint64_t a = runtime;
	cs_insn *in = lsd_cs.malloc(cs);
	int err = 0, size;

	if (!in)
		return -LS_ENOMEM;
	while (len) {
		const uint8_t *here = p;
		int64_t disp;

		if ((size = lsd_sweep_step(cs, in, mode, &p, &len, &a)) == 0)
			continue;	/* data or padding: a byte stepped */
		/* a is the address after the instruction. */
		if (!direct_disp(here, (size_t)size, &disp))
			continue;
		if (LS_GROW(hr->rel, hr->n + 1, cap, 1024)) {
			err = -LS_ENOMEM;
			break;
		}
		hr->rel[hr->n++] = a + (uint64_t)disp - runtime;
	}
	lsd_cs.free(in, 1);
	return err;
}

/* The heads cache: one file per module, DIR/<build-id>.heads, holding the
 * sweep of every range swept so far.  The sweep is most of lsd_open()'s
 * time for short runs (libc alone is ~0.1 s of capstone), and its result
 * depends on the module's bytes, the range and capstone only.  A file
 * whose magic, version, capstone version, build-id, module size or CRC
 * do not match is ignored, and rewritten after a new sweep. */
#define HC_MAGIC "LSHEADS\n"
/* 2: 32-bit modules swept as 32-bit code; 3: the header padded to a
 * multiple of 8, so a mapped file's targets are aligned */
#define HC_VERSION 3u

static int hc_path(const struct lsb_module *m, char *path, size_t len)
{
	if (!m)
		return -LS_ENOENT;
	return lsd_image_cache_path(m->build_id, m->build_id_len, ".heads", path, len);
}

/* Bytes of the header: magic, version, capstone version, build-id length
 * and bytes, module size, range count, 4 bytes of zeros. */
#define HC_HEAD (8 + 4 + 4 + 4 + LSB_BUILD_ID_MAX + 8 + 8 + 4)

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static void hc_header(uint8_t *h, const struct lsb_module *m, uint64_t modlen,
		      uint64_t nranges)
{
	memset(h, 0, HC_HEAD);
	memcpy(h, HC_MAGIC, 8);
	put32(h + 8, HC_VERSION);
	put32(h + 12, lsd_cslib_version());
	put32(h + 16, m->build_id_len);
	memcpy(h + 20, m->build_id, m->build_id_len);
	put64(h + 20 + LSB_BUILD_ID_MAX, modlen);
	put64(h + 28 + LSB_BUILD_ID_MAX, nranges);
}

/* Whether hr's targets lie in hm's mapped cache file (not malloc'd). */
static int hr_mapped(const struct lsd_hmod *hm, const struct lsd_hrange *hr)
{
	const uint8_t *p = (const uint8_t *)hr->rel, *m = hm->map;

	return m && p >= m && p < m + hm->maplen;
}

static void hm_clear(struct lsd_hmod *hm)
{
	size_t i;

	for (i = 0; i < hm->n; i++)
		if (!hr_mapped(hm, &hm->r[i]))
			free(hm->r[i].rel);
	free(hm->r);
	hm->r = NULL;
	hm->n = 0;
	if (hm->map)
		lsd_modfile_unmap(hm->map, hm->maplen);
	hm->map = NULL;
	hm->maplen = 0;
}

/* Loads the cache file of module m into hm: mapped, its ranges' targets
 * read where they lie (the format's fields are 8-byte aligned from the
 * page the mapping starts at).  Any mismatch leaves hm empty: the
 * ranges are swept again. */
static void hc_load(struct lsd_hmod *hm, const struct lsb_module *m, uint64_t modlen)
{
	_Static_assert(HC_HEAD % 8 == 0, "the targets read in place are aligned");
	char path[4200];
	uint8_t want[HC_HEAD];
	const uint8_t *buf;
	size_t size, off, i, nr;

	hm->loaded = 1;
	if (hc_path(m, path, sizeof(path)) < 0 ||
	    lsd_modfile_map(path, &hm->map, &hm->maplen) < 0) {
		hm->map = NULL;
		hm->maplen = 0;
		return;
	}
	buf = hm->map;
	size = hm->maplen;
	if (size < HC_HEAD + 4)
		goto bad;
	nr = (size_t)get64(buf + 28 + LSB_BUILD_ID_MAX);
	hc_header(want, m, modlen, nr);
	if (memcmp(buf, want, HC_HEAD) ||
	    get32(buf + size - 4) != ls_crc32(0, buf, size - 4) ||
	    nr > size / 24 || !(hm->r = calloc(nr ? nr : 1, sizeof(*hm->r))))
		goto bad;
	for (i = 0, off = HC_HEAD; i < nr; i++) {
		struct lsd_hrange *hr = &hm->r[i];

		if (size - 4 - off < 24)
			goto bad;
		hr->lo = get64(buf + off);
		hr->hi = get64(buf + off + 8);
		hr->n = (size_t)get64(buf + off + 16);
		off += 24;
		if (hr->n > (size - 4 - off) / 8)
			goto bad;
		hr->rel = (uint64_t *)(void *)((uint8_t *)hm->map + off);
		off += hr->n * 8;
		hm->n = i + 1;
	}
	if (off != size - 4)
		goto bad;
	return;
bad:
	hm_clear(hm);
}

/* Writes hm to the cache (a temporary name, then renamed, so a reader
 * never sees half a file).  Failures only cost a sweep next time. */
static void hc_save(struct lsd_hmod *hm, const struct lsb_module *m, uint64_t modlen)
{
	char path[4200];
	uint8_t h[HC_HEAD], w[24];
	struct ls_out o;
	uint32_t crc;
	size_t i;
	FILE *f;
	int ok;

	hm->dirty = 0;
	if (hc_path(m, path, sizeof(path)) < 0 || ls_out_open(&o, path, "wb") < 0)
		return;
	f = o.f;
	hc_header(h, m, modlen, hm->n);
	crc = ls_crc32(0, h, sizeof(h));
	ok = fwrite(h, 1, sizeof(h), f) == sizeof(h);
	for (i = 0; ok && i < hm->n; i++) {
		const struct lsd_hrange *hr = &hm->r[i];

		put64(w, hr->lo);
		put64(w + 8, hr->hi);
		put64(w + 16, hr->n);
		crc = ls_crc32(crc, w, sizeof(w));
		ok = fwrite(w, 1, sizeof(w), f) == sizeof(w);
		if (ok && hr->n) {	/* a range without branches has no rel */
			crc = ls_crc32(crc, hr->rel, hr->n * 8);
			ok = fwrite(hr->rel, 8, hr->n, f) == hr->n;
		}
	}
	put32(w, crc);
	ok = ok && fwrite(w, 1, 4, f) == 4;
	ls_out_finish(&o, ok ? 0 : -LS_EIO);
}

/* The sweep of [lo, hi) of module mod, from the cache or done now. */
static int hc_range(struct lsd_decoder *d, csh cs, int mode, size_t mod,
		    const struct lsd_module_bytes *mb, uint64_t lo, uint64_t hi,
		    uint64_t rt, const struct lsd_hrange **out)
{
	const struct lsb_module *m = d->r ? lsb_reader_module(d->r, mod) : NULL;
	struct lsd_hmod *hm;
	struct lsd_hrange hr = { lo, hi, NULL, 0 };
	size_t i;
	void *np;
	int err;

	if (mod >= d->nhmods) {
		np = ls_reallocarray(d->hmods, mod + 1, sizeof(*d->hmods));
		if (!np)
			return -LS_ENOMEM;
		d->hmods = np;
		memset(d->hmods + d->nhmods, 0, (mod + 1 - d->nhmods) * sizeof(*d->hmods));
		d->nhmods = mod + 1;
	}
	hm = &d->hmods[mod];
	if (!hm->loaded && m)
		hc_load(hm, m, mb->len);
	hm->loaded = 1;
	for (i = 0; i < hm->n; i++)
		if (hm->r[i].lo == lo && hm->r[i].hi == hi) {
			*out = &hm->r[i];
			return 0;
		}
	err = sweep(cs, mode, mb->data, lo, hi - lo, rt, &hr);
	if (err < 0 || !(np = ls_reallocarray(hm->r, hm->n + 1, sizeof(*hm->r)))) {
		free(hr.rel);
		return err < 0 ? err : -LS_ENOMEM;
	}
	hm->r = np;
	hm->r[hm->n] = hr;
	*out = &hm->r[hm->n++];
	hm->dirty = m != NULL;
	return 0;
}

/* Clips [*lo, *hi) (file offsets) to what the mapping m covers of the
 * module's bytes, *rt the address of *lo.  Returns whether anything is
 * left. */
static int clip_range(const struct lsd_mapping *m, const struct lsd_module_bytes *mb,
		      uint64_t *lo, uint64_t *hi, uint64_t *rt)
{
	uint64_t mlo = m->pgoff, mhi = m->pgoff + (m->end - m->start);

	if (*lo < mlo)
		*lo = mlo;
	if (*hi > mhi)
		*hi = mhi;
	if (*hi > mb->len)
		*hi = mb->len;
	*rt = m->start + (*lo - m->pgoff);
	return *lo < *hi;
}

/* Holds the heads of [lo, hi) (file offsets of code), clipped to the
 * mapping m, in a bitmap (lsd_addrset_cover()).  Returns 0 (a range not
 * covered leaves its heads hashed) or -LS_ENOMEM. */
static int cover_range(struct lsd_decoder *d, const struct lsd_mapping *m,
		       const struct lsd_module_bytes *mb, uint64_t lo, uint64_t hi)
{
	uint64_t rt;
	int err;

	if (!clip_range(m, mb, &lo, &hi, &rt))
		return 0;
	err = lsd_addrset_cover(&d->sp->heads, rt, rt + (hi - lo));
	return err < 0 ? err : 0;
}

/* Whether section scn (its header in *sh) holds code. */
static int code_section(Elf_Scn *scn, GElf_Shdr *sh)
{
	return gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS &&
	       (sh->sh_flags & SHF_EXECINSTR);
}

/* Adds the heads of the part of [lo, hi) (file offsets of executable
 * code) that the mapping m covers. */
static int sweep_range(struct lsd_decoder *d, csh cs, int mode,
		       const struct lsd_mapping *m, const struct lsd_module_bytes *mb,
		       uint64_t lo, uint64_t hi)
{
	const struct lsd_arange *r;
	const struct lsd_hrange *hr;
	uint64_t rt;
	size_t i;
	int err;

	if (!clip_range(m, mb, &lo, &hi, &rt))
		return 0;
	if ((err = hc_range(d, cs, mode, m->module, mb, lo, hi, rt, &hr)) < 0)
		return err;
	/* Heads in the range covered are bits; others (targets in other
	 * code, or where nothing is covered) are hashed. */
	r = lsd_addrset_covers(&d->sp->heads, rt, rt + (hi - lo));
	if (!r && (err = lsd_addrset_reserve(&d->sp->heads, hr->n)) < 0)
		return err;
	for (i = 0; i < hr->n; i++) {
		const uint64_t a = hr->rel[i] + rt;

		if (r && a && a - r->lo < r->hi - r->lo)
			lsd_arange_add(&d->sp->heads, r, a);
		else if (lsd_addrset_add(&d->sp->heads, a) < 0)
			return -LS_ENOMEM;
	}
	return 0;
}

int lsd_heads_static(struct lsd_decoder *d)
{
	csh cs[LSD_MODE_MAX] = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < LSD_MODE_MAX && !err; i++)
		err = lsd_cs_open_mode(&cs[i], 0, (int)i);
	elf_version(EV_CURRENT);
	for (i = 0; i < d->sp->img->nmaps && !err; i++) {
		const struct lsd_mapping *m = &d->sp->img->maps[i];
		const struct lsd_module_bytes *mb = &d->sp->img->mods[m->module];
		Elf *e;
		Elf_Scn *scn = NULL;
		int any = 0, mode;

		if (!mb->data)
			continue;
		mode = lsd_cs_elf_mode(mb->data, mb->len);
		e = elf_memory(mb->data, mb->len);
		if (e && elf_kind(e) == ELF_K_ELF) {
			GElf_Shdr sh;
			uint64_t lo = UINT64_MAX, hi = 0;

			/* the heads' bitmap: from the mapping's first code
			 * to its last (its sections of code, and what lies
			 * between them) */
			while ((scn = elf_nextscn(e, scn))) {
				if (!code_section(scn, &sh))
					continue;
				lo = sh.sh_offset < lo ? sh.sh_offset : lo;
				hi = sh.sh_offset + sh.sh_size > hi ? sh.sh_offset + sh.sh_size : hi;
			}
			if (lo < hi)
				err = cover_range(d, m, mb, lo, hi);
			scn = NULL;
			while (!err && (scn = elf_nextscn(e, scn))) {
				if (!code_section(scn, &sh))
					continue;
				any = 1;
				err = sweep_range(d, cs[mode], mode, m, mb, sh.sh_offset,
						  sh.sh_offset + sh.sh_size);
			}
		}
		if (e)
			elf_end(e);
		/* Raw dumps and ELF files without section headers: the whole
		 * mapping is code. */
		if (!any && !err && !(err = cover_range(d, m, mb, m->pgoff, UINT64_MAX)))
			err = sweep_range(d, cs[mode], mode, m, mb, m->pgoff, UINT64_MAX);
	}
	for (i = 0; i < LSD_MODE_MAX; i++)
		if (cs[i])
			lsd_cs.close(&cs[i]);
	for (i = 0; !err && d->r && i < d->nhmods; i++)
		if (d->hmods[i].dirty)
			hc_save(&d->hmods[i], lsb_reader_module(d->r, i),
				d->sp->img->mods[i].len);
	return err;
}

void lsd_heads_release(struct lsd_decoder *d)
{
	size_t i;

	for (i = 0; i < d->nhmods; i++)
		hm_clear(&d->hmods[i]);
	free(d->hmods);
	d->hmods = NULL;
	d->nhmods = 0;
}

/* Last-IP decompression of an IP packet (Intel SDM 33.4.2.2). */
uint64_t lsd_ip_update(uint64_t last, const struct pt_packet_ip *ip)
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
 * the span up to the next PSB, as they end the block decoder's.  From
 * each PSB the fast walk (pktscan.c) goes first; where it stops, libipt's
 * packet decoder goes on from the last PSB the walk passed, up to the next
 * PSB.  libipt keeps no state from packet to packet but its position and
 * its sync point, which matters only at an error right at that PSB (one
 * the walk found whole), so it decodes what it would have decoded. */
struct pt_packet_decoder *lsd_pkt_decoder(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	return pt_pkt_alloc_decoder(&cfg);
}

int lsd_heads_packets(struct lsd_decoder *d, const uint8_t *buf, size_t len)
{
	return lsd_heads_packets_into(&d->sp->heads, buf, len);
}

int lsd_heads_packets_into(struct lsd_addrset *set, const uint8_t *buf, size_t len)
{
	struct pt_packet_decoder *pd;
	struct pt_packet p;
	uint64_t last = 0, off = 0;
	size_t psb;
	int st, err = 0, fast, first = 0;

	pd = lsd_pkt_decoder(buf, len);
	if (!pd)
		return -LS_ENOMEM;
	st = pt_pkt_sync_forward(pd);
	fast = st >= 0 && pt_pkt_get_offset(pd, &off) >= 0;
	while (st >= 0 && !err) {
		if (fast) {	/* at the PSB at off */
			fast = 0;
			err = lsd_pkt_scan_ips(buf, len, (size_t)off, &psb, set);
			if (err <= 0 || pt_pkt_sync_set(pd, psb) < 0)
				break;
			err = 0;
			first = 1;
		}
		st = pt_pkt_next(pd, &p, sizeof(p));
		if (st < 0) {
			if (st == -pte_eos)
				break;
			st = pt_pkt_sync_forward(pd);
			last = 0;
			fast = st >= 0 && pt_pkt_get_offset(pd, &off) >= 0;
			continue;
		}
		switch (p.type) {
		case ppt_psb:
			last = 0;
			/* Not the PSB libipt was set to: the walk again. */
			if (!first && pt_pkt_get_offset(pd, &off) >= 0) {
				off -= p.size;
				fast = 1;
			}
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_fup:
			if (p.payload.ip.ipc == pt_ipc_suppressed)
				break;
			last = lsd_ip_update(last, &p.payload.ip);
			if (lsd_addrset_add(set, last) < 0)
				err = -LS_ENOMEM;
			break;
		case ppt_tip_pgd:
			if (p.payload.ip.ipc != pt_ipc_suppressed)
				last = lsd_ip_update(last, &p.payload.ip);
			break;
		default:
			break;
		}
		first = 0;
	}
	pt_pkt_free_decoder(pd);
	return err;
}
