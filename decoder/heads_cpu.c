/* heads_cpu.c - the packet heads of a per-CPU stream that runs several
 * processes.
 *
 * Each IP a packet names is a head in the process that ran it, so the scan
 * must know who ran when, exactly as the block decoder will: it walks the
 * stream with libipt's query decoder, whose time at every sync and enable
 * is the block decoder's own (that decoder is built on it), and asks
 * lsd_switch_at() at the same points decode.c does.  With no image at hand
 * the walk asks for a conditional branch and, when the next packet is no
 * TNT, for an indirect branch: every TIP is handed out once, by a query or
 * in an event.
 */
#include <intel-pt.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

static int add(struct lsd_decoder *d, uint64_t ip)
{
	return lsd_addrset_add(&d->sp->heads, ip) < 0 ? -LS_ENOMEM : 0;
}

/* Who runs from time tsc on: the space whose heads the IPs go to. */
static void follow(struct lsd_decoder *d, const struct lsd_timeline *tl,
		   uint64_t tsc, int running)
{
	const struct lsd_swent *e = lsd_switch_at(tl, tsc, running);

	if (e)
		d->sp = &d->spaces[lsd_space_of(d, e->pid)];
}

/* A sync at a PSB: who runs there if tracing is on (an IP) and the
 * thread is not known (cold), as decode.c asks; where tracing is off, the
 * enable that follows tells.  Returns the status of the sync, its IP a
 * head. */
static int sync_at(struct lsd_decoder *d, const struct lsd_timeline *tl,
		   struct pt_query_decoder *q, const uint8_t *buf, size_t len,
		   int cold, int *err)
{
	uint64_t ip, off, fup, tsc;
	int st = pt_qry_sync_forward(q, &ip);

	if (st < 0 || (st & pts_ip_suppressed))
		return st;
	if (cold && pt_qry_get_sync_offset(q, &off) >= 0 &&
	    (lsd_psb_read(buf, len, off, &fup, &tsc) & LSD_PSB_TSC))
		follow(d, tl, tsc, 1);
	*err = add(d, ip);
	return st;
}

/* The IPs of an event that packets named (FUP, TIP, TIP.PGE). */
static int event_heads(struct lsd_decoder *d, const struct lsd_timeline *tl,
		       const struct pt_event *ev)
{
	if (ev->type == ptev_enabled && ev->has_tsc)
		follow(d, tl, ev->tsc, 0);
	if (ev->ip_suppressed)
		return 0;
	switch (ev->type) {
	case ptev_enabled:
		return add(d, ev->variant.enabled.ip);
	case ptev_async_branch:
		if (add(d, ev->variant.async_branch.from) < 0)
			return -LS_ENOMEM;
		return add(d, ev->variant.async_branch.to);
	case ptev_async_disabled:
		return add(d, ev->variant.async_disabled.at);
	case ptev_overflow:
		return add(d, ev->variant.overflow.ip);
	case ptev_exec_mode:
		return add(d, ev->variant.exec_mode.ip);
	case ptev_tsx:
		return add(d, ev->variant.tsx.ip);
	case ptev_async_paging:
		return add(d, ev->variant.async_paging.ip);
	default:
		return 0;
	}
}

int lsd_heads_cpu(struct lsd_decoder *d, size_t stream, const uint8_t *buf,
		  size_t len, int cold)
{
	const struct lsd_timeline *tl = &d->tl[stream];
	struct pt_config cfg = d->base;
	struct pt_query_decoder *q;
	uint64_t ip;
	int st, taken, err = 0;

	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	q = pt_qry_alloc_decoder(&cfg);
	if (!q)
		return -LS_ENOMEM;
	for (st = sync_at(d, tl, q, buf, len, cold, &err); st != -pte_eos && !err; ) {
		if (st >= 0 && (st & pts_event_pending)) {
			struct pt_event ev;

			st = pt_qry_event(q, &ev, sizeof(ev));
			if (st >= 0)
				err = event_heads(d, tl, &ev);
			continue;
		}
		if (st >= 0) {
			st = pt_qry_cond_branch(q, &taken);
			if (st >= 0)
				continue;
			if (st == -pte_bad_query) {
				st = pt_qry_indirect_branch(q, &ip);
				if (st >= 0) {
					if (!(st & pts_ip_suppressed))
						err = add(d, ip);
					continue;
				}
			}
		}
		if (st == -pte_eos)
			break;
		st = sync_at(d, tl, q, buf, len, 1, &err);
	}
	pt_qry_free_decoder(q);
	return err;
}
