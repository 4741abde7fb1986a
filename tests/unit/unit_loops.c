/* unit_loops.c - the loop detector (analysis/loops.c) fed hand-made
 * block streams, no trace and no Valgrind.
 *
 * The static blocks are made up: block k of a scenario has the start
 * address, instruction count and exit given in its table, end = start +
 * 4 * ninsn (a call's return lands there), module -1 (no file), and the
 * function given (the detector's function cache is filled by hand, since
 * no symbols exist).  Each scenario runs three times, with the memos'
 * second pass (lsa_loops_opts.no_eager: what pieces run), through the
 * reference path (lsa_loops_opts.reference) and with the eager second
 * pass (analysis/loops_eager.c: what one job runs), each in the two
 * passes lsa_loops_analyze() makes (the thread's loops learned first,
 * then known from its start; a second pass alone is the memos'), and
 * the profile is checked against counts derived by hand below: an
 * iteration is an execution of the head inside the loop, an entry's trip
 * count its iterations, self the loop's own instructions and those of
 * the callees without loops it calls (Sato et al., table 2; "loop_level"
 * in formats/profile.md), total those of its nested loops and every
 * callee too (README, "Reading a loop profile").  One scenario (13,
 * too long to count by hand in full) holds every mode to the reference
 * path's profile of the same blocks instead.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "decoder/decode_int.h"
#include "formats/bundle_int.h"
#include "ls_err.h"
#include "tap.h"

#define NSB 48
#define NOFUNC 99
/* The modes a scenario runs in (the `ref` argument of each): the memos'
 * second pass, the reference path, the eager second pass.  The learning
 * pass's memo runs in all but the reference; the second pass's memos
 * where it is the memos', or a second pass alone (it knows nothing, and
 * the eager pass needs to know). */
enum { MMEMO, MREF, MEAGER };
#define LEARN_MEMO(ref) ((ref) != MREF)
#define PASS_MEMO(ref, one) ((ref) == MMEMO || ((ref) == MEAGER && (one)))

struct bdef {
	uint64_t start;
	uint32_t ninsn;
	uint32_t func;		/* index into the scenario's functions, NOFUNC */
};

struct step {
	int b;			/* block index */
	int exit;		/* enum lsd_exit */
	int next;		/* block control went to, -1: none */
};

static struct lsd_sblock sbs[NSB];
static struct lsd_sblock *page[1] = { sbs };

struct run {
	struct lsd_decoder d;
	struct lsb_reader r;
	struct lsp_profile *p;
	struct lsa_loops_stats st, lst;	/* the second pass's, the first's */
	int err;
};

static void blocks_set(const struct bdef *b, int n)
{
	int i;

	memset(sbs, 0, sizeof(sbs));
	for (i = 0; i < n; i++) {
		sbs[i].start = sbs[i].mod_off = b[i].start;
		sbs[i].ninsn = b[i].ninsn;
		sbs[i].last = b[i].start + 4 * (uint64_t)(b[i].ninsn - 1);
		sbs[i].end = b[i].start + 4 * (uint64_t)b[i].ninsn;
		sbs[i].id = (uint32_t)i;
		sbs[i].module = -1;
	}
}

/* A detector over R's blocks, with the function of each block set as
 * symbols would give it.  Returns 0 or -LS_ENOMEM. */
static int detector(struct run *R, struct lsa_loops **pl, const struct bdef *b,
		    int nb, const uint64_t *fstart, int nf, int reference)
{
	struct lsa_loops_opts o = { .size = sizeof(o), .reference = reference == MREF,
				    .no_eager = reference == MMEMO };
	struct lsa_loops *l;
	int i, err;

	if ((err = lsa_loops_new(pl, &R->d, &R->r, NULL, R->p, 0, &o)) < 0)
		return err;
	l = *pl;
	/* The function of every block, as symbols would give it: the
	 * detector's cache (function + 2, 1: none) filled in advance. */
	l->sbloop = calloc(NSB, sizeof(*l->sbloop));
	l->sbfunc = calloc(NSB, sizeof(*l->sbfunc));
	l->sbc = calloc(NSB, sizeof(*l->sbc));	/* filled by the detector */
	l->sbc32 = calloc(NSB, sizeof(*l->sbc32));
	l->funcs = calloc(8, sizeof(*l->funcs));
	if (!l->sbloop || !l->sbfunc || !l->sbc || !l->sbc32 || !l->funcs) {
		lsa_loops_free(l);
		return -LS_ENOMEM;
	}
	l->nsb = NSB;
	l->capfuncs = 8;
	for (i = 0; i < nf; i++) {
		l->funcs[i].module = -1;
		l->funcs[i].off = fstart[i];
		l->funcs[i].pidx = LSA_NONE;
	}
	l->nfuncs = (uint32_t)nf;
	for (i = 0; i < nb; i++)
		l->sbfunc[i] = b[i].func == NOFUNC ? 1 : b[i].func + 2;
	return 0;
}

/* Blocks handed to the detector at once by feed(): 1, or all of them
 * (a decoder's batch: what the memos match may be replayed from it). */
static int batch = 1;

/* Feeds the steps (at most NSTEP) to l as stream 0 of thread 1/1.
 * Returns its error. */
#define NSTEP 512
static int feed(struct lsa_loops *l, const struct step *s, int ns)
{
	static struct lsd_block x[NSTEP];
	int i, err = lsa_loops_stream_begin(l, 0, 0, 1, 1);

	if (ns > NSTEP)
		return -LS_EINVAL;
	for (i = 0; i < ns; i++)
		x[i] = (struct lsd_block){ .sb = &sbs[s[i].b], .exit = (uint8_t)s[i].exit,
					   .id = (uint32_t)s[i].b,
					   .next = s[i].next < 0 ? 0 : sbs[s[i].next].start };
	if (batch > 1 && !err)
		err = lsa_loops_blocks(l, 0, x, (size_t)ns);
	for (i = 0; batch == 1 && i < ns && !err; i++)
		err = lsa_loops_block(l, 0, &x[i]);
	return err ? err : lsa_loops_stream_end(l, 0);
}

/* Runs the steps as stream 0 of thread 1/1; functions start at fstart[].
 * Two passes, as lsa_loops_analyze() makes them: the first learns the
 * thread's loops, the second knows them from its first block; one = 1:
 * the second alone (what a single pass gives). */
static void run_passes(struct run *R, const struct bdef *b, int nb,
		       const uint64_t *fstart, int nf, const struct step *s, int ns,
		       int reference, int one)
{
	struct lsa_know *k = NULL;
	struct lsa_loops *l;

	memset(R, 0, sizeof(*R));
	blocks_set(b, nb);
	R->d.sbt.pages = page;
	R->d.sbt.npages = 1;
	R->d.sbt.n = R->d.sbt.cap = NSB;
	if ((R->err = lsp_new(&R->p, 0)) < 0)
		return;
	if (!one) {
		if ((R->err = detector(R, &l, b, nb, fstart, nf, reference)) < 0)
			return;
		if (!(R->err = lsa_loops_learn(l, &k)))
			R->err = feed(l, s, ns);
		lsa_loops_get_stats(l, &R->lst);
		lsa_loops_free(l);
		if (R->err) {
			lsa_know_free(k);
			return;
		}
	}
	if ((R->err = detector(R, &l, b, nb, fstart, nf, reference)) < 0) {
		lsa_know_free(k);
		return;
	}
	lsa_loops_know(l, k);
	R->err = feed(l, s, ns);
	lsa_loops_get_stats(l, &R->st);
	lsa_loops_free(l);
	lsa_know_free(k);
}

static void run(struct run *R, const struct bdef *b, int nb,
		const uint64_t *fstart, int nf, const struct step *s, int ns,
		int reference)
{
	run_passes(R, b, nb, fstart, nf, s, ns, reference, 0);
}

static const struct lsp_lstat *lstat_of(const struct run *R, uint64_t head)
{
	size_t i;

	for (i = 0; i < R->p->n_loops; i++)
		if (R->p->loops[i].head_off == head)
			break;
	if (i == R->p->n_loops)
		return NULL;
	for (size_t j = 0; j < R->p->n_lstats; j++)
		if (R->p->lstats[j].loop == i)
			return &R->p->lstats[j];
	return NULL;
}

