/* raw_import.c - a raw Intel PT capture plus memory images (the inputs of
 * libipt's ptxed: --pt FILE[:FROM-TO], --cpu, --elf FILE[:BASE],
 * --raw FILE[:FROM-TO]:ADDR, --mtc-freq, --nom-freq, --cpuid-0x15.*,
 * --filter:addrN_*) into a trace bundle. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_err.h"
#include "ls_buildid.h"
#include "perf_convert.h"
#include "record.h"

#define PIECE (256u << 10)

static int rfail(char *errbuf, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int rfail(char *errbuf, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int mmap_event(struct lsb_writer *w, const struct lsb_module *m,
		      uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot)
{
	struct lsb_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LSB_EV_MMAP;
	ev.cpu = -1;
	ev.addr = addr;
	ev.len = len;
	ev.pgoff = pgoff;
	ev.prot = prot;
	ev.name = m->path;
	memcpy(ev.build_id, m->build_id, m->build_id_len);
	ev.build_id_len = m->build_id_len;
	return lsb_writer_event(w, &ev);
}

/* One mmap event per PT_LOAD segment, moved so the lowest one starts at
 * base when a base was given. */
static int elf_segments(struct lsb_writer *w, const struct lsb_module *m,
			const struct lsr_raw_image *img, const void *data,
			size_t len, char *errbuf, size_t errlen)
{
	Elf *e;
	size_t i, nph;
	uint64_t lo = UINT64_MAX, bias = 0;
	int err = 0, nload = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -LS_ELF;
	e = elf_memory((char *)(uintptr_t)data, len);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph) != 0) {
		if (e)
			elf_end(e);
		return rfail(errbuf, errlen, -LS_ELF, "'%s': not an ELF file", img->path);
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < lo)
			lo = ph.p_vaddr & ~0xfffull;
	}
	if (img->has_base && lo != UINT64_MAX)
		bias = img->base - lo;
	for (i = 0; i < nph && err >= 0; i++) {
		GElf_Phdr ph;
		uint32_t prot;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		prot = ((ph.p_flags & PF_R) ? 1 : 0) | ((ph.p_flags & PF_W) ? 2 : 0) |
		       ((ph.p_flags & PF_X) ? 4 : 0);
		err = mmap_event(w, m, ph.p_vaddr + bias, ph.p_memsz, ph.p_offset, prot);
		nload++;
	}
	elf_end(e);
	if (err < 0)
		return rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	if (!nload)
		return rfail(errbuf, errlen, -LS_ELF, "'%s': no loadable segments",
			     img->path);
	return 0;
}

/* [from, to) of a file of len bytes, to 0 meaning its end, as ptxed
 * takes FILE:FROM-TO.  Returns 0 or -LS_EINVAL. */
static int file_range(const char *path, uint64_t len, uint64_t from,
		      uint64_t *to, char *errbuf, size_t errlen)
{
	if (!*to)
		*to = len;
	if (from >= len || *to > len || *to <= from)
		return rfail(errbuf, errlen, -LS_EINVAL,
			     "'%s': range 0x%" PRIx64 "-0x%" PRIx64 " is not inside its %"
			     PRIu64 " bytes", path, from, *to, len);
	return 0;
}

