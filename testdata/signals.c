/* signals.c - a loop that raises SIGUSR1 8 times; the handler runs a loop
 * of 10 iterations each time (80 handler iterations in all). */
#include <signal.h>
#include <stdio.h>

static volatile long hits;

static void handler(int sig)
{
	(void)sig;
	for (int i = 0; i < 10; i++)
		hits++;
}

int main(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (int i = 0; i < 8; i++)
		raise(SIGUSR1);
	printf("%ld\n", (long)hits);
	return 0;
}
