/* bundle_tab.c - a bundle's tables (metadata, streams, chunks, modules)
 * from its sections, and the reader's accessors to them and to the
 * payloads they name.  The container underneath (header, index or
 * recovery scan, section reads and checks) is bundle_read.c's.
 *
 * Nothing read from the file is trusted (see bundle_read.c): each table
 * entry is checked against its section before it is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "bundle_int.h"
#include "ls_crc32.h"
#include "ls_err.h"

static int add_meta(struct lsb_reader *r, const uint8_t *k, size_t kl,
		    const uint8_t *v, size_t vl)
{
	char *ks, *vs;
	size_t i;

	vs = strndup((const char *)v, vl);
	if (!vs)
		return -LS_ENOMEM;
	for (i = 0; i < r->nmeta; i++) {
		if (strlen(r->meta[i].key) == kl && !memcmp(r->meta[i].key, k, kl)) {
			free(r->meta[i].value);
			r->meta[i].value = vs;
			return 0;
		}
	}
	if (r->nmeta >= LSB_MAX_META) {
		free(vs);
		return -LS_ELIMIT;
	}
	if (LS_GROW(r->meta, r->nmeta + 1, r->meta_cap, 16)) {
		free(vs);
		return -LS_ENOMEM;
	}
	ks = strndup((const char *)k, kl);
	if (!ks) {
		free(vs);
		return -LS_ENOMEM;
	}
	r->meta[r->nmeta].key = ks;
	r->meta[r->nmeta].value = vs;
	r->nmeta++;
	return 0;
}

static int load_meta(struct lsb_reader *r, size_t i)
{
	const uint8_t *p, *end, *k, *v;
	uint64_t kl, vl;
	int err;

	if ((err = lsb_rsec_load(r, i)) < 0)
		return err;
	p = r->raw.p;
	end = p + r->raw.len;
	while (p < end) {
		if (ls_get_uleb(&p, end, &kl) < 0 || !kl || kl > LSB_MAX_STRING ||
		    ls_get_bytes(&p, end, (size_t)kl, &k) < 0 ||
		    ls_get_uleb(&p, end, &vl) < 0 || vl > LSB_MAX_VALUE ||
		    ls_get_bytes(&p, end, (size_t)vl, &v) < 0 ||
		    memchr(k, 0, (size_t)kl) || memchr(v, 0, (size_t)vl))
			return lsb_rsec_damaged(r, i, "bad key/value at payload byte %td",
						p - r->raw.p);
		err = add_meta(r, k, (size_t)kl, v, (size_t)vl);
		if (err == -LS_ELIMIT)
			return lsb_rsec_damaged(r, i, "more than %u meta keys",
						LSB_MAX_META);
		if (err < 0)
			return lsb_rsec_err(r, i, err, "out of memory");
	}
	return 0;
}

static struct r_stream *find_stream(struct lsb_reader *r, uint32_t id)
{
	size_t i;

	for (i = 0; i < r->nstreams; i++)
		if (r->streams[i].s.id == id)
			return &r->streams[i];
	return NULL;
}

static int load_stream(struct lsb_reader *r, size_t i)
{
	struct r_stream *rs;
	const uint8_t *p;
	int err;

	if ((err = lsb_rsec_load(r, i)) < 0)
		return err;
	if (r->raw.len != LSB_STREAM_PAYLOAD)
		return lsb_rsec_damaged(r, i, "stream declaration of %zu bytes",
					r->raw.len);
	if (find_stream(r, r->secs[i].id))
		return lsb_rsec_damaged(r, i, "stream %u declared twice",
					r->secs[i].id);
	if (LS_GROW(r->streams, r->nstreams + 1, r->streams_cap, 8))
		return lsb_rsec_err(r, i, -LS_ENOMEM, "out of memory");
	p = r->raw.p;
	rs = &r->streams[r->nstreams++];
	memset(rs, 0, sizeof(*rs));
	rs->s.id = r->secs[i].id;
	rs->s.kind = ls_le32(p);
	rs->s.pid = ls_le32(p + 4);
	rs->s.tid = ls_le32(p + 8);
	rs->s.cpu = (int32_t)ls_le32(p + 12);
	rs->s.flags = ls_le32(p + 16);
	return 0;
}

static int note_heads(struct lsb_reader *r, size_t i)
{
	struct r_stream *rs = find_stream(r, r->secs[i].id);

	if (!rs)
		return lsb_rsec_damaged(r, i, "heads of undeclared stream %u", r->secs[i].id);
	if (rs->heads)
		return lsb_rsec_damaged(r, i, "heads of stream %u repeated", r->secs[i].id);
	rs->heads = i + 1;
	return 0;
}

static int add_chunk(struct lsb_reader *r, size_t i)
{
	const struct r_sec *s = &r->secs[i];
	struct r_stream *rs = find_stream(r, s->id);
	struct lsb_chunk *c;

	if (!rs)
		return lsb_rsec_damaged(r, i, "chunk of undeclared stream %u", s->id);
	if (LS_GROW(rs->chunks, rs->nchunks + 1, rs->cap, 16))
		return lsb_rsec_err(r, i, -LS_ENOMEM, "out of memory");
	c = &rs->chunks[rs->nchunks++];
	c->stream = s->id;
	c->seq = s->aux32;
	c->flags = (s->flags & LSB_SF_PSB) ? LSB_CHUNK_PSB : 0;
	c->stream_offset = s->aux64;
	c->raw_size = s->raw;
	c->stored_size = s->stored;
	c->file_offset = s->off;
	return 0;
}

/* Stored bytes of a module's section read first: its frame's header and
 * first block where that block is the descriptor's alone (at most 4,143
 * bytes raw: LSB_BUILD_ID_MAX and LSB_MAX_STRING). */
