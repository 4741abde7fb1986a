/* swcheck.c - the thread the decoder's switch rule (decoder/switch.c)
 * names at every point it may be asked, on every per-CPU stream:
 *   swcheck FILE.lsc
 * prints, walking each stream with libipt's query decoder,
 *   STREAM CPU enable TSC PID TID LAG_NS   at every TIP.PGE
 *   STREAM CPU psb TSC PID TID LAG_NS      at every PSB where tracing is on
 * (the decoder asks at an enable, and at a PSB it syncs at cold), where
 * PID TID is the thread named ("- -" if none) and LAG_NS the named switch
 * event's time minus the PT time, in ns.  Exit 1 if the bundle cannot be
 * read. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

static uint64_t shift, mult;

static void say(size_t s, int cpu, const char *what, const struct lsd_timeline *tl,
		uint64_t tsc, int running)
{
	const struct lsd_swent *e = lsd_switch_at(tl, tsc, running);
	int64_t ticks;
	double ns;

	if (!e) {
		printf("%zu %d %s %" PRIu64 " - - -\n", s, cpu, what, tsc);
		return;
	}
	ticks = (int64_t)(e->tsc - tsc);
	ns = (double)ticks * (double)mult / (double)(1ull << shift);
	printf("%zu %d %s %" PRIu64 " %" PRIu32 " %" PRIu32 " %.0f\n", s, cpu,
	       what, tsc, e->pid, e->tid, ns);
}

static void walk(struct lsd_decoder *d, size_t s, const uint8_t *buf, size_t len)
{
	const struct lsb_stream *ls = lsb_reader_stream(d->r, s);
	struct pt_config cfg = d->base;
	struct pt_query_decoder *q;
	uint64_t ip, tsc;
	int st, taken;

	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	q = pt_qry_alloc_decoder(&cfg);
	if (!q)
		return;
	/* Every PSB: sync at each in turn. */
	for (st = pt_qry_sync_forward(q, &ip); st >= 0; st = pt_qry_sync_forward(q, &ip)) {
		uint64_t off, fup;

		if (!(st & pts_ip_suppressed) && pt_qry_get_sync_offset(q, &off) >= 0 &&
		    (lsd_psb_read(buf, len, off, &fup, &tsc) & LSD_PSB_TSC))
			say(s, ls->cpu, "psb", &d->tl[s], tsc, 1);
	}
	pt_qry_free_decoder(q);
	/* Every enable, as heads_cpu.c walks. */
	q = pt_qry_alloc_decoder(&cfg);
	if (!q)
		return;
	for (st = pt_qry_sync_forward(q, &ip); st != -pte_eos; ) {
		if (st >= 0 && (st & pts_event_pending)) {
			struct pt_event ev;

			st = pt_qry_event(q, &ev, sizeof(ev));
			if (st >= 0 && ev.type == ptev_enabled && ev.has_tsc)
				say(s, ls->cpu, "enable", &d->tl[s], ev.tsc, 0);
			continue;
		}
		if (st >= 0) {
			st = pt_qry_cond_branch(q, &taken);
			if (st >= 0)
				continue;
			if (st == -pte_bad_query && (st = pt_qry_indirect_branch(q, &ip)) >= 0)
				continue;
		}
		if (st == -pte_eos)
			break;
		st = pt_qry_sync_forward(q, &ip);
	}
	pt_qry_free_decoder(q);
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d = NULL;
	struct lsd_opts o = { .size = sizeof(o) };
	const char *v;
	size_t s;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: swcheck FILE.lsc\n");
		return 2;
	}
	if ((err = lsb_reader_open(&r, argv[1])) < 0 ||
	    (err = lsd_open(&d, r, &o)) < 0) {
		fprintf(stderr, "swcheck: %s: %s\n", argv[1], ls_errstr(err));
		return 1;
	}
	shift = (v = lsb_reader_meta(r, "time.shift")) ? strtoull(v, NULL, 0) : 0;
	mult = (v = lsb_reader_meta(r, "time.mult")) ? strtoull(v, NULL, 0) : 0;
	for (s = 0; d->tl && s < lsb_reader_nstreams(r); s++) {
		uint8_t *buf = NULL;
		size_t len = 0, c;

		if (!d->tl[s].n)
			continue;
		for (c = 0; c < lsb_reader_nchunks(r, s); c++) {
			const struct lsb_chunk *ch = lsb_reader_chunk(r, s, c);
			uint8_t *p = realloc(buf, len + ch->raw_size + 1);
			int64_t n;

			if (!p)
				return 1;
			buf = p;
			n = lsb_reader_read_chunk(r, ch, buf + len, ch->raw_size);
			if (n < 0)
				return 1;
			len += (size_t)n;
		}
		walk(d, s, buf, len);
		free(buf);
	}
	lsd_close(d);
	lsb_reader_close(r);
	return 0;
}
