/* lp_probe.c - a loop that calls nothing, then calls of a loop: what the
 * probe of the learning pass in halves reads (analysis/loops_halves.h).
 *   lp_probe [SPIN [CALLS]]
 * spin(SPIN) (default 500000) runs one loop, no call in it: a cut inside
 * it has every block of it at the spine (the frame live at the cut).
 * Then main calls deep() CALLS times (default 0), each running a loop of
 * 64 iterations: past a cut among those calls, main's loop is the spine
 * (two blocks an iteration: its call, and the block its return lands in)
 * and deep's 64-iteration loop an excursion above it.
 * Hand count (built -O1; each loop a guard, then its body with the back
 * branch at the bottom):
 * - spin's loop: 1 entry of SPIN iterations;
 * - deep's loop: CALLS entries of 64 iterations each;
 * - main's loop of calls: 1 entry of CALLS iterations (none if CALLS is
 *   0: its guard skips it). */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) static void deep(void)
{
	for (long j = 0; j < 64; j++)
		sink ^= j;
}

int main(int argc, char **argv)
{
	long s = argc > 1 ? atol(argv[1]) : 500000;
	long c = argc > 2 ? atol(argv[2]) : 0;

	spin(s);
	for (long k = 0; k < c; k++)
		deep();
	return 0;
}
