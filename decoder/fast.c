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
 *
 * The packets are parsed in fast_pkt.c; the blocks' views, the index of
 * heads and the chains of blocks in fast_blk.c; the blocks made go out
 * in fast_out.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/fast_int.h"
#include "ls_err.h"

#define BAIL LSD_FAST_BAIL

/* The pending event binds where control goes next, *to: the current
 * block ends there.  Sets *exit for an asynchronous exit, and *go: 0 when
 * tracing stopped, 2 when control goes on at a new *to (FUP + TIP).
 * Returns 0 or BAIL. */
static int bind(struct lsd_fctx *c, uint64_t *to, uint8_t *exit, int *go)
{
	while (c->ev && c->ev_ip == *to) {
		switch (c->ev) {
		case LSD_FEV_STATUS:
			c->ev = LSD_FEV_NONE;
			break;
		case LSD_FEV_ASYNC_PGD:
			*exit = LSD_EXIT_ASYNC;
			c->r->st->async++;
			c->enabled = 0;
			c->ev = LSD_FEV_NONE;
			*go = 0;
			return lsd_fast_read_ahead(c) ? 0 : BAIL;
		case LSD_FEV_ASYNC_TIP:
			*exit = LSD_EXIT_ASYNC;
			*to = c->ev_to;
			c->r->st->async++;
			c->ev = LSD_FEV_NONE;
			*go = 2;
			break;
		default:
			return BAIL;
		}
		if (!lsd_fast_read_ahead(c))
			return BAIL;
	}
	return 0;
}

/* The packet that decides the current block's branch: read ahead has
 * left it at c->pos.  An event still pending would bind before it:
 * libipt fails there, so the fast path leaves it to libipt.  Returns 0
 * with *pk the packet (c->pk, or k parsed here), or BAIL. */
