/* loops_erun.c - the eager second pass's tight loop (lsa_eager_run()):
 * the blocks that change nothing but counts, the innermost entry's loop
 * backs and repeated iterations, short loops' entries and calls of
 * functions that run plain blocks and loops of their own (loops_eflo.c),
 * taken with their state in registers and locals; loops_eager.c takes
 * the rest, one block at a time, and says why the profile is the path
 * design's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_erun.h"
#include "ls_err.h"

/* Local entries of one loop closed into one owner by lsa_eager_run(),
 * summed: what close_inst() adds to the loop's row, the owner and the
 * edge between, added once (pend_flush()).  The rest of each close (trip
 * count, back branch run) is counted as it closes. */
struct lsa_pend {
	struct lsa_cnt s;
	uint64_t n;		/* entries (0: none pending) */
	uint32_t loop;
	uint32_t owner;		/* an entry of the pool, LSA_NONE: frame f's level */
};

/* Adds what p holds (entries closed in frame f).  Returns 0 or
 * -LS_ENOMEM. */
static int pend_flush(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		      struct lsa_pend *p)
{
	struct lsa_lrow *r = &t->lr[p->loop];	/* (made as they closed) */
	int err;

	lsa_cnt_add(&r->self, &p->s);
	lsa_cnt_add(&r->total, &p->s);
	err = lsa_loops_owner_take(l, t, p->owner != LSA_NONE ? &l->inst[p->owner] : NULL, f,
				   p->loop, p->n, &p->s);
	p->n = 0;	/* (the next close sets p->s) */
	return err;
}

/* Local entry *lin of lsa_eager_run(), head sb, closes into owner (as
 * pend_flush() takes it): close_inst()'s counts, its sums added to p.
 * Its head stays on the path, as the path design leaves it: *zh until
 * something goes above it or lsa_eager_run() ends (most are popped
 * first, by the owner's loop back); an earlier one there goes on the
 * path now.  Returns 0 or -LS_ENOMEM. */
static int local_close(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		       struct lsa_inst *lin, const struct lsd_sblock *sb, uint32_t owner,
		       struct lsa_pend *p, const struct lsd_sblock **zh)
{
	struct lsa_lrow *r = lsa_loops_lrow(t, lin->loop);
	int err;

	if (!r)
		return -LS_ENOMEM;
	if (p->n && (p->loop != lin->loop || p->owner != owner) &&
	    (err = pend_flush(l, t, f, p)))
		return err;
	if ((err = lsa_loops_entry_add(l, t, r, lin->loop, lin->trips)) ||
	    (err = lsa_loops_tail_flush(t, lin)))
		return err;
	p->loop = lin->loop;
	p->owner = owner;
	p->n++;
	if (p->n == 1)
		p->s = lin->self;
	else
		lsa_cnt_add(&p->s, &lin->self);
	if (*zh && (err = lsa_loops_path_push(l, t, *zh)))
		return err;
	*zh = sb;
	return 0;
}

/* Local frames nested in lsa_eager_run(): a call made in a local frame
 * whose callee runs plain blocks too (sqlite3's calls through its PLT
 * into functions that call again: 306,000 frames made real there). */
#define LSA_LF_MAX 4

/* One local frame of lsa_eager_run(): the call (block ca, of id caid,
 * exit cx, next cn) into function g returns to ca's end, its first block
 * cb; its blocks
 * are of class pl.  Its callee's jump to the entry of function g2 (block
 * cj, exit jx, next cjn) reached jb, the sums' instruction count then
 * cig.  at: the instruction count when it began (the count is of all
 * levels, from the first's call); kin: the instructions of the local
 * frames it called that returned, kin_j those before its jump; s: the
 * sums when it began (a nested one's; the first's are zero). */
struct lsa_lfr {
	const struct lsd_sblock *ca, *cb, *cj, *jb;
	uint64_t cn, cjn, cig, at, kin, kin_j;
	lsa_v4 s[LSA_NV];
	uint32_t caid, g, g2, pl;
	uint8_t cx, jx;
};

/* Whether block p, after a return, is where local frame L's call
 * returns to: the block at the end of its calling block.  eret (nk
 * entries) keeps, by the calling block's id, the id + 1 of the block
 * found there last, so that the static block itself (a line of its own,
 * seldom in the cache here) is read only where another block comes
 * (base64 xz's analysis 2.5% less CPU).  Equal ids are the same static
 * block, and so the same start.  (A calling block taken before this
 * call, t->psb, may lie past nk in a piece's thread, whose tables the
 * knowledge and its own blocks sized: no entry then.) */
