/* unit_grow.c - the array growth helpers of common/ls_buf.h.
 * Capacities by hand: doubling from `first` until the need fits.
 * ls_zgrow() and ls_zalloc(): the kept elements and the zeros checked
 * element by element.  ls_prefault_ahead(): the stretches by hand (an
 * eighth of what is used, at least LS_PREFAULT_STEP, at most the size),
 * and which pages it mapped in asked of the kernel (mincore()), where
 * the kernel can populate (MADV_POPULATE_WRITE, Linux 5.14). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "tap.h"

static void zgrow_checks(void)
{
	uint32_t *z = ls_zalloc(5, sizeof(*z)), *keep;
	size_t i, bad = 0;

	TAP_OK(z != NULL, "ls_zalloc: 5 elements");
	for (i = 0; z && i < 5; i++)
		bad += z[i] != 0;
	TAP_EQ(bad, 0, "... all zero");
	for (i = 0; z && i < 5; i++)
		z[i] = (uint32_t)i + 100;
	z = ls_zgrow(z, 5, 100000, sizeof(*z));
	TAP_OK(z != NULL, "ls_zgrow: 5 to 100,000 elements");
	for (i = 0, bad = 0; z && i < 100000; i++)
		bad += z[i] != (i < 5 ? i + 100 : 0);
	TAP_EQ(bad, 0, "... the 5 kept, the rest zero");
	keep = z;
	TAP_OK(ls_zgrow(z, 100000, SIZE_MAX / 2, sizeof(*z)) == NULL,
	       "ls_zgrow: an overflowing product is refused");
	TAP_OK(z == keep && z[4] == 104, "... the array untouched");
	z = ls_zgrow(z, 100000, 3, sizeof(*z));
	TAP_OK(z && z[0] == 100 && z[2] == 102, "ls_zgrow to fewer: the first kept");
	free(z);
}

static void prefault_checks(void)
{
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE), size = (size_t)1 << 20;
	size_t done = 0, i, want, in = 0, out = 0;
	unsigned char vec[((size_t)1 << 20) / 4096 + 1];
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int can;

	TAP_OK(p != MAP_FAILED && pg == 4096, "a fresh mapping of 1 MiB, 4 KiB pages");
	if (p == MAP_FAILED || pg != 4096)
		return;
	ls_prefault_ahead(p, 100, &done, size);
	TAP_EQ(done, 100 + LS_PREFAULT_STEP, "100 bytes used: a step ahead");
	ls_prefault_ahead(p, 100 + LS_PREFAULT_STEP, &done, size);
	TAP_EQ(done, 100 + LS_PREFAULT_STEP, "... up to it: nothing more");
	ls_prefault_ahead(p, 600000, &done, size);
	TAP_EQ(done, 600000 + 600000 / 8, "600,000 used: an eighth ahead");
	ls_prefault_ahead(p, size - 10, &done, size);
	TAP_EQ(done, size, "... at most the size");
	/* (where the kernel cannot populate, the pages come as written) */
	can = !madvise(p, pg, MADV_POPULATE_WRITE);
	munmap(p, size);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!can || p == MAP_FAILED) {
		for (i = 0; i < 2; i++)
			printf("ok %d # skip the kernel cannot populate\n", ++tap_n);
		if (p != MAP_FAILED)
			munmap(p, size);
		return;
	}
	done = 0;
	ls_prefault_ahead(p, 600000, &done, size);
	/* [0, 675000): pages 0 to 164 (675000 / 4096 is 164.8) */
	want = (600000 + 600000 / 8 + pg - 1) / pg;
	if (mincore(p, size, vec) == 0)
		for (i = 0; i < size / pg; i++) {
			in += i < want && (vec[i] & 1);
			out += i >= want && (vec[i] & 1);
		}
	TAP_EQ(in, want, "mincore: the 165 pages of the stretch mapped in");
	TAP_EQ(out, 0, "... and none past it");
	munmap(p, size);
}

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

	/* past LS_PREFAULT_STEP bytes a new block, copied: the elements kept */
	a = NULL;
	cap = 0;
	TAP_EQ(LS_GROW(a, 1000, cap, 8), 0, "room for 1,000");
	for (size_t i = 0; a && i < 1000; i++)
		a[i] = i * 3;
	TAP_EQ(LS_GROW(a, 100000, cap, 8), 0, "room for 100,000 (800 KB)");
	TAP_EQ(cap, 131072, "... 1,024 doubled seven times");
	{
		size_t i, bad = 0;

		for (i = 0; a && i < 1000; i++)
			bad += a[i] != i * 3;
		for (i = 1000; a && i < 100000; i++)
			a[i] = 1;	/* (all of the room is the array's) */
		TAP_EQ(bad, 0, "... the 1,000 kept");
	}
	free(a);

	TAP_EQ(LS_GROW32(b, 3, cap32, 0), 0, "32-bit capacity, first 0: room for 3");
	TAP_EQ(cap32, 4, "... 1, 2, 4");
	TAP_EQ(LS_GROW32(b, 5, cap32, 0), 0, "room for 5");
	TAP_EQ(cap32, 8, "... doubled to 8");
	free(b);
	TAP_OK(ls_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL,
	       "ls_reallocarray: an overflowing product is refused");
	zgrow_checks();
	prefault_checks();
	{
		uint8_t *f = NULL, *keep;
		size_t fcap = 0;

		TAP_EQ(ls_fresh(&f, &fcap, 100000), 0, "ls_fresh: 100,000 bytes of nothing");
		TAP_OK(f != NULL && fcap == 100000, "... a buffer of 100,000");
		keep = f;
		TAP_EQ(ls_fresh(&f, &fcap, 5000), 0, "5,000 of a buffer of 100,000");
		TAP_OK(f == keep && fcap == 100000, "... the same buffer, kept");
		TAP_EQ(ls_fresh(&f, &fcap, 200000), 0, "200,000");
		TAP_OK(f != NULL && fcap == 200000, "... a buffer of 200,000");
		if (f)
			f[199999] = 1;	/* (all of it is the buffer's) */
		free(f);
	}
	return TAP_DONE();
}
