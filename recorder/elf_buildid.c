/* elf_buildid.c - GNU build-id of an ELF file, read with libelf.
 *
 * Looks in SHT_NOTE sections first (present in every normal file) and
 * falls back to PT_NOTE segments for stripped files without section
 * headers, as the kernel's own build-id reader does. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "ls_err.h"
#include "elf_buildid.h"

#define NOTE_GNU_BUILD_ID 3

static int scan_notes(Elf_Data *d, uint8_t *out, size_t cap)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NOTE_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0) {
			size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;

			memcpy(out, (const char *)d->d_buf + desc_off, n);
			return (int)n;
		}
	}
	return 0;
}

static int find_build_id(Elf *e, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	size_t i, nph = 0;
	int n;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		n = scan_notes(elf_getdata(scn, NULL), out, cap);
		if (n)
			return n;
	}
	if (elf_getphdrnum(e, &nph) != 0)
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		n = scan_notes(d, out, cap);
		if (n)
			return n;
	}
	return 0;
}

int lsr_elf_build_id(const char *path, uint8_t *out, size_t cap)
{
	Elf *e;
	int fd, n;

	if (!path || !out || !cap)
		return -LS_EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -LS_ELF;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -LS_ENOENT : -LS_EIO;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return -LS_ELF;
	}
	n = find_build_id(e, out, cap);
	elf_end(e);
	close(fd);
	return n;
}
