/*
 * tool: the monotonic clock of the measuring tools (their options are
 * checked by opts.h). Built into each tool that lists it in LIB
 * (../common.mk).
 */
#ifndef RXE_ODP_TOOL_H
#define RXE_ODP_TOOL_H

/* CLOCK_MONOTONIC in microseconds. */
double tool_now_us(void);

#endif
