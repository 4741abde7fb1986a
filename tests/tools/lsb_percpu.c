/* lsb_percpu.c - a per-CPU bundle, as `perf record -a -e intel_pt//u`
 * with context-switch sideband writes one, made from per-thread sw
 * recordings, so that a decoder following the switches can be tested
 * exactly where there is no PT hardware:
 *   lsb_percpu [-c NCPU] [-m] [-r RUN] [-k CHUNK] OUT.lsc IN.lsc...
 *
 * The inputs must be recorded with `loopscope record --no-retcomp` (meta
 * pt.retcomp 0): a compressed return may pop a call pushed in an earlier
 * segment of its thread, which libipt cannot follow once other threads'
 * segments come between.
 *
 * Each input thread stream is cut into segments, from a TIP.PGE (or the
 * stream start) through the next TIP.PGD (sync, or FUP + TIP.PGD).  The
 * segments are scheduled onto NCPU streams (kind LSB_STREAM_CPU, id =
 * cpu), each thread's in its own order: round robin over the threads
 * (inputs in order, their streams in order), the j-th run of a thread
 * being max(1, RUN - 1 + j % 3) consecutive segments (RUN default 2, so
 * 1, 2, 3, 1, ...).  Thread t runs on cpu t % NCPU, or with -m its j-th
 * run on cpu (t + j) % NCPU.  Only one segment runs at a time, each in a
 * slot of 10 us plus 1 us per PSB+ inside it, so every TSC and event time
 * increases and a thread never runs on two CPUs at once.
 *
 * Every output segment starts with PSB, TSC, PSBEND (tracing is off
 * there, so no FUP) and every PSB+ inside a segment (tracing on) becomes
 * PSB, its MODE and FUP packets, TSC, PSBEND: hardware puts a TSC into
 * every PSB+, and a decoder needs the time wherever it may sync.  IP
 * packets get full IPs (sext-48, or full if not canonical), since the
 * last IP of the input does not survive the cut; PAD and the PSB+s
 * between a TIP.PGD and the next TIP.PGE are dropped.
 *
 * Sideband per run of thread T on cpu c, as perf's SWITCH_CPU_WIDE gives
 * it (times in perf ns, from the TSC by perf's tsc_to_perf_time with the
 * time.shift/mult/zero of testdata-real/quipper, written as meta):
 *   switch-out of the idle task (pid 0)      switch-in - 1500 ns
 *   ITRACE_START of T (first run of T on c)  switch-in - 1000 ns
 *   switch-in of T                           its first TSC + 600 ns
 *   switch-out of T                          its last TIP.PGD - 2000 ns
 *   switch-in of the idle task               switch-out + 400 ns
 * (the TIP.PGD's time being its slot's end - 1 us), so 4 switch events a
 * run.  Segments of a run after its first continue the thread on its cpu
 * after a system call: no sideband.
 *
 * Modules and traced-run events of every input are copied as lsb_merge
 * does (input k's pids and tids moved up by k * 5000000); meta data is the
 * first input's plus time.shift/mult/zero (not with -T: a recording whose
 * PT time cannot be matched with the sideband).  The writer cuts chunks at
 * PSBs, at least CHUNK bytes each (-k, default 1 MiB); afterwards every
 * chunk is checked to start at a PSB.  Prints
 *   threads T segments S runs R switches W itrace I
 *   cpu C bytes B chunks N psb_chunks P      (one per cpu)
 * Exit 0; 1 if a chunk does not start at a PSB; 2 on other errors. */
#include <errno.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle.h"
#include "ls_err.h"
#include "lsb_copy.h"

/* perf's TSC conversion of the quipper recording (a Core m7-6Y75,
 * 1.2 GHz TSC). */
#define TIME_SHIFT 31u
#define TIME_MULT 1789569706ull
#define TIME_ZERO 18446744041015200657ull

