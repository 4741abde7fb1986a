/* perfdata_rec.c - decoding of perf.data record bodies, attrs and feature
 * sections.  Every field is read through a bounds-checked cursor over the
 * record, so a lying length can only produce an error. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "formats/perfdata_int.h"

struct cur {
	const uint8_t *p;
	size_t left;
	int bad;		/* a read went past the end */
};

static uint64_t c64(struct cur *c)
{
	uint64_t v;

	if (c->left < 8) {
		c->bad = 1;
		c->left = 0;
		return 0;
	}
	v = lspd_get64(c->p);
	c->p += 8;
	c->left -= 8;
	return v;
}

static uint32_t c32(struct cur *c)
{
	uint32_t v;

	if (c->left < 4) {
		c->bad = 1;
		c->left = 0;
		return 0;
	}
	v = lspd_get32(c->p);
	c->p += 4;
	c->left -= 4;
	return v;
}

static const uint8_t *cskip(struct cur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (c->left < n) {
		c->bad = 1;
		c->left = 0;
		return NULL;
	}
	c->p += n;
	c->left -= (size_t)n;
	return p;
}

/* A NUL-terminated string inside the next n bytes, or NULL. */
static const char *cstr(struct cur *c, uint64_t n)
{
	const uint8_t *p = cskip(c, n);

	if (!p || !memchr(p, '\0', (size_t)n)) {
		c->bad = 1;
		return NULL;
	}
	return (const char *)p;
}

