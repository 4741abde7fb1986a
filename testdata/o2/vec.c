/* vec.c - a loop gcc vectorizes at -O2 (built from testdata/o2/, t0634):
 * 131072 floats, four to an SSE register, so the machine loop runs 32768
 * times for a source bound of 131072 (hand count: 131072 / 4), with
 * packed SIMD multiplies and adds; and a scalar loop of 1000 iterations
 * beside it, with no SIMD instruction. */
#include <stdio.h>

#define N 131072

static float a[N], b[N], c[N];
volatile float sink;

__attribute__((noinline)) static void axpy(void)
{
	int i;

	for (i = 0; i < N; i++)
		a[i] = b[i] * 2.0f + c[i];
}

__attribute__((noinline)) static unsigned long scalar(volatile unsigned long *p)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < 1000; i++)
		s += *p + (unsigned long)i;
	return s;
}

int main(void)
{
	volatile unsigned long x = 3;
	int i;

	for (i = 0; i < N; i++) {
		b[i] = (float)i;
		c[i] = 1.0f;
	}
	axpy();
	sink = a[N - 1];
	printf("%lu %.1f\n", scalar(&x), (double)sink);
	return 0;
}
