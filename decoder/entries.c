/* entries.c - functions of code no symbol covers, named by their entry.
 *
 * A stripped module (most system libraries) keeps .dynsym for its
 * exported functions only; its internal functions have no name.  Their
 * entries are still visible to whoever calls them: the target of every
 * direct call in the module's code, and the addresses the module takes
 * of its own code for indirect calls (a RIP-relative lea, a RELATIVE or
 * IRELATIVE relocation -- how a stripped executable's main reaches
 * __libc_start_main --, DT_INIT and DT_FINI, the ELF entry point).  Each such address no
 * symbol covers starts a synthetic function "module+0xVADDR" (VADDR as
 * nm would print it from the unstripped file), up to the next entry, the
 * next symbol or the end of its section; a FUNC symbol of size 0 at the
 * entry (crt's frame_dummy) gives it its name instead.  A function entered only by a
 * jump (a tail call) or through an address computed otherwise stays part
 * of the one before it.
 */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode_int.h"
#include "decoder/iclass.h"
#include "decoder/image.h"
#include "decoder/symtab.h"
#include "ls_crc32.h"
#include "ls_buf.h"
#include "ls_err.h"
#include "ls_sort.h"
#include "ls_out.h"

struct ent_list {
	uint64_t *a;
	size_t n, cap;
};

static int ent_push(struct ent_list *l, uint64_t a)
{
	if (LS_GROW(l->a, l->n + 1, l->cap, 1024))
		return -LS_ENOMEM;
	l->a[l->n++] = a;
	return 0;
}

/* The target of a direct call (e8 rel32) or a RIP-relative lea at c, the
 * instruction ending at next; 0 when it is neither. */
static int entry_target(const uint8_t *c, size_t len, uint64_t next, uint64_t *out)
{
	size_t i = 0;
	int32_t disp;

	while (i < len && (c[i] == 0x66 || c[i] == 0x67 || c[i] == 0xf2 ||
			   c[i] == 0xf3 || c[i] == 0x2e || c[i] == 0x3e))
		i++;
	if (i < len && c[i] == 0xe8 && len - i == 5) {
		memcpy(&disp, c + i + 1, 4);
		*out = next + (uint64_t)(int64_t)disp;
		return 1;
	}
	if (i < len && (c[i] & 0xf0) == 0x40)
		i++;		/* REX */
	/* lea disp32(%rip), reg: 8d, mod 00 r/m 101. */
	if (len - i == 6 && c[i] == 0x8d && (c[i + 1] & 0xc7) == 0x05) {
		memcpy(&disp, c + i + 2, 4);
		*out = next + (uint64_t)(int64_t)disp;
		return 1;
	}
	return 0;
}

/* Sweeps one section: every instruction from its start, a byte at a time
 * over what does not decode (lsd_sweep_step(): capstone's sweep at a tenth
 * of its cost; libsqlite3's took 1.3e9 Ir with capstone alone). */
static int sweep_section(csh cs, int mode, const uint8_t *data, size_t len,
			 uint64_t addr, struct ent_list *l)
{
	cs_insn *in = lsd_cs.malloc(cs);
	const uint8_t *p = data;
	uint64_t a = addr, t;
	int err = 0, n;

	if (!in)
		return -LS_ENOMEM;
	while (len && !err) {
		const uint8_t *here = p;

		if ((n = lsd_sweep_step(cs, in, mode, &p, &len, &a)) > 0 &&
		    entry_target(here, (size_t)n, a, &t))
			err = ent_push(l, t);
	}
	lsd_cs.free(in, 1);
	return err;
}

/* The sweep's cache: DIR/<build-id>.entries (the heads cache's
 * directory), holding the call and lea targets the sweep found in the
 * module's code.  Sweeping a big stripped library with capstone costs
 * more than analyzing a short run (libsqlite3: about 0.2 s); the result
 * depends on the module's bytes and capstone only.  A file whose magic,
 * version, capstone version, build-id or CRC do not match is ignored, and
 * rewritten after a new sweep; failures only cost a sweep. */
#define EC_MAGIC "LSENTRS\n"
#define EC_VERSION 3u	/* 2: 32-bit modules swept as 32-bit code; 3: the
			 * targets sorted, once each */
#define EC_HEAD (8 + 4 + 4 + 4 + 64 + 8)

static int ec_path(const uint8_t *bid, size_t n, char *path, size_t len)
{
	if (n > 64)	/* the header's room */
		return -LS_ENOENT;
	return lsd_image_cache_path(bid, n, ".entries", path, len);
}

static void ec_header(uint8_t *h, const uint8_t *bid, size_t n, uint64_t count)
{
	uint32_t v[3];

	v[0] = EC_VERSION;
	v[1] = lsd_cslib_version();
	v[2] = (uint32_t)n;
	memset(h, 0, EC_HEAD);
	memcpy(h, EC_MAGIC, 8);
	memcpy(h + 8, v, sizeof(v));
	memcpy(h + 20, bid, n);
	memcpy(h + 84, &count, 8);
}

