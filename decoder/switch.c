/* switch.c - which thread a per-CPU stream runs, from the sideband.
 *
 * A per-CPU stream holds every traced thread that ran on its CPU, one
 * after the other.  Control passes between them only while tracing is
 * off: the switch-out disables tracing (TIP.PGD), the switch-in enables it
 * again (TSC, then TIP.PGE).  So the decoder asks who runs at each enable
 * and at each PSB it syncs at, by the PT time there (libipt's, from TSC
 * and MTC packets) against the switch events' perf times converted to TSC
 * with the recording's time.shift, time.mult and time.zero.
 *
 * The switch event is written after the enable it belongs to: on real
 * hardware (testdata-real/quipper) the TSC at a TIP.PGE converts to about
 * 0.6 us before its switch-in event, and the TIP.PGD comes about 2 us after
 * its switch-out.  Hence the rule, lsd_switch_at(): at time t, if the last
 * event on the CPU at or before t switched a thread in, that thread runs
 * (it was switched in and has not left: tracing resumes after a system
 * call or an interrupt); otherwise (a switch-out, or nothing yet) the next
 * thread switched in on the CPU does, whose enable this is.  At a PSB in
 * the middle of a thread's run (tracing on) after a switch-out, the one
 * switched out, unless the next switch-in is much nearer in time.  The
 * decoder asks at a PSB only where it does not know the thread (the first
 * sync of a decode, a sync after a loss); elsewhere the thread can change
 * at an enable only.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_buf.h"
#include "ls_err.h"

struct tl_build {
	struct lsd_decoder *d;
	uint64_t shift, mult, zero;
	uint64_t tsc_offset;	/* import --pevent:tsc-offset: events earlier */
	int err;
};

/* perf's perf_time_to_tsc(): the inverse of
 * time = zero + (tsc >> shift) * mult + ((tsc & mask) * mult >> shift). */
static uint64_t perf_to_tsc(const struct tl_build *b, uint64_t ns)
{
	uint64_t t = ns - b->zero, quot = t / b->mult, rem = t % b->mult;

	return (quot << b->shift) + (rem << b->shift) / b->mult;
}

static int tl_add(struct lsd_timeline *tl, const struct lsd_swent *e)
{
	if (LS_GROW(tl->e, tl->n + 1, tl->cap, 64))
		return -LS_ENOMEM;
	tl->e[tl->n++] = *e;
	return 0;
}

static int on_event(const struct lsb_event *ev, void *arg)
{
	struct tl_build *b = arg;
	struct lsd_decoder *d = b->d;
	struct lsd_swent e;
	size_t i, n = lsb_reader_nstreams(d->r);

	if (ev->run != LSB_RUN_TRACE || ev->cpu < 0 ||
	    (ev->type != LSB_EV_SWITCH && ev->type != LSB_EV_ITRACE_START))
		return 0;
	memset(&e, 0, sizeof(e));
	e.tsc = perf_to_tsc(b, ev->time);
	e.tsc = e.tsc > b->tsc_offset ? e.tsc - b->tsc_offset : 0;
	e.pid = ev->pid;
	e.tid = ev->tid;
	e.in = ev->type == LSB_EV_ITRACE_START || !(ev->arg & LSB_SWITCH_OUT);
	e.seq = (uint32_t)d->nswitch++;
	for (i = 0; i < n; i++) {
		const struct lsb_stream *s = lsb_reader_stream(d->r, i);

		if (s->kind == LSB_STREAM_CPU && s->cpu == ev->cpu &&
		    (b->err = tl_add(&d->tl[i], &e)) < 0)
			return 1;
	}
	return 0;
}

/* By time; at the same time in the order recorded (a switch-out is
 * written before the switch-in that follows it). */