/* Entries of the loop at head with exactly `trips` iterations. */
static uint64_t trips_of(const struct run *R, uint64_t head, uint64_t trips)
{
	const struct lsp_lstat *s = lstat_of(R, head);
	size_t j;

	for (j = 0; s && j < R->p->n_trips; j++)
		if (R->p->trips[j].loop == s->loop && R->p->trips[j].trips == trips)
			return R->p->trips[j].entries;
	return 0;
}

static const struct lsp_fstat *fstat_of(const struct run *R, uint64_t off)
{
	size_t i, j;

	for (i = 0; i < R->p->n_funcs; i++)
		if (R->p->funcs[i].off == off)
			for (j = 0; j < R->p->n_fstats; j++)
				if (R->p->fstats[j].func == i)
					return &R->p->fstats[j];
	return NULL;
}

#define LOOP_EQ(R, head, ent, it, self_, total_, what)                        \
	do {                                                                  \
		const struct lsp_lstat *s_ = lstat_of(R, head);              \
		TAP_OK(s_ != NULL, "%s: a loop at %#x", what, (unsigned)(head)); \
		TAP_EQ(s_ ? s_->entries : 0, ent, "%s: entries", what);       \
		TAP_EQ(s_ ? s_->iterations : 0, it, "%s: iterations", what);  \
		TAP_EQ(s_ ? s_->self : 0, self_, "%s: self", what);           \
		TAP_EQ(s_ ? s_->total : 0, total_, "%s: total", what);        \
	} while (0)

static const char *mode(int reference)
{
	return reference == MREF ? "reference" : reference == MEAGER ? "eager" : "memo";
}

/* The second pass met nothing the first did not learn, and the learning
 * pass's memo took iters iterations of blocks blocks whole (the
 * reference's, none). */
#define LEARNED_EQ(R, ref, what, w, iters, blocks)                            \
	do {                                                                  \
		TAP_EQ((R)->st.know_new, 0,                                   \
		       "%s, %s: the second pass knew every loop and body block", \
		       what, w);                                              \
		TAP_EQ((R)->lst.learn_memo_iters, LEARN_MEMO(ref) ? (iters) : 0, \
		       "%s, %s (%s): the learning pass took %d iterations whole", \
		       what, w, mode(ref), LEARN_MEMO(ref) ? (iters) : 0);    \
		TAP_EQ((R)->lst.learn_memo_blocks, LEARN_MEMO(ref) ? (blocks) : 0, \
		       "%s, %s (%s): of %d blocks", what, w, mode(ref),       \
		       LEARN_MEMO(ref) ? (blocks) : 0);                       \
	} while (0)

/* 1. A nest in one function:
 *   b0 0x1000 2 insns, falls into
 *   b1 0x1010 1 insn   outer head
 *   b2 0x1020 3 insns  inner loop (one block), taken: back to b2
 *   b3 0x1030 2 insns  outer latch, taken: back to b1
 *   b4 0x1040 1 insn   end
 * The inner loop runs 2, 3, then 1 times in the outer's 3 iterations.
 *   inner: 3 entries, 6 iterations, trips {1, 2, 3} once each,
 *          self = total = 6 * 3 = 18
 *   outer: 1 entry, 3 iterations, self = 3 * (1 + 2) = 9, total 9 + 18 = 27
 *   thread: 2 + 27 + 1 = 30 instructions, 3 outside every loop. */
static void t_nest(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 2, 0 }, { 0x1010, 1, 0 }, { 0x1020, 3, 0 },
		{ 0x1030, 2, 0 }, { 0x1040, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 },
		{ 1, LSD_EXIT_FALL, 2 }, { 2, LSD_EXIT_COND_TAKEN, 2 },
		{ 2, LSD_EXIT_COND_NOT, 3 }, { 3, LSD_EXIT_COND_TAKEN, 1 },
		{ 1, LSD_EXIT_FALL, 2 }, { 2, LSD_EXIT_COND_TAKEN, 2 },
		{ 2, LSD_EXIT_COND_TAKEN, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },
		{ 3, LSD_EXIT_COND_TAKEN, 1 },
		{ 1, LSD_EXIT_FALL, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },
		{ 3, LSD_EXIT_COND_NOT, 4 }, { 4, LSD_EXIT_END, -1 },
	};
	struct run R;

	run(&R, b, 5, f, 1, s, (int)(sizeof(s) / sizeof(s[0])), ref);
	TAP_EQ(R.err, 0, "nest (%s): the detector runs", mode(ref));
	TAP_EQ(R.p->n_loops, 2, "nest: two loops");
	LOOP_EQ(&R, 0x1020, 3, 6, 18, 18, "nest inner");
	LOOP_EQ(&R, 0x1010, 1, 3, 9, 27, "nest outer");
	TAP_EQ(trips_of(&R, 0x1020, 1), 1, "nest inner: one entry of trip count 1");
	TAP_EQ(trips_of(&R, 0x1020, 2), 1, "nest inner: one of 2");
	TAP_EQ(trips_of(&R, 0x1020, 3), 1, "nest inner: one of 3");
	TAP_EQ(trips_of(&R, 0x1010, 3), 1, "nest outer: one entry of trip count 3");
	TAP_EQ(R.p->n_threads, 1, "nest: one thread");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 30, "nest: 30 instructions");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 3, "nest: 3 outside loops");
	TAP_EQ(R.st.eager_blocks, ref == MEAGER ? R.st.blocks : 0,
	       "nest (%s): the eager pass took every block of the second, or none", mode(ref));
	lsp_free(R.p);
}

/* 2. An early exit (break) out of a loop whose test is at the top:
 *   c0 0x1000 1 insn, falls into
 *   c1 0x1010 2 insns head (exit test, not taken: stay)
 *   c2 0x1020 2 insns break test (taken: out to c4)
 *   c3 0x1030 1 insn  jump back to c1
 *   c4 0x1040 1 insn  end
 * Run: c1 c2 c3, c1 c2 c3, c1 c2 -> break.  The head runs 3 times: one
 * entry of trip count 3; the last iteration (c1 c2) is in the loop,
 * no off-by-one: self = total = 3 * (2 + 2) + 2 * 1 = 14; the thread
 * 1 + 14 + 1 = 16, 2 outside. */
static void t_break(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 2, 0 }, { 0x1020, 2, 0 },
		{ 0x1030, 1, 0 }, { 0x1040, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 },
		{ 1, LSD_EXIT_COND_NOT, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },
		{ 3, LSD_EXIT_JUMP, 1 },
		{ 1, LSD_EXIT_COND_NOT, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },
		{ 3, LSD_EXIT_JUMP, 1 },
		{ 1, LSD_EXIT_COND_NOT, 2 }, { 2, LSD_EXIT_COND_TAKEN, 4 },
		{ 4, LSD_EXIT_END, -1 },
	};
	struct run R;

	run(&R, b, 5, f, 1, s, (int)(sizeof(s) / sizeof(s[0])), ref);
	TAP_EQ(R.err, 0, "break (%s): the detector runs", mode(ref));
	TAP_EQ(R.p->n_loops, 1, "break: one loop");
	LOOP_EQ(&R, 0x1010, 1, 3, 14, 14, "break");
	TAP_EQ(trips_of(&R, 0x1010, 3), 1, "break: one entry of trip count 3");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 16, "break: 16 instructions");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "break: 2 outside loops");
	lsp_free(R.p);
}

/* 3. Recursion is no loop: main calls f, which calls itself twice more.
 *   m0 0x1000 1 insn call f (returns to 0x1004)   m1 0x1004 1 insn end
 *   r0 0x2000 2 insns base case test (taken: r2)
 *   r1 0x2010 1 insn  call f (returns to 0x2014)
 *   r3 0x2014 1 insn  ret                          r2 0x2020 1 insn ret
 * Run: m0 r0 r1 r0 r1 r0 r2 r3 r3 m1.  r0 recurs only in new frames: no
 * loop.  f: self 3 * 2 + 2 * 1 + 1 + 2 * 1 = 11, entered 3 times,
 * total 11 (recursion counted once); main: self 2, total 13. */
