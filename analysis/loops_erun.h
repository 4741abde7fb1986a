/* loops_erun.h - what the eager pass's tight loop (loops_erun.c) shares
 * with the loop entries of its local frames (loops_eflo.c).  Internal to
 * those two files. */
#ifndef LOOPS_ERUN_H
#define LOOPS_ERUN_H

#include <string.h>

#include "analysis/loops_int.h"

/* Four counters side by side in 32-bit lanes (GCC's and clang's vector
 * extension): a block's count (struct lsa_cnt32) is LSA_NV of them, its
 * last lanes zero.  lsa_eager_run() sums its blocks in these: three adds
 * a block where 64-bit pairs took five.  A run takes at most
 * lsa_loops.erun_max blocks, so that no lane's true value reaches 2^32 in
 * it: every sum and difference made of them is exact, and is widened
 * where it goes into a count (struct lsa_cnt). */
typedef uint32_t lsa_v4 __attribute__((vector_size(16)));
#define LSA_NV 3
_Static_assert(LSA_NC <= 4 * LSA_NV && LSA_NC32 == 4 * LSA_NV, "a count is three vectors");

/* Vector k of block count c. */
static inline lsa_v4 lsa_vget(const struct lsa_cnt32 *c, int k)
{
	lsa_v4 x;

	memcpy(&x, c->n + 4 * k, sizeof(x));
	return x;
}

/* Vector k of count x, whose counters are below 2^32 (a run's). */
static inline lsa_v4 lsa_vof(const struct lsa_cnt *x, int k)
{
	lsa_v4 v = { 0, 0, 0, 0 };
	int i;

	for (i = 0; i < 4 && 4 * k + i < LSA_NC; i++)
		v[i] = (uint32_t)x->n[4 * k + i];
	return v;
}

/* Two counters side by side in 64 bits. */
typedef uint64_t lsa_v2 __attribute__((vector_size(16)));

/* Lanes 0 and 1 (h 0), or 2 and 3 (h 1), of v, widened: interleaved
 * with zeros (one unpack; lane by lane, GCC went through general
 * registers). */
#ifdef __clang__
#define LSA_VZIP(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define LSA_VZIP(a, b, i, j, k, l) __builtin_shuffle(a, b, (lsa_v4){ i, j, k, l })
#endif
static inline lsa_v2 lsa_vwide(lsa_v4 v, int h)
{
	const lsa_v4 z = { 0, 0, 0, 0 };

	return h ? (lsa_v2)LSA_VZIP(v, z, 2, 6, 3, 7) : (lsa_v2)LSA_VZIP(v, z, 0, 4, 1, 5);
}

/* Adds vector k of a run's sums, v, to s (widened), or subtracts it
 * where sub is set. */
static inline void lsa_vacc(struct lsa_cnt *s, int k, lsa_v4 v, int sub)
{
	int h;

	for (h = 0; h < 2 && 4 * k + 2 * h < LSA_NC; h++) {
		lsa_v2 x;

		memcpy(&x, s->n + 4 * k + 2 * h, sizeof(x));
		x = sub ? x - lsa_vwide(v, h) : x + lsa_vwide(v, h);
		memcpy(s->n + 4 * k + 2 * h, &x, sizeof(x));
	}
}

/* Adds the three vectors v0 .. v2 to s. */
static inline void lsa_vadd(struct lsa_cnt *s, lsa_v4 v0, lsa_v4 v1, lsa_v4 v2)
{
	lsa_vacc(s, 0, v0, 0);
	lsa_vacc(s, 1, v1, 0);
	lsa_vacc(s, 2, v2, 0);
}

/* Entry *lin of lsa_eager_run(), its head sb, goes into the pool, on the
 * path and on the owner stack, as head_push() would have put it there
 * when it opened (nothing went on either since): its trips, back branch
 * run and sums (self, tot, same) are lin's.  Returns 0 or -LS_ENOMEM. */
int lsa_erun_put(struct lsa_loops *l, struct lsa_thr *t, const struct lsa_inst *lin,
		 const struct lsd_sblock *sb);

/* ---- loop entries of local frames (loops_eflo.c) ----
 *
 * A local frame of lsa_eager_run() (a call taken in its tight loop) whose
 * callee reaches a loop head opens the loop's entry there, as the eager
 * pass opens one in a frame of its own: nested up to LSA_FO_MAX deep, in
 * the innermost local frame only (a call or a return there makes the
 * frames real).  Each entry's sums are the difference of the run's sums
 * (which keep counting) since it opened; an entry that closes gives its
 * total to the entry it is nested in, as close_inst() does, or, closed
 * at its frame's level, is kept (struct lsa_flc) to be given where that
 * frame's kids go: the calling block's owner at the first local frame's
 * return (lsa_flo_ret()), or the frame made real (lsa_flo_made()).  The
 * heads the eager pass keeps on the local frames' paths (every head an
 * entry opened at, until a loop back pops what is above it or its frame
 * returns) are kept in order, for a head that comes again (a loop back
 * the path design makes: one()'s) and for the frames made real. */
