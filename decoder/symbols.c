/* symbols.c - functions, lines and inlined functions for (module, offset).
 *
 * A module is loaded on its first lookup and kept until close, so memory
 * is bounded by the modules looked up: its ELF bytes (embedded, or a file
 * mapped read-only), an optional separate debug file, the flattened
 * function table (decoder/symtab.c) and libdw's own caches.
 *
 * Where a module's bytes come from, in order:
 *   1. the bundle (embedded modules);
 *   2. for reference-only modules: the recorded path, DEBUG_DIR/<path>,
 *      DEBUG_DIR/.build-id/xx/rest.debug, /usr/lib/debug/.build-id/...,
 *      then the executable from the debuginfod servers of DEBUGINFOD_URLS;
 *      a file is taken only when its GNU build-id is the recorded one.
 * When the module has no .symtab or no DWARF, a separate debug file is
 * looked for by build-id (same two .build-id folders) and by
 * .gnu_debuglink (next to the path, in .debug/ there, under
 * /usr/lib/debug/<dir>, in DEBUG_DIR), accepted when its build-id matches
 * or, for a module without one, when the debuglink CRC does; last, when
 * DEBUGINFOD_URLS is set, from those debuginfod servers by build-id.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder/modfile.h"
#include "decoder/inlines.h"
#include "decoder/linecache.h"
#include "decoder/symbols.h"
#include "decoder/symtab.h"
#include "ls_crc32.h"
#include "ls_err.h"
#include "ls_buildid.h"


struct elf_file {
	void *data;
	size_t len;
	/* 1: map_file(), 0: malloc'd by the reader or copied, 2: the bytes
	 * lent with the module (not ours to free) */
	int mapped;
	Elf *elf;
};

struct load_seg {
	uint64_t off, vaddr, filesz;
};

struct mod {
	int state;		/* 0 not loaded, 1 loaded, < 0 why not */
	struct elf_file main, dbg;
	Elf *dwelf;		/* the file with DWARF, NULL if none */
	Dwarf *dw;		/* opened on the first lookup of lines */
	int dw_tried;
	struct lsd_inl *inl;	/* its units' inlined ranges */
	struct lsd_lcache *lc;	/* answers kept in the build-id cache */
	int lc_tried;
	const void *lent;	/* the module's bytes, held by the caller */
	size_t nlent;
	uint32_t lent_crc;	/* their CRC-32, where has_lent_crc */
	int has_lent_crc;
	struct load_seg *loads;
	size_t nloads;
	struct lsd_symtab tab;
	int entries_done;	/* synthetic functions added (entries.c) */
};

/* Source file names made absolute with their unit's DW_AT_comp_dir, by
 * the name libdw gave (stable until dwarf_end): each made once, valid
 * until lsd_symbols_close(). */
struct abspath {
	const char *dw;
	char *abs;
};

struct lsd_symbols {
	struct lsb_reader *r;
	char *debug_dir;
	size_t nmods;
	struct mod *mods;
	struct abspath *paths;
	size_t npaths, cappaths;	/* cappaths: 0 or a power of two */
	void *dbgd;		/* debuginfod client, made at its first use */
	char errmsg[1024];
};

static void set_err(struct lsd_symbols *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
}

/* Formats a path; returns -1 when it does not fit (the candidate is then
 * skipped rather than truncated into another file's name). */
static int mkpath(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, cap, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int map_file(const char *path, struct elf_file *f)
{
	int err = lsd_modfile_map(path, &f->data, &f->len);

	f->mapped = !err;
	return err;
}

static void file_release(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->mapped == 1)
		munmap(f->data, f->len);
	else if (!f->mapped)
		free(f->data);
	memset(f, 0, sizeof(*f));
}

/* Opens f->data as an ELF file.  Returns 0 or -LS_ELF. */
static int file_elf(struct elf_file *f)
{
	f->elf = elf_memory(f->data, f->len);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		f->elf = NULL;
		return -LS_ELF;
	}
	return 0;
}

/* After a modfile lookup returned err: opens the mapped file as ELF. */
static int open_found(struct elf_file *f, int err)
{
	if (err < 0)
		return err;
	f->mapped = 1;
	err = file_elf(f);
	if (err < 0)
		file_release(f);
	return err;
}

