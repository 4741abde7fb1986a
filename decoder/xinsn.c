/* xinsn.c - a small x86-64 instruction length decoder and branch
 * classifier for the common opcodes, in front of capstone.
 *
 * The static-block walk (sblock.c) needs of each instruction its length,
 * its branch kind and a direct branch's target.  capstone with details
 * costs about 3,200 instructions an instruction (sqlite3: 2.2e8 of a 1.9e9
 * decode for 58,000 instructions); this table walk costs a few dozen.  It
 * answers only where it is sure to say what capstone (4) says: the
 * one-byte opcodes and the two-byte (0F) opcodes compilers emit, with the
 * prefixes they emit them with.  Anything else (VEX and EVEX, x87, the
 * 0F 38 and 0F 3A maps, a lock or address-size prefix, a prefix on a
 * branch, far and privileged opcodes, a byte past the buffer) it leaves
 * to capstone.  unit_xinsn checks it against capstone on every instruction
 * boundary of the testdata programs, libc and loopscope itself.
 */
#include <string.h>

#include "decoder/decode_int.h"

/* How an opcode continues (tables below). */
enum {
	X_NO = 0,		/* not sure: capstone decides */
	X_M = 1,		/* a ModRM byte (and SIB, displacement) */
	X_I8 = 2,		/* an 8-bit immediate */
	X_IZ = 4,		/* a 16/32-bit immediate (16 with 66, no REX.W) */
	X_OK = 8,		/* nothing more, or only what the other bits say */
	X_MEM = 16,		/* ModRM must name memory */
	X_REG = 32,		/* ModRM must name a register */
	X_STR = 64,		/* takes rep prefixes (F2, F3) */
};

/* The one-byte map in 64-bit mode, without the opcodes handled in
 * xinsn_one() (branches, groups, mov imm). */
static uint8_t one_byte(unsigned op)
{
	if (op < 0x40) {
		switch (op & 7) {
		case 0: case 1: case 2: case 3:
			return X_OK | X_M;		/* ALU Eb,Gb .. Gv,Ev */
		case 4:
			return X_OK | X_I8;		/* ALU AL,Ib */
		case 5:
			return X_OK | X_IZ;		/* ALU eAX,Iz */
		default:
			return X_NO;			/* prefixes, invalid */
		}
	}
	if (op >= 0x50 && op <= 0x5f)
		return X_OK;				/* push, pop */
	switch (op) {
	case 0x63:					/* movsxd */
	case 0x84: case 0x85: case 0x86: case 0x87:	/* test, xchg */
	case 0x88: case 0x89: case 0x8a: case 0x8b:	/* mov */
	case 0xd0: case 0xd1: case 0xd2: case 0xd3:	/* shifts by 1, CL */
		return X_OK | X_M;
	case 0x8d:					/* lea */
		return X_OK | X_M | X_MEM;
	case 0x68:
		return X_OK | X_IZ;
	case 0x69:
		return X_OK | X_M | X_IZ;
	case 0x6a: case 0xa8:
		return X_OK | X_I8;
	case 0x6b: case 0xc0: case 0xc1:
		return X_OK | X_M | X_I8;
	case 0x80: case 0x83:
		return X_OK | X_M | X_I8;
	case 0x81:
		return X_OK | X_M | X_IZ;
	case 0xa9:
		return X_OK | X_IZ;
	case 0x90: case 0x91: case 0x92: case 0x93:	/* nop, xchg */
	case 0x94: case 0x95: case 0x96: case 0x97:
	case 0x98: case 0x99:				/* cdqe, cqo */
	case 0x9c: case 0x9d: case 0x9e: case 0x9f:	/* pushf .. lahf */
	case 0xc9:					/* leave */
	case 0xf5: case 0xf8: case 0xf9: case 0xfc: case 0xfd: /* flags */
		return X_OK;
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:	/* movs, cmps */
	case 0xaa: case 0xab: case 0xac: case 0xad:	/* stos, lods */
	case 0xae: case 0xaf:				/* scas */
		return X_OK | X_STR;
	default:
		return X_NO;
	}
}

