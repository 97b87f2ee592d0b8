/* Host unit tests of odp-bench's device-independent helpers (util.h). */
#include <stdio.h>

#include "unit.h"
#include "util.h"

static void test_pattern(void)
{
	static uint64_t buf[1024];
	unsigned char *b = (unsigned char *)buf;

	pattern_fill(buf, 8192, sizeof(buf), 3);
	CHECK(pattern_corrupt_bytes(buf, 8192, sizeof(buf), 3) == 0);
	/* Another generation, another offset, or zeros: (nearly) every byte differs. */
	CHECK(pattern_corrupt_bytes(buf, 8192, sizeof(buf), 4) > sizeof(buf) * 9 / 10);
	CHECK(pattern_corrupt_bytes(buf, 8192 + 4096, sizeof(buf), 3) > sizeof(buf) * 9 / 10);
	b[100] ^= 1;
	b[101] ^= 0x80;
	b[4000] = (unsigned char)~b[4000];
	CHECK(pattern_corrupt_bytes(buf, 8192, sizeof(buf), 3) == 3);
	memset(buf, 0, sizeof(buf));
	CHECK(pattern_corrupt_bytes(buf, 8192, sizeof(buf), 3) > sizeof(buf) * 9 / 10);
	CHECK(pattern_word(0, 0) != pattern_word(8, 0));
	CHECK(pattern_word(0, 0) != pattern_word(0, 1));
}

static void test_prefetch_list(void)
{
	int k[PF_KINDS];

	CHECK(parse_prefetch_list("sync", k, PF_KINDS) == 1 && k[0] == PF_SYNC);
	CHECK(parse_prefetch_list("none,sync,async", k, PF_KINDS) == 3 && k[0] == PF_NONE &&
	      k[1] == PF_SYNC && k[2] == PF_ASYNC);
	CHECK(parse_prefetch_list("async,none", k, PF_KINDS) == 2 && k[0] == PF_ASYNC &&
	      k[1] == PF_NONE);
	CHECK(parse_prefetch_list("sync,sync", k, PF_KINDS) == -EINVAL);
	CHECK(parse_prefetch_list("flush", k, PF_KINDS) == -EINVAL);
	CHECK(parse_prefetch_list("", k, PF_KINDS) == -EINVAL);
	CHECK(parse_prefetch_list(",", k, PF_KINDS) == -EINVAL);
	CHECK(parse_prefetch_list(NULL, k, PF_KINDS) == -EINVAL);
	CHECK(parse_prefetch_list("none,sync", k, 1) == -EINVAL);
	CHECK(!strcmp(prefetch_name(PF_ASYNC), "async"));
}

static void test_atomic_words(void)
{
	static uint64_t buf[4096];	/* 32 KiB */
	uint64_t first = 12345, k, off;

	/* 512 atomics a pass: 2 MiB at 4 KiB is one sweep, at 1 MiB 256 of 2 */
	CHECK(atomic_sweeps(2 << 20, 4096, 512) == 1);
	CHECK(atomic_sweeps(2 << 20, 64 << 10, 512) == 16);
	CHECK(atomic_sweeps(2 << 20, 1 << 20, 512) == 256);
	CHECK(atomic_words(1000, 256) == 4 && atomic_sweeps(1000, 256, 10) == 3);
	atomic_words_init(buf, sizeof(buf), 1024);
	CHECK(buf[0] == 0 && buf[1024 / 8] == 1024 && buf[1] == 0);
	CHECK(atomic_words_wrong(buf, sizeof(buf), 1024, 0, &first) == 0 && first == 12345);
	for (k = 0; k < 3; k++)
		for (off = 0; off < sizeof(buf); off += 1024)
			buf[off / 8]++;
	CHECK(atomic_words_wrong(buf, sizeof(buf), 1024, 3, &first) == 0);
	CHECK(atomic_words_wrong(buf, sizeof(buf), 1024, 2, &first) == sizeof(buf) / 1024 &&
	      first == 0);
	/* one add lost, one landed on the next word */
	buf[5 * 1024 / 8]--;
	buf[6 * 1024 / 8]++;
	CHECK(atomic_words_wrong(buf, sizeof(buf), 1024, 3, &first) == 2 && first == 5 * 1024);
}

int main(void)
{
	test_pattern();
	test_prefetch_list();
	test_atomic_words();
	return unit_result("odp-bench unit");
}
