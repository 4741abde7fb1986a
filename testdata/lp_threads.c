/* lp_threads.c - 4 threads run the same loop.
 * Hand count: work() runs its loop 1000 times per call; each of the 4
 * threads calls it once: per thread 1 entry, 1000 iterations; merged
 * over threads 4 entries, 4000 iterations.  main's loops that create and
 * join the threads run 4 times each. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void *work(void *arg)
{
	long s = 0;

	for (int i = 0; i < 1000; i++)
		s += i ^ sink;
	sink += s + (long)arg;
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", (long)sink);
	return 0;
}
