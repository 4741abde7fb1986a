/* lsc_instr.c - the IR pass: which instruction ends each block exit, and
 * the code that turns it into PT packets.
 *
 * Blocks are not chased (guest_chase = False), so a conditional branch
 * always ends its block or leaves it by an Ist_Exit.  We classify each
 * instruction by its opcode bytes and use the IR only for where and to
 * what it exits, so odd IR (rep loops that exit to themselves, splits at
 * the block size limit, client requests) cannot be mistaken for branches.
 *
 * The hot paths are inline IR on lsc_hot: a TNT bit is one shift-or into
 * lsc_hot.enc.tnt, a direct call pushes onto the return ring, a return
 * compares with its top.  Dirty calls happen only for TIPs, full TNT
 * words, syscalls, and pending work at block entry.  Without return
 * compression (--lsc-retcomp=no) calls push nothing and every return is a
 * dirty call into the encoder, which writes its TIP.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"
#include "lsc_tool.h"

enum lsc_cls {
	LSC_C_OTHER,
	LSC_C_JCC,	/* Jcc, LOOPcc, JrCXZ: a TNT bit */
	LSC_C_JMP,	/* direct jmp: nothing */
	LSC_C_CALL,	/* direct call: push */
	LSC_C_CALL0,	/* call to the next insn: libipt does not push */
	LSC_C_ICALL,	/* indirect call: push + TIP */
	LSC_C_IJMP,	/* indirect jmp, far jmp/call: TIP */
	LSC_C_RET,	/* near ret: compressed or TIP */
	LSC_C_SYS,	/* syscall, int n, sysenter: TIP.PGD */
	LSC_C_REP,	/* rep-prefixed string insn: loops onto itself */
};

/* Client request preamble "rol $3,%rdi; rol $13,%rdi; ..." + one insn:
 * one IMark for VEX, five instructions for libipt.
 */
static const UChar lsc_clreq_pre[4] = { 0x48, 0xc1, 0xc7, 0x03 };

static Int lsc_s32(const UChar *p)
{
	return (Int)((UInt)p[0] | (UInt)p[1] << 8 | (UInt)p[2] << 16 |
		     (UInt)p[3] << 24);
}

static enum lsc_cls lsc_classify(const UChar *p, UInt len)
{
	UInt i = 0;
	Bool rep = False;
	UChar op;

	for (; i < len; i++) {
		UChar b = p[i];

		if (b == 0xf2 || b == 0xf3)
			rep = True;
		else if (b != 0x66 && b != 0x67 && b != 0x2e && b != 0x3e &&
			 b != 0x26 && b != 0x36 && b != 0x64 && b != 0x65 &&
			 b != 0xf0)
			break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return LSC_C_OTHER;
	op = p[i];
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
		return LSC_C_JCC;
	switch (op) {
	case 0x0f:
		if (i + 1 >= len)
			return LSC_C_OTHER;
		if (p[i + 1] >= 0x80 && p[i + 1] <= 0x8f)
			return LSC_C_JCC;
		if (p[i + 1] == 0x05 || p[i + 1] == 0x34)
			return LSC_C_SYS;
		return LSC_C_OTHER;
	case 0xe8:
		if (len < 5)
			return LSC_C_OTHER;
		return lsc_s32(p + len - 4) ? LSC_C_CALL : LSC_C_CALL0;
	case 0xe9:
	case 0xeb:
		return LSC_C_JMP;
	case 0xc2:
	case 0xc3:
		return LSC_C_RET;
	case 0xcd:
		return LSC_C_SYS;
	case 0xff:
		if (i + 1 >= len)
			return LSC_C_OTHER;
		switch ((p[i + 1] >> 3) & 7) {
		case 2:
			return LSC_C_ICALL;
		case 3:
		case 4:
		case 5:
			return LSC_C_IJMP;
		}
		return LSC_C_OTHER;
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf:
		return rep ? LSC_C_REP : LSC_C_OTHER;
	}
	return LSC_C_OTHER;
}

/* The taken target of a conditional branch (the displacement is last). */
static Addr lsc_jcc_target(const UChar *p, UInt len, Addr ia)
{
	UInt i = 0;

	while (i < len && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0x2e ||
			   p[i] == 0x3e || p[i] == 0xf2 || p[i] == 0xf3 ||
			   (p[i] & 0xf0) == 0x40))
		i++;
	if (i < len && p[i] == 0x0f && len >= 4)
		return ia + len + (Addr)(Long)lsc_s32(p + len - 4);
	return ia + len + (Addr)(Long)(Char)p[len - 1];
}

