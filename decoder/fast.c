/* fast.c - the fast path: a chunk's packets walked straight over the
 * static blocks, without libipt.
 *
 * libipt's block decoder decodes every instruction of every block it
 * hands out (cached, but still per block and per query).  Here each
 * static block is looked at once: its kind, its instruction count, its
 * fall-through and direct successors are kept by id (struct lsd_fblk),
 * and decoding a chunk is a loop over the blocks driven by TNT bits and
 * TIP targets, with libipt's return-compression stack.
 *
 * The fast path models the packets of ordinary user-space traces: TNT,
 * TIP, TIP.PGE, TIP.PGD at a far transfer (a system call), FUP + TIP.PGD
 * or FUP + TIP (an asynchronous exit), PSB+ with its FUP binding where
 * libipt binds it, MODE.Exec for 64-bit code, and the timing packets.
 * Events are read ahead as libipt's query decoder reads them and bound
 * at the same IPs.  Anything else - an overflow, another execution
 * mode, a packet that does not fit the code, an unmapped address, a
 * return with an empty stack - and the chunk goes to libipt from its
 * start (decode.c), dropping the blocks already handed out: every chunk
 * starts at a PSB with libipt's state new, so the result is libipt's
 * block for block.  The blocks after the chunk's last packet go through
 * decode.c's general path (the chunk's stop IP and held tail).
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/run.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Blocks entered but not handed out: those since the last packet that
 * decided a branch are not final until the next one (an event may end
 * the block before them). */
#define FAST_OUT 16384
/* libipt's return-compression stack holds this many returns. */
#define FAST_RSTACK 64
/* TIP targets remembered by address (direct-mapped). */
#define FAST_TIPC 1024
/* Chains: the blocks a run of TNT bits leads through from a block, built
 * once and copied out whole (direct-mapped by block and bits; a chain
 * holds at most CH_MAX blocks and CH_PUSH calls). */
#define CH_MAX 24
#define CH_PUSH 8
#define CH_LOG 13
/* Fewer for little code: two entries per block head (rounded up to a
 * power of two), at least 2^CH_LOG_MIN.  Any program with libc has over
 * 2^12 heads and so the whole table; a tiny static one (the fuzz
 * targets' templates) clears a few KB for each decoder, not 5 MB. */
#define CH_LOG_MIN 6
/* The most TNT bits a chain takes (up to 16): a TNT-8 packet's 6 in one
 * chain, a TNT-64's 47 in six or more.  16 was tried: more distinct bit
 * patterns to build cost more than the fewer lookups gain (README). */
#define CH_BITS 8

struct lsd_fchain {
	uint32_t cur;		/* id + 1 of its first block; 0: empty slot */
	uint8_t k;		/* TNT bits it was built for (1 to CH_BITS) */
	uint16_t bits;		/* their values, the first highest */
	uint8_t used;		/* the bits it takes */
	uint8_t nb;		/* its blocks */
	uint8_t npush;		/* its calls that libipt logs */
	uint8_t lastc;		/* index + 1 of its last block that took a bit */
	uint32_t end;		/* id + 1 of the block it stops at */
	uint64_t insns;
	uint64_t push[CH_PUSH];	/* return addresses, in order */
	struct lsd_block b[CH_MAX];
};

struct lsd_fast {
	struct lsd_block out[FAST_OUT];
	uint64_t tipc_ip[FAST_TIPC];
	uint32_t tipc_id[FAST_TIPC];
	const struct lsd_space *tipc_sp;
};

/* What was read ahead of the decoding: an event bound to an IP. */
enum fev {
	FEV_NONE = 0,
	FEV_STATUS,		/* PSB+ FUP: only checked */
	FEV_ASYNC_PGD,		/* FUP + TIP.PGD */
	FEV_ASYNC_TIP,		/* FUP + TIP */
};

/* Packet kinds the walk tells apart. */
enum fpkt {
	FP_EOS = 0, FP_SKIP, FP_TNT, FP_TIP, FP_PGE, FP_PGD, FP_FUP, FP_PSB,
	FP_PSBEND, FP_MODE, FP_OTHER,
};

/* One packet at c->pos: its kind, size, IP payload.  Never reads past
 * the buffer; anything malformed is FP_OTHER. */
struct fp {
	enum fpkt k;
	size_t size;
	uint64_t ip;		/* IP packets: the decompressed IP */
	int suppressed;
	uint64_t bits;		/* TNT: the bits, next highest; MODE: payload */
	unsigned nbits;
};

