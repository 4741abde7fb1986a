/* perf_convert.c - perf.data into a trace bundle.
 *
 * One pass over the records: AUXTRACE payloads go straight into PT
 * streams in bounded pieces, sideband records become events, samples
 * samples.  Modules are written at the end, when every build-id source
 * (the feature section, MMAP2 build-ids, pipe-mode HEADER_BUILD_ID
 * records that perf appends last) has been seen. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "ls_buildid.h"
#include "ls_buildid.h"
#include "perf_convert.h"
#include "perf_convert_int.h"
#include "formats/perfdata.h"
#include "vdso.h"

static void note(struct conv *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct conv *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!c->o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->o->note(c->o->note_arg, msg);
}

int lsr_conv_fail(struct conv *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (c->errbuf && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->errbuf, c->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

int lsr_conv_wfail(struct conv *c, int err)
{
	return lsr_conv_fail(c, err, "%s", lsb_writer_errmsg(c->w));
}

int lsr_conv_meta_u64(struct conv *c, const char *key, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	return lsb_writer_meta(c->w, key, b);
}

int lsr_parse_cpu(const char *s, unsigned *family, unsigned *model,
		  unsigned *stepping)
{
	unsigned long v[3] = { 0, 0, 0 };
	char *end;
	int i;

	if (!s)
		return -LS_EINVAL;
	for (i = 0; i < 3; i++) {
		v[i] = strtoul(s, &end, 0);
		if (end == s || v[i] > 0xffff)
			return -LS_EINVAL;
		s = end;
		if (!*s)
			break;
		if (*s != '/' || i == 2)
			return -LS_EINVAL;
		s++;
	}
	if (i == 0)
		return -LS_EINVAL;	/* a model is required */
	*family = (unsigned)v[0];
	*model = (unsigned)v[1];
	*stepping = (unsigned)v[2];
	return 0;
}

/* cpu.* keys from the cpuid feature ("GenuineIntel,6,78,3") or opts. */
static int write_cpu_meta(struct conv *c)
{
	const char *cpuid = lspd_feature_string(c->f, LSPD_FEAT_CPUID);
	unsigned fam, mod, step;
	char vendor[64] = "GenuineIntel";
	int err;

	if (c->o->cpu) {
		if (lsr_parse_cpu(c->o->cpu, &fam, &mod, &step) < 0)
			return lsr_conv_fail(c, -LS_EINVAL, "bad cpu '%s' (want FAMILY/MODEL[/STEPPING])",
				    c->o->cpu);
	} else if (cpuid && sscanf(cpuid, "%63[^,],%u,%u,%u", vendor, &fam, &mod,
				   &step) == 4) {
		/* parsed */
	} else {
		return 0;
	}
	if ((err = lsb_writer_meta(c->w, "cpu.vendor", vendor)) < 0 ||
	    (err = lsr_conv_meta_u64(c, "cpu.family", fam)) < 0 ||
	    (err = lsr_conv_meta_u64(c, "cpu.model", mod)) < 0 ||
	    (err = lsr_conv_meta_u64(c, "cpu.stepping", step)) < 0)
		return lsr_conv_wfail(c, err);
	return 0;
}

static int write_file_meta(struct conv *c)
{
	static const struct { enum lspd_feature feat; const char *key; } strs[] = {
		{ LSPD_FEAT_HOSTNAME, "host" }, { LSPD_FEAT_OSRELEASE, "kernel" },
		{ LSPD_FEAT_ARCH, "arch" }, { LSPD_FEAT_CPUDESC, "cpu.name" },
		{ LSPD_FEAT_VERSION, "perf.version" },
	};
	size_t i;
	int err;

	if ((err = lsb_writer_meta(c->w, "backend", "pt")) < 0)
		return lsr_conv_wfail(c, err);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = lspd_feature_string(c->f, strs[i].feat);

		if (v && *v && (err = lsb_writer_meta(c->w, strs[i].key, v)) < 0)
			return lsr_conv_wfail(c, err);
	}
	return write_cpu_meta(c);
}

