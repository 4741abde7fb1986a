/* vg_segv.c - ten SIGSEGVs from a load through a null pointer in the
 * middle of a block, each left by siglongjmp: the trace is disabled at
 * the faulting instruction (FUP + TIP.PGD), which does not count as
 * executed.  Prints "10"; exit status 0.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf env;
static volatile int *volatile nowhere;
static volatile int faults;

static void on_segv(int s)
{
	faults++;
	siglongjmp(env, 1);
}

int main(void)
{
	struct sigaction sa;
	volatile int n = 0;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (i = 0; i < 10; i++)
		if (!sigsetjmp(env, 1)) {
			n += i;
			n += *nowhere;
			n++;
		}
	printf("%d\n", faults);
	return 0;
}
