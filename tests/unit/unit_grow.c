/* unit_grow.c - the array growth helpers of common/ls_buf.h.
 * Capacities by hand: doubling from `first` until the need fits. */
#include <stdint.h>
#include <stdlib.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "tap.h"

int main(void)
{
	uint64_t *a = NULL, *keep;
	uint32_t *b = NULL, cap32 = 0;
	size_t cap = 0;

	TAP_EQ(LS_GROW(a, 1, cap, 8), 0, "room for 1: allocated");
	TAP_EQ(cap, 8, "... from first, 8");
	TAP_EQ(LS_GROW(a, 8, cap, 8), 0, "room for 8: nothing to do");
	TAP_EQ(cap, 8, "... still 8");
	TAP_EQ(LS_GROW(a, 9, cap, 8), 0, "room for 9");
	TAP_EQ(cap, 16, "... doubled to 16");
	TAP_EQ(LS_GROW(a, 100, cap, 8), 0, "room for 100");
	TAP_EQ(cap, 128, "... doubled three times, 128");
	a[99] = 7;
	keep = a;
	TAP_EQ(LS_GROW(a, SIZE_MAX / 4, cap, 8), -LS_ENOMEM,
	       "SIZE_MAX / 4 elements of 8 bytes overflow: -LS_ENOMEM");
	TAP_OK(a == keep && cap == 128 && a[99] == 7, "... the array and capacity untouched");
	free(a);

	TAP_EQ(LS_GROW32(b, 3, cap32, 0), 0, "32-bit capacity, first 0: room for 3");
	TAP_EQ(cap32, 4, "... 1, 2, 4");
	TAP_EQ(LS_GROW32(b, 5, cap32, 0), 0, "room for 5");
	TAP_EQ(cap32, 8, "... doubled to 8");
	free(b);
	TAP_OK(ls_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL,
	       "ls_reallocarray: an overflowing product is refused");
	return TAP_DONE();
}