static int fetch(struct lsd_fctx *c, struct lsd_fpk *k, const struct lsd_fpk **pk)
{
	if (c->ev)
		return BAIL;
	if (c->pk_pos == c->pos) {
		/* parsed by lsd_fast_read_ahead(), its side effects done
		 * (read in place: the next read ahead overwrites it) */
		*pk = &c->pk;
	} else {
		lsd_fast_peek(c, k);
		*pk = k;
	}
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
static int at_end(struct lsd_fctx *c, uint64_t cur_start)
{
	uint64_t x = c->r->stop_ip;
	size_t j;

	const struct lsd_block *o;

	if (c->ev)
		return BAIL;
	if (c->enabled) {
		/* all in loc[0 .. n), nothing handed out: on BAIL, libipt's
		 * blocks may end otherwise (the stream ends in them) */
		lsd_fast_flatten(c);
		o = c->f->loc;
		for (j = c->fin; j < c->n && x; j++)
			if (o[j].sb->start == x)
				break;
		if (!x || (j >= c->n && cur_start != x))
			return BAIL;
		for (c->fin = j; j < c->n; j++)
			c->insns -= o[j].sb->ninsn;
		c->n = c->fin;
		if (c->nsp)
			c->f->sp[0].n = c->n;
		if (!c->n)
			c->nsp = 0;
	}
	/* the packets ended where libipt's do: all of them are final */
	c->fin = c->n;
	c->safe = c->delivered + c->n;
	return lsd_fast_commit(c, 1);
}

/* Tracing is off: waits for TIP.PGE.  Returns 0 (enabled, *id1 the block
 * there), LSD_FAST_EOS at the end of the packets, BAIL or an error. */
static int wait_enable(struct lsd_fctx *c, uint32_t *id1)
{
	struct lsd_fpk k;
	int err = 0;

	for (;;) {
		if (!lsd_fast_read_ahead(c) || c->ev)
			return BAIL;
		lsd_fast_peek(c, &k);
		switch (k.k) {
		case LSD_FP_EOS:
			return LSD_FAST_EOS;
		case LSD_FP_PGE:
			/* with no MODE.Exec yet, libipt fails on the code */
			if (k.suppressed || !c->mode64)
				return BAIL;
			c->pos += k.size;
			c->enabled = 1;
			c->r->st->enables++;
			if (!(*id1 = lsd_fast_head_id(c, k.ip, &err)) || !lsd_fast_fblk(c, *id1 - 1))
				return err ? err : BAIL;
			if (!lsd_fast_read_ahead(c) || (c->ev && c->ev_ip == k.ip))
				return BAIL;
			return 0;
		default:
			return BAIL;
		}
	}
}

/* Pops a return address into *ip, and the id + 1 of the call block that
 * pushed it into *call. */
static int rs_pop(struct lsd_fctx *c, uint64_t *ip, uint32_t *call)
{
	if (!c->rn)
		return BAIL;	/* libipt: return stack empty */
	c->rtop = (c->rtop - 1) & (LSD_FAST_RSTACK - 1);
	c->rn--;
	*ip = c->rs[c->rtop];
	*call = c->rscall[c->rtop];
	return 0;
}

/* Pushes the return address of call block `call` (id + 1). */
static void rs_push(struct lsd_fctx *c, uint64_t ip, uint32_t call)
{
	c->rs[c->rtop] = ip;
	c->rscall[c->rtop] = call;
	c->rtop = (c->rtop + 1) & (LSD_FAST_RSTACK - 1);
	if (c->rn < LSD_FAST_RSTACK)
		c->rn++;
}


/* A chain's calls and returns, in order, on the return stack. */
static void rs_ops(struct lsd_fctx *c, const struct lsd_fchain *ch, unsigned nops)
{
	unsigned i;

	for (i = 0; i < nops; i++) {
		if (ch->pcall[i]) {
			rs_push(c, ch->push[i], ch->pcall[i]);
		} else {
			/* the return to the call just pushed */
			c->rtop = (c->rtop - 1) & (LSD_FAST_RSTACK - 1);
			c->rn--;
		}
	}
}

/* Decodes the chunk: the loop over the blocks, its state in locals (the
 * blocks written out alias nothing of it), saved to c around anything
 * out of line.  Returns 0, BAIL or an error. */
static int run_chunk(struct lsd_fctx *c)
{
	struct lsd_bspan *const sp = c->f->sp;
	struct lsd_block *const loc = c->f->loc;
	struct lsd_fchain *const chains = c->d->chains;
	struct lsd_fchead *const chead = c->d->chead;
	const unsigned ch_shift = 64 - c->d->ch_log;
	struct lsd_ftrail *const trails = c->d->trails;
	struct lsd_fpk k;
	uint32_t cur = 0;
	uint64_t fup, tnt, insns = 0;
	unsigned ntnt;
	size_t n, fin, nsp, nloc;
	int mode, tl, err = 0;

	lsd_fast_peek(c, &k);
	if (k.k != LSD_FP_PSB || !lsd_fast_psb_plus(c, &fup, &mode))
		return BAIL;
	if (fup) {
		if (!mode || !(cur = lsd_fast_head_id(c, fup, &err)) || !lsd_fast_fblk(c, cur - 1))
			return err ? err : BAIL;
		c->enabled = 1;
	}
	if (!lsd_fast_read_ahead(c) || (c->ev && c->ev_ip == fup))
		return BAIL;
	tnt = c->tnt;
	ntnt = c->ntnt;
	n = c->n;
	fin = c->fin;
	nsp = c->nsp;
	nloc = c->nloc;
	tl = c->tail_loc;
#define SAVE() (c->tnt = tnt, c->ntnt = ntnt, c->n = n, c->fin = fin, \
		c->nsp = nsp, c->nloc = nloc, c->tail_loc = tl, \
		c->insns += insns, insns = 0)
#define LOAD() (tnt = c->tnt, ntnt = c->ntnt, n = c->n, fin = c->fin, \
		nsp = c->nsp, nloc = c->nloc, tl = c->tail_loc)
/* cnt blocks just copied to loc + nloc go onto loc's run (a new one
 * where the last run is not loc's), handed out as one. */