static unsigned popcount64(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int lspd_parse_attr(struct lspd_file *f, const uint8_t *p, size_t len,
		    struct lspd_attr *a, uint64_t off)
{
	uint32_t size;

	/* PERF_ATTR_SIZE_VER0 is 64 bytes; later fields are optional. */
	if (len < 64)
		return lspd_fail(f, LS_ECORRUPT, UINT32_MAX, off,
				 "perf_event_attr of %zu bytes is below 64", len);
	memset(a, 0, sizeof(*a));
	a->type = lspd_get32(p);
	size = lspd_get32(p + 4);
	a->size = size ? size : 64;
	a->config = lspd_get64(p + 8);
	a->sample_period = lspd_get64(p + 16);
	a->sample_type = lspd_get64(p + 24);
	a->read_format = lspd_get64(p + 32);
	a->flags = lspd_get64(p + 40);
	a->freq = a->flags >> 10 & 1;
	a->sample_id_all = a->flags >> 18 & 1;
	if (len >= 80 && a->size >= 80)
		a->branch_sample_type = lspd_get64(p + 72);
	if (len >= 96 && a->size >= 96) {
		a->sample_regs_user = lspd_get64(p + 80);
		a->sample_stack_user = lspd_get32(p + 88);
	}
	if (len >= 104 && a->size >= 104)
		a->sample_regs_intr = lspd_get64(p + 96);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct lspd_idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int lspd_add_id(struct lspd_file *f, uint64_t id, uint32_t attr)
{
	if (f->nids >= LSPD_MAX_IDS)
		return lspd_fail(f, LS_ELIMIT, UINT32_MAX, f->pos,
				 "more than %u sample ids", LSPD_MAX_IDS);
	if (LS_GROW(f->ids, f->nids + 1, f->capids, 64))
		return -LS_ENOMEM;
	f->ids[f->nids].id = id;
	f->ids[f->nids++].attr = attr;
	f->ids_sorted = 0;
	return 0;
}

int lspd_attr_of_id(struct lspd_file *f, uint64_t id)
{
	struct lspd_idmap key = { id, 0 }, *hit;

	if (!f->ids_sorted && f->nids) {
		qsort(f->ids, f->nids, sizeof(*f->ids), cmp_id);
		f->ids_sorted = 1;
	}
	hit = f->nids ? bsearch(&key, f->ids, f->nids, sizeof(*f->ids), cmp_id)
		      : NULL;
	return hit ? (int)hit->attr : -1;
}

static int same_sample_type(const struct lspd_file *f)
{
	size_t i;

	for (i = 1; i < f->nattrs; i++)
		if (f->attrs[i].sample_type != f->attrs[0].sample_type ||
		    f->attrs[i].sample_id_all != f->attrs[0].sample_id_all)
			return 0;
	return 1;
}

/* Which attr a record belongs to.  With one sample_type for all events
 * any of them describes the layout; otherwise perf requires
 * PERF_SAMPLE_IDENTIFIER, whose id sits at a fixed place (first word of a
 * sample, last word of the sample_id trailer). */
static int pick_attr(struct lspd_file *f, const struct lspd_record *r,
		     int sample, size_t body_len)
{
	const uint8_t *body = r->data + 8;
	uint64_t id;
	int a;

	if (!f->nattrs)
		return -1;
	if (same_sample_type(f) &&
	    !(f->attrs[0].sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
		return 0;
	if (!(f->attrs[0].sample_type & PERF_SAMPLE_IDENTIFIER)) {
		if (same_sample_type(f))
			return 0;
		return -2;
	}
	if (body_len < 8)
		return -3;
	id = lspd_get64(sample ? body : body + body_len - 8);
	a = lspd_attr_of_id(f, id);
	/* perf's synthesized records (mmaps of running processes, the
	 * kernel) carry id 0, which perf reads with the first event. */
	if (a < 0 && (id == 0 || same_sample_type(f)))
		return 0;
	return a < 0 ? -4 : a;
}

/* Decodes the sample_id_all trailer of a non-SAMPLE record and returns the
 * body length before it, or a negative code. */
static int64_t parse_sample_id(struct lspd_file *f, struct lspd_record *r)
{
	size_t body_len = r->size - 8u;
	const struct lspd_attr *a;
	uint64_t st;
	struct cur c;
	unsigned n;
	int ai;

	r->sid.cpu = -1;
	r->sid.attr = -1;
	ai = pick_attr(f, r, 0, body_len);
	if (ai == -1)
		return (int64_t)body_len;
	if (ai < 0)
		return lspd_fail(f, LS_EPERF, r->type, r->offset,
				 "cannot tell which event it belongs to (no sample id)");
	a = &f->attrs[ai];
	if (!a->sample_id_all)
		return (int64_t)body_len;
	st = a->sample_type;
	n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
	    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
	    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	if (8u * n > body_len)
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
				 "%zu-byte body cannot hold its %u-byte sample id", body_len,
				 8u * n);
	c.p = r->data + 8 + body_len - 8u * n;
	c.left = 8u * n;
	c.bad = 0;
	r->sid.attr = ai;
	r->sid.have = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_IDENTIFIER);
	if (st & PERF_SAMPLE_TID) {
		r->sid.pid = c32(&c);
		r->sid.tid = c32(&c);
	}
	if (st & PERF_SAMPLE_TIME)
		r->sid.time = c64(&c);
	if (st & PERF_SAMPLE_ID)
		r->sid.id = c64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		r->sid.stream_id = c64(&c);
	if (st & PERF_SAMPLE_CPU) {
		r->sid.cpu = (int32_t)c32(&c);
		c32(&c);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		r->sid.id = c64(&c);
	return (int64_t)(body_len - 8u * n);
}

static void skip_read_format(struct cur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & (1u << 4));	/* LOST */
	uint64_t nr = 1;

	if (rf & PERF_FORMAT_GROUP)
		nr = c64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		c64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		c64(c);
	if (nr > c->left / 8 / per)
		c->bad = 1;
	else
		cskip(c, nr * per * 8);
}

static int decode_sample(struct lspd_file *f, struct lspd_record *r)
{
	struct lspd_sample *s = &r->u.sample;
	const struct lspd_attr *a;
	uint64_t st, nr;
	struct cur c = { r->data + 8, r->size - 8u, 0 };
	int ai = pick_attr(f, r, 1, r->size - 8u);

	s->sid.cpu = -1;
	if (ai < 0)
		return lspd_fail(f, LS_EPERF, r->type, r->offset, "%s",
				 ai == -1 ? "sample before any event attr"
					  : "cannot tell which event it belongs to");
	a = &f->attrs[ai];
	st = a->sample_type;
	s->sid.attr = ai;
	s->sid.have = st;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->sid.id = c64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = c64(&c);
	if (st & PERF_SAMPLE_TID) {
		s->sid.pid = c32(&c);
		s->sid.tid = c32(&c);
	}
	if (st & PERF_SAMPLE_TIME)
		s->sid.time = c64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = c64(&c);
	if (st & PERF_SAMPLE_ID)
		s->sid.id = c64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->sid.stream_id = c64(&c);
	if (st & PERF_SAMPLE_CPU) {
		s->sid.cpu = (int32_t)c32(&c);
		c32(&c);
	}
	/* Without PERIOD in the sample the period is the attr's fixed one. */
	s->period = a->freq ? 0 : a->sample_period;
	if (st & PERF_SAMPLE_PERIOD)
		s->period = c64(&c);
	if (st & PERF_SAMPLE_READ)
		skip_read_format(&c, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		nr = c64(&c);
		if (nr > c.left / 8) {
			c.bad = 1;
		} else {
			s->nr_callchain = nr;
			/* The record buffer is 8-byte aligned and so is this. */
			s->callchain = (const uint64_t *)(const void *)cskip(&c, nr * 8);
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		s->raw_size = c32(&c);
		s->raw = cskip(&c, s->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		nr = c64(&c);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			c64(&c);
		if (nr > c.left / 24)
			c.bad = 1;
		else
			cskip(&c, nr * 24);
		s->nr_branches = nr;
	}
	if ((st & PERF_SAMPLE_REGS_USER) && c64(&c))
		cskip(&c, 8ull * popcount64(a->sample_regs_user));
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = c64(&c);

		cskip(&c, sz);
		if (sz)
			c64(&c);
	}
	/* The remaining fields are single words we do not use; they only
	 * have to fit. */
	if (st & (PERF_SAMPLE_WEIGHT | (1ull << 24)))
		c64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		c64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		c64(&c);
	if ((st & PERF_SAMPLE_REGS_INTR) && c64(&c))
		cskip(&c, 8ull * popcount64(a->sample_regs_intr));
	if (st & PERF_SAMPLE_PHYS_ADDR)
		c64(&c);
	if (c.bad)
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
				 "fields of sample_type 0x%" PRIx64 " do not fit in %u bytes",
				 st, r->size);
	return 0;
}

static int decode_mmap(struct lspd_file *f, struct lspd_record *r, struct cur *c)
{
	struct lspd_mmap *m = &r->u.mmap;

	m->pid = c32(c);
	m->tid = c32(c);
	m->addr = c64(c);
	m->len = c64(c);
	m->pgoff = c64(c);
	m->prot = (r->misc & PERF_RECORD_MISC_MMAP_DATA) ? 3 : 5;
	if (r->type == PERF_RECORD_MMAP2) {
		if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *p = cskip(c, 24);

			if (p) {
				m->build_id_len = p[0] > LSPD_BUILD_ID_MAX
					? LSPD_BUILD_ID_MAX : p[0];
				memcpy(m->build_id, p + 4, m->build_id_len);
			}
		} else {
			cskip(c, 24);	/* maj, min, ino, ino_generation */
		}
		m->prot = c32(c);
		m->flags = c32(c);
	}
	m->filename = cstr(c, c->left);
	(void)f;
	return 0;
}

static int decode_auxtrace_info(struct lspd_file *f, struct lspd_record *r,
				struct cur *c)
{
	struct lspd_auxtrace_info *ai = &r->u.auxtrace_info;
	uint64_t n;

	ai->type = c32(c);
	c32(c);
	n = c->left / 8;
	ai->npriv = n > LSPD_PT_PRIV_MAX ? LSPD_PT_PRIV_MAX : (uint32_t)n;
	for (n = 0; n < ai->npriv; n++)
		ai->priv[n] = c64(c);
	if (ai->type == LSPD_AUXTRACE_INTEL_PT && ai->npriv == LSPD_PT_PRIV_MAX &&
	    ai->priv[LSPD_PT_FILTER_STR_LEN]) {
		uint64_t len = ai->priv[LSPD_PT_FILTER_STR_LEN];

		/* The filter string (NUL included, padded to 8) follows. */
		if (len > LSPD_PT_FILTER_MAX || len >= c->left)
			return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
					 "filter string length %" PRIu64 " does not fit",
					 len);
		ai->filter = cstr(c, c->left);
	}
	return 0;
}