static void t_recursion(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1004, 1, 0 }, { 0x2000, 2, 1 },
		{ 0x2010, 1, 1 }, { 0x2014, 1, 1 }, { 0x2020, 1, 1 },
	};
	enum { M0, M1, R0, R1, R3, R2 };
	static const uint64_t f[] = { 0x1000, 0x2000 };
	static const struct step s[] = {
		{ M0, LSD_EXIT_CALL, R0 },
		{ R0, LSD_EXIT_COND_NOT, R1 }, { R1, LSD_EXIT_CALL, R0 },
		{ R0, LSD_EXIT_COND_NOT, R1 }, { R1, LSD_EXIT_CALL, R0 },
		{ R0, LSD_EXIT_COND_TAKEN, R2 }, { R2, LSD_EXIT_RET, R3 },
		{ R3, LSD_EXIT_RET, R3 }, { R3, LSD_EXIT_RET, M1 },
		{ M1, LSD_EXIT_END, -1 },
	};
	const struct lsp_fstat *fs;
	struct run R;

	run(&R, b, 6, f, 2, s, (int)(sizeof(s) / sizeof(s[0])), ref);
	TAP_EQ(R.err, 0, "recursion (%s): the detector runs", mode(ref));
	TAP_EQ(R.p->n_loops, 0, "recursion: no loop");
	TAP_EQ(R.st.frame_mismatches, 0, "recursion: every return matched its frame");
	TAP_EQ(R.st.unwinds, 0, "recursion: no unwind");
	fs = fstat_of(&R, 0x2000);
	TAP_EQ(fs ? fs->self : 0, 11, "recursion: f self");
	TAP_EQ(fs ? fs->total : 0, 11, "recursion: f total, counted once");
	TAP_EQ(fs ? fs->calls : 0, 3, "recursion: f entered 3 times");
	fs = fstat_of(&R, 0x1000);
	TAP_EQ(fs ? fs->self : 0, 2, "recursion: main self");
	TAP_EQ(fs ? fs->total : 0, 13, "recursion: main total");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 13, "recursion: 13 instructions");
	lsp_free(R.p);
}

/* 4. longjmp-style unwind: main's loop calls g, g calls h, and h jumps
 * (indirect) into the middle of main, where setjmp returns.
 *   a0 0x1000 1 insn   falls into
 *   a1 0x1010 2 insns  head; call g (returns to 0x1018)
 *   a2 0x1018 1 insn   the landing; taken: back to a1
 *   a3 0x1020 1 insn   end
 *   g0 0x2000 1 insn   call h        h0 0x3000 2 insns  jmp *%rax to a2
 * Run: a0, (a1 g0 h0 a2) 3 times, a3.  Each jump unwinds two frames: 3
 * unwinds, no mismatched return.  The loop: 1 entry, 3 iterations, total
 * 3 * (2 + 1 + 2 + 1) = 18, and self the same: g and h have no loops, so
 * their code is charged to the loop that called them; thread 1 + 18 + 1
 * = 20; g and h entered 3 times each. */
static void t_longjmp(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 2, 0 }, { 0x1018, 1, 0 },
		{ 0x1020, 1, 0 }, { 0x2000, 1, 1 }, { 0x3000, 2, 2 },
	};
	enum { A0, A1, A2, A3, G0, H0 };
	static const uint64_t f[] = { 0x1000, 0x2000, 0x3000 };
	static const struct step s[] = {
		{ A0, LSD_EXIT_FALL, A1 },
		{ A1, LSD_EXIT_CALL, G0 }, { G0, LSD_EXIT_CALL, H0 },
		{ H0, LSD_EXIT_IJUMP, A2 }, { A2, LSD_EXIT_COND_TAKEN, A1 },
		{ A1, LSD_EXIT_CALL, G0 }, { G0, LSD_EXIT_CALL, H0 },
		{ H0, LSD_EXIT_IJUMP, A2 }, { A2, LSD_EXIT_COND_TAKEN, A1 },
		{ A1, LSD_EXIT_CALL, G0 }, { G0, LSD_EXIT_CALL, H0 },
		{ H0, LSD_EXIT_IJUMP, A2 }, { A2, LSD_EXIT_COND_NOT, A3 },
		{ A3, LSD_EXIT_END, -1 },
	};
	const struct lsp_fstat *fs;
	struct run R;

	run(&R, b, 6, f, 3, s, (int)(sizeof(s) / sizeof(s[0])), ref);
	TAP_EQ(R.err, 0, "longjmp (%s): the detector runs", mode(ref));
	TAP_EQ(R.st.unwinds, 3, "longjmp: 3 unwinds");
	TAP_EQ(R.st.frame_mismatches, 0, "longjmp: no mismatched return");
	TAP_EQ(R.p->n_loops, 1, "longjmp: one loop");
	LOOP_EQ(&R, 0x1010, 1, 3, 18, 18, "longjmp");
	TAP_EQ(trips_of(&R, 0x1010, 3), 1, "longjmp: one entry of trip count 3");
	fs = fstat_of(&R, 0x2000);
	TAP_EQ(fs ? fs->calls : 0, 3, "longjmp: g entered 3 times");
	fs = fstat_of(&R, 0x3000);
	TAP_EQ(fs ? fs->calls : 0, 3, "longjmp: h entered 3 times");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 20, "longjmp: 20 instructions");
	lsp_free(R.p);
}

/* 5. A signal frame: a one-block loop is interrupted after its second
 * run (the branch taken, control due back at its head); the handler runs
 * a loop of its own, returns into the restorer, whose sigreturn goes
 * back to the head.
 *   s0 0x1000 1 insn  falls into   s1 0x1010 2 insns head (taken: s1)
 *   s2 0x1020 1 insn  end
 *   hd0 0x2000 1 insn   hd1 0x2010 1 insn loop (taken: hd1)
 *   hd2 0x2020 1 insn ret (to the restorer)   rs0 0x2800 1 insn sigreturn
 * Run: s0 s1 s1(async, resumes at s1) hd0 hd1 hd1 hd2 rs0 s1 s1 s2.
 * One unwind (the sigreturn to the interrupted frame).  Main's loop: 1
 * entry, 4 iterations, total 4 * 2 + (1 + 2 + 1 + 1) = 13 (the handler
 * ran inside its iteration), self 13 - 2 = 11 (all but the handler's own
 * loop, which is nested); the handler's loop: 1 entry, 2 iterations,
 * self = total 2; thread 1 + 13 + 1 = 15. */
static void t_signal(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 2, 0 }, { 0x1020, 1, 0 },
		{ 0x2000, 1, 1 }, { 0x2010, 1, 1 }, { 0x2020, 1, 1 },
		{ 0x2800, 1, 2 },
	};
	enum { S0, S1, S2, HD0, HD1, HD2, RS0 };
	static const uint64_t f[] = { 0x1000, 0x2000, 0x2800 };
	static const struct step s[] = {
		{ S0, LSD_EXIT_FALL, S1 }, { S1, LSD_EXIT_COND_TAKEN, S1 },
		{ S1, LSD_EXIT_ASYNC, S1 },
		{ HD0, LSD_EXIT_FALL, HD1 }, { HD1, LSD_EXIT_COND_TAKEN, HD1 },
		{ HD1, LSD_EXIT_COND_NOT, HD2 }, { HD2, LSD_EXIT_RET, RS0 },
		{ RS0, LSD_EXIT_SYSCALL, S1 },
		{ S1, LSD_EXIT_COND_TAKEN, S1 }, { S1, LSD_EXIT_COND_NOT, S2 },
		{ S2, LSD_EXIT_END, -1 },
	};
	struct run R;

	run(&R, b, 7, f, 3, s, (int)(sizeof(s) / sizeof(s[0])), ref);
	TAP_EQ(R.err, 0, "signal (%s): the detector runs", mode(ref));
	TAP_EQ(R.st.unwinds, 1, "signal: the sigreturn unwinds the handler's frame");
	TAP_EQ(R.st.frame_mismatches, 0, "signal: no mismatched return");
	TAP_EQ(R.p->n_loops, 2, "signal: two loops");
	LOOP_EQ(&R, 0x1010, 1, 4, 11, 13, "signal main loop");
	LOOP_EQ(&R, 0x2010, 1, 2, 2, 2, "signal handler loop");
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 15, "signal: 15 instructions");
	lsp_free(R.p);
}

