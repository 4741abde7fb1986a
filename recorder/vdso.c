/* vdso.c - the bytes of this process's vDSO, found in /proc/self/maps. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_err.h"
#include "vdso.h"

#define VDSO_MAX (1u << 20)

int lsr_vdso_read(void **data, size_t *len, uint64_t *addr)
{
	char line[512];
	FILE *f;
	uint64_t lo = 0, hi = 0;
	int found = 0;

	*data = NULL;
	*len = 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -LS_EIO;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (n < 6 || strcmp(line + n - 6, "[vdso]"))
			continue;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && hi > lo)
			found = 1;
		break;
	}
	fclose(f);
	if (!found)
		return -LS_ENOENT;
	if (hi - lo > VDSO_MAX)
		return -LS_ELIMIT;
	*data = malloc((size_t)(hi - lo));
	if (!*data)
		return -LS_ENOMEM;
	/* Our own mapping is readable; copy it rather than hand out a
	 * pointer into it, so callers can free uniformly. */
	memcpy(*data, (const void *)(uintptr_t)lo, (size_t)(hi - lo));
	*len = (size_t)(hi - lo);
	if (addr)
		*addr = lo;
	return 0;
}
