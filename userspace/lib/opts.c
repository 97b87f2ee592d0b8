/* opts: numbers, sizes and name lists of the tools' command lines. */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* decimal, or hex after 0x: strtoll/strtoull's base for arg */
static int base_of(const char *arg)
{
	return arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') ? 16 : 10;
}

int opt_long(const char *arg, long min, long max, long *out)
{
	const char *p = arg;
	char *end;
	long v;

	if (!arg || !*arg || isspace((unsigned char)*arg))
		return -1;
	if (*p == '-' || *p == '+')
		p++;
	errno = 0;
	v = strtol(arg, &end, base_of(p));
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int opt_uint(const char *arg, unsigned min, unsigned max, unsigned *out)
{
	long v;

	if (opt_long(arg, (long)min, (long)max, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

int opt_u64(const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!arg || !isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, base_of(arg));
	if (errno || end == arg || *end)
		return -1;
	*out = v;
	return 0;
}

int opt_double(const char *arg, double min, double max, double *out)
{
	char *end;
	double v;

	if (!arg || !*arg || isspace((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > min) || !(v <= max))
		return -1;
	*out = v;
	return 0;
}

int opt_size(const char *arg, uint64_t *out)
{
	unsigned shift = 0;
	unsigned long long v;
	char *end;

	if (!arg || !isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, base_of(arg));
	if (errno || end == arg)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: break;
	}
	if (shift) {
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'B' || (shift && *end == 'b'))
		end++;
	if (*end || !v || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int opt_size_list(const char *arg, uint64_t *sizes, int max)
{
	const char *p = arg;
	char one[64];
	int n = 0;

	if (!arg)
		return -1;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len) {
			if (len >= sizeof(one) || n == max)
				return -1;
			memcpy(one, p, len);
			one[len] = 0;
			if (opt_size(one, &sizes[n]))
				return -1;
			n++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return n ? n : -1;
}

int opt_names(const char *arg, const char *const *names, unsigned n, bool *on)
{
	bool all = false, none = false;
	const char *p = arg;
	unsigned i;
	/* the answer is built aside: on[] stays as it was on an error */
	bool pick[64] = { false };

	if (!arg || !*arg || n > 64)
		return -1;
	if (!strcmp(arg, "all"))
		all = true;
	else if (!strcmp(arg, "none"))
		none = true;
	while (!all && !none && *p) {
		size_t len = strcspn(p, ",");

		for (i = 0; i < n; i++)
			if (strlen(names[i]) == len && !strncasecmp(p, names[i], len))
				break;
		if (i == n)
			return -1;
		pick[i] = true;
		p += len;
		if (*p == ',')
			p++;
	}
	for (i = 0; i < n; i++)
		on[i] = all || pick[i];
	return 0;
}

int opt_gid_default(int dflt)
{
	long v;

	if (!opt_long(getenv("RXE_GID"), 0, 255, &v))
		return (int)v;
	return dflt;
}