#define T0_NS 1000000000000ull	/* 1000 s of perf time: the first slot */
#define STEP_NS 10000u		/* a segment's slot ... */
#define PSB_NS 1000u		/* ... and more per PSB+ inside it */
#define TSC_NS 1400u		/* a slot's start to its segment's TSC */
#define IN_NS 600u		/* that TSC to the switch-in event */
#define END_NS 1000u		/* the TIP.PGD to the slot's end */
#define OUT_NS 2000u		/* the switch-out event to the TIP.PGD */
#define ITRACE_NS 1000u		/* the ITRACE_START to the switch-in */
#define IDLE_OUT_NS 1500u	/* the idle task's switch-out to the switch-in */
#define IDLE_IN_NS 400u		/* the switch-out to the idle task's switch-in */
#define MAX_CPU 64u
#define MAX_PRE 1024u		/* bytes between a TIP.PGD and a TIP.PGE */

struct seg {
	size_t off, len;	/* bytes in the thread's rewritten stream */
	size_t tsc, ntsc;	/* its TSC packets: tscs[tsc .. tsc + ntsc) */
};

struct thr {
	uint32_t pid, tid;	/* moved */
	uint8_t *pt;		/* the segments, rewritten, back to back */
	size_t len, cap;
	size_t *tscs;		/* offsets of the TSC packets in pt */
	size_t ntscs, captscs;
	struct seg *seg;
	size_t nseg, capseg;
	size_t next;		/* next segment to run */
	uint32_t runs;
	uint8_t oncpu[MAX_CPU];	/* has run there: ITRACE_START written */
};

/* Rewriting one input stream. */
struct rw {
	struct thr *t;
	struct pt_encoder *enc;
	uint8_t scratch[64];
	uint64_t last_ip;	/* the input's IP compression reference */
	int on;			/* tracing on: inside a segment */
	int in_psb, psb_fup;	/* inside PSB+; it had a FUP */
	uint8_t psb[MAX_PRE];	/* PSB+ contents, rewritten */
	size_t npsb;
	uint8_t pre[MAX_PRE];	/* packets while off (MODE.Exec before PGE) */
	size_t npre;
	uint64_t ends_on;	/* streams that end with tracing on */
};

/* p with room for need elements of elem bytes (*cap of them), or NULL
 * (p is then still valid). */
static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	if (!(p = realloc(p, ncap * elem)))
		return NULL;
	*cap = ncap;
	return p;
}

static int put(struct thr *t, const void *b, size_t n)
{
	uint8_t *p = grow(t->pt, &t->cap, t->len + n, 1);

	if (!p)
		return -LS_ENOMEM;
	t->pt = p;
	memcpy(t->pt + t->len, b, n);
	t->len += n;
	return 0;
}

/* libipt's pt_last_ip_update_ip(): the full IP of an IP packet.  The
 * update forms replace the low 16, 32 or 48 bits of the last IP. */
static uint64_t full_ip(uint64_t last, const struct pt_packet_ip *ip)
{
	unsigned low = ip->ipc == pt_ipc_update_16 ? 16 :
		       ip->ipc == pt_ipc_update_32 ? 32 :
		       ip->ipc == pt_ipc_update_48 ? 48 : 0;
	uint64_t mask = (1ull << low) - 1;

	if (ip->ipc == pt_ipc_sext_48)
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	if (!low)
		return ip->ip;
	return (last & ~mask) | (ip->ip & mask);
}

/* Encodes p into rw->scratch; returns its size. */
static int encode(struct rw *rw, const struct pt_packet *p)
{
	int n = pt_enc_sync_set(rw->enc, 0);

	if (n >= 0)
		n = pt_enc_next(rw->enc, p);
	return n < 0 ? -LS_EFORMAT : n;
}

