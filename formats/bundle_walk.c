/* bundle_walk.c - walks the batched sections of a bundle: events, samples
 * and memory accesses, decoding records with bounds checks.
 *
 * A damaged section is skipped and the walk goes on, so one bad batch
 * costs its own records only; the walk then ends with -LS_ECORRUPT.
 */
#include <string.h>

#include "bundle_int.h"
#include "ls_err.h"

static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint64_t x;

	if (ls_get_uleb(p, end, &x) < 0 || x > UINT32_MAX)
		return -LS_ECORRUPT;
	*v = (uint32_t)x;
	return 0;
}

static int get_i32(const uint8_t **p, const uint8_t *end, int32_t *v)
{
	int64_t x;

	if (ls_get_sleb(p, end, &x) < 0 || x < INT32_MIN || x > INT32_MAX)
		return -LS_ECORRUPT;
	*v = (int32_t)x;
	return 0;
}

static int decode_event(struct lsb_reader *r, const uint8_t **p,
			const uint8_t *end, struct lsb_event *ev)
{
	const uint8_t *id, *name;
	uint32_t type;
	uint64_t nl;

	memset(ev, 0, sizeof(*ev));
	if (get_u32(p, end, &type) < 0 || type > UINT16_MAX ||
	    ls_get_u8(p, end, &ev->run) < 0 ||
	    get_u32(p, end, &ev->pid) < 0 ||
	    get_u32(p, end, &ev->tid) < 0 ||
	    get_i32(p, end, &ev->cpu) < 0 ||
	    ls_get_uleb(p, end, &ev->time) < 0 ||
	    ls_get_uleb(p, end, &ev->addr) < 0 ||
	    ls_get_uleb(p, end, &ev->len) < 0 ||
	    ls_get_uleb(p, end, &ev->pgoff) < 0 ||
	    get_u32(p, end, &ev->prot) < 0 ||
	    get_u32(p, end, &ev->arg) < 0 ||
	    ls_get_u8(p, end, &ev->build_id_len) < 0 ||
	    ev->build_id_len > LSB_BUILD_ID_MAX ||
	    ls_get_bytes(p, end, ev->build_id_len, &id) < 0 ||
	    ls_get_uleb(p, end, &nl) < 0 || nl > LSB_MAX_STRING + 1)
		return -LS_ECORRUPT;
	ev->type = (uint16_t)type;
	memcpy(ev->build_id, id, ev->build_id_len);
	if (nl) {
		if (ls_get_bytes(p, end, (size_t)nl - 1, &name) < 0 ||
		    memchr(name, 0, (size_t)nl - 1))
			return -LS_ECORRUPT;
		memcpy(r->name, name, (size_t)nl - 1);
		r->name[nl - 1] = '\0';
		ev->name = r->name;
	}
	return 0;
}

static int decode_sample(struct lsb_reader *r, const uint8_t **p,
			 const uint8_t *end, struct lsb_sample *s)
{
	uint32_t k;

	memset(s, 0, sizeof(*s));
	if (ls_get_u8(p, end, &s->run) < 0 ||
	    get_u32(p, end, &s->pid) < 0 ||
	    get_u32(p, end, &s->tid) < 0 ||
	    get_i32(p, end, &s->cpu) < 0 ||
	    ls_get_uleb(p, end, &s->time) < 0 ||
	    ls_get_uleb(p, end, &s->ip) < 0 ||
	    ls_get_uleb(p, end, &s->period) < 0 ||
	    get_u32(p, end, &s->event) < 0 ||
	    get_u32(p, end, &s->nr_callchain) < 0 ||
	    s->nr_callchain > LSB_MAX_CALLCHAIN)
		return -LS_ECORRUPT;
	for (k = 0; k < s->nr_callchain; k++)
		if (ls_get_uleb(p, end, &r->callchain[k]) < 0)
			return -LS_ECORRUPT;
	s->callchain = r->callchain;
	return 0;
}