/* Instructions libipt sees in one IMark. */
static UInt lsc_ipt_insns(const UChar *p, UInt len)
{
	UInt i;

	if (len < 19)
		return 1;
	for (i = 0; i < 4; i++)
		if (p[i] != lsc_clreq_pre[i])
			return 1;
	return 5;
}

/* Does leaving by jumpkind jk mean the instruction completed?  Not when
 * it faults or cannot be decoded.
 */
static Bool lsc_completes(IRJumpKind jk)
{
	switch (jk) {
	case Ijk_NoDecode:
	case Ijk_SigILL:
	case Ijk_SigTRAP:
	case Ijk_SigSEGV:
	case Ijk_SigBUS:
	case Ijk_SigFPE:
	case Ijk_SigFPE_IntDiv:
	case Ijk_SigFPE_IntOvf:
	case Ijk_EmFail:
		return False;
	default:
		return True;
	}
}

#define LSC_U64(v)	IRExpr_Const(IRConst_U64((ULong)(v)))
#define LSC_RD(t)	IRExpr_RdTmp(t)
#define LSC_ADDR(p)	LSC_U64((HWord)(p))

static IRExpr *lsc_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return LSC_RD(t);
}

static IRExpr *lsc_bin(IRSB *sb, IROp op, IRExpr *a, IRExpr *b)
{
	return lsc_tmp(sb, Ity_I64, IRExpr_Binop(op, a, b));
}

static IRExpr *lsc_ld(IRSB *sb, const void *addr)
{
	return lsc_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
						LSC_ADDR(addr)));
}

static void lsc_st(IRSB *sb, const void *addr, IRExpr *data)
{
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, LSC_ADDR(addr), data));
}

static IRExpr *lsc_nonzero(IRSB *sb, IRExpr *e)
{
	return lsc_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, e, LSC_U64(0)));
}

/* Call fn(args) if guard (NULL: always).  The helpers read and write
 * lsc_hot, so say so: VEX must not move our loads across them.
 */
static void lsc_dirty(IRSB *sb, IRExpr *guard, const HChar *name, void *fn,
		      IRExpr **args)
{
	IRDirty *d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn),
				       args);

	if (guard)
		d->guard = guard;
	d->mFx = Ifx_Modify;
	d->mAddr = LSC_ADDR(&lsc_hot);
	d->mSize = (Int)sizeof(lsc_hot);
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* Append bit (an I64 of 0 or 1) to the pending TNT word. */
/* Blocks with at most LSC_TNT_SITES bit sites check for a full TNT word
 * once, at their entry, with the pending flag (lsc_h_pending flushes from
 * LSC_TNT_EARLY bits on, so the block cannot pass 47); others check at
 * every site.
 */
#define LSC_TNT_SITES	(LSC_PTENC_TNT_MAX - LSC_TNT_EARLY)
static Bool lsc_site_checks;

static void lsc_ir_tnt(IRSB *sb, IRExpr *bit, IRExpr *shift)
{
	IRExpr *w = lsc_ld(sb, &lsc_hot.enc.tnt);

	w = lsc_bin(sb, Iop_Shl64, w, shift);
	w = lsc_bin(sb, Iop_Or64, w, bit);
	lsc_st(sb, &lsc_hot.enc.tnt, w);
	if (!lsc_site_checks)
		return;
	w = lsc_bin(sb, Iop_Shr64, w, IRExpr_Const(IRConst_U8(
					      LSC_PTENC_TNT_MAX)));
	lsc_dirty(sb, lsc_nonzero(sb, w), "lsc_h_tnt_flush", lsc_h_tnt_flush,
		  mkIRExprVec_0());
}

