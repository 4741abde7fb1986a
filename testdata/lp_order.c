/* lp_order.c - a loop's profile does not depend on the order in which
 * its entries come: the same two calls, one order or the other.  With an
 * argument, work(1) runs first, so the detector meets work's outer loop
 * making one trip before any entry goes back to its head; without, work(3)
 * first.  Hand count (built -O1: each loop a guard, then its body with the
 * back branch at the bottom, so an entry of n >= 1 iterations runs the
 * head n times; the inner loop's bound is a constant, no guard):
 * - work's outer loop: 2 entries (trip counts 1 and 3), 4 iterations;
 * - its inner loop: 4 entries of 50 iterations, 200 iterations, every one
 *   inside an outer iteration (the loop call graph: outer -> inner, 4);
 * - outer total = outer self + inner total; the inner loop's self is its
 *   total;
 * - both orders: the same rows. */
static volatile long sink;

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < 50; j++)
			sink += i ^ j;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		work(1);
		work(3);
	} else {
		work(3);
		work(1);
	}
	return 0;
}
