/* lsc_ptenc.c - Intel PT packet encoder, see lsc_ptenc.h.
 *
 * Packet layouts are from the Intel SDM Vol. 3 section 33.4.2; the IP
 * compression choices are those libipt's pt_last_ip accepts.
 */
#include "lsc_ptenc.h"

#define LSC_OP_TNT64	0xa3	/* after 0x02 */
#define LSC_OP_PSB	0x82	/* after 0x02, 8 times */
#define LSC_OP_PSBEND	0x23	/* after 0x02 */
#define LSC_OP_MODE	0x99
#define LSC_OP_TIP	0x0d
#define LSC_OP_PGE	0x11
#define LSC_OP_PGD	0x01
#define LSC_OP_FUP	0x1d
#define LSC_MODE_EXEC_64 0x01	/* leaf 000b, CS.L=1, CS.D=0 */
#define LSC_MODE_EXEC_32 0x02	/* leaf 000b, CS.L=0, CS.D=1 */

void lsc_ptenc_init(struct lsc_ptenc *e, uint8_t *buf, size_t cap)
{
	size_t i;

	e->tnt = 1;
	e->ret_top = 0;
	e->ret_count = 0;
	for (i = 0; i < LSC_PTENC_RETSTACK; i++)
		e->ret[i] = 0;
	e->last_ip = 0;
	e->have_ip = 0;
	e->enabled = 0;
	e->retcomp = 1;
	e->csd = 0;
	e->buf = buf;
	e->len = 0;
	e->cap = cap;
}

static int lsc_ptenc_room(const struct lsc_ptenc *e)
{
	if (!e->buf || e->len + LSC_PTENC_PKT_MAX > e->cap)
		return LSC_PTENC_ENOSPC;
	return 0;
}

static void lsc_ptenc_put(struct lsc_ptenc *e, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++, v >>= 8)
		e->buf[e->len++] = (uint8_t)v;
}

int lsc_ptenc_tnt_flush(struct lsc_ptenc *e)
{
	uint64_t w = e->tnt;

	if (w == 1)
		return 0;
	if (lsc_ptenc_room(e) < 0)
		return LSC_PTENC_ENOSPC;
	/* The sentinel doubles as the packets' stop bit, so the word is the
	 * payload as is: TNT-8 shifts it past the 0 header bit, TNT-64 takes
	 * it as its 48-bit payload.
	 */
	if (w < (1u << 7)) {
		lsc_ptenc_put(e, w << 1, 1);
	} else {
		lsc_ptenc_put(e, 0x02, 1);
		lsc_ptenc_put(e, LSC_OP_TNT64, 1);
		lsc_ptenc_put(e, w, 6);
	}
	e->tnt = 1;
	return 0;
}

int lsc_ptenc_tnt(struct lsc_ptenc *e, int taken)
{
	e->tnt = (e->tnt << 1) | (taken ? 1 : 0);
	if (e->tnt >> LSC_PTENC_TNT_MAX)
		return lsc_ptenc_tnt_flush(e);
	return 0;
}

int lsc_ptenc_ipc(const struct lsc_ptenc *e, uint64_t ip)
{
	uint64_t last = e->last_ip;

	/* Shortest first; the update forms need a valid last IP. */
	if (e->have_ip && (ip >> 16) == (last >> 16))
		return 1;
	if (e->have_ip && (ip >> 32) == (last >> 32))
		return 2;
	if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		return 3;
	if (e->have_ip && (ip >> 48) == (last >> 48))
		return 4;
	return 6;
}

static int lsc_ptenc_ip_packet(struct lsc_ptenc *e, uint8_t op, uint64_t ip,
			       int valid)
{
	static const int bytes[7] = { 0, 2, 4, 6, 6, 0, 8 };
	int ipc = valid ? lsc_ptenc_ipc(e, ip) : 0;
	int err;

	err = lsc_ptenc_tnt_flush(e);
	if (err < 0)
		return err;
	if (lsc_ptenc_room(e) < 0)
		return LSC_PTENC_ENOSPC;
	lsc_ptenc_put(e, (uint64_t)(op | (ipc << 5)), 1);
	lsc_ptenc_put(e, ip, bytes[ipc]);
	if (valid) {
		e->last_ip = ip;
		e->have_ip = 1;
	}
	return 0;
}