static int decode_header_attr(struct lspd_file *f, struct lspd_record *r)
{
	const uint8_t *p = r->data + 8;
	size_t len = r->size - 8u, asz, i;
	struct lspd_attr a, *na;
	int err;

	if (len < 8)
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset, "too short");
	asz = lspd_get32(p + 4);
	if (!asz)
		asz = 64;
	if (asz > len || asz % 8)
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
				 "attr size %zu does not fit in %zu bytes", asz, len);
	err = lspd_parse_attr(f, p, asz, &a, r->offset);
	if (err < 0)
		return err;
	if (f->nattrs >= LSPD_MAX_ATTRS)
		return lspd_fail(f, LS_ELIMIT, r->type, r->offset,
				 "more than %u events", LSPD_MAX_ATTRS);
	na = ls_reallocarray(f->attrs, f->nattrs + 1, sizeof(*na));
	if (!na)
		return -LS_ENOMEM;
	f->attrs = na;
	f->attrs[f->nattrs] = a;
	for (i = asz; i + 8 <= len; i += 8) {
		err = lspd_add_id(f, lspd_get64(p + i), (uint32_t)f->nattrs);
		if (err < 0)
			return err;
	}
	f->nattrs++;
	return 0;
}

static int add_build_id(struct lspd_file *f, const uint8_t *p, size_t len,
			uint64_t off, uint32_t rtype)
{
	struct lspd_build_id *b;
	uint16_t misc = lspd_get16(p + 4);
	size_t nlen;

	/* header, pid, 24-byte id field, filename */
	if (len < 8 + 4 + 24 + 1)
		return lspd_fail(f, LS_ECORRUPT, rtype, off,
				 "build-id entry of %zu bytes is too short", len);
	nlen = strnlen((const char *)p + 36, len - 36);
	if (nlen == len - 36)
		return lspd_fail(f, LS_ECORRUPT, rtype, off,
				 "build-id file name is not terminated");
	if (f->nbids >= LSPD_MAX_BUILD_IDS)
		return lspd_fail(f, LS_ELIMIT, rtype, off, "more than %u build-ids",
				 LSPD_MAX_BUILD_IDS);
	if (LS_GROW(f->bids, f->nbids + 1, f->capbids, 32))
		return -LS_ENOMEM;
	b = &f->bids[f->nbids];
	memset(b, 0, sizeof(*b));
	b->pid = (int32_t)lspd_get32(p + 8);
	b->misc = misc;
	/* Newer perf stores the id's length in byte 20 of the id field. */
	b->len = (misc & (1u << 15)) && p[12 + 20] <= LSPD_BUILD_ID_MAX
		? p[12 + 20] : LSPD_BUILD_ID_MAX;
	memcpy(b->id, p + 12, b->len);
	b->filename = strndup((const char *)p + 36, nlen);
	if (!b->filename)
		return -LS_ENOMEM;
	f->nbids++;
	return 0;
}

