/* ls_buildid.c - GNU build-id notes with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_err.h"
#include "ls_buildid.h"

static int buildid_from_notes(Elf_Data *d, uint8_t *out, size_t cap)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    nh.n_descsz > 0 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
			size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;

			memcpy(out, (char *)d->d_buf + desc_off, n);
			return (int)n;
		}
		off = next;
	}
	return 0;
}

int ls_buildid_mem(const void *data, size_t len, uint8_t *out, size_t cap)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, nph;
	int ret = 0;

	if (!data || !out || !cap)
		return -LS_EINVAL;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)data, len);
	if (!e)
		return -LS_ELF;
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -LS_ELF;
	}
	/* Section headers first; the vDSO and stripped files may only have
	 * program headers, so fall back to PT_NOTE segments. */
	while (!ret && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		ret = buildid_from_notes(elf_getdata(scn, NULL), out, cap);
	}
	if (!ret && !elf_getphdrnum(e, &nph)) {
		for (i = 0; i < nph && !ret; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			if (ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
				continue;
			d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset,
						 ph.p_filesz, ELF_T_NHDR);
			if (d)
				ret = buildid_from_notes(d, out, cap);
		}
	}
	elf_end(e);
	return ret;
}

int ls_map_file(const char *path, void **data, size_t *len)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -LS_ENOENT : -LS_EIO;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return -LS_EIO;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -LS_EIO;
	*data = p;
	*len = (size_t)st.st_size;
	return 0;
}

void ls_unmap(void *data, size_t len)
{
	if (data)
		munmap(data, len);
}

int ls_buildid_file(const char *path, uint8_t *out, size_t cap)
{
	void *data;
	size_t len;
	int n;

	if (!path || !out || !cap)
		return -LS_EINVAL;
	n = ls_map_file(path, &data, &len);
	if (n < 0)
		return n;
	n = ls_buildid_mem(data, len, out, cap);
	ls_unmap(data, len);
	return n;
}

int ls_buildid_hash(const void *data, size_t len, uint8_t out[16])
{
	const uint8_t *p = data;
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h1 = (h1 ^ p[i]) * 0x100000001b3ull;
		h2 = (h2 ^ p[i] ^ (i & 0xff)) * 0x100000001b3ull;
	}
	for (i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h1 >> (8 * i));
		out[8 + i] = (uint8_t)(h2 >> (8 * i));
	}
	return 16;
}