/* The profile loop index of the loop at head (LSP_NONE: none). */
static uint32_t loop_idx(const struct run *R, uint64_t head)
{
	size_t i;

	for (i = 0; i < R->p->n_loops; i++)
		if (R->p->loops[i].head_off == head)
			return (uint32_t)i;
	return LSP_NONE;
}

/* Entries of the loop at child under the loop at parent (0: the top
 * level) in the loop call graph. */
static uint64_t edge_of(const struct run *R, uint64_t parent, uint64_t child)
{
	uint32_t pi = parent ? loop_idx(R, parent) : LSP_NONE, ci = loop_idx(R, child);
	size_t i;

	if (ci == LSP_NONE || (parent && pi == LSP_NONE))
		return 0;
	for (i = 0; i < R->p->n_edges; i++)
		if (R->p->edges[i].parent == pi && R->p->edges[i].child == ci)
			return R->p->edges[i].count;
	return 0;
}

/* A loop whose first entry makes one trip, with a loop nested in it,
 * found as a loop only by a later entry that goes back to its head.
 * main calls f twice; f's outer loop (head O, bottom test Z) holds an
 * inner loop (I, its own test); then R returns.
 *   main: 0x1000 (1 insn, calls f), 0x1004 (1, calls f), 0x1008 (1, end)
 *   f:    0x2000 (2), O 0x2010 (1), I 0x2020 (3), Z 0x2030 (2), R 0x2040 (1)
 * early = 1, the call that makes one outer trip first:
 *   call 1: O, I I I (inner trips 3), Z not taken: 1 outer trip
 *   call 2: O, I I (2), Z taken, O, I (1), Z not taken: 2 outer trips
 * early = 0: the two calls the other way round; the same executions.
 * Hand count, knowing from the start that O and I head loops (the second
 * pass; the same in both orders):
 *   inner: 3 entries (trips 3, 2, 1), 6 iterations, self = total = 6 * 3
 *          = 18, every entry under outer;
 *   outer: 2 entries (trips 1, 2), 3 iterations, self = 3 * (1 + 2) = 9
 *          (O and Z), total 9 + 18 = 27, both entries at the top level;
 *   thread: 3 (main) + 2 * (2 + 1) (f outside its loop) + 27 = 36
 *          instructions, 9 outside every loop.
 * A single pass, with early = 1, met O as no loop head in call 1: it
 * charged O, Z and the inner entry of call 1 to f's frame (outer: self
 * 6, total 15), whose caller sits in no loop (inner: one entry at the top
 * level). */
static void t_early(int ref, int early)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1004, 1, 0 }, { 0x2000, 2, 1 },
		{ 0x2010, 1, 1 }, { 0x2020, 3, 1 }, { 0x2030, 2, 1 },
		{ 0x2040, 1, 1 }, { 0x1008, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000, 0x2000 };
	/* f making one outer trip (returning to block ret), and two */
#define ONE(ret)							\
	{ 2, LSD_EXIT_FALL, 3 }, { 3, LSD_EXIT_FALL, 4 },		\
	{ 4, LSD_EXIT_COND_TAKEN, 4 }, { 4, LSD_EXIT_COND_TAKEN, 4 },	\
	{ 4, LSD_EXIT_COND_NOT, 5 }, { 5, LSD_EXIT_COND_NOT, 6 },	\
	{ 6, LSD_EXIT_RET, ret }
#define TWO(ret)							\
	{ 2, LSD_EXIT_FALL, 3 }, { 3, LSD_EXIT_FALL, 4 },		\
	{ 4, LSD_EXIT_COND_TAKEN, 4 }, { 4, LSD_EXIT_COND_NOT, 5 },	\
	{ 5, LSD_EXIT_COND_TAKEN, 3 }, { 3, LSD_EXIT_FALL, 4 },		\
	{ 4, LSD_EXIT_COND_NOT, 5 }, { 5, LSD_EXIT_COND_NOT, 6 },	\
	{ 6, LSD_EXIT_RET, ret }
	static const struct step s1[] = {
		{ 0, LSD_EXIT_CALL, 2 }, ONE(1),
		{ 1, LSD_EXIT_CALL, 2 }, TWO(7), { 7, LSD_EXIT_END, -1 },
	};
	static const struct step s0[] = {
		{ 0, LSD_EXIT_CALL, 2 }, TWO(1),
		{ 1, LSD_EXIT_CALL, 2 }, ONE(7), { 7, LSD_EXIT_END, -1 },
	};
#undef ONE
#undef TWO
	const struct step *s = early ? s1 : s0;
	int ns = (int)(early ? sizeof(s1) / sizeof(s1[0]) : sizeof(s0) / sizeof(s0[0]));
	const char *w = early ? "early (one trip first)" : "early (two trips first)";
	struct run R;

	run(&R, b, 8, f, 2, s, ns, ref);
	TAP_EQ(R.err, 0, "%s (%s): the detector runs", w, mode(ref));
	LOOP_EQ(&R, 0x2020, 3, 6, 18, 18, "early inner");
	LOOP_EQ(&R, 0x2010, 2, 3, 9, 27, "early outer");
	TAP_EQ(trips_of(&R, 0x2010, 1), 1, "%s: an outer entry of trip count 1", w);
	TAP_EQ(trips_of(&R, 0x2010, 2), 1, "%s: one of 2", w);
	TAP_EQ(edge_of(&R, 0x2010, 0x2020), 3, "%s: every inner entry under outer", w);
	TAP_EQ(edge_of(&R, 0, 0x2020), 0, "%s: none at the top level", w);
	TAP_EQ(edge_of(&R, 0, 0x2010), 2, "%s: both outer entries at the top level", w);
	TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 36, "%s: 36 instructions", w);
	TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 9, "%s: 9 outside loops", w);
	TAP_EQ(R.st.know_new, 0, "%s: the second pass knew every loop and body block", w);
	lsp_free(R.p);
	if (!early)
		return;
	/* what the second pass is for: one pass decides otherwise */
	run_passes(&R, b, 8, f, 2, s, ns, ref, 1);
	TAP_EQ(R.err, 0, "%s, one pass (%s): the detector runs", w, mode(ref));
	LOOP_EQ(&R, 0x2010, 2, 3, 6, 15, "early outer, one pass");
	TAP_EQ(edge_of(&R, 0, 0x2020), 1, "%s, one pass: an inner entry at the top level", w);
	lsp_free(R.p);
}

/* 7. The learning pass's memo (loops_fmemo.c) and what lies below the
 * head.  f runs twice from main (b0, b1, b2: 1 instruction each):
 *   F 0x2000 1 insn, R 0x2030 1 insn (f's entry and return),
 *   H 0x2010 2 insns, X 0x2020 3 insns (X jumps to H).
 * Call 1: F H X H X H X H R.  H recurs on the path: a loop headed by H,
 * body {H, X}, one entry of 4 iterations; its self 4 * 2 + 3 * 3 = 17
 * (R is no block of an iteration: f's frame).  The learning pass keeps
 * the iteration X H (from H's push) and takes the second, X H, whole.
 * Call 2: F X H X H X H R.  Now X is on the path below H when it
 * recurs: a loop headed by X, body {X, H}, one entry of 3 iterations,
 * self 3 * 3 + 3 * 2 = 15; H, run under X's entry, is no entry of its
 * own (X is in H's body: one cycle).  H, a head with a trie, is pushed
 * after X: the trie's X H is there, but X is below on the path, so the
 * memo must not take it (had it, X would head no loop).  It keeps X's
 * iteration H X (from X's push) and takes the second whole: the
 * learning pass takes 2 iterations of 2 blocks.
 *   thread: 3 + (1 + 17 + 1) + (1 + 15 + 1) = 39 instructions,
 *          7 outside every loop. */
