/* lp_tknow.c - what one thread's loops teach the loop detector stays that
 * thread's.  Hand count (built -O1: count()'s loop is a guard, then the
 * body with its back branch at the bottom, so count(1) runs the loop's
 * head once and never goes back):
 * - thread A (created and joined first, so its stream comes first):
 *   count(200): count's loop, 1 entry of 200 iterations;
 * - thread B: thrice count(1): count's head runs once per call and never
 *   iterates in B, so B has no row for count's loop (a detector that let
 *   A's loops decide B's would give B 3 entries of trip count 1, but only
 *   when A's stream went first); B's own loop around the calls: 1 entry
 *   of 3 iterations.
 * main has no loop. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long count(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i ^ sink;
	return s;
}

static void *a_main(void *arg)
{
	sink += count(200) + (long)arg;
	return NULL;
}

static void *b_main(void *arg)
{
	for (int k = 0; k < 3; k++)
		sink += count(1) + (long)arg;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, a_main, NULL) || pthread_join(a, NULL) ||
	    pthread_create(&b, NULL, b_main, NULL) || pthread_join(b, NULL))
		return 1;
	printf("%ld\n", (long)sink);
	return 0;
}
