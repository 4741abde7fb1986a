/* sstep.c - counts a program's executed instructions per function by
 * single-stepping it natively with ptrace (test oracle).
 *
 *   sstep [-o OUT] PROG ARGS...
 *
 * Runs PROG without Valgrind and single-steps every thread to the end,
 * counting the instructions that complete in the main executable (the
 * file PROG itself; its load base comes from /proc/PID/maps, its
 * functions from .symtab read with libelf), so it shares nothing with
 * the decoder's image or symbol code.  Prints "FUNCTION COUNT" sorted by
 * name for every function with a count, then "total N" (every
 * instruction of the main executable, also those outside any function
 * symbol), and exits with the program's status (128 + signal if killed).
 *
 * What counts as one instruction, as Intel PT decoded by libipt counts:
 * - an instruction counts when its step completes: one that faults
 *   (SIGSEGV at the same RIP) did not execute;
 * - a rep-prefixed string instruction counts once per execution, not
 *   once per iteration: the CPU traps after every iteration with RIP
 *   still on the instruction, and such steps continue one execution
 *   (RIP arriving there from elsewhere, e.g. back from a signal handler,
 *   starts a new one).  A `loop` onto itself does not advance RIP either
 *   but is a new instruction each time, hence the prefix check;
 * - a signal is delivered (its handler's instructions count, like any
 *   other); setting up the handler frame executes nothing;
 * - threads are followed (PTRACE_O_TRACECLONE) and summed; a forked child
 *   is not traced (the kernel clears the trap flag of a fork child);
 * - at a second exec counting stops: sstep says so on stderr, detaches
 *   and lets the new program run natively;
 * - the dynamic loader's start-up, before PROG's entry point, runs to a
 *   breakpoint there unstepped, where it can run none of PROG's code (no
 *   DT_PREINIT_ARRAY, no IRELATIVE relocation: nothing_before_entry());
 *   everything from the entry on is stepped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

struct func {
	uint64_t start, end;	/* runtime addresses, [start, end) */
	const char *name;
	uint64_t count;
};

struct thread {
	pid_t tid;
	uint64_t pend;		/* RIP we last stepped from, 0: none */
	uint64_t in_rep;	/* rep string insn being iterated, 0: none */
	int live;
};

static struct func *funcs;
static size_t nfuncs;
static uint64_t exe_lo[16], exe_hi[16];	/* executable mappings of PROG */
static size_t nexe;
static uint64_t total;
/* Where PROG begins (its ELF entry, moved), and whether nothing of PROG
 * can run before it: then the dynamic loader's start-up is run, not
 * stepped (run_to_entry()). */
static uint64_t entry;
static int entry_ok;

static struct thread *threads;
static size_t nthreads, capthreads;

static void die(const char *what)
{
	fprintf(stderr, "sstep: %s: %s\n", what, strerror(errno));
	exit(125);
}

