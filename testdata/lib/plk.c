/* plk.c - the library pltleaf.c and pltnest.c call through the PLT:
 * plk_add runs no loop and calls nothing, plk_sum runs one loop of n
 * iterations; plk_add3 calls plk_add twice, plk_d4 .. plk_d1 call each
 * other down to plk_add (five calls deep), plk_rec calls itself d times.
 * Their calls of each other go through the PLT too (exported functions
 * of a -fPIC library may be interposed: not inlined, not direct), but
 * for plk_rec's of itself (GCC makes that one direct). */
int plk_add(int a, int b);
long plk_sum(int n);
int plk_add3(int a, int b, int c);
int plk_d4(int a);
int plk_d3(int a);
int plk_d2(int a);
int plk_d1(int a);
int plk_rec(int d, int a);

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

int plk_add3(int a, int b, int c)
{
	return plk_add(plk_add(a, b), c);
}

int plk_d4(int a)
{
	return plk_d3(a) + 1;
}

int plk_d3(int a)
{
	return plk_d2(a) + 1;
}

int plk_d2(int a)
{
	return plk_d1(a) + 1;
}

int plk_d1(int a)
{
	return plk_add(a, 1);
}

int plk_rec(int d, int a)
{
	return d ? plk_rec(d - 1, a) + 1 : a;
}
