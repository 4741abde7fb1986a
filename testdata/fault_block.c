/* fault_block.c - fault_block PIDFILE FIFO: writes its pid to PIDFILE,
 * then blocks opening FIFO for reading until someone opens it for
 * writing, reads a line and exits 0.  Signals keep their default action,
 * so a test can interrupt a recording at a known point without timing:
 * it waits for PIDFILE, then signals, kills or releases. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64];
	FILE *f;
	int fd;

	if (argc != 3)
		return 2;
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f))
		return 2;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return 3;
	if (read(fd, buf, sizeof(buf)) < 0)
		return 4;
	close(fd);
	return 0;
}