/* Prefix masks of the two-byte map: which of none, 66, F3, F2 make an
 * instruction capstone knows. */
#define P_N 1u
#define P_66 2u
#define P_F3 4u
#define P_F2 8u
#define P_ALL 15u

/* The two-byte (0F) map: *pfx the prefixes allowed; flags as above. */
static uint8_t two_byte(unsigned op, unsigned *pfx)
{
	*pfx = P_N | P_66;
	if (op >= 0x40 && op <= 0x4f)			/* cmovcc */
		return X_OK | X_M;
	if ((op >= 0x60 && op <= 0x6b) || (op >= 0x74 && op <= 0x76) ||
	    (op >= 0xd1 && op <= 0xd5) || (op >= 0xd8 && op <= 0xdf) ||
	    (op >= 0xe0 && op <= 0xe5) || (op >= 0xe8 && op <= 0xef) ||
	    (op >= 0xf1 && op <= 0xf6) || (op >= 0xf8 && op <= 0xfe))
		return X_OK | X_M;			/* MMX, SSE2 integer */
	switch (op) {
	case 0x10: case 0x11:				/* movups .. movsd */
	case 0x2a: case 0x2c: case 0x2d:		/* cvt */
	case 0x51: case 0x58: case 0x59: case 0x5a:	/* sqrt, add, mul, cvt */
	case 0x5c: case 0x5d: case 0x5e: case 0x5f:	/* sub, min, div, max */
		*pfx = P_ALL;
		return X_OK | X_M;
	case 0x14: case 0x15:				/* unpck */
	case 0x28: case 0x29:				/* movaps, movapd */
	case 0x2e: case 0x2f:				/* ucomis, comis */
	case 0x54: case 0x55: case 0x56: case 0x57:	/* and, andn, or, xor */
	case 0x6e:					/* movd, movq */
	case 0xa3: case 0xa5: case 0xab: case 0xad:	/* bt, shld, bts, shrd */
	case 0xaf:					/* imul */
	case 0xb3: case 0xbb:				/* btr, btc */
	case 0xb6: case 0xb7: case 0xbe: case 0xbf:	/* movzx, movsx */
		return X_OK | X_M;
	case 0x13: case 0x17:				/* movlp, movhp */
		return X_OK | X_M | X_MEM;
	case 0x12: case 0x16:		/* movlps/movhlps, movhps/movlhps */
		*pfx = P_N;
		return X_OK | X_M;
	case 0x52: case 0x53:				/* rsqrt, rcp */
		*pfx = P_N | P_F3;
		return X_OK | X_M;
	case 0x5b:					/* cvtdq2ps .. */
		*pfx = P_N | P_66 | P_F3;
		return X_OK | X_M;
	case 0x6f: case 0x7f:				/* movq, movdqa, movdqu */
		*pfx = P_N | P_66 | P_F3;
		return X_OK | X_M;
	case 0x7e:					/* movd, movq */
		*pfx = P_N | P_66 | P_F3;
		return X_OK | X_M;
	case 0xd6:					/* movq */
		*pfx = P_66;
		return X_OK | X_M;
	case 0xd7:					/* pmovmskb */
		return X_OK | X_M | X_REG;
	case 0xe6:					/* cvt */
		*pfx = P_66 | P_F3 | P_F2;
		return X_OK | X_M;
	case 0xe7:					/* movntq, movntdq */
		return X_OK | X_M | X_MEM;
	case 0x70:					/* pshufw .. pshuflw */
		*pfx = P_ALL;
		return X_OK | X_M | X_I8;
	case 0xc2:					/* cmpps .. cmpsd */
		*pfx = P_ALL;
		return X_OK | X_M | X_I8;
	case 0xa4: case 0xac: case 0xc6:		/* shld, shrd, shufp */
		return X_OK | X_M | X_I8;
	case 0xc5:					/* pextrw */
		return X_OK | X_M | X_I8 | X_REG;
	case 0xc4:					/* pinsrw */
		return X_OK | X_M | X_I8;
	case 0xb8:					/* popcnt */
		*pfx = P_F3;
		return X_OK | X_M;
	case 0xbc: case 0xbd:				/* bsf/tzcnt, bsr/lzcnt */
		*pfx = P_N | P_66 | P_F3;
		return X_OK | X_M;
	case 0xc0: case 0xc1:				/* xadd */
		return X_OK | X_M;
	case 0xc3:					/* movnti */
		*pfx = P_N;
		return X_OK | X_M | X_MEM;
	default:
		return X_NO;
	}
}

