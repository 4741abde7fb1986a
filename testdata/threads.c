/* threads.c - 4 threads run the same loop of 1000 iterations each. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4

static long results[NTHREADS];

static void *run(void *arg)
{
	long id = (long)arg, s = 0;

	for (int i = 0; i < 1000; i++)
		s += i ^ id;
	results[id] = s;
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long total = 0;

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i))
			return 1;
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		total += results[i];
	}
	printf("%ld\n", total);
	return 0;
}
