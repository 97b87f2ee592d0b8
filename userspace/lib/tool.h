/*
 * tool: what every measuring tool needs besides verbs: a number option
 * checked against its range, and a monotonic clock. Built into each tool
 * that lists it in LIB (../common.mk).
 */
#ifndef RXE_ODP_TOOL_H
#define RXE_ODP_TOOL_H

/* arg as a number (decimal, 0x hex or 0 octal) in [min, max]: 0 and *out
 * set, or -1 for junk, trailing characters or a value out of range. */
int tool_parse_long(const char *arg, long min, long max, long *out);

/* CLOCK_MONOTONIC in microseconds. */
double tool_now_us(void);

#endif