/* Length of ModRM, SIB and displacement at p (n bytes), with 64-bit
 * addressing; 0 if cut short.  *mod and *reg: the ModRM fields. */
static size_t modrm_len(const uint8_t *p, size_t n, unsigned *mod, unsigned *reg)
{
	unsigned m, rm;
	size_t k = 1;

	if (!n)
		return 0;
	m = p[0];
	*mod = m >> 6;
	*reg = (m >> 3) & 7;
	rm = m & 7;
	if (*mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		k = 2;
		if (*mod == 0 && (p[1] & 7) == 5)
			k += 4;
	} else if (*mod == 0 && rm == 5) {
		k += 4;				/* RIP-relative */
	}
	if (*mod == 1)
		k += 1;
	else if (*mod == 2)
		k += 4;
	return k <= n ? k : 0;
}

static int32_t rel32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);		/* the trace's x86-64: little-endian */
	return (int32_t)v;
}

/* (decode_int.h) */
int lsd_xinsn(const uint8_t *code, size_t n, uint64_t ip, enum lsd_kind *kind,
	      uint64_t *target)
{
	const uint8_t *p = code;
	unsigned op, rex = 0, o16 = 0, rep = 0, seg = 0, fl, pfx = 0, mod = 0, reg = 0;
	size_t len, k, imm = 0;

	if (n > 15)
		n = 15;			/* the longest instruction */
	/* Legacy prefixes, then REX just before the opcode. */
	for (;; p++) {
		if (p >= code + n)
			return 0;
		switch (*p) {
		case 0x66:
			o16++;
			continue;
		case 0xf2: case 0xf3:
			if (rep)
				return 0;
			rep = *p;
			continue;
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
			seg++;
			continue;
		default:
			break;
		}
		break;
	}
	if ((*p & 0xf0) == 0x40) {
		rex = *p++;
		if (p >= code + n)
			return 0;
	}
	op = *p++;
	len = (size_t)(p - code);
	*target = 0;
	*kind = LSD_K_OTHER;

	if (op == 0x0f) {
		if (len >= n)
			return 0;
		op = *p++;
		len++;
		if (op == 0x05 && !o16 && !rep && !seg && !rex) {	/* syscall */
			*kind = LSD_K_FAR;
			return (int)len;
		}
		if (op >= 0x80 && op <= 0x8f) {			/* jcc rel32 */
			if (o16 || rep || seg || rex || len + 4 > n)
				return 0;
			*kind = LSD_K_COND;
			*target = ip + len + 4 + (uint64_t)(int64_t)rel32(p);
			return (int)(len + 4);
		}
		if (op == 0x1e) {			/* endbr64, endbr32 */
			if (rep != 0xf3 || o16 || rex || seg || len >= n ||
			    (p[0] != 0xfa && p[0] != 0xfb))
				return 0;
			return (int)(len + 1);
		}
		if (op == 0x1f || (op >= 0x90 && op <= 0x9f) || op == 0x18) {
			/* nop Ev, setcc Eb, prefetch: capstone knows the
			 * forms compilers write, /0 (prefetch: /0-/3). */
			if (rep || (op != 0x1f && o16))
				return 0;
			k = modrm_len(p, n - len, &mod, &reg);
			if (!k || (op == 0x18 ? reg > 3 || mod == 3 : reg != 0))
				return 0;
			return (int)(len + k);
		}
		if (op >= 0xc8 && op <= 0xcf) {			/* bswap */
			if (o16 || rep)
				return 0;
			return (int)len;
		}
		fl = two_byte(op, &pfx);
		if (fl == X_NO || (o16 && rep) || o16 > 1)
			return 0;
		if (!(pfx & (rep == 0xf3 ? P_F3 : rep == 0xf2 ? P_F2 : o16 ? P_66 : P_N)))
			return 0;
		k = modrm_len(p, n - len, &mod, &reg);
		if (!k || ((fl & X_MEM) && mod == 3) || ((fl & X_REG) && mod != 3))
			return 0;
		len += k;
		if (fl & X_I8)
			len++;
		return len <= n ? (int)len : 0;
	}

	/* One-byte map.  Branches take no prefix but REX here. */
	switch (op) {
	case 0xeb: case 0x70: case 0x71: case 0x72: case 0x73: case 0x74:
	case 0x75: case 0x76: case 0x77: case 0x78: case 0x79: case 0x7a:
	case 0x7b: case 0x7c: case 0x7d: case 0x7e: case 0x7f:
		if (o16 || rep || seg || rex || len + 1 > n)
			return 0;
		*kind = op == 0xeb ? LSD_K_JMP : LSD_K_COND;
		*target = ip + len + 1 + (uint64_t)(int64_t)(int8_t)p[0];
		return (int)(len + 1);
	case 0xe8: case 0xe9:
		if (o16 || rep || seg || rex || len + 4 > n)
			return 0;
		*kind = op == 0xe8 ? LSD_K_CALL : LSD_K_JMP;
		*target = ip + len + 4 + (uint64_t)(int64_t)rel32(p);
		return (int)(len + 4);
	case 0xc3:
		if (o16 || rep || seg || rex)
			return 0;
		*kind = LSD_K_RET;
		return (int)len;
	case 0xc2:
		if (o16 || rep || seg || rex || len + 2 > n)
			return 0;
		*kind = LSD_K_RET;
		return (int)(len + 2);
	case 0xb0: case 0xb1: case 0xb2: case 0xb3:	/* mov r8, Ib */
	case 0xb4: case 0xb5: case 0xb6: case 0xb7:
		imm = 1;
		break;
	case 0xb8: case 0xb9: case 0xba: case 0xbb:	/* mov r, Iv */
	case 0xbc: case 0xbd: case 0xbe: case 0xbf:
		imm = rex & 8 ? 8 : o16 ? 2 : 4;
		break;
	case 0xf6: case 0xf7: case 0xfe: case 0xff:
	case 0x8f: case 0xc6: case 0xc7: {		/* groups */
		if (rep || o16 > 1)
			return 0;
		k = modrm_len(p, n - len, &mod, &reg);
		if (!k)
			return 0;
		switch (op) {
		case 0xf6: case 0xf7:	/* test Ib/Iz; not, neg, mul .. idiv */
			if (reg == 1)
				return 0;
			if (!reg)
				imm = op == 0xf6 ? 1 : (o16 && !(rex & 8)) ? 2 : 4;
			break;
		case 0xfe:				/* inc, dec */
			if (reg > 1)
				return 0;
			break;
		case 0xff:
			if (reg == 2 || reg == 4) {	/* call, jmp indirect */
				if (o16 || seg)
					return 0;
				*kind = reg == 2 ? LSD_K_ICALL : LSD_K_IJMP;
			} else if (reg != 0 && reg != 1 && reg != 6) {
				return 0;		/* far, invalid */
			}
			break;
		case 0x8f:				/* pop Ev (else XOP) */
			if (reg)
				return 0;
			break;
		default:	/* c6, c7: mov Ib/Iz (else xabort, xbegin) */
			if (reg)
				return 0;
			imm = op == 0xc6 ? 1 : (o16 && !(rex & 8)) ? 2 : 4;
			break;
		}
		len += k + imm;
		return len <= n ? (int)len : 0;
	}
	default:
		break;
	}
	if (!imm) {
		fl = one_byte(op);
		if (fl == X_NO || o16 > 1)
			return 0;
		if (rep && !(fl & X_STR) && !(op == 0x90 && rep == 0xf3 && !rex && !o16))
			return 0;			/* only rep movs .. and pause */
		if (fl & X_M) {
			k = modrm_len(p, n - len, &mod, &reg);
			if (!k || ((fl & X_MEM) && mod == 3))
				return 0;
			len += k;
		}
		if (fl & X_I8)
			imm = 1;
		else if (fl & X_IZ)
			imm = (o16 && !(rex & 8)) ? 2 : 4;
	} else if (rep) {
		return 0;
	}
	len += imm;
	return len <= n ? (int)len : 0;
}