/* The cached sweep into l; 0 when there is none. */
static int ec_load(const uint8_t *bid, size_t n, struct ent_list *l)
{
	char path[4200];
	uint8_t want[EC_HEAD], *buf = NULL;
	uint64_t count;
	uint32_t crc;
	long size;
	FILE *f;
	int ok = 0;

	if (ec_path(bid, n, path, sizeof(path)) < 0 || !(f = fopen(path, "rb")))
		return 0;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= EC_HEAD + 4 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)size)) &&
	    fread(buf, 1, (size_t)size, f) == (size_t)size) {
		memcpy(&count, buf + 84, 8);
		memcpy(&crc, buf + size - 4, 4);
		ec_header(want, bid, n, count);
		if (!memcmp(buf, want, EC_HEAD) && count == ((size_t)size - EC_HEAD - 4) / 8 &&
		    (size_t)size == EC_HEAD + 4 + count * 8 &&
		    crc == ls_crc32(0, buf, (size_t)size - 4) &&
		    (l->a = malloc(count ? count * 8 : 1))) {
			memcpy(l->a, buf + EC_HEAD, count * 8);
			l->n = l->cap = count;
			ok = 1;
			/* as saved: ascending, each once (merged with) */
			for (size_t i = 1; i < count && ok; i++)
				ok = l->a[i - 1] < l->a[i];
			if (!ok) {
				free(l->a);
				l->a = NULL;
				l->n = l->cap = 0;
			}
		}
	}
	fclose(f);
	free(buf);
	return ok;
}

static void ec_save(const uint8_t *bid, size_t n, const struct ent_list *l)
{
	char path[4200];
	uint8_t h[EC_HEAD];
	struct ls_out o;
	uint32_t crc;
	FILE *f;
	int ok;

	if (ec_path(bid, n, path, sizeof(path)) < 0 || ls_out_open(&o, path, "wb") < 0)
		return;
	f = o.f;
	ec_header(h, bid, n, l->n);
	crc = ls_crc32(0, h, sizeof(h));
	if (l->n)	/* a module without calls has no list (NULL) */
		crc = ls_crc32(crc, l->a, l->n * 8);
	ok = fwrite(h, 1, sizeof(h), f) == sizeof(h) &&
	     (!l->n || fwrite(l->a, 8, l->n, f) == l->n) && fwrite(&crc, 4, 1, f) == 1;
	ls_out_finish(&o, ok ? 0 : -LS_EIO);
}

/* Sorts l ascending and keeps each address once.  Returns 0 or
 * -LS_ENOMEM. */
static int ent_sort_unique(struct ent_list *l)
{
	size_t i, n = 0;
	int err = ls_sort_u64(l->a, l->n);

	if (err)
		return err;
	for (i = 0; i < l->n; i++)
		if (!n || l->a[n - 1] != l->a[i])
			l->a[n++] = l->a[i];
	l->n = n;
	return 0;
}

/* l[0 .. n0) sorted and unique, the rest not: l sorted (the tail sorted
 * and merged in).  Returns 0 or -LS_ENOMEM. */
static int ent_merge(struct ent_list *l, size_t n0)
{
	size_t i = 0, j = n0, k = 0;
	uint64_t *m;
	int err = ls_sort_u64(l->a + n0, l->n - n0);

	if (err || !n0 || n0 == l->n || l->a[n0 - 1] <= l->a[n0])
		return err;
	if (!(m = malloc(l->n * sizeof(*m))))
		return -LS_ENOMEM;
	while (i < n0 || j < l->n)
		m[k++] = j == l->n || (i < n0 && l->a[i] <= l->a[j]) ? l->a[i++] : l->a[j++];
	free(l->a);
	l->a = m;
	l->cap = l->n;
	return 0;
}

/* Addends of RELATIVE and IRELATIVE relocations: pointers to the
 * module's own code (function tables, .init_array, ifunc resolvers). */
static int add_relocs(Elf *elf, struct ent_list *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while (!err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i, n, ent = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !ent)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / ent : 0;
		for (i = 0; i < n && !err; i++) {
			GElf_Rela r;
			size_t type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			if (type == R_X86_64_RELATIVE || type == R_X86_64_IRELATIVE)
				err = ent_push(l, (uint64_t)r.r_addend);
		}
	}
	return err;
}

/* DT_INIT and DT_FINI: code the loader and libc call by the dynamic
 * section's pointers (_init, _fini). */
static int add_dynamic(Elf *elf, struct ent_list *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while (!err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i, n, ent = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !ent)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / ent : 0;
		for (i = 0; i < n && !err; i++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_INIT || dyn.d_tag == DT_FINI)
				err = ent_push(l, dyn.d_un.d_ptr);
		}
	}
	return err;
}

struct xsec {
	uint64_t start, end;
	const uint8_t *data;	/* the section's bytes, NULL if unknown */
};

