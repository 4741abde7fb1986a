/* pevent_convert.c - perf_event sideband files as libipt-sb reads them
 * (ptxed's --pevent:primary/secondary): bare kernel records, merged in
 * time order into the events, samples and modules of a bundle by the
 * steps that convert a perf.data (perf_convert.c). */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "ls_err.h"
#include "perf_convert_int.h"

/* A SAMPLE keeps its sample id in the sample itself. */
static struct lspd_sample_id *rec_sid(struct lspd_record *r)
{
	return r->type == PERF_RECORD_SAMPLE ? &r->u.sample.sid : &r->sid;
}

static int pevent_pick(struct lspd_record *cur, const int *have, size_t n)
{
	size_t i;
	int best = -1;

	for (i = 0; i < n; i++)
		if (have[i] && (best < 0 ||
				rec_sid(&cur[i])->time < rec_sid(&cur[best])->time))
			best = (int)i;
	return best;
}

static int pevent_loop(struct conv *c, const struct lsr_pevent_opts *po,
		       struct lspd_file **fs, struct lspd_record *cur, int *have)
{
	size_t i, k;
	int err = 0, b;

	for (i = 0; i < po->nfiles; i++) {
		struct lsr_pevent_file *pf = &po->files[i];

		err = lspd_open_pevent(&fs[i], pf->path, pf->from, pf->to,
				       po->sample_type, po->cfg, po->ncfg);
		if (err >= 0)
			err = have[i] = lspd_next(fs[i], &cur[i]);
		if (err < 0)
			return lsr_conv_fail(c, err, "%s", fs[i] ? lspd_errmsg(fs[i]) : "out of memory");
		pf->cpu = -1;
	}
	/* A primary file without PERF_SAMPLE_CPU is its trace's CPU: the
	 * k-th primary goes with the k-th stream. */
	for (i = k = 0; i < po->nfiles; i++)
		if (po->files[i].primary)
			po->files[i].cpu = (int32_t)k++;
	while ((b = pevent_pick(cur, have, po->nfiles)) >= 0) {
		struct lspd_record *r = &cur[b];
		struct lsr_pevent_file *pf = &po->files[b];
		struct lspd_sample_id *sid = rec_sid(r);

		if (sid->have & PERF_SAMPLE_CPU) {
			if (pf->primary && !(pf->named_cpu++))
				pf->cpu = sid->cpu;
		} else if (pf->primary) {
			sid->cpu = pf->cpu;
		}
		c->f = fs[b];
		c->st->records++;
		/* A sideband file holds the kernel's records; perf's own
		 * (TIME_CONV, ...) are options here, as for libipt-sb. */
		err = r->type < 64 ? lsr_conv_record(c, r) : 0;
		if (err < 0)
			return err;
		err = have[b] = lspd_next(fs[b], r);
		if (err < 0)
			return lsr_conv_fail(c, err, "%s", lspd_errmsg(fs[b]));
	}
	return 0;
}

int lsr_pevent_convert(struct lsb_writer *w, struct lsr_pevent_opts *po,
		       struct lsr_convert_stats *st, char *errbuf, size_t errlen)
{
	struct lsr_convert_stats dummy;
	struct lsr_convert_opts co;
	struct lspd_file **fs;
	struct lspd_record *cur;
	int *have;
	struct conv c;
	size_t i;
	int err;

	if (!w || !po || LS_OPTS_BAD(po) || (po->nfiles && !po->files))
		return -LS_EINVAL;
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = LSB_RUN_TRACE;
	co.embed = po->embed;
	co.note = po->note;
	co.note_arg = po->note_arg;
	lsr_conv_init(&c, w, &co, st ? st : &dummy, errbuf, errlen);
	c.per_cpu = 1;
	c.sysroot = po->sysroot;
	fs = calloc(po->nfiles + 1, sizeof(*fs));
	cur = calloc(po->nfiles + 1, sizeof(*cur));
	have = calloc(po->nfiles + 1, sizeof(*have));
	c.declared = calloc(MAX_STREAMS, 1);
	if (!fs || !cur || !have || !c.declared) {
		err = lsr_conv_fail(&c, -LS_ENOMEM, "out of memory");
		goto out;
	}
	err = 0;
	/* As libipt-sb: perf time from TSC always, by default the identity. */
	if (((err = lsr_conv_meta_u64(&c, "time.shift", po->time_shift)) < 0 ||
	     (err = lsr_conv_meta_u64(&c, "time.mult", po->time_mult)) < 0 ||
	     (err = lsr_conv_meta_u64(&c, "time.zero", po->time_zero)) < 0))
		err = lsr_conv_wfail(&c, err);
	if (err >= 0 && po->tsc_offset &&
	    (err = lsr_conv_meta_u64(&c, "time.tsc_offset", po->tsc_offset)) < 0)
		err = lsr_conv_wfail(&c, err);
	if (err >= 0)
		err = pevent_loop(&c, po, fs, cur, have);
	/* lsr_conv_finish() reads build-ids and event names from one file: the last. */
	c.f = po->nfiles ? fs[po->nfiles - 1] : NULL;
	if (err >= 0 && c.f)
		err = lsr_conv_finish(&c);
out:
	lsr_conv_release(&c);
	for (i = 0; fs && i < po->nfiles; i++)
		lspd_close(fs[i]);
	free(fs);
	free(cur);
	free(have);
	return err < 0 ? err : 0;
}
