/* lsc_main.c - the loopscope Valgrind tool: options, start-up, sideband
 * (mappings, syscalls, fork, exec, signals) and shutdown.
 *
 * The tool records each thread's user-space control flow as the Intel PT
 * packet stream hardware would write for `perf record -e intel_pt//u`
 * (return compression on unless --lsc-retcomp=no, no timing) and sends it with sideband records
 * to --lsc-out in the format of recorder/lsc_proto.h.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "lsc_out.h"
#include "lsc_thread.h"

/* Not in the tool headers, but exported by the core: the client's auxv,
 * where AT_SYSINFO_EHDR tells whether the guest has a vDSO.
 */
extern UWord *VG_(client_auxv);

#define LSC_AT_SYSINFO_EHDR 33

static const HChar *lsc_clo_out;
Bool lsc_clo_mem;
const HChar *lsc_clo_mem_only;
Bool lsc_clo_verify;
Bool lsc_clo_retcomp = True;
ULong lsc_blocks;

static Bool lsc_process_cmd_line_option(const HChar *arg)
{
	Long period = 0;

	if VG_STR_CLO(arg, "--lsc-out", lsc_clo_out) {
	} else if VG_BOOL_CLO(arg, "--lsc-mem", lsc_clo_mem) {
	} else if VG_STR_CLO(arg, "--lsc-mem-only", lsc_clo_mem_only) {
		lsc_clo_mem = True;
	} else if VG_BOOL_CLO(arg, "--lsc-verify", lsc_clo_verify) {
	} else if VG_BOOL_CLO(arg, "--lsc-retcomp", lsc_clo_retcomp) {
	} else if VG_BINT_CLO(arg, "--lsc-psb-period", period, 256,
			      LSW_MAX_PAYLOAD / 2) {
		lsc_psb_period = (UInt)period;
	} else {
		return False;
	}
	return True;
}

static void lsc_print_usage(void)
{
	VG_(printf)(
"    --lsc-out=PATH            write the record stream to PATH [required]\n"
"    --lsc-psb-period=BYTES    PT bytes between PSBs [4096]\n"
"    --lsc-mem=yes|no          record loads and stores [no]\n"
"    --lsc-mem-only=LIST       only those of these functions' own instructions:\n"
"                              names or 0xSTART-0xEND, comma-separated\n"
"    --lsc-verify=yes|no       count instructions for checking [no]\n"
"    --lsc-retcomp=yes|no      compress returns to TNT bits; no: a TIP\n"
"                              for every return, as intel_pt noretcomp [yes]\n");
}

static void lsc_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* One LSW_MMAP for the executable file segment containing a. */
static void lsc_emit_map(const NSegment *seg, UInt flags)
{
	struct lsw_mmap m;
	const HChar *path;

	if (!seg || seg->kind != SkFileC || !seg->hasX || lsc_dead)
		return;
	path = VG_(am_get_filename)(seg);
	if (!path)
		path = "";
	VG_(memset)(&m, 0, sizeof(m));
	m.seq = lsc_out_next_seq();
	m.addr = seg->start;
	m.len = seg->end - seg->start + 1;
	m.pgoff = (ULong)seg->offset;
	m.prot = (seg->hasR ? 1u : 0) | (seg->hasW ? 2u : 0) | 4u;
	m.flags = flags;
	lsc_out_record(LSW_MMAP, 0, &m, sizeof(m), path,
		       (UInt)VG_(strlen)(path) + 1);
}

static void lsc_emit_range(Addr a, SizeT len, UInt flags)
{
	Addr end = a + len;

	while (a < end) {
		const NSegment *seg = VG_(am_find_nsegment)(a);

		if (!seg)
			break;
		lsc_emit_map(seg, flags);
		a = seg->end + 1;
	}
}

