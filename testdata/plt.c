/* plt.c - a libc function called through the PLT, resolved by an IFUNC:
 * strspn@plt jumps to the implementation ld.so chose for this CPU
 * (__strspn_sse42 and the like), a function the call reaches by a jump.
 * Hand count: 13 calls of strspn (one per iteration: its argument
 * changes, so gcc cannot hoist it), each through strspn@plt, so the
 * implementation is called 13 times; nothing else here calls strspn.
 * t0632 checks the calls and that no function's inclusive total exceeds
 * the thread's instructions. */
#include <stdio.h>
#include <string.h>

static volatile char text[] = "abbabc cba";
static char accept[] = "ab";

int main(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < 13; i++)
		n += strspn((const char *)text + i % 3, accept);
	printf("%lu\n", n);
	return 0;
}