/* Maps PATH when its build-id is m's and opens it as ELF. */
static int try_file(struct lsd_symbols *s, const struct lsb_module *m,
		    const char *path, struct elf_file *f)
{
	return open_found(f, lsd_modfile_try(m, path, &f->data, &f->len, s->errmsg,
					     sizeof(s->errmsg)));
}

/* Finds the bytes of a reference-only module. */
static int find_reference(struct lsd_symbols *s, const struct lsb_module *m,
			  struct elf_file *f)
{
	return open_found(f, lsd_modfile_find(m, s->debug_dir, 0, &f->data, &f->len,
					      s->errmsg, sizeof(s->errmsg)));
}

/* Whether match() says yes to a section of elf, given its header and its
 * name (NULL where it has none): 1, else 0, or -1 where the section table
 * or a header cannot be read (and none said yes). */
static int any_section(Elf *elf, int (*match)(const GElf_Shdr *, const char *, const void *),
		       const void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int bad = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			bad = 1;
		else if (match(&sh, elf_strptr(elf, shstrndx, sh.sh_name), arg))
			return 1;
	}
	return bad ? -1 : 0;
}

/* What has_section() looks for: a section with contents of type `type`
 * (0: none), or one named `name` (NULL: none). */
struct sec_want {
	Elf64_Word type;
	const char *name;
};

static int sec_is(const GElf_Shdr *sh, const char *n, const void *arg)
{
	const struct sec_want *w = arg;

	return sh->sh_type != SHT_NOBITS &&
	       ((w->type && sh->sh_type == w->type) || (w->name && n && !strcmp(n, w->name)));
}

static int has_section(Elf *elf, Elf64_Word type, const char *name)
{
	const struct sec_want w = { type, name };

	return any_section(elf, sec_is, &w) > 0;
}

/* A compressed section: SHF_COMPRESSED, or a GNU .zdebug one. */
static int sec_compressed(const GElf_Shdr *sh, const char *n, const void *arg)
{
	(void)arg;
	return (sh->sh_flags & SHF_COMPRESSED) || (n && !strncmp(n, ".zdebug", 7));
}

/* Whether a section of elf is compressed, or its table cannot be read:
 * libdw decompresses those through libelf, which then writes their new
 * size and flags into the image's section headers. */
static int has_compressed(Elf *elf)
{
	return any_section(elf, sec_compressed, NULL) != 0;
}

/* Opens the len bytes lent at data (the bundle's copy of a module) as
 * ELF in f: in place, where nothing will write into them (libelf reads
 * a native image where it lies), else a copy of them (the sections libdw
 * would decompress).  Not copying the bytes spares the pages of a copy:
 * libc's 2 MB, 520 of a small trace's 3,060 page faults.  Returns 0
 * (f->elf NULL where the bytes are no ELF file: file_elf() says why) or
 * -LS_ENOMEM. */
static int lent_elf(struct elf_file *f, const void *data, size_t len)
{
	f->data = (void *)(uintptr_t)data;	/* (never written: below) */
	f->len = len;
	f->mapped = 2;
	if (file_elf(f) < 0 || !has_compressed(f->elf))
		return 0;
	file_release(f);
	f->data = malloc(len ? len : 1);
	if (!f->data)
		return -LS_ENOMEM;
	memcpy(f->data, data, len);
	f->len = len;
	file_elf(f);
	return 0;
}

/* The .gnu_debuglink name and CRC of elf, or NULL. */
static const char *debuglink(Elf *elf, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		Elf_Data *d;
		size_t len;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			return NULL;
		len = strnlen(d->d_buf, d->d_size);
		/* name, NUL, padding to 4, then the CRC */
		if (!len || ((len + 4) & ~(size_t)3) + 4 > d->d_size)
			return NULL;
		memcpy(crc, (const char *)d->d_buf + ((len + 4) & ~(size_t)3), 4);
		return d->d_buf;
	}
	return NULL;
}

/* Looks for the separate debug file of module m (whose ELF is main). */
static void find_debug(struct lsd_symbols *s, const struct lsb_module *m,
		       Elf *main, const void *main_data, size_t main_len,
		       struct elf_file *f)
{
	char path[4096];
	uint32_t crc = 0;
	const char *link, *slash;
	int dl, bad;