/* An IP packet with its full IP: the next reference is then irrelevant. */
static int encode_ip(struct rw *rw, struct pt_packet *p)
{
	uint64_t ip;

	if (p->payload.ip.ipc != pt_ipc_suppressed) {
		ip = full_ip(rw->last_ip, &p->payload.ip);
		rw->last_ip = ip;
		p->payload.ip.ip = ip;
		p->payload.ip.ipc = (uint64_t)((int64_t)(ip << 16) >> 16) == ip ?
				    pt_ipc_sext_48 : pt_ipc_full;
	}
	return encode(rw, p);
}

/* A TSC packet whose value is set when the segment is scheduled. */
static int put_tsc(struct rw *rw)
{
	struct thr *t = rw->t;
	struct pt_packet p;
	size_t *tscs = grow(t->tscs, &t->captscs, t->ntscs + 1, sizeof(*tscs));
	int n;

	if (!tscs)
		return -LS_ENOMEM;
	t->tscs = tscs;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	if ((n = encode(rw, &p)) < 0)
		return n;
	t->tscs[t->ntscs++] = t->len;
	return put(t, rw->scratch, (size_t)n);
}

static int put_type(struct rw *rw, enum pt_packet_type type)
{
	struct pt_packet p;
	int n;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if ((n = encode(rw, &p)) < 0)
		return n;
	return put(rw->t, rw->scratch, (size_t)n);
}

static int seg_open(struct rw *rw)
{
	struct thr *t = rw->t;
	struct seg *seg = grow(t->seg, &t->capseg, t->nseg + 1, sizeof(*seg));

	if (!seg)
		return -LS_ENOMEM;
	t->seg = seg;
	t->seg[t->nseg].off = t->len;
	t->seg[t->nseg].tsc = t->ntscs;
	rw->on = 1;
	return 0;
}

static void seg_close(struct rw *rw)
{
	struct thr *t = rw->t;
	struct seg *s = &t->seg[t->nseg++];

	s->len = t->len - s->off;
	s->ntsc = t->ntscs - s->tsc;
	rw->on = 0;
}

/* PSBEND: a PSB+ with tracing on becomes PSB, its packets, TSC, PSBEND.
 * One with tracing off is dropped: the next segment brings its own. */
static int psb_end(struct rw *rw)
{
	int err;

	rw->in_psb = 0;
	if (!rw->on && !rw->psb_fup)
		return 0;
	/* A FUP in PSB+ says tracing is on: a stream that starts so starts
	 * its first segment here. */
	if (!rw->on && (err = seg_open(rw)) < 0)
		return err;
	if ((err = put_type(rw, ppt_psb)) < 0 ||
	    (err = put(rw->t, rw->psb, rw->npsb)) < 0 ||
	    (err = put_tsc(rw)) < 0)
		return err;
	return put_type(rw, ppt_psbend);
}

static int add(uint8_t *buf, size_t *n, const void *b, size_t len)
{
	if (*n + len > MAX_PRE)
		return -LS_ELIMIT;
	memcpy(buf + *n, b, len);
	*n += len;
	return 0;
}

