/* unit_iclass.c - instruction classes of hand-assembled x86-64 bytes.
 *
 * Oracle: the bytes were assembled with GNU as (intel syntax) and checked
 * with objdump -d; the expected counts are hand-applied from the table at
 * the top of decoder/iclass.c, one instruction at a time. */
#include <string.h>

#include "decoder/iclass.h"
#include "ls_err.h"
#include "tap.h"

enum { L = LSD_IC_LOAD, S = LSD_IC_STORE, B = LSD_IC_BRANCH, C = LSD_IC_CALL,
       R = LSD_IC_RET, I = LSD_IC_INT, F = LSD_IC_FP, V = LSD_IC_SIMD,
       O = LSD_IC_OTHER };

struct icase {
	const char *what;
	const uint8_t *code;
	size_t len;
	uint32_t ninsn;
	/* expected counts, indexed by enum lsd_iclass */
	uint16_t want[LSD_IC_MAX];
};

/* mov rax, rbx */
static const uint8_t c_mov_rr[] = { 0x48, 0x89, 0xd8 };
/* mov rax, qword ptr [rdi] */
static const uint8_t c_mov_load[] = { 0x48, 0x8b, 0x07 };
/* mov qword ptr [rdi], rax */
static const uint8_t c_mov_store[] = { 0x48, 0x89, 0x07 };
/* add qword ptr [rdi], rax */
static const uint8_t c_add_rmw[] = { 0x48, 0x01, 0x07 };
/* push rbx; pop rbx */
static const uint8_t c_pushpop[] = { 0x53, 0x5b };
/* call .+5 (the next instruction); ret */
static const uint8_t c_callret[] = { 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3 };
/* jne .+2 */
static const uint8_t c_jcc[] = { 0x75, 0x00 };
/* addsd xmm0, xmm1 */
static const uint8_t c_addsd[] = { 0xf2, 0x0f, 0x58, 0xc1 };
/* addpd xmm0, xmm1 */
static const uint8_t c_addpd[] = { 0x66, 0x0f, 0x58, 0xc1 };
/* vaddps ymm0, ymm1, ymm2 */
static const uint8_t c_vaddps[] = { 0xc5, 0xf4, 0x58, 0xc2 };
/* fld qword ptr [rdi]; fadd st, st(1) */
static const uint8_t c_x87[] = { 0xdd, 0x07, 0xd8, 0xc1 };
/* nop; cpuid */
static const uint8_t c_nopcpuid[] = { 0x90, 0x0f, 0xa2 };
/* rep movsb */
static const uint8_t c_repmovsb[] = { 0xf3, 0xa4 };
/* lea rax, [rdi+8] -- an address, no memory access */
static const uint8_t c_lea[] = { 0x48, 0x8d, 0x47, 0x08 };
/* nop word ptr [rax+rax*1] -- a memory operand that is never accessed */
static const uint8_t c_nopw[] = { 0x66, 0x0f, 0x1f, 0x04, 0x00 };
/* add rax, qword ptr [rdi] */
static const uint8_t c_add_load[] = { 0x48, 0x03, 0x07 };
/* mulsd xmm0, qword ptr [rdi] */
static const uint8_t c_mulsd_mem[] = { 0xf2, 0x0f, 0x59, 0x07 };
/* paddd xmm0, xmm1 */
static const uint8_t c_paddd[] = { 0x66, 0x0f, 0xfe, 0xc1 };
/* movsd xmm0, qword ptr [rdi] (SSE2, not the string movsd) */
static const uint8_t c_movsd_sse[] = { 0xf2, 0x0f, 0x10, 0x07 };
/* stosq */
static const uint8_t c_stosq[] = { 0x48, 0xab };
/* jmp qword ptr [rax] -- an indirect jump through memory */
static const uint8_t c_jmp_mem[] = { 0xff, 0x20 };

#define CASE(what, c, n, ...) { what, c, sizeof(c), n, __VA_ARGS__ }

static const struct icase cases[] = {
	CASE("mov reg,reg: int", c_mov_rr, 1, { [I] = 1 }),
	CASE("mov reg,[mem]: load", c_mov_load, 1, { [L] = 1 }),
	CASE("mov [mem],reg: store", c_mov_store, 1, { [S] = 1 }),
	CASE("add [mem],reg: load+store+int", c_add_rmw, 1,
	     { [L] = 1, [S] = 1, [I] = 1 }),
	CASE("push; pop: store, load", c_pushpop, 2, { [S] = 1, [L] = 1 }),
	CASE("call; ret: call+store, ret+load", c_callret, 2,
	     { [C] = 1, [S] = 1, [R] = 1, [L] = 1 }),
	CASE("jcc: branch", c_jcc, 1, { [B] = 1 }),
	CASE("addsd: fp", c_addsd, 1, { [F] = 1 }),
	CASE("addpd: simd", c_addpd, 1, { [V] = 1 }),
	CASE("vaddps ymm: simd", c_vaddps, 1, { [V] = 1 }),
	CASE("fld [mem]; fadd: fp 2, load 1", c_x87, 2, { [F] = 2, [L] = 1 }),
	CASE("nop; cpuid: other 2", c_nopcpuid, 2, { [O] = 2 }),
	CASE("rep movsb: load+store", c_repmovsb, 1, { [L] = 1, [S] = 1 }),
	CASE("lea: int, no load", c_lea, 1, { [I] = 1 }),
	CASE("nopw [mem]: other, no load", c_nopw, 1, { [O] = 1 }),
	CASE("add reg,[mem]: load+int", c_add_load, 1, { [L] = 1, [I] = 1 }),
	CASE("mulsd xmm,[mem]: load+fp", c_mulsd_mem, 1, { [L] = 1, [F] = 1 }),
	CASE("paddd: simd", c_paddd, 1, { [V] = 1 }),
	CASE("movsd xmm,[mem] (SSE2): load+fp", c_movsd_sse, 1,
	     { [L] = 1, [F] = 1 }),
	CASE("stosq: store", c_stosq, 1, { [S] = 1 }),
	CASE("jmp [mem]: branch+load", c_jmp_mem, 1, { [B] = 1, [L] = 1 }),
};