static int add_image(struct lsb_writer *w, const struct lsr_raw_image *img,
		     char *errbuf, size_t errlen)
{
	struct lsb_module m;
	void *map;
	const uint8_t *data;
	size_t maplen, len;
	uint64_t to = img->to;
	int err, n;

	err = ls_map_file(img->path, &map, &maplen);
	if (err < 0)
		return rfail(errbuf, errlen, err, "'%s': cannot read (%s)", img->path,
			     ls_errstr(err));
	data = map;
	len = maplen;
	if (img->raw) {
		/* A range of a page-cache dump: only its bytes are the image. */
		err = file_range(img->path, maplen, img->from, &to, errbuf, errlen);
		if (err < 0) {
			ls_unmap(map, maplen);
			return err;
		}
		data += img->from;
		len = (size_t)(to - img->from);
	}
	memset(&m, 0, sizeof(m));
	m.path = img->path;
	m.file_size = len;
	n = img->raw ? 0 : ls_buildid_mem(data, len, m.build_id, LSB_BUILD_ID_MAX);
	if (n < 0) {
		ls_unmap(map, maplen);
		return rfail(errbuf, errlen, -LS_ELF, "'%s': not an ELF file", img->path);
	}
	if (n == 0)
		n = ls_buildid_hash(data, len, m.build_id);
	m.build_id_len = (uint8_t)n;
	err = lsb_writer_module(w, &m, data, len);
	if (err < 0) {
		err = rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	} else if (img->raw) {
		err = mmap_event(w, &m, img->base, len, 0, 5);
		if (err < 0)
			err = rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	} else {
		err = elf_segments(w, &m, img, data, len, errbuf, errlen);
	}
	ls_unmap(map, maplen);
	return err;
}

static int meta_num(struct lsb_writer *w, const char *key, uint64_t v,
		    int hex)
{
	char b[32];

	snprintf(b, sizeof(b), hex ? "0x%" PRIx64 : "%" PRIu64, v);
	return lsb_writer_meta(w, key, b);
}

/* cpu.* as o->cpu says, and the decoder settings ptxed takes as options,
 * under the keys the decoder reads (decoder/open.c). */
static int write_meta(struct lsb_writer *w, const struct lsr_raw_opts *o,
		      char *errbuf, size_t errlen)
{
	unsigned fam, mod, step, n;
	int err;

	err = lsb_writer_meta(w, "backend", "pt");
	if (err >= 0)
		err = lsb_writer_meta(w, "import.source", "raw-pt");
	if (err >= 0)
		err = lsb_writer_meta(w, "import.cpu", o->cpu ? o->cpu : "none");
	if (err < 0 || !o->cpu || !strcmp(o->cpu, "none")) {
		/* no cpu.*: the decoder applies no errata */
	} else if (!strcmp(o->cpu, "auto")) {
		err = lsr_write_cpu_meta(w);
	} else if (lsr_parse_cpu(o->cpu, &fam, &mod, &step) < 0) {
		return rfail(errbuf, errlen, -LS_EINVAL,
			     "bad cpu '%s' (want none, auto or FAMILY/MODEL[/STEPPING])",
			     o->cpu);
	} else {
		err = lsb_writer_meta(w, "cpu.vendor", "GenuineIntel");
		if (err >= 0)
			err = meta_num(w, "cpu.family", fam, 0);
		if (err >= 0)
			err = meta_num(w, "cpu.model", mod, 0);
		if (err >= 0)
			err = meta_num(w, "cpu.stepping", step, 0);
	}
	if (err >= 0 && (o->have & LSR_RAW_MTC_FREQ))
		err = meta_num(w, "pt.mtc_freq", o->mtc_freq, 0);
	if (err >= 0 && (o->have & LSR_RAW_NOM_FREQ))
		err = meta_num(w, "pt.nom_freq", o->nom_freq, 0);
	if (err >= 0 && (o->have & LSR_RAW_CPUID_EAX))
		err = meta_num(w, "pt.cpuid_0x15_eax", o->cpuid_0x15_eax, 0);
	if (err >= 0 && (o->have & LSR_RAW_CPUID_EBX))
		err = meta_num(w, "pt.cpuid_0x15_ebx", o->cpuid_0x15_ebx, 0);
	if (err >= 0 && o->addr_cfg)
		err = meta_num(w, "pt.addr_cfg", o->addr_cfg, 1);
	for (n = 0; n < 4 && err >= 0; n++) {
		char key[32];

		if (!(o->addr_cfg >> (4 * n) & 0xf))
			continue;
		snprintf(key, sizeof(key), "pt.addr%u_a", n);
		err = meta_num(w, key, o->addr_a[n], 1);
		snprintf(key, sizeof(key), "pt.addr%u_b", n);
		if (err >= 0)
			err = meta_num(w, key, o->addr_b[n], 1);
	}
	if (err < 0)
		return rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	return 0;
}

