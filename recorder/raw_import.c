/* raw_import.c - a raw Intel PT capture plus memory images (the inputs of
 * libipt's ptxed: --pt, --cpu, --elf FILE[:BASE], --raw FILE:ADDR) into a
 * trace bundle. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_err.h"
#include "ls_buildid.h"
#include "perf_convert.h"

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

static int add_image(struct lsb_writer *w, const struct lsr_raw_image *img,
		     char *errbuf, size_t errlen)
{
	struct lsb_module m;
	void *data;
	size_t len;
	int err, n;

	err = ls_map_file(img->path, &data, &len);
	if (err < 0)
		return rfail(errbuf, errlen, err, "'%s': cannot read (%s)", img->path,
			     ls_errstr(err));
	memset(&m, 0, sizeof(m));
	m.path = img->path;
	m.file_size = len;
	n = img->raw ? 0 : ls_buildid_mem(data, len, m.build_id, LSB_BUILD_ID_MAX);
	if (n < 0) {
		ls_unmap(data, len);
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
	ls_unmap(data, len);
	return err;
}

int lsr_raw_pt_import(struct lsb_writer *w, const char *pt_path,
		      const char *cpu, const struct lsr_raw_image *img,
		      size_t nimg, char *errbuf, size_t errlen)
{
	unsigned fam, mod, step;
	struct lsb_stream s;
	char b[32];
	uint8_t *buf;
	ssize_t n;
	size_t i;
	int fd, err;

	if (!w || !pt_path || (nimg && !img))
		return -LS_EINVAL;
	if (lsr_parse_cpu(cpu, &fam, &mod, &step) < 0)
		return rfail(errbuf, errlen, -LS_EINVAL,
			     "bad cpu '%s' (want FAMILY/MODEL[/STEPPING])",
			     cpu ? cpu : "");
	err = lsb_writer_meta(w, "backend", "pt");
	if (err >= 0)
		err = lsb_writer_meta(w, "cpu.vendor", "GenuineIntel");
	if (err >= 0)
		err = lsb_writer_meta(w, "import.source", "raw-pt");
	snprintf(b, sizeof(b), "%u", fam);
	if (err >= 0)
		err = lsb_writer_meta(w, "cpu.family", b);
	snprintf(b, sizeof(b), "%u", mod);
	if (err >= 0)
		err = lsb_writer_meta(w, "cpu.model", b);
	snprintf(b, sizeof(b), "%u", step);
	if (err >= 0)
		err = lsb_writer_meta(w, "cpu.stepping", b);
	if (err < 0)
		return rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	for (i = 0; i < nimg; i++) {
		err = add_image(w, &img[i], errbuf, errlen);
		if (err < 0)
			return err;
	}
	fd = open(pt_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rfail(errbuf, errlen, -LS_ENOENT, "'%s': cannot open", pt_path);
	memset(&s, 0, sizeof(s));
	s.id = RAW_STREAM;
	s.kind = LSB_STREAM_THREAD;
	s.cpu = -1;
	buf = malloc(PIECE);
	err = buf ? lsb_writer_stream(w, &s) : -LS_ENOMEM;
	while (err >= 0 && (n = read(fd, buf, PIECE)) > 0)
		err = lsb_writer_pt(w, RAW_STREAM, buf, (size_t)n);
	if (err >= 0 && n < 0)
		err = rfail(errbuf, errlen, -LS_EIO, "'%s': read failed", pt_path);
	else if (err >= 0)
		err = lsb_writer_stream_end(w, RAW_STREAM);
	if (err < 0 && errbuf && !errbuf[0])
		rfail(errbuf, errlen, err, "%s", lsb_writer_errmsg(w));
	free(buf);
	close(fd);
	return err < 0 ? err : 0;
}