	if (m->build_id_len > 1) {
		if (s->debug_dir &&
		    !lsd_modfile_buildid_path(path, sizeof(path), s->debug_dir, m) &&
		    !try_file(s, m, path, f))
			return;
		if (!lsd_modfile_buildid_path(path, sizeof(path), LSD_SYS_DEBUG_DIR, m) &&
		    !try_file(s, m, path, f))
			return;
	}
	link = debuglink(main, &crc);
	if (!link || strchr(link, '/') || !m->path)
		goto servers;
	slash = strrchr(m->path, '/');
	dl = slash ? (int)(slash - m->path) : 0;
	for (int i = 0; i < 4; i++) {
		if (i == 0)
			bad = mkpath(path, sizeof(path), "%.*s/%s", dl, m->path,
				     link);
		else if (i == 1)
			bad = mkpath(path, sizeof(path), "%.*s/.debug/%s", dl,
				     m->path, link);
		else if (i == 2)
			bad = mkpath(path, sizeof(path), "%s%.*s/%s",
				     LSD_SYS_DEBUG_DIR, dl, m->path, link);
		else if (s->debug_dir)
			bad = mkpath(path, sizeof(path), "%s/%s", s->debug_dir,
				     link);
		else
			break;
		if (bad)
			continue;
		if (!try_file(s, m, path, f))
			return;
		/* A module without a GNU build-id was given a hash as its
		 * id; the debuglink CRC is all that ties the files then. */
		if (map_file(path, f) < 0)
			continue;
		if (ls_crc32(0, f->data, f->len) == crc && !file_elf(f) &&
		    ls_buildid_mem(f->data, f->len, (uint8_t[4]){ 0 }, 4) == 0)
			return;
		file_release(f);
	}
servers:
	/* Nothing here: the servers, asked for a real GNU build-id only
	 * (the recorder's hashes of files without one mean nothing to
	 * them). */
	if (m->build_id_len > 1 && ls_buildid_mem(main_data, main_len,
						  (uint8_t[LSB_BUILD_ID_MAX]){ 0 },
						  LSB_BUILD_ID_MAX) > 0 &&
	    !lsd_debuginfod_find(&s->dbgd, m->build_id, (size_t)m->build_id_len,
				 path, sizeof(path)))
		try_file(s, m, path, f);
}

static int read_loads(struct mod *md)
{
	size_t nph, i;

	if (elf_getphdrnum(md->main.elf, &nph))
		return 0;	/* no program headers: offsets are vaddrs */
	md->loads = calloc(nph ? nph : 1, sizeof(*md->loads));
	if (!md->loads)
		return -LS_ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(md->main.elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD)
			continue;
		md->loads[md->nloads].off = ph.p_offset;
		md->loads[md->nloads].vaddr = ph.p_vaddr;
		md->loads[md->nloads++].filesz = ph.p_filesz;
	}
	return 0;
}

static int mod_load(struct lsd_symbols *s, size_t i, struct mod *md)
{
	const struct lsb_module *m = lsb_reader_module(s->r, i);
	Elf *symelf;
	int err;

	if (!m)
		return -LS_ENOENT;
	if (md->lent && (m->flags & LSB_MOD_EMBEDDED)) {
		err = lent_elf(&md->main, md->lent, md->nlent);
	} else {
		err = lsb_reader_module_data(s->r, i, &md->main.data, &md->main.len);
	}
	if (err == -LS_ENOENT) {
		err = find_reference(s, m, &md->main);
	} else if (err >= 0) {
		err = md->main.elf ? 0 : file_elf(&md->main);
		if (err < 0) {
			int e = elf_errno();

			set_err(s, "module '%s' in the bundle is not a valid "
				"ELF file: %s", m->path ? m->path : "?",
				e ? elf_errmsg(e) : "no ELF header");
		}
	}
	if (err < 0)
		return err;
	err = read_loads(md);
	if (err < 0)
		return err;
	if (!has_section(md->main.elf, SHT_SYMTAB, NULL) ||
	    !has_section(md->main.elf, 0, ".debug_info"))
		find_debug(s, m, md->main.elf, md->main.data, md->main.len,
			   &md->dbg);
	symelf = md->dbg.elf ? md->dbg.elf : md->main.elf;
	err = lsd_symtab_build(&md->tab, md->main.elf, symelf);
	if (err < 0) {
		set_err(s, "cannot read the symbols of '%s'",
			m->path ? m->path : "?");
		return err;
	}
	if (has_section(md->main.elf, 0, ".debug_info"))
		md->dwelf = md->main.elf;
	else if (md->dbg.elf && has_section(md->dbg.elf, 0, ".debug_info"))
		md->dwelf = md->dbg.elf;
	return 1;
}

