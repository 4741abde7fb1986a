/* lsc_out.c - the record stream to --lsc-out (see recorder/lsc_proto.h).
 *
 * Records are assembled in a 64 KiB buffer and written whole, so a reader
 * of a FIFO never sees half a record from us.  After a fork the child
 * calls lsc_out_abandon(): it must neither flush the parent's bytes again
 * nor write its own.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_vki.h"
#include "lsc_out.h"

#define LSC_OUT_BUF	(64u << 10)

static Int lsc_out_fd = -1;
static UChar lsc_out_buf[LSC_OUT_BUF];
static UInt lsc_out_len;
static ULong lsc_out_seq;
UInt lsc_out_lost;

int lsc_out_open(const HChar *path)
{
	SysRes sr;

	/* VG_(open) puts the fd out of the client's reach and sets
	 * close-on-exec, so neither the client nor its exec'd program can
	 * close or inherit it.
	 */
	sr = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0644);
	if (sr_isError(sr)) {
		VG_(umsg)("loopscope: cannot open '%s' (errno %lu)\n", path,
			  sr_Err(sr));
		return -1;
	}
	lsc_out_fd = (Int)sr_Res(sr);
	return 0;
}

static int lsc_out_write(const UChar *p, UInt n)
{
	while (n) {
		Int w = VG_(write)(lsc_out_fd, p, n);

		if (w == -VKI_EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (UInt)w;
	}
	return 0;
}

int lsc_out_flush(void)
{
	int err = 0;

	if (lsc_out_fd < 0)
		return -1;
	if (lsc_out_len)
		err = lsc_out_write(lsc_out_buf, lsc_out_len);
	lsc_out_len = 0;
	if (err < 0)
		lsc_out_lost++;
	return err;
}

ULong lsc_out_next_seq(void)
{
	return lsc_out_seq++;
}

int lsc_out_record(UInt type, UInt tid, const void *p1, UInt n1,
		   const void *p2, UInt n2)
{
	struct lsw_hdr h;
	UInt total = (UInt)sizeof(h) + n1 + n2;

	if (lsc_out_fd < 0)
		return -1;
	if (n1 + n2 > LSW_MAX_PAYLOAD) {
		lsc_out_lost++;
		return -1;
	}
	h.type = type;
	h.tid = tid;
	h.size = n1 + n2;
	h.reserved = 0;
	if (lsc_out_len + total > LSC_OUT_BUF && lsc_out_flush() < 0)
		return -1;
	if (total > LSC_OUT_BUF) {
		/* Too big to buffer: still one record, three writes. */
		if (lsc_out_write((const UChar *)&h, sizeof(h)) < 0 ||
		    lsc_out_write(p1, n1) < 0 ||
		    (n2 && lsc_out_write(p2, n2) < 0)) {
			lsc_out_lost++;
			return -1;
		}
		return 0;
	}
	VG_(memcpy)(lsc_out_buf + lsc_out_len, &h, sizeof(h));
	lsc_out_len += (UInt)sizeof(h);
	if (n1)
		VG_(memcpy)(lsc_out_buf + lsc_out_len, p1, n1);
	lsc_out_len += n1;
	if (n2)
		VG_(memcpy)(lsc_out_buf + lsc_out_len, p2, n2);
	lsc_out_len += n2;
	return 0;
}

void lsc_out_abandon(void)
{
	lsc_out_len = 0;
	if (lsc_out_fd >= 0)
		VG_(close)(lsc_out_fd);
	lsc_out_fd = -1;
}

void lsc_out_close(void)
{
	lsc_out_flush();
	if (lsc_out_fd >= 0)
		VG_(close)(lsc_out_fd);
	lsc_out_fd = -1;
}
