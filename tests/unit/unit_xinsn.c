/* unit_xinsn.c - decoder/xinsn.c's length decoder and branch classifier
 * says exactly what capstone says, or defers.
 *
 * Oracle: capstone (with details, in 64-bit mode) and sblock.c's mapping
 * of its instruction to a kind and a direct target (lsd_cs_branch(), the
 * one the static-block walk uses).  Inputs: real code, every executable
 * section of the testdata programs (64-bit), loopscope itself and the
 * system's libraries the testdata and the benchmarks run (libc, libm,
 * ld.so, libsqlite3, liblzma, libbz2 where present), swept linearly with
 * capstone: at every instruction boundary xinsn is asked with the bytes
 * to the section's end, and also with the bytes cut one short of the
 * instruction's length (where it must defer, as capstone fails).  In the
 * testdata programs and loopscope it is also asked at every byte offset,
 * boundary or not (misaligned bytes are a garbage test: where capstone
 * fails, xinsn must defer).  Any size, kind or target that differs from
 * capstone's fails.  That the tables answer most instructions (not just
 * defer) is asserted too: at least 90% of libc's boundaries, a rate
 * measured when the tables were written (libc: 97%).
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode_int.h"
#include "decoder/iclass.h"
#include "tap.h"

struct tally {
	size_t asked, answered, wrong;
	size_t cls_answered, cls_wrong;	/* lsd_xinsn_class() */
};

/* iclass.c's capstone classes (the oracle), opened in main(). */
static struct lsd_iclass_ctx *ic;

/* Compares lsd_xinsn_class() at code (n bytes, capstone's size want)
 * with lsd_iclass_count() over capstone. */
static void check_class(const char *path, const uint8_t *code, size_t n,
			uint64_t ip, int want, struct tally *t)
{
	uint16_t out[LSD_IC_MAX] = { 0 };
	unsigned cls = 0, wcls = 0;
	int got = lsd_xinsn_class(code, n, &cls), i;

	if (!got)
		return;
	t->cls_answered++;
	if (lsd_iclass_count(ic, LSD_MODE_64, code, n, ip, 1, out) == 1)
		for (i = 0; i < LSD_IC_MAX; i++)
			wcls |= out[i] ? 1u << i : 0;
	if (got != want || cls != wcls) {
		if (t->cls_wrong++ < 20) {
			printf("# %s at 0x%llx: classes capstone %#x, xinsn %#x (%d bytes):",
			       path, (unsigned long long)ip, wcls, cls, got);
			for (i = 0; i < got && i < 15; i++)
				printf(" %02x", code[i]);
			putchar('\n');
		}
	}
}

static void report_wrong(const char *path, uint64_t ip, const uint8_t *p, size_t n,
			 int want, int got, int wkind, int gkind)
{
	size_t i;

	printf("# %s at 0x%llx: capstone %d bytes kind %d, xinsn %d bytes kind %d:",
	       path, (unsigned long long)ip, want, wkind, got, gkind);
	for (i = 0; i < n && i < 15; i++)
		printf(" %02x", p[i]);
	putchar('\n');
}

/* Asks xinsn at p (n bytes, address ip) and compares with capstone. */
static int check_at(csh cs, cs_insn *in, const char *path, const uint8_t *code,
		    size_t n, uint64_t ip, struct tally *t, int *csize)
{
	const uint8_t *p = code;
	size_t left = n;
	uint64_t a = ip, want_tgt = 0, got_tgt = 0;
	enum lsd_kind want_kind = LSD_K_OTHER, got_kind = LSD_K_OTHER;
	int want = 0, got;

	if (lsd_cs.disasm_iter(cs, &p, &left, &a, in)) {
		want = (int)(a - ip);
		want_kind = lsd_cs_branch(cs, in, &want_tgt);
	}
	*csize = want;
	check_class(path, code, n, ip, want, t);
	got = lsd_xinsn(code, n, ip, &got_kind, &got_tgt);
	t->asked++;
	if (!got)
		return 0;
	t->answered++;
	if (got != want || got_kind != want_kind || got_tgt != want_tgt) {
		if (t->wrong++ < 20)
			report_wrong(path, ip, code, n, want, got, (int)want_kind, (int)got_kind);
		return -1;
	}
	/* One byte short, capstone cannot decode it; xinsn must defer. */
	if (want > 1 && lsd_xinsn(code, (size_t)want - 1, ip, &got_kind, &got_tgt) != 0) {
		if (t->wrong++ < 20)
			report_wrong(path, ip, code, (size_t)want - 1, 0, want - 1, 0, 0);
		return -1;
	}
	return 0;
}

