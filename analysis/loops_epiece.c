/* loops_epiece.c - the eager pass's state at a cut, made from the
 * learning pass's snapshot there (struct lsa_ksnap: the path design's
 * frames and paths), for a piece of an eager second pass.
 *
 * Why the snapshot decides it: the eager pass keeps, of each frame, the
 * heads on its path (an entry opened at each, closed at the first block
 * outside its loop's body) and, from a lazy region's first entry on, the
 * path design's own entries.  Since a frame's last loop back, to path
 * entry k, no block of the frame was popped: the blocks it ran since are
 * the path's entries above k, in order.  Before that, the iterations of
 * k ran blocks of k's body only, which close no entry at or below k's
 * (the eager pass asks the innermost open entry first, and k's holds
 * them), and the loop back closed every entry above k's.  So walking a
 * frame's path in order with the eager pass's rules (an entry closes
 * where a block is outside its body; a head opens one, or starts a lazy
 * region where the path design decides; a head looped back to, lb
 * times, has its entry at trip count lb + 1) gives the frame's entries
 * as the eager pass has them at the cut.  Frames are walked from the
 * outermost: what a frame hands over when it ends was decided from its
 * caller's state when it was pushed, and the caller has not run since. */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Opens an entry of loop at t's top path entry, trip count trips, on the
 * owner stack.  Returns 0 or -LS_ENOMEM. */
static int open_entry(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop, uint64_t trips)
{
	uint32_t p = t->npath - 1, k;
	int err;

	if ((err = lsa_loops_inst_new(l, loop, &k)) || (err = lsa_eager_os_push(t, k)))
		return err;
	t->path[p].ei = k;
	l->inst[k].pidx = p;
	l->inst[k].trips = trips;
	return 0;
}

/* Snapshot frame x's path entries pe[0 .. n) into t's top frame f.
 * Returns 0, -LS_ENOMEM or -LS_EINVAL. */
static int frame_path(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_spe *pe,
		      uint32_t n)
{
	uint32_t j;
	int err;

	for (j = 0; j < n; j++) {
		const struct lsa_spe *x = &pe[j];
		struct lsa_frame *f = &t->fr[t->nfr - 1];
		uint32_t id = x->sb->id, hd, owner;
		int lf;

		if ((err = lsa_loops_sb_see(l, t, x->sb)))
			return err;
		if (f->lz != LSA_NONE) {	/* the path design's, as it is */
			if ((err = lsa_loops_path_push(l, t, x->sb)))
				return err;
			if ((err = lsa_snap_entry(l, t, x)))
				return err;
			continue;
		}
		while (t->nos > f->osb &&
		       !lsa_loops_in_body_note(t, l->inst[t->os[t->nos - 1]].loop, id)) {
			uint32_t ii = t->os[--t->nos];

			t->path[l->inst[ii].pidx].ei = LSA_NONE;
			lsa_loops_inst_free(l, ii);
		}
		hd = lsa_loops_head(t, id);
		lf = t->lflag && t->lflag[id];
		if (!hd && !lf)
			continue;	/* (a block of no head: never on the path) */
		if ((err = lsa_loops_path_push(l, t, x->sb)))
			return err;
		f = &t->fr[t->nfr - 1];
		if (lf) {		/* landings came back here: lazy on */
			f->lz = t->npath - 1;
			if ((err = lsa_snap_entry(l, t, x)))
				return err;
			continue;
		}
		owner = t->nos > f->osb ? l->inst[t->os[t->nos - 1]].loop + 1 : 0;
		if (lsa_loops_entry_ok(l, t, hd - 1, owner)) {
			if ((err = open_entry(l, t, hd - 1, x->lb + 1)))
				return err;
			continue;
		}
		/* the path design decides: an entry only where a loop back
		 * came, and then the frame eager again with it open */
		if (!x->lb) {
			f->lz = t->npath - 1;
			if ((err = lsa_snap_entry(l, t, x)))
				return err;
		} else if ((err = open_entry(l, t, hd - 1, x->lb + 1))) {
			return err;
		}
	}
	return 0;
}

int lsa_eager_from_snap(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_ksnap *s)
{
	static const struct lsa_sfr start = { 0, 0, LSA_NONE, LSA_NONE, 0 };
	uint32_t i, nfr = s ? s->nfr : 1;
	int err;

	if (!l->eager || t->nfr || t->npath || t->nos)
		return -LS_EINVAL;
	lsa_snap_thread(t, s);
	if (LS_GROW32(t->fr, nfr, t->capfr, 64))
		return -LS_ENOMEM;
	for (i = 0; i < nfr; i++) {
		const struct lsa_sfr *x = s ? &s->fr[i] : &start;
		uint32_t end = s ? (i + 1 < nfr ? s->fr[i + 1].base : s->npe) : 0;
		struct lsa_frame *f = &t->fr[i];

		if ((err = lsa_snap_frame(l, t, x, t->npath)))
			return err;
		/* the function its first block was in, as pushed (a frame
		 * entered at unnamed code learns its own later); the
		 * outermost's none */
		f->ccallee = !i ? LSA_NONE : x->base < end ? lsa_loops_func_sb(l, s->pe[x->base].sb) :
			     f->func;
		f->called = !x->async;
		/* as lsa_loops_frame_push() decided it, the calling block its
		 * frame's last on the path design's path */
		if (i)
			lsa_frame_hto(t, f, &t->fr[i - 1], x->base > s->fr[i - 1].base ?
				      s->pe[x->base - 1].sb->id : LSA_NONE);
		if (s && x->base > end)
			return -LS_EINVAL;
		if (s && (err = frame_path(l, t, s->pe + x->base, end - x->base)))
			return err;
	}
	return 0;
}
