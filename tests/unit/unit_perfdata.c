/* unit_perfdata.c - the perf.data reader (formats/perfdata.c) on
 * pipe-mode streams crafted byte by byte after perf's
 * tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h, held in a memfd.
 *
 * The good stream: the 16-byte pipe header; HEADER_ATTR (one 64-byte
 * attr: sample_type IP|TID|TIME|PERIOD, period 1000, sample_id_all; id
 * 42); COMM; MMAP2 of /bin/x with its sample_id trailer (pid/tid, time);
 * SAMPLE; AUXTRACE with 16 payload bytes; EXIT.  Every field read back
 * is the value written here.  The bad streams each break one rule.
 * The compressed streams hold records compressed here with libzstd.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "ls_err.h"
#include "formats/perfdata.h"
#include "tap.h"

static uint8_t buf[4096];
static size_t len;

static void put(const void *p, size_t n)
{
	memcpy(buf + len, p, n);
	len += n;
}

static void u16(uint16_t v) { put(&v, 2); }
static void u32(uint32_t v) { put(&v, 4); }
static void u64(uint64_t v) { put(&v, 8); }

static size_t hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	size_t at = len;

	u32(type);
	u16(misc);
	u16(size);
	return at;
}

static void pipe_header(void)
{
	len = 0;
	put("PERFILE2", 8);
	u64(16);
}

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void attr(uint64_t sample_type)
{
	hdr(64, 0, 8 + 64 + 8);
	u32(PERF_TYPE_HARDWARE);
	u32(64);			/* attr size */
	u64(0);				/* config: cycles */
	u64(1000);			/* sample_period */
	u64(sample_type);
	u64(0);				/* read_format */
	u64(1ull << 18);		/* flags: sample_id_all */
	u64(0);				/* wakeup, bp_type */
	u64(0);				/* bp_addr */
	u64(42);			/* the event's id */
}

static int fd = -1;

/* lspd_close() leaves the descriptor open: close_buf() closes both. */
static int open_buf(struct lspd_file **f)
{
	fd = memfd_create("unit_perfdata", 0);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		*f = NULL;
		return -LS_EIO;
	}
	return lspd_open_fd(f, fd, "crafted");
}

static void close_buf(struct lspd_file *f)
{
	lspd_close(f);
	if (fd >= 0)
		close(fd);
	fd = -1;
}