/* Whether the code at a is the rt_sigreturn trampoline (mov $15, %rax or
 * %eax; syscall), as glibc's __restore_rt.  The kernel enters it by the
 * signal handler's return, never by a call: it stays in no function, as
 * the detector's function rows (one span per call) expect. */
static int sigreturn_at(const struct xsec *x, uint64_t a)
{
	static const uint8_t q[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	static const uint8_t d[] = { 0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	const uint8_t *c = x->data ? x->data + (a - x->start) : NULL;
	uint64_t left = x->end - a;

	return c && ((left >= sizeof(q) && !memcmp(c, q, sizeof(q))) ||
		     (left >= sizeof(d) && !memcmp(c, d, sizeof(d))));
}

/* The start of the segment after the one holding vaddr (the next symbol
 * boundary), or UINT64_MAX. */
static uint64_t next_boundary(const struct lsd_symtab *t, uint64_t vaddr)
{
	size_t lo = lsd_symtab_seg_after(t, vaddr);

	return lo < t->nsegs ? t->segs[lo].start : UINT64_MAX;
}

int lsd_symtab_add_entries(struct lsd_symtab *t, Elf *elf, const char *modname,
			   const uint8_t *build_id, size_t build_id_len)
{
	struct ent_list l = { NULL, 0, 0 };
	struct xsec *xs = NULL;
	size_t nxs = 0, capxs = 0, i, k, nadd = 0, n0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	csh cs;
	int err = 0, cached, mode;
	const char *raw;
	size_t rawlen = 0;

	if (!t || !elf || !modname)
		return -LS_EINVAL;
	cached = ec_load(build_id, build_id_len, &l);
	raw = elf_rawfile(elf, &rawlen);
	mode = lsd_cs_elf_mode((const uint8_t *)raw, raw ? rawlen : 0);
	if (!cached && lsd_cs_open_mode(&cs, 0, mode) < 0) {
		free(l.a);
		return -LS_EUNSUP;
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		if (LS_GROW(xs, nxs + 1, capxs, 16)) {
			err = -LS_ENOMEM;
			break;
		}
		d = elf_getdata(scn, NULL);
		xs[nxs].start = sh.sh_addr;
		xs[nxs].end = sh.sh_addr + sh.sh_size;
		xs[nxs++].data = d && d->d_buf && d->d_size == sh.sh_size ? d->d_buf : NULL;
		if (d && d->d_buf && !cached)
			err = sweep_section(cs, mode, d->d_buf, d->d_size, sh.sh_addr, &l);
	}
	if (!cached) {
		lsd_cs.close(&cs);
		/* kept sorted, once each: a later open sorts only what is
		 * added below (a big library's sweep holds 10^5 targets) */
		if (!err)
			err = ent_sort_unique(&l);
		if (!err)
			ec_save(build_id, build_id_len, &l);
	}
	n0 = l.n;
	if (!err)
		err = add_relocs(elf, &l);
	if (!err)
		err = add_dynamic(elf, &l);
	if (!err && gelf_getehdr(elf, &eh) && eh.e_entry)
		err = ent_push(&l, eh.e_entry);
	for (i = 0; i < t->nzero && !err; i++)
		err = ent_push(&l, t->zero[i].start);
	if (!err)
		err = ent_merge(&l, n0);
	if (err)
		goto out;
	/* Keep the entries in code that no symbol covers, once each. */
	for (i = 0; i < l.n; i++) {
		uint64_t a = l.a[i];
		const struct xsec *in = NULL;

		if (nadd && l.a[nadd - 1] == a)
			continue;
		for (k = 0; k < nxs && !in; k++)
			if (a >= xs[k].start && a < xs[k].end)
				in = &xs[k];
		if (in && !sigreturn_at(in, a) && !lsd_symtab_find(t, a))
			l.a[nadd++] = a;
	}
	for (i = 0; i < nadd && !err; i++) {
		uint64_t a = l.a[i], end = next_boundary(t, a);
		const char *zname = NULL;
		char name[4096];

		if (i + 1 < nadd && l.a[i + 1] < end)
			end = l.a[i + 1];
		for (k = 0; k < nxs; k++)
			if (a >= xs[k].start && a < xs[k].end && xs[k].end < end)
				end = xs[k].end;
		for (k = 0; k < t->nzero && !zname; k++)
			if (t->zero[k].start == a)
				zname = t->zero[k].name;
		if (zname)	/* a size-0 symbol there names it */
			snprintf(name, sizeof(name), "%s", zname);
		else
			snprintf(name, sizeof(name), "%s+0x%" PRIx64, modname, a);
		err = lsd_symtab_add_owned(t, a, end - a, name,
					   zname ? LSD_SYM_ZEROSIZE : LSD_SYM_SYNTHETIC);
	}
	if (!err && nadd)
		err = lsd_symtab_flatten(t);
out:
	free(l.a);
	free(xs);
	return err;
}