static inline int local_ret_at(uint32_t *eret, size_t nk, const struct lsa_lfr *L,
			       const struct lsd_block *p)
{
	if (L->caid < nk && eret[L->caid] == p->id + 1)
		return 1;
	if (p->sb->start != L->ca->end)
		return 0;
	if (L->caid < nk)
		eret[L->caid] = p->id + 1;
	return 1;
}

/* A call of function g ends as frame_pop() ends its span (total
 * instructions counted where no outer span of g is open) and one() counts
 * its own (self).  Returns 0 or -LS_ENOMEM.  (This and local_move()
 * always inline: as calls in lsa_eager_run() they cost sqlite3's pass 4%
 * more instructions, its loop's registers spilled around them.) */
static inline __attribute__((always_inline)) int
local_span(struct lsa_thr *t, uint32_t g, uint64_t total, uint64_t self)
{
	struct lsa_frow *r = lsa_loops_frow(t, g);

	if (!r)
		return -LS_ENOMEM;
	r->calls++;
	if (!r->active)
		r->total += total;
	r->self += self;
	return 0;
}

/* Control leaves block from by exit x (next nx) for block to, moved as
 * one() moves it (transfer()), and n instructions of function g run in
 * the frame that makes.  Returns 0 or -LS_ENOMEM. */
static inline __attribute__((always_inline)) int
local_move(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_sblock *from,
	   uint8_t x, uint64_t nx, const struct lsd_sblock *to, uint32_t g, uint64_t n)
{
	struct lsa_frow *fw;
	int err;

	t->psb = from;
	t->pexit = x;
	t->pnext = nx;
	if ((err = lsa_loops_transfer(l, t, x, to)))
		return err;
	if (!(fw = lsa_loops_frow(t, g)))
		return -LS_ENOMEM;
	t->insns += n;
	fw->self += n;
	return 0;
}

/* Local frame L returns after n instructions (its callees' too): the
 * spans frame_push() and the tail call's span_open() opened close as
 * frame_pop() closes them, each function's own instructions apart from
 * those of the local frames it called.  Returns 0 or -LS_ENOMEM. */
static int local_spans(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_lfr *L,
		       uint64_t n, uint32_t depth)
{
	int err;

	if (L->g2 == LSA_NONE) {
		err = local_span(t, L->g, n, n - L->kin);
	} else {	/* (cig is set only where it jumped) */
		uint64_t cig = L->cig - L->at;

		if (!(err = local_span(t, L->g, n, cig - L->kin_j)))
			err = local_span(t, L->g2, n - cig, n - cig - (L->kin - L->kin_j));
	}
	if (err)
		return err;
	t->nserial++;
	if (t->nfr + depth > l->st.max_frames)
		l->st.max_frames = t->nfr + depth;
	return 0;
}

/* The first local frame L of lsa_eager_run() returns: its sums (v0 ..
 * v2, zeroed) go to the owner the calling block had (entry in, else
 * frame f's level) and its functions' rows, as frame_pop() and
 * lsa_eager_hand_over() give them; *tins counts its instructions.
 * Returns 0 or -LS_ENOMEM. */
static int local_ret(struct lsa_loops *l, struct lsa_thr *t, struct lsa_inst *in,
		     struct lsa_frame *f, const struct lsa_lfr *L,
		     lsa_v4 *v0, lsa_v4 *v1, lsa_v4 *v2, uint64_t *tins, struct lsa_fls *fs)
{
	struct lsa_cnt *s = in ? &in->self : &f->fself;
	uint64_t ci = (*v0)[0];
	int err;

	if (__builtin_expect(fs->nc != 0, 0)) {
		/* the loop entries the callees closed: kids of the owner
		 * (in the pool: lsa_eager_run() put it there), not its self
		 * (the callees' instructions all the same) */
		struct lsa_cnt x;

		if ((err = lsa_flo_ret(l, t, f, in, fs, &x)))
			return err;
		*v0 -= lsa_vof(&x, 0);
		*v1 -= lsa_vof(&x, 1);
		*v2 -= lsa_vof(&x, 2);
	}
	lsa_vadd(s, *v0, *v1, *v2);
	*v0 = *v1 = *v2 = (lsa_v4){ 0, 0, 0, 0 };
	*tins += ci;
	if ((err = local_spans(l, t, L, ci, 1)))
		return err;
	if (in)
		return lsa_loops_calls_add(t, (uint64_t)in->loop << 32 | L->g, L->ca->id, 1);
	return 0;
}

