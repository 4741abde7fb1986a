/* unit_ingest.c - the sw recorder's ingest (recorder/sw_ingest.c) fed a
 * record stream built here in the wire protocol of recorder/lsc_proto.h,
 * no Valgrind: what it writes into the bundle, read back, and how it
 * refuses broken streams.
 *
 * The stream: HELLO (pid 100), THREAD_START of 101 (parent 100, seq 1),
 * 18 PT bytes of 101 (a PSB and a PSBEND), MUNMAP (seq 2), FORK (child
 * 300, seq 3), SIGNAL (11 at 0x4000, seq 4), THREAD_EXIT (status 3, seq
 * 5), END (exit status 3, 2 records lost).  Expected in the bundle: one
 * thread stream (pid 100, tid 101) of 18 PT bytes, and the events
 * THREAD_START, MUNMAP, FORK, SIGNAL, THREAD_EXIT in that order with the
 * fields given.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_err.h"
#include "recorder/lsc_proto.h"
#include "recorder/sw_ingest.h"
#include "tap.h"

static uint8_t buf[4096];
static size_t len;

static void rec(uint32_t type, uint32_t tid, const void *p, uint32_t size)
{
	struct lsw_hdr h = { type, tid, size, 0 };

	memcpy(buf + len, &h, sizeof(h));
	memcpy(buf + len + sizeof(h), p, size);
	len += sizeof(h) + size;
}

static void hello(uint32_t version)
{
	struct lsw_hello he = { LSW_MAGIC, version, 100, 4096, 0, 0 };

	rec(LSW_HELLO, 0, &he, sizeof(he));
}

static char path[256];

static int writer(struct lsb_writer **w)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof(path), "%s/unit_ingest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -LS_EIO;
	close(fd);
	return lsb_writer_open(w, path, NULL);
}

struct seen {
	int n;
	struct lsb_event ev[8];
};

static int on_event(const struct lsb_event *ev, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8) {
		s->ev[s->n] = *ev;
		s->ev[s->n].name = NULL;
	}
	s->n++;
	return 0;
}

static void t_good(void)
{
	static const uint8_t pt[18] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x23,
	};
	struct lsw_thread ts = { 1, 100, 0, 0 }, te = { 5, 0, 3, 0 };
	struct lsw_munmap mu = { 2, 0x7000, 0x1000 };
	struct lsw_fork fk = { 3, 300, 0 };
	struct lsw_signal sg = { 4, 0x4000, 11, 0 };
	struct lsw_end end = { 6, 0, 3, 2 };
	struct lsb_writer *w;
	struct lsb_reader *r;
	struct lsr_ingest in;
	struct lsr_stats st;
	const struct lsb_stream *s;
	struct seen seen = { 0 };
	size_t used, half, i;
	uint64_t raw = 0;
	int err;

	len = 0;
	hello(LSW_VERSION);
	rec(LSW_THREAD_START, 101, &ts, sizeof(ts));
	rec(LSW_PT, 101, pt, sizeof(pt));
	half = len - 5;			/* cuts the PT record */
	rec(LSW_MUNMAP, 101, &mu, sizeof(mu));
	rec(LSW_FORK, 101, &fk, sizeof(fk));
	rec(LSW_SIGNAL, 101, &sg, sizeof(sg));
	rec(LSW_THREAD_EXIT, 101, &te, sizeof(te));
	rec(LSW_END, 0, &end, sizeof(end));

	TAP_EQ(writer(&w), 0, "good: a bundle writer");
	memset(&st, 0, sizeof(st));
	lsr_ingest_init(&in, w, &st, 0);
	err = lsr_ingest_feed(&in, buf, half, &used);
	TAP_EQ(err, 0, "good: the first part fed");
	/* HELLO 16 + 24, THREAD_START 16 + 24: the cut PT record waits */
	TAP_EQ(used, 80, "good: the two whole records taken, the cut one left");
	err = lsr_ingest_feed(&in, buf + used, len - used, &used);
	TAP_EQ(err, 0, "good: the rest fed");
	TAP_EQ(used, len - 80, "good: all of it taken");
	TAP_EQ(st.records, 8, "good: 8 records");
	TAP_EQ(st.threads, 1, "good: 1 thread");
	TAP_EQ(st.pt_bytes, 18, "good: 18 PT bytes");
	TAP_EQ(st.tool_lost, 2, "good: 2 records the tool lost");
	TAP_EQ(in.end_seen, 1, "good: END seen");
	TAP_EQ(in.exit_status, 3, "good: exit status 3");
	lsr_ingest_release(&in);
	TAP_EQ(lsb_writer_close(w), 0, "good: the bundle closes");

	TAP_EQ(lsb_reader_open(&r, path), 0, "good: the bundle reads back");
	TAP_EQ(lsb_reader_nstreams(r), 1, "good: one stream");
	s = lsb_reader_stream(r, 0);
	TAP_OK(s && s->pid == 100 && s->tid == 101 && s->kind == LSB_STREAM_THREAD,
	       "good: thread stream of 100/101");
	for (i = 0; i < lsb_reader_nchunks(r, 0); i++)
		raw += lsb_reader_chunk(r, 0, i)->raw_size;
	TAP_EQ(raw, 18, "good: 18 PT bytes in its chunks");
	TAP_OK(lsb_reader_meta(r, "pt.retcomp") && !strcmp(lsb_reader_meta(r, "pt.retcomp"), "1"),
	       "good: pt.retcomp=1 (HELLO without NORETCOMP)");
	TAP_EQ(lsb_reader_events(r, on_event, &seen), 0, "good: events read");
	TAP_EQ(seen.n, 5, "good: 5 events");
	TAP_OK(seen.ev[0].type == LSB_EV_THREAD_START && seen.ev[0].tid == 101 &&
	       seen.ev[0].arg == 100 && seen.ev[0].time == 1, "good: THREAD_START of 101 by 100, seq 1");
	TAP_OK(seen.ev[1].type == LSB_EV_MUNMAP && seen.ev[1].addr == 0x7000 &&
	       seen.ev[1].len == 0x1000, "good: MUNMAP 0x7000+0x1000");
	TAP_OK(seen.ev[2].type == LSB_EV_FORK && seen.ev[2].arg == 300, "good: FORK of 300");
	TAP_OK(seen.ev[3].type == LSB_EV_SIGNAL && seen.ev[3].arg == 11 &&
	       seen.ev[3].addr == 0x4000, "good: SIGNAL 11 at 0x4000");
	TAP_OK(seen.ev[4].type == LSB_EV_THREAD_EXIT && seen.ev[4].arg == 3 &&
	       seen.ev[4].time == 5, "good: THREAD_EXIT status 3, seq 5");
	lsb_reader_close(r);
	unlink(path);
}

