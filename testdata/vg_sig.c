/* vg_sig.c - signals for the Valgrind tool's tests (t0050): a handler
 * run 20 times by raise(), one by an interval timer while spinning, and
 * one that leaves the handler by siglongjmp.  Exit status 0.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile int hits, ticks;
static sigjmp_buf env;

static void on_usr1(int s)
{
	int i;

	for (i = 0; i < 10; i++)
		hits++;
}

static void on_alarm(int s)
{
	ticks++;
}

static void on_usr2(int s)
{
	siglongjmp(env, 1);
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it;
	volatile long spin = 0;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	for (i = 0; i < 20; i++)
		raise(SIGUSR1);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 1000;
	setitimer(ITIMER_REAL, &it, NULL);
	while (!ticks && spin < 2000000000)
		spin++;
	if (!sigsetjmp(env, 1))
		raise(SIGUSR2);
	printf("%d %d\n", hits, ticks);
	return 0;
}