static void lsc_emit_vdso(void)
{
	const NSegment *seg;
	struct lsw_mmap m;
	struct lsw_memdump d;
	UWord *av;
	Addr base = 0;
	SizeT len;

	for (av = VG_(client_auxv); av && av[0] != 0; av += 2)
		if (av[0] == LSC_AT_SYSINFO_EHDR)
			base = av[1];
	/* On amd64 Valgrind hides the vDSO from the guest (it sets the
	 * auxv entry to AT_IGNORE), so this normally finds nothing.
	 */
	if (!base)
		return;
	seg = VG_(am_find_nsegment)(base);
	if (!seg || !seg->hasR || seg->kind == SkFree)
		return;
	len = seg->end - seg->start + 1;
	if (len > LSW_MAX_PAYLOAD - sizeof(d))
		return;
	VG_(memset)(&m, 0, sizeof(m));
	m.seq = lsc_out_next_seq();
	m.addr = seg->start;
	m.len = len;
	m.prot = 5;
	m.flags = LSW_MMAP_STARTUP;
	lsc_out_record(LSW_MMAP, 0, &m, sizeof(m), "[vdso]", 7);
	d.seq = lsc_out_next_seq();
	d.addr = seg->start;
	lsc_out_record(LSW_MEMDUMP, 0, &d, sizeof(d), (void *)seg->start,
		       (UInt)len);
}

void lsc_emit_startup_maps(void)
{
	Addr starts[256];
	Int n, i;

	if (lsc_dead)
		return;
	{
		static Bool done;

		if (done)
			return;
		done = True;
	}
	n = VG_(am_get_segment_starts)(SkFileC, starts, 256);
	if (n < 0) {
		VG_(umsg)("loopscope: more than 256 file mappings at start\n");
		n = 0;
	}
	for (i = 0; i < n; i++)
		lsc_emit_map(VG_(am_find_nsegment)(starts[i]),
			     LSW_MMAP_STARTUP);
	lsc_emit_vdso();
}

static void lsc_new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
			     ULong di_handle)
{
	if (xx)
		lsc_emit_range(a, len, 0);
}

static void lsc_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	if (xx)
		lsc_emit_range(a, len, 0);
}

static void lsc_munmap(Addr a, SizeT len)
{
	struct lsw_munmap m;

	if (lsc_dead)
		return;
	m.seq = lsc_out_next_seq();
	m.addr = a;
	m.len = len;
	lsc_out_record(LSW_MUNMAP, 0, &m, sizeof(m), NULL, 0);
}

static void lsc_start_client_code(ThreadId tid, ULong blocks)
{
	lsc_thread_switch(tid);
}

static void lsc_thread_ll_create(ThreadId parent, ThreadId child)
{
	lsc_thread_create(parent, child);
}

static void lsc_thread_ll_exit(ThreadId tid)
{
	lsc_thread_exit(tid, 0);
}

static void lsc_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
	lsc_thread_signal(tid, signo, VG_(get_IP)(tid));
}

static void lsc_pre_syscall(ThreadId tid, UInt sysno, UWord *args,
			    UInt nargs)
{
	struct lsw_exec ex;
	const HChar *path;
	UInt i;

	if (lsc_dead || (sysno != __NR_execve && sysno != __NR_execveat))
		return;
	/* Tracing ends at a successful exec, and nothing of ours survives
	 * it: write out every thread's chunk now.  If the exec fails the
	 * next block starts a new PSB and the trace goes on.
	 */
	for (i = 1; i < VG_N_THREADS; i++) {
		lsc_thread_flush(i);
		lsc_thread_verify(i);
	}
	path = (const HChar *)args[sysno == __NR_execve ? 0 : 1];
	if (!path || !VG_(am_is_valid_for_client)((Addr)path, 1,
						  VKI_PROT_READ))
		path = "";
	ex.seq = lsc_out_next_seq();
	lsc_out_record(LSW_EXEC, 0, &ex, sizeof(ex), path,
		       (UInt)VG_(strlen)(path) + 1);
	lsc_out_flush();
}

