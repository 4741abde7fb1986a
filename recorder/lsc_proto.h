/* lsc_proto.h - the wire protocol between the Valgrind tool (vgtool/) and
 * the `loopscope record` process.
 *
 * The tool writes a stream of records to the FIFO named by its
 * --lsc-out=PATH option.  All integers are little-endian.  Every record is
 * a 16-byte header followed by `size` payload bytes; records are written
 * whole and in order.  The reader must bounds-check `size` against
 * LSW_MAX_PAYLOAD.
 *
 * Times: `seq` fields are a global sequence number that the tool increments
 * on every sideband record, so sideband events of all threads are totally
 * ordered.  PT carries no timing (no TSC/MTC/CYC packets).
 */
#ifndef LSC_PROTO_H
#define LSC_PROTO_H

#include <stdint.h>

#define LSW_MAGIC	0x3150534cu	/* "LSP1" in the HELLO payload */
#define LSW_VERSION	1u
#define LSW_MAX_PAYLOAD	(1u << 20)	/* no record payload is larger */

enum lsw_type {
	LSW_HELLO = 1,		/* struct lsw_hello */
	LSW_THREAD_START = 2,	/* struct lsw_thread; hdr.tid is the new thread */
	LSW_THREAD_EXIT = 3,	/* struct lsw_thread */
	LSW_MMAP = 4,		/* struct lsw_mmap + NUL-terminated path */
	LSW_MUNMAP = 5,		/* struct lsw_munmap */
	LSW_MEMDUMP = 6,	/* struct lsw_memdump + bytes (the vDSO's code) */
	LSW_PT = 7,		/* raw PT bytes of thread hdr.tid; starts at a PSB */
	LSW_MEMACC = 8,		/* memory accesses of thread hdr.tid, see below */
	LSW_EXEC = 9,		/* struct lsw_exec + NUL-terminated path;
				 * written before every execve, each thread's
				 * PT flushed: if the exec succeeds nothing
				 * follows (no THREAD_EXIT, no END); if it
				 * fails, records go on */
	LSW_FORK = 10,		/* struct lsw_fork */
	LSW_SIGNAL = 11,	/* struct lsw_signal */
	LSW_END = 12,		/* struct lsw_end; last record */
	LSW_VERIFY = 13,	/* struct lsw_verify; only with
				 * LSW_HELLO_VERIFY, before each LSW_EXEC */
};

struct lsw_hdr {
	uint32_t type;		/* enum lsw_type */
	uint32_t tid;		/* OS thread id (lwp) the record is about, or 0 */
	uint32_t size;		/* payload bytes that follow */
	uint32_t reserved;	/* 0 */
};

struct lsw_hello {
	uint32_t magic;		/* LSW_MAGIC */
	uint32_t version;	/* LSW_VERSION */
	uint32_t pid;		/* the traced process */
	uint32_t psb_period;	/* bytes of PT between PSBs */
	uint32_t flags;		/* LSW_HELLO_* */
	uint32_t reserved;
};
#define LSW_HELLO_MEM 1u		/* memory accesses follow */
#define LSW_HELLO_VERIFY 2u	/* THREAD_EXIT carries lsw_thread.insns */
#define LSW_HELLO_NORETCOMP 4u	/* every return is a TIP (--lsc-retcomp=no) */

struct lsw_thread {
	uint64_t seq;
	uint32_t parent_tid;	/* THREAD_START: creating thread, 0 if none */
	uint32_t status;	/* THREAD_EXIT: exit code or 128+signal; else 0 */
	/* Added in the Valgrind tool, absent from older writers (check
	 * hdr.size): THREAD_EXIT with LSW_HELLO_VERIFY holds the
	 * instructions the thread executed, counted as libipt counts them
	 * (a rep string instruction once per execution); else 0.
	 */
	uint64_t insns;
};

struct lsw_mmap {
	uint64_t seq;
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;		/* file offset in bytes */
	uint32_t prot;		/* PROT_* bits: 1 read, 2 write, 4 exec */
	uint32_t flags;		/* LSW_MMAP_* */
	/* followed by the path, NUL-terminated; "[vdso]" for the vDSO */
};
#define LSW_MMAP_STARTUP 1u	/* mapped before the client's first insn */

struct lsw_munmap {
	uint64_t seq;
	uint64_t addr;
	uint64_t len;
};

struct lsw_memdump {
	uint64_t seq;
	uint64_t addr;
	/* followed by the bytes at addr */
};

struct lsw_exec {
	uint64_t seq;
	/* followed by the path, NUL-terminated */
};

struct lsw_fork {
	uint64_t seq;
	uint32_t child_pid;	/* the child is not traced */
	uint32_t reserved;
};

struct lsw_signal {
	uint64_t seq;
	uint64_t ip;		/* guest IP at delivery */
	uint32_t signo;
	uint32_t reserved;
};

/* The instructions thread hdr.tid executed so far, counted as libipt
 * counts them (see lsw_thread.insns): a process that execs writes no
 * THREAD_EXIT, so the count comes with the exec.
 */
struct lsw_verify {
	uint64_t seq;
	uint64_t insns;
};

struct lsw_end {
	uint64_t seq;
	uint64_t blocks;	/* superblocks the tool instrumented */
	uint32_t exit_status;	/* the client's exit code */
	uint32_t lost;		/* records the tool could not write */
};

/* LSW_MEMACC payload: a sequence of accesses, each encoded as
 *   uleb128  (icount - prev_icount)   executed-instruction index of the
 *                                     thread, delta to the previous access
 *   sleb128  (iaddr - prev_iaddr)     instruction address, delta
 *   sleb128  (daddr - prev_daddr)     data address, delta
 *   u8       (size << 1) | is_write   size in bytes (1..127)
 * or, for an allocation (a return from malloc, calloc, realloc, operator
 * new or new[] with a non-null block), the same three deltas with the
 * call's return address as iaddr and the block as daddr, then
 *   u8       0
 *   uleb128  the block's size in bytes (calloc: count x size)
 * The prev_* values start at 0 at the beginning of every record.
 */

#endif