static unsigned ctz64(uint64_t v)
{
	unsigned n = 0;

	if (!v)
		return 0;
	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

/* Every Intel PT field of AUXTRACE_INFO, and the pt_config inputs libipt
 * needs derived from them and from the intel_pt event's config. */
static int write_pt_meta(struct conv *c, const struct lspd_auxtrace_info *ai)
{
	static const char *const keys[LSPD_PT_PRIV_MAX] = {
		"pt.pmu_type", "pt.time_shift", "pt.time_mult", "pt.time_zero",
		"pt.cap_user_time_zero", "pt.tsc_bit", "pt.noretcomp_bit",
		"pt.have_sched_switch", "pt.snapshot_mode", "pt.per_cpu_mmaps",
		"pt.mtc_bit", "pt.mtc_freq_bits", "pt.tsc_ctc_ratio_n",
		"pt.tsc_ctc_ratio_d", "pt.cyc_bit", "pt.max_nonturbo_ratio",
		"pt.filter_str_len",
	};
	const uint64_t *p = ai->priv;
	size_t i;
	int err = 0;

	if (ai->type != LSPD_AUXTRACE_INTEL_PT) {
		note(c, "AUXTRACE_INFO of type %" PRIu32 " is not Intel PT; its trace is kept unchanged",
		     ai->type);
		return lsr_conv_meta_u64(c, "pt.auxtrace_type", ai->type);
	}
	for (i = 0; i < ai->npriv && err >= 0; i++)
		err = lsr_conv_meta_u64(c, keys[i], p[i]);
	if (err >= 0 && ai->filter)
		err = lsb_writer_meta(c->w, "pt.filter", ai->filter);
	if (err >= 0 && ai->npriv > LSPD_PT_PER_CPU_MMAPS)
		c->per_cpu = p[LSPD_PT_PER_CPU_MMAPS] != 0;
	/* libipt's pt_config: cpuid_0x15_eax/ebx are the TSC:CTC ratio's
	 * denominator/numerator, nom_freq the max non-turbo ratio. */
	if (err >= 0 && ai->npriv > LSPD_PT_MAX_NONTURBO_RATIO) {
		err = lsr_conv_meta_u64(c, "pt.cpuid_0x15_eax", p[LSPD_PT_TSC_CTC_D]);
		if (err >= 0)
			err = lsr_conv_meta_u64(c, "pt.cpuid_0x15_ebx", p[LSPD_PT_TSC_CTC_N]);
		if (err >= 0)
			err = lsr_conv_meta_u64(c, "pt.nom_freq", p[LSPD_PT_MAX_NONTURBO_RATIO]);
	}
	for (i = 0; err >= 0 && i < lspd_nattrs(c->f); i++) {
		const struct lspd_attr *a = lspd_attr(c->f, i);
		char b[32];

		if (ai->npriv <= LSPD_PT_MTC_FREQ_BITS || a->type != p[LSPD_PT_PMU_TYPE])
			continue;
		snprintf(b, sizeof(b), "0x%" PRIx64, a->config);
		err = lsb_writer_meta(c->w, "pt.config", b);
		if (err >= 0)
			err = lsr_conv_meta_u64(c, "pt.mtc_freq",
				       (a->config & p[LSPD_PT_MTC_FREQ_BITS]) >>
				       ctz64(p[LSPD_PT_MTC_FREQ_BITS]));
		/* The sw backend writes the same key (recorder/sw_ingest.c). */
		if (err >= 0)
			err = lsb_writer_meta(c->w, "pt.retcomp",
					      a->config & p[LSPD_PT_NORETCOMP_BIT] ? "0" : "1");
		break;
	}
	return err < 0 ? lsr_conv_wfail(c, err) : 0;
}

static uint32_t pid_of(struct conv *c, uint32_t tid)
{
	size_t i;

	for (i = c->ntids; i-- > 0;)
		if (c->tids[i].tid == tid)
			return c->tids[i].pid;
	return tid;
}

static void remember_tid(struct conv *c, uint32_t pid, uint32_t tid)
{
	if (tid == (uint32_t)-1 || pid_of(c, tid) == pid || c->ntids >= MAX_TIDS)
		return;
	if (!c->tids && !(c->tids = malloc(MAX_TIDS * sizeof(*c->tids))))
		return;		/* only a hint for stream pids */
	c->tids[c->ntids].tid = tid;
	c->tids[c->ntids++].pid = pid;
}

static int do_auxtrace(struct conv *c, const struct lspd_record *r)
{
	const struct lspd_auxtrace *a = &r->u.auxtrace;
	int64_t n;
	int err;

	if (c->o->run != LSB_RUN_TRACE)
		return 0;	/* the payload is skipped by the reader */
	if (a->idx >= MAX_STREAMS)
		return lsr_conv_fail(c, -LS_ELIMIT, "%s: AUXTRACE record at offset %" PRIu64
			    ": buffer index %" PRIu32 " is over %u",
			    c->path, r->offset, a->idx, MAX_STREAMS);
	if (!c->declared[a->idx]) {
		struct lsb_stream s;
		int per_cpu = c->per_cpu >= 0 ? c->per_cpu : a->cpu >= 0;

		memset(&s, 0, sizeof(s));
		s.id = a->idx;
		s.kind = per_cpu ? LSB_STREAM_CPU : LSB_STREAM_THREAD;
		s.tid = per_cpu ? 0 : a->tid;
		s.pid = per_cpu ? 0 : pid_of(c, a->tid);
		s.cpu = per_cpu ? a->cpu : -1;
		err = lsb_writer_stream(c->w, &s);
		if (err < 0)
			return lsr_conv_wfail(c, err);
		c->declared[a->idx] = 1;
		c->st->streams++;
	}
	while ((n = lspd_read_aux(c->f, c->aux, AUX_PIECE)) > 0) {
		err = lsb_writer_pt(c->w, a->idx, c->aux, (size_t)n);
		if (err < 0)
			return lsr_conv_wfail(c, err);
		c->st->pt_bytes += (uint64_t)n;
	}
	if (n < 0)
		return lsr_conv_fail(c, (int)n, "%s", lspd_errmsg(c->f));
	return 0;
}

static int add_modpath(struct conv *c, const char *path, const uint8_t *id,
		       size_t id_len)
{
	size_t i;

	for (i = 0; i < c->nmods; i++)
		if (!strcmp(c->mods[i].path, path)) {
			if (!c->mods[i].id_len && id_len) {
				memcpy(c->mods[i].id, id, id_len);
				c->mods[i].id_len = (uint8_t)id_len;
			}
			return 0;
		}
	if (c->nmods >= MAX_MODPATHS)
		return 0;	/* bounded: later paths stay references-less */
	if (LS_GROW(c->mods, c->nmods + 1, c->capmods, 64))
		return -LS_ENOMEM;
	memset(&c->mods[c->nmods], 0, sizeof(c->mods[0]));
	c->mods[c->nmods].path = strdup(path);
	if (!c->mods[c->nmods].path)
		return -LS_ENOMEM;
	memcpy(c->mods[c->nmods].id, id, id_len);
	c->mods[c->nmods].id_len = (uint8_t)id_len;
	c->nmods++;
	return 0;
}

/* Paths that can name an ELF image: files and the vDSO, not [heap],
 * //anon or the kernel's pseudo paths (kept as events only). */
static int is_image_path(const char *p)
{
	return (p[0] == '/' && strncmp(p, "//anon", 6) && strncmp(p, "/dev/", 5) &&
		strncmp(p, "/memfd:", 7)) || !strcmp(p, "[vdso]");
}

static int do_mmap(struct conv *c, const struct lspd_record *r,
		   struct lsb_event *ev)
{
	const struct lspd_mmap *m = &r->u.mmap;
	const struct lspd_build_id *b;

	ev->type = LSB_EV_MMAP;
	ev->pid = m->pid;
	ev->tid = m->tid;
	ev->addr = m->addr;
	ev->len = m->len;
	ev->pgoff = m->pgoff;
	ev->prot = m->prot & 7;
	ev->name = m->filename;
	if (m->build_id_len) {
		memcpy(ev->build_id, m->build_id, m->build_id_len);
		ev->build_id_len = m->build_id_len;
	} else if ((b = lspd_find_build_id(c->f, m->filename)) != NULL) {
		memcpy(ev->build_id, b->id, b->len);
		ev->build_id_len = b->len;
	}
	remember_tid(c, m->pid, m->tid);
	if ((m->prot & 4) && is_image_path(m->filename))
		return add_modpath(c, m->filename, ev->build_id, ev->build_id_len);
	return 0;
}

static int do_sample(struct conv *c, const struct lspd_record *r)
{
	const struct lspd_sample *s = &r->u.sample;
	uint64_t chain[LSB_MAX_CALLCHAIN];
	struct lsb_sample o;
	uint64_t i;
	uint32_t n = 0;
	int err;

	memset(&o, 0, sizeof(o));
	o.run = (uint8_t)c->o->run;
	o.pid = s->sid.pid;
	o.tid = s->sid.tid;
	o.cpu = s->sid.cpu;
	o.time = s->sid.time;
	o.ip = s->ip;
	o.period = s->period;
	o.event = s->sid.attr < 0 ? 0 : (uint32_t)s->sid.attr;
	/* Drop perf's PERF_CONTEXT_* markers: only addresses remain. */
	for (i = 0; i < s->nr_callchain && n < LSB_MAX_CALLCHAIN; i++)
		if (s->callchain[i] < (uint64_t)PERF_CONTEXT_MAX)
			chain[n++] = s->callchain[i];
	o.nr_callchain = n;
	o.callchain = chain;
	err = lsb_writer_sample(c->w, &o);
	if (err < 0)
		return lsr_conv_wfail(c, err);
	c->st->samples++;
	return 0;
}

int lsr_conv_record(struct conv *c, const struct lspd_record *r)
{
	struct lsb_event ev;
	int err;

	memset(&ev, 0, sizeof(ev));
	ev.run = (uint8_t)c->o->run;
	ev.pid = r->sid.pid;
	ev.tid = r->sid.tid;
	ev.cpu = r->sid.cpu;
	ev.time = r->sid.time;
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		return do_sample(c, r);
	case LSPD_REC_AUXTRACE:
		return do_auxtrace(c, r);
	case LSPD_REC_AUXTRACE_INFO:
		return c->o->run == LSB_RUN_TRACE ? write_pt_meta(c, &r->u.auxtrace_info) : 0;
	case LSPD_REC_TIME_CONV:
		if (c->o->run != LSB_RUN_TRACE)
			return 0;
		if ((err = lsr_conv_meta_u64(c, "time.shift", r->u.time_conv.time_shift)) < 0 ||
		    (err = lsr_conv_meta_u64(c, "time.mult", r->u.time_conv.time_mult)) < 0 ||
		    (err = lsr_conv_meta_u64(c, "time.zero", r->u.time_conv.time_zero)) < 0)
			return lsr_conv_wfail(c, err);
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = do_mmap(c, r, &ev);
		if (err < 0)
			return lsr_conv_fail(c, err, "out of memory");
		break;
	case PERF_RECORD_COMM:
		ev.type = LSB_EV_COMM;
		ev.pid = r->u.comm.pid;
		ev.tid = r->u.comm.tid;
		ev.name = r->u.comm.comm;
		ev.arg = !!(r->misc & PERF_RECORD_MISC_COMM_EXEC);
		remember_tid(c, ev.pid, ev.tid);
		break;
	case PERF_RECORD_FORK:
		ev.type = LSB_EV_THREAD_START;
		ev.pid = r->u.task.pid;
		ev.tid = r->u.task.tid;
		ev.arg = r->u.task.ptid;
		ev.time = r->u.task.time;
		remember_tid(c, ev.pid, ev.tid);
		if (r->u.task.pid != r->u.task.ppid) {
			/* A new process: also say who forked it. */
			struct lsb_event fk = ev;

			fk.type = LSB_EV_FORK;
			fk.pid = r->u.task.ppid;
			fk.tid = r->u.task.ptid;
			fk.arg = r->u.task.pid;
			if ((err = lsb_writer_event(c->w, &fk)) < 0)
				return lsr_conv_wfail(c, err);
			c->st->events++;
		}
		break;
	case PERF_RECORD_EXIT:
		ev.type = LSB_EV_THREAD_EXIT;
		ev.pid = r->u.task.pid;
		ev.tid = r->u.task.tid;
		ev.time = r->u.task.time;
		break;
	case PERF_RECORD_ITRACE_START:
		ev.type = LSB_EV_ITRACE_START;
		ev.pid = r->u.itrace_start.pid;
		ev.tid = r->u.itrace_start.tid;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* pid/tid (sample id) are the task switched out or in. */
		ev.type = LSB_EV_SWITCH;
		if (r->misc & PERF_RECORD_MISC_SWITCH_OUT)
			ev.arg |= LSB_SWITCH_OUT;
		if (r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			ev.arg |= LSB_SWITCH_PREEMPT;
		break;
	case PERF_RECORD_LOST:
		ev.type = LSB_EV_LOST;
		ev.arg = r->u.lost.lost > UINT32_MAX ? UINT32_MAX
						     : (uint32_t)r->u.lost.lost;
		c->st->lost += r->u.lost.lost;
		break;
	case PERF_RECORD_AUX:
		if (!(r->u.aux.flags & PERF_AUX_FLAG_TRUNCATED))
			return 0;
		/* The kernel dropped trace here: a gap the decoder must know. */
		ev.type = LSB_EV_LOST;
		ev.addr = r->u.aux.offset;
		ev.len = r->u.aux.size;
		c->st->aux_truncated++;
		break;
	default:
		return 0;
	}
	if ((err = lsb_writer_event(c->w, &ev)) < 0)
		return lsr_conv_wfail(c, err);
	c->st->events++;
	return 0;
}

/* Where a recorded path is read here: under --pevent:sysroot if given. */
static const char *local_path(const struct conv *c, const char *path,
			      char *buf, size_t cap)
{
	if (!c->sysroot || !*c->sysroot)
		return path;
	snprintf(buf, cap, "%s%s", c->sysroot, path);
	return buf;
}

static int write_module(struct conv *c, struct modpath *m)
{
	struct lsb_module mod;
	uint8_t local[LSB_BUILD_ID_MAX];
	void *data = NULL;
	size_t len = 0;
	int n = -LS_ENOENT, err, vdso = !strcmp(m->path, "[vdso]");
	char lp[4096];
	uint64_t vaddr;

	if (c->o->embed) {
		if (vdso) {
			/* Same kernel, same vDSO: ours is the traced one if the
			 * build-ids agree. */
			n = lsr_vdso_read(&data, &len, &vaddr);
			if (n >= 0) {
				n = ls_buildid_mem(data, len, local, sizeof(local));
				if (n <= 0)
					n = -LS_ELF;
			}
		} else {
			n = ls_buildid_file(local_path(c, m->path, lp, sizeof(lp)),
					    local, sizeof(local));
		}
		/* Without a recorded build-id (pipe mode) the file at the
		 * path is taken as the one that ran, as perf report does; the
		 * vDSO of another boot cannot be told apart, so not it. */
		if (n > 0 && !m->id_len && !vdso) {
			memcpy(m->id, local, (size_t)n);
			m->id_len = (uint8_t)n;
			note(c, "'%s': no build-id recorded; embedding the file found at that path",
			     m->path);
		}
	}
	if (!m->id_len) {
		free(data);
		c->st->missing++;
		note(c, "'%s': no build-id recorded and %s; not in the bundle", m->path,
		     c->o->embed ? "file not readable here" : "--no-embed given");
		return 0;
	}
	memset(&mod, 0, sizeof(mod));
	memcpy(mod.build_id, m->id, m->id_len);
	mod.build_id_len = m->id_len;
	mod.path = m->path;
	if (c->o->embed && n == m->id_len && !memcmp(local, m->id, m->id_len)) {
		if (vdso) {
			mod.flags = LSB_MOD_VDSO;
		} else if ((err = ls_map_file(local_path(c, m->path, lp, sizeof(lp)),
					      &data, &len)) < 0) {
			data = NULL;
		}
	} else {
		if (vdso)
			free(data);
		data = NULL;
	}
	if (!data && c->o->embed) {
		c->st->missing++;
		note(c, "'%s': %s; kept as a reference", m->path,
		     n == -LS_ENOENT ? "not found" : n > 0 ? "build-id differs"
		     : "not a readable ELF file");
	}
	mod.file_size = data ? len : 0;
	err = lsb_writer_module(c->w, &mod, data, data ? len : 0);
	if (data && vdso)
		free(data);
	else if (data)
		ls_unmap(data, len);
	if (err < 0)
		return lsr_conv_wfail(c, err);
	if (err == 0) {
		c->st->modules++;
		c->st->embedded += data != NULL;
	}
	return 0;
}

static int write_sample_events(struct conv *c)
{
	char list[4096];
	size_t i, used = 0;
	int err;

	list[0] = '\0';
	for (i = 0; i < lspd_nattrs(c->f); i++) {
		const struct lspd_attr *a = lspd_attr(c->f, i);
		char b[64];
		const char *name = a->name;
		int k;

		if (!name) {
			snprintf(b, sizeof(b), "%" PRIu32 ":0x%" PRIx64, a->type, a->config);
			name = b;
		}
		k = snprintf(list + used, sizeof(list) - used, "%s%s", i ? "," : "", name);
		if (k < 0 || (size_t)k >= sizeof(list) - used)
			break;
		used += (size_t)k;
	}
	if ((err = lsb_writer_meta(c->w, "sample.events", list)) < 0)
		return lsr_conv_wfail(c, err);
	return 0;
}

int lsr_conv_finish(struct conv *c)
{
	size_t i;
	int err;

	if (c->st->samples && (err = write_sample_events(c)) < 0)
		return err;
	for (i = 0; i < MAX_STREAMS; i++)
		if (c->declared[i] && (err = lsb_writer_stream_end(c->w, (uint32_t)i)) < 0)
			return lsr_conv_wfail(c, err);
	/* Pipe mode may bring build-ids last; fill what the mmaps lacked. */
	for (i = 0; i < c->nmods; i++) {
		const struct lspd_build_id *b = lspd_find_build_id(c->f, c->mods[i].path);

		if (!c->mods[i].id_len && b) {
			memcpy(c->mods[i].id, b->id, b->len);
			c->mods[i].id_len = b->len;
		}
		if ((err = write_module(c, &c->mods[i])) < 0)
			return err;
	}
	return 0;
}

void lsr_conv_init(struct conv *c, struct lsb_writer *w,
		   const struct lsr_convert_opts *o, struct lsr_convert_stats *st,
		   char *errbuf, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->o = o;
	c->st = st;
	memset(st, 0, sizeof(*st));
	c->errbuf = errbuf;
	c->errlen = errlen;
	c->per_cpu = -1;
	if (errbuf && errlen)
		errbuf[0] = '\0';
}

void lsr_conv_release(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nmods; i++)
		free(c->mods[i].path);
	free(c->mods);
	free(c->tids);
	free(c->declared);
	free(c->aux);
}

