/* forkexec.c - forks once (the child loops 100 times, prints "child" and
 * exits with 3), waits, prints "parent 3", then execs
 * /bin/echo after-exec.  Expected stdout: "child", "parent 3",
 * "after-exec"; one fork, one exec. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

int main(void)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (int i = 0; i < 100; i++)
			sink += i;
		printf("child\n");
		fflush(stdout);
		_exit(3);
	}
	waitpid(pid, &status, 0);
	printf("parent %d\n", WEXITSTATUS(status));
	fflush(stdout);
	execl("/bin/echo", "echo", "after-exec", (char *)NULL);
	return 1;
}
