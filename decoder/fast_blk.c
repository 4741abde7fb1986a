/* fast_blk.c - the fast path's blocks: each static block's view
 * (struct lsd_fblk) filled once, the index of whole blocks by head
 * address, the TIP target cache, and the chains of blocks a run of TNT
 * bits leads through (built once, handed out whole by fast.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decoder/fast_int.h"
#include "ls_buf.h"
#include "ls_err.h"

#define BAIL LSD_FAST_BAIL

static struct lsd_fblk *fblk_with(struct lsd_fctx *c, uint32_t id, const uint64_t *known);

/* The fast view of static block id, filled on first use.  Returns NULL
 * out of memory, or where its last instruction does not decode. */
struct lsd_fblk *lsd_fast_fblk(struct lsd_fctx *c, uint32_t id)
{
	return fblk_with(c, id, NULL);
}

/* lsd_fast_fblk(), with the block's direct target *known where the caller has it
 * (no second disassembly of its last instruction). */
static struct lsd_fblk *fblk_with(struct lsd_fctx *c, uint32_t id, const uint64_t *known)
{
	struct lsd_decoder *d = c->d;
	struct lsd_fblk *f;

	if (id >= d->capfb) {
		size_t ncap = d->capfb ? d->capfb : 4096;
		void *p;

		while (ncap <= id)
			ncap *= 2;
		/* (the new room zero, its pages mapped in at once) */
		p = ls_zgrow(d->fb, d->capfb, ncap, sizeof(*d->fb));
		if (!p)
			return NULL;
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
		/* a chain takes bits through direct branches only */
		f->chmask = f->kind != LSD_K_OTHER && f->kind != LSD_K_COND &&
			    f->kind != LSD_K_JMP && f->kind != LSD_K_CALL;
		f->known = 1;
	}
	return f;
}

/* The id + 1 of the whole static block at head ip in c->sp, created
 * where new; 0 where there is none (unmapped, undecodable) or out of
 * memory (*err). */