#define LOC_RUN(cnt) do { \
		if (tl) { \
			sp[nsp - 1].n += (cnt); \
		} else { \
			sp[nsp].b = loc + nloc; \
			sp[nsp].again = 0; \
			sp[nsp++].n = (cnt); \
			tl = 1; \
		} \
		nloc += (cnt); \
	} while (0)
/* A run of cnt blocks at bl, by reference: its slot holds them (pend
 * set, so it is not built into) until the run is handed out or copied. */
#define REF_RUN(bl, cnt, ag, pend) do { \
		sp[nsp].b = (bl); \
		sp[nsp].again = (ag); \
		sp[nsp++].n = (cnt); \
		(pend) = c->d->ch_epoch; \
		tl = 0; \
	} while (0)
/* The next block made here, in loc: on the last run where that is loc's. */
#define PUT1(o) do { \
		(o) = &loc[nloc]; \
		LOC_RUN(1); \
	} while (0)
#define FAIL(e) do { SAVE(); return (e); } while (0)
#define END() do { SAVE(); return at_end(c, cur ? c->d->fb[cur - 1].sb->start : 0); } while (0)
	for (;;) {
		const struct lsd_fblk *f;
		struct lsd_block *o;
		uint64_t to;
		uint32_t nx;
		uint8_t exit;
		uint32_t rcall = 0;
		const struct lsd_fpk *pk;
		int go = 1;

		/* The final blocks go out LSD_FAST_COMMIT at a time (half of
		 * out: the decode and the callback each run long on their
		 * own tables); all of out only on a long path without
		 * packets. */
		if (fin >= LSD_FAST_COMMIT || n == LSD_FAST_OUT) {
			SAVE();
			if ((err = lsd_fast_commit(c, 0)) != 0)
				return err;
			LOAD();
			if (n == LSD_FAST_OUT)
				return BAIL;	/* a path without packets this long */
		}
		if (!cur) {
			SAVE();
			err = wait_enable(c, &cur);
			if (err == LSD_FAST_EOS)
				return at_end(c, 0);
			if (err)
				return err;
			LOAD();
		}
		/* With no bit left and no event pending, the packet read ahead
		 * is the next thing any block takes (a conditional branch, a
		 * return or an indirect branch; any other would bail either
		 * way).  A TIP may start a trail from here, and the packet
		 * after a trail another (a stream of TNTs alone, a loop's,
		 * never looks).  A TNT otherwise: its bits now, so that a
		 * chain starts here rather than a block later. */
		if (!ntnt && !c->ev && c->pk_pos == c->pos) {
			if (c->pk.k == LSD_FP_TNT) {
				c->pos += c->pk.size;
				tnt = c->pk.bits;
				ntnt = c->pk.nbits;
			} else if (c->pk.k == LSD_FP_TIP && trails && n < LSD_FAST_COMMIT) {
				struct lsd_ftrail *w;
				int took = 0;

				while ((w = lsd_fast_trail(c, cur)) != NULL) {
					/* as a chain: copied onto loc's run, or by
					 * reference */
					if (c->copy) {
						lsd_blocks_copy(loc + nloc, w->b, w->nb);
						LOC_RUN(w->nb);
					} else {
						REF_RUN(w->b, w->nb, w->out ? 1 : LSD_TR_AGAIN, w->pend);
					}
					n += w->nb;
					fin = n;
					insns += w->insns;
					c->d->trail_blocks += w->nb;
					cur = w->end;
					took = 1;
					SAVE();
					if (!lsd_fast_read_ahead(c))
						return BAIL;
					if (c->ev || c->pk_pos != c->pos || n >= LSD_FAST_COMMIT)
						break;
				}
				if (took)
					continue;
			}
		}
		/* Chains: the blocks the next TNT bits lead through, handed
		 * out whole where the chain is kept, one after the other
		 * while bits are left.  Not
		 * with an event pending (it may bind on the way). */
		if (ntnt && !c->ev && chains) {
			/* no block is added on the way: the table stays */
			const struct lsd_fblk *const fb = c->d->fb;
			struct lsd_fchain *ch = NULL;

			/* n < LSD_FAST_COMMIT: sp has room for a run, and the
			 * final blocks (fin <= n) are not due yet */
			while (n < LSD_FAST_COMMIT) {
				unsigned kk = ntnt < LSD_CH_BITS ? ntnt : LSD_CH_BITS;
				unsigned bits = (unsigned)(tnt >> (64 - kk));
				uint64_t key = lsd_fchain_key(cur, kk, bits);

				const size_t slot = lsd_fchain_slot(key, ch_shift);
				struct lsd_fchead *h = &chead[slot];

				if (h->key != key) {
					/* No chain starts at cur, ever (a chain
					 * found there says it is not such a block:
					 * asked on a miss only). */
					if (fb[cur - 1].chmask & 1) {
						ch = NULL;
						break;
					}
					/* The slot is built or copied into: no run
					 * not handed out may point into it (nor
					 * into the one a copy goes to, which
					 * lsd_fast_chain() checks). */
					if (!c->copy && h->pend == c->d->ch_epoch) {
						SAVE();
						if ((err = lsd_fast_commit(c, 0)) != 0)
							return err;
						LOAD();
					}
					if (!(ch = lsd_fast_chain(c->d, slot, cur, kk, bits)))
						break;
					h = lsd_fchain_head(c->d, ch);
				} else {
					ch = lsd_fchain_at(c->d, slot);
				}
				/* (the chain's blocks are read by the copy or
				 * the consumer, off the walk's path: it goes
				 * on with the header alone) */
				if (c->copy) {
					/* onto loc's run: handed out as one */
					lsd_fchain_out_slot(loc + nloc, ch->b, h->nb);
					LOC_RUN(h->nb);
				} else {
					/* by reference: the slot holds it until
					 * the next build, which hands it out
					 * first (again: spans_again()) */
					REF_RUN(ch->b, h->nb, h->out ? 1 : -1, h->pend);
				}
				fin = n + h->lastc;
				n += h->nb;
				if (h->nops)
					rs_ops(c, ch, h->nops);
				tnt <<= h->used;
				ntnt -= h->used;
				insns += h->insns;
				cur = h->end;
				if (!ntnt)
					break;
				if (h->endnc) {
					ch = NULL;
					break;
				}
			}
			/* No chain from cur: block by block. */
			if (!ch)
				goto block;
			if (ntnt)
				continue;
			SAVE();
			if (!lsd_fast_read_ahead(c))
				return BAIL;
			if (c->ev) {
				/* An event read ahead may bind where the
				 * chain's last block went. */
				o = lsd_fast_last_own(c);
				LOAD();
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
				else if (go == 2 && !(cur = lsd_fast_next_block(c, cur, to, 0, &err)))
					return err ? err : BAIL;
			}
			continue;
		}
block:
		f = &c->d->fb[cur - 1];
		switch (f->kind) {
		case LSD_K_CALL:
			if (f->push)
				rs_push(c, f->end, cur);
			/* fall through */
		case LSD_K_OTHER:
		case LSD_K_JMP:
			step_direct(f, &to, &nx, &exit);
			break;
		case LSD_K_COND:
			if (!ntnt) {
				if ((err = fetch(c, &k, &pk)) != 0)
					FAIL(err);
				if (pk->k == LSD_FP_EOS)
					END();
				if (pk->k != LSD_FP_TNT)
					FAIL(BAIL);
				c->pos += pk->size;
				tnt = pk->bits;
				ntnt = pk->nbits;
			}
			fin = n + 1;
			ntnt--;
			step_cond(f, (int)(tnt >> 63), &to, &nx, &exit);
			tnt <<= 1;
			if (!ntnt) {
				SAVE();
				if (!lsd_fast_read_ahead(c))
					return BAIL;
			}
			break;
		case LSD_K_RET:
			exit = LSD_EXIT_RET;
			nx = 0;
			rcall = 0;
			if (!ntnt) {
				if ((err = fetch(c, &k, &pk)) != 0)
					FAIL(err);
				if (pk->k == LSD_FP_EOS)
					END();
				if (pk->k == LSD_FP_TIP && !pk->suppressed) {
					/* not compressed */
					c->pos += pk->size;
					fin = n + 1;
					to = pk->ip;
					SAVE();
					if (!lsd_fast_read_ahead(c))
						return BAIL;
					break;
				}
				if (pk->k != LSD_FP_TNT)
					FAIL(BAIL);
				c->pos += pk->size;
				tnt = pk->bits;
				ntnt = pk->nbits;
			}
			/* A compressed return: a taken bit, the stack's top. */
			if (!(tnt >> 63) || rs_pop(c, &to, &rcall))
				FAIL(BAIL);
			/* The block there, where an earlier return from
			 * this call block found it. */
			nx = rcall ? c->d->fb[rcall - 1].fall : 0;
			tnt <<= 1;
			ntnt--;
			fin = n + 1;
			if (!ntnt) {
				SAVE();
				if (!lsd_fast_read_ahead(c))
					return BAIL;
			}
			break;
		case LSD_K_IJMP:
		case LSD_K_ICALL:
			if (ntnt || (err = fetch(c, &k, &pk)) != 0)
				FAIL(err ? err : BAIL);
			if (pk->k == LSD_FP_EOS)
				END();
			if (pk->k != LSD_FP_TIP || pk->suppressed)
				FAIL(BAIL);
			c->pos += pk->size;
			if (f->push)
				rs_push(c, f->end, cur);
			fin = n + 1;
			to = pk->ip;
			nx = 0;
			exit = f->kind == LSD_K_IJMP ? LSD_EXIT_IJUMP : LSD_EXIT_ICALL;
			SAVE();
			if (!lsd_fast_read_ahead(c))
				return BAIL;
			break;
		case LSD_K_FAR:
			if (ntnt || (err = fetch(c, &k, &pk)) != 0)
				FAIL(err ? err : BAIL);
			if (pk->k == LSD_FP_EOS)
				END();
			if (pk->k != LSD_FP_PGD || !pk->suppressed)
				FAIL(BAIL);
			/* A system call: tracing stops at it. */
			c->pos += pk->size;
			PUT1(o);
			lsd_fast_put(o, f, cur, LSD_EXIT_SYSCALL, 0);
			fin = ++n;
			insns += f->ninsn;
			c->r->st->syscalls++;
			c->enabled = 0;
			cur = 0;
			SAVE();
			if (!lsd_fast_read_ahead(c))
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
		PUT1(o);
		lsd_fast_put(o, f, cur, exit, to);
		n++;
		insns += f->ninsn;
		if (!go) {
			cur = 0;
			continue;
		}
		if (!nx || go == 2) {
			int direct = go == 1 && f->kind != LSD_K_RET &&
				     f->kind != LSD_K_IJMP && f->kind != LSD_K_ICALL;

			if (direct || !(nx = lsd_fast_tip_hit(c, to))) {
				SAVE();
				if (!(nx = lsd_fast_next_block(c, cur, to, direct, &err)))
					return err ? err : BAIL;
			}
			if (rcall && go == 1)
				c->d->fb[rcall - 1].fall = nx;
		}
		cur = nx;
	}
#undef SAVE
#undef LOAD
#undef PUT1
#undef LOC_RUN
#undef REF_RUN
#undef FAIL
#undef END
}

