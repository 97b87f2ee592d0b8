/* tool: option parsing and the clock of the measuring tools. */
#include "tool.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int tool_parse_long(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

double tool_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
