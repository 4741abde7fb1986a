/* inl.c - functions inlined into a loop, for the inlined-function chains
 * of the symbolizer.  always_inline inlines even under the -fno-inline of
 * testdata.mk, so sq() is inlined into twice() and twice() into main():
 * an address of sq's code in main has the chain sq, twice (innermost
 * first) under the function main.  Hand count: the loop runs 10 times. */
static volatile long sink;

static inline __attribute__((always_inline)) long sq(long x)
{
	return x * x + sink;
}

static inline __attribute__((always_inline)) long twice(long x)
{
	return sq(x) + sq(x + 1);
}

int main(void)
{
	long s = 0;

	for (long i = 0; i < 10; i++)
		s += twice(i);
	sink = s;
	return 0;
}