/* One input packet, raw at b (size n). */
static int packet(struct rw *rw, struct pt_packet *p, const uint8_t *b, size_t n)
{
	uint8_t ip[sizeof(rw->scratch)];
	int k, err;
	int is_ip = p->type == ppt_tip || p->type == ppt_fup ||
		    p->type == ppt_tip_pge || p->type == ppt_tip_pgd;

	if (p->type == ppt_pad)
		return 0;
	/* a copy: the PSB+ a TIP.PGE opens reuses the scratch buffer */
	if (is_ip) {
		if ((k = encode_ip(rw, p)) < 0)
			return k;
		memcpy(ip, rw->scratch, (size_t)k);
		b = ip;
		n = (size_t)k;
	}
	if (rw->in_psb) {
		if (p->type == ppt_psbend)
			return psb_end(rw);
		rw->psb_fup |= p->type == ppt_fup &&
			       p->payload.ip.ipc != pt_ipc_suppressed;
		return add(rw->psb, &rw->npsb, b, n);
	}
	switch (p->type) {
	case ppt_psb:
		rw->in_psb = 1;
		rw->psb_fup = 0;
		rw->npsb = 0;
		rw->last_ip = 0;
		return 0;
	case ppt_tip_pge:
		if (rw->on)
			break;
		if ((err = seg_open(rw)) < 0 ||
		    (err = put_type(rw, ppt_psb)) < 0 ||
		    (err = put_tsc(rw)) < 0 ||
		    (err = put_type(rw, ppt_psbend)) < 0 ||
		    (err = put(rw->t, rw->pre, rw->npre)) < 0)
			return err;
		rw->npre = 0;
		break;
	case ppt_tip_pgd:
		if (!rw->on)
			break;
		if ((err = put(rw->t, b, n)) < 0)
			return err;
		seg_close(rw);
		return 0;
	default:
		break;
	}
	if (!rw->on)
		return add(rw->pre, &rw->npre, b, n);
	return put(rw->t, b, n);
}

static int rewrite(struct rw *rw, const uint8_t *buf, size_t len)
{
	/* what pt_config_init() sets, and the buffer */
	struct pt_config cfg = { .size = sizeof(cfg), .begin = (uint8_t *)buf,
				 .end = (uint8_t *)buf + len };
	struct pt_packet_decoder *d = pt_pkt_alloc_decoder(&cfg);
	struct pt_packet p;
	uint64_t off = 0;
	int n, err = 0;

	if (!d)
		return -LS_ENOMEM;
	n = pt_pkt_sync_set(d, 0);
	while (n >= 0 && err >= 0) {
		pt_pkt_get_offset(d, &off);
		n = pt_pkt_next(d, &p, sizeof(p));
		if (n > 0)
			err = packet(rw, &p, buf + off, (size_t)n);
	}
	pt_pkt_free_decoder(d);
	if (err < 0)
		return err;
	if (n != -pte_eos)
		return -LS_ECORRUPT;
	if (rw->on) {
		seg_close(rw);
		rw->ends_on++;
	}
	return 0;
}

struct out {
	struct lsb_writer *w;
	uint32_t ncpu, run;
	int migrate;
	uint64_t now;		/* perf time of the next slot */
	uint64_t nseg, runs, switches, itrace;
};

/* perf's tsc_to_perf_time(), modulo 2^64 as perf computes it. */
static uint64_t perf_time(uint64_t tsc)
{
	return TIME_ZERO + (tsc >> TIME_SHIFT) * TIME_MULT +
	       (((tsc & ((1ull << TIME_SHIFT) - 1)) * TIME_MULT) >> TIME_SHIFT);
}

/* perf's perf_time_to_tsc(): the last TSC at or before ns. */
static uint64_t tsc_at(uint64_t ns)
{
	uint64_t t = ns - TIME_ZERO;

	return ((t / TIME_MULT) << TIME_SHIFT) +
	       ((t % TIME_MULT) << TIME_SHIFT) / TIME_MULT;
}

static int event(struct out *o, uint16_t type, const struct thr *t,
		 uint32_t cpu, uint64_t time, uint32_t arg)
{
	struct lsb_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.run = LSB_RUN_TRACE;
	e.pid = t ? t->pid : 0;
	e.tid = t ? t->tid : 0;
	e.cpu = (int32_t)cpu;
	e.time = time;
	e.arg = arg;
	if (type == LSB_EV_SWITCH)
		o->switches++;
	else
		o->itrace++;
	return lsb_writer_event(o->w, &e);
}

/* One segment in the next slot, with the sideband of a run's start
 * (first) and end (last). */