static void t_fmemo(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1004, 1, 0 }, { 0x1008, 1, 0 },
		{ 0x2000, 1, 1 }, { 0x2010, 2, 1 }, { 0x2020, 3, 1 }, { 0x2030, 1, 1 },
	};
	static const uint64_t f[] = { 0x1000, 0x2000 };
	static const struct step s[] = {
		{ 0, LSD_EXIT_CALL, 3 },
		{ 3, LSD_EXIT_FALL, 4 }, { 4, LSD_EXIT_FALL, 5 }, { 5, LSD_EXIT_JUMP, 4 },
		{ 4, LSD_EXIT_FALL, 5 }, { 5, LSD_EXIT_JUMP, 4 }, { 4, LSD_EXIT_FALL, 5 },
		{ 5, LSD_EXIT_JUMP, 4 }, { 4, LSD_EXIT_COND_TAKEN, 6 }, { 6, LSD_EXIT_RET, 1 },
		{ 1, LSD_EXIT_CALL, 3 },
		{ 3, LSD_EXIT_JUMP, 5 }, { 5, LSD_EXIT_JUMP, 4 }, { 4, LSD_EXIT_FALL, 5 },
		{ 5, LSD_EXIT_JUMP, 4 }, { 4, LSD_EXIT_FALL, 5 }, { 5, LSD_EXIT_JUMP, 4 },
		{ 4, LSD_EXIT_COND_TAKEN, 6 }, { 6, LSD_EXIT_RET, 2 },
		{ 2, LSD_EXIT_END, -1 },
	};
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";

		run(&R, b, 7, f, 2, s, ns, ref);
		TAP_EQ(R.err, 0, "fmemo, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x2010, 1, 4, 17, 17, "fmemo H");
		LOOP_EQ(&R, 0x2020, 1, 3, 15, 15, "fmemo X");
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 39, "fmemo, %s: 39 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 7, "fmemo, %s: 7 outside loops", w);
		LEARNED_EQ(&R, ref, "fmemo", w, 2, 4);	/* (2 blocks each) */
		lsp_free(R.p);
	}
	batch = 1;
}

/* 8. The learning pass's memo with what it collapses: nested loops'
 * iterations (and calls it takes on their own tries).  main (M0, M1) calls f once:
 *   F 0x2000, H 0x2004 (outer head), P 0x2008 (calls g), I 0x200c (the
 *   return; inner head: to Q or out to Z), Q 0x2010 (back to I), Z 0x2014
 *   (back to H, or on to R), R 0x2018 (returns); g: G1 0x3000 (to G2 or
 *   G3), G2 0x3004 and G3 0x3008 (return): every block 1 instruction.
 * Six outer iterations: g by G2, G3, G2, G3, G2, G3, and inner trip
 * counts 3, 2, 4, 1, 2, 3 (the inner loop's iterations and g's path
 * differ from one outer iteration to the next: no two are the same
 * blocks, so a trie of whole iterations would take none).
 * Hand count: inner I, 6 entries under H, 3+2+4+1+2+3 = 15 iterations,
 * self = total = I and Q, 15 + 9 = 24; outer H, 1 entry, 6 iterations,
 * self H + P + g's 2 blocks + Z = 5 a trip, 30, total 30 + 24 = 54;
 * thread 1 + 1 + 54 + 1 + 1 = 58 instructions, 4 outside every loop.
 * The learning pass's tries key each block by its exit too: I's loop
 * back that goes on (I to Q) and the one that leaves (I to Z) are two
 * iterations, and an inner entry of one trip begins with I leaving.
 * Outer iteration 1 (by block): keeps I's iterations Q I-on and Q
 * I-leaving, g's call G1 G2 (in P's trie of calls; the log keeps calls
 * as they ran) and the iteration with I's iterations collapsed (P, G1,
 * G2, I-on, Z, H).  2: H's trie leaves at G3; by block, keeping G1 G3
 * and the iteration P, G1, G3, I-on, Z, H, while I's trie takes Q
 * I-leaving whole (1 iteration, 2 blocks).  3: taken whole, g's call
 * walked in it and I's 3 iterations on their own trie (12 blocks).  4:
 * leaves at I, an entry of one trip (I-leaving first); kept.  5: taken
 * whole (8 blocks).  6 leaves the loop.  So 3 iterations whole, 22
 * blocks. */
static void t_fcoll(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1004, 1, 0 },
		{ 0x2000, 1, 1 }, { 0x2004, 1, 1 }, { 0x2008, 1, 1 }, { 0x200c, 1, 1 },
		{ 0x2010, 1, 1 }, { 0x2014, 1, 1 }, { 0x2018, 1, 1 },
		{ 0x3000, 1, 2 }, { 0x3004, 1, 2 }, { 0x3008, 1, 2 },
	};
	static const uint64_t f[] = { 0x1000, 0x2000, 0x3000 };
	/* an outer iteration from P: g by G2 (g2) or G3, t inner trips */
#define G(g2) { 4, LSD_EXIT_CALL, 9 },						{ 9, (g2) ? LSD_EXIT_COND_NOT : LSD_EXIT_COND_TAKEN, (g2) ? 10 : 11 }, 	{ (g2) ? 10 : 11, LSD_EXIT_RET, 5 }
#define IQ { 5, LSD_EXIT_COND_NOT, 6 }, { 6, LSD_EXIT_JUMP, 5 }
#define OUT { 5, LSD_EXIT_COND_TAKEN, 7 }
#define BACK { 7, LSD_EXIT_COND_TAKEN, 3 }, { 3, LSD_EXIT_FALL, 4 }
	static const struct step s[] = {
		{ 0, LSD_EXIT_CALL, 2 }, { 2, LSD_EXIT_FALL, 3 }, { 3, LSD_EXIT_FALL, 4 },
		G(1), IQ, IQ, OUT, BACK,
		G(0), IQ, OUT, BACK,
		G(1), IQ, IQ, IQ, OUT, BACK,
		G(0), OUT, BACK,
		G(1), IQ, OUT, BACK,
		G(0), IQ, IQ, OUT, { 7, LSD_EXIT_COND_NOT, 8 },
		{ 8, LSD_EXIT_RET, 1 }, { 1, LSD_EXIT_END, -1 },
	};
#undef G
#undef IQ
#undef OUT
#undef BACK
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";

		run(&R, b, 12, f, 3, s, ns, ref);
		TAP_EQ(R.err, 0, "fcoll, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x200c, 6, 15, 24, 24, "fcoll inner");
		LOOP_EQ(&R, 0x2004, 1, 6, 30, 54, "fcoll outer");
		TAP_EQ(edge_of(&R, 0x2004, 0x200c), 6, "fcoll, %s: every inner entry under outer", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 58, "fcoll, %s: 58 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 4, "fcoll, %s: 4 outside loops", w);
		LEARNED_EQ(&R, ref, "fcoll", w, 3, 22);
		lsp_free(R.p);
	}
	batch = 1;
}

/* 9. Iterations that repeat the one before block for block, which both
 * memos take by a compare a block (lsa_memo_repeat):
 *   A 0x1000 1 insn, falls into
 *   H 0x1010 2 insns head: not taken to B, taken to C
 *   B 0x1020 3 insns jumps back to H
 *   C 0x1030 4 insns back to H (not taken) or out to E (taken)
 *   E 0x1040 1 insn  end
 * Run: A H, then B H ten times (the tenth H taken), C H, B H five times
 * (the fifth H taken), C E.  Hand count: H runs 1 + 16 loop backs = 17
 * times, one entry of trip count 17; self = total = 17 * 2 + 15 * 3 +
 * 2 * 4 = 87; the thread 1 + 87 + 1 = 89, 2 outside.
 * The iteration memo: the first loop back keeps B H and matching begins
 * after it.  It walks the second B H, and the third to ninth (blocks 6
 * to 19) repeat it: 14 blocks by compare.  The tenth is walked (its H,
 * taken, is not the same block run: no repeat, but the trie has it); C
 * is not in the trie.  After the loop back from C, the twelfth is walked
 * and the 13th to 15th repeat it (6 blocks); the 16th is walked, C E
 * leaves.  So 9 + 5 = 14 iterations, 28 blocks, 20 of them repeats,
 * where the blocks come in one batch (one at a time, no iteration before
 * is there to compare).  The learning pass's tries key a block by its own
 * exit too: its first matching leaves at the tenth H (taken), which goes
 * block by block and is kept; the second takes the twelfth to the 16th,
 * that one too.  So 8 + 5 = 13 iterations, 26 blocks, the same 20
 * repeats. */