/* Stream id of capture pt, as the kind and cpu given. */
static int write_stream(struct lsb_writer *w, uint32_t id,
			const struct lsr_raw_pt *pt, int32_t cpu, char *errbuf,
			size_t errlen)
{
	struct lsb_stream s;
	struct stat sb;
	uint8_t *buf;
	uint64_t left, to = pt->to;
	ssize_t n = 0;
	int fd, err = 0;

	fd = open(pt->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rfail(errbuf, errlen, -LS_ENOENT, "'%s': cannot open", pt->path);
	if (fstat(fd, &sb) < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': cannot stat", pt->path);
	else if (pt->from || pt->to)
		err = file_range(pt->path, (uint64_t)sb.st_size, pt->from, &to,
				 errbuf, errlen);
	else
		to = UINT64_MAX;	/* all of it, a pipe included */
	if (err >= 0 && pt->from && lseek(fd, (off_t)pt->from, SEEK_SET) < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': cannot seek", pt->path);
	if (err < 0) {
		close(fd);
		return err;
	}
	left = to - pt->from;
	memset(&s, 0, sizeof(s));
	s.id = id;
	s.kind = cpu < 0 ? LSB_STREAM_THREAD : LSB_STREAM_CPU;
	s.cpu = cpu;
	buf = malloc(PIECE);
	err = buf ? lsb_writer_stream(w, &s) : -LS_ENOMEM;
	while (err >= 0 && left &&
	       (n = read(fd, buf, left < PIECE ? (size_t)left : PIECE)) > 0) {
		err = lsb_writer_pt(w, id, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	if (err >= 0 && n < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': read failed", pt->path);
	else if (err >= 0)
		err = lsb_writer_stream_end(w, id);
	if (err < 0 && errbuf && !errbuf[0])
		rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	free(buf);
	close(fd);
	return err < 0 ? err : 0;
}

int lsr_raw_pt_import(struct lsb_writer *w, const struct lsr_raw_opts *o,
		      const struct lsr_raw_image *img, size_t nimg,
		      char *errbuf, size_t errlen)
{
	struct lsr_pevent_opts *po = o ? o->pevent : NULL;
	size_t i, k, nprim = 0;
	int err;

	if (!w || !o || o->size < sizeof(*o) || !o->npts || !o->pts ||
	    (nimg && !img))
		return -LS_EINVAL;
	for (i = 0; po && i < po->nfiles; i++)
		nprim += po->files[i].primary != 0;
	if (o->npts > 1 ? nprim != o->npts : nprim > 1)
		return rfail(errbuf, errlen, -LS_EINVAL,
			     "%zu raw PT captures and %zu primary sideband files: "
			     "each capture of a CPU needs that CPU's sideband", o->npts, nprim);
	err = write_meta(w, o, errbuf, errlen);
	for (i = 0; i < nimg && err >= 0; i++)
		err = add_image(w, &img[i], errbuf, errlen);
	if (err >= 0 && po)
		err = lsr_pevent_convert(w, po, NULL, errbuf, errlen);
	for (i = k = 0; i < o->npts && err >= 0; i++) {
		int32_t cpu = -1;

		/* The i-th capture is the CPU of the i-th primary file. */
		while (po && k < po->nfiles && !po->files[k].primary)
			k++;
		if (po && k < po->nfiles)
			cpu = po->files[k++].cpu;
		err = write_stream(w, (uint32_t)i, &o->pts[i], cpu, errbuf, errlen);
	}
	return err < 0 ? err : 0;
}