/* The chains' table size for d's code (LSD_CH_LOG_MIN): the heads are
 * all known once the decoder is open. */
static unsigned ch_log_for(const struct lsd_decoder *d)
{
	size_t i, n = 0;
	unsigned lg = LSD_CH_LOG_MIN;

	for (i = 0; i <= d->nimgs; i++)
		n += d->spaces[i].heads.n;
	while (lg < LSD_CH_LOG && ((size_t)1 << lg) < 2 * n)
		lg++;
	return lg;
}

int lsd_fast_chunk(struct lsd_run *r)
{
	struct lsd_fctx c;
	int err;

	/* The state the decoder's last run left, else a new one (cleared:
	 * its TIP cache is for no space). */
	if (!r->fp && r->d->fspare) {
		r->fp = r->d->fspare;
		r->d->fspare = NULL;
		r->fp->tipc_sp = NULL;
	}
	/* Not cleared: sp[], loc[] and out[] are written before they are
	 * read, the TIP cache below (tipc_sp NULL is for no space). */
	if (!r->fp) {
		if (!(r->fp = malloc(sizeof(*r->fp))))
			return -LS_ENOMEM;
		/* (its arrays are written whole at each commit) */
		ls_prefault(r->fp, sizeof(*r->fp));
		r->fp->tipc_sp = NULL;
	}
	/* Without memory for chains, block by block. */
	if (!r->d->chains) {
		r->d->ch_log = ch_log_for(r->d);
		/* (+1: where a slot's first build goes, lsd_fast_chain()) */
		r->d->chains = lsd_fast_zmap(((size_t)1 << r->d->ch_log) + 1,
					     sizeof(*r->d->chains), &r->d->chains_len);
		/* (read and written all over as chains are looked for: a
		 * small analysis touched 135 of the headers' 192 pages) */
		r->d->chead = ls_zalloc((size_t)1 << r->d->ch_log, sizeof(*r->d->chead));
		r->d->chbody = ls_zalloc((size_t)1 << r->d->ch_log, sizeof(*r->d->chbody));
		r->d->ch_given = 0;
		r->d->ch_pf = 0;
		r->d->ch_epoch = 1;	/* (a header's 0: never pointed into) */
		if (!r->d->chains || !r->d->chead || !r->d->chbody)
			lsd_fast_chains_free(r->d);
	}
	/* The trails' table, for as much code as the chains' (without it,
	 * chains and blocks alone; LOOPSCOPE_TRAILS=0 makes none). */
	if (!r->d->trails && r->d->chains && !r->d->no_trails) {
		const char *e = getenv("LOOPSCOPE_TRAILS");
		unsigned lg = r->d->ch_log - 2;

		lg = lg > LSD_TR_LOG ? LSD_TR_LOG : lg < 4 ? 4 : lg;
		if (e && !strcmp(e, "0"))
			r->d->no_trails = 1;
		else if (!(r->d->tr_sets = lsd_fast_zmap((size_t)1 << (lg - 2),
							   sizeof(*r->d->tr_sets), &r->d->tr_len)) ||
			 !(r->d->tr_cand = calloc(((size_t)1 << (lg - 2)) * LSD_TR_CANDS,
							 sizeof(*r->d->tr_cand))) ||
			 !(r->d->trails = lsd_fast_zmap((size_t)1 << lg, sizeof(*r->d->trails),
							&r->d->trails_len)))
			lsd_fast_trails_free(r->d);
		r->d->tr_built = 0;
		r->d->tr_pf = 0;
		r->d->trail_log = lg;
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
	/* a consumer that takes no runs, or wants none now (want_spans),
	 * gets the chains copied as they are taken, once (copied at the
	 * hand-out, its runs cost analyze 1%) */
	c.copy = !r->spanfn || (r->cb->want_spans && !r->cb->want_spans(r->arg));
	c.tsc_pos = c.tma_pos = SIZE_MAX;
	if (c.f->tipc_sp != c.sp) {
		/* both: a TIP to address 0 must not find another space's id */
		memset(c.f->tipc_ip, 0, sizeof(c.f->tipc_ip));
		memset(c.f->tipc_id, 0, sizeof(c.f->tipc_id));
		c.f->tipc_sp = c.sp;
	}
	err = run_chunk(&c);
	if (err == LSD_FAST_EOS)
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
	r->blocks += c.delivered;	/* all its blocks, those dropped at its end not */
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

