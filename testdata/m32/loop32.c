/* loop32.c - 32-bit code (gcc -m32, static, no libc) for the 32-bit
 * trace tests (t0540): tests/tools/pt32rec single-steps it and writes the
 * Intel PT stream hardware would, MODE.Exec saying CS.D=1.
 *
 * No libc, so that every executed instruction is in this file's code and
 * the trace ends at the exit system call (int $0x80: tracing stops there).
 * Behaviour, by hand:
 * - main loop: 13 iterations (i = 0..12), each a direct call of add() and
 *   an indirect call through ops[i & 1] (twice() 7 times, thrice() 6);
 * - inner loop in add(): b iterations, so 0 + 1 + ... + 12 = 78 in all;
 * - exit status: 84 (see the comment at the end of _start).
 * Per-function instruction counts are not hand-derived: the tests take
 * them from a native single-step count (tests/tools/sstep.c).
 */
static volatile int sink;

__attribute__((noinline)) static int add(int a, int b)
{
	/* "inc" is one byte (0x40 + register) in 32-bit code, a REX prefix
	 * in 64-bit code: read as 64-bit code, the loop's blocks go wrong. */
	for (int k = 0; k < b;) {	/* b iterations */
		sink = k;
		__asm__("inc %0" : "+r"(k));
	}
	return a + b;
}

__attribute__((noinline)) static int twice(int a)
{
	/* pusha/popa do not exist in 64-bit code */
	__asm__ volatile("pusha\n\tpopa");
	return a * 2;
}

__attribute__((noinline)) static int thrice(int a)
{
	return a * 3;
}

static int (*volatile ops[2])(int) = { twice, thrice };

__attribute__((noreturn, noinline)) static void sys_exit(int status)
{
	__asm__ volatile("int $0x80" : : "a"(1), "b"(status) : "memory");
	__builtin_unreachable();
}

void _start(void);

void _start(void)
{
	int s = 0;

	for (int i = 0; i < 13; i++) {	/* 13 iterations */
		s = add(s, i);
		s += ops[i & 1](i) & 1;
	}
	/* s = 78 + (number of odd i*2 or i*3 results): i*2 is never odd;
	 * i*3 is odd for odd i (i = 1,3,...,11: thrice is called on odd i),
	 * 6 of them: 84. */
	sys_exit(s);
}