struct fctx {
	struct lsd_run *r;
	struct lsd_decoder *d;
	struct lsd_space *sp;
	struct lsd_fast *f;
	const uint8_t *buf;
	size_t len, pos;
	uint64_t last_ip;	/* IP compression's last IP */
	int have_ip;		/* a full IP since the last PSB */
	uint64_t tnt;		/* pending TNT bits, the next one highest */
	unsigned ntnt;
	uint64_t rs[FAST_RSTACK];
	unsigned rtop, rn;
	int enabled;
	enum fev ev;
	uint64_t ev_ip, ev_to;
	size_t n, fin;		/* blocks in out; the final ones, out[0 .. fin) */
	/* The packet read ahead stopped at, parsed, at pk_pos (SIZE_MAX:
	 * none): the branch it decides takes it without a second parse. */
	struct fp pk;
	size_t pk_pos;
	uint64_t insns, blocks;	/* of the blocks in out, handed out or not */
	uint64_t delivered;	/* blocks handed out */
};

static int ip_packet(struct fctx *c, const uint8_t *p, size_t left, struct fp *k)
{
	static const uint8_t ipsize[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	unsigned ipc = p[0] >> 5;
	uint64_t v = 0;
	size_t i, n = ipsize[ipc];

	if (ipc == 5 || ipc == 7 || left < 1 + n)
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[1 + i] << (8 * i);
	k->size = 1 + n;
	k->suppressed = ipc == 0;
	switch (ipc) {
	case 0:
		k->ip = c->last_ip;
		return 1;
	case 1:
		v = (c->last_ip & ~0xffffull) | v;
		break;
	case 2:
		v = (c->last_ip & ~0xffffffffull) | v;
		break;
	case 3:
		v = (v & (1ull << 47)) ? v | 0xffff000000000000ull : v;
		c->have_ip = 1;
		break;
	case 4:
		v = (c->last_ip & ~0xffffffffffffull) | v;
		break;
	default:
		c->have_ip = 1;
		break;
	}
	/* A partial IP with nothing to complete it: libipt's rules for
	 * that are left to libipt. */
	if (!c->have_ip)
		return 0;
	c->last_ip = v;
	k->ip = v;
	return 1;
}

static void peek_packet(struct fctx *c, struct fp *k)
{
	const uint8_t *p = c->buf + c->pos;
	size_t left = c->len - c->pos;
	uint8_t b;

	k->k = FP_OTHER;
	k->size = 1;
	if (!left) {
		k->k = FP_EOS;
		return;
	}
	b = p[0];
	if (b == 0x00) {			/* PAD */
		k->k = FP_SKIP;
		return;
	}
	if (!(b & 1) && b != 0x02) {		/* TNT-8 */
		unsigned top = 31 - (unsigned)__builtin_clz(b);

		k->k = FP_TNT;
		k->nbits = top - 1;
		k->bits = k->nbits ? ((uint64_t)(b >> 1) << (64 - k->nbits)) : 0;
		if (!k->nbits)
			k->k = FP_OTHER;
		return;
	}
	if ((b & 3) == 3) {			/* CYC */
		size_t i = 1;

		if (b & 4) {
			while (i < left && (p[i] & 1))
				i++;
			if (i >= left)
				return;
			i++;
			/* libipt takes at most 9 extension bytes (a 64-bit
			 * count) and fails on more: left to it */
			if (i - 1 > 9)
				return;
		}
		k->k = FP_SKIP;
		k->size = i;
		return;
	}
	switch (b & 0x1f) {
	case 0x0d: case 0x11: case 0x01: case 0x1d:
		if (!ip_packet(c, p, left, k))
			return;
		k->k = (b & 0x1f) == 0x0d ? FP_TIP : (b & 0x1f) == 0x11 ? FP_PGE :
		       (b & 0x1f) == 0x01 ? FP_PGD : FP_FUP;
		return;
	default:
		break;
	}
	switch (b) {
	case 0x19:				/* TSC */
		if (left >= 8)
			k->k = FP_SKIP, k->size = 8;
		return;
	case 0x59:				/* MTC */
		if (left >= 2)
			k->k = FP_SKIP, k->size = 2;
		return;
	case 0x99:				/* MODE */
		if (left >= 2) {
			k->k = FP_MODE;
			k->size = 2;
			k->bits = p[1];
		}
		return;
	case 0x02:
		break;
	default:
		return;
	}
	if (left < 2)
		return;
	switch (p[1]) {
	case 0x82: {				/* PSB */
		static const uint8_t psb[16] = {
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
		};

		if (left >= 16 && !memcmp(p, psb, 16))
			k->k = FP_PSB, k->size = 16;
		return;
	}
	case 0x23:
		k->k = FP_PSBEND;
		k->size = 2;
		return;
	case 0xa3: {				/* TNT-64 */
		uint64_t v = 0;
		unsigned i;

		if (left < 8)
			return;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* the 6 payload bytes in one load (the hot packet of loops) */
		memcpy(&v, p, 8);
		v >>= 16;
		(void)i;
#else
		for (i = 0; i < 6; i++)
			v |= (uint64_t)p[2 + i] << (8 * i);
#endif
		if (!v)
			return;
		k->k = FP_TNT;
		k->size = 8;
		k->nbits = 63 - (unsigned)__builtin_clzll(v);
		k->bits = k->nbits ? v << (64 - k->nbits) : 0;
		if (!k->nbits)
			k->k = FP_OTHER;
		return;
	}
	case 0x03:				/* CBR */
		if (left >= 4)
			k->k = FP_SKIP, k->size = 4;
		return;
	case 0x73:				/* TMA */
		if (left >= 7)
			k->k = FP_SKIP, k->size = 7;
		return;
	default:
		return;
	}
}

/* Execution mode 64-bit (CS.L set, CS.D clear), or a TSX mode outside a
 * transaction: nothing the blocks depend on.  Returns 0 for anything
 * else. */
static int mode_ok(const struct fp *k)
{
	switch (k->bits >> 5) {
	case 0:
		return (k->bits & 3) == 1;
	case 1:
		return !(k->bits & 3);
	default:
		return 0;
	}
}

/* PSB+ at c->pos: the PSB, then up to PSBEND.  *fup gets the FUP's IP
 * (0: none, tracing off there).  Returns 1, or 0 for anything the fast
 * path leaves to libipt. */
static int psb_plus(struct fctx *c, uint64_t *fup, int *mode)
{
	struct fp k;

	c->pos += 16;
	c->last_ip = 0;
	c->have_ip = 0;
	*fup = 0;
	*mode = 0;
	for (;;) {
		peek_packet(c, &k);
		switch (k.k) {
		case FP_SKIP:
			break;
		case FP_MODE:
			if (!mode_ok(&k))
				return 0;
			*mode |= (k.bits >> 5) == 0;
			break;
		case FP_FUP:
			if (k.suppressed || *fup)
				return 0;
			*fup = k.ip;
			break;
		case FP_PSBEND:
			c->pos += k.size;
			return 1;
		default:
			return 0;
		}
		c->pos += k.size;
	}
}

/* Reads ahead as libipt's query decoder does once its TNT bits are used
 * up: the timing packets, and an event (PSB+, FUP + TIP.PGD or TIP) to
 * bind at an IP.  Stops before a packet that decides a branch.  Returns
 * 1, or 0 to leave the chunk to libipt. */
static int read_ahead(struct fctx *c)
{
	struct fp k;

	if (c->ntnt || c->ev)
		return 1;
	for (;;) {
		peek_packet(c, &k);
		switch (k.k) {
		case FP_SKIP:
			c->pos += k.size;
			continue;
		case FP_MODE:
			if (!mode_ok(&k))
				return 0;
			c->pos += k.size;
			continue;
		case FP_PSB: {
			uint64_t fup;
			int mode;

			if (!psb_plus(c, &fup, &mode) || !fup != !c->enabled)
				return 0;
			if (fup) {
				c->ev = FEV_STATUS;
				c->ev_ip = fup;
			}
			return 1;
		}
		case FP_FUP:
			if (k.suppressed || !c->enabled)
				return 0;
			c->pos += k.size;
			c->ev_ip = k.ip;
			for (;;) {
				peek_packet(c, &k);
				if (k.k != FP_SKIP)
					break;
				c->pos += k.size;
			}
			if (k.k == FP_PGD && k.suppressed) {
				c->ev = FEV_ASYNC_PGD;
			} else if (k.k == FP_TIP && !k.suppressed) {
				c->ev = FEV_ASYNC_TIP;
				c->ev_to = k.ip;
			} else {
				return 0;
			}
			c->pos += k.size;
			return 1;
		default:
			c->pk = k;
			c->pk_pos = c->pos;
			return 1;
		}
	}
}

static struct lsd_fblk *fblk_with(struct fctx *c, uint32_t id, const uint64_t *known);

/* The fast view of static block id, filled on first use.  Returns NULL
 * out of memory, or where its last instruction does not decode. */
static struct lsd_fblk *fblk(struct fctx *c, uint32_t id)
{
	return fblk_with(c, id, NULL);
}

/* fblk(), with the block's direct target *known where the caller has it
 * (no second disassembly of its last instruction). */
static struct lsd_fblk *fblk_with(struct fctx *c, uint32_t id, const uint64_t *known)
{
	struct lsd_decoder *d = c->d;
	struct lsd_fblk *f;

	if (id >= d->capfb) {
		size_t ncap = d->capfb ? d->capfb : 4096;
		void *p;

		while (ncap <= id)
			ncap *= 2;
		p = ls_reallocarray(d->fb, ncap, sizeof(*d->fb));
		if (!p)
			return NULL;
		memset((struct lsd_fblk *)p + d->capfb, 0,
		       (ncap - d->capfb) * sizeof(*d->fb));
		d->fb = p;
		d->capfb = ncap;
	}
	f = &d->fb[id];
	if (!f->known) {
		const struct lsd_sblock *sb = lsd_sb(d, id);
		enum lsd_kind kind = LSD_K_OTHER;
		uint64_t target = 0;

		f->sb = sb;
		f->end = sb->end;
		f->ninsn = sb->ninsn;
		f->kind = sb->last_kind;
		if (f->kind != LSD_K_JMP && f->kind != LSD_K_CALL && f->kind != LSD_K_COND)
			;
		else if (known)
			target = *known;
		else if (lsd_insn_branch(d, sb->last, &kind, &target) < 0 || kind != f->kind)
			return NULL;
		f->target = target;
		/* libipt logs no return for a call to the next instruction
		 * (position-independent code reading its IP). */
		f->push = f->kind == LSD_K_ICALL ||
			  (f->kind == LSD_K_CALL && target != sb->end);
		f->known = 1;
	}
	return f;
}

static size_t hash_ip(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return (size_t)a;
}

/* The id + 1 of the whole static block at head ip in c->sp, created
 * where new; 0 where there is none (unmapped, undecodable) or out of
 * memory (*err). */
static uint32_t head_id(struct fctx *c, uint64_t ip, int *err)
{
	struct lsd_space *sp = c->sp;
	size_t h;
	uint64_t target;
	uint32_t id;

	if ((sp->fn + 1) * 2 > sp->fcap) {
		size_t ncap = sp->fcap ? sp->fcap * 2 : 1024, i;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		uint32_t *ni = calloc(ncap, sizeof(*ni));

		if (!nk || !ni) {
			free(nk);
			free(ni);
			*err = -LS_ENOMEM;
			return 0;
		}
		for (i = 0; i < sp->fcap; i++) {
			if (!sp->fkey[i])
				continue;
			for (h = hash_ip(sp->fkey[i]) & (ncap - 1); nk[h]; h = (h + 1) & (ncap - 1))
				;
			nk[h] = sp->fkey[i];
			ni[h] = sp->fid[i];
		}
		free(sp->fkey);
		free(sp->fid);
		sp->fkey = nk;
		sp->fid = ni;
		sp->fcap = ncap;
	}
	for (h = hash_ip(ip) & (sp->fcap - 1); sp->fkey[h]; h = (h + 1) & (sp->fcap - 1))
		if (sp->fkey[h] == ip)
			return sp->fid[h];
	/* Callers ask for heads and for addresses after a branch, where
	 * libipt's blocks start too. */
	if (!ip)
		return 0;
	*err = lsd_sblock_walk(c->d, ip, &id, &target);
	if (*err) {
		/* Unmapped or undecodable: libipt reports it. */
		if (*err == -LS_EDECODE)
			*err = 0;
		return 0;
	}
	sp->fkey[h] = ip;
	sp->fid[h] = id + 1;
	sp->fn++;
	(void)fblk_with(c, id, &target);	/* NULL: fblk() says so later */
	return id + 1;
}

/* The id + 1 of the block at a TIP target, through a small cache. */
static uint32_t tip_id(struct fctx *c, uint64_t ip, int *err)
{
	struct lsd_fast *f = c->f;
	size_t s = (size_t)(ip ^ (ip >> 10)) & (FAST_TIPC - 1);
	uint32_t id;

	if (f->tipc_ip[s] == ip)
		return f->tipc_id[s];
	if ((id = head_id(c, ip, err)) != 0) {
		f->tipc_ip[s] = ip;
		f->tipc_id[s] = id;
	}
	return id;
}

/* Hands out the final blocks, out[0 .. fin).  Returns 0 or a callback's
 * return. */
static int commit(struct fctx *c)
{
	struct lsd_fast *f = c->f;
	int err;

	if (!c->fin)
		return 0;
	err = lsd_run_put(c->r, f->out, c->fin);
	c->delivered += c->fin;
	memmove(f->out, f->out + c->fin, (c->n - c->fin) * sizeof(*f->out));
	c->n -= c->fin;
	c->fin = 0;
	return err;
}

#define BAIL LSD_FAST_BAIL
#define FAST_EOS (LSD_FAST_BAIL + 1)

/* The pending event binds where control goes next, *to: the current
 * block ends there.  Sets *exit for an asynchronous exit, and *go: 0 when
 * tracing stopped, 2 when control goes on at a new *to (FUP + TIP).
 * Returns 0 or BAIL. */
static int bind(struct fctx *c, uint64_t *to, uint8_t *exit, int *go)
{
	while (c->ev && c->ev_ip == *to) {
		switch (c->ev) {
		case FEV_STATUS:
			c->ev = FEV_NONE;
			break;
		case FEV_ASYNC_PGD:
			*exit = LSD_EXIT_ASYNC;
			c->r->st->async++;
			c->enabled = 0;
			c->ev = FEV_NONE;
			*go = 0;
			return read_ahead(c) ? 0 : BAIL;
		case FEV_ASYNC_TIP:
			*exit = LSD_EXIT_ASYNC;
			*to = c->ev_to;
			c->r->st->async++;
			c->ev = FEV_NONE;
			*go = 2;
			break;
		default:
			return BAIL;
		}
		if (!read_ahead(c))
			return BAIL;
	}
	return 0;
}

/* The packet that decides the current block's branch: read ahead has
 * left it at c->pos.  An event still pending would bind before it:
 * libipt fails there, so the fast path leaves it to libipt. */
static int fetch(struct fctx *c, struct fp *k)
{
	if (c->ev)
		return BAIL;
	if (c->pk_pos == c->pos)
		*k = c->pk;	/* parsed by read_ahead(), its side effects done */
	else
		peek_packet(c, k);
	return 0;
}

/* The end of the chunk's packets.  Where tracing is on, the current block
 * (cur_start) waits for the packet of its branch; decode.c holds back
 * everything from the last arrival at the chunk's stop IP X (where the
 * next chunk begins) after the last packet, and drops it: those blocks
 * are the next chunk's.  Here they are dropped at once, whatever libipt
 * would have made of the block that waits (it hands out the instructions
 * before the branch, or the whole block, depending on its block cache).
 * Where X is not reached after the last packet, or the stream ends here,
 * that block is handed out: that is left to libipt. */
static int at_end(struct fctx *c, uint64_t cur_start)
{
	uint64_t x = c->r->stop_ip;
	size_t j;

	if (c->ev)
		return BAIL;
	if (c->enabled) {
		for (j = c->fin; j < c->n && x; j++)
			if (c->f->out[j].sb->start == x)
				break;
		if (!x || (j >= c->n && cur_start != x))
			return BAIL;
		for (c->fin = j; j < c->n; j++) {
			c->insns -= c->f->out[j].sb->ninsn;
			c->blocks--;
		}
		c->n = c->fin;
	}
	c->fin = c->n;
	return commit(c);
}

/* Tracing is off: waits for TIP.PGE.  Returns 0 (enabled, *id1 the block
 * there), FAST_EOS at the end of the packets, BAIL or an error. */
static int wait_enable(struct fctx *c, uint32_t *id1)
{
	struct fp k;
	int err = 0;

	for (;;) {
		if (!read_ahead(c) || c->ev)
			return BAIL;
		peek_packet(c, &k);
		switch (k.k) {
		case FP_EOS:
			return FAST_EOS;
		case FP_PGE:
			if (k.suppressed)
				return BAIL;
			c->pos += k.size;
			c->enabled = 1;
			c->r->st->enables++;
			if (!(*id1 = head_id(c, k.ip, &err)) || !fblk(c, *id1 - 1))
				return err ? err : BAIL;
			if (!read_ahead(c) || (c->ev && c->ev_ip == k.ip))
				return BAIL;
			return 0;
		default:
			return BAIL;
		}
	}
}

static int rs_pop(struct fctx *c, uint64_t *ip)
{
	if (!c->rn)
		return BAIL;	/* libipt: return stack empty */
	c->rtop = (c->rtop - 1) & (FAST_RSTACK - 1);
	c->rn--;
	*ip = c->rs[c->rtop];
	return 0;
}

static void rs_push(struct fctx *c, uint64_t ip)
{
	c->rs[c->rtop] = ip;
	c->rtop = (c->rtop + 1) & (FAST_RSTACK - 1);
	if (c->rn < FAST_RSTACK)
		c->rn++;
}

/* The block control goes to: a direct successor found once and kept in
 * f (by its address `to`), else looked up.  Returns its id + 1, or 0
 * (*err, or BAIL). */
static uint32_t next_block(struct fctx *c, uint32_t cur, uint64_t to, int direct,
			   int *err)
{
	struct lsd_fblk *f;
	uint32_t nx = direct ? head_id(c, to, err) : tip_id(c, to, err);

	if (!nx || !fblk(c, nx - 1)) {
		if (nx && !*err)
			*err = BAIL;
		return 0;
	}
	f = &c->d->fb[cur - 1];	/* fblk() may have moved the table */
	if (direct && to == f->end)
		f->fall = nx;
	else if (direct && to == f->target)
		f->taken = nx;
	return nx;
}

/* Where block f goes without a packet (no branch, a direct jump or
 * call): *to, the block there (*nx, id + 1, 0 where not known yet) and
 * f's exit. */
static inline void step_direct(const struct lsd_fblk *f, uint64_t *to, uint32_t *nx,
			       uint8_t *exit)
{
	if (f->kind == LSD_K_OTHER) {
		*to = f->end;
		*nx = f->fall;
		*exit = LSD_EXIT_FALL;
	} else {
		*to = f->target;
		*nx = f->taken;
		*exit = f->kind == LSD_K_CALL ? LSD_EXIT_CALL : LSD_EXIT_JUMP;
	}
}

/* Where conditional block f goes with TNT bit `taken`, as step_direct(). */
static inline void step_cond(const struct lsd_fblk *f, int taken, uint64_t *to,
			     uint32_t *nx, uint8_t *exit)
{
	if (taken) {
		*to = f->target;
		*nx = f->taken;
	} else {
		*to = f->end;
		*nx = f->fall;
	}
	*exit = *to == f->end ? LSD_EXIT_COND_NOT : LSD_EXIT_COND_TAKEN;
}

/* Builds the chain from block cur for the k TNT bits `bits` (the first in
 * bit k - 1): the blocks they lead through, up to a block needing another
 * bit or another packet, one whose successor is not known yet, or
 * CH_MAX.  Returns 1, or 0 where there is no chain to make. */
static int chain_build(const struct lsd_decoder *d, struct lsd_fchain *ch,
		       uint32_t cur, unsigned k, unsigned bits)
{
	const struct lsd_fblk *fb = d->fb;
	unsigned used = 0, nb = 0, npush = 0, lastc = 0;
	uint64_t insns = 0;
	uint32_t start = cur;

	ch->cur = 0;	/* the slot's old chain is being overwritten */
	while (nb < CH_MAX) {
		const struct lsd_fblk *f = &fb[cur - 1];
		uint64_t to;
		uint32_t nx;
		uint8_t exit;

		switch (f->kind) {
		case LSD_K_CALL:
			if (f->push && npush == CH_PUSH)
				goto stop;
			/* fall through */
		case LSD_K_OTHER:
		case LSD_K_JMP:
			step_direct(f, &to, &nx, &exit);
			break;
		case LSD_K_COND:
			if (used == k)
				goto stop;
			step_cond(f, (bits >> (k - 1 - used)) & 1, &to, &nx, &exit);
			break;
		default:
			goto stop;
		}
		if (!nx)
			goto stop;
		if (f->kind == LSD_K_CALL && f->push)
			ch->push[npush++] = f->end;
		if (f->kind == LSD_K_COND) {
			used++;
			lastc = nb + 1;
		}
		ch->b[nb].sb = f->sb;
		ch->b[nb].exit = exit;
		ch->b[nb].next = to;
		nb++;
		insns += f->ninsn;
		cur = nx;
		/* After its last bit libipt reads ahead for events: those
		 * bind on the way from here, block by block. */
		if (used == k)
			break;
	}
stop:
	if (!used)
		return 0;	/* nothing the per-block loop does not do as fast */
	ch->cur = start;
	ch->k = (uint8_t)k;
	ch->bits = (uint16_t)bits;
	ch->used = (uint8_t)used;
	ch->nb = (uint8_t)nb;
	ch->npush = (uint8_t)npush;
	ch->lastc = (uint8_t)lastc;
	ch->end = cur;
	ch->insns = insns;
	return 1;
}

/* Decodes the chunk: the loop over the blocks, its state in locals (the
 * blocks written out alias nothing of it), saved to c around anything
 * out of line.  Returns 0, BAIL or an error. */
static int run_chunk(struct fctx *c)
{
	struct lsd_block *const out = c->f->out;
	struct lsd_fchain *const chains = c->d->chains;
	const unsigned ch_shift = 32 - c->d->ch_log;
	struct fp k;
	uint32_t cur = 0;
	uint64_t fup, tnt, insns = 0, blocks = 0;
	unsigned ntnt;
	size_t n, fin;
	int mode, err = 0;

	peek_packet(c, &k);
	if (k.k != FP_PSB || !psb_plus(c, &fup, &mode))
		return BAIL;
	if (fup) {
		if (!mode || !(cur = head_id(c, fup, &err)) || !fblk(c, cur - 1))
			return err ? err : BAIL;
		c->enabled = 1;
	}
	if (!read_ahead(c) || (c->ev && c->ev_ip == fup))
		return BAIL;
	tnt = c->tnt;
	ntnt = c->ntnt;
	n = c->n;
	fin = c->fin;
#define SAVE() (c->tnt = tnt, c->ntnt = ntnt, c->n = n, c->fin = fin, \
		c->insns += insns, c->blocks += blocks, insns = blocks = 0)
#define LOAD() (tnt = c->tnt, ntnt = c->ntnt, n = c->n, fin = c->fin)
#define FAIL(e) do { SAVE(); return (e); } while (0)
#define END() do { SAVE(); return at_end(c, cur ? c->d->fb[cur - 1].sb->start : 0); } while (0)
	for (;;) {
		const struct lsd_fblk *f;
		uint64_t to;
		uint32_t nx;
		uint8_t exit;
		int go = 1;

		if (n == FAST_OUT) {
			SAVE();
			if (!c->fin)
				return BAIL;	/* a path without packets this long */
			if ((err = commit(c)) != 0)
				return err;
			LOAD();
		}
		if (!cur) {
			SAVE();
			err = wait_enable(c, &cur);
			if (err == FAST_EOS)
				return at_end(c, 0);
			if (err)
				return err;
			LOAD();
		}
		/* With no bit left and no event pending, the TNT packet read
		 * ahead is the next thing any block takes (a conditional
		 * branch or a compressed return; any other would bail either
		 * way): its bits now, so that a chain starts here rather than
		 * a block later. */
		if (!ntnt && !c->ev && c->pk_pos == c->pos && c->pk.k == FP_TNT) {
			c->pos += c->pk.size;
			tnt = c->pk.bits;
			ntnt = c->pk.nbits;
		}
		/* A chain: the blocks the next TNT bits lead through, copied
		 * out whole.  Not with an event pending (it may bind on the
		 * way). */
		if (ntnt && !c->ev && n + CH_MAX <= FAST_OUT && chains) {
			unsigned kk = ntnt < CH_BITS ? ntnt : CH_BITS;
			unsigned bits = (unsigned)(tnt >> (64 - kk));
			struct lsd_fchain *ch = &chains[((cur ^ (bits << 12) ^ (kk << 28)) *
							 0x9e3779b1u) >> ch_shift];

			if ((ch->cur == cur && ch->k == kk && ch->bits == bits) ||
			    chain_build(c->d, ch, cur, kk, bits)) {
				unsigned i;

				memcpy(out + n, ch->b, ch->nb * sizeof(*out));
				fin = n + ch->lastc;
				n += ch->nb;
				for (i = 0; i < ch->npush; i++)
					rs_push(c, ch->push[i]);
				tnt <<= ch->used;
				ntnt -= ch->used;
				insns += ch->insns;
				blocks += ch->nb;
				cur = ch->end;
				if (ntnt)
					continue;
				SAVE();
				if (!read_ahead(c))
					return BAIL;
				if (c->ev) {
					/* An event read ahead may bind where
					 * the chain's last block went. */
					struct lsd_block *o = &out[n - 1];

					to = o->next;
					exit = o->exit;

					if ((err = bind(c, &to, &exit, &go)) != 0)
						return err;
					o->exit = exit;
					o->next = to;
					if (go != 1)
						fin = n;
					if (!go)
						cur = 0;
					else if (go == 2 && !(cur = next_block(c, cur, to, 0, &err)))
						return err ? err : BAIL;
				}
				continue;
			}
		}
		f = &c->d->fb[cur - 1];
		switch (f->kind) {
		case LSD_K_CALL:
			if (f->push)
				rs_push(c, f->end);
			/* fall through */
		case LSD_K_OTHER:
		case LSD_K_JMP:
			step_direct(f, &to, &nx, &exit);
			break;
		case LSD_K_COND:
			if (!ntnt) {
				if ((err = fetch(c, &k)) != 0)
					FAIL(err);
				if (k.k == FP_EOS)
					END();
				if (k.k != FP_TNT)
					FAIL(BAIL);
				c->pos += k.size;
				tnt = k.bits;
				ntnt = k.nbits;
			}
			fin = n + 1;
			ntnt--;
			step_cond(f, (int)(tnt >> 63), &to, &nx, &exit);
			tnt <<= 1;
			if (!ntnt) {
				SAVE();
				if (!read_ahead(c))
					return BAIL;
			}
			break;
		case LSD_K_RET:
			exit = LSD_EXIT_RET;
			nx = 0;
			if (!ntnt) {
				if ((err = fetch(c, &k)) != 0)
					FAIL(err);
				if (k.k == FP_EOS)
					END();
				if (k.k == FP_TIP && !k.suppressed) {
					/* not compressed */
					c->pos += k.size;
					fin = n + 1;
					to = k.ip;
					SAVE();
					if (!read_ahead(c))
						return BAIL;
					break;
				}
				if (k.k != FP_TNT)
					FAIL(BAIL);
				c->pos += k.size;
				tnt = k.bits;
				ntnt = k.nbits;
			}
			/* A compressed return: a taken bit, the stack's top. */
			if (!(tnt >> 63) || rs_pop(c, &to))
				FAIL(BAIL);
			tnt <<= 1;
			ntnt--;
			fin = n + 1;
			if (!ntnt) {
				SAVE();
				if (!read_ahead(c))
					return BAIL;
			}
			break;
		case LSD_K_IJMP:
		case LSD_K_ICALL:
			if (ntnt || (err = fetch(c, &k)) != 0)
				FAIL(err ? err : BAIL);
			if (k.k == FP_EOS)
				END();
			if (k.k != FP_TIP || k.suppressed)
				FAIL(BAIL);
			c->pos += k.size;
			if (f->push)
				rs_push(c, f->end);
			fin = n + 1;
			to = k.ip;
			nx = 0;
			exit = f->kind == LSD_K_IJMP ? LSD_EXIT_IJUMP : LSD_EXIT_ICALL;
			SAVE();
			if (!read_ahead(c))
				return BAIL;
			break;
		case LSD_K_FAR:
			if (ntnt || (err = fetch(c, &k)) != 0)
				FAIL(err ? err : BAIL);
			if (k.k == FP_EOS)
				END();
			if (k.k != FP_PGD || !k.suppressed)
				FAIL(BAIL);
			/* A system call: tracing stops at it. */
			c->pos += k.size;
			out[n].sb = f->sb;
			out[n].exit = LSD_EXIT_SYSCALL;
			out[n].next = 0;
			fin = ++n;
			insns += f->ninsn;
			blocks++;
			c->r->st->syscalls++;
			c->enabled = 0;
			cur = 0;
			SAVE();
			if (!read_ahead(c))
				return BAIL;
			continue;
		default:
			FAIL(BAIL);
		}
		if (c->ev && to == c->ev_ip) {
			SAVE();
			if ((err = bind(c, &to, &exit, &go)) != 0)
				return err;
			if (go != 1)
				fin = n + 1;
		}
		out[n].sb = f->sb;
		out[n].exit = exit;
		out[n].next = to;
		n++;
		insns += f->ninsn;
		blocks++;
		if (!go) {
			cur = 0;
			continue;
		}
		if (!nx || go == 2) {
			int direct = go == 1 && f->kind != LSD_K_RET &&
				     f->kind != LSD_K_IJMP && f->kind != LSD_K_ICALL;

			SAVE();
			if (!(nx = next_block(c, cur, to, direct, &err)))
				return err ? err : BAIL;
		}
		cur = nx;
	}
#undef SAVE
#undef LOAD
#undef FAIL
#undef END
}