static int run_seg(struct out *o, struct thr *t, uint32_t cpu, int first,
		   int last)
{
	struct seg *s = &t->seg[t->next++];
	uint64_t slot = o->now, tin = 0, tsc, tout;
	size_t j, i;
	int err = 0;

	o->now += STEP_NS + (s->ntsc ? s->ntsc - 1 : 0) * (uint64_t)PSB_NS;
	for (j = 0; j < s->ntsc; j++) {
		uint8_t *p = t->pt + t->tscs[s->tsc + j] + 1;	/* after 0x19 */

		tsc = tsc_at(slot + TSC_NS + j * (uint64_t)PSB_NS);
		if (j == 0)
			tin = perf_time(tsc) + IN_NS;
		for (i = 0; i < 7; i++)
			p[i] = (uint8_t)(tsc >> (8 * i));
	}
	if (first) {
		if ((err = event(o, LSB_EV_SWITCH, NULL, cpu, tin - IDLE_OUT_NS,
				 LSB_SWITCH_OUT)) < 0)
			return err;
		if (!t->oncpu[cpu] &&
		    (err = event(o, LSB_EV_ITRACE_START, t, cpu, tin - ITRACE_NS, 0)) < 0)
			return err;
		t->oncpu[cpu] = 1;
		if ((err = event(o, LSB_EV_SWITCH, t, cpu, tin, 0)) < 0)
			return err;
	}
	if ((err = lsb_writer_pt(o->w, cpu, t->pt + s->off, s->len)) < 0)
		return err;
	o->nseg++;
	if (last) {
		tout = o->now - END_NS - OUT_NS;
		if ((err = event(o, LSB_EV_SWITCH, t, cpu, tout, LSB_SWITCH_OUT)) < 0 ||
		    (err = event(o, LSB_EV_SWITCH, NULL, cpu, tout + IDLE_IN_NS, 0)) < 0)
			return err;
	}
	return 0;
}

static uint32_t run_len(uint32_t j, uint32_t run)
{
	uint32_t n = run - 1 + j % 3;

	return n ? n : 1;
}

static int schedule(struct out *o, struct thr *th, size_t nth)
{
	size_t i, left = 0;
	int err;

	for (i = 0; i < nth; i++)
		left += th[i].nseg;
	while (left) {
		for (i = 0; i < nth; i++) {
			struct thr *t = &th[i];
			uint32_t n = run_len(t->runs, o->run), k;
			uint32_t cpu = (uint32_t)((i + (o->migrate ? t->runs : 0)) % o->ncpu);

			if (t->next == t->nseg)
				continue;
			for (k = 0; k < n && t->next < t->nseg; k++, left--) {
				int last = k + 1 == n || t->next + 1 == t->nseg;

				if ((err = run_seg(o, t, cpu, k == 0, last)) < 0)
					return err;
			}
			t->runs++;
			o->runs++;
		}
	}
	return 0;
}

/* Input k: meta (k == 0), modules, events; its thread streams rewritten
 * into threads appended to *th. */
static int read_input(struct lsb_writer *w, const char *path, uint32_t k,
		      struct thr **th, size_t *nth, size_t *capth, struct rw *rw)
{
	struct lsb_reader *r = NULL;
	uint32_t shift = k * LSB_COPY_PID_STEP;
	uint8_t *buf = NULL, *all = NULL;
	size_t cap = 0, allcap = 0, alllen, i, j;
	const char *v;
	int said = 0, err = lsb_reader_open(&r, path);

	if (err < 0)
		goto out;
	v = lsb_reader_meta(r, "backend");
	if (!v || strcmp(v, "sw")) {
		fprintf(stderr, "lsb_percpu: %s: not a sw recording (backend %s)\n",
			path, v ? v : "unknown");
		said = 1;
		err = -LS_EINVAL;
		goto out;
	}
	v = lsb_reader_meta(r, "pt.retcomp");
	if (!v || strcmp(v, "0")) {
		fprintf(stderr, "lsb_percpu: %s: returns may be compressed (meta pt.retcomp %s); "
			"record it with 'loopscope record --no-retcomp'\n", path, v ? v : "missing");
		said = 1;
		err = -LS_EINVAL;
		goto out;
	}
	if ((k == 0 && (err = lsb_copy_meta(r, w)) < 0) ||
	    (err = lsb_copy_modules(r, w)) < 0 ||
	    (err = lsb_copy_events(r, w, shift)) < 0)
		goto out;
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		struct thr *t;