struct walk_cbs {
	int (*ev)(const struct lsb_event *ev, void *arg);
	int (*smp)(const struct lsb_sample *s, void *arg);
	int (*mem)(uint32_t stream, const void *enc, size_t len, void *arg);
	void *arg;
};

static int decode_memacc(const uint8_t **p, const uint8_t *end,
			 uint32_t *stream, const uint8_t **enc, size_t *len)
{
	uint64_t n;

	if (get_u32(p, end, stream) < 0 || ls_get_uleb(p, end, &n) < 0 ||
	    !n || n > LSB_MAX_MEMACC || ls_get_bytes(p, end, (size_t)n, enc) < 0)
		return -LS_ECORRUPT;
	*len = (size_t)n;
	return 0;
}

/* Decodes one record of a section of this type and hands it to its
 * callback.  *cbret gets the callback's return. */
static int walk_one(struct lsb_reader *r, unsigned type, const uint8_t **p,
		    const uint8_t *end, const struct walk_cbs *cb, int *cbret)
{
	struct lsb_event ev;
	struct lsb_sample s;
	const uint8_t *enc;
	uint32_t stream;
	size_t len;

	switch (type) {
	case LSB_SEC_EVENTS:
		if (decode_event(r, p, end, &ev) < 0)
			return -LS_ECORRUPT;
		*cbret = cb->ev(&ev, cb->arg);
		return 0;
	case LSB_SEC_SAMPLES:
		if (decode_sample(r, p, end, &s) < 0)
			return -LS_ECORRUPT;
		*cbret = cb->smp(&s, cb->arg);
		return 0;
	default:
		if (decode_memacc(p, end, &stream, &enc, &len) < 0)
			return -LS_ECORRUPT;
		*cbret = cb->mem(stream, enc, len, cb->arg);
		return 0;
	}
}

static int walk(struct lsb_reader *r, unsigned type, const struct walk_cbs *cb)
{
	size_t i;
	int ret = 0, err, cbret;

	for (i = 0; i < r->nsecs; i++) {
		const uint8_t *p, *end;
		uint32_t n = 0;

		if (r->secs[i].type != type)
			continue;
		err = lsb_rsec_load(r, i);
		if (err == -LS_EIO || err == -LS_ENOMEM || err == -LS_ETRUNC)
			return err;
		if (err < 0) {
			ret = err;
			continue;
		}
		p = r->raw.p;
		end = p + r->raw.len;
		while (p < end) {
			const uint8_t *rec = p;

			cbret = 0;
			if (walk_one(r, type, &p, end, cb, &cbret) < 0) {
				ret = lsb_rsec_damaged(r, i, "bad record %u at payload byte %td",
						       n, rec - r->raw.p);
				break;
			}
			if (cbret)
				return cbret;
			n++;
		}
		if (p == end && n != r->secs[i].aux32)
			ret = lsb_rsec_damaged(r, i, "%u records, %u declared",
					       n, r->secs[i].aux32);
	}
	return ret;
}

int lsb_reader_events(struct lsb_reader *r,
		      int (*cb)(const struct lsb_event *ev, void *arg),
		      void *arg)
{
	struct walk_cbs c = { .ev = cb, .arg = arg };

	if (!r || !cb)
		return -LS_EINVAL;
	return walk(r, LSB_SEC_EVENTS, &c);
}

int lsb_reader_samples(struct lsb_reader *r,
		       int (*cb)(const struct lsb_sample *s, void *arg),
		       void *arg)
{
	struct walk_cbs c = { .smp = cb, .arg = arg };

	if (!r || !cb)
		return -LS_EINVAL;
	return walk(r, LSB_SEC_SAMPLES, &c);
}

int lsb_reader_memacc(struct lsb_reader *r,
		      int (*cb)(uint32_t stream, const void *enc, size_t len,
				void *arg),
		      void *arg)
{
	struct walk_cbs c = { .mem = cb, .arg = arg };

	if (!r || !cb)
		return -LS_EINVAL;
	return walk(r, LSB_SEC_MEMACC, &c);
}