static void lsc_ir_push(IRSB *sb, Addr ret)
{
	IRExpr *top = lsc_ld(sb, &lsc_hot.enc.ret_top);
	IRExpr *cnt = lsc_ld(sb, &lsc_hot.enc.ret_count);
	IRExpr *slot;

	slot = lsc_bin(sb, Iop_And64, top, LSC_U64(LSC_PTENC_RETSTACK - 1));
	slot = lsc_bin(sb, Iop_Shl64, slot, IRExpr_Const(IRConst_U8(3)));
	slot = lsc_bin(sb, Iop_Add64, slot, LSC_ADDR(lsc_hot.enc.ret));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, slot, LSC_U64(ret)));
	lsc_st(sb, &lsc_hot.enc.ret_top, lsc_bin(sb, Iop_Add64, top,
						 LSC_U64(1)));
	/* count += count < 64: a full ring drops its oldest entry */
	lsc_st(sb, &lsc_hot.enc.ret_count,
	       lsc_bin(sb, Iop_Add64, cnt,
		       lsc_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64,
			       lsc_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U,
				       cnt, LSC_U64(LSC_PTENC_RETSTACK)))))));
}

static void lsc_ir_ret(IRSB *sb, IRExpr *target)
{
	IRExpr *top = lsc_ld(sb, &lsc_hot.enc.ret_top);
	IRExpr *cnt = lsc_ld(sb, &lsc_hot.enc.ret_count);
	IRExpr *slot, *v, *hit, *miss;

	slot = lsc_bin(sb, Iop_Sub64, top, LSC_U64(1));
	slot = lsc_bin(sb, Iop_And64, slot, LSC_U64(LSC_PTENC_RETSTACK - 1));
	slot = lsc_bin(sb, Iop_Shl64, slot, IRExpr_Const(IRConst_U8(3)));
	slot = lsc_bin(sb, Iop_Add64, slot, LSC_ADDR(lsc_hot.enc.ret));
	v = lsc_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, slot));
	/* hit = count != 0 && top == target, as 0 or 1 */
	hit = lsc_bin(sb, Iop_And64,
		      lsc_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64,
						       lsc_nonzero(sb, cnt))),
		      lsc_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64,
			      lsc_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ64,
							       v, target)))));
	lsc_st(sb, &lsc_hot.enc.ret_top, lsc_bin(sb, Iop_Sub64, top, hit));
	lsc_st(sb, &lsc_hot.enc.ret_count, lsc_bin(sb, Iop_Sub64, cnt, hit));
	/* a hit appends a taken bit; a miss leaves the word as it is */
	lsc_ir_tnt(sb, hit, lsc_tmp(sb, Ity_I8, IRExpr_Unop(Iop_64to8, hit)));
	miss = lsc_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, hit,
						 LSC_U64(0)));
	lsc_dirty(sb, miss, "lsc_h_tip", lsc_h_tip, mkIRExprVec_1(target));
}

static void lsc_ir_count(IRSB *sb, IRExpr *delta, IROp op)
{
	IRExpr *c = lsc_ld(sb, &lsc_hot.icount);

	if (!isIRAtom(delta))
		delta = lsc_tmp(sb, Ity_I64, delta);
	lsc_st(sb, &lsc_hot.icount, lsc_bin(sb, op, c, delta));
}

static void lsc_ir_mem(IRSB *sb, IRExpr *guard, IRExpr *addr, Int size,
		       Bool write, Addr iaddr)
{
	UInt sw;

	if (size > 127)
		size = 127;
	sw = ((UInt)size << 1) | (write ? 1u : 0);
	lsc_dirty(sb, guard, "lsc_h_mem", lsc_h_mem,
		  mkIRExprVec_3(addr, LSC_U64(sw), LSC_U64(iaddr)));
}

/* The kind of allocation function whose entry is at ia (1: size in
 * rdi, 2: calloc's rdi x rsi, 3: realloc's rsi), or 0. */
static HWord lsc_alloc_kind(Addr ia)
{
	static const struct {
		const HChar *name;
		HWord kind;
	} fns[] = {
		{ "malloc", 1 }, { "__libc_malloc", 1 }, { "_Znwm", 1 }, { "_Znam", 1 },
		{ "calloc", 2 }, { "__libc_calloc", 2 },
		{ "realloc", 3 }, { "__libc_realloc", 3 },
	};
	const HChar *name;
	UInt i;

	if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), ia, &name))
		return 0;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!VG_(strcmp)(name, fns[i].name))
			return fns[i].kind;
	return 0;
}

#define LSC_GET(field) IRExpr_Get(offsetof(VexGuestAMD64State, field), Ity_I64)