		if (s->kind != LSB_STREAM_THREAD)
			continue;
		if (!(t = grow(*th, capth, *nth + 1, sizeof(*t)))) {
			err = -LS_ENOMEM;
			goto out;
		}
		*th = t;
		t = &(*th)[(*nth)++];
		memset(t, 0, sizeof(*t));
		t->pid = lsb_copy_moved(s->pid, shift);
		t->tid = lsb_copy_moved(s->tid, shift);
		for (j = 0, alllen = 0; j < lsb_reader_nchunks(r, i); j++) {
			int64_t n = lsb_copy_chunk(r, i, j, &buf, &cap);

			if (n < 0) {
				err = (int)n;
				goto out;
			}
			uint8_t *p = grow(all, &allcap, alllen + (size_t)n, 1);

			if (!p) {
				err = -LS_ENOMEM;
				goto out;
			}
			all = p;
			memcpy(all + alllen, buf, (size_t)n);
			alllen += (size_t)n;
		}
		rw->t = t;
		rw->last_ip = 0;
		rw->on = rw->in_psb = rw->psb_fup = 0;
		rw->npsb = rw->npre = 0;
		if ((err = rewrite(rw, all, alllen)) < 0) {
			fprintf(stderr, "lsb_percpu: %s: stream %" PRIu32 ": %s\n",
				path, s->id, err == -LS_ECORRUPT ?
				"libipt cannot parse it" : ls_errstr(err));
			said = 1;
			goto out;
		}
	}
out:
	if (err < 0 && !said)
		fprintf(stderr, "lsb_percpu: %s: %s\n", path, r && *lsb_reader_errmsg(r) ?
			lsb_reader_errmsg(r) : ls_errstr(err));
	free(buf);
	free(all);
	lsb_reader_close(r);
	return err;
}

/* Every chunk of OUT must start at a PSB; prints the per-cpu lines. */
static int check_chunks(const char *path)
{
	struct lsb_reader *r = NULL;
	size_t i, j;
	int bad = 0;

	if (lsb_reader_open(&r, path) < 0) {
		fprintf(stderr, "lsb_percpu: %s: %s\n", path, r ? lsb_reader_errmsg(r) : "cannot open");
		lsb_reader_close(r);
		return 2;
	}
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		uint64_t bytes = 0, psb = 0, n = lsb_reader_nchunks(r, i);

		for (j = 0; j < n; j++) {
			const struct lsb_chunk *c = lsb_reader_chunk(r, i, j);

			bytes += c->raw_size;
			psb += (c->flags & LSB_CHUNK_PSB) != 0;
		}
		printf("cpu %" PRId32 " bytes %" PRIu64 " chunks %" PRIu64
		       " psb_chunks %" PRIu64 "\n", s->cpu, bytes, n, psb);
		if (psb != n) {
			fprintf(stderr, "lsb_percpu: cpu %" PRId32 ": %" PRIu64
				" chunks do not start at a PSB; use a larger -k\n",
				s->cpu, n - psb);
			bad = 1;
		}
	}
	lsb_reader_close(r);
	return bad;
}

static int number(const char *s, unsigned long min, unsigned long max,
		  uint32_t *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || end == s || *end || n < min || n > max)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

