/* unit_bundle.c - the trace bundle writer and reader (formats/bundle.md).
 *
 * Expected numbers come from the format rules, derived by hand in the
 * comments: chunk cut points from the PSB rule of bundle.md ("PTCHUNK"),
 * section boundaries by walking the 48-byte section headers of the file
 * the test just wrote (bundle.md, "Section header").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include "formats/bundle.h"
#include "formats/bundle_int.h"
#include "ls_buf.h"
#include "ls_crc32.h"
#include "ls_err.h"
#include "tap.h"

static char dir[] = "/tmp/unit_bundle.XXXXXX";
static char path[256], cut[256];
static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

/* PT of stream 1: 1000 bytes, PSBs at 0, 300, 500, 700, 900, the rest
 * 0x00 (PAD) and a counter that never forms 02 82. */
static uint8_t pt1[1000], pt2[600];
static uint8_t elf_a[5000];

static void make_pt(void)
{
	static const int at[] = { 0, 300, 500, 700, 900 };
	size_t i;

	for (i = 0; i < sizeof(pt1); i++)
		pt1[i] = (i % 3) ? 0 : (uint8_t)(0x10 + i % 64);
	for (i = 0; i < 5; i++)
		memcpy(pt1 + at[i], psb, sizeof(psb));
	for (i = 0; i < sizeof(pt2); i++)
		pt2[i] = (uint8_t)(i * 7 % 251 + 3);
	for (i = 0; i < sizeof(elf_a); i++)
		elf_a[i] = (uint8_t)(i * 13 >> 3);
}

#define NEV 5000
#define NSMP 10

static void fill_event(struct lsb_event *ev, int i, char *name, size_t nlen)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = (uint16_t)(i % 11 + 1);
	ev->run = (uint8_t)(i & 1);
	ev->pid = 100;
	ev->tid = 100 + (uint32_t)i % 7;
	ev->cpu = i % 5 - 1;
	ev->time = (uint64_t)i * 1000003;
	ev->addr = 0x7f0000000000ull + (uint64_t)i * 4096;
	ev->len = 8192;
	ev->pgoff = (uint64_t)i << 12;
	ev->prot = 5;
	ev->arg = (uint32_t)i * 3;
	if (i % 4 == 0) {
		ev->build_id_len = 20;
		memset(ev->build_id, i & 0xff, 20);
	}
	if (i % 3 == 0) {
		snprintf(name, nlen, "/usr/lib/libfoo-%d.so", i);
		ev->name = name;
	}
}

static void fill_sample(struct lsb_sample *s, int i, uint64_t *cc)
{
	uint32_t k;

	memset(s, 0, sizeof(*s));
	s->run = 1;
	s->pid = 100;
	s->tid = 101;
	s->cpu = 2;
	s->time = 5000 + (uint64_t)i;
	s->ip = 0x401000 + (uint64_t)i;
	s->period = 100000;
	s->event = (uint32_t)i % 2;
	s->nr_callchain = (uint32_t)i * 50;	/* up to 450 <= 512 */
	for (k = 0; k < s->nr_callchain; k++)
		cc[k] = 0x400000 + (uint64_t)k * 16 + (uint64_t)i;
	s->callchain = cc;
}

static const uint8_t mem1[] = { 1, 0x10, 0x20, 8 << 1 | 1 };
static const uint8_t mem2[] = { 5, 0x7f, 0x01, 4 << 1, 2, 1, 1, 1 << 1 };