uint32_t lsd_fast_head_id(struct lsd_fctx *c, uint64_t ip, int *err)
{
	struct lsd_space *sp = c->sp;
	size_t h;
	uint64_t target;
	uint32_t id;

	if ((sp->fn + 1) * 2 > sp->fcap) {
		size_t ncap = sp->fcap ? sp->fcap * 2 : 1024, i;
		uint64_t *nk = ls_zalloc(ncap, sizeof(*nk));
		uint32_t *ni = ls_zalloc(ncap, sizeof(*ni));

		if (!nk || !ni) {
			free(nk);
			free(ni);
			*err = -LS_ENOMEM;
			return 0;
		}
		for (i = 0; i < sp->fcap; i++) {
			if (!sp->fkey[i])
				continue;
			for (h = lsd_hash64(sp->fkey[i]) & (ncap - 1); nk[h]; h = (h + 1) & (ncap - 1))
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
	for (h = lsd_hash64(ip) & (sp->fcap - 1); sp->fkey[h]; h = (h + 1) & (sp->fcap - 1))
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
	(void)fblk_with(c, id, &target);	/* NULL: lsd_fast_fblk() says so later */
	return id + 1;
}

/* The id + 1 of the block at a TIP target, through a small cache. */
static uint32_t tip_id(struct lsd_fctx *c, uint64_t ip, int *err)
{
	struct lsd_fast *f = c->f;
	size_t s = lsd_fast_tipc_slot(ip);
	uint32_t id;

	if (f->tipc_ip[s] == ip)
		return f->tipc_id[s];
	if ((id = lsd_fast_head_id(c, ip, err)) != 0) {
		f->tipc_ip[s] = ip;
		f->tipc_id[s] = id;
	}
	return id;
}


/* The block control goes to: a direct successor found once and kept in
 * f (by its address `to`), else looked up.  Returns its id + 1, or 0
 * (*err, or BAIL). */
uint32_t lsd_fast_next_block(struct lsd_fctx *c, uint32_t cur, uint64_t to, int direct,
			   int *err)
{
	struct lsd_fblk *f;
	uint32_t nx = direct ? lsd_fast_head_id(c, to, err) : tip_id(c, to, err);

	if (!nx || ((nx > c->d->capfb || !c->d->fb[nx - 1].known) &&
		    !lsd_fast_fblk(c, nx - 1))) {
		if (nx && !*err)
			*err = BAIL;
		return 0;
	}
	f = &c->d->fb[cur - 1];	/* lsd_fast_fblk() may have moved the table */
	if (direct && to == f->end)
		f->fall = nx;
	else if (direct && to == f->target)
		f->taken = nx;
	return nx;
}


/* Builds the chain from block cur for the k TNT bits `bits` (the first in
 * bit k - 1): the blocks they lead through, up to a block needing another
 * bit or another packet, one whose successor is not known yet, or
 * LSD_CH_MAX.  Returns what it made (enum lsd_fchs). */
int lsd_fast_chain_build(const struct lsd_decoder *d, struct lsd_fchain *ch,
		       uint32_t cur, unsigned k, unsigned bits)
{
	const struct lsd_fblk *fb = d->fb;
	unsigned used = 0, nb = 0, nops = 0, lastc = 0;
	unsigned open[LSD_CH_PUSH], nopen = 0;	/* the ops of calls not returned */
	uint64_t insns = 0;
	uint32_t start = cur;
	int made = LSD_FCH_CODE;
	struct lsd_fchead *h = lsd_fchain_head(d, ch);

	h->key = 0;	/* the slot's old chain is being overwritten */
	h->out = 0;
	while (nb < LSD_CH_MAX) {
		const struct lsd_fblk *f = &fb[cur - 1];
		uint64_t to;
		uint32_t nx;
		uint8_t exit;

		if (insns + f->ninsn > UINT32_MAX)	/* (the header's count) */
			goto stop;

		switch (f->kind) {
		case LSD_K_CALL:
			if (f->push && nops == LSD_CH_PUSH)
				goto stop;
			/* fall through */
		case LSD_K_OTHER:
		case LSD_K_JMP:
			step_direct(f, &to, &nx, &exit);
			break;
		case LSD_K_COND:
			if (used == k) {
				made = LSD_FCH_BITS;
				goto stop;
			}
			step_cond(f, (bits >> (k - 1 - used)) & 1, &to, &nx, &exit);
			break;
		case LSD_K_RET:
			/* A return to a call made on the way: libipt pops
			 * what that call pushed, with a taken bit (not
			 * taken: libipt fails, left to the block loop). */
			if (!nopen || nops == LSD_CH_PUSH)
				goto stop;
			if (used == k || !((bits >> (k - 1 - used)) & 1)) {
				made = LSD_FCH_BITS;
				goto stop;
			}
			to = ch->push[open[nopen - 1]];
			nx = fb[ch->pcall[open[nopen - 1]] - 1].fall;
			exit = LSD_EXIT_RET;
			break;
		default:
			goto stop;
		}
		if (!nx) {
			made = LSD_FCH_PART;
			goto stop;
		}
		if (f->kind == LSD_K_CALL && f->push) {
			open[nopen++] = nops;
			ch->pcall[nops] = cur;
			ch->push[nops++] = f->end;
		} else if (f->kind == LSD_K_RET) {
			nopen--;
			ch->pcall[nops] = 0;
			ch->push[nops++] = 0;
		}
		if (f->kind == LSD_K_COND || f->kind == LSD_K_RET) {
			used++;
			lastc = nb + 1;
		}
		lsd_fast_put(&ch->b[nb++], f, cur, exit, to);
		insns += f->ninsn;
		cur = nx;
		/* After its last bit libipt reads ahead for events: those
		 * bind on the way from here, block by block. */
		if (used == k) {
			made = LSD_FCH_BITS;
			break;
		}
	}
stop:
	if (!used)	/* nothing the per-block loop does not do as fast */
		return made == LSD_FCH_CODE ? LSD_FCH_NONE : LSD_FCH_LATER;
	h->key = lsd_fchain_key(start, k, bits);
	h->used = (uint8_t)used;
	h->nb = (uint8_t)nb;
	h->nops = (uint8_t)nops;
	h->lastc = (uint8_t)lastc;
	h->end = cur;
	h->endnc = fb[cur - 1].chmask & 1;
	h->insns = (uint32_t)insns;
	return made;
}

/* Copies chain `from` of d's table into `to`, header too (the blocks it
 * has, not the array). */
static void chain_copy(const struct lsd_decoder *d, struct lsd_fchain *to,
		       const struct lsd_fchain *from)
{
	const struct lsd_fchead *hf = lsd_fchain_head(d, from);

	*lsd_fchain_head(d, to) = *hf;
	memcpy(to->push, from->push, sizeof(to->push));
	memcpy(to->pcall, from->pcall, sizeof(to->pcall));
	lsd_blocks_copy(to->b, from->b, hf->nb);
	/* (its own blocks: not handed out from here yet) */
	lsd_fchain_head(d, to)->out = 0;
}

struct lsd_fchain *lsd_fast_chain(struct lsd_decoder *d, size_t slot, uint32_t cur,
				  unsigned k, unsigned bits)
{
	const unsigned shift = 64 - d->ch_log;
	struct lsd_fblk *f = &d->fb[cur - 1];
	unsigned m = f->chmask & ((1u << k) - 2), u;
	struct lsd_fchain *ch;
	size_t sl;
	uint64_t key;
	int r;

	/* A chain that stopped at the code after u bits serves every
	 * pattern that starts with them: with more bits than u, the walk
	 * goes the same way and stops at the same place.  (With just u
	 * bits left it would end at the last of them: libipt reads ahead
	 * there.) */
	for (; m; m &= m - 1) {
		u = (unsigned)__builtin_ctz(m);
		key = lsd_fchain_skey(cur, u, bits >> (k - u));
		sl = lsd_fchain_slot(key, shift);
		if (d->chead[sl].key != key)
			continue;
		/* and under all k bits from now on, found in one probe */
		if (sl == slot)
			return lsd_fchain_at(d, sl);
		ch = lsd_fchain_take(d, slot);
		chain_copy(d, ch, lsd_fchain_at(d, sl));
		lsd_fchain_head(d, ch)->key = lsd_fchain_key(cur, k, bits);
		return ch;
	}
	/* A slot with no chain yet gets one only for a chain built (of
	 * sqlite3's 10,685 slots built, 4,941 made none, or none yet). */
	if (d->chbody[slot]) {
		ch = lsd_fchain_at(d, slot);
	} else {
		ch = &d->chains[(size_t)1 << d->ch_log];
		ch->slot = (uint32_t)slot;
	}
	r = lsd_fast_chain_build(d, ch, cur, k, bits);
	/* (BITS, CODE, PART: a chain made, its key set) */
	_Static_assert(LSD_FCH_BITS > LSD_FCH_LATER && LSD_FCH_CODE > LSD_FCH_LATER &&
		       LSD_FCH_PART > LSD_FCH_LATER, "the kinds that make a chain");
	if (r > LSD_FCH_LATER && !d->chbody[slot]) {
		/* (the same slot: its header stays) */
		struct lsd_fchain *to = lsd_fchain_take(d, slot);

		chain_copy(d, to, ch);
		ch = to;
	}
	switch (r) {
	case LSD_FCH_NONE:
		f->chmask |= 1;
		return NULL;
	case LSD_FCH_LATER:
		return NULL;
	case LSD_FCH_CODE:
		/* in ch under all k bits, and a copy under its u bits for
		 * the other patterns that start with them */
		u = lsd_fchain_head(d, ch)->used;
		key = lsd_fchain_skey(cur, u, bits >> (k - u));
		sl = lsd_fchain_slot(key, shift);
		/* (not over a slot a run not handed out points into: the
		 * copy only spares later builds) */
		if (sl != slot && d->chead[sl].pend == d->ch_epoch)
			return ch;
		if (sl != slot)
			chain_copy(d, lsd_fchain_take(d, sl), ch);
		d->chead[sl].key = key;
		f->chmask |= (uint8_t)(1u << u);
		return ch;
	default:
		return ch;
	}
}

void *lsd_fast_zmap(size_t n, size_t size, size_t *len)
{
	void *p;

	*len = 0;
	if (size && n > SIZE_MAX / size - 64)
		return NULL;
	*len = (n * size + 63) & ~(size_t)63;
#ifdef __SANITIZE_ADDRESS__
	/* (ASan sees into heap blocks, not into mappings) */
	if ((p = aligned_alloc(64, *len)))
		memset(p, 0, *len);
#else
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		p = NULL;
#endif
	if (!p)
		*len = 0;
	return p;
}

void lsd_fast_zunmap(void *p, size_t len)
{
	if (!p)
		return;
#ifdef __SANITIZE_ADDRESS__
	(void)len;
	free(p);
#else
	munmap(p, len);
#endif
}

void lsd_fast_chains_free(struct lsd_decoder *d)
{
	lsd_fast_zunmap(d->chains, d->chains_len);
	d->chains = NULL;
	d->chains_len = 0;
	d->ch_pf = 0;
	free(d->chead);
	d->chead = NULL;
	free(d->chbody);
	d->chbody = NULL;
	d->ch_given = 0;
}

void lsd_fast_trails_free(struct lsd_decoder *d)
{
	lsd_fast_zunmap(d->trails, d->trails_len);
	d->trails = NULL;
	d->trails_len = 0;
	free(d->tr_cand);
	d->tr_cand = NULL;
	lsd_fast_zunmap(d->tr_sets, d->tr_len);
	d->tr_sets = NULL;
	d->tr_len = 0;
	d->tr_built = 0;
	d->tr_pf = 0;
}

void lsd_fast_free(struct lsd_decoder *d)
{
	free(d->fspare);
	d->fspare = NULL;
	lsd_fast_chains_free(d);
	lsd_fast_trails_free(d);
	free(d->fb);
	d->fb = NULL;
	d->capfb = 0;
}