/* The chains' table size for d's code (CH_LOG_MIN): the heads are all
 * known once the decoder is open. */
static unsigned ch_log_for(const struct lsd_decoder *d)
{
	size_t i, n = 0;
	unsigned lg = CH_LOG_MIN;

	for (i = 0; i <= d->nimgs; i++)
		n += d->spaces[i].heads.n;
	while (lg < CH_LOG && ((size_t)1 << lg) < 2 * n)
		lg++;
	return lg;
}

int lsd_fast_chunk(struct lsd_run *r)
{
	struct fctx c;
	int err;

	/* The state the decoder's last run left, else a new one (cleared:
	 * its TIP cache is for no space). */
	if (!r->fp && r->d->fspare) {
		r->fp = r->d->fspare;
		r->d->fspare = NULL;
		r->fp->tipc_sp = NULL;
	}
	if (!r->fp && !(r->fp = calloc(1, sizeof(*r->fp))))
		return -LS_ENOMEM;
	/* Without memory for chains, block by block. */
	if (!r->d->chains) {
		r->d->ch_log = ch_log_for(r->d);
		r->d->chains = calloc((size_t)1 << r->d->ch_log, sizeof(*r->d->chains));
	}
	/* Blocks batched before this chunk go out first. */
	if ((err = lsd_run_batch_flush(r)) != 0)
		return err;
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.d = r->d;
	c.sp = r->d->sp;
	c.f = r->fp;
	c.buf = r->buf;
	c.len = r->len;
	c.pk_pos = SIZE_MAX;
	if (c.f->tipc_sp != c.sp) {
		/* both: a TIP to address 0 must not find another space's id */
		memset(c.f->tipc_ip, 0, sizeof(c.f->tipc_ip));
		memset(c.f->tipc_id, 0, sizeof(c.f->tipc_id));
		c.f->tipc_sp = c.sp;
	}
	err = run_chunk(&c);
	if (err == FAST_EOS)
		err = BAIL;
	if (err == BAIL) {
		/* What was handed out stays; libipt's decode of the chunk
		 * drops as many blocks. */
		if ((err = lsd_run_batch_flush(r)) != 0)
			return err;
		r->skip = c.delivered;
		return BAIL;
	}
	r->insns += c.insns;
	r->blocks += c.blocks;
	return err;
}

void lsd_fast_release(struct lsd_run *r)
{
	/* Kept for the decoder's next run: 400 KB cleared per run cost
	 * more than decoding a chunk of a small trace. */
	if (r->fp && !r->d->fspare)
		r->d->fspare = r->fp;
	else
		free(r->fp);
	r->fp = NULL;
}

void lsd_fast_free(struct lsd_decoder *d)
{
	free(d->fspare);
	d->fspare = NULL;
	free(d->chains);
	d->chains = NULL;
	free(d->fb);
	d->fb = NULL;
	d->capfb = 0;
}