static void lsc_post_syscall(ThreadId tid, UInt sysno, UWord *args,
			     UInt nargs, SysRes res)
{
	struct lsw_fork f;
	Bool fork = False;

	if (lsc_dead || sr_isError(res) || sr_Res(res) == 0)
		return;
	if (sysno == __NR_fork || sysno == __NR_vfork)
		fork = True;
	else if (sysno == __NR_clone)
		fork = !(args[0] & VKI_CLONE_THREAD);
	if (!fork)
		return;
	f.seq = lsc_out_next_seq();
	f.child_pid = (UInt)sr_Res(res);
	f.reserved = 0;
	lsc_out_record(LSW_FORK, 0, &f, sizeof(f), NULL, 0);
}

static void lsc_atfork_pre(ThreadId tid)
{
	/* The child inherits our buffer; it must hold nothing. */
	if (!lsc_dead)
		lsc_out_flush();
}

static void lsc_atfork_child(ThreadId tid)
{
	lsc_dead = True;
	lsc_out_abandon();
}

static void lsc_post_clo_init(void)
{
	struct lsw_hello h;

	if (!lsc_clo_out) {
		VG_(umsg)("loopscope: --lsc-out=PATH is required\n");
		VG_(exit)(1);
	}
	if (!lsc_mem_filter_init())
		VG_(exit)(1);
	if (lsc_out_open(lsc_clo_out) < 0)
		VG_(exit)(1);
	lsc_thread_init(VG_N_THREADS);
	VG_(atfork)(lsc_atfork_pre, NULL, lsc_atfork_child);
	VG_(memset)(&h, 0, sizeof(h));
	h.magic = LSW_MAGIC;
	h.version = LSW_VERSION;
	h.pid = (UInt)VG_(getpid)();
	h.psb_period = lsc_psb_period;
	h.flags = (lsc_clo_mem ? LSW_HELLO_MEM : 0) |
		  (lsc_clo_verify ? LSW_HELLO_VERIFY : 0) |
		  (lsc_clo_retcomp ? 0 : LSW_HELLO_NORETCOMP);
	lsc_out_record(LSW_HELLO, 0, &h, sizeof(h), NULL, 0);
}

static void lsc_fini(Int exitcode)
{
	struct lsw_end e;

	if (lsc_dead)
		return;
	lsc_thread_exit_all((UInt)exitcode);
	VG_(memset)(&e, 0, sizeof(e));
	e.seq = lsc_out_next_seq();
	e.blocks = lsc_blocks;
	e.exit_status = (UInt)exitcode;
	e.lost = lsc_out_lost;
	lsc_out_record(LSW_END, 0, &e, sizeof(e), NULL, 0);
	lsc_out_close();
}

static void lsc_pre_clo_init(void)
{
	VG_(details_name)("loopscope");
	VG_(details_version)("0.2");
	VG_(details_description)("records control flow as Intel PT");
	VG_(details_copyright_author)("loopscope authors");
	VG_(details_bug_reports_to)("loopscope issues");
	VG_(basic_tool_funcs)(lsc_post_clo_init, lsc_instrument, lsc_fini);
	VG_(needs_command_line_options)(lsc_process_cmd_line_option,
					lsc_print_usage,
					lsc_print_debug_usage);
	VG_(needs_syscall_wrapper)(lsc_pre_syscall, lsc_post_syscall);
	VG_(track_start_client_code)(lsc_start_client_code);
	VG_(track_pre_thread_ll_create)(lsc_thread_ll_create);
	VG_(track_pre_thread_ll_exit)(lsc_thread_ll_exit);
	VG_(track_pre_deliver_signal)(lsc_deliver_signal);
	VG_(track_new_mem_mmap)(lsc_new_mem_mmap);
	VG_(track_change_mem_mprotect)(lsc_mprotect);
	VG_(track_die_mem_munmap)(lsc_munmap);
	/* Exact control flow: one guest branch per block exit, no blocks
	 * chased across jumps, no unrolled loops.
	 */
	VG_(clo_vex_control).guest_chase = False;
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
}

VG_DETERMINE_INTERFACE_VERSION(lsc_pre_clo_init)
