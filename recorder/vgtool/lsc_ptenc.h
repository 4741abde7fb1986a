/* lsc_ptenc.h - Intel PT packet encoder of the Valgrind tool.
 *
 * Pure C with no Valgrind or libc dependency so that the same code runs
 * inside the tool and in host unit tests (tests/unit/unit_ptenc.c).  It
 * writes packets the way hardware does for a user-only trace with return
 * compression (or without, as perf's noretcomp) and no timing packets
 * (Intel SDM Vol. 3, chapter 33).
 *
 * The caller owns the output buffer and cuts it at PSBs; a packet that
 * would not fit with LSC_PTENC_PKT_MAX bytes to spare is refused.  All
 * functions return >= 0 on success and a negative LSC_PTENC_E* code on
 * error.
 */
#ifndef LSC_PTENC_H
#define LSC_PTENC_H

#include <stddef.h>
#include <stdint.h>

#define LSC_PTENC_ENOSPC	(-1)	/* the buffer cannot hold the packet */
#define LSC_PTENC_EINVAL	(-2)	/* bad argument */

#define LSC_PTENC_RETSTACK	64	/* entries, as libipt's pt_retstack */
#define LSC_PTENC_TNT_MAX	47	/* payload bits of one TNT-64 */
#define LSC_PTENC_PKT_MAX	32	/* no packet group we write is larger */

/* The per-thread encoder state.  The first fields are read and written by
 * inline IR in the tool, so keep them 64-bit and at fixed positions.
 */
struct lsc_ptenc {
	/* Pending TNT bits, oldest highest, under a sentinel 1 bit: 1 means
	 * none pending; bit 47 set means a TNT-64 is full.
	 */
	uint64_t tnt;
	/* Return-compression shadow stack: a ring of 64 like libipt's.
	 * ret_top counts pushes minus pops (the slot is ret_top % 64), and
	 * ret_count the valid entries (at most 64; a push onto a full
	 * stack overwrites the oldest entry).
	 */
	uint64_t ret_top;
	uint64_t ret_count;
	uint64_t ret[LSC_PTENC_RETSTACK];

	uint64_t last_ip;	/* IP compression reference */
	uint32_t have_ip;	/* last_ip is valid (cleared at PSB) */
	uint32_t enabled;	/* between TIP.PGE and TIP.PGD */
	/* Return compression (RTIT_CTL.DisRETC clear); set by init.  Off,
	 * every return is a TIP, so a decoder needs no call stack that may
	 * reach back before a PSB or a context switch.
	 */
	uint32_t retcomp;
	/* MODE.Exec says 32-bit code (CS.D=1, CS.L=0) instead of 64-bit;
	 * cleared by init.  For test streams of 32-bit programs
	 * (tests/tools/pt32rec.c): the tool itself traces 64-bit code only.
	 */
	uint32_t csd;

	uint8_t *buf;		/* bytes of the current chunk */
	size_t len;
	size_t cap;
};

/* Reset everything but the buffer pointer; return compression on. */
void lsc_ptenc_init(struct lsc_ptenc *e, uint8_t *buf, size_t cap);

/* Queue one conditional branch outcome; flushes a full TNT-64. */
int lsc_ptenc_tnt(struct lsc_ptenc *e, int taken);
/* Write the pending TNT bits (TNT-8 if <= 6, else TNT-64).  Idempotent. */
int lsc_ptenc_tnt_flush(struct lsc_ptenc *e);

/* The IP compression libipt accepts for @ip given the last IP: 1..6. */
int lsc_ptenc_ipc(const struct lsc_ptenc *e, uint64_t ip);

/* Packets with an IP payload, compressed against the last IP. */
int lsc_ptenc_tip(struct lsc_ptenc *e, uint64_t ip);
int lsc_ptenc_fup(struct lsc_ptenc *e, uint64_t ip);
/* MODE.Exec (64-bit, or 32-bit with csd) + TIP.PGE(ip): tracing (re)starts
 * at ip. */
int lsc_ptenc_pge(struct lsc_ptenc *e, uint64_t ip);
/* TIP.PGD, IP suppressed: tracing stops at the next far branch. */
int lsc_ptenc_pgd(struct lsc_ptenc *e);
/* FUP(ip) + TIP.PGD: asynchronous disable before the insn at ip. */
int lsc_ptenc_async_pgd(struct lsc_ptenc *e, uint64_t ip);

/* PSB+: PSB, MODE.Exec, FUP(ip) if enabled, PSBEND.  Resets IP
 * compression and the return stack.  The caller cuts the chunk before.
 */
int lsc_ptenc_psb(struct lsc_ptenc *e, uint64_t ip);

/* Call: push the return address (what libipt does for a call); nothing
 * without return compression.
 */
void lsc_ptenc_call(struct lsc_ptenc *e, uint64_t ret_ip);
/* Return to @ip: a taken TNT bit if return compression is on and the
 * stack top matches, else a TIP.
 */
int lsc_ptenc_ret(struct lsc_ptenc *e, uint64_t ip);

#endif
