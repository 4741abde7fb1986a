/* iclass.c - instruction classes of x86 code (64-, 32- and 16-bit) with capstone.
 *
 * The rule, applied to each instruction in this order.  An instruction
 * counts in every class whose row matches; "other" only when none does.
 *
 * | class  | counts an instruction that ...                                  |
 * | ------ | --------------------------------------------------------------- |
 * | load   | reads memory: an explicit memory operand capstone marks read    |
 * |        | (or marks neither read nor write), pop, leave, ret, the string  |
 * |        | reads lods/movs/cmps/scas; not lea, nop, prefetch (no access)   |
 * | store  | writes memory: an explicit memory operand marked written, push, |
 * |        | call (it pushes the return address, as the hardware does with a |
 * |        | store), enter, the string writes movs/stos                      |
 * | branch | is a jump: jmp, jcc, loop*, jrcxz (capstone group JUMP)         |
 * | call   | is a call (group CALL)                                          |
 * | ret    | is a near return (group RET; iret is "other")                   |
 * | int    | does integer work on general-purpose registers: ALU, shifts,    |
 * |        | compares, lea, cmov, setcc, mul/div, cmps/scas, leave, and a    |
 * |        | move (mov, movzx, movsx, movsxd, movabs, xchg) only when it has |
 * |        | no memory operand -- a move to or from memory is only a load or |
 * |        | a store, and push/pop/lods/stos/movs are never "int"            |
 * | fp     | x87 (group FPU, except fxsave/fxrstor) and scalar SSE/AVX       |
 * |        | floating point: an SSE/AVX/FMA instruction whose name, without  |
 * |        | a leading "v", does not start with "p" and ends in "ss"/"sd"    |
 * |        | (addsd, vfmadd231ss, movss, cmpsd), or is a scalar conversion   |
 * |        | or compare (cvtsd2si, cvttss2si, comisd, ucomiss)               |
 * | simd   | every other SSE/AVX/AVX-512/MMX/3DNow/AES/SHA/F16C/XOP/PCLMUL   |
 * |        | instruction: packed FP (addpd, vaddps), packed integer (paddd,  |
 * |        | pxor), shuffles, vector moves (movaps, movdqa, movd, movq xmm)  |
 * | other  | none of the above: nop, cpuid, rdtsc, syscall, int3, ud2,       |
 * |        | endbr64, pause, fences, prefetch, xsave/fxsave, ldmxcsr, hlt... |
 *
 * So "add [rdi], rax" is load + store + int, "mov rax, [rdi]" load only,
 * "push rbx" store only, "call f" call + store, "ret" ret + load, and
 * "rep movsb" load + store, counted once per instruction (as PT counts it).
 */
#include <capstone/capstone.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "decoder/iclass.h"
#include "ls_err.h"

struct lsd_iclass_ctx {
	csh cs[LSD_MODE_MAX];	/* one per execution mode */
	cs_insn *insn;		/* one reusable instruction for disasm_iter */
};

/* capstone 4 sorts two tables of its x86 printers (the registers of
 * instructions with an implicit accumulator, one table per syntax) the
 * first time any handle prints an instruction with details, into
 * globals, with no lock: handles of two threads (shards, pieces) would
 * sort them at once, each reading what the other is moving
 * (ThreadSanitizer saw it).  So one handle of each syntax prints an
 * instruction first, once per process, before any handle is given out. */
