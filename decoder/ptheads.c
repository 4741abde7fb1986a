/* ptheads.c - the block heads a stream's packets name, found as a bundle
 * is written and kept in it (PTHEADS, formats/bundle.md), and taken from
 * it by the open instead of a scan of every chunk.
 *
 * Each static block begins at a head: a direct branch's target in the
 * code, or an IP the trace names (TIP, TIP.PGE, FUP).  The open gathers
 * the latter by scanning the packets of every chunk before the first
 * block is made (heads.c), which meant decompressing the whole trace, and
 * keeping it, before decoding any of it: on sqlite3's 12 MB of PT, a
 * fifth of `info --decode`'s instructions and half of its page faults.
 * The writer hands each chunk it writes to lsd_pt_heads_cb(), which runs
 * the same scan (lsd_heads_packets_into()) into a set per stream, and
 * writes the set after the stream's last chunk.  The set grows with the
 * code the trace reaches, not with the trace.
 *
 * The open takes a stream's set only where it covers the stream's chunks
 * as the reader has them and every one of them reads back intact (its
 * stored bytes and their checksum): exactly the chunks the scan would
 * have read, so the heads are the scan's.  Elsewhere (a damaged or
 * truncated bundle, one written without the section, a per-CPU stream
 * whose threads belong to several processes, LOOPSCOPE_PTHEADS=0) it
 * scans as before.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "formats/bundle.h"
#include "ls_buf.h"
#include "ls_err.h"
#include "ls_sort.h"

struct pth_stream {
	uint32_t id;
	int bad;
	struct lsd_addrset set;
};

struct lsd_pt_heads {
	struct pth_stream *s;
	size_t n, cap;
};

struct lsd_pt_heads *lsd_pt_heads_new(void)
{
	return calloc(1, sizeof(struct lsd_pt_heads));
}

void lsd_pt_heads_free(struct lsd_pt_heads *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		lsd_addrset_release(&h->s[i].set);
	free(h->s);
	free(h);
}

static struct pth_stream *pth_find(struct lsd_pt_heads *h, uint32_t id)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->s[i].id == id)
			return &h->s[i];
	if (LS_GROW(h->s, h->n + 1, h->cap, 4))
		return NULL;
	memset(&h->s[h->n], 0, sizeof(h->s[h->n]));
	h->s[h->n].id = id;
	return &h->s[h->n++];
}

int lsd_pt_heads_cb(void *arg, uint32_t stream, const uint8_t *pt, size_t len,
		    uint64_t **ips, size_t *n)
{
	struct lsd_pt_heads *h = arg;
	struct pth_stream *s;
	uint64_t *v;
	size_t i, k;

	if (!h || !(s = pth_find(h, stream)))
		return -LS_ENOMEM;
	if (pt) {
		if (!s->bad && lsd_heads_packets_into(&s->set, pt, len) < 0)
			s->bad = 1;
		return s->bad ? -LS_ENOMEM : 0;
	}
	/* the stream's end: its set, sorted (a set with no ranges holds
	 * every member in its keys) */
	if (s->bad || !ips || !n)
		return -LS_ENOMEM;
	if (!(v = malloc((s->set.n ? s->set.n : 1) * sizeof(*v))))
		return -LS_ENOMEM;
	for (i = k = 0; i < s->set.cap && k < s->set.n; i++)
		if (s->set.keys[i])
			v[k++] = s->set.keys[i];
	if (ls_sort_u64(v, k) < 0) {
		free(v);
		return -LS_ENOMEM;
	}
	*ips = v;
	*n = k;
	lsd_addrset_clear(&s->set);
	return 0;
}

int lsd_heads_recorded(struct lsd_decoder *d, size_t stream)
{
	const char *e = getenv("LOOPSCOPE_PTHEADS");
	uint64_t *ips = NULL;
	size_t n = 0, c, i;
	int err;

	if (e && !strcmp(e, "0"))
		return 0;
	err = lsb_reader_pt_heads(d->r, stream, &ips, &n);
	if (err == -LS_ENOMEM)
		return err;
	if (err <= 0)	/* (damaged: counted by the reader; the scan) */
		return 0;
	for (c = 0; c < lsb_reader_nchunks(d->r, stream); c++) {
		err = lsb_reader_chunk_ok(d->r, lsb_reader_chunk(d->r, stream, c));
		if (err == -LS_ENOMEM || err <= 0) {
			free(ips);
			return err == -LS_ENOMEM ? err : 0;
		}
	}
	for (i = 0, err = 0; i < n && err >= 0; i++)
		err = lsd_addrset_add(&d->sp->heads, ips[i]);
	free(ips);
	if (err < 0)
		return err;
	d->heads_recorded++;
	return 1;
}

uint64_t lsd_heads_from_bundle(const struct lsd_decoder *d)
{
	return d ? d->heads_recorded : 0;
}
