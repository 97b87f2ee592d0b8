/* Helpers of odp-bench that need no RDMA device (unit-tested on the host). */
#ifndef ODP_BENCH_UTIL_H
#define ODP_BENCH_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The data pattern: one 64-bit word per 8-byte-aligned offset and generation,
 * so a page that comes back from swap with another page's contents, an older
 * generation's contents or zeros is caught.  splitmix64 finaliser: cheap,
 * and no two nearby (offset, gen) pairs give the same word.
 */
static inline uint64_t pattern_word(uint64_t off, uint64_t gen)
{
	uint64_t z = off + gen * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill buf (len a multiple of 8) with the words for offsets off.. of gen. */
static inline void pattern_fill(void *buf, uint64_t off, size_t len, uint64_t gen)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = pattern_word(off + i * 8, gen);
}

/* Bytes of buf that differ from the pattern (len a multiple of 8). */
static inline uint64_t pattern_corrupt_bytes(const void *buf, uint64_t off, size_t len,
					     uint64_t gen)
{
	const uint64_t *w = buf;
	uint64_t bad = 0, x;
	size_t i;
	int b;

	for (i = 0; i < len / 8; i++) {
		x = w[i] ^ pattern_word(off + i * 8, gen);
		if (!x)
			continue;
		for (b = 0; b < 8; b++)
			bad += ((x >> (8 * b)) & 0xff) != 0;
	}
	return bad;
}

/*
 * steady --atomic: the targets are the 8-byte words at every stride bytes of
 * a buffer of len bytes (len and stride multiples of 8).  Each word starts
 * at its own offset, so an add that lands on the wrong word is seen; after
 * adds fetch-and-adds of 1 on every word it holds offset + adds.
 */
static inline uint64_t atomic_words(uint64_t len, uint64_t stride)
{
	return (len + stride - 1) / stride;
}

/* Sweeps over the words that make at least min atomics. */
static inline uint64_t atomic_sweeps(uint64_t len, uint64_t stride, uint64_t min)
{
	uint64_t n = atomic_words(len, stride);

	return n >= min ? 1 : (min + n - 1) / n;
}

static inline void atomic_words_init(void *buf, uint64_t len, uint64_t stride)
{
	uint64_t off;

	for (off = 0; off < len; off += stride)
		memcpy((char *)buf + off, &off, 8);
}

/* Words that do not hold offset + adds; *first gets the offset of the first. */
static inline uint64_t atomic_words_wrong(const void *buf, uint64_t len, uint64_t stride,
					  uint64_t adds, uint64_t *first)
{
	uint64_t off, v, bad = 0;

	for (off = 0; off < len; off += stride) {
		memcpy(&v, (const char *)buf + off, 8);
		if (v != off + adds && !bad++)
			*first = off;
	}
	return bad;
}

/* Prefetch kinds of "pass --prefetch" (odp_bench.c). */
enum prefetch_kind { PF_NONE, PF_SYNC, PF_ASYNC, PF_KINDS };

static inline const char *prefetch_name(int k)
{
	switch (k) {
	case PF_NONE: return "none";
	case PF_SYNC: return "sync";
	case PF_ASYNC: return "async";
	default: return "?";
	}
}

/*
 * "none", "sync", "async" or a comma-separated list of them (each at most
 * once, in the order given) into kinds[]; returns how many, or -EINVAL.
 */
static inline int parse_prefetch_list(const char *s, int *kinds, int max)
{
	char buf[64], *tok, *save = NULL;
	unsigned int seen = 0;
	int n = 0, k;

	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < PF_KINDS; k++)
			if (!strcmp(tok, prefetch_name(k)))
				break;
		if (k == PF_KINDS || (seen & (1u << k)) || n == max)
			return -EINVAL;
		seen |= 1u << k;
		kinds[n++] = k;
	}
	return n ? n : -EINVAL;
}

#endif
