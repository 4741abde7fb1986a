/* open.c - a decoder for a bundle: the image of each process, which
 * process and thread each stream runs, and the block heads of every
 * process, all before the first block is decoded (decode.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "decoder/run.h"
#include "ls_err.h"

/* Decoder settings the bundle records for hardware traces. */
static void config_from_meta(struct lsd_decoder *d)
{
	const char *v;

	pt_config_init(&d->base);
	/* Blocks must be contiguous code for the split into static blocks:
	 * end them at calls and jumps too, not only at conditional ones. */
	d->base.flags.variant.block.end_on_call = 1;
	d->base.flags.variant.block.end_on_jump = 1;
	v = lsb_reader_meta(d->r, "backend");
	if (!v || strcmp(v, "pt"))
		return;
	v = lsb_reader_meta(d->r, "cpu.vendor");
	if (v && !strcmp(v, "GenuineIntel")) {
		d->base.cpu.vendor = pcv_intel;
		if ((v = lsb_reader_meta(d->r, "cpu.family")))
			d->base.cpu.family = (uint16_t)strtoul(v, NULL, 0);
		if ((v = lsb_reader_meta(d->r, "cpu.model")))
			d->base.cpu.model = (uint8_t)strtoul(v, NULL, 0);
		if ((v = lsb_reader_meta(d->r, "cpu.stepping")))
			d->base.cpu.stepping = (uint8_t)strtoul(v, NULL, 0);
		pt_cpu_errata(&d->base.errata, &d->base.cpu);
	}
	if ((v = lsb_reader_meta(d->r, "pt.mtc_freq")))
		d->base.mtc_freq = (uint8_t)strtoul(v, NULL, 0);
	if ((v = lsb_reader_meta(d->r, "pt.nom_freq")))
		d->base.nom_freq = (uint8_t)strtoul(v, NULL, 0);
	if ((v = lsb_reader_meta(d->r, "pt.cpuid_0x15_eax")))
		d->base.cpuid_0x15_eax = (uint32_t)strtoul(v, NULL, 0);
	if ((v = lsb_reader_meta(d->r, "pt.cpuid_0x15_ebx")))
		d->base.cpuid_0x15_ebx = (uint32_t)strtoul(v, NULL, 0);
	/* Address filters as traced (import --filter:*): one nibble of
	 * pt.addr_cfg per filter, in libipt's own order. */
	if ((v = lsb_reader_meta(d->r, "pt.addr_cfg"))) {
		struct pt_conf_addr_filter *af = &d->base.addr_filter;
		uint64_t *range[8] = { &af->addr0_a, &af->addr0_b, &af->addr1_a,
				       &af->addr1_b, &af->addr2_a, &af->addr2_b,
				       &af->addr3_a, &af->addr3_b };
		char key[24];
		int n;

		af->config.addr_cfg = strtoull(v, NULL, 0);
		for (n = 0; n < 8; n++) {
			snprintf(key, sizeof(key), "pt.addr%d_%c", n / 2, n % 2 ? 'b' : 'a');
			if ((v = lsb_reader_meta(d->r, key)))
				*range[n] = strtoull(v, NULL, 0);
		}
	}
}

int lsd_env_reference(void)
{
	const char *ref = getenv("LOOPSCOPE_REFERENCE");

	return ref && *ref && strcmp(ref, "0");
}

int lsd_open(struct lsd_decoder **pd, struct lsb_reader *r,
	     const struct lsd_opts *o)
{
	return lsd_open_msg(pd, r, o, NULL, 0);
}

uint64_t lsd_missing_mappings(const struct lsd_decoder *d)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; d && i < d->nimgs; i++)
		n += d->imgs[i].missing;
	return n;
}

struct thread_scan {
	struct lsd_decoder *d;
	uint8_t *how;		/* per stream: 0 none yet, 1 switch-in, 2 ITRACE_START */
};

/* The thread each per-CPU stream starts with, where no PT time tells: the
 * first the sideband starts tracing on its CPU (ITRACE_START), else the
 * first switched in there. */
static int on_switch_event(const struct lsb_event *ev, void *arg)
{
	struct thread_scan *t = arg;
	struct lsd_decoder *d = t->d;
	size_t i, n = lsb_reader_nstreams(d->r);
	uint8_t how = ev->type == LSB_EV_ITRACE_START ? 2 : 1;

	if (ev->run != LSB_RUN_TRACE || ev->cpu < 0 || !ev->pid ||
	    (ev->type != LSB_EV_ITRACE_START &&
	     (ev->type != LSB_EV_SWITCH || (ev->arg & LSB_SWITCH_OUT))))
		return 0;
	for (i = 0; i < n; i++) {
		const struct lsb_stream *s = lsb_reader_stream(d->r, i);

		if (s->kind != LSB_STREAM_CPU || s->pid || s->cpu != ev->cpu ||
		    t->how[i] >= how)
			continue;
		d->stream_tid[i].pid = ev->pid;
		d->stream_tid[i].tid = ev->tid;
		t->how[i] = how;
	}
	return 0;
}

