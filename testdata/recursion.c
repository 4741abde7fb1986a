/* recursion.c - direct and mutual recursion, no loops in the recursive
 * functions.  fib(15) makes 1973 calls of fib; is_even(100) makes 51 calls
 * of is_even and 50 of is_odd. */
#include <stdio.h>

static int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

static int is_odd(int n);

static int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

static int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

int main(void)
{
	printf("%d %d\n", fib(15), is_even(100));
	return 0;
}
