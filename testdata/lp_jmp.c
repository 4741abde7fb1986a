/* lp_jmp.c - longjmp out of a nested loop, and a loop with system calls.
 * Hand count:
 * - the nest in run() calls deep(i, j), which longjmps back to main when
 *   i == 2 and j == 3: the outer loop's head runs for i = 0, 1, 2 (trip
 *   count 3, 1 entry); the inner loop is entered 3 times with trip counts
 *   5, 5 and 4 (j = 0..3 when it leaves).
 * - after the longjmp, main's loop of getppid() system calls runs 6 times:
 *   1 entry, trip count 6, entered at the top level (not inside the
 *   abandoned nest). */
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>

static volatile long sink;
static jmp_buf env;

__attribute__((noinline)) static void deep(int i, int j)
{
	sink += i + j;
	if (i == 2 && j == 3)
		longjmp(env, 1);
}

__attribute__((noinline)) static void run(void)
{
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			deep(i, j);
}

int main(void)
{
	long s = 0;

	if (!setjmp(env))
		run();
	for (int k = 0; k < 6; k++)
		s += getppid() > 0;
	printf("%ld %ld\n", s, (long)sink);
	return 0;
}
