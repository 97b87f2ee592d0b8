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

int main(void)
{
	test_pattern();
	test_prefetch_list();
	return unit_result("odp-bench unit");
}