static int by_name(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* A function symbol as read from .symtab. */
struct sym {
	uint64_t start, end;
	int sized;		/* st_size != 0 */
	int bind;		/* 2 global, 1 weak, 0 local */
	const char *name;
	int used;		/* a piece of code is named after it */
};

static int sym_by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* True if symbol x names an address better than y: a sized symbol over
 * a size-less label, the innermost (smallest) one, then global over weak
 * over local, fewer leading underscores (printf over _IO_printf), then the
 * first name in byte order -- the choice decoder/symtab.c documents,
 * re-implemented here on purpose. */
static int better(const struct sym *x, const struct sym *y)
{
	if (x->sized != y->sized)
		return x->sized;
	if (x->end - x->start != y->end - y->start)
		return x->end - x->start < y->end - y->start;
	if (x->bind != y->bind)
		return x->bind > y->bind;
	if (strspn(x->name, "_") != strspn(y->name, "_"))
		return strspn(x->name, "_") < strspn(y->name, "_");
	return strcmp(x->name, y->name) < 0;
}

/* The FUNC symbols of path's .symtab (.dynsym if stripped), moved by
 * bias, cut into disjoint ranges each named by its best symbol.  A
 * symbol without a size (crt's frame_dummy, _init) reaches to the next
 * symbol of its section or the section's end, as perf does. */
static void load_symbols(const char *path, uint64_t bias)
{
	Elf *e;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh;
	struct sym *syms = NULL;
	uint64_t *cuts;
	size_t nsyms = 0, cap = 0, i, j, ncuts;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		fprintf(stderr, "sstep: %s: %s\n", path, elf_errmsg(-1));
		exit(125);
	}
	while ((scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB)
			symscn = scn;
		else if (sh.sh_type == SHT_DYNSYM && !symscn)
			symscn = scn;
	}
	if (symscn) {
		Elf_Data *d = elf_getdata(symscn, NULL);
		size_t n;

		gelf_getshdr(symscn, &sh);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++) {
			GElf_Sym sym;
			GElf_Shdr ssh;
			Elf_Scn *in;
			const char *name;
			int b;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			in = elf_getscn(e, sym.st_shndx);
			if (!name || !*name || !in || !gelf_getshdr(in, &ssh))
				continue;
			if (nsyms == cap) {
				cap = cap ? 2 * cap : 64;
				syms = realloc(syms, cap * sizeof(*syms));
				if (!syms)
					die("realloc");
			}
			b = GELF_ST_BIND(sym.st_info);
			syms[nsyms].start = sym.st_value + bias;
			/* a size-less label: to its section's end for now */
			syms[nsyms].end = sym.st_size ? sym.st_value + sym.st_size + bias :
					  ssh.sh_addr + ssh.sh_size + bias;
			syms[nsyms].sized = sym.st_size != 0;
			syms[nsyms].bind = b == STB_GLOBAL ? 2 : b == STB_WEAK ? 1 : 0;
			syms[nsyms].name = strdup(name);
			syms[nsyms].used = 0;
			nsyms++;
		}
	}
	qsort(syms, nsyms, sizeof(*syms), sym_by_start);
	for (i = 0; i < nsyms; i++)
		if (!syms[i].sized)
			for (j = i + 1; j < nsyms; j++)
				if (syms[j].start > syms[i].start) {
					if (syms[j].start < syms[i].end)
						syms[i].end = syms[j].start;
					break;
				}
	/* Every start and end cuts; each piece goes to its best symbol. */
	cuts = malloc((2 * nsyms + 1) * sizeof(*cuts));
	if (!cuts)
		die("malloc");
	for (i = 0; i < nsyms; i++) {
		cuts[2 * i] = syms[i].start;
		cuts[2 * i + 1] = syms[i].end;
	}
	qsort(cuts, 2 * nsyms, sizeof(*cuts), u64_cmp);
	for (i = j = 0; i < 2 * nsyms; i++)
		if (!j || cuts[j - 1] != cuts[i])
			cuts[j++] = cuts[i];
	ncuts = j;
	funcs = calloc(ncuts ? ncuts : 1, sizeof(*funcs));
	if (!funcs)
		die("calloc");
	for (i = 0; i + 1 < ncuts; i++) {
		const struct sym *best = NULL;

		for (j = 0; j < nsyms && syms[j].start <= cuts[i]; j++)
			if (cuts[i] < syms[j].end && (!best || better(&syms[j], best)))
				best = &syms[j];
		if (!best)
			continue;
		((struct sym *)best)->used = 1;
		funcs[nfuncs].start = cuts[i];
		funcs[nfuncs].end = cuts[i + 1];
		funcs[nfuncs].name = best->name;
		nfuncs++;
	}
	free(cuts);
	/* The names funcs points at stay; aliases that never won go. */
	for (i = 0; i < nsyms; i++)
		if (!syms[i].used)
			free((char *)syms[i].name);
	free(syms);
	elf_end(e);
	close(fd);
}

/* Whether the dynamic loader, given e (which has an interpreter), runs
 * none of e's code before its entry: no DT_PREINIT_ARRAY (the loader
 * calls those) and no IRELATIVE relocations (the loader calls their
 * resolvers).  The loader runs no DT_INIT or DT_INIT_ARRAY of the main
 * program: libc's start does. */