/* Broken streams: the error and, where the ingest writes one, message. */
static void t_bad(void)
{
	struct lsw_thread ts = { 1, 0, 0, 0 };
	struct lsw_hdr big = { LSW_PT, 101, LSW_MAX_PAYLOAD + 1, 0 };
	struct lsb_writer *w;
	struct lsr_ingest in;
	struct lsr_stats st;
	size_t used;

	TAP_EQ(writer(&w), 0, "bad: a bundle writer");
	memset(&st, 0, sizeof(st));

	len = 0;
	rec(LSW_THREAD_START, 101, &ts, sizeof(ts));
	lsr_ingest_init(&in, w, &st, 0);
	TAP_EQ(lsr_ingest_feed(&in, buf, len, &used), -LS_ECORRUPT,
	       "a record before HELLO: -LS_ECORRUPT");
	TAP_EQ(used, 0, "... nothing taken");
	TAP_OK(strstr(lsr_ingest_errmsg(&in), "type 2") != NULL, "... the message names the type (%s)", lsr_ingest_errmsg(&in));
	lsr_ingest_release(&in);

	len = 0;
	hello(LSW_VERSION + 1);
	lsr_ingest_init(&in, w, &st, 0);
	TAP_EQ(lsr_ingest_feed(&in, buf, len, &used), -LS_EVERSION,
	       "a HELLO of another version: -LS_EVERSION");
	lsr_ingest_release(&in);

	len = 0;
	hello(LSW_VERSION);
	memcpy(buf + len, &big, sizeof(big));
	len += sizeof(big);
	lsr_ingest_init(&in, w, &st, 0);
	TAP_EQ(lsr_ingest_feed(&in, buf, len, &used), -LS_ECORRUPT,
	       "a record over LSW_MAX_PAYLOAD: -LS_ECORRUPT");
	TAP_EQ(used, 40, "... HELLO (16 + 24 bytes) taken before it");
	TAP_OK(strstr(lsr_ingest_errmsg(&in), "limit") != NULL, "... the message gives the limit (%s)", lsr_ingest_errmsg(&in));
	lsr_ingest_release(&in);

	len = 0;
	hello(LSW_VERSION);
	rec(LSW_THREAD_START, 101, &ts, 8);	/* 8 of its 24 bytes */
	lsr_ingest_init(&in, w, &st, 0);
	TAP_EQ(lsr_ingest_feed(&in, buf, len, &used), -LS_ECORRUPT,
	       "a THREAD_START too short for its struct: -LS_ECORRUPT");
	lsr_ingest_release(&in);
	lsb_writer_close(w);
	unlink(path);
}

int main(void)
{
	t_good();
	t_bad();
	return TAP_DONE();
}