static char *feat_string(struct cur *c)
{
	uint32_t len = c32(c);
	const char *s = cstr(c, len);

	return s ? strdup(s) : NULL;
}

int lspd_parse_feature(struct lspd_file *f, unsigned feat, const uint8_t *p,
		       size_t len, uint64_t off)
{
	struct cur c = { p, len, 0 };
	uint32_t rtype = f->pipe ? LSPD_REC_HEADER_FEATURE : UINT32_MAX;

	if (feat == LSPD_FEAT_BUILD_ID) {
		while (c.left) {
			uint16_t sz = c.left >= 8 ? lspd_get16(c.p + 6) : 0;
			int err;

			if (sz < 8 || sz > c.left)
				return lspd_fail(f, LS_ECORRUPT, rtype, off,
						 "build-id entry size %u does not fit in %zu bytes",
						 sz, c.left);
			err = add_build_id(f, c.p, sz, off, rtype);
			if (err < 0)
				return err;
			cskip(&c, sz);
		}
		return 0;
	}
	if (feat == LSPD_FEAT_EVENT_DESC) {
		uint32_t nr = c32(&c), asz = c32(&c), i, k;

		for (i = 0; i < nr && !c.bad; i++) {
			uint32_t nids;
			char *name;
			int ai = -1;

			if (!cskip(&c, asz))
				break;
			nids = c32(&c);
			name = feat_string(&c);
			if (!name)
				break;
			for (k = 0; k < nids && !c.bad; k++) {
				uint64_t id = c64(&c);

				if (ai < 0)
					ai = lspd_attr_of_id(f, id);
			}
			/* File mode lists events in attr order. */
			if (ai < 0 && !f->pipe && i < f->nattrs)
				ai = (int)i;
			if (ai >= 0 && !f->attrs[ai].name)
				f->attrs[ai].name = name;
			else
				free(name);
		}
		if (c.bad)
			return lspd_fail(f, LS_ECORRUPT, rtype, off,
					 "event description section is cut short");
		return 0;
	}
	if (feat < sizeof(f->strfeat) / sizeof(f->strfeat[0]) &&
	    feat != LSPD_FEAT_NRCPUS && feat != LSPD_FEAT_TRACING_DATA) {
		char *s = feat_string(&c);

		if (!s)
			return lspd_fail(f, c.bad ? LS_ECORRUPT : LS_ENOMEM, rtype, off,
					 "feature %u string does not fit", feat);
		free(f->strfeat[feat]);
		f->strfeat[feat] = s;
	}
	return 0;
}