int main(void)
{
	struct lsd_iclass_ctx *c;
	uint16_t out[LSD_IC_MAX];
	int ret;

	TAP_EQ(lsd_iclass_open(&c), 0, "lsd_iclass_open");
	if (!c)
		return 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct icase *k = &cases[i];

		memset(out, 0, sizeof(out));
		ret = lsd_iclass_count(c, LSD_MODE_64, k->code, k->len, 0x401000, k->ninsn,
				       out);
		TAP_OK(ret == (int)k->ninsn &&
		       !memcmp(out, k->want, sizeof(out)), "%s", k->what);
		if (ret != (int)k->ninsn || memcmp(out, k->want, sizeof(out))) {
			printf("#   ret %d;", ret);
			for (int j = 0; j < LSD_IC_MAX; j++)
				printf(" %s %u/%u", lsd_iclass_name(j),
				       out[j], k->want[j]);
			putchar('\n');
		}
	}

	/* Counts add up over calls: the block total is the sum. */
	memset(out, 0, sizeof(out));
	lsd_iclass_count(c, LSD_MODE_64, c_mov_rr, sizeof(c_mov_rr), 0, 1, out);
	lsd_iclass_count(c, LSD_MODE_64, c_add_rmw, sizeof(c_add_rmw), 0, 1, out);
	TAP_EQ(out[LSD_IC_INT], 2, "counts accumulate into out[]");

	/* 0x06 (push es) is invalid in 64-bit mode. */
	static const uint8_t bad[] = { 0x06 };
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_64, bad, sizeof(bad), 0, 1, out), -LS_EDECODE,
	       "invalid bytes: -LS_EDECODE");
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_64, c_mov_rr, sizeof(c_mov_rr), 0, 2, out),
	       -LS_EDECODE, "more instructions asked than bytes: -LS_EDECODE");
	TAP_EQ(lsd_iclass_count(NULL, LSD_MODE_64, c_mov_rr, 3, 0, 1, out), -LS_EINVAL,
	       "NULL context: -LS_EINVAL");
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_MAX, c_mov_rr, 3, 0, 1, out), -LS_EINVAL,
	       "mode out of range: -LS_EINVAL");

	/* 32-bit code (issue 19): 41 89 cb is "inc ecx; mov ebx, ecx" there
	 * (Intel SDM Vol. 2, INC: 40+rd is not encodable in 64-bit mode,
	 * where 41 is REX.B and the three bytes one "mov r11d, ecx"); 60 61
	 * is "pusha; popa", invalid in 64-bit mode.  Classes from the table
	 * in iclass.c: inc and a register mov are int; pusha stores, popa
	 * loads. */
	static const uint8_t inc_mov[] = { 0x41, 0x89, 0xcb };
	static const uint8_t pusha_popa[] = { 0x60, 0x61 };
	memset(out, 0, sizeof(out));
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_32, inc_mov, 3, 0x8049000, 2, out), 2,
	       "32-bit: 41 89 cb is two instructions");
	TAP_EQ(out[LSD_IC_INT], 2, "32-bit: inc and mov are int");
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_64, inc_mov, 3, 0x401000, 2, out),
	       -LS_EDECODE, "64-bit: 41 89 cb is one instruction");
	memset(out, 0, sizeof(out));
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_32, pusha_popa, 2, 0x8049000, 2, out), 2,
	       "32-bit: pusha; popa");
	TAP_OK(out[LSD_IC_STORE] == 1 && out[LSD_IC_LOAD] == 1,
	       "32-bit: pusha stores, popa loads");
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_64, pusha_popa, 2, 0x401000, 1, out),
	       -LS_EDECODE, "64-bit: pusha is invalid");
	/* 16-bit: 40 is "inc ax" there too. */
	memset(out, 0, sizeof(out));
	TAP_EQ(lsd_iclass_count(c, LSD_MODE_16, inc_mov, 1, 0, 1, out), 1,
	       "16-bit: 41 is inc cx");

	/* The mode of a module from its ELF header: e_ident[EI_CLASS] = 1
	 * and e_machine = 3 (EM_386) make 32-bit code; x86-64 or no ELF,
	 * 64-bit. */
	static const uint8_t elf32[20] = { 0x7f, 'E', 'L', 'F', 1, 1, 1, 0,
		[16] = 2, [18] = 3 };
	static const uint8_t elf64[20] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0,
		[16] = 2, [18] = 62 };
	TAP_EQ(lsd_cs_elf_mode(elf32, sizeof(elf32)), LSD_MODE_32, "ELF i386: 32-bit");
	TAP_EQ(lsd_cs_elf_mode(elf64, sizeof(elf64)), LSD_MODE_64, "ELF x86-64: 64-bit");
	TAP_EQ(lsd_cs_elf_mode(elf32, 19), LSD_MODE_64, "short header: 64-bit");
	TAP_EQ(lsd_cs_elf_mode(NULL, 0), LSD_MODE_64, "no bytes (raw dump): 64-bit");
	lsd_iclass_close(c);
	lsd_iclass_close(NULL);
	return TAP_DONE();
}
