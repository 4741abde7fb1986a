/* vg_exitkill.c - main calls exit(5) while a second thread still spins
 * in a conditional loop, so the tool ends that thread's trace while it
 * is enabled (FUP + TIP.PGD at its last IP).  Exit status 5, no output.
 * (An unconditional `for (;;)` loop would write no packets at all, and
 * PT could not tell how often it ran: the loop tests a flag.)
 */
#include <pthread.h>
#include <stdlib.h>

static volatile long s;
static volatile int stop;

static void *spin(void *a)
{
	while (!stop)
		s++;
	return a;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spin, NULL);
	while (s < 1000000)
		;
	exit(5);
}
