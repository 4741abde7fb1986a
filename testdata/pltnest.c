/* pltnest.c - calls of a shared library (libplk.so, testdata/lib/plk.c)
 * that call it again, all through the PLT (bound at load, -z now):
 * nested local frames of the eager pass (lsa_eager_run()), one chain
 * deeper than it nests them, and recursion, which it leaves to frames.
 * Hand count: main's loop runs 50 iterations (i = 0 .. 49), each calling
 * plk_add3 once (it calls plk_add twice), plk_d4 once (plk_d3, plk_d2 and
 * plk_d1 once each; plk_d1 calls plk_add once) and plk_rec(3, i) once
 * (it calls itself with d = 2, 1, 0: 4 calls).  So plk_add3, plk_d4 ..
 * plk_d1 are called 50 times each, plk_add 150 times, plk_rec 200 times,
 * each through its stub (plk_*@plt as many calls) but for plk_rec's calls
 * of itself (direct: plk_rec@plt 50 calls).  plk_add3(i, 1, 2) =
 * i + 3, plk_d4(i) = i + 4, plk_rec(3, i) = i + 3: prints
 * sum(3 i + 10, i < 50) = 3675 + 500 = 4175. */
#include <stdio.h>

int plk_add3(int a, int b, int c);
int plk_d4(int a);
int plk_rec(int d, int a);

static volatile int one = 1;

int main(void)
{
	long n = 0;

	for (int i = 0; i < 50; i++)
		n += plk_add3(i, one, 2) + plk_d4(i) + plk_rec(3, i);
	printf("%ld\n", n);
	return 0;
}
