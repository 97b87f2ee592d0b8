/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data patterns that identify themselves.
 *
 * Every block the tool moves is filled from (stream, byte offset, generation):
 * a "stream" names one logical buffer of one QP (say "QP 2's write target"),
 * the offset is the byte's position in it and the generation is the
 * transaction number that wrote it.  Each 4 KiB page of the pattern starts with
 * a 32-byte header carrying that identity, the rest of the page is a hash of
 * it, so a page that does not hold what was expected can be explained: zero
 * (the page was dropped), an older generation (the write went somewhere the
 * process no longer sees), a fork child's data, data of another place, or
 * garbage (torn or random bytes).
 */
#ifndef RV_PATTERN_H
#define RV_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PAT_PAGE 4096u
#define PAT_MAGIC 0x5256504154544e31ull	/* "RVPATTN1" */
#define PAT_STREAM_CHILD 0x80000000u	/* written by a fork child */

/* How a page compares with the expected pattern, mildest first. */
enum pat_class {
	PAT_OK,
	PAT_ZERO,	/* all zero: the page was replaced by a fresh one */
	PAT_OLD,	/* a whole page of an older generation */
	PAT_CHILD,	/* a fork child's bytes reached the parent */
	PAT_MISPLACED,	/* a whole page meant for another place or a newer generation */
	PAT_GARBAGE,	/* neither: torn page or random bytes */
	PAT_NCLASS
};

/* Stale = the data the NIC moved is not the data the process sees, but what
 * it sees is a consistent older state of the page. */
static inline int pat_class_is_stale(enum pat_class c)
{
	return c == PAT_ZERO || c == PAT_OLD;
}

struct pat_result {
	enum pat_class cls;	/* worst page class of the block */
	size_t bad_bytes;	/* bytes that differ from the expectation */
	size_t first_bad;	/* offset in the block of the first bad byte */
	unsigned bad_pages;
	unsigned pages[PAT_NCLASS];	/* pages per class */
	/* identity found in the first bad page, if it had a valid header */
	uint32_t found_stream;
	uint64_t found_off, found_gen;
};

const char *pat_class_name(enum pat_class c);
uint64_t pat_word(uint32_t stream, uint64_t off, uint64_t gen);
/* off and len must be multiples of 8. */
void pat_fill(void *p, size_t len, uint32_t stream, uint64_t off, uint64_t gen);
/* Write only the identity header of each page (what a fork child leaves). */
void pat_mark_pages(void *p, size_t len, uint32_t stream, uint64_t off, uint64_t gen);
/* Returns 0 if the block matches, else the number of bad bytes (>0). */
size_t pat_check(const void *p, size_t len, uint32_t stream, uint64_t off,
		 uint64_t gen, struct pat_result *r);

#endif