static void mod_release(struct mod *md)
{
	lsd_lcache_close(md->lc);
	lsd_inl_free(md->inl);
	if (md->dw)
		dwarf_end(md->dw);
	lsd_symtab_release(&md->tab);
	free(md->loads);
	file_release(&md->dbg);
	file_release(&md->main);
	memset(md, 0, sizeof(*md));
}

int lsd_symbols_open(struct lsd_symbols **ps, struct lsb_reader *r,
		     const char *debug_dir)
{
	struct lsd_symbols *s;

	if (!ps || !r)
		return -LS_EINVAL;
	*ps = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -LS_ELF;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -LS_ENOMEM;
	s->r = r;
	s->nmods = lsb_reader_nmodules(r);
	s->mods = calloc(s->nmods ? s->nmods : 1, sizeof(*s->mods));
	s->debug_dir = debug_dir ? strdup(debug_dir) : NULL;
	if (!s->mods || (debug_dir && !s->debug_dir)) {
		lsd_symbols_close(s);
		return -LS_ENOMEM;
	}
	*ps = s;
	return 0;
}

void lsd_symbols_close(struct lsd_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods && s->mods; i++)
		mod_release(&s->mods[i]);
	for (size_t i = 0; i < s->cappaths; i++)
		free(s->paths[i].abs);
	free(s->paths);
	free(s->mods);
	lsd_debuginfod_end(s->dbgd);
	free(s->debug_dir);
	free(s);
}

void lsd_symbols_lend(struct lsd_symbols *s, size_t mod, const void *data, size_t len)
{
	if (!s || mod >= s->nmods)
		return;
	s->mods[mod].lent = data;
	s->mods[mod].nlent = data ? len : 0;
	s->mods[mod].has_lent_crc = 0;
}

void lsd_symbols_lend_crc(struct lsd_symbols *s, size_t mod, uint32_t crc)
{
	if (!s || mod >= s->nmods || !s->mods[mod].lent)
		return;
	s->mods[mod].lent_crc = crc;
	s->mods[mod].has_lent_crc = 1;
}

const char *lsd_symbols_errmsg(const struct lsd_symbols *s)
{
	return s ? s->errmsg : "";
}

static size_t ptr_hash(const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;

	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	return (size_t)(a ^ (a >> 33));
}

/* Source file `name` of compilation unit cu, absolute: a relative name
 * (gcc writes them relative to the build directory) joined to the unit's
 * DW_AT_comp_dir.  Returns name itself where it is absolute, has no
 * comp_dir, or memory runs out (then *lost is set: not the answer). */
static const char *abs_path(struct lsd_symbols *s, Dwarf_Die *cu, const char *name,
			    int *lost)
{
	Dwarf_Attribute at;
	const char *dir, *rel;
	size_t h, i;
	char *abs;

	if (!name || name[0] == '/')
		return name;
	if ((s->npaths + 1) * 2 > s->cappaths) {
		size_t ncap = s->cappaths ? 2 * s->cappaths : 256;
		struct abspath *np = calloc(ncap, sizeof(*np));

		if (!np) {
			*lost = 1;
			return name;
		}
		for (i = 0; i < s->cappaths; i++) {
			if (!s->paths[i].dw)
				continue;
			for (h = ptr_hash(s->paths[i].dw) & (ncap - 1); np[h].dw;
			     h = (h + 1) & (ncap - 1))
				;
			np[h] = s->paths[i];
		}
		free(s->paths);
		s->paths = np;
		s->cappaths = ncap;
	}
	for (h = ptr_hash(name) & (s->cappaths - 1); s->paths[h].dw;
	     h = (h + 1) & (s->cappaths - 1))
		if (s->paths[h].dw == name)
			return s->paths[h].abs;
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (!dir || dir[0] != '/')
		return name;
	for (rel = name; rel[0] == '.' && rel[1] == '/'; rel += 2)
		;
	abs = malloc(strlen(dir) + strlen(rel) + 2);
	if (!abs) {
		*lost = 1;
		return name;
	}
	sprintf(abs, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
	s->paths[h].dw = name;
	s->paths[h].abs = abs;
	s->npaths++;
	return abs;
}

/* The ELF vaddr of file offset off, through the PT_LOAD headers. */
static int off_to_vaddr(const struct mod *md, uint64_t off, uint64_t *vaddr)
{
	if (!md->nloads) {
		*vaddr = off;
		return 0;
	}
	for (size_t i = 0; i < md->nloads; i++) {
		const struct load_seg *l = &md->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = l->vaddr + (off - l->off);
			return 0;
		}
	}
	return -1;
}