int lsd_sweep_step(csh cs, cs_insn *in, int mode, const uint8_t **p, size_t *len,
		   uint64_t *a)
{
	enum lsd_kind kind;
	uint64_t target;
	int n = mode == LSD_MODE_64 ? lsd_xinsn(*p, *len, *a, &kind, &target) : 0;

	if (n > 0) {
		*p += n;
		*len -= (size_t)n;
		*a += (uint64_t)n;
		return n;
	}
	if (lsd_cs.disasm_iter(cs, p, len, a, in))
		return in->size;
	++*p;
	--*len;
	++*a;
	return 0;
}

/* Class bits (1 << LSD_IC_*) and the rule of iclass.c, for the
 * general-purpose opcodes only.  The rule reads capstone's access flags,
 * so their quirks are kept where the tables answer (a rotate's memory
 * read only, test's written; setcc to memory, read or written by the
 * condition, is left to capstone): the counts are capstone's
 * (unit_xinsn compares them on every instruction it sweeps). */
#define K_L (1u << LSD_IC_LOAD)
#define K_S (1u << LSD_IC_STORE)
#define K_B (1u << LSD_IC_BRANCH)
#define K_C (1u << LSD_IC_CALL)
#define K_R (1u << LSD_IC_RET)
#define K_I (1u << LSD_IC_INT)
#define K_O (1u << LSD_IC_OTHER)

