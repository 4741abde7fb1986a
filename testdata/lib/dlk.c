/* dlk.c - the library dlopen.c loads: one loop of n iterations. */
long dlk_sum(int n);

long dlk_sum(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += (long)i * i;
	return s;
}
