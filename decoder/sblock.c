/* sblock.c - static blocks: the split of libipt's dynamic blocks at
 * every head (the head set: addrset.c), cached per block shape.
 *
 * A static block starts at a head and ends at the first branch or just
 * before the next head.  The heads (heads.c) are known before the first
 * block is split, so the split depends on the set of heads only, never on
 * the order in which blocks are met.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static enum lsd_kind insn_kind(csh cs, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	int imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	switch (in->id) {
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_SYSRET:
	case X86_INS_SYSEXIT: case X86_INS_INT: case X86_INS_INT3:
	case X86_INS_INTO: case X86_INS_IRET: case X86_INS_IRETD:
	case X86_INS_IRETQ: case X86_INS_LJMP: case X86_INS_LCALL:
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_UD2:
		return LSD_K_FAR;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
		return LSD_K_COND;	/* capstone puts these in no group */
	case X86_INS_JMP:
		return imm ? LSD_K_JMP : LSD_K_IJMP;
	case X86_INS_CALL:
		return imm ? LSD_K_CALL : LSD_K_ICALL;
	case X86_INS_RET:
		return LSD_K_RET;
	default:
		break;
	}
	if (lsd_cs.insn_group(cs, in, CS_GRP_JUMP))
		return LSD_K_COND;
	if (lsd_cs.insn_group(cs, in, CS_GRP_RET))
		return LSD_K_RET;
	if (lsd_cs.insn_group(cs, in, CS_GRP_INT))
		return LSD_K_FAR;
	return LSD_K_OTHER;
}