static void t_again(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 2, 0 }, { 0x1020, 3, 0 },
		{ 0x1030, 4, 0 }, { 0x1040, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
#define BH { 2, LSD_EXIT_JUMP, 1 }, { 1, LSD_EXIT_COND_NOT, 2 }
#define BHT { 2, LSD_EXIT_JUMP, 1 }, { 1, LSD_EXIT_COND_TAKEN, 3 }
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 }, { 1, LSD_EXIT_COND_NOT, 2 },
		BH, BH, BH, BH, BH, BH, BH, BH, BH, BHT,
		{ 3, LSD_EXIT_COND_NOT, 1 }, { 1, LSD_EXIT_COND_NOT, 2 },
		BH, BH, BH, BH, BHT,
		{ 3, LSD_EXIT_COND_TAKEN, 4 }, { 4, LSD_EXIT_END, -1 },
	};
#undef BH
#undef BHT
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";
		uint64_t again = !PASS_MEMO(ref, 0) || batch == 1 ? 0 : 20;
		uint64_t lagain = !LEARN_MEMO(ref) || batch == 1 ? 0 : 20;

		run(&R, b, 5, f, 1, s, ns, ref);
		TAP_EQ(R.err, 0, "again, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x1010, 1, 17, 87, 87, "again H");
		TAP_EQ(trips_of(&R, 0x1010, 17), 1, "again, %s: one entry of trip count 17", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 89, "again, %s: 89 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "again, %s: 2 outside loops", w);
		LEARNED_EQ(&R, ref, "again", w, 13, 26);
		TAP_EQ(R.st.memo_blocks, PASS_MEMO(ref, 0) ? 28 : 0,
		       "again, %s (%s): the iteration memo took 28 blocks", w, mode(ref));
		TAP_EQ(R.st.memo_again, again, "again, %s (%s): %d of them repeats", w,
		       mode(ref), (int)again);
		TAP_EQ(R.lst.learn_again, lagain,
		       "again, %s (%s): the learning pass's, %d repeats", w, mode(ref), (int)lagain);
		lsp_free(R.p);
	}
	batch = 1;
}

/* 9b. Flat iterations (analysis/loops_mflat.c): an outer loop whose
 * iterations hold an inner loop that iterates, one function:
 *   A 0x1000 1 insn, falls into
 *   H 0x1010 2 insns outer head, falls into
 *   I 0x1020 1 insn  inner head: not taken to Q, taken to X
 *   Q 0x1030 3 insns jumps back to I
 *   X 0x1040 1 insn  back to H (not taken) or out to E (taken)
 *   E 0x1050 1 insn  end
 * Run: A, then six outer iterations H I Q I Q I X (the last X taken), E.
 * Hand count: I, 6 entries of trip count 3, 18 iterations, self = total
 * = 18 * 1 + 12 * 3 = 54; H, one entry of trip count 6, self = 6 * 2 +
 * 6 * 1 = 18, total 18 + 54 = 72; the thread 1 + 72 + 1 = 74, 2 outside;
 * the edge H -> I 6 entries.
 * The memo: in the first outer iteration, the inner loop's first loop
 * back keeps Q I and its trie takes the second inner iteration (2
 * blocks); X leaves it.  The outer loop back finds the inner entry open
 * on the path: a flat iteration, whose inner iterations were not logged,
 * so the next one is.  The second goes block by block (the inner loop's
 * memo stays off), its two inner iterations logged; at its loop back the
 * whole sequence I Q I Q I X goes into H's trie and matching begins: the
 * third to fifth iterations are taken whole (3 flat iterations, 21
 * blocks; where the blocks come as one batch, the fourth and fifth by
 * compare, 14 blocks), the sixth leaves at E after X taken: I Q I Q I X
 * handed back, the inner loop redone by the per-block path.  So 23
 * blocks taken, in a single pass as in two. */
static void t_flat(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 2, 0 }, { 0x1020, 1, 0 },
		{ 0x1030, 3, 0 }, { 0x1040, 1, 0 }, { 0x1050, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
#define IT(x, nx) { 1, LSD_EXIT_FALL, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },       \
	{ 3, LSD_EXIT_JUMP, 2 }, { 2, LSD_EXIT_COND_NOT, 3 },                 \
	{ 3, LSD_EXIT_JUMP, 2 }, { 2, LSD_EXIT_COND_TAKEN, 4 }, { 4, x, nx }
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 },
		IT(LSD_EXIT_COND_NOT, 1), IT(LSD_EXIT_COND_NOT, 1), IT(LSD_EXIT_COND_NOT, 1),
		IT(LSD_EXIT_COND_NOT, 1), IT(LSD_EXIT_COND_NOT, 1), IT(LSD_EXIT_COND_TAKEN, 5),
		{ 5, LSD_EXIT_END, -1 },
	};
#undef IT
	int ns = (int)(sizeof(s) / sizeof(s[0])), one;
	struct run R;

	for (one = 0; one < 2; one++)
	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? (one ? "block by block, one pass" : "block by block") :
			(one ? "one batch, one pass" : "one batch");
		uint64_t again = !PASS_MEMO(ref, one) || batch == 1 ? 0 : 14;

		run_passes(&R, b, 6, f, 1, s, ns, ref, one);
		TAP_EQ(R.err, 0, "flat, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x1020, 6, 18, 54, 54, "flat I");
		LOOP_EQ(&R, 0x1010, 1, 6, 18, 72, "flat H");
		TAP_EQ(trips_of(&R, 0x1020, 3), 6, "flat, %s: six entries of I of trip count 3", w);
		TAP_EQ(trips_of(&R, 0x1010, 6), 1, "flat, %s: one entry of H of trip count 6", w);
		TAP_EQ(edge_of(&R, 0x1010, 0x1020), 6, "flat, %s: every inner entry under H", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 74, "flat, %s: 74 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "flat, %s: 2 outside loops", w);
		TAP_EQ(R.st.memo_flat, PASS_MEMO(ref, one) ? 3 : 0,
		       "flat, %s (%s): 3 flat iterations taken", w, mode(ref));
		TAP_EQ(R.st.memo_blocks, PASS_MEMO(ref, one) ? 23 : 0,
		       "flat, %s (%s): the iteration memo took 23 blocks", w, mode(ref));
		TAP_EQ(R.st.memo_again, again, "flat, %s (%s): %d of them repeats", w,
		       mode(ref), (int)again);
		TAP_EQ(R.st.loop_backs, 17, "flat, %s (%s): 17 loop backs", w, mode(ref));
		lsp_free(R.p);
	}
	batch = 1;
}

/* 10. An interrupt resumed in place at the end of an inner iteration,
 * which the learning pass's memo takes three levels deep.  One function:
 *   A 0x1000, H 0x1010 (outer head), M 0x1020 (middle head), I 0x1030
 *   (inner head: not taken to Q, taken out to N or X), Q 0x1050 (back to
 *   I), N 0x1060 (taken back to M, not on to Z), Z 0x1070 (taken back
 *   to H, not on to E), X 0x1080 (on to N), E 0x1090: 1 instruction
 *   each.  Q does not follow I: an interrupt at I that resumes at Q
 *   resumes elsewhere than after I, which only the block's next says.
 * Four outer iterations; I's trip counts 3 2 | 3 2 | 4 2 | 2, the
 * second outer iteration interrupted at I (resumed at Q) in its first
 * middle trip, the third the same one I later, its middle trip going
 * by X.  Hand count: I, 7 entries, 18 iterations, self = total = 18 I
 * + 11 Q = 29; M, 4 entries, 7 iterations, self M 7 + N 7 + X 1 = 15,
 * total 15 + 29 = 44; H, 1 entry, 4 iterations, self H 4 + Z 4 = 8,
 * total 52; the thread 54 instructions, A and E outside every loop.
 * The learning pass: the first outer iteration goes block by block and
 * is kept, its middle and inner iterations too.  In the second, I's
 * trie leaves at the interrupt and the iteration Q, I interrupted is
 * kept in it.  In the third, the outer trie takes M, the middle trie I
 * and the inner trie two iterations, the second ending interrupted;
 * then Q (after the interrupt) leaves all three, and the middle level's
 * blocks go back to the outer one (I after M) before the blocks go
 * through the per-block path.  There the interrupt's resume must be
 * the one at Q (stop 41's bug: it was lost where a level's blocks went
 * back, Q then opened a signal handler's frame, and no loop back to M
 * or H taught that X is in their bodies).  No outer iteration is taken
 * whole (the second and third leave at the interrupt, the fourth leaves
 * the loop): 0 iterations, 0 blocks. */