/* md's DWARF (its own or its separate debug file's), NULL if none.
 * Opening DWARF decompresses and indexes sections: only at the first
 * use. */
static Dwarf *mod_dwarf(struct lsd_symbols *s, struct mod *md, const char *name)
{
	if (!md->dw_tried && md->dwelf) {
		md->dw_tried = 1;
		md->dw = dwarf_begin_elf(md->dwelf, DWARF_C_READ, NULL);
		if (!md->dw)
			set_err(s, "cannot read the DWARF of '%s': %s", name ? name : "?",
				dwarf_errmsg(-1));
	}
	return md->dw;
}

/* Module mod's answers in the build-id cache, opened at its first lines
 * lookup: keyed by the module's build-id and the file its DWARF is read
 * from (NULL: not kept, as for a module without a build-id). */
static struct lsd_lcache *mod_lcache(struct lsd_symbols *s, struct mod *md, int mod)
{
	const struct lsb_module *m;
	const struct elf_file *f;

	if (!md->lc_tried && md->dwelf) {
		md->lc_tried = 1;
		m = lsb_reader_module(s->r, (size_t)mod);
		f = md->dwelf == md->main.elf ? &md->main : &md->dbg;
		/* (the lender's CRC where the lines are the lent bytes': the
		 * same bytes, or a copy of them, as mod_load() took them) */
		if (m && m->build_id_len > 1 && f == &md->main && md->has_lent_crc &&
		    (m->flags & LSB_MOD_EMBEDDED) && f->len == md->nlent)
			md->lc = lsd_lcache_open_crc(m->build_id, m->build_id_len,
						     f->data, f->len, md->lent_crc);
		else if (m && m->build_id_len > 1)
			md->lc = lsd_lcache_open(m->build_id, m->build_id_len,
						 f->data, f->len);
	}
	return md->lc;
}

/* Whether dw's address ranges are read and no unit holds vaddr: a
 * dwarf_addrdie() that failed for that reason, not for memory. */
static int no_unit(Dwarf *dw, uint64_t vaddr)
{
	Dwarf_Aranges *ar;
	size_t n;

	return dwarf_getaranges(dw, &ar, &n) == 0 && !dwarf_getarange_addr(ar, vaddr);
}

static void find_lines(struct lsd_symbols *s, struct mod *md, int mod,
		       uint64_t vaddr, struct lsd_symbol_info *info)
{
	struct lsd_lcache *lc = mod_lcache(s, md, mod);
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	Dwarf_Line *ln;
	size_t nlines;
	int line, n, lost = 0;

	if (lc && lsd_lcache_get(lc, vaddr, info))
		return;
	if (!mod_dwarf(s, md, info->module))
		return;
	if (!dwarf_addrdie(md->dw, vaddr, &cudie)) {
		/* an answer too where no unit has vaddr, not where libdw
		 * could not tell (out of memory) */
		if (lc && no_unit(md->dw, vaddr))
			lsd_lcache_put(lc, vaddr, info);
		return;
	}
	ln = dwarf_getsrc_die(&cudie, vaddr);
	if (!ln && dwarf_getsrclines(&cudie, &lines, &nlines) != 0)
		lost = 1;	/* the unit's line table unread: no answer */
	if (ln && !dwarf_lineno(ln, &line)) {
		info->file = abs_path(s, &cudie, dwarf_linesrc(ln, NULL, NULL), &lost);
		info->line = info->file ? line : 0;
	}
	/* The inlined subroutines whose ranges hold vaddr, innermost first,
	 * as eu-addr2line -i gives them (dwarf_getscopes' first scope and
	 * its concrete parents); from a table of the unit's ranges, walked
	 * once, not the unit's DIE tree at every lookup. */
	n = lsd_inl_chain(&md->inl, &cudie, vaddr, info->inlined, LSD_MAX_INLINE);
	info->ninline = n < 0 ? 0 : n;
	/* An answer cut short by memory is this run's loss, not the
	 * module's: kept, a later analysis would read it from the cache.
	 * (A put that runs out of memory only costs the next analysis a
	 * DWARF read.) */
	if (lc && n >= 0 && !lost)
		lsd_lcache_put(lc, vaddr, info);
}