static void t_good(void)
{
	struct lspd_file *f;
	struct lspd_record r;
	uint8_t aux[32];
	int64_t n;

	pipe_header();
	attr(ST);
	/* COMM: pid, tid, "prog" padded to 8, trailer pid/tid + time */
	hdr(PERF_RECORD_COMM, 0, 8 + 8 + 8 + 16);
	u32(7); u32(7); put("prog\0\0\0\0", 8);
	u32(7); u32(7); u64(100);
	/* MMAP2: pid tid addr len pgoff maj min ino ino_gen prot flags
	 * filename (8 bytes), trailer: 4+4 + 8+8+8 + 4+4+8+8 + 4+4 + 8 + 16 = 88 */
	hdr(PERF_RECORD_MMAP2, 0, 8 + 88);
	u32(7); u32(7); u64(0x400000); u64(0x2000); u64(0x1000);
	u32(8); u32(1); u64(1234); u64(0);
	u32(5); u32(2); put("/bin/x\0\0", 8);
	u32(7); u32(7); u64(200);
	/* SAMPLE: ip, pid/tid, time, period */
	hdr(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	u64(0x401234); u32(7); u32(8); u64(300); u64(999);
	/* AUXTRACE: size offset reference idx tid cpu reserved; payload */
	hdr(71, 0, 8 + 40);
	u64(16); u64(0); u64(5); u32(0); u32(7); u32(3); u32(0);
	put("0123456789abcdef", 16);
	/* EXIT: pid ppid tid ptid time, trailer */
	hdr(PERF_RECORD_EXIT, 0, 8 + 24 + 16);
	u32(7); u32(1); u32(7); u32(1); u64(400);
	u32(7); u32(7); u64(400);

	TAP_EQ(open_buf(&f), 0, "good: opens");
	TAP_EQ(lspd_is_pipe(f), 1, "good: pipe mode");
	TAP_EQ(lspd_next(f, &r), 1, "good: the attr record");
	TAP_EQ(r.type, 64, "good: HEADER_ATTR");
	TAP_EQ(lspd_nattrs(f), 1, "good: one attr absorbed");
	TAP_EQ(lspd_attr(f, 0)->sample_type, ST, "good: its sample_type");
	TAP_EQ(lspd_attr(f, 0)->sample_period, 1000, "good: its period");
	TAP_EQ(lspd_attr(f, 0)->sample_id_all, 1, "good: sample_id_all");

	TAP_EQ(lspd_next(f, &r), 1, "good: COMM");
	TAP_OK(r.type == PERF_RECORD_COMM && r.u.comm.tid == 7 && r.u.comm.comm &&
	       !strcmp(r.u.comm.comm, "prog"), "good: COMM of 7 is prog");
	TAP_EQ(r.sid.time, 100, "good: COMM's trailer time");

	TAP_EQ(lspd_next(f, &r), 1, "good: MMAP2");
	TAP_EQ(r.u.mmap.addr, 0x400000, "good: mmap address");
	TAP_EQ(r.u.mmap.len, 0x2000, "good: mmap length");
	TAP_EQ(r.u.mmap.pgoff, 0x1000, "good: mmap offset");
	TAP_EQ(r.u.mmap.prot, 5, "good: mmap prot r-x");
	TAP_OK(r.u.mmap.filename && !strcmp(r.u.mmap.filename, "/bin/x"), "good: mmap file");
	TAP_EQ(r.sid.time, 200, "good: MMAP2's trailer time");
	TAP_EQ(r.sid.attr, 0, "good: MMAP2 of attr 0");

	TAP_EQ(lspd_next(f, &r), 1, "good: SAMPLE");
	TAP_EQ(r.u.sample.ip, 0x401234, "good: sample ip");
	TAP_EQ(r.u.sample.sid.tid, 8, "good: sample tid");
	TAP_EQ(r.u.sample.sid.time, 300, "good: sample time");
	TAP_EQ(r.u.sample.period, 999, "good: sample period (from the sample, not the attr)");

	TAP_EQ(lspd_next(f, &r), 1, "good: AUXTRACE");
	TAP_EQ(r.u.auxtrace.size, 16, "good: 16 payload bytes");
	TAP_EQ(r.u.auxtrace.cpu, 3, "good: on cpu 3");
	n = lspd_read_aux(f, aux, 10);
	TAP_EQ(n, 10, "good: 10 payload bytes read");
	TAP_OK(!memcmp(aux, "0123456789", 10), "good: ... as written");
	/* the 6 unread bytes are skipped by the next lspd_next() */
	TAP_EQ(lspd_next(f, &r), 1, "good: EXIT after the rest of the payload");
	TAP_OK(r.type == PERF_RECORD_EXIT && r.u.task.pid == 7 && r.u.task.ppid == 1 &&
	       r.u.task.time == 400, "good: EXIT of 7, parent 1, at 400");
	TAP_EQ(lspd_next(f, &r), 0, "good: the end");
	close_buf(f);
}

/* A stream made bad in one place; the error lspd_next() returns. */
static void t_bad(void)
{
	struct lspd_file *f;
	struct lspd_record r;
	int err;

	len = 0;
	put("PERFILE3", 8);
	u64(16);
	TAP_EQ(open_buf(&f), -LS_EFORMAT, "bad magic: -LS_EFORMAT");
	TAP_OK(f && strstr(lspd_errmsg(f), "crafted"), "bad magic: the message names the file (%s)",
	       f ? lspd_errmsg(f) : "");
	close_buf(f);

	len = 0;
	put("PERFILE2", 8);
	TAP_EQ(open_buf(&f), -LS_EFORMAT, "8 bytes: too short for a header");
	close_buf(f);

	pipe_header();
	hdr(PERF_RECORD_SAMPLE, 0, 8 + 32);
	u64(1); u64(2); u64(3); u64(4);
	open_buf(&f);
	TAP_EQ(lspd_next(f, &r), -LS_EPERF, "a sample before any attr: -LS_EPERF");
	close_buf(f);

	pipe_header();
	attr(ST);
	hdr(PERF_RECORD_SAMPLE, 0, 8 + 24);	/* one field short */
	u64(1); u64(2); u64(3);
	open_buf(&f);
	lspd_next(f, &r);
	TAP_EQ(lspd_next(f, &r), -LS_ECORRUPT, "a sample whose fields do not fit: -LS_ECORRUPT");
	close_buf(f);

	pipe_header();
	hdr(PERF_RECORD_COMM, 0, 4);
	open_buf(&f);
	TAP_EQ(lspd_next(f, &r), -LS_ECORRUPT, "a record size below its header: -LS_ECORRUPT");
	close_buf(f);

	pipe_header();
	hdr(PERF_RECORD_COMM, 0, 64);
	u64(0);
	open_buf(&f);
	err = lspd_next(f, &r);
	TAP_EQ(err, -LS_ETRUNC, "a record cut short by the end: -LS_ETRUNC");
	close_buf(f);

	pipe_header();
	hdr(81, 0, 16);			/* COMPRESSED */
	u64(0);
	open_buf(&f);
	TAP_EQ(lspd_next(f, &r), -LS_EZSTD, "COMPRESSED of 8 zero bytes: -LS_EZSTD");
	TAP_OK(strstr(lspd_errmsg(f), "crafted: COMPRESSED record at offset 16") != NULL,
	       "and the message names the record (%s)", lspd_errmsg(f));
	close_buf(f);
}

/* perf record -z as tools/perf/util/zstd.c writes it: the records COMM and
 * EXIT compressed in one stream (compressStream + flushStream per push,
 * the frame never ended; here two pushes, the second the last 10 bytes of
 * the EXIT), its bytes cut at byte `cut` into two COMPRESSED records (type
 * 81, or 83 with data_size and padding).  With `cut` inside the stream the
 * COMM straddles both; cut 0 cuts after the first push and keeps only it,
 * so the data ends inside the EXIT.  Returns the offset of the second
 * COMPRESSED record. */
static size_t z_stream(uint32_t type, size_t cut)
{
	uint8_t plain[128], z[256];
	size_t np, part[2], i, second = 0;
	ZSTD_CStream *cs = ZSTD_createCStream();
	ZSTD_inBuffer in;
	ZSTD_outBuffer out = { z, sizeof(z), 0 };
	int only_first = cut == 0;

	len = 0;
	hdr(PERF_RECORD_COMM, 0, 8 + 8 + 8 + 16);
	u32(7); u32(7); put("prog\0\0\0\0", 8);
	u32(7); u32(7); u64(100);
	hdr(PERF_RECORD_EXIT, 0, 8 + 24 + 16);
	u32(7); u32(1); u32(7); u32(1); u64(400);
	u32(7); u32(7); u64(400);
	memcpy(plain, buf, len);
	np = len;
	ZSTD_initCStream(cs, 3);
	in.src = plain;
	in.size = np - 10;
	in.pos = 0;
	ZSTD_compressStream(cs, &out, &in);
	ZSTD_flushStream(cs, &out);
	if (only_first)
		cut = out.pos;
	in.size = np;
	ZSTD_compressStream(cs, &out, &in);
	ZSTD_flushStream(cs, &out);
	ZSTD_freeCStream(cs);
	if (cut > out.pos)
		cut = out.pos;
	part[0] = cut;
	part[1] = out.pos - cut;
	pipe_header();
	attr(ST);
	for (i = 0; i < (only_first ? 1u : 2u); i++) {
		size_t pad = type == 83 ? (8 - part[i] % 8) % 8 : 0;

		if (i)
			second = len;
		hdr(type, 0, (uint16_t)(8 + (type == 83 ? 8 : 0) + part[i] + pad));
		if (type == 83)
			u64(part[i]);
		put(z + (i ? part[0] : 0), part[i]);
		memset(buf + len, 0, pad);
		len += pad;
	}
	return second;
}

static void t_zstd(void)
{
	static const struct { uint32_t type; size_t cut; } v[] = {
		{ 81, 5 }, { 81, 1000 }, { 83, 5 }, { 83, 17 }, { 83, 1000 },
	};
	struct lspd_file *f;
	struct lspd_record r;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t second = z_stream(v[i].type, v[i].cut);

		open_buf(&f);
		TAP_EQ(lspd_next(f, &r), 1, "z %u/%zu: the attr", v[i].type, v[i].cut);
		TAP_EQ(lspd_next(f, &r), 1, "z %u/%zu: a record from inside", v[i].type,
		       v[i].cut);
		TAP_OK(r.type == PERF_RECORD_COMM && r.u.comm.pid == 7 &&
		       !strcmp(r.u.comm.comm, "prog") && r.sid.time == 100,
		       "z %u/%zu: COMM prog of 7 at 100", v[i].type, v[i].cut);
		/* As perf does, a record that straddles two COMPRESSED records
		 * has the offset of the one where it ends. */
		TAP_EQ(r.offset, v[i].cut < 1000 ? second : 96,
		       "z %u/%zu: at the offset of the COMPRESSED where it ends",
		       v[i].type, v[i].cut);
		TAP_EQ(lspd_next(f, &r), 1, "z %u/%zu: the second", v[i].type, v[i].cut);
		TAP_OK(r.type == PERF_RECORD_EXIT && r.u.task.time == 400,
		       "z %u/%zu: EXIT at 400", v[i].type, v[i].cut);
		TAP_EQ(lspd_next(f, &r), 0, "z %u/%zu: the end", v[i].type, v[i].cut);
		close_buf(f);
	}
	z_stream(81, 0);
	open_buf(&f);
	lspd_next(f, &r);
	TAP_OK(lspd_next(f, &r) == 1 && r.type == PERF_RECORD_COMM,
	       "first push only: the COMM is whole");
	TAP_EQ(lspd_next(f, &r), -LS_ETRUNC, "data ending inside a compressed record: -LS_ETRUNC");
	TAP_OK(strstr(lspd_errmsg(f), "COMPRESSED record at offset 96") != NULL,
	       "and the message names the COMPRESSED record (%s)", lspd_errmsg(f));
	close_buf(f);
}

int main(void)
{
	t_good();
	t_bad();
	t_zstd();
	return TAP_DONE();
}