#define DESC_PEEK ((size_t)8 << 10)

static int load_module(struct lsb_reader *r, size_t i)
{
	const struct r_sec *s = &r->secs[i];
	uint32_t dlen = s->aux32;
	const uint8_t *p, *end, *id, *path;
	struct r_module *rm;
	uint64_t plen;
	uint8_t idlen;
	size_t n;
	int err;

	/* Only the descriptor is read: the ELF bytes behind it can be
	 * large and are checked when asked for.  Our writer ends the
	 * frame's first block with the descriptor (bundle_write.c), which
	 * the first DESC_PEEK bytes then hold; other writers' (and before
	 * 2026-12-06 ours) have it in a block of up to 128 KB. */
	n = s->stored;
	if (s->flags & LSB_SF_ZSTD) {
		if (n > (160u << 10))	/* frame header + first block */
			n = 160u << 10;
	} else {
		n = dlen;
	}
	if ((err = ls_buf_reserve(&r->stored, n)) < 0)
		return lsb_rsec_err(r, i, err, "out of memory");
	if (s->flags & LSB_SF_ZSTD) {
		size_t k = n < DESC_PEEK ? n : DESC_PEEK;

		if ((err = lsb_rpread(r, r->stored.p, k, s->off + LSB_SEC_HDR)) < 0)
			return err;
		/* (a length past any descriptor's: the whole way, which
		 * says what is wrong) */
		if (dlen <= DESC_PEEK &&
		    (err = lsb_rsec_peek(r, r->stored.p, k, &r->raw, dlen)) < 0)
			return lsb_rsec_err(r, i, err, "out of memory");
		if (!err && n > k &&
		    (err = lsb_rpread(r, r->stored.p + k, n - k, s->off + LSB_SEC_HDR + k)) < 0)
			return err;
		if (!err && (err = lsb_rsec_inflate(r, i, r->stored.p, n, &r->raw, NULL, dlen, 1)) < 0)
			return err;
	} else if ((err = lsb_rpread(r, r->stored.p, n, s->off + LSB_SEC_HDR)) < 0) {
		return err;
	} else {
		r->raw.len = 0;
		if ((err = ls_buf_add(&r->raw, r->stored.p, n)) < 0)
			return lsb_rsec_err(r, i, err, "out of memory");
	}
	if (r->raw.len != dlen || ls_crc32(0, r->raw.p, dlen) != (uint32_t)s->aux64)
		return lsb_rsec_damaged(r, i, "module descriptor checksum mismatch");
	if (LS_GROW(r->mods, r->nmods + 1, r->mods_cap, 16))
		return lsb_rsec_err(r, i, -LS_ENOMEM, "out of memory");
	rm = &r->mods[r->nmods];
	memset(rm, 0, sizeof(*rm));
	p = r->raw.p;
	end = p + dlen;
	if (ls_get_u8(&p, end, &idlen) < 0 || !idlen || idlen > LSB_BUILD_ID_MAX ||
	    ls_get_bytes(&p, end, idlen, &id) < 0 ||
	    ls_get_le32(&p, end, &rm->m.flags) < 0 ||
	    ls_get_le64(&p, end, &rm->m.file_size) < 0 ||
	    ls_get_uleb(&p, end, &plen) < 0 || plen > LSB_MAX_STRING ||
	    ls_get_bytes(&p, end, (size_t)plen, &path) < 0 || p != end ||
	    memchr(path, 0, (size_t)plen))
		return lsb_rsec_damaged(r, i, "bad module descriptor");
	if (s->raw != dlen + ((rm->m.flags & LSB_MOD_EMBEDDED) ? rm->m.file_size : 0))
		return lsb_rsec_damaged(r, i, "module size %llu does not match its payload",
					(unsigned long long)rm->m.file_size);
	memcpy(rm->m.build_id, id, idlen);
	rm->m.build_id_len = idlen;
	rm->m.path = strndup((const char *)path, (size_t)plen);
	if (!rm->m.path)
		return lsb_rsec_err(r, i, -LS_ENOMEM, "out of memory");
	rm->sec = i;
	r->nmods++;
	return 0;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct lsb_chunk *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

static size_t sec_at(const struct lsb_reader *r, uint64_t off)
{
	size_t lo = 0, hi = r->nsecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->secs[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nsecs && r->secs[lo].off == off ? lo : SIZE_MAX;
}

/* Builds the tables.  A damaged section is left out and counted; only
 * running out of memory or a failing read stops the open. */
int lsb_rtab_load(struct lsb_reader *r)
{
	size_t i, j, k;
	int err;

	for (i = 0; i < r->nsecs; i++) {
		const struct r_sec *s = &r->secs[i];

		switch (s->type) {
		case LSB_SEC_PTCHUNK:
			r->st.pt_raw += s->raw;
			r->st.pt_stored += s->stored;
			break;
		case LSB_SEC_MODULE:
			r->st.mod_raw += s->raw;
			r->st.mod_stored += s->stored;
			break;
		default:
			r->st.side_raw += s->raw;
			r->st.side_stored += s->stored;
			break;
		}
		if (s->damaged)
			continue;
		switch (s->type) {
		case LSB_SEC_META:
			err = load_meta(r, i);
			break;
		case LSB_SEC_STREAM:
			err = load_stream(r, i);
			break;
		case LSB_SEC_PTCHUNK:
			err = add_chunk(r, i);
			break;
		case LSB_SEC_MODULE:
			err = load_module(r, i);
			break;
		case LSB_SEC_PTHEADS:
			err = note_heads(r, i);
			break;
		default:
			err = 0;
			break;
		}
		if (err == -LS_ENOMEM || err == -LS_EIO || err == -LS_ETRUNC)
			return err;
	}
	/* Chunks in stream order; a repeated seq keeps the first written. */
	for (i = 0; i < r->nstreams; i++) {
		struct r_stream *rs = &r->streams[i];

		if (rs->nchunks)
			qsort(rs->chunks, rs->nchunks, sizeof(*rs->chunks), chunk_cmp);
		for (j = k = 0; j < rs->nchunks; j++) {
			if (k && rs->chunks[k - 1].seq == rs->chunks[j].seq) {
				lsb_rsec_damaged(r, sec_at(r, rs->chunks[j].file_offset),
						 "chunk %u of stream %u repeated",
						 rs->chunks[j].seq, rs->s.id);
				continue;
			}
			rs->chunks[k++] = rs->chunks[j];
		}
		rs->nchunks = k;
	}
	r->st.sections = r->nsecs;
	return 0;
}

const char *lsb_reader_meta(const struct lsb_reader *r, const char *key)
{
	size_t i;

	if (!r || !key)
		return NULL;
	for (i = 0; i < r->nmeta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

size_t lsb_reader_nmeta(const struct lsb_reader *r)
{
	return r ? r->nmeta : 0;
}

int lsb_reader_meta_at(const struct lsb_reader *r, size_t i, const char **key,
		       const char **value)
{
	if (!r || i >= r->nmeta || !key || !value)
		return -LS_EINVAL;
	*key = r->meta[i].key;
	*value = r->meta[i].value;
	return 0;
}

size_t lsb_reader_nstreams(const struct lsb_reader *r)
{
	return r ? r->nstreams : 0;
}

const struct lsb_stream *lsb_reader_stream(const struct lsb_reader *r, size_t i)
{
	return r && i < r->nstreams ? &r->streams[i].s : NULL;
}

size_t lsb_reader_nchunks(const struct lsb_reader *r, size_t stream_idx)
{
	return r && stream_idx < r->nstreams ? r->streams[stream_idx].nchunks : 0;
}

const struct lsb_chunk *lsb_reader_chunk(const struct lsb_reader *r,
					 size_t stream_idx, size_t chunk_idx)
{
	if (!r || stream_idx >= r->nstreams ||
	    chunk_idx >= r->streams[stream_idx].nchunks)
		return NULL;
	return &r->streams[stream_idx].chunks[chunk_idx];
}

uint64_t lsb_reader_stream_raw(const struct lsb_reader *r, size_t stream_idx)
{
	uint64_t n = 0;
	size_t k;

	for (k = 0; k < lsb_reader_nchunks(r, stream_idx); k++)
		n += r->streams[stream_idx].chunks[k].raw_size;
	return n;
}

int64_t lsb_reader_read_chunk(struct lsb_reader *r, const struct lsb_chunk *c,
			      void *buf, size_t cap)
{
	size_t i;
	int err;

	if (!r || !c || !buf)
		return -LS_EINVAL;
	i = sec_at(r, c->file_offset);
	if (i == SIZE_MAX || r->secs[i].type != LSB_SEC_PTCHUNK ||
	    r->secs[i].raw != c->raw_size || cap < c->raw_size)
		return -LS_EINVAL;
	if ((err = lsb_rsec_stored(r, i)) < 0)
		return err;
	if (!(r->secs[i].flags & LSB_SF_ZSTD)) {
		if (r->stored.len)
			memcpy(buf, r->stored.p, r->stored.len);
		return (int64_t)r->stored.len;
	}
	err = lsb_rsec_inflate(r, i, r->stored.p, r->stored.len, NULL, buf, c->raw_size, 0);
	return err < 0 ? err : (int64_t)c->raw_size;
}

int lsb_reader_chunk_ok(struct lsb_reader *r, const struct lsb_chunk *c)
{
	size_t i;
	int err;

	if (!r || !c)
		return -LS_EINVAL;
	i = sec_at(r, c->file_offset);
	if (i == SIZE_MAX || r->secs[i].type != LSB_SEC_PTCHUNK || r->secs[i].raw != c->raw_size)
		return -LS_EINVAL;
	err = lsb_rsec_stored(r, i);
	return err == -LS_ECORRUPT ? 0 : err < 0 ? err : 1;
}

int lsb_reader_pt_heads(struct lsb_reader *r, size_t stream_idx, uint64_t **ips,
			size_t *n)
{
	const struct r_stream *rs;
	const struct r_sec *s;
	const uint8_t *p, *end;
	uint64_t v = 0, d, *a;
	size_t i, k;
	int err;

	if (!r || !ips || !n || stream_idx >= r->nstreams)
		return -LS_EINVAL;
	*ips = NULL;
	*n = 0;
	rs = &r->streams[stream_idx];
	if (!rs->heads)
		return 0;
	i = rs->heads - 1;
	s = &r->secs[i];
	if (s->damaged)
		return -LS_ECORRUPT;
	/* (the chunks it was written with, every one there) */
	if (s->aux32 != rs->nchunks)
		return 0;
	for (k = 0; k < rs->nchunks; k++)
		if (rs->chunks[k].seq != k)
			return 0;
	if ((err = lsb_rsec_load(r, i)) < 0)
		return err;
	/* (a head takes a byte at least: no count past the payload) */
	if (s->aux64 > r->raw.len)
		return lsb_rsec_damaged(r, i, "%llu heads in %zu bytes",
					(unsigned long long)s->aux64, r->raw.len);
	if (!(a = malloc((s->aux64 ? s->aux64 : 1) * sizeof(*a))))
		return lsb_rsec_err(r, i, -LS_ENOMEM, "out of memory");
	p = r->raw.p;
	end = p + r->raw.len;
	for (k = 0; k < s->aux64; k++) {
		if (ls_get_uleb(&p, end, &d) < 0 || (k && !d) || d > UINT64_MAX - v) {
			free(a);
			return lsb_rsec_damaged(r, i, "heads not ascending, or cut short");
		}
		a[k] = v += d;
	}
	if (p != end) {
		free(a);
		return lsb_rsec_damaged(r, i, "%zu bytes after the heads", (size_t)(end - p));
	}
	*ips = a;
	*n = (size_t)s->aux64;
	return 1;
}

size_t lsb_reader_nmodules(const struct lsb_reader *r)
{
	return r ? r->nmods : 0;
}

const struct lsb_module *lsb_reader_module(const struct lsb_reader *r, size_t i)
{
	return r && i < r->nmods ? &r->mods[i].m : NULL;
}

int lsb_reader_module_stored(struct lsb_reader *r, size_t i, uint32_t *pcrc,
			     uint64_t *stored, uint64_t *len)
{
	const struct r_sec *s;
	int err;

	if (!r || i >= r->nmods || !pcrc || !stored || !len)
		return -LS_EINVAL;
	if (!(r->mods[i].m.flags & LSB_MOD_EMBEDDED))
		return -LS_ENOENT;
	s = &r->secs[r->mods[i].sec];
	/* (a descriptor longer than the section marked it damaged at open:
	 * the check fails then.)  Checked a piece at a time: the caller
	 * wants the bytes' names, not the bytes (a warm cache maps its copy;
	 * libc's 0.9 MB read whole were a small analysis' 250 fresh pages). */
	if ((err = lsb_rsec_verify(r, r->mods[i].sec)) < 0)
		return err;
	*pcrc = s->pcrc;
	*stored = s->stored;
	*len = s->raw - s->aux32;
	return 0;
}

int lsb_reader_module_data(struct lsb_reader *r, size_t i, void **data,
			   size_t *len)
{
	const struct r_sec *s;
	size_t dlen;
	void *p;
	int err;

	if (!r || i >= r->nmods || !data || !len)
		return -LS_EINVAL;
	if (!(r->mods[i].m.flags & LSB_MOD_EMBEDDED))
		return -LS_ENOENT;
	s = &r->secs[r->mods[i].sec];
	if ((err = lsb_rsec_load(r, r->mods[i].sec)) < 0)
		return err;
	dlen = s->aux32;
	/* Hand over a right-sized copy; r->raw is reused. */
	p = malloc(r->raw.len - dlen ? r->raw.len - dlen : 1);
	if (!p)
		return -LS_ENOMEM;
	if (r->raw.len > dlen)
		memcpy(p, r->raw.p + dlen, r->raw.len - dlen);
	*data = p;
	*len = r->raw.len - dlen;
	return 0;
}