static int nothing_before_entry(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type != SHT_DYNAMIC && sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
			continue;
		if (!(d = elf_getdata(scn, NULL)))
			return 0;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Dyn dyn;
			GElf_Rela ra;
			GElf_Rel rl;
			uint64_t t;

			if (sh.sh_type == SHT_DYNAMIC) {
				if (!gelf_getdyn(d, (int)i, &dyn))
					return 0;
				if (dyn.d_tag == DT_PREINIT_ARRAY)
					return 0;
				continue;
			}
			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(d, (int)i, &ra))
					return 0;
				t = GELF_R_TYPE(ra.r_info);
			} else {
				if (!gelf_getrel(d, (int)i, &rl))
					return 0;
				t = GELF_R_TYPE(rl.r_info);
			}
			if ((gelf_getclass(e) == ELFCLASS64 && t == R_X86_64_IRELATIVE) ||
			    (gelf_getclass(e) == ELFCLASS32 && t == R_386_IRELATIVE))
				return 0;
		}
	}
	return 1;
}

/* Finds the main executable's mappings in /proc/PID/maps and its symbols:
 * PIE or not, the runtime address of ELF vaddr v is v + bias. */
static void load_exe(pid_t pid)
{
	char link[64], exe[PATH_MAX], line[PATH_MAX + 128];
	uint64_t base = UINT64_MAX, lowest = UINT64_MAX, bias = 0;
	ssize_t n;
	FILE *f;
	int fd;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		die(link);
	exe[n] = '\0';
	snprintf(link, sizeof(link), "/proc/%d/maps", (int)pid);
	f = fopen(link, "r");
	if (!f)
		die(link);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perm[8];
		int pos = 0;
		char *path;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s%n", &lo, &hi, perm, &off, &pos) < 4)
			continue;
		path = line + pos;
		path += strspn(path, " ");
		path[strcspn(path, "\n")] = '\0';
		if (strcmp(path, exe))
			continue;
		if (off == 0 && lo < base)
			base = lo;
		if (perm[2] == 'x' && nexe < 16) {
			exe_lo[nexe] = lo;
			exe_hi[nexe++] = hi;
		}
	}
	fclose(f);
	if (!nexe || base == UINT64_MAX) {
		fprintf(stderr, "sstep: %s: not found in %s\n", exe, link);
		exit(125);
	}
	/* The bias of an ET_DYN file: where its first PT_LOAD went. */
	elf_version(EV_CURRENT);
	fd = open(exe, O_RDONLY);
	if (fd < 0)
		die(exe);
	{
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		GElf_Ehdr eh;
		size_t i, nph = 0;
		int interp = 0;

		if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph)) {
			fprintf(stderr, "sstep: %s: %s\n", exe, elf_errmsg(-1));
			exit(125);
		}
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph))
				continue;
			if (ph.p_type == PT_INTERP)
				interp = 1;
			if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
				lowest = ph.p_vaddr & ~(uint64_t)(ph.p_align > 1 ? ph.p_align - 1 : 0);
		}
		if (eh.e_type == ET_DYN && lowest != UINT64_MAX)
			bias = base - lowest;
		entry = eh.e_entry + bias;
		/* (without an interpreter the entry is the first instruction) */
		entry_ok = interp && nothing_before_entry(e);
		elf_end(e);
	}
	close(fd);
	load_symbols(exe, bias);
}

static uint64_t get_rip(pid_t tid);

/* Runs pid from its exec stop to PROG's entry, where a breakpoint stops
 * it: the loader's start-up (tens of thousands of instructions, none of
 * PROG's) then takes a few system calls, not one stop an instruction.
 * Signals on the way are delivered.  Returns -1 when pid stopped at the
 * entry (or nothing was run), else pid's wait status: it ended first. */