static int write_full(const char *p)
{
	struct lsb_writer_opts o = { .size = sizeof(o), .chunk_size = 256 };
	struct lsb_stream s1 = { 1, LSB_STREAM_THREAD, 100, 101, -1, 0 };
	struct lsb_stream s2 = { 2, LSB_STREAM_CPU, 100, 0, 3, 0 };
	struct lsb_module ma = { { 1, 2, 3, 4 }, 4, 0, 0, "/bin/a" };
	struct lsb_module mb = { { 9 }, 1, 0, 12345, "/lib/b.so" };
	struct lsb_module mv = { { 7, 7 }, 2, LSB_MOD_VDSO, 0, "[vdso]" };
	struct lsb_writer *w;
	struct lsb_event ev;
	struct lsb_sample sm;
	static uint64_t cc[LSB_MAX_CALLCHAIN];
	char name[64];
	size_t i;

	TAP_EQ(lsb_writer_open(&w, p, &o), 0, "writer opens");
	TAP_EQ(lsb_writer_meta(w, "a", "1"), 0, "meta a=1");
	lsb_writer_meta(w, "b", "2");
	lsb_writer_meta(w, "a", "3");
	TAP_EQ(lsb_writer_flush(w), 0, "flush");
	lsb_writer_meta(w, "a", "4");	/* overrides across sections */
	TAP_EQ(lsb_writer_stream(w, &s1), 0, "stream 1 declared");
	TAP_EQ(lsb_writer_stream(w, &s1), -LS_EINVAL, "stream 1 again refused");
	TAP_EQ(lsb_writer_stream(w, &s2), 0, "stream 2 declared");
	/* odd-sized writes: cut points must not depend on them */
	for (i = 0; i < sizeof(pt1); i += 37)
		lsb_writer_pt(w, 1, pt1 + i, sizeof(pt1) - i < 37 ? sizeof(pt1) - i : 37);
	TAP_EQ(lsb_writer_pt(w, 2, pt2, sizeof(pt2)), 0, "pt of stream 2");
	TAP_EQ(lsb_writer_pt(w, 9, pt2, 1), -LS_EINVAL, "pt of undeclared stream");
	TAP_EQ(lsb_writer_stream_end(w, 1), 0, "end stream 1");
	TAP_EQ(lsb_writer_stream_end(w, 2), 0, "end stream 2");
	TAP_EQ(lsb_writer_module(w, &ma, elf_a, sizeof(elf_a)), 0, "module a embedded");
	TAP_EQ(lsb_writer_module(w, &ma, elf_a, sizeof(elf_a)), 1, "module a once");
	TAP_EQ(lsb_writer_module(w, &mb, NULL, 0), 0, "module b referenced");
	TAP_EQ(lsb_writer_module(w, &mv, NULL, 0), -LS_EINVAL, "vdso needs its bytes");
	TAP_EQ(lsb_writer_has_module(w, mb.build_id, 1), 1, "has module b");
	TAP_EQ(lsb_writer_has_module(w, mv.build_id, 2), 0, "has no module v");
	for (i = 0; i < NEV; i++) {
		fill_event(&ev, (int)i, name, sizeof(name));
		if (lsb_writer_event(w, &ev) < 0)
			break;
	}
	TAP_EQ(i, NEV, "events written");
	for (i = 0; i < NSMP; i++) {
		fill_sample(&sm, (int)i, cc);
		lsb_writer_sample(w, &sm);
	}
	sm.nr_callchain = LSB_MAX_CALLCHAIN + 1;
	TAP_EQ(lsb_writer_sample(w, &sm), -LS_ELIMIT, "call chain over the limit");
	TAP_EQ(lsb_writer_memacc(w, 1, mem1, sizeof(mem1)), 0, "memacc 1");
	TAP_EQ(lsb_writer_memacc(w, 2, mem2, sizeof(mem2)), 0, "memacc 2");
	TAP_EQ(lsb_writer_memacc(w, 1, mem2, sizeof(mem2)), 0, "memacc 3");
	return lsb_writer_close(w);
}

struct walk {
	int n, bad;
	char name[64];
	uint64_t cc[LSB_MAX_CALLCHAIN];
	size_t membytes;
};

static int ev_cb(const struct lsb_event *ev, void *arg)
{
	struct walk *wk = arg;
	struct lsb_event e;

	fill_event(&e, wk->n, wk->name, sizeof(wk->name));
	if (ev->type != e.type || ev->run != e.run || ev->tid != e.tid ||
	    ev->cpu != e.cpu || ev->time != e.time || ev->addr != e.addr ||
	    ev->len != e.len || ev->pgoff != e.pgoff || ev->prot != e.prot ||
	    ev->arg != e.arg || ev->build_id_len != e.build_id_len ||
	    memcmp(ev->build_id, e.build_id, e.build_id_len) ||
	    !ev->name != !e.name || (e.name && strcmp(ev->name, e.name)))
		wk->bad++;
	wk->n++;
	return 0;
}