#define LSA_FO_MAX 3	/* entries open at once */
#define LSA_FC_MAX 8	/* closed at a frame's level, per first frame's call */
#define LSA_FH_MAX 16	/* heads on the local frames' paths */

/* An entry open: its loop, trips and tail in in (in's sums unset); the
 * run's sums when it opened; the totals of the entries nested in it that
 * closed (kt; ks of those of its own loop; hk, hs: any); where its head
 * is on the heads' stack. */
struct lsa_flo {
	struct lsa_inst in;
	lsa_v4 v[LSA_NV], kt[LSA_NV], ks[LSA_NV];
	unsigned hi;
	uint8_t hk, hs;
};

/* An entry closed at its frame's level: its loop, its total; the frame
 * (by depth) whose kids hold it: where it closed, then the least depth a
 * return came down to. */
struct lsa_flc {
	struct lsa_cnt tot;
	uint32_t loop;
	unsigned kd;
};

/* The loop entries of the local frames of one first local frame's call:
 * no open (those of the frame at depth od), nc closed in the order they
 * closed; nh heads on the paths, in order, of the frames at depth hd. */
struct lsa_fls {
	struct lsa_flo o[LSA_FO_MAX];
	struct lsa_flc c[LSA_FC_MAX];
	const struct lsd_sblock *h[LSA_FH_MAX];
	unsigned hd[LSA_FH_MAX];
	unsigned no, nc, nh, od;
};

/* Whether there is room for one more entry open, and for it once it
 * closes. */
static inline int lsa_flo_room(const struct lsa_fls *s)
{
	return s->no < LSA_FO_MAX && s->nh < LSA_FH_MAX && (s->no || s->nc < LSA_FC_MAX);
}

/* Head sb of the innermost local frame's function comes, the run's sums
 * now: on a path (of the frames below, or a head the eager
 * pass keeps on the local frames'), it is one()'s, and 0 is returned;
 * else the open entries whose bodies do not hold it close, and 1 is
 * returned where its entry may open (lsa_flo_open(): room, the entry it
 * would nest in one the scan would give it to), 0 where not, or
 * -LS_ENOMEM. */
int lsa_flo_head(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s,
		 const struct lsd_sblock *sb, const lsa_v4 *now);

/* Opens an entry of loop at head sb in the local frame at depth d, the
 * run's sums now (lsa_flo_head() said yes). */
void lsa_flo_open(struct lsa_fls *s, uint32_t loop, const struct lsd_sblock *sb, unsigned d,
		  const lsa_v4 *now);

/* Block id comes: the open entries whose bodies do not hold it close
 * (the innermost without asking where out is set: its body does not),
 * the run's sums now.  Returns 0 or -LS_ENOMEM. */
int lsa_flo_leave(const struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s,
		  uint32_t id, const lsa_v4 *now, int out);

/* The innermost open entry loops back: the heads above its own pop. */
static inline void lsa_flo_back(struct lsa_fls *s)
{
	s->nh = s->o[s->no - 1].hi + 1;
}

/* A local frame returned to the one at depth d: the heads on its path
 * pop, the entries closed in it are kids of frame d's level. */
void lsa_flo_up(struct lsa_fls *s, unsigned d);

/* The first local frame returns: the entries closed are given to the
 * calling block's owner (entry in of the pool, else frame f's level),
 * their totals summed in *x (to take out of the run's sums: what the
 * owner's self gets).  No entry is open.  Returns 0 or -LS_ENOMEM. */
int lsa_flo_ret(struct lsa_loops *l, struct lsa_thr *t, struct lsa_frame *f,
		struct lsa_inst *in, struct lsa_fls *s, struct lsa_cnt *x);

/* The local frame at depth d was made the top frame, its own sums (the
 * run's since it began, but for the frames it called) in its level's:
 * those of the entries that closed in it or in frames it called, and of
 * those open in it, are taken out of them; the closed ones are its
 * level's kids, the heads on its path go there, and the open entries
 * into the pool, in the order the path design has them, the run's sums
 * now.  Returns 0 or -LS_ENOMEM. */
int lsa_flo_made(struct lsa_loops *l, struct lsa_thr *t, struct lsa_fls *s, unsigned d,
		 const lsa_v4 *now);

#endif