/* Every executable section of the ELF file at path, swept; every byte
 * offset too if all_offsets.  Returns 0, or -1 if the file is missing
 * or not a 64-bit ELF (the caller skips it). */
static int check_file(csh cs, cs_insn *in, const char *path, int all_offsets,
		      struct tally *t)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		const uint8_t *code;
		size_t off, size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		code = data->d_buf;
		size = data->d_size;
		for (off = 0; off < size; ) {
			int k;

			check_at(cs, in, path, code + off, size - off, sh.sh_addr + off, t, &k);
			off += k > 0 ? (size_t)k : 1;
		}
		if (!all_offsets)
			continue;
		for (off = 0; off < size; off++) {
			int k;

			check_at(cs, in, path, code + off, size - off, sh.sh_addr + off, t, &k);
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* Hand-assembled cases (GNU as, checked with objdump -d): the kinds and
 * targets the walk depends on, independent of capstone. */
static void hand_cases(void)
{
	static const uint8_t call[] = { 0xe8, 0x10, 0x00, 0x00, 0x00 };	/* call .+0x15 */
	static const uint8_t jne8[] = { 0x75, 0xfe };			/* jne . */
	static const uint8_t je32[] = { 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00 }; /* je .+0x106 */
	static const uint8_t jmpr11[] = { 0x41, 0xff, 0xe3 };		/* jmp *%r11 */
	static const uint8_t callm[] = { 0xff, 0x15, 0x02, 0x00, 0x00, 0x00 }; /* call *2(%rip) */
	static const uint8_t movabs[] = { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }; /* movabs $..,%rax */
	static const uint8_t movw[] = { 0x66, 0xc7, 0x44, 0x24, 0x08, 0x34, 0x12 }; /* movw $0x1234,8(%rsp) */
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t sysc[] = { 0x0f, 0x05 };
	static const uint8_t vex[] = { 0xc5, 0xfd, 0x6f, 0x06 };		/* vmovdqa (%rsi),%ymm0 */
	enum lsd_kind k;
	uint64_t tg;

	TAP_EQ(lsd_xinsn(call, sizeof(call), 0x1000, &k, &tg), 5, "call rel32: 5 bytes");
	TAP_OK(k == LSD_K_CALL && tg == 0x1015, "call rel32: a direct call to 0x1015");
	TAP_EQ(lsd_xinsn(jne8, sizeof(jne8), 0x2000, &k, &tg), 2, "jne rel8: 2 bytes");
	TAP_OK(k == LSD_K_COND && tg == 0x2000, "jne rel8: conditional, to itself");
	TAP_EQ(lsd_xinsn(je32, sizeof(je32), 0x3000, &k, &tg), 6, "je rel32: 6 bytes");
	TAP_OK(k == LSD_K_COND && tg == 0x3106, "je rel32: conditional, to 0x3106");
	TAP_EQ(lsd_xinsn(jmpr11, sizeof(jmpr11), 0, &k, &tg), 3, "jmp *%%r11: 3 bytes");
	TAP_OK(k == LSD_K_IJMP && tg == 0, "jmp *%%r11: indirect");
	TAP_EQ(lsd_xinsn(callm, sizeof(callm), 0, &k, &tg), 6, "call *2(%%rip): 6 bytes");
	TAP_OK(k == LSD_K_ICALL, "call *2(%%rip): indirect call");
	TAP_EQ(lsd_xinsn(movabs, sizeof(movabs), 0, &k, &tg), 10, "movabs: 10 bytes");
	TAP_EQ(lsd_xinsn(movw, sizeof(movw), 0, &k, &tg), 7, "movw imm16 to memory: 7 bytes");
	TAP_OK(k == LSD_K_OTHER, "movw: no branch");
	TAP_EQ(lsd_xinsn(endbr, sizeof(endbr), 0, &k, &tg), 4, "endbr64: 4 bytes");
	TAP_EQ(lsd_xinsn(sysc, sizeof(sysc), 0, &k, &tg), 2, "syscall: 2 bytes");
	TAP_OK(k == LSD_K_FAR, "syscall: far");
	TAP_EQ(lsd_xinsn(vex, sizeof(vex), 0, &k, &tg), 0, "VEX: deferred to capstone");
	TAP_EQ(lsd_xinsn(call, 4, 0x1000, &k, &tg), 0, "call cut short: deferred");
}

int main(int argc, char **argv)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libm.so.6",
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
		"/usr/lib/x86_64-linux-gnu/liblzma.so.5",
		"/usr/lib/x86_64-linux-gnu/libbz2.so.1.0",
	};
	const char *build = getenv("BUILD");
	char path[4096];
	struct tally t = { 0 }, tlibc = { 0 };
	size_t i, nprog = 0;
	csh cs;
	cs_insn *in;
	DIR *dir;
	struct dirent *de;

	(void)argc;
	(void)argv;
	hand_cases();
	elf_version(EV_CURRENT);
	if (lsd_cs_open_mode(&cs, LSD_CS_DETAIL, LSD_MODE_64) < 0 || !(in = lsd_cs.malloc(cs)) ||
	    lsd_iclass_open(&ic) < 0) {
		TAP_OK(0, "capstone opens");
		return TAP_DONE();
	}
	if (!build)
		build = "build";
	snprintf(path, sizeof(path), "%s/testdata", build);
	if ((dir = opendir(path)) != NULL) {
		while ((de = readdir(dir)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/testdata/%s", build, de->d_name);
			if (!check_file(cs, in, path, 1, &t))
				nprog++;
		}
		closedir(dir);
	}
	TAP_OK(nprog >= 10, "%zu testdata programs (64-bit ELF) swept", nprog);
	snprintf(path, sizeof(path), "%s/loopscope", build);
	TAP_EQ(check_file(cs, in, path, 1, &t), 0, "loopscope itself swept");
	TAP_EQ(check_file(cs, in, libs[0], 0, &tlibc), 0, "libc swept");
	for (i = 1; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (check_file(cs, in, libs[i], 0, &t) == 0)
			printf("# %s swept\n", libs[i]);
	TAP_EQ(t.wrong, 0, "xinsn agrees with capstone wherever it answers "
	       "(%zu asked, %zu answered)", t.asked, t.answered);
	TAP_EQ(tlibc.wrong, 0, "xinsn agrees with capstone on libc (%zu boundaries, %zu answered)",
	       tlibc.asked, tlibc.answered);
	TAP_OK(tlibc.answered * 10 >= tlibc.asked * 9,
	       "xinsn answers at least 90%% of libc's instructions");
	TAP_EQ(t.cls_wrong, 0, "xinsn's classes are capstone's wherever it answers "
	       "(%zu answered)", t.cls_answered);
	TAP_EQ(tlibc.cls_wrong, 0, "and on libc (%zu of %zu boundaries answered)",
	       tlibc.cls_answered, tlibc.asked);
	TAP_OK(tlibc.cls_answered * 10 >= tlibc.asked * 7,
	       "xinsn classes at least 70%% of libc's instructions");
	lsd_iclass_close(ic);
	lsd_cs.free(in, 1);
	lsd_cs.close(&cs);
	return TAP_DONE();
}