/* A direct branch's target: capstone's immediate operand. */
static uint64_t insn_target(const cs_insn *in, enum lsd_kind kind)
{
	const cs_x86 *x = &in->detail->x86;

	if ((kind != LSD_K_JMP && kind != LSD_K_CALL && kind != LSD_K_COND) ||
	    !x->op_count || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/* (decode_int.h) */
enum lsd_kind lsd_cs_branch(csh cs, const cs_insn *in, uint64_t *target)
{
	enum lsd_kind kind = insn_kind(cs, in);

	*target = insn_target(in, kind);
	return kind;
}

/* The id of the static block starting at start, creating it. */
/* Room in space sp's index for one more block.  Returns 0 or
 * -LS_ENOMEM. */
static int idx_room(struct lsd_decoder *d, struct lsd_space *sp)
{
	size_t h;

	if ((sp->nidx + 1) * 2 > sp->idxcap) {
		size_t ncap = sp->idxcap ? sp->idxcap * 2 : 1024, i;
		uint32_t *ni = calloc(ncap, sizeof(*ni));

		if (!ni)
			return -LS_ENOMEM;
		for (i = 0; i < sp->idxcap; i++) {
			if (!sp->idx[i])
				continue;
			for (h = lsd_hash64(lsd_sb(d, sp->idx[i] - 1)->start) & (ncap - 1);
			     ni[h]; h = (h + 1) & (ncap - 1))
				;
			ni[h] = sp->idx[i];
		}
		free(sp->idx);
		sp->idx = ni;
		sp->idxcap = ncap;
	}
	return 0;
}

/* Space sp's block of start, last and mode: *id, 1; else 0, *h the
 * index's free slot for it. */
static int idx_find(const struct lsd_decoder *d, const struct lsd_space *sp, uint64_t start,
		    uint64_t last, uint8_t mode, uint32_t *id, size_t *h)
{
	size_t k;

	for (k = lsd_hash64(start) & (sp->idxcap - 1); sp->idx[k];
	     k = (k + 1) & (sp->idxcap - 1)) {
		/* Keyed by start and last: a block libipt cut short (at a
		 * decode error) gets its own entry, so counts stay exact. */
		const struct lsd_sblock *sb = lsd_sb(d, sp->idx[k] - 1);

		if (sb->start == start && sb->last == last && sb->mode == mode) {
			*id = sp->idx[k] - 1;
			return 1;
		}
	}
	*h = k;
	return 0;
}

/* A new static block at the end of d's table, its id the table's next,
 * put in space sp's index at free slot h (idx_find()); its other fields
 * zeroed, the caller's to fill.  Returns 0, -LS_ENOMEM or -LS_EUNSUP (d
 * hands out another decoder's blocks and makes none: lsd_twin_share()). */
static int sb_new(struct lsd_decoder *d, struct lsd_space *sp, size_t h,
		  struct lsd_sblock **out)
{
	struct lsd_sbtab *t = &d->sbt;
	struct lsd_sblock *sb;

	if (t->lent)
		return -LS_EUNSUP;
	if (t->n == t->cap) {
		size_t ncap = t->cap + LSD_SB_PAGE;
		void *np = ls_reallocarray(t->pages, t->npages + 1, sizeof(*t->pages));

		if (!np)
			return -LS_ENOMEM;
		t->pages = np;
		t->pages[t->npages] = malloc(LSD_SB_PAGE * sizeof(**t->pages));
		if (!t->pages[t->npages])
			return -LS_ENOMEM;
		t->npages++;
		t->cap = ncap;
		t->pf = 0;
	}
	/* (made in order: the page's memory ahead mapped in a stretch at a
	 * time, not a fault each) */
	ls_prefault_ahead(t->pages[t->npages - 1], (t->n % LSD_SB_PAGE + 1) * sizeof(*sb),
			  &t->pf, LSD_SB_PAGE * sizeof(*sb));
	sb = lsd_sb(d, t->n);
	memset(sb, 0, sizeof(*sb));
	sb->id = (uint32_t)t->n++;
	sp->idx[h] = sb->id + 1;
	sp->nidx++;
	*out = sb;
	return 0;
}

static int sblock_get(struct lsd_decoder *d, uint64_t start, uint64_t last,
		      uint64_t end, uint32_t ninsn, enum lsd_kind kind,
		      const uint8_t *code, size_t codelen, uint32_t *id)
{
	struct lsd_space *sp = d->sp;
	struct lsd_sblock *sb;
	size_t h, module;
	uint64_t off;
	int err;

	if (idx_room(d, sp))
		return -LS_ENOMEM;
	if (idx_find(d, sp, start, last, d->mode, id, &h))
		return 0;
	if ((err = sb_new(d, sp, h, &sb)))
		return err;
	sb->start = start;
	sb->last = last;
	sb->end = end;
	sb->ninsn = ninsn;
	sb->module = -1;
	sb->pid = sp->img->pid;
	if (!lsd_image_locate(sp->img, start, &module, &off)) {
		sb->module = (int32_t)module;
		sb->mod_off = off;
	}
	if (d->ic)
		lsd_iclass_block(d->ic, d->mode, code, codelen, start, ninsn, sb->iclass);
	sb->last_kind = (uint8_t)kind;
	sb->mode = d->mode;
	*id = sb->id;
	return 0;
}

int lsd_sblock_adopt(struct lsd_decoder *d, size_t i, const struct lsd_sblock *sb,
		     const struct lsd_sblock **out)
{
	struct lsd_space *sp;
	struct lsd_sblock *x;
	uint32_t id;
	size_t h;
	int err;

	*out = NULL;
	if (!d || !sb || i >= lsb_reader_nstreams(d->r))
		return -LS_EINVAL;
	sp = &d->spaces[d->stream_space[i]];
	if (sb->pid != sp->img->pid)
		return -LS_EINVAL;
	if (idx_room(d, sp))
		return -LS_ENOMEM;
	if (!idx_find(d, sp, sb->start, sb->last, sb->mode, &id, &h)) {
		if ((err = sb_new(d, sp, h, &x)))
			return err;
		id = x->id;
		*x = *sb;
		x->id = id;
	}
	*out = lsd_sb(d, id);
	return 0;
}

static size_t dyn_hash(uint64_t start, uint64_t last)
{
	return lsd_hash64(start ^ (last * 0x9e3779b97f4a7c15ull));
}

static int dyn_grow(struct lsd_space *sp)
{
	size_t ncap = sp->dyncap ? sp->dyncap * 2 : 1024, i, h;
	struct lsd_dyn *nd = calloc(ncap, sizeof(*nd));

	if (!nd)
		return -LS_ENOMEM;
	for (i = 0; i < sp->dyncap; i++) {
		if (!sp->dyn[i].start)
			continue;
		for (h = dyn_hash(sp->dyn[i].start, sp->dyn[i].last) & (ncap - 1); nd[h].start;
		     h = (h + 1) & (ncap - 1))
			;
		nd[h] = sp->dyn[i];
	}
	free(sp->dyn);
	sp->dyn = nd;
	sp->dyncap = ncap;
	return 0;
}

/* Appends static block id to the parts of the shape that starts at
 * parts[first]; the part before it (if of the same shape) falls through
 * into it. */
static int parts_push(struct lsd_decoder *d, uint32_t first, uint32_t id)
{
	struct lsd_sblock *sb = lsd_sb(d, id);
	struct lsd_block *b;

	if (d->nparts == d->capparts) {
		size_t ncap = d->capparts ? d->capparts * 2 : 4096;
		void *np = ls_reallocarray(d->parts, ncap, sizeof(*d->parts));

		if (!np)
			return -LS_ENOMEM;
		d->parts = np;
		np = ls_reallocarray(d->pre, ncap, sizeof(*d->pre));
		if (!np)
			return -LS_ENOMEM;
		d->pre = np;
		np = ls_reallocarray(d->partn, ncap, sizeof(*d->partn));
		if (!np)
			return -LS_ENOMEM;
		d->partn = np;
		d->capparts = ncap;
	}
	if (d->nparts > first)
		d->pre[d->nparts - 1].next = sb->start;
	d->parts[d->nparts] = sb;
	d->partn[d->nparts] = sb->ninsn;
	b = &d->pre[d->nparts++];
	b->sb = sb;
	b->exit = LSD_EXIT_FALL;
	b->id = sb->id;
	b->next = 0;
	return 0;
}

/* Whether a head lies in (start, last]: one probe a byte, far cheaper
 * than disassembling the block (capstone takes thousands of instructions
 * an instruction), and a head inside an instruction only sends the block
 * the slow way. */
static int inner_head(const struct lsd_addrset *h, uint64_t start, uint64_t last)
{
	uint64_t a;

	for (a = start + 1; a <= last && a > start; a++)
		if (lsd_addrset_has(h, a))
			return 1;
	return 0;
}

/* A dynamic block with no head inside is one static block: libipt counted
 * its instructions; only the last is disassembled, for its kind and
 * size. */
static int split_one(struct lsd_decoder *d, struct lsd_dyn *e, uint32_t ninsn,
		     const uint8_t *code, size_t n, cs_insn *in)
{
	const uint8_t *p = code + (e->last - e->start);
	size_t len = n - (size_t)(e->last - e->start);
	uint64_t a = e->last;
	uint32_t id;
	int err;

	if (e->last - e->start >= n || !lsd_cs.disasm_iter(d->cs[d->mode], &p, &len, &a, in))
		return -LS_EDECODE;
	e->next = a;
	e->kind = (uint8_t)insn_kind(d->cs[d->mode], in);
	err = sblock_get(d, e->start, e->last, a, ninsn, (enum lsd_kind)e->kind,
			 code, (size_t)(a - e->start), &id);
	if (err < 0 || (err = parts_push(d, e->first, id)) < 0)
		return err;
	e->nparts = 1;
	e->ninsn = ninsn;
	e->ninsn_last = ninsn;
	return 0;
}

/* Disassembles the dynamic block and cuts it before every head. */
static int split_new(struct lsd_decoder *d, struct lsd_dyn *e, uint32_t ninsn)
{
	uint64_t span = e->last - e->start + 16;
	uint8_t stackbuf[4096], *code = stackbuf;
	const uint8_t *p;
	uint64_t a, pstart;
	size_t len;
	uint32_t i, pn = 0, id;
	cs_insn *in = NULL;
	int n, err = 0;

	if (e->last < e->start || span > (64u << 20) || !ninsn)
		return -LS_EDECODE;
	if (span > sizeof(stackbuf)) {
		code = malloc(span);
		if (!code)
			return -LS_ENOMEM;
	}
	n = lsd_image_read(d->sp->img, code, span, e->start);
	in = lsd_cs.malloc(d->cs[d->mode]);
	if (n <= 0 || !in) {
		err = n <= 0 ? -LS_EDECODE : -LS_ENOMEM;
		goto out;
	}
	e->first = (uint32_t)d->nparts;
	if (!inner_head(&d->sp->heads, e->start, e->last)) {
		err = split_one(d, e, ninsn, code, (size_t)n, in);
		goto out;
	}
	p = code;
	len = (size_t)n;
	a = pstart = e->start;
	for (i = 0; i < ninsn; i++) {
		uint64_t here = a;
		int last = i + 1 == ninsn;

		if (!lsd_cs.disasm_iter(d->cs[d->mode], &p, &len, &a, in)) {
			err = -LS_EDECODE;
			goto out;
		}
		pn++;
		if (last && here != e->last) {
			err = -LS_EDECODE;	/* ninsn and last disagree */
			goto out;
		}
		if (last) {
			e->next = a;
			e->kind = (uint8_t)insn_kind(d->cs[d->mode], in);
		}
		if (!last && !lsd_addrset_has(&d->sp->heads, a))
			continue;
		/* [pstart, here] is a static block: the dynamic block ends
		 * here, or a head follows. */
		err = sblock_get(d, pstart, here, a, pn, insn_kind(d->cs[d->mode], in),
				 code + (pstart - e->start), (size_t)(a - pstart), &id);
		if (err < 0 || (err = parts_push(d, e->first, id)) < 0)
			goto out;
		pstart = a;
		if (last)
			e->ninsn_last = pn;
		pn = 0;
	}
	e->nparts = (uint32_t)(d->nparts - e->first);
	e->ninsn = ninsn;
out:
	if (in)
		lsd_cs.free(in, 1);
	if (code != stackbuf)
		free(code);
	return err;
}

/* Remembers shape e in the direct-mapped cache. */
static void dcache_put(const struct lsd_decoder *d, struct lsd_space *sp,
		       const struct lsd_dyn *e)
{
	struct lsd_dcent *c = &sp->dcache[lsd_dcache_slot(e->start, sp->dmask)];

	c->start = e->start;
	c->lastoff = (uint32_t)(e->last - e->start);
	c->first = e->first;
	c->nparts = e->nparts;
	c->last_id = d->parts[e->first + e->nparts - 1]->id;
	c->ninsn_last = e->ninsn_last;
	c->nextoff = (uint8_t)(e->next - e->last);
	c->kind = e->kind;
	c->mode = e->mode;
}

/* Sizes the shape cache for sp->ndyn shapes (see LSD_DCACHE_MAX), filled
 * with every shape known; the last put of a slot wins, as ever. */
static int dcache_size(const struct lsd_decoder *d, struct lsd_space *sp)
{
	size_t n = LSD_DCACHE_MIN, i;
	struct lsd_dcent *nc;

	while (n < LSD_DCACHE_MAX && sp->ndyn * 2 > n)
		n *= 2;
	if (sp->dcache && n == sp->dmask + 1)
		return 0;
	nc = aligned_alloc(64, n * sizeof(*nc));
	if (!nc)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		memset(&nc[i], 0, sizeof(nc[i]));
		nc[i].lastoff = UINT32_MAX;
	}
	free(sp->dcache);
	sp->dcache = nc;
	sp->dmask = n - 1;
	for (i = 0; i < sp->dyncap; i++)
		if (sp->dyn[i].start)
			dcache_put(d, sp, &sp->dyn[i]);
	return 0;
}

/* The shape [start, last] in the hash, or NULL. */
static struct lsd_dyn *dyn_find(const struct lsd_space *sp, uint64_t start,
				uint64_t last, uint8_t mode)
{
	size_t h;

	if (!sp->dyncap)
		return NULL;
	for (h = dyn_hash(start, last) & (sp->dyncap - 1); sp->dyn[h].start;
	     h = (h + 1) & (sp->dyncap - 1))
		if (sp->dyn[h].start == start && sp->dyn[h].last == last &&
		    sp->dyn[h].mode == mode)
			return &sp->dyn[h];
	return NULL;
}

/* (decode_int.h) */
const struct lsd_dcent *lsd_split_known(struct lsd_decoder *d, uint64_t start,
					uint64_t last, uint8_t mode)
{
	struct lsd_space *sp = d->sp;
	const struct lsd_dyn *e = sp->dcache ? dyn_find(sp, start, last, mode) : NULL;

	if (!e)
		return NULL;
	dcache_put(d, sp, e);
	return &sp->dcache[lsd_dcache_slot(start, sp->dmask)];
}

int lsd_split(struct lsd_decoder *d, uint64_t start, uint64_t last,
	      uint32_t ninsn, struct lsd_sblock *const **ids,
	      const struct lsd_dyn **shape)
{
	struct lsd_space *sp = d->sp;
	struct lsd_dyn *e;
	size_t h;
	int err;

	if (!sp->dcache && (err = dcache_size(d, sp)) < 0)
		return err;
	if ((e = dyn_find(sp, start, last, d->mode)) != NULL) {
		dcache_put(d, sp, e);
		*ids = d->parts + e->first;
		if (shape)
			*shape = e;
		return (int)e->nparts;
	}
	if ((sp->ndyn + 1) * 2 > sp->dyncap && (err = dyn_grow(sp)) < 0)
		return err;
	for (h = dyn_hash(start, last) & (sp->dyncap - 1); sp->dyn[h].start;
	     h = (h + 1) & (sp->dyncap - 1))
		;
	e = &sp->dyn[h];
	e->start = start;
	e->last = last;
	e->mode = d->mode;
	e->nparts = 0;
	err = split_new(d, e, ninsn);
	if (err < 0) {
		/* Forget the shape; the caller counts the failure. */
		memset(e, 0, sizeof(*e));
		return err;
	}
	sp->ndyn++;
	if ((err = dcache_size(d, sp)) < 0)
		return err;
	dcache_put(d, sp, e);
	*ids = d->parts + e->first;
	if (shape)
		*shape = e;
	return (int)e->nparts;
}

void lsd_sbtab_release(struct lsd_decoder *d)
{
	size_t i;

	for (i = d->sbt.nlent; i < d->sbt.npages; i++)
		free(d->sbt.pages[i]);
	free(d->sbt.pages);
	memset(&d->sbt, 0, sizeof(d->sbt));
	free(d->parts);
	free(d->pre);
	free(d->partn);
	d->parts = NULL;
	d->pre = NULL;
	d->partn = NULL;
	d->nparts = d->capparts = 0;
}

void lsd_space_release(struct lsd_space *sp)
{
	lsd_addrset_release(&sp->heads);
	free(sp->idx);
	free(sp->dyn);
	free(sp->dcache);
	free(sp->fkey);
	free(sp->fid);
	sp->fkey = NULL;
	sp->fid = NULL;
	sp->fn = sp->fcap = 0;
	sp->idx = NULL;
	sp->dyn = NULL;
	sp->dcache = NULL;
	sp->nidx = sp->idxcap = sp->ndyn = sp->dyncap = sp->dmask = 0;
}

int lsd_insn_branch(struct lsd_decoder *d, uint64_t ip, enum lsd_kind *kind,
		    uint64_t *target)
{
	uint8_t code[16];
	const uint8_t *p = code;
	size_t len;
	uint64_t a = ip;
	cs_insn *in;
	int n = lsd_image_read(d->sp->img, code, sizeof(code), ip), err;

	len = n > 0 ? (size_t)n : 0;
	if (d->mode == LSD_MODE_64 && (err = lsd_xinsn(code, len, ip, kind, target)) > 0)
		return err;
	if (!(in = lsd_cs.malloc(d->cs[d->mode])))
		return -LS_ENOMEM;
	if (!len || !lsd_cs.disasm_iter(d->cs[d->mode], &p, &len, &a, in)) {
		err = -LS_EDECODE;
	} else {
		*kind = insn_kind(d->cs[d->mode], in);
		*target = insn_target(in, *kind);
		err = (int)(a - ip);
	}
	lsd_cs.free(in, 1);
	return err;
}

/* Walks [start ..] into *last, *end, *ninsn, *kind, *target with the code
 * in code[0 .. n).  Returns 0, 1: the code ran out before the block
 * ended (more may be mapped), or -LS_EDECODE. */
static int walk(struct lsd_decoder *d, cs_insn **pin, const uint8_t *code,
		size_t n, uint64_t start, uint64_t *last, uint64_t *end,
		uint32_t *ninsn, enum lsd_kind *kind, uint64_t *target)
{
	const uint8_t *p = code;
	size_t len = n;
	uint64_t a = start;

	for (*ninsn = 0;; ) {
		uint64_t here = a;
		int k = d->mode == LSD_MODE_64 ? lsd_xinsn(p, len, a, kind, target) : 0;

		if (k > 0) {
			/* xinsn.c's tables knew it: capstone would say the same. */
			p += k;
			len -= (size_t)k;
			a += (uint64_t)k;
		} else {
			/* capstone's instruction, allocated at its first use:
			 * most blocks need none. */
			if (!*pin && !(*pin = lsd_cs.malloc(d->cs[d->mode])))
				return -LS_ENOMEM;
			if (!lsd_cs.disasm_iter(d->cs[d->mode], &p, &len, &a, *pin))
				return len < 16 ? 1 : -LS_EDECODE;
			*kind = insn_kind(d->cs[d->mode], *pin);
			*target = insn_target(*pin, *kind);
		}
		++*ninsn;
		if (*kind != LSD_K_OTHER || lsd_addrset_has(&d->sp->heads, a)) {
			*last = here;
			*end = a;
			return 0;
		}
	}
}

int lsd_sblock_walk(struct lsd_decoder *d, uint64_t start, uint32_t *id,
		    uint64_t *target)
{
	/* Most blocks are a few dozen bytes: a small first read (a longer
	 * block is walked again with twice the bytes, as before). */
	uint8_t stackbuf[256], *code = stackbuf, *heap = NULL;
	size_t cap = sizeof(stackbuf);
	cs_insn *in = NULL;
	uint64_t last = 0, end = 0;
	uint32_t ninsn = 0;
	enum lsd_kind kind = LSD_K_OTHER;
	int err = 1;

	/* Bounded as split_new() bounds a block. */
	while (err == 1 && cap <= (64u << 20)) {
		int n;

		if (cap > sizeof(stackbuf)) {
			void *p = realloc(heap, cap);

			if (!p) {
				err = -LS_ENOMEM;
				break;
			}
			code = heap = p;
		}
		n = lsd_image_read(d->sp->img, code, cap, start);
		if (n <= 0) {
			err = -LS_EDECODE;
			break;
		}
		err = walk(d, &in, code, (size_t)n, start, &last, &end, &ninsn,
			   &kind, target);
		if (err == 1 && (size_t)n < cap)
			err = -LS_EDECODE;	/* the mapping ends */
		cap *= 2;
	}
	if (err == 1)
		err = -LS_EDECODE;
	if (!err)
		err = sblock_get(d, start, last, end, ninsn, kind, code,
				 (size_t)(end - start), id);
	if (in)
		lsd_cs.free(in, 1);
	free(heap);
	return err;
}