static int smp_cb(const struct lsb_sample *s, void *arg)
{
	struct walk *wk = arg;
	struct lsb_sample e;

	fill_sample(&e, wk->n, wk->cc);
	if (s->run != e.run || s->tid != e.tid || s->cpu != e.cpu ||
	    s->time != e.time || s->ip != e.ip || s->period != e.period ||
	    s->event != e.event || s->nr_callchain != e.nr_callchain ||
	    memcmp(s->callchain, e.callchain, e.nr_callchain * sizeof(uint64_t)))
		wk->bad++;
	wk->n++;
	return 0;
}

static int mem_cb(uint32_t stream, const void *enc, size_t len, void *arg)
{
	struct walk *wk = arg;
	static const struct { uint32_t s; const uint8_t *p; size_t n; } want[] = {
		{ 1, mem1, sizeof(mem1) }, { 2, mem2, sizeof(mem2) },
		{ 1, mem2, sizeof(mem2) },
	};

	if (wk->n >= 3 || want[wk->n].s != stream || want[wk->n].n != len ||
	    memcmp(want[wk->n].p, enc, len))
		wk->bad++;
	wk->n++;
	wk->membytes += len;
	return 0;
}

static int stop_cb(const struct lsb_event *ev, void *arg)
{
	(void)ev;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void check_chunks(struct lsb_reader *r, size_t si, const uint8_t *data,
			 size_t n, const uint64_t *off, const uint32_t *flags)
{
	static uint8_t buf[4096];
	size_t k;

	TAP_EQ(lsb_reader_nchunks(r, si), n, "stream %zu: chunk count", si);
	for (k = 0; k < n && k < lsb_reader_nchunks(r, si); k++) {
		const struct lsb_chunk *c = lsb_reader_chunk(r, si, k);
		uint64_t len = off[k + 1] - off[k];

		TAP_OK(c->seq == k && c->stream_offset == off[k] &&
		       c->raw_size == len && c->flags == flags[k],
		       "stream %zu chunk %zu: seq %u offset %llu size %llu flags %u",
		       si, k, c->seq, (unsigned long long)c->stream_offset,
		       (unsigned long long)c->raw_size, c->flags);
		TAP_OK(lsb_reader_read_chunk(r, c, buf, sizeof(buf)) == (int64_t)len &&
		       !memcmp(buf, data + off[k], len),
		       "stream %zu chunk %zu: bytes round-trip", si, k);
	}
}

static void test_round_trip(void)
{
	/* Stream 1, chunk_size 256: the first PSB at or after 256 bytes
	 * into a chunk, before 512: from 0 that is 300; from 300 the PSBs
	 * are at +200 (too early) and +400, so 700; from 700 the rest (300
	 * bytes, PSB at +200 only) goes out at stream end. */
	static const uint64_t off1[] = { 0, 300, 700, 1000 };
	static const uint32_t fl1[] = { LSB_CHUNK_PSB, LSB_CHUNK_PSB, LSB_CHUNK_PSB };
	/* Stream 2 has no PSB: a forced cut at 2 * 256, then the rest. */
	static const uint64_t off2[] = { 0, 512, 600 };
	static const uint32_t fl2[] = { 0, 0 };
	const struct lsb_stream *s;
	const struct lsb_module *m;
	struct lsb_reader *r;
	struct lsb_stats st;
	struct walk wk;
	void *data;
	size_t len;
	int stop = 0;

	TAP_EQ(write_full(path), 0, "writer closes");
	TAP_EQ(lsb_reader_open(&r, path), 0, "reader opens: %s", lsb_reader_errmsg(r));
	TAP_EQ(lsb_reader_nmeta(r), 2, "two meta keys");
	TAP_OK(lsb_reader_meta(r, "a") && !strcmp(lsb_reader_meta(r, "a"), "4"),
	       "later meta value wins");
	TAP_OK(lsb_reader_meta(r, "b") && !strcmp(lsb_reader_meta(r, "b"), "2"),
	       "meta b");
	TAP_EQ(lsb_reader_nstreams(r), 2, "two streams");
	s = lsb_reader_stream(r, 1);
	TAP_OK(s && s->id == 2 && s->kind == LSB_STREAM_CPU && s->cpu == 3,
	       "stream 2 is per-CPU on cpu 3");
	check_chunks(r, 0, pt1, 3, off1, fl1);
	check_chunks(r, 1, pt2, 2, off2, fl2);

	TAP_EQ(lsb_reader_nmodules(r), 2, "two modules (a once, b)");
	m = lsb_reader_module(r, 0);
	TAP_OK(m && m->build_id_len == 4 && m->file_size == sizeof(elf_a) &&
	       m->flags == LSB_MOD_EMBEDDED && !strcmp(m->path, "/bin/a"),
	       "module a descriptor");
	TAP_EQ(lsb_reader_module_data(r, 0, &data, &len), 0, "module a data");
	TAP_OK(len == sizeof(elf_a) && !memcmp(data, elf_a, len), "module a bytes");
	free(data);
	m = lsb_reader_module(r, 1);
	TAP_OK(m && m->file_size == 12345 && m->flags == 0, "module b referenced");
	TAP_EQ(lsb_reader_module_data(r, 1, &data, &len), -LS_ENOENT,
	       "module b has no bytes");

	memset(&wk, 0, sizeof(wk));
	TAP_EQ(lsb_reader_events(r, ev_cb, &wk), 0, "events walk");
	TAP_OK(wk.n == NEV && wk.bad == 0, "%d events, %d differ", wk.n, wk.bad);
	TAP_EQ(lsb_reader_events(r, stop_cb, &stop), 42, "callback stops walk");
	memset(&wk, 0, sizeof(wk));
	TAP_EQ(lsb_reader_samples(r, smp_cb, &wk), 0, "samples walk");
	TAP_OK(wk.n == NSMP && wk.bad == 0, "%d samples, %d differ", wk.n, wk.bad);
	memset(&wk, 0, sizeof(wk));
	TAP_EQ(lsb_reader_memacc(r, mem_cb, &wk), 0, "memacc walk");
	TAP_OK(wk.n == 3 && wk.bad == 0, "%d memacc records, %d differ", wk.n, wk.bad);

	lsb_reader_stats(r, &st);
	TAP_EQ(st.pt_raw, 1600, "pt raw bytes: 1000 + 600");
	/* descriptor: u8 id_len, id, u32 flags, u64 size, uleb path_len,
	 * path: a is 1+4+4+8+1+6, b is 1+1+4+8+1+9 */
	TAP_EQ(st.mod_raw - sizeof(elf_a), 24 + 24,
	       "module raw bytes: two descriptors + the ELF");
	TAP_EQ(st.truncated_at, 0, "not truncated");
	TAP_EQ(st.damaged, 0, "nothing damaged");
	TAP_EQ(lsb_reader_verify(r), 0, "verify");
	lsb_reader_close(r);
}

static uint8_t *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	uint8_t *b = malloc(1 << 20);

	*n = f ? fread(b, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return b;
}

static void spit(const char *p, const uint8_t *b, size_t n)
{
	FILE *f = fopen(p, "wb");

	fwrite(b, 1, n, f);
	fclose(f);
}

static int count_ev(const struct lsb_event *ev, void *arg)
{
	(void)ev;
	++*(size_t *)arg;
	return 0;
}

static int count_smp(const struct lsb_sample *s, void *arg)
{
	(void)s;
	++*(size_t *)arg;
	return 0;
}

static int count_mem(uint32_t stream, const void *enc, size_t len, void *arg)
{
	(void)stream;
	(void)enc;
	*(size_t *)arg += len;
	return 0;
}

/* Opens and reads everything; returns the open's result, or -1000 when
 * a failure's message does not name the file. */
static int read_all(const char *p)
{
	static uint8_t buf[LSB_MAX_CHUNK / 64];
	struct lsb_reader *r;
	size_t i, k, len, cnt = 0;
	void *data;
	int err;

	err = lsb_reader_open(&r, p);
	if (err < 0) {
		if (!r || !strstr(lsb_reader_errmsg(r), p))
			err = -1000;	/* a failure must name the file */
		lsb_reader_close(r);
		return err;
	}
	for (i = 0; i < lsb_reader_nstreams(r); i++)
		for (k = 0; k < lsb_reader_nchunks(r, i); k++) {
			const struct lsb_chunk *c = lsb_reader_chunk(r, i, k);

			if (c->raw_size <= sizeof(buf))
				lsb_reader_read_chunk(r, c, buf, sizeof(buf));
		}
	for (i = 0; i < lsb_reader_nmodules(r); i++)
		if (lsb_reader_module_data(r, i, &data, &len) == 0)
			free(data);
	lsb_reader_events(r, count_ev, &cnt);
	lsb_reader_samples(r, count_smp, &cnt);
	lsb_reader_memacc(r, count_mem, &cnt);
	lsb_reader_verify(r);
	lsb_reader_close(r);
	return 0;
}

/* A small bundle, truncated at every byte. */
static void test_truncation(void)
{
	struct lsb_writer_opts o = { .size = sizeof(o), .chunk_size = 64 };
	struct lsb_stream s1 = { 1, LSB_STREAM_THREAD, 100, 101, -1, 0 };
	struct lsb_module ma = { { 1, 2, 3, 4 }, 4, 0, 0, "/bin/a" };
	uint64_t ends[64];
	size_t n, nends = 0, L, bad_open = 0, bad_count = 0, bad_trunc = 0;
	struct lsb_writer *w;
	struct lsb_event ev;
	char name[64];
	uint8_t *b;
	uint64_t off;
	int i;

	lsb_writer_open(&w, path, &o);
	lsb_writer_meta(w, "cmdline", "./t");
	lsb_writer_stream(w, &s1);
	lsb_writer_pt(w, 1, pt1, 400);
	lsb_writer_module(w, &ma, elf_a, 300);
	for (i = 0; i < 5; i++) {
		fill_event(&ev, i, name, sizeof(name));
		lsb_writer_event(w, &ev);
	}
	TAP_EQ(lsb_writer_close(w), 0, "small bundle written");
	b = slurp(path, &n);
	/* Section ends, from the headers: stored size at +24, 48-byte
	 * header; the last 24 bytes are the trailer. */
	for (off = 32; off + 48 <= n - 24 && nends < 64; nends++) {
		off += 48 + ls_le64(b + off + 24);
		ends[nends] = off;
	}
	TAP_EQ(off, n - 24, "sections tile the file up to the trailer");
	/* chunk_size 64, 400 bytes with PSBs at 0 and 300: no PSB starts
	 * in [64, 128) of any chunk (300 is +172 from 128, +44 from 256),
	 * so forced cuts at 128, 256, 384 and the last 16 bytes at close:
	 * 4 chunks; plus STREAM, MODULE, META, EVENTS, INDEX: 9. */
	TAP_EQ(nends, 9, "9 sections incl. INDEX");
	for (L = 0; L < n; L++) {
		struct lsb_reader *r;
		struct lsb_stats st;
		uint64_t want_end = 32, want_secs = 0;
		size_t k;
		int err;

		spit(cut, b, L);
		err = lsb_reader_open(&r, cut);
		for (k = 0; k < nends; k++) {
			if (ends[k] <= L) {
				want_end = ends[k];
				/* the INDEX (last) is not a data section */
				want_secs += k + 1 < nends;
			}
		}
		if (L < 32) {
			if (err >= 0)
				bad_open++;
			lsb_reader_close(r);
			continue;
		}
		if (err < 0) {
			bad_open++;
			lsb_reader_close(r);
			continue;
		}
		lsb_reader_stats(r, &st);
		if (st.sections != want_secs)
			bad_count++;
		if (st.truncated_at != want_end || st.lost_bytes != L - want_end)
			bad_trunc++;
		lsb_reader_close(r);
		read_all(cut);
	}
	TAP_EQ(bad_open, 0, "every cut < 32 fails, every cut >= 32 opens (%zu cuts)", n);
	TAP_EQ(bad_count, 0, "every cut keeps exactly the complete sections");
	TAP_EQ(bad_trunc, 0, "every cut reports where data ends and bytes lost");
	free(b);
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void test_flips(void)
{
	size_t n, it, k, failed_unnamed = 0;
	uint8_t *b, *c;
	struct lsb_reader *r;
	uint64_t off;
	int err;

	b = slurp(path, &n);
	c = malloc(n);
	for (it = 0; it < 2000; it++) {
		int f, nflip = 1 + (int)(rnd() % 4);

		memcpy(c, b, n);
		for (f = 0; f < nflip; f++)
			c[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
		spit(cut, c, n);
		if (read_all(cut) == -1000)
			failed_unnamed++;
	}
	TAP_EQ(failed_unnamed, 0, "2000 random flips: no crash, failures name the file");

	/* One flipped byte in the payload of section #3, stream 1's first
	 * PTCHUNK (after META, STREAM 1, STREAM 2): open succeeds through
	 * the index, verify names it. */
	memcpy(c, b, n);
	off = 32;
	for (k = 0; k < 3; k++)
		off += 48 + ls_le64(c + off + 24);
	TAP_EQ(ls_le16(c + off + 4), 3, "section #3 is a PTCHUNK");
	c[off + 48] ^= 0x40;
	spit(cut, c, n);
	err = lsb_reader_open(&r, cut);
	TAP_EQ(err, 0, "flipped payload: open succeeds");
	TAP_EQ(lsb_reader_verify(r), -LS_ECORRUPT, "flipped payload: verify fails");
	TAP_OK(strstr(lsb_reader_errmsg(r), "section #3 (PTCHUNK) at offset") != NULL,
	       "message names section #3 (PTCHUNK) and offset: %s",
	       lsb_reader_errmsg(r));
	lsb_reader_close(r);
	free(b);
	free(c);
}

/* Re-seals a section header after patching it. */
static void reseal(uint8_t *h)
{
	ls_st32(h + 44, ls_crc32(0, h, 44));
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_huge(void)
{
	size_t n, k;
	uint8_t *b;
	uint64_t off;
	long before = maxrss_kib();
	struct lsb_reader *r;
	struct lsb_stats st;
	struct walk wk;

	b = slurp(path, &n);
	/* Every section claims 2^60 raw bytes, resealed so only the size
	 * is wrong.  The trailer is dropped, so the reader scans and sees
	 * these headers, not the index's copies. */
	for (off = 32, k = 0; off + 48 <= n - 24; k++) {
		uint64_t next = off + 48 + ls_le64(b + off + 24);

		if (ls_le16(b + off + 4) != 8) {
			ls_st64(b + off + 32, 1ull << 60);
			reseal(b + off);
		}
		off = next;
	}
	spit(cut, b, n - 24);
	TAP_EQ(lsb_reader_open(&r, cut), 0, "huge sizes: opens (through a scan)");
	lsb_reader_stats(r, &st);
	TAP_EQ(st.damaged, k - 1, "every data section is damaged");
	memset(&wk, 0, sizeof(wk));
	TAP_EQ(lsb_reader_events(r, ev_cb, &wk), -LS_ECORRUPT, "events walk fails");
	TAP_EQ(wk.n, 0, "no event delivered");
	lsb_reader_close(r);
	TAP_OK(maxrss_kib() - before < 64 * 1024, "no large allocation (%ld KiB)",
	       maxrss_kib() - before);
	free(b);
}

static void test_misc(void)
{
	struct ls_buf b = LS_BUF_INIT;
	const uint8_t *p;
	uint64_t u;
	int64_t s;

	TAP_EQ(ls_crc32(0, "123456789", 9), 0xcbf43926u, "crc32 check value");
	{
		/* Past the 8-byte steps, and continued from an odd split:
		 * the values are Python's zlib.crc32() of the same bytes. */
		uint8_t d[1000];
		size_t i;

		for (i = 0; i < sizeof(d); i++)
			d[i] = (uint8_t)(i * 7 + 3);
		TAP_EQ(ls_crc32(0, d, 13), 0xa97ad5c1u, "crc32 of 13 bytes");
		TAP_EQ(ls_crc32(0, d, sizeof(d)), 0x17bc2a46u, "crc32 of 1000 bytes");
		TAP_EQ(ls_crc32(ls_crc32(0, d, 13), d + 13, sizeof(d) - 13), 0x17bc2a46u,
		       "crc32 of 1000 bytes continued after 13");
		TAP_EQ(ls_crc32_table(0, d, sizeof(d)), 0x17bc2a46u,
		       "crc32 of 1000 bytes by the tables alone");
	}
	{
		/* The folding way (where the CPU has carry-less multiply)
		 * against the tables: every length to 1 KB, every alignment,
		 * from a state other than 0. */
		static uint8_t d[1024 + 16];
		uint64_t x = 0x9e3779b97f4a7c15u;
		size_t i, n, a, bad = 0;

		for (i = 0; i < sizeof(d); i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			d[i] = (uint8_t)x;
		}
		for (a = 0; a < 16; a++)
			for (n = 0; n + a <= sizeof(d) - 16; n++)
				bad += ls_crc32(0x12345678u, d + a, n) !=
				       ls_crc32_table(0x12345678u, d + a, n);
		TAP_EQ(bad, 0, "crc32: every length to 1 KB at every alignment as the tables give it");
	}
	ls_buf_put_uleb(&b, UINT64_MAX);
	ls_buf_put_sleb(&b, INT64_MIN);
	ls_buf_put_sleb(&b, -65);
	p = b.p;
	TAP_OK(ls_get_uleb(&p, b.p + b.len, &u) == 0 && u == UINT64_MAX, "uleb max");
	TAP_OK(ls_get_sleb(&p, b.p + b.len, &s) == 0 && s == INT64_MIN, "sleb min");
	TAP_OK(ls_get_sleb(&p, b.p + b.len, &s) == 0 && s == -65, "sleb -65");
	TAP_EQ(ls_get_uleb(&p, b.p + b.len, &u), -LS_ECORRUPT, "uleb past end");
	ls_buf_release(&b);
}

/* The stored payload of the first MODULE section of the file at p into
 * *pay (malloc'd) and its descriptor length; walks the sections as
 * bundle.md lays them out (a 32-byte file header, then each section's
 * 48-byte header and payload).  Returns the payload's length or 0. */
static size_t module_payload(const char *p, uint8_t **pay, uint32_t *dlen, unsigned *flags)
{
	FILE *f = fopen(p, "rb");
	uint8_t *b = NULL;
	size_t n = 0, off = LSB_FILE_HDR, got = 0;
	long sz;

	*pay = NULL;
	if (!f)
		return 0;
	if (!fseek(f, 0, SEEK_END) && (sz = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)sz)) && fread(b, 1, (size_t)sz, f) == (size_t)sz)
		n = (size_t)sz;
	fclose(f);
	while (n && off + LSB_SEC_HDR <= n) {
		const uint8_t *h = b + off;
		uint64_t st = ls_le64(h + LSB_SH_STORED);

		if (st > n - off - LSB_SEC_HDR)
			break;
		if (ls_le16(h + LSB_SH_TYPE) == LSB_SEC_MODULE && (*pay = malloc(st ? st : 1))) {
			memcpy(*pay, h + LSB_SEC_HDR, st);
			*dlen = ls_le32(h + LSB_SH_AUX32);
			*flags = ls_le16(h + LSB_SH_FLAGS);
			got = st;
			break;
		}
		off += LSB_SEC_HDR + st;
	}
	free(b);
	return got;
}

/* What zstd's own stream decoder makes of the first k bytes of a frame,
 * want bytes at most, into out: the bytes it gave. */
static size_t zstd_prefix(const uint8_t *src, size_t k, uint8_t *out, size_t want)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, k, 0 };
	ZSTD_outBuffer o = { out, want, 0 };
	size_t rc, last;

	do {
		last = in.pos + o.pos;
		rc = ZSTD_decompressStream(z, &o, &in);
	} while (!ZSTD_isError(rc) && o.pos < want && in.pos + o.pos > last);
	ZSTD_freeDCtx(z);
	return o.pos;
}