static int run_to_entry(pid_t pid)
{
	long word;
	int status, sig = 0;

	if (!entry_ok || !entry)
		return -1;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno || ptrace(PTRACE_POKETEXT, pid, (void *)entry,
			    (void *)((word & ~0xffL) | 0xcc)) < 0)
		return -1;	/* (stepped from the start instead) */
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0)
			die("PTRACE_CONT");
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (!WIFSTOPPED(status))
			return status;
		sig = 0;
		if (status >> 16)
			continue;	/* (an event stop) */
		if (WSTOPSIG(status) == SIGTRAP && get_rip(pid) == entry + 1)
			break;
		sig = WSTOPSIG(status);
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) < 0 ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)offsetof(struct user, regs.rip),
		   (void *)entry) < 0)
		die("PTRACE_POKETEXT");
	return -1;
}

static int in_exe(uint64_t ip)
{
	size_t i;

	for (i = 0; i < nexe; i++)
		if (ip >= exe_lo[i] && ip < exe_hi[i])
			return 1;
	return 0;
}

static struct func *func_at(uint64_t ip)
{
	size_t lo = 0, hi = nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < funcs[mid].start)
			hi = mid;
		else if (ip >= funcs[mid].end)
			lo = mid + 1;
		else
			return &funcs[mid];
	}
	return NULL;
}

/* True if the instruction at ip is a rep/repne string instruction:
 * legacy prefixes and a REX prefix, one of them F3 or F2, then
 * movs/cmps/stos/lods/scas (A4-A7, AA-AF). */
static int is_rep_string(pid_t tid, uint64_t ip)
{
	union { long w[2]; uint8_t b[16]; } u;
	int i, rep = 0;

	errno = 0;
	u.w[0] = ptrace(PTRACE_PEEKTEXT, tid, (void *)ip, NULL);
	u.w[1] = ptrace(PTRACE_PEEKTEXT, tid, (void *)(ip + 8), NULL);
	if (errno)
		return 0;
	for (i = 0; i < 15; i++) {
		uint8_t c = u.b[i];

		if (c == 0xf3 || c == 0xf2)
			rep = 1;
		else if (!(c == 0x66 || c == 0x67 || c == 0x2e || c == 0x3e ||
			   c == 0x26 || c == 0x36 || c == 0x64 || c == 0x65 ||
			   c == 0xf0 || (c & 0xf0) == 0x40))
			break;
	}
	if (i == 15 || !rep)
		return 0;
	return (u.b[i] >= 0xa4 && u.b[i] <= 0xa7) || (u.b[i] >= 0xaa && u.b[i] <= 0xaf);
}

static struct thread *thread_get(pid_t tid)
{
	size_t i;

	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	if (nthreads == capthreads) {
		capthreads = capthreads ? 2 * capthreads : 16;
		threads = realloc(threads, capthreads * sizeof(*threads));
		if (!threads)
			die("realloc");
	}
	memset(&threads[nthreads], 0, sizeof(threads[nthreads]));
	threads[nthreads].tid = tid;
	threads[nthreads].live = 1;
	return &threads[nthreads++];
}

static uint64_t get_rip(pid_t tid)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, (void *)offsetof(struct user, regs.rip), NULL);
	return errno ? 0 : (uint64_t)v;
}

/* The instruction at t->pend completed and RIP is now ip. */
static void completed(struct thread *t, uint64_t ip)
{
	uint64_t p = t->pend;
	int cont = t->in_rep && t->in_rep == p;

	t->in_rep = 0;
	if (!p || !in_exe(p))
		return;
	if (ip == p && is_rep_string(t->tid, p))
		t->in_rep = p;	/* more iterations to come: same execution */
	if (cont)
		return;
	total++;
	{
		struct func *f = func_at(p);

		if (f)
			f->count++;
	}
}

