/* fault_segv.c - writes one line to stderr, then stores through a null
 * pointer with no handler: dies by SIGSEGV (a shell reports 139).  Under
 * Valgrind the death comes with Valgrind's "Process terminating with
 * default action of signal 11" lines, which `record` keeps off the
 * program's stderr: what stays there is the line below, nothing else. */
#include <stdio.h>

static volatile int *volatile nowhere;

int main(void)
{
	fputs("fault_segv: storing through a null pointer\n", stderr);
	*nowhere = 1;
	return 0;
}