int lsr_perf_convert(struct lsb_writer *w, const char *path,
		     const struct lsr_convert_opts *o,
		     struct lsr_convert_stats *st, char *errbuf, size_t errlen)
{
	struct lsr_convert_stats dummy;
	struct lspd_record r;
	struct conv c;
	int err;

	if (!w || !path || !o || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	lsr_conv_init(&c, w, o, st ? st : &dummy, errbuf, errlen);
	c.path = path;
	c.declared = calloc(MAX_STREAMS, 1);
	c.aux = malloc(AUX_PIECE);
	if (!c.declared || !c.aux) {
		err = lsr_conv_fail(&c, -LS_ENOMEM, "out of memory");
		goto out;
	}
	err = lspd_open(&c.f, path);
	if (err < 0) {
		err = lsr_conv_fail(&c, err, "%s", c.f ? lspd_errmsg(c.f) : "out of memory");
		goto out;
	}
	if (o->run == LSB_RUN_TRACE && (err = write_file_meta(&c)) < 0)
		goto out;
	while ((err = lspd_next(c.f, &r)) > 0) {
		c.st->records++;
		err = lsr_conv_record(&c, &r);
		if (err < 0)
			goto out;
	}
	if (err < 0) {
		err = lsr_conv_fail(&c, err, "%s", lspd_errmsg(c.f));
		goto out;
	}
	/* Pipe mode: the cpuid feature arrives as a record, after the open. */
	if (o->run == LSB_RUN_TRACE && lspd_is_pipe(c.f) && (err = write_file_meta(&c)) < 0)
		goto out;
	err = lsr_conv_finish(&c);
out:
	lsr_conv_release(&c);
	lspd_close(c.f);
	return err < 0 ? err : 0;
}

/* The sideband record of file i with the lowest time, -1 when all are
 * done: the files' records merge in time order, as perf orders events. */