int main(int argc, char **argv)
{
	struct lsb_writer_opts wo;
	struct lsb_writer *w = NULL;
	struct out o;
	struct rw rw;
	struct pt_config cfg;
	struct thr *th = NULL;
	size_t nth = 0, capth = 0, i;
	char opts[64];
	int c, err = 0, notime = 0;
	uint32_t k;

	memset(&o, 0, sizeof(o));
	memset(&wo, 0, sizeof(wo));
	memset(&rw, 0, sizeof(rw));
	wo.size = sizeof(wo);
	o.ncpu = 2;
	o.run = 2;
	o.now = T0_NS;
	while ((c = getopt(argc, argv, "c:mr:k:T")) != -1) {
		if ((c == 'c' && number(optarg, 1, MAX_CPU, &o.ncpu)) ||
		    (c == 'r' && number(optarg, 1, 1000, &o.run)) ||
		    (c == 'k' && number(optarg, LSB_MIN_CHUNK, 32u << 20, &wo.chunk_size)) ||
		    c == '?')
			goto usage;
		if (c == 'm')
			o.migrate = 1;
		if (c == 'T')
			notime = 1;
	}
	if (argc - optind < 2)
		goto usage;
	if ((err = lsb_writer_open(&w, argv[optind], &wo)) < 0) {
		fprintf(stderr, "lsb_percpu: %s: %s\n", argv[optind], ls_errstr(err));
		return 2;
	}
	o.w = w;
	pt_config_init(&cfg);
	cfg.begin = rw.scratch;
	cfg.end = rw.scratch + sizeof(rw.scratch);
	rw.enc = pt_alloc_encoder(&cfg);
	if (!rw.enc)
		return 2;
	for (k = 0; (int)k < argc - optind - 1 && err >= 0; k++)
		err = read_input(w, argv[optind + 1 + k], k, &th, &nth, &capth, &rw);
	snprintf(opts, sizeof(opts), "-c %" PRIu32 "%s -r %" PRIu32, o.ncpu,
		 o.migrate ? " -m" : "", o.run);
	if (err >= 0 && !notime &&
	    ((err = lsb_writer_meta(w, "time.shift", "31")) < 0 ||
	     (err = lsb_writer_meta(w, "time.mult", "1789569706")) < 0 ||
	     (err = lsb_writer_meta(w, "time.zero", "18446744041015200657")) < 0))
		fprintf(stderr, "lsb_percpu: %s\n", lsb_writer_errmsg(w));
	if (err >= 0 && (err = lsb_writer_meta(w, "lsb_percpu", opts)) < 0)
		fprintf(stderr, "lsb_percpu: %s\n", lsb_writer_errmsg(w));
	for (k = 0; k < o.ncpu && err >= 0; k++) {
		struct lsb_stream s = { k, LSB_STREAM_CPU, 0, 0, (int32_t)k, 0 };

		err = lsb_writer_stream(w, &s);
	}
	if (err >= 0 && (err = schedule(&o, th, nth)) < 0)
		fprintf(stderr, "lsb_percpu: %s\n", lsb_writer_errmsg(w));
	for (k = 0; k < o.ncpu && err >= 0; k++)
		err = lsb_writer_stream_end(w, k);
	pt_free_encoder(rw.enc);
	for (i = 0; i < nth; i++) {
		free(th[i].pt);
		free(th[i].tscs);
		free(th[i].seg);
	}
	free(th);
	c = lsb_writer_close(w);
	if (err < 0 || c < 0) {
		if (err >= 0)
			fprintf(stderr, "lsb_percpu: %s: %s\n", argv[optind], ls_errstr(c));
		unlink(argv[optind]);
		return 2;
	}
	printf("threads %zu segments %" PRIu64 " runs %" PRIu64 " switches %" PRIu64
	       " itrace %" PRIu64 "\n", nth, o.nseg, o.runs, o.switches, o.itrace);
	if (rw.ends_on)
		printf("ends_enabled %" PRIu64 "\n", rw.ends_on);
	return check_chunks(argv[optind]);
usage:
	fprintf(stderr, "usage: lsb_percpu [-c NCPU] [-m] [-r RUN] [-k CHUNK] [-T] OUT.lsc IN.lsc...\n");
	return 2;
}
