/*
 * opts: the checks every tool's option parser makes, so that each tool
 * parses its command line once, into its own typed struct, with the same
 * rules for numbers, sizes and name lists. Built into each tool that lists
 * it in LIB (../common.mk).
 *
 * Numbers are decimal, or hexadecimal with 0x (no octal: "010" is ten).
 * Every function returns 0 and sets its output, or -1 and leaves the output
 * alone on junk, trailing characters or a value out of range.
 */
#ifndef RXE_ODP_OPTS_H
#define RXE_ODP_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* a number in [min, max] */
int opt_long(const char *arg, long min, long max, long *out);
int opt_uint(const char *arg, unsigned min, unsigned max, unsigned *out);
/* a 64-bit number (no minus sign) */
int opt_u64(const char *arg, uint64_t *out);
/* a number of seconds or the like, min < value <= max */
int opt_double(const char *arg, double min, double max, double *out);

/*
 * A size in bytes: a number with an optional suffix K, M, G or T (powers
 * of 1024; either case; "KiB", "MB" and "4096B" are fine too). Zero and
 * sizes that do not fit in 64 bits are refused.
 */
int opt_size(const char *arg, uint64_t *out);
/* sizes separated by commas (empty elements skipped): how many, or -1
 * (a bad size, none, or more than max) */
int opt_size_list(const char *arg, uint64_t *sizes, int max);

/*
 * A comma list of names (any case, each one of names[0..n-1]), or "all" or
 * "none": on[i] is set for each name given and cleared for the others.
 */
int opt_names(const char *arg, const char *const *names, unsigned n, bool *on);

/* The GID index a tool uses unless --gid says otherwise: $RXE_GID (set by
 * the guest scripts for the rxe they made) if it is a valid index, else dflt. */
int opt_gid_default(int dflt);

#endif
