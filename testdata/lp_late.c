/* lp_late.c - a loop the detector learns only at the end of a long run:
 *   lp_late [BUSY [EARLY [AFTER]]]
 * work(1) first, unless EARLY is 0 (its outer loop makes one trip: a
 * loop with no back branch taken yet), then busy(BUSY) (default
 * 200000: one loop, learned at its second iteration; recorded in small
 * chunks, many of them), then work(3), whose outer loop goes back to its
 * head: only there is that head learned, naming a block work(1) ran long
 * before; then busy(AFTER) again where AFTER is given (default 0: not),
 * so that what work(3) teaches comes before the stream's end.  (t0663:
 * a second pass begun beside the learning pass, with what it knew in
 * busy, must not keep what it did where it ran work(1).)
 * Hand count (built -O1; each loop a guard, then its body with the back
 * branch at the bottom):
 * - work's outer loop: entries 1 (trip count 3), or 2 with EARLY (trip
 *   counts 1 and 3), iterations 3 or 4;
 * - its inner loop: 50 iterations an entry, entries 3 or 4 (150 or 200
 *   iterations), each inside an outer iteration;
 * - busy's loop: 1 entry of BUSY iterations, or 2 (BUSY + AFTER) with
 *   AFTER. */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < 50; j++)
			sink += i ^ j;
}

__attribute__((noinline)) static void busy(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	long m = argc > 1 ? atol(argv[1]) : 200000;
	int early = argc > 2 ? atoi(argv[2]) : 1;
	long after = argc > 3 ? atol(argv[3]) : 0;

	if (early)
		work(1);
	busy(m);
	work(3);
	if (after)
		busy(after);
	return 0;
}