static void cs_warm_once(void)
{
	static const uint8_t add_eax[] = { 0x05, 0x01, 0x00, 0x00, 0x00 };
	static const cs_opt_value syntax[] = { CS_OPT_SYNTAX_INTEL, CS_OPT_SYNTAX_ATT };
	size_t i;

	for (i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++) {
		cs_insn *insn = NULL;
		csh h;
		size_t n;

		if (lsd_cs.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
			continue;
		if (lsd_cs.option(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK &&
		    lsd_cs.option(h, CS_OPT_SYNTAX, syntax[i]) == CS_ERR_OK) {
			n = lsd_cs.disasm(h, add_eax, sizeof(add_eax), 0x1000, 1, &insn);
			if (n)
				lsd_cs.free(insn, n);
		}
		lsd_cs.close(&h);
	}
}

int lsd_cs_open_mode(csh *cs, unsigned flags, int mode)
{
	static const cs_mode modes[LSD_MODE_MAX] = {
		[LSD_MODE_64] = CS_MODE_64, [LSD_MODE_32] = CS_MODE_32,
		[LSD_MODE_16] = CS_MODE_16,
	};
	static pthread_once_t warm = PTHREAD_ONCE_INIT;

	if (lsd_cslib_load() < 0)
		return -LS_EUNSUP;
	(void)pthread_once(&warm, cs_warm_once);
	if (!cs || mode < 0 || mode >= LSD_MODE_MAX ||
	    lsd_cs.open(CS_ARCH_X86, modes[mode], cs) != CS_ERR_OK)
		return -LS_EUNSUP;
	if (((flags & LSD_CS_DETAIL) &&
	     lsd_cs.option(*cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) ||
	    ((flags & LSD_CS_ATT) &&
	     lsd_cs.option(*cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT) != CS_ERR_OK)) {
		lsd_cs.close(cs);
		return -LS_EUNSUP;
	}
	return 0;
}

int lsd_cs_elf_mode(const uint8_t *file, size_t len)
{
	/* e_ident[EI_CLASS] is 1 (ELFCLASS32), e_machine (offset 18,
	 * little-endian) 3 (EM_386). */
	if (file && len >= 20 && !memcmp(file, "\177ELF", 4) && file[4] == 1 &&
	    file[18] == 3 && file[19] == 0)
		return LSD_MODE_32;
	return LSD_MODE_64;
}

int lsd_cs_open(csh *cs, unsigned flags)
{
	return lsd_cs_open_mode(cs, flags, LSD_MODE_64);
}

int lsd_iclass_open(struct lsd_iclass_ctx **pc)
{
	struct lsd_iclass_ctx *c;

	if (!pc)
		return -LS_EINVAL;
	*pc = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	for (int m = 0; m < LSD_MODE_MAX; m++) {
		if (lsd_cs_open_mode(&c->cs[m], LSD_CS_DETAIL, m) < 0) {
			lsd_iclass_close(c);
			return -LS_EUNSUP;
		}
	}
	c->insn = lsd_cs.malloc(c->cs[LSD_MODE_64]);
	if (!c->insn) {
		lsd_iclass_close(c);
		return -LS_ENOMEM;
	}
	*pc = c;
	return 0;
}

void lsd_iclass_close(struct lsd_iclass_ctx *c)
{
	if (!c)
		return;
	if (c->insn)
		lsd_cs.free(c->insn, 1);
	for (int m = 0; m < LSD_MODE_MAX; m++)
		if (c->cs[m])
			lsd_cs.close(&c->cs[m]);
	free(c);
}

static int in_group(const cs_detail *d, int g)
{
	for (int i = 0; i < d->groups_count; i++)
		if (d->groups[i] == g)
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

static int starts_with(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

/* Vector extension groups: an instruction in one of them is fp or simd. */
static int is_vector(const cs_detail *d)
{
	static const int g[] = {
		X86_GRP_3DNOW, X86_GRP_AES, X86_GRP_AVX, X86_GRP_AVX2,
		X86_GRP_AVX512, X86_GRP_F16C, X86_GRP_FMA, X86_GRP_FMA4,
		X86_GRP_MMX, X86_GRP_SHA, X86_GRP_SSE1, X86_GRP_SSE2,
		X86_GRP_SSE3, X86_GRP_SSE41, X86_GRP_SSE42, X86_GRP_SSE4A,
		X86_GRP_SSSE3, X86_GRP_PCLMUL, X86_GRP_XOP, X86_GRP_CDI,
		X86_GRP_ERI, X86_GRP_DQI, X86_GRP_BWI, X86_GRP_PFI,
		X86_GRP_VLX,
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (in_group(d, g[i]))
			return 1;
	return 0;
}

/* Scalar floating point among the vector-extension instructions, by name
 * (capstone has no scalar/packed attribute). */
static int is_scalar_fp(const char *mn)
{
	const char *b = mn[0] == 'v' ? mn + 1 : mn;

	if (b[0] == 'p')	/* packed integer: pminsd, pabsd end in "sd" too */
		return 0;
	if (starts_with(b, "comis") || starts_with(b, "ucomis"))
		return 1;
	if (starts_with(b, "cvt") && (strstr(b, "ss2") || strstr(b, "sd2") ||
				      ends_with(b, "2ss") || ends_with(b, "2sd")))
		return 1;
	return ends_with(b, "ss") || ends_with(b, "sd");
}

/* Instructions that are neither integer work nor anything else. */
static int is_other(unsigned id)
{
	switch (id) {
	case X86_INS_NOP: case X86_INS_CPUID: case X86_INS_RDTSC:
	case X86_INS_RDTSCP: case X86_INS_PAUSE: case X86_INS_LFENCE:
	case X86_INS_MFENCE: case X86_INS_SFENCE: case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW: case X86_INS_ENDBR64: case X86_INS_ENDBR32:
	case X86_INS_UD2: case X86_INS_HLT: case X86_INS_INT:
	case X86_INS_INT3: case X86_INS_INTO: case X86_INS_SYSCALL:
	case X86_INS_SYSENTER: case X86_INS_SYSRET: case X86_INS_XGETBV:
	case X86_INS_XSAVE: case X86_INS_XSAVEC: case X86_INS_XSAVEOPT:
	case X86_INS_XSAVES: case X86_INS_XRSTOR: case X86_INS_XRSTORS:
	case X86_INS_FXSAVE: case X86_INS_FXRSTOR: case X86_INS_FXSAVE64:
	case X86_INS_FXRSTOR64: case X86_INS_XSAVE64: case X86_INS_XRSTOR64:
	case X86_INS_LDMXCSR: case X86_INS_STMXCSR: case X86_INS_VLDMXCSR:
	case X86_INS_VSTMXCSR: case X86_INS_IRET: case X86_INS_IRETD:
	case X86_INS_IRETQ: case X86_INS_WAIT: case X86_INS_FNINIT:
	case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT: case X86_INS_VZEROUPPER:
	case X86_INS_VZEROALL: case X86_INS_EMMS:
		return 1;
	}
	return 0;
}

static int is_move(unsigned id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD: case X86_INS_MOVABS: case X86_INS_XCHG:
	case X86_INS_MOVBE:
		return 1;
	}
	return 0;
}

/* Adds the classes of one instruction to out. */
static void classify(const cs_insn *in, uint16_t out[LSD_IC_MAX])
{
	const cs_detail *d = in->detail;
	const cs_x86 *x = &d->x86;
	int cls[LSD_IC_MAX] = { 0 };
	int has_mem = 0, other = is_other(in->id);
	unsigned id = in->id;

	/* Memory operands; lea, nop and prefetch only name an address. */
	if (id != X86_INS_LEA && !other) {
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type != X86_OP_MEM)
				continue;
			has_mem = 1;
			if (op->access & CS_AC_WRITE)
				cls[LSD_IC_STORE] = 1;
			if ((op->access & CS_AC_READ) || !op->access)
				cls[LSD_IC_LOAD] = 1;
		}
	}
	/* Implicit memory: the stack and the string instructions. */
	switch (id) {
	case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
	case X86_INS_PUSHFD: case X86_INS_PUSHAW: case X86_INS_PUSHAL:
	case X86_INS_ENTER:
		cls[LSD_IC_STORE] = 1;
		break;
	case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFQ:
	case X86_INS_POPFD: case X86_INS_POPAW: case X86_INS_POPAL:
	case X86_INS_LEAVE:
		cls[LSD_IC_LOAD] = 1;
		break;
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
		cls[LSD_IC_LOAD] = cls[LSD_IC_STORE] = 1;
		break;
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ:
		cls[LSD_IC_STORE] = 1;
		break;
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD:
	case X86_INS_LODSQ:
		cls[LSD_IC_LOAD] = 1;
		break;
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD:
	case X86_INS_CMPSQ: case X86_INS_SCASB: case X86_INS_SCASW:
	case X86_INS_SCASD: case X86_INS_SCASQ:
		/* cmpsd is also the SSE2 compare; that one is handled below. */
		if (!is_vector(d))
			cls[LSD_IC_LOAD] = cls[LSD_IC_INT] = 1;
		break;
	case X86_INS_MOVSD:
		/* The string movsd (A5) has no SSE group; SSE2 movsd does. */
		if (!is_vector(d))
			cls[LSD_IC_LOAD] = cls[LSD_IC_STORE] = 1;
		break;
	}

	if (in_group(d, X86_GRP_JUMP)) {
		cls[LSD_IC_BRANCH] = 1;
	} else if (in_group(d, X86_GRP_CALL)) {
		cls[LSD_IC_CALL] = cls[LSD_IC_STORE] = 1;
	} else if (in_group(d, X86_GRP_RET)) {
		cls[LSD_IC_RET] = cls[LSD_IC_LOAD] = 1;
	} else if (other || in_group(d, X86_GRP_IRET) ||
		   in_group(d, X86_GRP_INT) || in_group(d, X86_GRP_PRIVILEGE)) {
		/* no compute class */
	} else if (in_group(d, X86_GRP_FPU)) {
		cls[LSD_IC_FP] = 1;
	} else if (is_vector(d)) {
		cls[is_scalar_fp(in->mnemonic) ? LSD_IC_FP : LSD_IC_SIMD] = 1;
	} else {
		switch (id) {
		case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
		case X86_INS_PUSHFD: case X86_INS_PUSHAW: case X86_INS_PUSHAL:
		case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFQ:
		case X86_INS_POPFD: case X86_INS_POPAW: case X86_INS_POPAL:
		case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
		case X86_INS_MOVSQ: case X86_INS_STOSB: case X86_INS_STOSW:
		case X86_INS_STOSD: case X86_INS_STOSQ: case X86_INS_LODSB:
		case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
			break;
		default:
			if (!is_move(id) || !has_mem)
				cls[LSD_IC_INT] = 1;
		}
	}

	int any = 0;

	for (int i = 0; i < LSD_IC_MAX; i++) {
		if (cls[i]) {
			out[i]++;
			any = 1;
		}
	}
	if (!any)
		out[LSD_IC_OTHER]++;
}

/* lsd_iclass_count() (tables 0: capstone alone) and lsd_iclass_block()
 * (tables 1: xinsn's tables first in 64-bit code, capstone where they
 * defer). */
static int count(struct lsd_iclass_ctx *c, int mode, const uint8_t *code, size_t len,
		 uint64_t ip, uint32_t ninsn, uint16_t out[LSD_IC_MAX], int tables)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = ip;
	uint32_t n;

	if (!c || (!code && len) || !out || mode < 0 || mode >= LSD_MODE_MAX)
		return -LS_EINVAL;
	tables = tables && mode == LSD_MODE_64;
	for (n = 0; n < ninsn; n++) {
		unsigned cls = 0;
		int k = tables && left ? lsd_xinsn_class(p, left, &cls) : 0;

		if (k > 0) {
			for (int i = 0; i < LSD_IC_MAX; i++)
				out[i] += cls >> i & 1;
			p += k;
			left -= (size_t)k;
			addr += (uint64_t)k;
			continue;
		}
		if (!lsd_cs.disasm_iter(c->cs[mode], &p, &left, &addr, c->insn))
			return -LS_EDECODE;
		classify(c->insn, out);
	}
	return (int)n;
}

int lsd_iclass_count(struct lsd_iclass_ctx *c, int mode, const uint8_t *code,
		     size_t len, uint64_t ip, uint32_t ninsn, uint16_t out[LSD_IC_MAX])
{
	return count(c, mode, code, len, ip, ninsn, out, 0);
}

int lsd_iclass_block(struct lsd_iclass_ctx *c, int mode, const uint8_t *code,
		     size_t len, uint64_t ip, uint32_t ninsn, uint16_t out[LSD_IC_MAX])
{
	return count(c, mode, code, len, ip, ninsn, out, 1);
}