size_t lsd_space_of(const struct lsd_decoder *d, uint32_t pid)
{
	size_t k;

	for (k = 0; k < d->nimgs; k++)
		if (d->imgs[k].pid == pid)
			return k;
	return d->nimgs;
}

/* Which process each stream runs: its own pid for a per-thread stream;
 * for a per-CPU stream, the one on_switch_event() finds, until the PT
 * time says otherwise (decode.c).  A stream of a process the sideband
 * has no mappings of decodes with the first process's image. */
static int assign_streams(struct lsd_decoder *d)
{
	size_t n = lsb_reader_nstreams(d->r), i, k;
	struct thread_scan t = { d, NULL };
	int err = 0, cpu = 0;

	d->stream_space = calloc(n ? n : 1, sizeof(*d->stream_space));
	d->stream_tid = calloc(n ? n : 1, sizeof(*d->stream_tid));
	t.how = calloc(n ? n : 1, 1);
	if (!d->stream_space || !d->stream_tid || !t.how) {
		free(t.how);
		return -LS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct lsb_stream *s = lsb_reader_stream(d->r, i);

		d->stream_tid[i].pid = s->pid;
		d->stream_tid[i].tid = s->tid;
		cpu |= s->kind == LSB_STREAM_CPU && !s->pid;
	}
	if (cpu)
		err = lsb_reader_events(d->r, on_switch_event, &t);
	free(t.how);
	if (err < 0)
		return err;
	for (i = 0; i < n; i++) {
		k = lsd_space_of(d, d->stream_tid[i].pid);
		d->stream_space[i] = k < d->nimgs ? k : 0;
	}
	return lsd_switch_build(d);
}

/* How many processes with code the threads a per-CPU stream may run
 * belong to (a task the bundle has no mappings of adds no heads). */
static size_t timeline_spaces(const struct lsd_decoder *d, size_t stream)
{
	const struct lsd_timeline *tl = d->tl ? &d->tl[stream] : NULL;
	size_t i, first = SIZE_MAX;

	for (i = 0; tl && i < tl->n; i++) {
		size_t k;

		if (!tl->e[i].in || (k = lsd_space_of(d, tl->e[i].pid)) == d->nimgs)
			continue;
		if (first == SIZE_MAX)
			first = k;
		else if (k != first)
			return 2;
	}
	return first == SIZE_MAX ? 0 : 1;
}

/* Threads that read the chunks ahead of open's scan: its jobs, at most
 * LSD_SCAN_THREADS (the scan itself, on the caller's thread, takes a
 * chunk in about a fifth of the time its read and decompression do). */
#define LSD_SCAN_THREADS 4

static unsigned scan_jobs(const struct lsd_opts *o)
{
	unsigned j = o->scan_jobs ? o->scan_jobs : o->jobs;

	return j < LSD_SCAN_THREADS ? j : LSD_SCAN_THREADS;
}

int lsd_open_msg(struct lsd_decoder **pd, struct lsb_reader *r,
		 const struct lsd_opts *o, char *errmsg, size_t errlen)
{
	return lsd_open_from(pd, r, o, NULL, errmsg, errlen);
}