static void t_async(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 1, 0 }, { 0x1020, 1, 0 }, { 0x1030, 1, 0 },
		{ 0x1050, 1, 0 }, { 0x1060, 1, 0 }, { 0x1070, 1, 0 }, { 0x1080, 1, 0 },
		{ 0x1090, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
#define IQ { 3, LSD_EXIT_COND_NOT, 4 }, { 4, LSD_EXIT_JUMP, 3 }
#define IA { 3, LSD_EXIT_ASYNC, 4 }, { 4, LSD_EXIT_JUMP, 3 }
#define MI { 2, LSD_EXIT_FALL, 3 }
#define NM { 3, LSD_EXIT_COND_TAKEN, 5 }, { 5, LSD_EXIT_COND_TAKEN, 2 }
#define NZH { 3, LSD_EXIT_COND_TAKEN, 5 }, { 5, LSD_EXIT_COND_NOT, 6 },		\
	{ 6, LSD_EXIT_COND_TAKEN, 1 }, { 1, LSD_EXIT_FALL, 2 }
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 }, { 1, LSD_EXIT_FALL, 2 },
		MI, IQ, IQ, NM, MI, IQ, NZH,
		MI, IQ, IA, NM, MI, IQ, NZH,
		MI, IQ, IQ, IA, { 3, LSD_EXIT_COND_TAKEN, 7 }, { 7, LSD_EXIT_JUMP, 5 },
		{ 5, LSD_EXIT_COND_TAKEN, 2 }, MI, IQ, NZH,
		MI, IQ, { 3, LSD_EXIT_COND_TAKEN, 5 }, { 5, LSD_EXIT_COND_NOT, 6 },
		{ 6, LSD_EXIT_COND_NOT, 8 }, { 8, LSD_EXIT_END, -1 },
	};
#undef IQ
#undef IA
#undef MI
#undef NM
#undef NZH
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";

		run(&R, b, 9, f, 1, s, ns, ref);
		TAP_EQ(R.err, 0, "async, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x1030, 7, 18, 29, 29, "async I");
		LOOP_EQ(&R, 0x1020, 4, 7, 15, 44, "async M");
		LOOP_EQ(&R, 0x1010, 1, 4, 8, 52, "async H");
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 54, "async, %s: 54 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "async, %s: 2 outside loops", w);
		LEARNED_EQ(&R, ref, "async", w, 0, 0);
		lsp_free(R.p);
	}
	batch = 1;
}

/* 11. A call whose last block is a loop head, the head's first run not
 * the one that returns (its iterations do: a stream no compiler makes,
 * as a fuzzed or damaged one may be).  One function, calling itself:
 *   A 0x1000, H 0x1010 (head; calls C, its next block, indirectly), C
 *   0x1014 (head in the call: back to itself, returning to itself; on
 *   to X or D after the return), X 0x1040 (on to D), D 0x1020 (back to
 *   H), E 0x1030: 1 instruction each.
 * H's iterations: H calls, C runs three times in the call (two loop
 * backs, the last run returning to C, the return address), then C
 * after the return goes to D (the second time by X), D back to H; the
 * third run of H leaves to E.  Hand count: C, 4 entries under H (two
 * in the calls, of 3 trips; two after the returns, of 1: a run of a
 * loop's head is an entry), 8 iterations, self = total = 8; H, 1
 * entry, 3 iterations, self H 3 + D 2 + X 1 = 6, total 6 + 8 = 14;
 * the thread 16 instructions, A and E outside every loop.
 * The learning pass keeps H's first iteration, with the call collapsed
 * after H.  It must not keep the call as C alone (its first run's
 * exit): a call level ends at its trie's last node, so the second
 * call would end after C's first run, the next C (still in the call)
 * run as the one after the return, and the loop back to H that
 * teaches X never come (memocheck -s 9 -k -y on a bzip2 recording).
 * Kept as it ran instead, H's first iteration takes the second's call
 * on C's own trie (two iterations), and the second leaves at X: no
 * iteration is taken whole. */
static void t_cret(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 1, 0 }, { 0x1014, 1, 0 }, { 0x1040, 1, 0 },
		{ 0x1020, 1, 0 }, { 0x1030, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
#define CALL3 { 1, LSD_EXIT_ICALL, 2 }, { 2, LSD_EXIT_COND_NOT, 2 },		\
	{ 2, LSD_EXIT_COND_NOT, 2 }, { 2, LSD_EXIT_RET, 2 }
	static const struct step s[] = {
		{ 0, LSD_EXIT_FALL, 1 },
		CALL3, { 2, LSD_EXIT_COND_TAKEN, 4 }, { 4, LSD_EXIT_JUMP, 1 },
		CALL3, { 2, LSD_EXIT_COND_TAKEN, 3 }, { 3, LSD_EXIT_JUMP, 4 },
		{ 4, LSD_EXIT_JUMP, 1 },
		{ 1, LSD_EXIT_COND_NOT, 5 }, { 5, LSD_EXIT_END, -1 },
	};
#undef CALL3
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";

		run(&R, b, 6, f, 1, s, ns, ref);
		TAP_EQ(R.err, 0, "cret, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x1014, 4, 8, 8, 8, "cret C");
		LOOP_EQ(&R, 0x1010, 1, 3, 6, 14, "cret H");
		TAP_EQ(trips_of(&R, 0x1014, 3), 2, "cret, %s: two C entries of 3 trips", w);
		TAP_EQ(edge_of(&R, 0x1010, 0x1014), 4, "cret, %s: every C entry under H", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 16, "cret, %s: 16 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "cret, %s: 2 outside loops", w);
		LEARNED_EQ(&R, ref, "cret", w, 0, 0);
		lsp_free(R.p);
	}
	batch = 1;
}

/* 12. A head whose own block returns, where its trie has the block
 * after a call the head made and that returned (the learning pass's
 * memo keys that block by the call collapsed, not by a return).  One
 * function, A calling into it:
 *   A 0x1000 (calls H), H 0x1010 (head; calls G, which returns to B),
 *   B 0x1014 (back to H), G 0x1020 (returns), E 0x1030: 1 instruction
 *   each.
 * A calls H; H's first three runs call G (G returns to B, B jumps back
 * to H); its fourth run returns itself, to B: not to A's call (whose
 * return address is 0x1004), so the frame A's call made pops, a return
 * to none of the frames (as a fuzzed or damaged stream may have it).
 * B then runs in A's frame, where H is not on the path: H is pushed
 * again, calls G, and B comes back: a loop at B.  H's sixth run leaves
 * to E.
 * Hand count: H, 1 entry of 4 iterations (in the frame A's call made),
 * self H 4 + B 3 + G 3 = 10, total 10; B, 1 entry of 2 iterations,
 * self B 2 + H 2 + G 1 = 5 (H under B: both one cycle), total 5; the
 * thread 17 instructions, A and E outside every loop, one return to no
 * frame.
 * The learning pass's memo: H's third run calls, its call's trie takes
 * G, and the iteration (B, H) that follows is kept with B after that
 * call collapsed; so is (B, H's fourth run) after the call of H's
 * third.  Keyed as after a return, the fourth run's own return walked
 * into them: B, then H's fifth run as an iteration of H in the frame
 * A's call made, which never popped, and the loop at B was never
 * learned (memocheck -s 10 -e 30 -k -y on a bzip2 recording). */
static void t_hret(int ref)
{
	static const struct bdef b[] = {
		{ 0x1000, 1, 0 }, { 0x1010, 1, 0 }, { 0x1014, 1, 0 }, { 0x1020, 1, 0 },
		{ 0x1030, 1, 0 },
	};
	static const uint64_t f[] = { 0x1000 };
#define HGB { 1, LSD_EXIT_CALL, 3 }, { 3, LSD_EXIT_RET, 2 }, { 2, LSD_EXIT_JUMP, 1 }
	static const struct step s[] = {
		{ 0, LSD_EXIT_CALL, 1 },
		HGB, HGB, HGB,
		{ 1, LSD_EXIT_RET, 2 }, { 2, LSD_EXIT_JUMP, 1 },
		HGB,
		{ 1, LSD_EXIT_COND_NOT, 4 }, { 4, LSD_EXIT_END, -1 },
	};
#undef HGB
	int ns = (int)(sizeof(s) / sizeof(s[0]));
	struct run R;

	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";

		run(&R, b, 5, f, 1, s, ns, ref);
		TAP_EQ(R.err, 0, "hret, %s (%s): the detector runs", w, mode(ref));
		LOOP_EQ(&R, 0x1010, 1, 4, 10, 10, "hret H");
		LOOP_EQ(&R, 0x1014, 1, 2, 5, 5, "hret B");
		TAP_EQ(trips_of(&R, 0x1010, 4), 1, "hret, %s: H's entry of 4 trips", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0, 17, "hret, %s: 17 instructions", w);
		TAP_EQ(R.p->n_threads ? R.p->threads[0].outside : 0, 2, "hret, %s: 2 outside loops", w);
		TAP_EQ(R.st.frame_mismatches, 1, "hret, %s (%s): one return to no frame", w, mode(ref));
		LEARNED_EQ(&R, ref, "hret", w, 0, 0);
		lsp_free(R.p);
	}
	batch = 1;
}

