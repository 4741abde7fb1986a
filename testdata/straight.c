/* straight.c - a hand-countable function for the native oracle (t0200).
 * straight() is one straight-line run around a loop of 4 instructions
 * that runs 100 times; main calls it 3 times.  The loop is inline
 * assembly so its shape does not depend on the compiler: every
 * instruction of straight() outside the loop runs once per call, so
 * straight() executes 3 * (outside + 100 * 4) instructions, with
 * "outside" counted from `objdump -d` by the test. */
#include <stdio.h>

static volatile unsigned sink;

static void straight(void)
{
	unsigned a = 0;

	__asm__ volatile("mov $100, %%ecx\n"
			 "1:\n\t"
			 "add %%ecx, %0\n\t"
			 "xor $0x55, %0\n\t"
			 "dec %%ecx\n\t"
			 "jnz 1b\n"
			 : "+r"(a) : : "ecx", "cc");
	sink += a;
}

int main(void)
{
	straight();
	straight();
	straight();
	printf("%u\n", sink);
	return 0;
}
