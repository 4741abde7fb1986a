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

#define RAW_STREAM 0
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

int lsr_raw_pt_import(struct lsb_writer *w, const struct lsr_raw_opts *o,
		      const struct lsr_raw_image *img, size_t nimg,
		      char *errbuf, size_t errlen)
{
	struct lsb_stream s;
	struct stat sb;
	uint8_t *buf;
	uint64_t left, to;
	ssize_t n = 0;
	size_t i;
	int fd, err;

	if (!w || !o || o->size < sizeof(*o) || !o->pt_path || (nimg && !img))
		return -LS_EINVAL;
	err = write_meta(w, o, errbuf, errlen);
	if (err < 0)
		return err;
	for (i = 0; i < nimg; i++) {
		err = add_image(w, &img[i], errbuf, errlen);
		if (err < 0)
			return err;
	}
	fd = open(o->pt_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rfail(errbuf, errlen, -LS_ENOENT, "'%s': cannot open", o->pt_path);
	to = o->pt_to;
	if (fstat(fd, &sb) < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': cannot stat", o->pt_path);
	else if (o->pt_from || o->pt_to)
		err = file_range(o->pt_path, (uint64_t)sb.st_size, o->pt_from, &to,
				 errbuf, errlen);
	else
		to = UINT64_MAX;	/* all of it, a pipe included */
	if (err >= 0 && o->pt_from && lseek(fd, (off_t)o->pt_from, SEEK_SET) < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': cannot seek", o->pt_path);
	if (err < 0) {
		close(fd);
		return err;
	}
	left = to - o->pt_from;
	memset(&s, 0, sizeof(s));
	s.id = RAW_STREAM;
	s.kind = LSB_STREAM_THREAD;
	s.cpu = -1;
	buf = malloc(PIECE);
	err = buf ? lsb_writer_stream(w, &s) : -LS_ENOMEM;
	while (err >= 0 && left &&
	       (n = read(fd, buf, left < PIECE ? (size_t)left : PIECE)) > 0) {
		err = lsb_writer_pt(w, RAW_STREAM, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	if (err >= 0 && n < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': read failed", o->pt_path);
	else if (err >= 0)
		err = lsb_writer_stream_end(w, RAW_STREAM);
	if (err < 0 && errbuf && !errbuf[0])
		rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	free(buf);
	close(fd);
	return err < 0 ? err : 0;
}