/* A module's descriptor ends the first block of its section's zstd frame
 * (bundle.md, MODULE), so that a reader lists the modules without
 * decompressing their bytes: zstd itself, fed the first 8 KB of the
 * payload, gives the descriptor as bundle.md lays it out.  With
 * desc_shared (bundles before 2026-12-06) the first block also holds the
 * module's first 128 KB, about 64 KB stored here (bytes of 4 random
 * bits), so those 8 KB give nothing; lsb_rsec_peek() says so, and the
 * reader, which then reads on, lists the module and its bytes alike. */
static void test_module_block(void)
{
	/* u8 id_len 3, the id, u32 flags 1 (EMBEDDED), u64 file_size
	 * 400,000 (0x61a80), uleb path_len 11, the path: 28 bytes */
	static const uint8_t desc[28] = { 3, 5, 6, 7, 1, 0, 0, 0, 0x80, 0x1a, 0x06, 0, 0, 0, 0, 0,
					  11, '/', 'l', 'i', 'b', '/', 'b', 'i', 'g', '.', 's', 'o' };
	static uint8_t big[400000];
	struct lsb_module m = { { 5, 6, 7 }, 3, 0, 0, "/lib/big.so" };
	uint64_t x = 88172645463325252ull;
	char p2[300];
	int shared;
	size_t i;

	for (i = 0; i < sizeof(big); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		big[i] = (uint8_t)(x & 15);
	}
	snprintf(p2, sizeof(p2), "%s/mod.lsc", dir);
	for (shared = 0; shared < 2; shared++) {
		struct lsb_writer_opts o = { .size = sizeof(o), .desc_shared = shared };
		struct lsb_writer *w;
		struct lsb_reader *r;
		struct ls_buf raw = { 0 };
		uint8_t *pay, got[28];
		uint32_t dlen = 0;
		unsigned fl = 0;
		size_t n, k;
		void *data;
		size_t len;

		TAP_EQ(lsb_writer_open(&w, p2, &o), 0, "writer opens (desc_shared %d)", shared);
		TAP_EQ(lsb_writer_module(w, &m, big, sizeof(big)), 0, "module written");
		TAP_EQ(lsb_writer_close(w), 0, "writer closes");
		n = module_payload(p2, &pay, &dlen, &fl);
		TAP_OK(n > 0 && (fl & LSB_SF_ZSTD) && dlen == sizeof(desc),
		       "a zstd module section, descriptor of %u bytes", dlen);
		k = n < 8192 ? n : 8192;
		memset(got, 0, sizeof(got));
		if (!shared)
			TAP_OK(n > 8192 && zstd_prefix(pay, k, got, sizeof(got)) == sizeof(desc) &&
			       !memcmp(got, desc, sizeof(desc)),
			       "its first 8 KB of %zu give the descriptor", n);
		else
			TAP_EQ(zstd_prefix(pay, k, got, sizeof(got)), 0,
			       "its first 8 KB give nothing (the first block is 128 KB)");
		TAP_EQ(lsb_reader_open(&r, p2), 0, "reader opens: %s", lsb_reader_errmsg(r));
		TAP_EQ(lsb_rsec_peek(r, pay, k, &raw, sizeof(desc)), !shared,
		       "lsb_rsec_peek() of the first 8 KB");
		TAP_OK(lsb_rsec_peek(r, pay, n, &raw, sizeof(desc)) == 1 && raw.len == sizeof(desc) &&
		       !memcmp(raw.p, desc, sizeof(desc)), "lsb_rsec_peek() of the whole frame");
		TAP_EQ(lsb_reader_nmodules(r), 1, "one module listed");
		TAP_OK(lsb_reader_module(r, 0) && lsb_reader_module(r, 0)->file_size == sizeof(big) &&
		       !strcmp(lsb_reader_module(r, 0)->path, "/lib/big.so"), "its descriptor");
		TAP_OK(lsb_reader_module_data(r, 0, &data, &len) == 0 && len == sizeof(big) &&
		       !memcmp(data, big, len), "its bytes");
		free(data);
		TAP_EQ(lsb_reader_verify(r), 0, "verify");
		lsb_reader_close(r);
		ls_buf_release(&raw);
		free(pay);
	}
	unlink(p2);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/full.lsc", dir);
	snprintf(cut, sizeof(cut), "%s/cut.lsc", dir);
	make_pt();
	test_misc();
	test_round_trip();
	test_flips();
	test_huge();
	test_truncation();
	test_module_block();
	unlink(path);
	unlink(cut);
	rmdir(dir);
	printf("1..%d\n", tap_n);
	return TAP_DONE();
}