/* The classes of a one-byte opcode op (ModRM: mem names memory, reg its
 * reg field); 0: not sure. */
static unsigned class_one(unsigned op, int mem, unsigned reg, unsigned rex,
			  unsigned rep, unsigned o16)
{
	/* an operation on r/m: reads, and writes unless only compared */
	const unsigned rmw = mem ? K_L | K_S | K_I : K_I;
	const unsigned rd = mem ? K_L | K_I : K_I;

	if (op < 0x40 && (op & 7) < 4)		/* ALU; cmp (38-3b) only reads */
		return (op & 2) || op >> 3 == 7 ? rd : rmw;
	if (op < 0x40 && (op & 7) < 6)		/* ALU AL/eAX, imm */
		return K_I;
	if (op >= 0x50 && op <= 0x57)
		return K_S;
	if (op >= 0x58 && op <= 0x5f)
		return K_L;
	if ((op >= 0x70 && op <= 0x7f) || op == 0xeb || op == 0xe9)
		return K_B;
	if (op >= 0xb0 && op <= 0xbf)
		return K_I;
	switch (op) {
	case 0x63: case 0x8a: case 0x8b:	/* movsxd, mov r, r/m: moves */
		return mem ? K_L : K_I;
	case 0x88: case 0x89:			/* mov r/m, r */
		return mem ? K_S : K_I;
	case 0x86: case 0x87:			/* xchg: a move */
		return mem ? K_L | K_S : K_I;
	case 0x84: case 0x85: case 0x69: case 0x6b:	/* test, imul */
		return rd;
	case 0x8d: case 0x98: case 0x99: case 0x9e: case 0x9f: case 0xa8:
	case 0xa9: case 0xf5: case 0xf8: case 0xf9: case 0xfc: case 0xfd:
	case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96:
	case 0x97:			/* lea, cdqe, cqo, sahf, lahf, test, flags, xchg */
		return o16 && op >= 0x91 && op <= 0x97 ? 0 : K_I;
	case 0x90:
		if (o16)
			return 0;
		return rep == 0xf3 || !(rex & 1) ? K_O : K_I;	/* pause, nop; xchg r8 */
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: case 0xc0: case 0xc1:
		/* shifts; capstone 4 marks a rotate's memory read only */
		return reg < 4 ? rd : rmw;
	case 0x68: case 0x6a: case 0x9c:	/* push imm, pushf */
		return K_S;
	case 0x9d:
		return K_L;
	case 0xc9:				/* leave */
		return K_L | K_I;
	case 0x80: case 0x81: case 0x83:	/* group 1: /7 is cmp */
		return reg == 7 ? rd : rmw;
	case 0xa4: case 0xa5:			/* movs */
		return K_L | K_S;
	case 0xa6: case 0xa7: case 0xae: case 0xaf:	/* cmps, scas */
		return K_L | K_I;
	case 0xaa: case 0xab:			/* stos */
		return K_S;
	case 0xac: case 0xad:			/* lods */
		return K_L;
	case 0xe8:
		return K_C | K_S;
	case 0xc2: case 0xc3:
		return K_R | K_L;
	case 0xf6: case 0xf7:	/* test (written, says capstone 4); not, neg; mul .. idiv */
		return reg == 0 || reg == 2 || reg == 3 ? rmw : rd;
	case 0xfe:
		return rmw;		/* inc, dec */
	case 0xff:
		switch (reg) {
		case 0: case 1:
			return rmw;
		case 2:
			return K_C | K_S | (mem ? K_L : 0);
		case 4:
			return K_B | (mem ? K_L : 0);
		case 6:
			return K_S | (mem ? K_L : 0);
		}
		return 0;
	case 0x8f:				/* pop r/m */
		return K_L | (mem ? K_S : 0);
	case 0xc6: case 0xc7:			/* mov r/m, imm */
		return mem ? K_S : K_I;
	}
	return 0;
}