int lsc_ptenc_tip(struct lsc_ptenc *e, uint64_t ip)
{
	return lsc_ptenc_ip_packet(e, LSC_OP_TIP, ip, 1);
}

int lsc_ptenc_fup(struct lsc_ptenc *e, uint64_t ip)
{
	return lsc_ptenc_ip_packet(e, LSC_OP_FUP, ip, 1);
}

static int lsc_ptenc_mode_exec(struct lsc_ptenc *e)
{
	if (lsc_ptenc_room(e) < 0)
		return LSC_PTENC_ENOSPC;
	lsc_ptenc_put(e, LSC_OP_MODE, 1);
	lsc_ptenc_put(e, e->csd ? LSC_MODE_EXEC_32 : LSC_MODE_EXEC_64, 1);
	return 0;
}

int lsc_ptenc_pge(struct lsc_ptenc *e, uint64_t ip)
{
	int err;

	err = lsc_ptenc_tnt_flush(e);
	if (err >= 0)
		err = lsc_ptenc_mode_exec(e);
	if (err >= 0)
		err = lsc_ptenc_ip_packet(e, LSC_OP_PGE, ip, 1);
	if (err >= 0)
		e->enabled = 1;
	return err;
}

int lsc_ptenc_pgd(struct lsc_ptenc *e)
{
	int err;

	/* A user-only trace disables at the far branch into the kernel; the
	 * target is not traced, so the IP is suppressed and libipt binds the
	 * disable to the next far branch (the syscall instruction).
	 */
	err = lsc_ptenc_ip_packet(e, LSC_OP_PGD, 0, 0);
	if (err >= 0)
		e->enabled = 0;
	return err;
}

int lsc_ptenc_async_pgd(struct lsc_ptenc *e, uint64_t ip)
{
	int err;

	err = lsc_ptenc_fup(e, ip);
	if (err >= 0)
		err = lsc_ptenc_pgd(e);
	return err;
}

int lsc_ptenc_psb(struct lsc_ptenc *e, uint64_t ip)
{
	int i, err;

	err = lsc_ptenc_tnt_flush(e);
	if (err < 0)
		return err;
	if (lsc_ptenc_room(e) < 0)
		return LSC_PTENC_ENOSPC;
	for (i = 0; i < 8; i++) {
		lsc_ptenc_put(e, 0x02, 1);
		lsc_ptenc_put(e, LSC_OP_PSB, 1);
	}
	/* Every chunk must decode on its own: forget what came before. */
	e->have_ip = 0;
	e->last_ip = 0;
	e->ret_count = 0;
	err = lsc_ptenc_mode_exec(e);
	if (err >= 0 && e->enabled)
		err = lsc_ptenc_ip_packet(e, LSC_OP_FUP, ip, 1);
	if (err < 0)
		return err;
	if (lsc_ptenc_room(e) < 0)
		return LSC_PTENC_ENOSPC;
	lsc_ptenc_put(e, 0x02, 1);
	lsc_ptenc_put(e, LSC_OP_PSBEND, 1);
	return 0;
}

void lsc_ptenc_call(struct lsc_ptenc *e, uint64_t ret_ip)
{
	if (!e->retcomp)
		return;
	e->ret[e->ret_top % LSC_PTENC_RETSTACK] = ret_ip;
	e->ret_top++;
	if (e->ret_count < LSC_PTENC_RETSTACK)
		e->ret_count++;
}

int lsc_ptenc_ret(struct lsc_ptenc *e, uint64_t ip)
{
	if (e->retcomp && e->ret_count &&
	    e->ret[(e->ret_top - 1) % LSC_PTENC_RETSTACK] == ip) {
		e->ret_top--;
		e->ret_count--;
		return lsc_ptenc_tnt(e, 1);
	}
	return lsc_ptenc_tip(e, ip);
}
