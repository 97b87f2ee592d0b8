/*
 * The frame of the host unit tests (a TEST_PROG of ../common.mk, one source
 * file including this): CHECK() reports a failed condition with its place
 * and goes on, unit_result() prints "NAME: ok" or the number of failures
 * and gives the exit status.
 */
#ifndef RXE_ODP_UNIT_H
#define RXE_ODP_UNIT_H

#include <stdio.h>

static int unit_failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                            \
			unit_failures++;                                     \
		}                                                            \
	} while (0)

static inline int unit_result(const char *name)
{
	if (unit_failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, unit_failures);
		return 1;
	}
	printf("%s: ok\n", name);
	return 0;
}

#endif