/* 13. A wide level of the learning memo (loops_fmatch.c): a nested
 * loop whose iterations hold more blocks of its function than a trie
 * lists (31), and one of them on the path below its head.  main (M0,
 * M1, M2) calls f twice; f: F 0x2000, O 0x2004 (outer head), A 0x2008,
 * H 0x200c (inner head: on to B1, or out to Z), B1 .. B32 0x2100 ..
 * 0x217c (B7 goes on to B8, or out to O; B32 jumps back to H), Z 0x2010
 * (back to O, or on to R), R 0x2014 (returns); every block 1
 * instruction.  Call 1: three outer iterations O A H (B1 .. B32 H) x2 Z:
 * the learning pass keeps the inner iterations (32 blocks of f besides
 * the head: H's trie lists none) and the outer one with them collapsed,
 * then matches the second and third outer iterations, each with the
 * inner loop's as a wide level.  Call 2: F jumps to B7, which goes out
 * to O: B7 is on f's path below O when O A H B1 .. B6 B7 come, a loop
 * back to B7 that the trie's inner iteration does not have; the wide
 * level must not take it (its check of B7 against the real path below
 * the outer head), and the per-block path finds B7's loop.  The oracle
 * is the reference path's profile of the same blocks (MREF, held to hand
 * counts by the scenarios above): every loop's entries, iterations, self
 * and total equal, and the second pass knows every loop and body block.
 * Without the check, the memo modes miss B7's loop. */
static void wide_steps(struct step *s, int *ns)
{
	int n = 0, o, i, k;

#define ST(b_, x_, n_) (s[n++] = (struct step){ (b_), (x_), (n_) })
	ST(0, LSD_EXIT_CALL, 3);
	ST(3, LSD_EXIT_FALL, 4);
	for (o = 0; o < 3; o++) {
		ST(4, LSD_EXIT_FALL, 5);
		ST(5, LSD_EXIT_FALL, 6);
		for (i = 0; i < 2; i++) {
			ST(6, LSD_EXIT_COND_NOT, 7);
			for (k = 7; k < 38; k++)
				ST(k, k == 13 ? LSD_EXIT_COND_NOT : LSD_EXIT_FALL, k + 1);
			ST(38, LSD_EXIT_JUMP, 6);
		}
		ST(6, LSD_EXIT_COND_TAKEN, 39);
		ST(39, o < 2 ? LSD_EXIT_COND_TAKEN : LSD_EXIT_COND_NOT, o < 2 ? 4 : 40);
	}
	ST(40, LSD_EXIT_RET, 1);
	ST(1, LSD_EXIT_CALL, 3);
	ST(3, LSD_EXIT_JUMP, 13);
	ST(13, LSD_EXIT_COND_TAKEN, 4);
	ST(4, LSD_EXIT_FALL, 5);
	ST(5, LSD_EXIT_FALL, 6);
	ST(6, LSD_EXIT_COND_NOT, 7);
	for (k = 7; k < 38; k++)
		ST(k, k == 13 ? LSD_EXIT_COND_NOT : LSD_EXIT_FALL, k + 1);
	ST(38, LSD_EXIT_JUMP, 6);
	ST(6, LSD_EXIT_COND_TAKEN, 39);
	ST(39, LSD_EXIT_COND_NOT, 40);
	ST(40, LSD_EXIT_RET, 2);
	ST(2, LSD_EXIT_END, -1);
#undef ST
	*ns = n;
}

static void t_wide(int ref)
{
	static struct bdef b[41];
	static struct step s[NSTEP];
	static const uint64_t f[] = { 0x1000, 0x2000 };
	static const uint64_t fixed[][2] = {
		{ 0x1000, 0 }, { 0x1004, 0 }, { 0x1008, 0 }, { 0x2000, 1 }, { 0x2004, 1 },
		{ 0x2008, 1 }, { 0x200c, 1 },
	};
	struct run R, E;
	int ns, i;

	for (i = 0; i < 7; i++)
		b[i] = (struct bdef){ fixed[i][0], 1, (uint32_t)fixed[i][1] };
	for (i = 7; i < 39; i++)
		b[i] = (struct bdef){ 0x2100 + 4 * (uint64_t)(i - 7), 1, 1 };
	b[39] = (struct bdef){ 0x2010, 1, 1 };
	b[40] = (struct bdef){ 0x2014, 1, 1 };
	wide_steps(s, &ns);
	for (batch = 1; batch <= ns; batch += ns - 1) {
		const char *w = batch == 1 ? "block by block" : "one batch";
		size_t j;

		run(&E, b, 41, f, 2, s, ns, MREF);
		run(&R, b, 41, f, 2, s, ns, ref);
		TAP_EQ(R.err, 0, "wide, %s (%s): the detector runs", w, mode(ref));
		TAP_EQ(E.err, 0, "wide, %s: the reference runs", w);
		if (R.err || E.err) {
			lsp_free(R.p);
			lsp_free(E.p);
			continue;
		}
		/* (the reference finds the outer loop, the inner one and
		 * B7's, which call 2 runs once: a loop back to B7) */
		TAP_OK(lstat_of(&E, 0x2118) != NULL, "wide, %s: the reference finds B7's loop", w);
		TAP_EQ(R.p->n_loops, E.p->n_loops, "wide, %s (%s): as many loops as the reference",
		       w, mode(ref));
		for (j = 0; j < E.p->n_loops; j++) {
			const uint64_t h = E.p->loops[j].head_off;
			const struct lsp_lstat *x = lstat_of(&R, h), *y = lstat_of(&E, h);

			TAP_OK(x && y && x->entries == y->entries && x->iterations == y->iterations &&
			       x->self == y->self && x->total == y->total,
			       "wide, %s (%s): the loop at %#llx as the reference has it", w,
			       mode(ref), (unsigned long long)h);
		}
		TAP_EQ(R.p->n_threads ? R.p->threads[0].insns : 0,
		       E.p->n_threads ? E.p->threads[0].insns : 1,
		       "wide, %s (%s): the thread's instructions", w, mode(ref));
		TAP_EQ(R.st.know_new, 0, "wide, %s (%s): the second pass knew every loop and body block",
		       w, mode(ref));
		if (LEARN_MEMO(ref))
			TAP_OK(R.lst.learn_wide > 0, "wide, %s (%s): the learning memo began a wide level",
			       w, mode(ref));
		lsp_free(R.p);
		lsp_free(E.p);
	}
	batch = 1;
}

int main(void)
{
	int ref;


	for (ref = MMEMO; ref <= MEAGER; ref++) {
		t_nest(ref);
		t_break(ref);
		t_recursion(ref);
		t_longjmp(ref);
		t_signal(ref);
		t_early(ref, 1);
		t_early(ref, 0);
		t_fmemo(ref);
		t_fcoll(ref);
		t_again(ref);
		t_flat(ref);
		t_async(ref);
		t_cret(ref);
		t_hret(ref);
		t_wide(ref);
	}
	return TAP_DONE();
}
