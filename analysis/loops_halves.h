/* loops_halves.h - the learning pass in halves (loops_halves.c, the
 * joiner and the pass; loops_hwork.c, the worker): what the two share. */
#ifndef LSA_LOOPS_HALVES_H
#define LSA_LOOPS_HALVES_H

#include <pthread.h>

#include "analysis/loops_int.h"

/* Whether the halves pay, the probe: before it learns, the worker
 * decodes from the cut with the calls and returns alone followed (the
 * joiner waits; a decode costs a tenth of a learning worker's first
 * blocks, which log every spine block: 2^18 of them cost the stencil 17
 * ms), window after window of HW_PROBE blocks.  They pay where a
 * window's share of blocks at the spine is 1 / HW_SPINE_DIV or less;
 * they do not where it is more and no less than the window's before
 * (the stencil and spmv of bench/ run their loops at the spine: all of
 * every window), nor after HW_PROBE_WINDOWS.  A share that falls is
 * waited out: a cut in a loop of the spine that then calls deeper
 * (bzip2's, 100% of its first window, 69% of its second, none of its
 * third). */
#define HW_PROBE (1u << 18)
#define HW_SPINE_DIV 2
#define HW_PROBE_WINDOWS 8
/* Blocks the worker learns past where the waiting joiner is before it
 * wakes it: woken at each batch, the joiner took a few blocks and slept
 * again, and the worker's wakes were 13% of its time on bzip2. */
#define HW_WAKE (1u << 16)

/* The probe's answer after window k (from 0) of w blocks, s of them at
 * the spine, the window before's share in 1/1024ths prev (of k > 0),
 * windows of win blocks: 1 the halves pay, -1 they do not, 0 another
 * window; *share gets this one's.  A window of fewer than win blocks is
 * the last (the stream ended): 1 or -1. */
int lsa_hw_probe_rule(unsigned k, uint64_t w, uint64_t s, uint64_t prev, uint64_t win,
		      uint64_t *share);
/* Spine blocks the joiner has not taken yet, at most (24 bytes each,
 * 48 MiB): past it the worker stops at the next spine block.  bzip2's
 * second half has 1.9M; xz's 38K. */
#define HW_SPMAX (1u << 21)
/* Events the joiner has not taken yet, at most (88 bytes each,
 * 23 MiB): past it the worker stops at the next spine block (a spine
 * that calls and calls: sqlite3's second half makes 7,076 excursions,
 * two events each). */
#define HW_EVMAX (1u << 18)
/* Chunks a stream needs for the halves, at least: the twin, the probe
 * and the log cost about as much as they save on sqlite3's 12 chunks
 * of 1 MiB (bench/), and more on fewer. */
#define HW_MINCHUNKS 16

enum { HE_BEGIN, HE_SNAP, HE_END, HE_CHUNK };

/* A block as the worker saw it (the twin's static block). */
struct hblk {
	const struct lsd_sblock *sb;
	uint64_t next;
	uint8_t exit;
};

struct hfact {
	int kind;
	const struct lsd_sblock *a, *b;
};

/* A frame and a path entry of the worker's at a chunk's start, its
 * functions as blocks of them (the worker's numbers are its own). */
struct hsfr {
	uint64_t ret;
	uint32_t base;
	int async;
	const struct lsd_sblock *func, *cur;
};
struct hspe {
	const struct lsd_sblock *sb, *callee;
	uint64_t lb;
	int call;		/* 0: no call, 1: to an unknown function, 2: callee's */
};
struct hsnap {
	uint64_t deep, gaps, pnext;
	const struct lsd_sblock *psb;
	uint8_t pexit;
	int landing;
	uint32_t nfr, npe;	/* the excursion's: frames 1 .. of the worker */
	struct hsfr *fr;
	struct hspe *pe;
};

struct hev {
	int kind;
	uint64_t at;		/* the worker's blocks before it */
	size_t chunk;		/* HE_SNAP, HE_CHUNK */
	struct hblk blk;	/* HE_BEGIN: its block; HE_END: the last */
	size_t f0, nf;		/* HE_END: its facts */
	uint64_t gaps;		/* the worker's holes: after the first block,
				 * at the snapshot, at the end */
	uint32_t maxfr;		/* HE_END: the most frames the worker held */
	struct hsnap *s;
};

struct lsa_hw {
	struct lsa_loops *l;	/* the joiner's pass */
	size_t stream, c0, nc;
	pthread_t th;
	int started;
	pthread_mutex_t mu, symlock;
	pthread_cond_t cv;
	/* the worker's */
	struct lsd_decoder *tw;
	struct lsa_loops *lw;
	struct lsa_know *kw;
	struct lsa_thr *t;
	const struct lsd_block *batch;
	size_t nb;
	uint64_t bpos, pos;
	int open;		/* an excursion open, begun at ob */
	uint64_t ob;
	size_t of0;
	uint32_t maxfr;
	int stopping, bad;
	struct hblk *lsp;	/* spine blocks not yet handed over */
	size_t nlsp, caplsp;
	/* shared, under mu */
	struct hev *ev;
	size_t nev, capev, evhead;
	struct hfact *fa;
	size_t nfa, capfa;
	struct hblk *sp;	/* the spine's blocks, in order */
	size_t nsp, capsp, sphead;
	uint64_t mark;		/* the worker's blocks it has placed */
	int jwait;		/* the joiner waits for mark to reach jwant */
	uint64_t jwant;
	int probe;		/* 0: not known yet; 1: go on; -1: not */
	unsigned pwin;		/* the probe's windows (set with probe) */
	int fin, taint, quit, werr;
	size_t nevok;		/* fin: the events that hold (before fin_at) */
	int whole;		/* fin: the worker learned to the stream's end */
	int force;		/* LOOPSCOPE_HALVES=1: whatever the spine */
	uint64_t fin_at;	/* fin: the blocks the worker placed */
	size_t snapbytes;
	/* the joiner's */
	int jin, off;
	uint64_t base, jq, wgaps0;
	struct lsd_block *jb;	/* spine blocks named, to learn */
	struct hblk *jw;	/* ... as the worker's log has them */
	size_t capjb;
	uint64_t nskip_off;	/* blocks the joiner's own decode drops first */
	uint64_t nexc, nskip;
};

/* loops_hwork.c: the worker's thread (arg: the struct lsa_hw), and
 * what event e holds freed (h->mu held). */
void *lsa_hw_main(void *arg);
void lsa_hw_ev_free(struct lsa_hw *h, struct hev *e);

#endif
