/* cfgif.c - one loop with a known if pattern, for edge counts.
 * Hand count: pick(30) runs its loop body for i = 0 .. 29; i % 3 == 0
 * holds for i = 0, 3, ..., 27: 10 times, the else arm runs 20 times.
 * The loop (a do-while, so its test is at the bottom) goes back 29 times
 * and leaves once; pick is called once. */
static volatile int a, b;

static void pick(int n)
{
	int i = 0;

	do {
		if (i % 3 == 0)
			a = i;
		else
			b = i;
	} while (++i < n);
}

int main(void)
{
	pick(30);
	return 0;
}