static int cmp_ent(const void *a, const void *b)
{
	const struct lsd_swent *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int meta_u64(struct lsb_reader *r, const char *key, uint64_t *v)
{
	const char *s = lsb_reader_meta(r, key);
	char *end;

	if (!s || !*s)
		return 0;
	*v = strtoull(s, &end, 0);
	return !*end;
}

int lsd_switch_build(struct lsd_decoder *d)
{
	size_t n = lsb_reader_nstreams(d->r), i;
	struct tl_build b = { d, 0, 0, 0, 0, 0 };
	int any = 0, err;

	for (i = 0; i < n; i++)
		any |= lsb_reader_stream(d->r, i)->kind == LSB_STREAM_CPU;
	/* Without the conversion there is no PT time for the events. */
	if (!any || !meta_u64(d->r, "time.shift", &b.shift) ||
	    !meta_u64(d->r, "time.mult", &b.mult) ||
	    !meta_u64(d->r, "time.zero", &b.zero) || !b.mult || b.shift > 63)
		return 0;
	(void)meta_u64(d->r, "time.tsc_offset", &b.tsc_offset);
	d->tl = calloc(n, sizeof(*d->tl));
	if (!d->tl)
		return -LS_ENOMEM;
	err = lsb_reader_events(d->r, on_event, &b);
	if (b.err < 0)
		return b.err;
	if (err < 0)
		return err;
	for (i = 0; i < n; i++) {
		struct lsd_timeline *tl = &d->tl[i];
		size_t k, next = SIZE_MAX;

		if (!tl->n)
			continue;
		qsort(tl->e, tl->n, sizeof(*tl->e), cmp_ent);
		/* Each event's next switch-in, so that a lookup is a search. */
		for (k = tl->n; k-- > 0; ) {
			if (tl->e[k].in)
				next = k;
			tl->e[k].next_in = next == SIZE_MAX ? UINT32_MAX : (uint32_t)next;
		}
	}
	return 0;
}

void lsd_switch_release(struct lsd_decoder *d)
{
	size_t i;

	for (i = 0; d->tl && i < lsb_reader_nstreams(d->r); i++)
		free(d->tl[i].e);
	free(d->tl);
	d->tl = NULL;
}

const struct lsd_swent *lsd_switch_at(const struct lsd_timeline *tl,
				      uint64_t tsc, int running)
{
	const struct lsd_swent *last, *next;
	size_t lo = 0, hi;

	if (!tl || !tl->n)
		return NULL;
	/* lo = the number of events at or before tsc */
	for (hi = tl->n; lo < hi; ) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->e[mid].tsc <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	last = lo ? &tl->e[lo - 1] : NULL;
	next = lo < tl->n && tl->e[lo].next_in != UINT32_MAX ?
	       &tl->e[tl->e[lo].next_in] : NULL;
	if (last && last->in)
		return last;
	if (!running || !last)
		return next;
	/* Tracing is on between a switch-out and the next switch-in: the
	 * thread switched out has not reached its TIP.PGD yet, or the next
	 * one has passed its TIP.PGE before its event was written.  The
	 * first lag is the longer: 0.9 to 2.2 us against 0.4 to 1.1 us on the
	 * quipper recording.  So the next thread only when its event is much
	 * the nearer. */
	if (next && (next->tsc - tsc) * 3 < tsc - last->tsc)
		return next;
	return last;
}

int lsd_psb_read(const uint8_t *buf, size_t len, uint64_t off, uint64_t *ip,
		 uint64_t *tsc)
{
	struct pt_packet_decoder *pd = lsd_pkt_decoder(buf, len);
	struct pt_packet p;
	uint64_t last = 0;
	int found = 0;

	if (!pd)
		return -LS_ENOMEM;
	if (pt_pkt_sync_set(pd, off) >= 0 && pt_pkt_next(pd, &p, sizeof(p)) >= 0 &&
	    p.type == ppt_psb) {
		while (pt_pkt_next(pd, &p, sizeof(p)) >= 0 && p.type != ppt_psbend) {
			if (p.type == ppt_tsc) {
				*tsc = p.payload.tsc.tsc;
				found |= LSD_PSB_TSC;
			} else if (p.type == ppt_fup &&
				   p.payload.ip.ipc != pt_ipc_suppressed) {
				/* After a PSB the last IP is 0: a FUP there
				 * is whole, or relative to 0. */
				last = lsd_ip_update(last, &p.payload.ip);
				*ip = last;
				found |= LSD_PSB_IP;
			}
		}
	}
	pt_pkt_free_decoder(pd);
	return found;
}