/* The same for a two-byte (0F) opcode. */
static unsigned class_two(unsigned op, int mem)
{
	const unsigned rmw = mem ? K_L | K_S | K_I : K_I;
	const unsigned rd = mem ? K_L | K_I : K_I;

	if (op >= 0x80 && op <= 0x8f)
		return K_B;
	if (op >= 0x40 && op <= 0x4f)		/* cmovcc */
		return rd;
	if (op >= 0x90 && op <= 0x9f)		/* setcc; to memory capstone 4 says
						 * read or written by the condition */
		return mem ? 0 : K_I;
	if (op >= 0xc8 && op <= 0xcf)		/* bswap */
		return K_I;
	switch (op) {
	case 0x05: case 0x1e: case 0x1f: case 0x18:	/* syscall, endbr, nop, prefetch */
		return K_O;
	case 0xaf: case 0xa3: case 0xb8: case 0xbc: case 0xbd:	/* imul, bt, popcnt, bsf, bsr */
		return rd;
	case 0xab: case 0xb3: case 0xbb:	/* bts, btr, btc */
	case 0xa4: case 0xa5: case 0xac: case 0xad:	/* shld, shrd */
	case 0xc0: case 0xc1:			/* xadd */
		return rmw;
	case 0xb6: case 0xb7: case 0xbe: case 0xbf:	/* movzx, movsx: moves */
		return mem ? K_L : K_I;
	}
	return 0;		/* SSE, MMX and the rest: capstone */
}

/* (decode_int.h) */
int lsd_xinsn_class(const uint8_t *code, size_t n, unsigned *cls)
{
	const uint8_t *p = code, *end;
	unsigned op, rex = 0, rep = 0, o16 = 0, reg = 0;
	enum lsd_kind kind;
	uint64_t target;
	int len = lsd_xinsn(code, n, 0, &kind, &target), mem = 0;

	if (len <= 0)
		return 0;
	end = code + len;
	/* the prefixes lsd_xinsn() took, then the opcode and ModRM */
	for (;; p++) {
		if (*p == 0x66)
			o16 = 1;
		else if (*p == 0xf2 || *p == 0xf3)
			rep = *p;
		else if (*p != 0x26 && *p != 0x2e && *p != 0x36 && *p != 0x3e &&
			 *p != 0x64 && *p != 0x65)
			break;
	}
	if ((*p & 0xf0) == 0x40)
		rex = *p++;
	op = *p++;
	if (op == 0x0f)
		op = 0x100 | *p++;
	if (p < end) {		/* a ModRM byte, where the opcode has one */
		mem = *p >> 6 != 3;
		reg = (*p >> 3) & 7;
	}
	*cls = op & 0x100 ? class_two(op & 0xff, mem) :
			    class_one(op, mem, reg, rex, rep, o16);
	return *cls ? len : 0;
}