int lsd_open_from(struct lsd_decoder **pd, struct lsb_reader *r,
		  const struct lsd_opts *o, const struct lsd_decoder *from,
		  char *errmsg, size_t errlen)
{
	struct lsd_decoder *d;
	size_t i;
	int err;

	if (!pd || !r || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	*pd = NULL;
	if (errmsg && errlen)
		errmsg[0] = '\0';
	d = calloc(1, sizeof(*d));
	if (!d)
		return -LS_ENOMEM;
	d->r = r;
	if (o)
		d->o = *o;
	d->cst = calloc(lsb_reader_nstreams(r) ? lsb_reader_nstreams(r) : 1, sizeof(*d->cst));
	if (!d->cst) {
		free(d);
		return -LS_ENOMEM;
	}
	config_from_meta(d);
	{
		static const struct pt_errata none;
		const char *keep = getenv("LOOPSCOPE_KEEP_CHUNKS");

		if (lsd_env_reference())
			d->o.reference = 1;
		/* Kept unless LOOPSCOPE_KEEP_CHUNKS=0 (LSD_KEEP_MAX). */
		d->keep_max = keep && !strcmp(keep, "0") ? 0 : LSD_KEEP_MAX;
		/* libipt works around CPU errata the fast path does not
		 * model: such a recording is decoded by libipt alone. */
		if (memcmp(&d->base.errata, &none, sizeof(none)))
			d->o.reference = 1;
	}
	{
		char msg[512] = "";

		/* (a twin's modules are its first decoder's bytes) */
		err = lsd_image_build_all_from(&d->imgs, &d->nimgs, r, LSB_RUN_TRACE,
					       d->o.debug_dir,
					       from && from->nimgs ? &from->imgs[0] : NULL,
					       msg, sizeof(msg));
		if (err < 0) {
			if (errmsg && errlen)
				snprintf(errmsg, errlen, "%s", msg[0] ? msg : ls_errstr(err));
			goto fail;
		}
	}
	/* Aligned for the shape cache's entries (struct lsd_space). */
	/* The image of threads without one: nothing mapped, every block a
	 * loss. */
	d->noimg.borrowed = 1;
	d->noimg.pid = UINT32_MAX;
	d->noimg.pt = pt_image_alloc("loopscope-none");
	d->spaces = aligned_alloc(_Alignof(struct lsd_space),
				  (d->nimgs + 1) * sizeof(*d->spaces));
	if (!d->spaces || !d->noimg.pt) {
		err = -LS_ENOMEM;
		goto fail;
	}
	memset(d->spaces, 0, (d->nimgs + 1) * sizeof(*d->spaces));
	for (i = 0; i < d->nimgs; i++)
		d->spaces[i].img = &d->imgs[i];
	d->spaces[d->nimgs].img = &d->noimg;
	d->sp = &d->spaces[0];
	if ((err = assign_streams(d)) < 0)
		goto fail;
	for (i = 0; i < LSD_MODE_MAX; i++)
		if ((err = lsd_cs_open_mode(&d->cs[i], LSD_CS_DETAIL, (int)i)) < 0) {
			/* (capstone not there: the file the loader looked for) */
			if (errmsg && errlen && *lsd_cslib_error())
				snprintf(errmsg, errlen, "%s", lsd_cslib_error());
			goto fail;
		}
	if (d->o.iclasses && (err = lsd_iclass_open(&d->ic)) < 0)
		goto fail;
	/* A twin's heads are its first decoder's, which the same bundle
	 * and options gave it (the same images, in the same order). */
	if (from) {
		err = from->nimgs == d->nimgs ? 0 : -LS_EINVAL;
		for (i = 0; !err && i <= d->nimgs; i++)
			err = lsd_addrset_copy(&d->spaces[i].heads, &from->spaces[i].heads);
		if (err < 0)
			goto fail;
		d->kfrom = from;
		*pd = d;
		return 0;
	}
	/* The heads, before any block is split: from the code, then from
	 * the packets of every chunk (readable or not, a chunk that fails
	 * here fails again when decoded, and is a loss there). */
	for (i = 0, err = 0; !err && i < d->nimgs; i++) {
		d->sp = &d->spaces[i];
		err = lsd_heads_static(d);
	}
	for (i = 0; !err && i < lsb_reader_nstreams(r); i++) {
		int several = timeline_spaces(d, i) > 1, keep, rec = 0;
		size_t c;

		d->sp = &d->spaces[d->stream_space[i]];
		/* The heads the bundle's writer found (ptheads.c): no scan;
		 * the chunks read and kept here only where asked. */
		if (!several && (err = lsd_heads_recorded(d, i)) != 0) {
			if (err < 0)
				break;
			err = 0;
			if (!d->o.keep_chunks || !d->keep_max)
				continue;
			rec = 1;
		}
		/* (the threads scan the chunks they read too, where one
		 * process runs the stream and its heads are to be found) */
		if (scan_jobs(&d->o) > 1 && lsb_reader_nchunks(r, i) > 1)
			(void)(several || rec ? lsd_prefetch_start : lsd_prefetch_start_scan)(
				&d->pf, r, i, 0, lsb_reader_nchunks(r, i) - 1, scan_jobs(&d->o));
		for (c = 0, keep = 1; !err && c < lsb_reader_nchunks(r, i); c++) {
			int64_t len = lsd_read_chunk(d, i, c, &d->cbuf, 0, NULL);

			if (len <= 0) {
				keep = 0;
				continue;
			}
			/* Who ran where, only when it matters: the query
			 * decoder is slower than the packet scan. */
			if (rec)
				;	/* (the heads are the bundle's) */
			else if (several)
				err = lsd_heads_cpu(d, i, d->cbuf.at[0], (size_t)len, !c);
			else if ((err = lsd_prefetch_heads(d->pf, c, &d->sp->heads)) == 0)
				err = lsd_heads_packets(d, d->cbuf.at[0], (size_t)len);
			else if (err > 0)
				err = 0, d->scan_heads++;
			/* A prefix of the stream, handed to the decode. */
			if (!err && keep)
				keep = lsd_keep_chunk(d, i, c, len);
			if (rec && !keep)
				break;	/* (read only to be kept) */
		}
		if (lsd_prefetch_threads(d->pf) > d->scan_threads)
			d->scan_threads = lsd_prefetch_threads(d->pf);
		d->scan_ahead += lsd_prefetch_stop(d->pf);
		d->pf = NULL;
	}
	if (err < 0)
		goto fail;
	*pd = d;
	return 0;
fail:
	lsd_close(d);
	return err;
}

void lsd_close(struct lsd_decoder *d)
{
	size_t i;

	if (!d)
		return;
	lsd_sbtab_release(d);
	lsd_kept_release(d);
	lsd_fast_free(d);
	lsd_heads_release(d);
	for (i = 0; d->spaces && i <= d->nimgs; i++)
		lsd_space_release(&d->spaces[i]);
	free(d->spaces);
	lsd_switch_release(d);
	lsd_image_release(&d->noimg);
	free(d->stream_space);
	free(d->stream_tid);
	if (d->ic)
		lsd_iclass_close(d->ic);
	for (i = 0; i < LSD_MODE_MAX; i++)
		if (d->cs[i])
			lsd_cs.close(&d->cs[i]);
	if (d->imgs)
		lsd_image_release_all(d->imgs, d->nimgs);
	free(d->cbuf.p[0]);
	free(d->cbuf.p[1]);
	for (i = 0; d->cst && i < lsb_reader_nstreams(d->r); i++)
		free(d->cst[i].v);
	free(d->cst);
	if (d->own_r)
		lsb_reader_close(d->r);
	free(d);
}

size_t lsd_nsblocks(const struct lsd_decoder *d)
{
	return d ? d->sbt.n : 0;
}

int lsd_module_bytes(const struct lsd_decoder *d, size_t mod, const void **data,
		     size_t *len)
{
	const struct lsd_module_bytes *mb;

	if (!d || !d->nimgs || mod >= d->imgs[0].nmods || !d->imgs[0].mods[mod].data)
		return -LS_ENOENT;
	mb = &d->imgs[0].mods[mod];
	*data = mb->data;
	*len = mb->len;
	return 0;
}

int lsd_module_crc(const struct lsd_decoder *d, size_t mod, uint32_t *crc)
{
	const struct lsd_module_bytes *mb;

	if (!d || !crc || !d->nimgs || mod >= d->imgs[0].nmods)
		return -LS_ENOENT;
	mb = &d->imgs[0].mods[mod];
	if (!mb->data || !mb->has_crc)
		return -LS_ENOENT;
	*crc = mb->crc;
	return 0;
}

const struct lsd_sblock *lsd_sblock(const struct lsd_decoder *d, size_t id)
{
	return d && id < d->sbt.n ? lsd_sb(d, id) : NULL;
}

const struct lsd_sblock *lsd_sblock_at(const struct lsd_decoder *d, uint64_t ip)
{
	size_t i;

	const struct lsd_sblock *other = NULL;

	/* Linear, for tools and tests; the hot path never asks. */
	for (i = 0; d && i < d->sbt.n; i++) {
		const struct lsd_sblock *sb = lsd_sb(d, i);

		if (ip < sb->start || ip >= sb->end)
			continue;
		if (sb->pid == d->imgs[0].pid)
			return sb;
		if (!other)
			other = sb;
	}
	return other;
}

int lsd_sblock_falls(const struct lsd_sblock *sb)
{
	return sb && sb->last_kind == LSD_K_OTHER;
}

int lsd_sblock_code(const struct lsd_decoder *d, uint32_t pid, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	size_t i;
	int n;

	if (!d || !buf)
		return -LS_EINVAL;
	for (i = 0; i < d->nimgs; i++) {
		if (d->imgs[i].pid != pid)
			continue;
		n = lsd_image_read(&d->imgs[i], buf, size, ip);
		return n < 0 ? -LS_ENOENT : n;
	}
	return -LS_ENOENT;
}