static int decode_event_update(struct lspd_file *f, struct lspd_record *r,
			       struct cur *c)
{
	uint64_t type = c64(c), id = c64(c);
	const char *name;
	int ai;

	if (type != 2 || c->bad)	/* PERF_EVENT_UPDATE__NAME */
		return 0;
	name = cstr(c, c->left);
	ai = lspd_attr_of_id(f, id);
	if (name && ai >= 0) {
		free(f->attrs[ai].name);
		f->attrs[ai].name = strdup(name);
		if (!f->attrs[ai].name)
			return -LS_ENOMEM;
	}
	(void)r;
	return 0;
}

int lspd_decode(struct lspd_file *f, struct lspd_record *r)
{
	struct cur c;
	int64_t body;
	int err = 0;

	r->sid.cpu = -1;
	r->sid.attr = -1;
	if (r->type == PERF_RECORD_SAMPLE)
		return decode_sample(f, r);
	body = r->size - 8;
	if (r->type < 64) {
		/* Kernel records carry the sample_id trailer. */
		body = parse_sample_id(f, r);
		if (body < 0)
			return (int)body;
	}
	c.p = r->data + 8;
	c.left = (size_t)body;
	c.bad = 0;
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = decode_mmap(f, r, &c);
		break;
	case PERF_RECORD_COMM:
		r->u.comm.pid = c32(&c);
		r->u.comm.tid = c32(&c);
		r->u.comm.comm = cstr(&c, c.left);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		r->u.task.pid = c32(&c);
		r->u.task.ppid = c32(&c);
		r->u.task.tid = c32(&c);
		r->u.task.ptid = c32(&c);
		r->u.task.time = c64(&c);
		break;
	case PERF_RECORD_ITRACE_START:
		r->u.itrace_start.pid = c32(&c);
		r->u.itrace_start.tid = c32(&c);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		r->u.sw.next_prev_pid = c32(&c);
		r->u.sw.next_prev_tid = c32(&c);
		break;
	case PERF_RECORD_LOST:
		r->u.lost.id = c64(&c);
		r->u.lost.lost = c64(&c);
		break;
	case PERF_RECORD_AUX:
		r->u.aux.offset = c64(&c);
		r->u.aux.size = c64(&c);
		r->u.aux.flags = c64(&c);
		break;
	case LSPD_REC_AUXTRACE:
		r->u.auxtrace.size = c64(&c);
		r->u.auxtrace.offset = c64(&c);
		r->u.auxtrace.reference = c64(&c);
		r->u.auxtrace.idx = c32(&c);
		r->u.auxtrace.tid = c32(&c);
		r->u.auxtrace.cpu = (int32_t)c32(&c);
		break;
	case LSPD_REC_AUXTRACE_INFO:
		err = decode_auxtrace_info(f, r, &c);
		break;
	case LSPD_REC_TIME_CONV:
		r->u.time_conv.time_shift = c64(&c);
		r->u.time_conv.time_mult = c64(&c);
		r->u.time_conv.time_zero = c64(&c);
		break;
	case LSPD_REC_HEADER_ATTR:
		err = decode_header_attr(f, r);
		break;
	case LSPD_REC_HEADER_BUILD_ID:
		err = add_build_id(f, r->data, r->size, r->offset, r->type);
		break;
	case LSPD_REC_HEADER_FEATURE: {
		uint64_t feat = c64(&c);

		if (!c.bad && feat < LSPD_FEAT_MAX)
			err = lspd_parse_feature(f, (unsigned)feat, c.p, c.left,
						 r->offset);
		break;
	}
	case LSPD_REC_HEADER_TRACING_DATA:
		c32(&c);
		break;
	case LSPD_REC_EVENT_UPDATE:
		err = decode_event_update(f, r, &c);
		break;
	case LSPD_REC_ID_INDEX: {
		uint64_t nr = c64(&c);

		if (nr > c.left / 32)
			c.bad = 1;
		break;
	}
	case LSPD_REC_COMPRESSED:
	case LSPD_REC_COMPRESSED2:
		break;	/* perfdata_z.c reads the records inside */
	default:
		/* THREAD_MAP, CPU_MAP, STAT*, THROTTLE, KSYMBOL, ...: not used. */
		break;
	}
	if (err < 0)
		return err;
	if (c.bad)
		return lspd_fail(f, LS_ECORRUPT, r->type, r->offset,
				 "fields do not fit in its %u bytes", r->size);
	return 0;
}