/* Module i's symbols, read at the first use. */
static void mod_ensure(struct lsd_symbols *s, size_t i)
{
	struct mod *md = &s->mods[i];

	if (!md->state) {
		md->state = mod_load(s, i, md);
		if (md->state < 0) {
			/* Keep the error; free what was half built. */
			int err = md->state;

			mod_release(md);
			md->state = err;
		}
	}
}

int lsd_symbols_load(struct lsd_symbols *s)
{
	size_t i;

	if (!s)
		return -LS_EINVAL;
	for (i = 0; i < s->nmods; i++)
		mod_ensure(s, i);
	return 0;
}

/* Module mod, loaded, in *md.  Returns 0, -LS_ENOENT (out of range) or
 * why it cannot be loaded. */
static int mod_loaded(struct lsd_symbols *s, int mod, struct mod **md)
{
	if (mod < 0 || (size_t)mod >= s->nmods)
		return -LS_ENOENT;
	mod_ensure(s, (size_t)mod);
	*md = &s->mods[mod];
	return (*md)->state < 0 ? (*md)->state : 0;
}

int lsd_symbols_elf(struct lsd_symbols *s, int mod, struct Elf **own, struct Elf **dbg)
{
	struct mod *md;
	int err;

	if (!s || !own || !dbg)
		return -LS_EINVAL;
	*own = *dbg = NULL;
	if ((err = mod_loaded(s, mod, &md)) < 0)
		return err;
	*own = md->main.elf;
	*dbg = md->dbg.elf;
	return 0;
}

int lsd_symbols_dwarf(struct lsd_symbols *s, int mod, struct Dwarf **dw)
{
	const struct lsb_module *m;
	struct mod *md;
	int err;

	if (!s || !dw)
		return -LS_EINVAL;
	*dw = NULL;
	if ((err = mod_loaded(s, mod, &md)) < 0)
		return err;
	m = lsb_reader_module(s->r, (size_t)mod);
	*dw = mod_dwarf(s, md, m ? m->path : NULL);
	return *dw ? 0 : -LS_ENOENT;
}

int lsd_symbols_lookup(struct lsd_symbols *s, int mod, uint64_t off,
		       int want_lines, struct lsd_symbol_info *info)
{
	const struct lsb_module *m;
	const struct lsd_sym *sym;
	struct mod *md;

	if (!info)
		return -LS_EINVAL;
	memset(info, 0, sizeof(*info));
	if (!s)
		return -LS_EINVAL;
	if (mod < 0 || (size_t)mod >= s->nmods)
		return -LS_ENOENT;
	m = lsb_reader_module(s->r, (size_t)mod);
	md = &s->mods[mod];
	info->module = m ? m->path : NULL;
	info->vaddr = off;
	mod_ensure(s, (size_t)mod);
	if (md->state < 0)
		return md->state;
	if (off_to_vaddr(md, off, &info->vaddr) < 0)
		return 0;	/* not in the loaded image: unknown */
	sym = lsd_symtab_find(&md->tab, info->vaddr);
	if (!sym && !md->entries_done) {
		/* Code no symbol covers: name the functions there by their
		 * entries, swept once per module at its first such lookup.
		 * Out of memory leaves them unknown. */
		const char *base = m && m->path ? strrchr(m->path, '/') : NULL;

		md->entries_done = 1;
		base = base ? base + 1 : m && m->path && *m->path ? m->path : "[unknown]";
		if (lsd_symtab_add_entries(&md->tab, md->main.elf, base,
					   m && m->build_id_len > 1 ? m->build_id : NULL,
					   m && m->build_id_len > 1 ? m->build_id_len : 0) >= 0)
			sym = lsd_symtab_find(&md->tab, info->vaddr);
	}
	if (sym) {
		info->function = sym->name;
		info->synthetic = sym->rank == LSD_SYM_SYNTHETIC;
		info->func_off = info->vaddr - sym->start;
		info->func_start = off - info->func_off;
	}
	if (want_lines)
		find_lines(s, md, mod, info->vaddr, info);
	return 0;
}
