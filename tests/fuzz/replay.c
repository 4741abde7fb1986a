/* replay.c - runs a fuzz entry point over files, and over bounded,
 * deterministic mutations of them, without libFuzzer.
 *
 * usage: fuzz_X [-m N] FILE...   -m N: also N mutants per file (byte
 * flips, truncations, inserted bytes; seeded by the file's index, so a
 * failure reproduces).  Prints one TAP line per file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t seed;

static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

int main(int argc, char **argv)
{
	long mutants = 0;
	int i, n = 0;

	if (argc > 2 && !strcmp(argv[1], "-m")) {
		mutants = strtol(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	for (i = 1; i < argc; i++) {
		static uint8_t in[1 << 20], m[(1 << 20) + 64];
		FILE *f = fopen(argv[i], "rb");
		size_t len, ml;
		long k;

		if (!f) {
			printf("not ok %d - cannot read %s\n", ++n, argv[i]);
			continue;
		}
		len = fread(in, 1, sizeof(in), f);
		fclose(f);
		LLVMFuzzerTestOneInput(in, len);
		seed = (uint32_t)i * 2654435761u;
		for (k = 0; k < mutants && len; k++) {
			int j, nmut = 1 + (int)(rnd() % 4);

			memcpy(m, in, len);
			ml = len;
			for (j = 0; j < nmut; j++) {
				switch (rnd() % 4) {
				case 0:	/* truncate */
					ml = rnd() % (ml + 1);
					break;
				case 1:	/* insert a byte */
					if (ml < sizeof(m)) {
						size_t at = rnd() % (ml + 1);

						memmove(m + at + 1, m + at, ml - at);
						m[at] = (uint8_t)rnd();
						ml++;
					}
					break;
				default:	/* flip */
					if (ml)
						m[rnd() % ml] ^= (uint8_t)(1 + rnd() % 255);
					break;
				}
			}
			LLVMFuzzerTestOneInput(m, ml);
		}
		printf("ok %d - %s and %ld mutants\n", ++n, argv[i], mutants);
	}
	return 0;
}