/* Memory accesses of st, for --lsc-mem. */
static void lsc_mem_stmt(IRSB *sb, IRStmt *st, Addr iaddr)
{
	IRTypeEnv *te = sb->tyenv;

	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load)
			lsc_ir_mem(sb, NULL, st->Ist.WrTmp.data->Iex.Load.addr,
				   sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty),
				   False, iaddr);
		break;
	case Ist_Store:
		lsc_ir_mem(sb, NULL, st->Ist.Store.addr,
			   sizeofIRType(typeOfIRExpr(te, st->Ist.Store.data)),
			   True, iaddr);
		break;
	case Ist_StoreG:
		lsc_ir_mem(sb, st->Ist.StoreG.details->guard,
			   st->Ist.StoreG.details->addr,
			   sizeofIRType(typeOfIRExpr(te,
					st->Ist.StoreG.details->data)),
			   True, iaddr);
		break;
	case Ist_LoadG: {
		IRType ty, ty2;

		typeOfIRLoadGOp(st->Ist.LoadG.details->cvt, &ty, &ty2);
		lsc_ir_mem(sb, st->Ist.LoadG.details->guard,
			   st->Ist.LoadG.details->addr, sizeofIRType(ty),
			   False, iaddr);
		break;
	}
	case Ist_CAS: {
		IRCAS *c = st->Ist.CAS.details;
		Int sz = sizeofIRType(typeOfIRExpr(te, c->dataLo));

		if (c->dataHi)
			sz *= 2;
		lsc_ir_mem(sb, NULL, c->addr, sz, False, iaddr);
		lsc_ir_mem(sb, NULL, c->addr, sz, True, iaddr);
		break;
	}
	case Ist_LLSC:
		if (!st->Ist.LLSC.storedata)
			lsc_ir_mem(sb, NULL, st->Ist.LLSC.addr,
				   sizeofIRType(typeOfIRTemp(te,
						st->Ist.LLSC.result)),
				   False, iaddr);
		else
			lsc_ir_mem(sb, NULL, st->Ist.LLSC.addr,
				   sizeofIRType(typeOfIRExpr(te,
						st->Ist.LLSC.storedata)),
				   True, iaddr);
		break;
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;

		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			lsc_ir_mem(sb, NULL, d->mAddr, d->mSize, False,
				   iaddr);
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			lsc_ir_mem(sb, NULL, d->mAddr, d->mSize, True,
				   iaddr);
		break;
	}
	default:
		break;
	}
}

/* The --lsc-mem-only filter: function names and address ranges. */
#define LSC_MEM_MAX 64
static const HChar *lsc_mem_fn[LSC_MEM_MAX];
static Addr lsc_mem_lo[LSC_MEM_MAX], lsc_mem_hi[LSC_MEM_MAX];
static UInt lsc_mem_nfn, lsc_mem_nrange;

Bool lsc_mem_filter_init(void)
{
	HChar *s, *tok, *save = NULL;

	if (!lsc_clo_mem_only)
		return True;
	s = VG_(strdup)("lsc.memonly", lsc_clo_mem_only);
	for (tok = VG_(strtok_r)(s, ",", &save); tok; tok = VG_(strtok_r)(NULL, ",", &save)) {
		HChar *end, *dash = VG_(strchr)(tok, '-');

		if (lsc_mem_nfn + lsc_mem_nrange >= LSC_MEM_MAX) {
			VG_(umsg)("loopscope: --lsc-mem-only: more than %d items\n", LSC_MEM_MAX);
			return False;
		}
		if (tok[0] == '0' && tok[1] == 'x' && dash) {
			Addr lo = (Addr)VG_(strtoull16)(tok, &end), hi;

			if (end != dash || !(hi = (Addr)VG_(strtoull16)(dash + 1, &end)) ||
			    *end || hi <= lo) {
				VG_(umsg)("loopscope: --lsc-mem-only: bad range '%s'\n", tok);
				return False;
			}
			lsc_mem_lo[lsc_mem_nrange] = lo;
			lsc_mem_hi[lsc_mem_nrange++] = hi;
		} else if (tok[0]) {
			lsc_mem_fn[lsc_mem_nfn++] = tok;
		}
	}
	return True;
}

/* Whether the accesses of the instruction at ia are recorded (decided
 * when its block is translated, so the lookups cost nothing per run). */
