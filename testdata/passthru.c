/* passthru.c - copies stdin to stdout upper-cased, writes "to stderr\n" to
 * stderr, and exits with the status given as argv[1] (default 0), so tests
 * can check that recording leaves all three streams and the status alone. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int c;

	while ((c = getchar()) != EOF)
		putchar(toupper(c));
	fputs("to stderr\n", stderr);
	return argc > 1 ? atoi(argv[1]) : 0;
}
