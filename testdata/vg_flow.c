/* vg_flow.c - control flow for the Valgrind tool's tests (t0050):
 * counted loops, recursion deeper than the 64-entry return stack,
 * indirect calls through a table, a switch jump table, setjmp/longjmp,
 * explicit rep string instructions and a syscall in a loop.
 * Prints a checksum; exit status 0.
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static jmp_buf env;
static volatile int sink;

static int rec(int n)
{
	return n ? rec(n - 1) + 1 : 0;
}

static int add1(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }
static int neg(int x) { return -x; }
static int (*const ops[3])(int) = { add1, dbl, neg };

static int sw(int k)
{
	switch (k) {
	case 0: return 11;
	case 1: return 22;
	case 2: return 33;
	case 3: return 44;
	case 4: return 55;
	case 5: return 66;
	case 6: return 77;
	default: return 0;
	}
}

static void jump(int n)
{
	if (n == 0)
		longjmp(env, 7);
	jump(n - 1);
	sink++;
}

static void reps(char *d, const char *s, size_t n)
{
	size_t c = n;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
	c = n;
	d -= n;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0x5a) : "memory");
	c = 0;	/* a rep with a zero count executes once for libipt */
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
	c = 50;	/* a LOOP onto itself: 50 TNT bits, 50 instructions */
	__asm__ volatile("1: loop 1b" : "+c"(c));
	/* a count VEX knows: its exit is folded away, the bit must stay */
	__asm__ volatile("mov $1, %%ecx\n1: loop 1b" : : : "rcx");
	c = 100;	/* repe cmpsb stops at the first difference */
	d[40] = 1;
	__asm__ volatile("repe cmpsb" : "+D"(d), "+S"(s), "+c"(c) : :
			 "memory", "cc");
}

int main(void)
{
	static char a[100000], b[100000];
	long sum = 0;
	int i, r;

	for (i = 0; i < 1000; i++)
		sum += i & 3 ? i : 1;
	sum += rec(100) + rec(10);
	for (i = 0; i < 300; i++)
		sum += ops[i % 3](i);
	for (i = 0; i < 100; i++)
		sum += sw(i % 9);
	r = setjmp(env);
	if (!r)
		jump(20);
	sum += r;
	memset(a, 1, sizeof(a));
	memcpy(b, a, sizeof(a));
	for (i = 0; i < 5; i++)
		reps(b, a, 1000 + (size_t)i);
	for (i = 0; i < 50; i++)
		sum += getppid() > 0;
	printf("%ld %d\n", sum, b[10]);
	return 0;
}