static void print_counts(FILE *out)
{
	size_t i;

	qsort(funcs, nfuncs, sizeof(*funcs), by_name);
	for (i = 0; i < nfuncs; i++) {
		uint64_t n = funcs[i].count;

		/* Same-named functions (statics of different files) add up. */
		while (i + 1 < nfuncs && !strcmp(funcs[i + 1].name, funcs[i].name))
			n += funcs[++i].count;
		if (n)
			fprintf(out, "%s %" PRIu64 "\n", funcs[i].name, n);
	}
	fprintf(out, "total %" PRIu64 "\n", total);
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	int status, ret = 0, argi = 1, done = 0, ended = 0;
	pid_t pid, w;
	FILE *out;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out_path = argv[2];
		argi = 3;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: sstep [-o OUT] PROG ARGS...\n");
		return 125;
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			fprintf(stderr, "sstep: PTRACE_TRACEME: %s\n", strerror(errno));
			_exit(125);
		}
		/* (a path: execv, which fails on a binary the kernel cannot
		 * run, where execvp would run it as a shell script and this
		 * would single-step the shell) */
		if (strchr(argv[argi], '/'))
			execv(argv[argi], argv + argi);
		else
			execvp(argv[argi], argv + argi);
		fprintf(stderr, "sstep: %s: %s\n", argv[argi], strerror(errno));
		_exit(127);
	}
	/* The exec stops the child with SIGTRAP before its first instruction. */
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFSTOPPED(status)) {
		/* exec failed: the child said why */
		return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
	}
	load_exe(pid);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL)) < 0)
		die("PTRACE_SETOPTIONS");
	{
		struct thread *t = thread_get(pid);
		int st = run_to_entry(pid);

		if (st != -1) {	/* (it ended in the loader) */
			ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			ended = 1;
		} else {
			t->pend = get_rip(pid);
			if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0)
				die("PTRACE_SINGLESTEP");
		}
	}
	while (!ended && (w = waitpid(-1, &status, __WALL)) > 0) {
		struct thread *t = thread_get(w);
		int sig = 0, event;
		uint64_t ip;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (w == pid)
				ret = WIFEXITED(status) ? WEXITSTATUS(status) :
				      128 + WTERMSIG(status);
			t->live = 0;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (done) {
			/* after the second exec: let everything go */
			ptrace(PTRACE_DETACH, w, NULL, NULL);
			continue;
		}
		event = status >> 16;
		ip = get_rip(w);
		if (event == PTRACE_EVENT_EXEC) {
			size_t i;

			fprintf(stderr, "sstep: pid %d exec'd: counting stopped there\n", (int)w);
			done = 1;
			for (i = 0; i < nthreads; i++)
				if (threads[i].live)
					ptrace(PTRACE_DETACH, threads[i].tid, NULL, NULL);
			continue;
		}
		if (event) {
			/* PTRACE_EVENT_CLONE, inside the clone system call:
			 * the syscall instruction completes at its exit, so
			 * t->pend stays. */
			if (ptrace(PTRACE_SINGLESTEP, w, NULL, NULL) < 0 && errno != ESRCH)
				die("PTRACE_SINGLESTEP");
			continue;
		}
		if (WSTOPSIG(status) == SIGTRAP) {
			siginfo_t si;

			memset(&si, 0, sizeof(si));
			ptrace(PTRACE_GETSIGINFO, w, NULL, &si);
			if (si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT) {
				/* a step completed (TRAP_BRKPT: reported at
				 * the exit of a stepped system call) */
				completed(t, ip);
			} else if (si.si_code == SIGTRAP) {
				/* ptrace_notify at a signal handler's entry:
				 * nothing executed since the signal stop */
				t->in_rep = 0;
			} else {
				/* a SIGTRAP from someone else: deliver it */
				sig = SIGTRAP;
				t->in_rep = 0;
			}
		} else if (WSTOPSIG(status) == SIGSTOP && !t->pend) {
			/* a new thread's first stop */
		} else {
			/* A signal-delivery stop: the pending instruction did
			 * not complete (it faulted, or the signal came first). */
			sig = WSTOPSIG(status);
			t->in_rep = 0;
		}
		t->pend = ip;
		if (ptrace(PTRACE_SINGLESTEP, w, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
			die("PTRACE_SINGLESTEP");
	}
	if (done && waitpid(pid, &status, 0) == pid)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	out = out_path ? fopen(out_path, "w") : stdout;
	if (!out)
		die(out_path);
	print_counts(out);
	if (out != stdout)
		fclose(out);
	return ret;
}
