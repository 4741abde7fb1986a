/* irred.c - an irreducible loop: the cycle A -> B -> A is entered once
 * at A and once at B, so neither block dominates the other. */
static volatile int n;

static void cycle(int at_b)
{
	if (at_b)
		goto B;
A:
	n = n + 1;
	if (n > 100)
		return;
B:
	n = n + 2;
	if (n < 100)
		goto A;
}

int main(int argc, char **argv)
{
	(void)argv;
	cycle(argc > 5);
	n = 0;
	cycle(argc < 5);
	return 0;
}
