/* syscall.c - a loop with a system call in its body: 25 iterations, each
 * writes one byte to /dev/null. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/dev/null", O_WRONLY);
	int n = 0;

	if (fd < 0)
		return 1;
	for (int i = 0; i < 25; i++)
		n += (int)write(fd, "x", 1);
	close(fd);
	printf("%d\n", n);
	return 0;
}