/* Whether function g runs in a local frame of lv[0 .. n) (a call or a
 * tail call of it there would be recursion, whose span the path design
 * counts once, where frames show it open). */
static int local_runs(const struct lsa_lfr *lv, unsigned n, uint32_t g)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (lv[k].g == g || lv[k].g2 == g)
			return 1;
	return 0;
}

/* The blocks from b[i] on that stay in the top (eager) frame, taken in
 * a tight loop, their counts summed here and added to each owner once:
 * blocks of the function it runs, entered by an exit that moves no
 * frame, no landing's; a plain block in the innermost open entry's body
 * (the cache of the last two loops found for it says so; else the
 * entries it leaves close), the innermost entry's head (a loop back: the
 * closed entries above it pop), or a head not on the path that opens an
 * entry.  Whatever else (a call, a return, a loop back to an outer entry,
 * a head the scan would not make an entry) is left to one().
 *
 * An entry opened here stays local (lin, its head not on the path) while
 * it is the innermost: most entries of short loops close here again, and
 * are then counted with no pool entry or owner stack slot, the head
 * pushed as it closes (local_close(): the path design leaves it there),
 * their sums added once per loop and owner (pend_flush()).  It goes
 * where head_push() puts an entry (lsa_erun_put()) when a head opens inside
 * it or the loop stops.
 *
 * A call stays local too while its callee runs blocks of its function
 * (a local frame: no frame pushed, its sums in the same registers), and
 * of one more function it jumps to the entry of (a tail call: the PLT
 * stub's jump of every call into a shared library; 805,000 of sqlite3's
 * local frames stopped there before), and the loops it enters there
 * (their entries the local frame's, opened and closed as the eager pass
 * does in a frame of its own: loops_erun.h; a call or return inside one
 * makes the frames): where it returns to its call, its counts go to the
 * calling block's owner as frame_pop() gives them (local_ret()); where
 * the callee does more (a loop back the path design makes, a return
 * elsewhere) or the loop stops, its frame is pushed as the call would
 * have pushed it, with the blocks it ran in it, the heads on its path
 * and its entries open (and its tail call made as one() makes it).  A
 * call the callee makes is a local frame of its own, nested (up to
 * LSA_LF_MAX deep, none into a function a local frame below runs:
 * recursion), its sums in the same registers (all go to the first's
 * caller in the end) and its instructions counted as its caller's
 * callees' (struct lsa_lfr's kin); made real, each frame is pushed with
 * the sums and instructions it ran itself and got from the frames it
 * called that returned.
 *
 * Returns the index of the first block not taken, or -1 - that index
 * after an error (out of memory). */