static Bool lsc_mem_wanted(Addr ia)
{
	const HChar *fn;
	UInt i;

	if (!lsc_clo_mem_only)
		return True;
	for (i = 0; i < lsc_mem_nrange; i++)
		if (ia >= lsc_mem_lo[i] && ia < lsc_mem_hi[i])
			return True;
	if (lsc_mem_nfn && VG_(get_fnname)(VG_(current_DiEpoch)(), ia, &fn))
		for (i = 0; i < lsc_mem_nfn; i++)
			if (!VG_(strcmp)(fn, lsc_mem_fn[i]))
				return True;
	return False;
}

IRSB *lsc_instrument(VgCallbackClosure *closure, IRSB *bb,
		     const VexGuestLayout *layout,
		     const VexGuestExtents *vge,
		     const VexArchInfo *archinfo_host,
		     IRType gWordTy, IRType hWordTy)
{
	IRSB *sb;
	Int i;
	UInt k = 0;
	Bool counting = lsc_clo_verify || lsc_clo_mem;
	Bool first = True;
	/* A conditional branch whose Ist_Exit we have not seen yet: iropt
	 * folds exits with a constant guard away (e.g. `mov $1,%ecx; loop`),
	 * and the bit must still be written.
	 */
	Bool jcc_open = False;
	UInt sites = 0;
	IRExpr *due;
	Addr ia = 0, last_ia = 0;
	UInt ilen = 0, last_len = 0;
	Bool mem_on = False;
	enum lsc_cls cls = LSC_C_OTHER, last_cls = LSC_C_OTHER;

	lsc_blocks++;
	for (i = 0; i < bb->stmts_used; i++) {
		IRStmt *st = bb->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len) {
			last_ia = (Addr)st->Ist.IMark.addr;
			last_len = st->Ist.IMark.len;
			last_cls = lsc_classify((const UChar *)last_ia,
						last_len);
			sites += last_cls == LSC_C_JCC;
		}
	}
	sites += last_cls == LSC_C_RET && lsc_clo_retcomp;
	lsc_site_checks = sites > LSC_TNT_SITES;

	sb = deepCopyIRSBExceptStmts(bb);
	for (i = 0; i < bb->stmts_used; i++) {
		IRStmt *st = bb->stmts[i];

		if (st->tag == Ist_IMark && st->Ist.IMark.len) {
			ia = (Addr)st->Ist.IMark.addr;
			ilen = st->Ist.IMark.len;
			cls = lsc_classify((const UChar *)ia, ilen);
			/* Calls' pushes always: the analysis takes each
			 * frame's base from them. */
			mem_on = lsc_clo_mem && (cls == LSC_C_CALL || cls == LSC_C_ICALL ||
						 lsc_mem_wanted(ia));
			/* a branch falling through into this insn: not taken */
			if (jcc_open)
				lsc_ir_tnt(sb, LSC_U64(0),
					   IRExpr_Const(IRConst_U8(1)));
			jcc_open = cls == LSC_C_JCC;
			/* the previous insn ran to its end */
			if (counting && k)
				lsc_ir_count(sb, LSC_U64(k), Iop_Add64);
			k = lsc_ipt_insns((const UChar *)ia, ilen);
			addStmtToIRSB(sb, st);
			if (lsc_clo_mem) {
				/* Allocations: the size at the entry, the
				 * block at the matching return. */
				HWord ak = lsc_alloc_kind(ia);

				if (ak)
					lsc_dirty(sb, NULL, "lsc_h_alloc_in", lsc_h_alloc_in,
						  mkIRExprVec_4(LSC_U64(ak),
								lsc_tmp(sb, Ity_I64, LSC_GET(guest_RSP)),
								lsc_tmp(sb, Ity_I64, LSC_GET(guest_RDI)),
								lsc_tmp(sb, Ity_I64, LSC_GET(guest_RSI))));
				if (cls == LSC_C_RET)
					lsc_dirty(sb, lsc_nonzero(sb, lsc_ld(sb, &lsc_alloc_npend)),
						  "lsc_h_alloc_out", lsc_h_alloc_out,
						  mkIRExprVec_2(lsc_tmp(sb, Ity_I64, LSC_GET(guest_RSP)),
								lsc_tmp(sb, Ity_I64, LSC_GET(guest_RAX))));
			}
			if (!first)
				continue;
			first = False;
			/* Block entry: pending work (rarely any), and a
			 * nearly full TNT word.
			 */
			due = lsc_ld(sb, &lsc_hot.pending);
			if (!lsc_site_checks)
				due = lsc_bin(sb, Iop_Or64, due, lsc_bin(sb,
					Iop_Shr64, lsc_ld(sb, &lsc_hot.enc.tnt),
					IRExpr_Const(IRConst_U8(LSC_TNT_EARLY))));
			lsc_dirty(sb, lsc_nonzero(sb, due),
				  "lsc_h_pending", lsc_h_pending,
				  mkIRExprVec_2(LSC_U64(ia),
						LSC_U64(cls == LSC_C_REP)));
			continue;
		}
		if (st->tag == Ist_Exit && ilen) {
			Addr dst = (Addr)st->Ist.Exit.dst->Ico.U64;
			IRExpr *g = st->Ist.Exit.guard;

			if (cls == LSC_C_JCC && st->Ist.Exit.jk == Ijk_Boring) {
				/* The exit may be either side of the branch. */
				IRExpr *bit = lsc_tmp(sb, Ity_I64,
					IRExpr_Unop(Iop_1Uto64, g));

				if (dst == ia + ilen)
					bit = lsc_bin(sb, Iop_Xor64, bit,
						      LSC_U64(1));
				lsc_ir_tnt(sb, bit,
					   IRExpr_Const(IRConst_U8(1)));
				jcc_open = False;
			}
			/* Leaving from insn k: count it if it completed, that
			 * is unless it faulted or is a rep insn going round
			 * again (libipt counts a rep insn once).
			 */
			if (counting && !(cls == LSC_C_REP && dst == ia) &&
			    lsc_completes(st->Ist.Exit.jk))
				lsc_ir_count(sb, IRExpr_ITE(g, LSC_U64(k),
							    LSC_U64(0)),
					     Iop_Add64);
		}
		if (mem_on && ilen)
			lsc_mem_stmt(sb, st, ia);
		addStmtToIRSB(sb, st);
	}

	/* The block's last instruction leaves by bb->next. */
	if (!last_len)
		return sb;
	if (counting && lsc_completes(bb->jumpkind) &&
	    !(last_cls == LSC_C_REP && bb->next->tag == Iex_Const &&
	      bb->next->Iex.Const.con->Ico.U64 == last_ia))
		lsc_ir_count(sb, LSC_U64(k), Iop_Add64);
	if (jcc_open) {
		/* Its exit was folded: the block's end is the one side. */
		Addr tgt = lsc_jcc_target((const UChar *)last_ia, last_len,
					  last_ia);

		lsc_ir_tnt(sb, lsc_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64,
			lsc_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, bb->next,
							 LSC_U64(tgt))))),
			   IRExpr_Const(IRConst_U8(1)));
	}
	switch (bb->jumpkind) {
	case Ijk_Sys_syscall:
	case Ijk_Sys_int32:
	case Ijk_Sys_int128:
	case Ijk_Sys_int129:
	case Ijk_Sys_int130:
	case Ijk_Sys_int145:
	case Ijk_Sys_int210:
	case Ijk_Sys_sysenter:
		lsc_dirty(sb, NULL, "lsc_h_pgd", lsc_h_pgd, mkIRExprVec_0());
		return sb;
	case Ijk_Boring:
	case Ijk_Call:
	case Ijk_Ret:
		break;
	default:
		return sb;
	}
	switch (last_cls) {
	case LSC_C_CALL:
		if (lsc_clo_retcomp)
			lsc_ir_push(sb, last_ia + last_len);
		break;
	case LSC_C_ICALL:
		if (lsc_clo_retcomp)
			lsc_ir_push(sb, last_ia + last_len);
		lsc_dirty(sb, NULL, "lsc_h_tip", lsc_h_tip,
			  mkIRExprVec_1(bb->next));
		break;
	case LSC_C_IJMP:
		lsc_dirty(sb, NULL, "lsc_h_tip", lsc_h_tip,
			  mkIRExprVec_1(bb->next));
		break;
	case LSC_C_RET:
		if (lsc_clo_retcomp)
			lsc_ir_ret(sb, bb->next);
		else
			lsc_dirty(sb, NULL, "lsc_h_ret", lsc_h_ret,
				  mkIRExprVec_1(bb->next));
		break;
	default:
		break;
	}
	return sb;
}
