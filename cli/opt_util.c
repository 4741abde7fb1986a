/* opt_util.c - the numeric option values of every command, parsed and
 * refused with one wording: "option '--x' wants a number from A to B,
 * not 'V'". */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

int cli_opt_u64(const char *opt, const char *s, int base, uint64_t min,
		uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, base);
	/* strtoull() takes "-1" as 2^64 - 1: no sign is allowed */
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		if (min == 0 && max == UINT64_MAX)
			cli_error("option '%s' wants a number, not '%s'", opt, s);
		else
			cli_error("option '%s' wants a number from %" PRIu64 " to %" PRIu64
				  ", not '%s'", opt, min, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_opt_u32(const char *opt, const char *s, int base, uint32_t min,
		uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (cli_opt_u64(opt, s, base, min, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int cli_opt_double(const char *opt, const char *s, double min, double max,
		   double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !(d >= min && d <= max)) {
		if (isinf(max))
			cli_error("option '%s' wants a number from %g, not '%s'", opt, min, s);
		else
			cli_error("option '%s' wants a number from %g to %g, not '%s'", opt,
				  min, max, s);
		return -1;
	}
	*out = d;
	return 0;
}

unsigned cli_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}
