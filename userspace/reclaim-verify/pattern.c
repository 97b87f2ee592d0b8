// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "pattern.h"

static const char *const class_names[PAT_NCLASS] = {
	[PAT_OK] = "ok",
	[PAT_ZERO] = "zero-filled",
	[PAT_OLD] = "old-generation",
	[PAT_CHILD] = "fork-child-data",
	[PAT_MISPLACED] = "misplaced",
	[PAT_GARBAGE] = "garbage",
};

const char *pat_class_name(enum pat_class c)
{
	return (unsigned)c < PAT_NCLASS ? class_names[c] : "?";
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser: cheap, and every input bit reaches every output bit */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Header words: magic^gen, stream, offset, check. */
static uint64_t hdr_check(uint32_t stream, uint64_t off, uint64_t gen)
{
	return mix64(((uint64_t)stream << 32) ^ off ^ mix64(gen ^ 0x68647263ull));
}

uint64_t pat_word(uint32_t stream, uint64_t off, uint64_t gen)
{
	uint64_t po = off % PAT_PAGE;

	switch (po) {
	case 0:
		return PAT_MAGIC ^ gen;
	case 8:
		return stream;
	case 16:
		return off - po;
	case 24:
		return hdr_check(stream, off - po, gen);
	default:
		return mix64(mix64(((uint64_t)stream << 40) ^ gen) ^ off);
	}
}

void pat_fill(void *p, size_t len, uint32_t stream, uint64_t off, uint64_t gen)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = pat_word(stream, off + 8 * i, gen);
}

void pat_mark_pages(void *p, size_t len, uint32_t stream, uint64_t off, uint64_t gen)
{
	uint8_t *b = p;
	size_t i, first = (PAT_PAGE - off % PAT_PAGE) % PAT_PAGE;

	for (i = first; i + 32 <= len; i += PAT_PAGE)
		pat_fill(b + i, 32, stream, off + i, gen);
}

/* Does the 4 KiB page at abs offset pageoff carry a valid header? */
static int decode_header(const uint64_t *w, uint32_t *stream, uint64_t *off,
			 uint64_t *gen)
{
	uint64_t g = w[0] ^ PAT_MAGIC;

	if (w[1] > 0xffffffffull)
		return 0;
	if (w[3] != hdr_check((uint32_t)w[1], w[2], g))
		return 0;
	*stream = (uint32_t)w[1];
	*off = w[2];
	*gen = g;
	return 1;
}

static size_t count_bad(const uint8_t *p, size_t len, uint32_t stream,
			uint64_t off, uint64_t gen, size_t *first)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i += 8) {
		uint64_t want = pat_word(stream, off + i, gen), got;
		const uint8_t *a = (const uint8_t *)&want;
		unsigned k;

		memcpy(&got, p + i, 8);
		if (got == want)
			continue;
		for (k = 0; k < 8; k++) {
			if (p[i + k] != a[k]) {
				if (!bad && first)
					*first = i + k;
				bad++;
			}
		}
	}
	return bad;
}

static enum pat_class classify_page(const uint8_t *p, size_t len, uint32_t stream,
				    uint64_t pageoff, uint64_t gen,
				    struct pat_result *r, int first_bad_page)
{
	uint64_t w[4], foff, fgen;
	uint32_t fstream;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			break;
	if (i == len)
		return PAT_ZERO;
	if (len < 32 || pageoff % PAT_PAGE)
		return PAT_GARBAGE;
	memcpy(w, p, sizeof(w));
	if (!decode_header(w, &fstream, &foff, &fgen))
		return PAT_GARBAGE;
	if (first_bad_page) {
		r->found_stream = fstream;
		r->found_off = foff;
		r->found_gen = fgen;
	}
	if (fstream & PAT_STREAM_CHILD)
		return PAT_CHILD;
	/* The rest of the page must be that identity's data too. */
	if (count_bad(p, len, fstream, foff, fgen, NULL))
		return PAT_GARBAGE;
	if (fgen < gen)
		return PAT_OLD;
	(void)stream;
	return PAT_MISPLACED;
}

size_t pat_check(const void *p, size_t len, uint32_t stream, uint64_t off,
		 uint64_t gen, struct pat_result *r)
{
	const uint8_t *b = p;
	size_t pos = 0;

	memset(r, 0, sizeof(*r));
	while (pos < len) {
		/* one page, aligned on the pattern's absolute offsets */
		size_t plen = PAT_PAGE - (off + pos) % PAT_PAGE, first = 0, bad;
		enum pat_class c;

		if (plen > len - pos)
			plen = len - pos;
		bad = count_bad(b + pos, plen, stream, off + pos, gen, &first);
		if (bad) {
			c = classify_page(b + pos, plen, stream, off + pos, gen, r,
					  r->bad_pages == 0);
			if (!r->bad_bytes)
				r->first_bad = pos + first;
			r->bad_bytes += bad;
			r->bad_pages++;
			if (c > r->cls)
				r->cls = c;
		} else {
			c = PAT_OK;
		}
		r->pages[c]++;
		pos += plen;
	}
	return r->bad_bytes;
}