ptrdiff_t lsa_eager_run(struct lsa_loops *l, struct lsa_thr *t, const struct lsd_block *b,
		      size_t i, size_t n)
{
	struct lsa_frame *f = &t->fr[t->nfr - 1];
	const uint32_t cur = f->cur;
	const uint32_t *inb = t->inb, *inb2 = t->inb2;
	const uint64_t *ecls = t->ecls;
	const uint32_t plain = (cur + 1) << 2 | 1, hd = plain + 1;
	uint32_t *const eret = t->eret;
	const size_t nk = t->nk;
	const struct lsa_cnt32 *sbc = l->sbc32;
	/* the sum, in three vectors of four counters (registers: the
	 * per-block add is three of them, not ten loads and stores) */
	lsa_v4 v0 = { 0, 0, 0, 0 }, v1 = v0, v2 = v0;
	/* in: the innermost entry of the pool open; lin (while local is
	 * set, its head lsb): the local one inside it; cin: the innermost */
	struct lsa_inst *in, *cin, lin;
	const struct lsd_sblock *lsb = NULL;
	int local = 0;
	/* the local frames (nlf of them): calls made here whose callees
	 * have run only plain blocks of their functions so far, summed in
	 * the vector registers; L the innermost */
	struct lsa_lfr lv[LSA_LF_MAX], *L = NULL;
	unsigned nlf = 0;
	/* insns: instructions of cur's blocks; tins: of callees' */
	uint64_t backs = 0, insns = 0, tins = 0;
	uint32_t loop1, back_id, pl = plain, ph = hd;
	/* a block's ecls word where it is a plain block of the innermost
	 * entry's body (or of none), taken at once (KEY()) */
	uint64_t key;
	/* local entries closed, not yet added; the last head and owner
	 * lsa_loops_entry_ok() said yes to */
	struct lsa_pend pend;
	const struct lsd_sblock *zh = NULL;
	uint32_t ok_loop = LSA_NONE, ok_own = 0;
	/* the loop entries of the local frames (loops_erun.h) */
	struct lsa_fls fs;
	size_t i0 = i, lbi = SIZE_MAX, r, reti = SIZE_MAX;
	/* (the block taken, and the end: a pointer, not b and i, spares
	 * the loop a register and a multiply by the block's size) */
	const struct lsd_block *p = b + i,
		*const pe = b + (n - i > l->erun_max ? i + l->erun_max : n);
	uint8_t px = t->pexit;
	int k, err = 0;

	if (f->lz != LSA_NONE || cur == LSA_NONE || !t->psb)
		return (ptrdiff_t)i;
	pend.n = 0;
	fs.no = fs.nc = fs.nh = 0;
	/* (local frames: a frame made here as frame_push() makes it, popped
	 * as frame_pop() pops it; none where those take other ways; asked
	 * at a call, not at each entry here: nothing here changes them) */
#define CALLS_OK() (!t->deep && (!t->sn || l->eager) && !t->cm.nrec && !l->learn && !l->pre)
/* the innermost open entry, its loop + 1, its head's block id */
#define OWNER() do {							\
	in = t->nos > f->osb ? &l->inst[t->os[t->nos - 1]] : NULL;	\
	cin = local ? &lin : in;					\
	loop1 = cin ? cin->loop + 1 : 0;				\
	back_id = local ? lsb->id : in ? t->path[in->pidx].sb->id : LSA_NONE; \
	KEY();								\
} while (0)
#define KEY() (key = (uint64_t)loop1 << 32 | pl)
/* a local frame's innermost open entry (if any) is the loop context */
#define FLO_INNER() do {						\
	if (fs.no) {							\
		cin = &fs.o[fs.no - 1].in;				\
		loop1 = cin->loop + 1;					\
		back_id = fs.h[fs.o[fs.no - 1].hi]->id;		\
	} else {							\
		loop1 = 0;						\
		back_id = LSA_NONE;					\
	}								\
	KEY();								\
} while (0)
/* block id comes to a local frame: its open entries whose bodies do not
 * hold it close */
#define FLO_LEAVE(out_) do {						\
	const lsa_v4 now_[LSA_NV] = { v0, v1, v2 };			\
									\
	if ((err = lsa_flo_leave(l, t, &fs, id, now_, out_)))		\
		goto out;						\
	FLO_INNER();							\
} while (0)
/* the sum so far to the owner (before it changes, or is closed) */
#define FLUSH() do {							\
	struct lsa_cnt *s_ = cin ? &cin->self : &f->fself;		\
									\
	lsa_vadd(s_, v0, v1, v2);					\
	insns += v0[0];							\
	v0 = v1 = v2 = (lsa_v4){ 0, 0, 0, 0 };				\
} while (0)
/* the local entry closes (into in, or the frame's level) */
#define LOCAL_CLOSE() do {						\
	local = 0;							\
	if ((err = local_close(l, t, f, &lin, lsb,			\
			       in ? t->os[t->nos - 1] : LSA_NONE, &pend, &zh))) \
		goto out;						\
} while (0)
/* the head of a local entry closed goes on the path (before anything
 * goes above it) */
#define ZH_PUT() do {							\
	if (zh) {							\
		err = lsa_loops_path_push(l, t, zh);			\
		zh = NULL;						\
	}								\
} while (0)
/* block id comes: the entries of the pool whose bodies do not hold it
 * close (the local entries closed go in first), then the owner is the
 * one left */
