/* plk.c - the library pltleaf.c calls through the PLT: plk_add runs no
 * loop and calls nothing, plk_sum runs one loop of n iterations. */
int plk_add(int a, int b);
long plk_sum(int n);

int plk_add(int a, int b)
{
	return a + b;
}

long plk_sum(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += (long)i * 3;
	return s;
}
