/* pt32rec.c - writes the Intel PT stream of a 32-bit program's run, for
 * the 32-bit decode tests (t0540).
 *
 *   pt32rec [--resume-icall] [--ovf=N] OUT.pt PROG ARGS...
 *
 * Single-steps PROG natively with ptrace (PROG must be a static 32-bit
 * program without a vDSO call: every instruction it runs is its own) and
 * encodes each step's control flow with the Valgrind tool's PT encoder
 * (recorder/vgtool/lsc_ptenc.c) as hardware would for a user-only trace
 * with return compression: PSB+ and TIP.PGE with MODE.Exec CS.D=1 at the
 * first instruction, a TNT bit per conditional branch and compressed
 * return, a TIP per indirect branch, TIP.PGD (IP suppressed) at a far
 * transfer (int, sysenter), TIP.PGE where the program resumes after it.
 * Branches are told from capstone's 32-bit disassembly of the bytes read
 * from the process; where they went, from the next step's EIP.  Prints
 * the number of steps that completed ("steps N") and exits 0.
 *
 * --resume-icall: each indirect call's target goes out as TIP.PGD X and
 * TIP.PGE X instead of TIP X (tracing off at the call, on again at its
 * target, as an IP filter's edge can make it): where libipt 2.0.5's
 * instruction decoder stops early (tests/tools/ptoracle.h, t0542).
 * --ovf=N: after the Nth conditional branch's TNT bit, an internal buffer
 * overflow as hardware writes it: OVF, then FUP with the IP where tracing
 * goes on (the branch's successor, so no instruction is lost); prints
 * "ovf OFFSET", the OVF packet's offset in OUT.pt (t0543).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../recorder/vgtool/lsc_ptenc.c"
#include "decoder/iclass.h"

#define BUF_CAP (1u << 20)

static FILE *out;
static uint8_t buf[BUF_CAP];

static void die(const char *what)
{
	fprintf(stderr, "pt32rec: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void check(int err, const char *what)
{
	if (err < 0) {
		fprintf(stderr, "pt32rec: encoder: %s failed (%d)\n", what, err);
		exit(2);
	}
}

/* Writes out what the encoder holds, so that the buffer never fills. */
static void drain(struct lsc_ptenc *e)
{
	if (e->len && fwrite(e->buf, 1, e->len, out) != e->len)
		die("write");
	e->len = 0;
}

static uint64_t eip(pid_t pid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
		die("PTRACE_GETREGS");
	return r.rip;
}

static void peek(pid_t pid, uint64_t ip, uint8_t code[16])
{
	for (int i = 0; i < 16; i += 8) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)(ip + i), NULL);
		if (errno)
			die("PTRACE_PEEKTEXT");
		memcpy(code + i, &w, 8);
	}
}

static int has_imm(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	return x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
}

int main(int argc, char **argv)
{
	static struct lsc_ptenc e;
	uint64_t steps = 0, ip;
	cs_insn *in;
	int status;
	pid_t pid;
	csh cs;
	uint64_t ovf = 0, nconds = 0, written = 0;
	int resume = 0;

	for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
		if (!strcmp(argv[1], "--resume-icall"))
			resume = 1;
		else if (!strncmp(argv[1], "--ovf=", 6))
			ovf = strtoull(argv[1] + 6, NULL, 10);
		else
			break;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pt32rec [--resume-icall] [--ovf=N] OUT.pt PROG ARGS...\n");
		return 2;
	}
	if (lsd_cs_open_mode(&cs, LSD_CS_DETAIL, LSD_MODE_32) < 0 ||
	    !(in = lsd_cs.malloc(cs))) {
		fprintf(stderr, "pt32rec: capstone has no x86\n");
		return 2;
	}
	if (!(out = fopen(argv[1], "wb")))
		die(argv[1]);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		die("exec");
	lsc_ptenc_init(&e, buf, sizeof(buf));
	e.csd = 1;
	ip = eip(pid);
	check(lsc_ptenc_psb(&e, ip), "psb");
	check(lsc_ptenc_pge(&e, ip), "pge");
	for (;;) {
		uint8_t code[16];
		const uint8_t *p = code;
		size_t len = sizeof(code);
		uint64_t a = ip, next, fall;

		peek(pid, ip, code);
		if (!lsd_cs.disasm_iter(cs, &p, &len, &a, in)) {
			fprintf(stderr, "pt32rec: no instruction at %#llx\n",
				(unsigned long long)ip);
			return 2;
		}
		fall = ip + in->size;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0)
			die("PTRACE_SINGLESTEP");
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			/* The last step did not complete: the exit system
			 * call; tracing stops at its far transfer. */
			if (lsd_cs.insn_group(cs, in, CS_GRP_INT) ||
			    in->id == X86_INS_SYSENTER || in->id == X86_INS_SYSCALL)
				check(lsc_ptenc_pgd(&e), "pgd");
			break;
		}
		if (WSTOPSIG(status) != SIGTRAP) {
			fprintf(stderr, "pt32rec: signal %d: not modelled\n", WSTOPSIG(status));
			kill(pid, SIGKILL);
			return 2;
		}
		steps++;
		next = eip(pid);
		if (lsd_cs.insn_group(cs, in, CS_GRP_INT) || in->id == X86_INS_SYSENTER) {
			check(lsc_ptenc_pgd(&e), "pgd");
			check(lsc_ptenc_pge(&e, next), "pge");
		} else if (lsd_cs.insn_group(cs, in, CS_GRP_RET)) {
			check(lsc_ptenc_ret(&e, next), "ret");
		} else if (lsd_cs.insn_group(cs, in, CS_GRP_CALL)) {
			lsc_ptenc_call(&e, fall);
			if (!has_imm(in) && resume) {
				check(lsc_ptenc_ip_packet(&e, LSC_OP_PGD, next, 1), "pgd");
				e.enabled = 0;
				check(lsc_ptenc_pge(&e, next), "pge");
			} else if (!has_imm(in)) {
				check(lsc_ptenc_tip(&e, next), "tip");
			}
		} else if (in->id == X86_INS_JMP) {
			if (!has_imm(in))
				check(lsc_ptenc_tip(&e, next), "tip");
		} else if (lsd_cs.insn_group(cs, in, CS_GRP_JUMP)) {
			check(lsc_ptenc_tnt(&e, next != fall), "tnt");
			if (++nconds == ovf) {
				check(lsc_ptenc_tnt_flush(&e), "tnt");
				printf("ovf %llu\n", (unsigned long long)(written + e.len));
				lsc_ptenc_put(&e, 0x02, 1);
				lsc_ptenc_put(&e, 0xf3, 1);
				/* libipt forgets the last IP and the
				 * return stack at an overflow. */
				e.ret_count = 0;
				e.have_ip = 0;
				e.last_ip = 0;
				check(lsc_ptenc_fup(&e, next), "fup");
			}
		}
		if (e.len > BUF_CAP / 2) {
			written += e.len;
			drain(&e);
		}
		ip = next;
	}
	check(lsc_ptenc_tnt_flush(&e), "tnt");
	drain(&e);
	if (fclose(out) != 0)
		die(argv[1]);
	printf("steps %llu\n", (unsigned long long)steps);
	lsd_cs.free(in, 1);
	lsd_cs.close(&cs);
	return 0;
}
