/* branches.c - conditional branches for the gcov cross-check, built with
 * --coverage: every condition sits alone on its line, and loops test at
 * the bottom (do-while), so gcov's arcs and the machine's branches count
 * the same events. */
static volatile int sink;

static void classify(int v)
{
	if (v % 3 == 0)
		sink = 1;
	if (v % 5 == 0)
		sink = 2;
	if (v > 70)
		sink = 3;
}

int main(void)
{
	int i = 0;

	do {
		classify(i);
	} while (++i < 100);
	return 0;
}