#define LEAVE() do {							\
	if (t->nos > f->osb &&						\
	    !lsa_loops_in_body_note(t, l->inst[t->os[t->nos - 1]].loop, id)) { \
		if ((pend.n && (err = pend_flush(l, t, f, &pend))) ||	\
		    (err = lsa_eager_leave(l, t, f, id)))		\
			goto out;					\
	}								\
	OWNER();							\
} while (0)
	OWNER();
	for (; p < pe; p++) {
		/* (the block's id, not sb->id: one load less on the path to
		 * its class; every maker of blocks sets both, the static
		 * block of an id below nk) */
		const uint32_t id = p->id;
		uint64_t w;
		uint32_t e;

		if (id >= nk)
			break;
		w = ecls[id];
		if (__builtin_expect((LSA_EXITS_LOCAL >> px & 1) && w == key, 1))
			goto sum;
		e = (uint32_t)w;
		if (!(LSA_EXITS_LOCAL >> px & 1)) {
			if ((px == LSD_EXIT_CALL || px == LSD_EXIT_ICALL) && nlf < LSA_LF_MAX &&
			    (e & 3) == 1 && !fs.no && CALLS_OK() &&
			    t->nfr + nlf < LSA_MAX_FRAMES - 1 &&
			    !local_runs(lv, nlf, (e >> 2) - 1)) {
				/* a call: its callee's blocks are summed on
				 * their own, as a frame of their own (the
				 * first's sums from zero, a nested one's from
				 * where they are) */
				if (!nlf)
					FLUSH();
				L = &lv[nlf++];
				L->ca = p > b + i0 ? p[-1].sb : t->psb;
				L->caid = p > b + i0 ? p[-1].id : t->psb->id;
				L->cn = p > b + i0 ? p[-1].next : t->pnext;
				L->cx = px;
				L->cb = p->sb;
				L->g = (e >> 2) - 1;
				L->g2 = LSA_NONE;
				L->pl = pl = e;
				L->at = v0[0];
				L->kin = L->kin_j = 0;
				L->s[0] = v0;
				L->s[1] = v1;
				L->s[2] = v2;
				ph = e + 1;	/* (its function's heads) */
				loop1 = 0;
				back_id = LSA_NONE;
				KEY();
				lbi = SIZE_MAX;	/* (no repeat holds a call) */
			} else if (px == LSD_EXIT_RET && nlf > 1 && !fs.no &&
				   e == lv[nlf - 2].pl && local_ret_at(eret, nk, L, p)) {
				/* a nested one's return, to the frame that
				 * called it: its instructions are that
				 * frame's callees' */
				uint64_t ci = v0[0] - L->at;

				if ((err = local_spans(l, t, L, ci, nlf)))
					goto out;
				l->st.eager_nested++;
				nlf--;
				if (fs.nc || fs.nh)
					lsa_flo_up(&fs, nlf - 1);
				L = &lv[nlf - 1];
				L->kin += ci;
				pl = L->pl;
				ph = pl + 1;
				KEY();
				reti = (size_t)(p - b);
			} else if (px == LSD_EXIT_RET && nlf == 1 && !fs.no &&
				   (e == plain || e == hd) && local_ret_at(eret, nk, L, p)) {
				/* the first one's return */
				/* (the calling block's owner: cin then, in
				 * itself where a loop here put lin there) */
				if ((err = local_ret(l, t, local ? &lin : in, f, L, &v0, &v1, &v2,
						     &tins, &fs)))
					goto out;
				nlf = 0;
				L = NULL;
				pl = plain;
				ph = hd;
				OWNER();
				reti = (size_t)(p - b);
			} else {
				break;
			}
		}
		if (e == pl) {
			if (loop1 && inb[id] != loop1 && inb2[id] != loop1 &&
			    !lsa_loops_in_body_note(t, loop1 - 1, id)) {
				/* it leaves the innermost entry (and more) */
				if (nlf) {
					/* (a local frame's: they close) */
					FLO_LEAVE(1);
					lbi = SIZE_MAX;
					goto sum;
				}
				FLUSH();
				if (local)
					LOCAL_CLOSE();
				LEAVE();
				lbi = SIZE_MAX;
			}
		} else if (e != ph) {
			/* the local frame's callee jumps to a function's
			 * entry (a PLT stub's jump), once: transfer()'s tail
			 * call, its span opened; on a direct jump, any block
			 * of another function is one */
			uint32_t tg = (e >> 2) - 1;

			if (!nlf || fs.no || fs.nc || L->g2 != LSA_NONE || (e & 3) != 1 ||
			    (px != LSD_EXIT_JUMP && px != LSD_EXIT_IJUMP) ||
			    (px == LSD_EXIT_IJUMP && p->sb->mod_off != l->funcs[tg].off) ||
			    local_runs(lv, nlf - 1, tg))
				break;
			L->g2 = tg;
			l->st.eager_tails++;
			L->cj = p[-1].sb;
			L->cjn = p[-1].next;
			L->jx = px;
			L->jb = p->sb;
			L->cig = v0[0];
			L->kin_j = L->kin;
			L->pl = pl = e;
			KEY();
		} else if (id == back_id) {
			/* a loop back (back(): what is above is closed) */
			uint32_t tail = p > b + i0 ? p[-1].id : t->psb->id;

			if (nlf) {
				lsa_flo_back(&fs);
			} else if (!local) {
				zh = NULL;	/* (above in's head: popped) */
				if (t->npath - 1 > in->pidx) {
					/* (a piece's: heads of the cut's above
					 * popped, as the joiner's back does) */
					if (t->sn && in->pidx + 1 < t->sn->snp)
						lsa_psn_note(t, PE_EBACK, in->pidx);
					lsa_loops_drop(l, t, in->pidx + 1);
				}
			}
			if (tail != cin->tail) {
				if ((err = lsa_loops_tail_flush(t, cin)))
					break;
				cin->tail = tail;
			}
			cin->tail_run++;
			cin->trips++;
			backs++;
			/* the iterations after it that repeat the one it ended
			 * (since the loop back before), block for block, up to
			 * the run's end (pe: every block its sums hold is one
			 * of [i0, pe)) */
			if (lbi != SIZE_MAX &&
			    (r = lsa_memo_repeat(b, lbi + 1, (size_t)(p - b), (size_t)(pe - b)))) {
				const uint32_t it = (uint32_t)(r / ((size_t)(p - b) - lbi));
				lsa_v4 o0 = lsa_vget(&sbc[id], 0), o1 = lsa_vget(&sbc[id], 1),
				       o2 = lsa_vget(&sbc[id], 2);
				size_t j;

				for (j = lbi + 1; j < (size_t)(p - b); j++) {
					const struct lsa_cnt32 *q = &sbc[b[j].id];

					o0 += lsa_vget(q, 0);
					o1 += lsa_vget(q, 1);
					o2 += lsa_vget(q, 2);
				}
				/* (it iterations of blocks of this run: below
				 * 2^32 a lane, as all its sums) */
				v0 += it * o0;
				v1 += it * o1;
				v2 += it * o2;
				cin->tail_run += it;
				cin->trips += it;
				backs += it;
				p += r;
			}
			lbi = (size_t)(p - b);
		} else if (nlf) {
			/* a head of the local frame's function, on no path:
			 * its entry opens at the frame's level (the first of
			 * this call's; one the frame runs no tail call in) */
			const lsa_v4 now[LSA_NV] = { v0, v1, v2 };

			if (L->g2 != LSA_NONE)
				break;
			if ((k = lsa_flo_head(l, t, &fs, p->sb, now)) <= 0) {
				err = k;
				break;
			}
			if (local) {
				/* (the calling block's local entry goes into
				 * the pool: a loop nests in it) */
				ZH_PUT();
				if (err || (err = lsa_erun_put(l, t, &lin, lsb)))
					break;
				local = 0;
				in = &l->inst[t->os[t->nos - 1]];
			}
			lsa_flo_open(&fs, t->head[id] - 1, p->sb, nlf - 1, now);
			FLO_INNER();
			lbi = SIZE_MAX;
			l->st.eager_floops++;
		} else {
			/* a head: on the path (a loop back to an outer
			 * entry), or one the scan would not make an entry,
			 * is one()'s; else an entry opens */
			uint32_t idx = lsa_loops_mem_get(t, id);

			if ((idx != LSA_NONE && idx >= f->base) || (zh && zh->id == id))
				break;
			FLUSH();
			if (local) {
				/* a loop nested in the local entry's: it goes
				 * into the pool; else it closes */
				if (inb[id] == loop1 || inb2[id] == loop1 ||
				    lsa_loops_in_body_note(t, loop1 - 1, id)) {
					local = 0;
					ZH_PUT();
					if (err || (err = lsa_erun_put(l, t, &lin, lsb)))
						break;
				} else {
					LOCAL_CLOSE();
				}
			}
			LEAVE();
			if (t->head[id] - 1 != ok_loop || loop1 != ok_own) {
				/* (bodies do not change in here: the answer
				 * stays) */
				if (!lsa_loops_entry_ok(l, t, t->head[id] - 1, loop1))
					break;
				ok_loop = t->head[id] - 1;
				ok_own = loop1;
			}
			local = 1;
			lsb = p->sb;
			lin.loop = t->head[id] - 1;
			lin.tail = LSA_NONE;
			lin.tail_run = 0;
			lin.trips = 1;
			memset(&lin.self, 0, sizeof(lin.self));
			lin.tot.n[0] = lin.same.n[0] = 0;	/* (none nest) */
			OWNER();
			lbi = SIZE_MAX;
		}
sum:
		{
			/* (here, not with the id: an id not met yet may lie
			 * past l->sbc) */
			const uint32_t *c = sbc[id].n;
			lsa_v4 x;

			memcpy(&x, c, sizeof(x));
			v0 += x;
			memcpy(&x, c + 4, sizeof(x));
			v1 += x;
			memcpy(&x, c + 8, sizeof(x));
			v2 += x;
		}
		px = p->exit;
	}
	if (pend.n && !err)
		err = pend_flush(l, t, f, &pend);
	if (nlf && !err) {
		/* the local frames are made, as if their calls had been left
		 * to one(): the caller's sums are in, its local entry goes
		 * into the pool, each frame pushed with its own blocks' sums
		 * (and of the frames it called that returned) and
		 * instructions, in the order they ran */
		const lsa_v4 now[LSA_NV] = { v0, v1, v2 };
		unsigned d;

		t->fw[cur].self += insns;
		t->insns += insns + tins;
		insns = tins = 0;
		ZH_PUT();
		if (local && !err) {
			local = 0;
			err = lsa_erun_put(l, t, &lin, lsb);
		}
		for (d = 0; d < nlf && !err; d++) {
			const struct lsa_lfr *M = &lv[d];
			const int up = d + 1 < nlf;	/* (M called the next) */
			uint64_t end = up ? lv[d + 1].at : v0[0];
			/* (its sums: from its own to the next one's, or now) */
			const lsa_v4 *w = up ? lv[d + 1].s : now;

			if (M->g2 == LSA_NONE) {
				err = local_move(l, t, M->ca, M->cx, M->cn, M->cb, M->g,
						 end - M->at - M->kin);
				t->insns += M->kin;
			} else {	/* and its tail call */
				err = local_move(l, t, M->ca, M->cx, M->cn, M->cb, M->g,
						 M->cig - M->at - M->kin_j);
				t->insns += M->kin_j;
				if (!err)
					err = local_move(l, t, M->cj, M->jx, M->cjn, M->jb, M->g2,
							 end - M->cig - (M->kin - M->kin_j));
				t->insns += M->kin - M->kin_j;
			}
			if (!err)
				lsa_vadd(&t->fr[t->nfr - 1].fself, w[0] - M->s[0], w[1] - M->s[1],
					 w[2] - M->s[2]);
			/* (its loop entries' sums are theirs) */
			if (!err && (fs.no || fs.nc))
				err = lsa_flo_made(l, t, &fs, d, now);
		}
		goto out;
	}
	FLUSH();
	if (!err)
		ZH_PUT();
	if (local && !err) {
		local = 0;
		err = lsa_erun_put(l, t, &lin, lsb);
	}
out:
	i = (size_t)(p - b);	/* (every way out of the loop comes here) */
#undef OWNER
#undef KEY
#undef CALLS_OK
#undef FLUSH
#undef LOCAL_CLOSE
#undef LEAVE
#undef ZH_PUT
#undef FLO_INNER
#undef FLO_LEAVE
	if (i > i0) {
		t->fw[cur].self += insns;
		t->insns += insns + tins;
		l->st.blocks += i - i0;
		l->st.loop_backs += backs;
		t->psb = b[i - 1].sb;
		/* (a block a local frame returned to, left to one(): its
		 * frame is popped, control into it moves none now) */
		t->pexit = i == reti ? LSD_EXIT_FALL : px;
		t->pnext = b[i - 1].next;
		t->landing = 0;
	}
	return err ? -1 - (ptrdiff_t)i : (ptrdiff_t)i;
}

