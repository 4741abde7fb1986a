/* vg_threads.c - four threads with different loop counts for the
 * Valgrind tool's tests (t0050); each thread's trace must decode on its
 * own.  Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>

static long results[4];

static void *work(void *arg)
{
	long k = (long)arg, s = 0, i;

	for (i = 0; i < 20000 * (k + 1); i++)
		s += (i % (k + 2)) ? i : -i;
	results[k] = s;
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	long i, s = 0;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		s += results[i];
	}
	printf("%ld\n", s);
	return 0;
}
