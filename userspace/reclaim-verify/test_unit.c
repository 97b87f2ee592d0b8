// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for reclaim-verify's pattern and option logic (run under ASan/UBSan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "pattern.h"

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

static void test_pattern_roundtrip(void)
{
	size_t len = 64 * 1024;
	uint8_t *a = malloc(len), *b = malloc(len);
	struct pat_result r;

	pat_fill(a, len, 0x0201, 3 * len, 42);
	CHECK(pat_check(a, len, 0x0201, 3 * len, 42, &r) == 0);
	CHECK(r.cls == PAT_OK && r.pages[PAT_OK] == len / PAT_PAGE);
	/* every identity component changes the data */
	pat_fill(b, len, 0x0202, 3 * len, 42);
	CHECK(memcmp(a, b, len));
	pat_fill(b, len, 0x0201, 4 * len, 42);
	CHECK(memcmp(a, b, len));
	pat_fill(b, len, 0x0201, 3 * len, 43);
	CHECK(memcmp(a, b, len));
	/* a fill at an offset continues the same pattern */
	pat_fill(b, len / 2, 0x0201, 3 * len + len / 2, 42);
	CHECK(!memcmp(a + len / 2, b, len / 2));
	free(a);
	free(b);
}

static void test_single_bit(void)
{
	size_t len = 16384, i;
	uint8_t *a = malloc(len);
	struct pat_result r;

	for (i = 0; i < len; i += 997) {
		pat_fill(a, len, 7, 0, 9);
		a[i] ^= 0x10;
		CHECK(pat_check(a, len, 7, 0, 9, &r) == 1);
		CHECK(r.first_bad == i && r.bad_pages == 1 && r.cls == PAT_GARBAGE);
	}
	free(a);
}

static void test_classes(void)
{
	size_t len = 8 * PAT_PAGE;
	uint8_t *a = malloc(len);
	struct pat_result r;

	/* dropped page: zero */
	pat_fill(a, len, 5, 0, 10);
	memset(a + PAT_PAGE, 0, PAT_PAGE);
	/* a few pattern bytes are zero anyway */
	CHECK(pat_check(a, len, 5, 0, 10, &r) > PAT_PAGE - 64);
	CHECK(r.cls == PAT_ZERO && r.pages[PAT_ZERO] == 1 && r.pages[PAT_OK] == 7);
	CHECK(pat_class_is_stale(r.cls));
	/* the page still holds an older generation: stale */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 2 * PAT_PAGE, PAT_PAGE, 5, 2 * PAT_PAGE, 7);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_OLD && r.found_gen == 7 && r.found_off == 2 * PAT_PAGE && r.found_stream == 5);
	/* older data of another slot (pinned source reused): stale too */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 3 * PAT_PAGE, PAT_PAGE, 5, 40 * PAT_PAGE, 3);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_OLD && r.found_off == 40 * PAT_PAGE);
	/* newer data, or data meant elsewhere at the same generation: misplaced */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 3 * PAT_PAGE, PAT_PAGE, 6, 3 * PAT_PAGE, 10);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_MISPLACED && !pat_class_is_stale(r.cls));
	/* a fork child's marker */
	pat_fill(a, len, 5, 0, 10);
	pat_mark_pages(a, len, PAT_STREAM_CHILD | 3, 0, 0);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_CHILD && r.bad_pages == 8);
	/* torn page: half old, half new */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 4 * PAT_PAGE, PAT_PAGE / 2, 5, 4 * PAT_PAGE, 9);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_GARBAGE);
	/* worst class wins */
	pat_fill(a, len, 5, 0, 10);
	memset(a, 0, PAT_PAGE);
	a[5 * PAT_PAGE + 100] ^= 1;
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_GARBAGE && r.pages[PAT_ZERO] == 1 && r.pages[PAT_GARBAGE] == 1);
	free(a);
}

static void test_unaligned_offset(void)
{
	/* messages may start mid-page of a stream: headers follow absolute offsets */
	size_t len = 3 * PAT_PAGE;
	uint8_t *a = malloc(len);
	struct pat_result r;

	pat_fill(a, len, 9, 64, 1);
	CHECK(pat_check(a, len, 9, 64, 1, &r) == 0);
	CHECK(r.pages[PAT_OK] == 4);
	memset(a + PAT_PAGE - 64, 0, PAT_PAGE);
	pat_check(a, len, 9, 64, 1, &r);
	CHECK(r.cls == PAT_ZERO);
	free(a);
}

static int parse(struct rv_config *c, const char *line, char *err)
{
	char buf[512], *argv[32], *t;
	int argc = 0;

	snprintf(buf, sizeof(buf), "rv %s", line);
	for (t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rv_config_defaults(c);
	return rv_parse_args(c, argc, argv, err, 256);
}

static void test_opts(void)
{
	struct rv_config c;
	char err[256];
	size_t sz;
	unsigned m;

	CHECK(parse(&c, "", err) == 0);
	CHECK(c.mode == RV_LOOPBACK && c.mr == RV_MR_ODP && c.kinds == (1u << RV_NKINDS) - 1);
	CHECK(c.addr[0] == 0);
	CHECK(parse(&c, "--addr 169.254.1.3", err) == 0 && !strcmp(c.addr, "169.254.1.3"));
	CHECK(c.ops == 0xf && c.target % c.block == 0 && c.target >= 2ull * c.window * c.block);
	CHECK(parse(&c, "--pinned -r dontneed,remap -d 2.5 -q 2 -w 4 -b 16K", err) == 0);
	CHECK(c.mr == RV_MR_PINNED && c.kinds == ((1u << RV_EV_DONTNEED) | (1u << RV_EV_REMAP)));
	CHECK(c.duration == 2.5 && c.qps == 2 && c.window == 4 && c.block == 16384);
	CHECK(c.min_events == 0 && c.max_duration == 25);
	CHECK(parse(&c, "-d 20 --min-events 1", err) == 0);
	CHECK(c.min_events == 1 && c.duration == 20 && c.max_duration == 200);
	CHECK(parse(&c, "-d 20 --min-events 2 --max-duration 60", err) == 0);
	CHECK(c.min_events == 2 && c.max_duration == 60);
	CHECK(parse(&c, "-d 20 --max-duration 10", err) != 0);
	CHECK(parse(&c, "--min-events x", err) != 0);
	CHECK(parse(&c, "--min-events 1001", err) != 0);
	CHECK(parse(&c, "--max-duration 0", err) != 0);
	CHECK(parse(&c, "--mix --no-reclaim --json", err) == 0 && c.mr == RV_MR_MIX && !c.kinds && c.json);
	CHECK(parse(&c, "--server", err) == 0 && c.mode == RV_SERVER && !strcmp(c.addr, "0.0.0.0"));
	CHECK(parse(&c, "--server 169.254.0.1 -p 999", err) == 0 && !strcmp(c.addr, "169.254.0.1") && c.port == 999);
	CHECK(parse(&c, "--client 192.0.2.7", err) == 0 && c.mode == RV_CLIENT && !strcmp(c.addr, "192.0.2.7"));
	CHECK(parse(&c, "--help", err) == 1);
	CHECK(parse(&c, "-b 1000", err) < 0 && strstr(err, "multiple of 4K"));
	CHECK(parse(&c, "-r pageout,bogus", err) < 0 && strstr(err, "--reclaim"));
	CHECK(parse(&c, "--ops read", err) < 0 && strstr(err, "write"));
	CHECK(parse(&c, "--ops write,atomic", err) == 0 && c.ops == ((1u << RV_OP_WRITE) | (1u << RV_OP_ATOMIC)));
	CHECK(parse(&c, "-q 0", err) < 0);
	CHECK(parse(&c, "-q 65", err) < 0);
	CHECK(parse(&c, "-d -1", err) < 0);
	CHECK(parse(&c, "-d", err) < 0 && strstr(err, "needs a value"));
	CHECK(parse(&c, "--frobnicate", err) < 0 && strstr(err, "unknown"));
	CHECK(parse(&c, "stray", err) < 0 && strstr(err, "unexpected"));
	CHECK(parse(&c, "-w 8 -b 64K -t 64K", err) == 0 && c.target == 2 * 8 * 65536);
	CHECK(parse(&c, "-b 4K -t 1G", err) < 0 && strstr(err, "65535"));
	CHECK(parse(&c, "--json-file /tmp/x.json", err) == 0 && !strcmp(c.json_file, "/tmp/x.json"));
	CHECK(parse(&c, "--cgroup-max 64M", err) == 0 && c.cgroup_max == 64u << 20);
	CHECK(parse(&c, "--cgroup-max 10", err) < 0);
	CHECK(rv_parse_size("64K", &sz) == 0 && sz == 65536);
	CHECK(rv_parse_size("2MiB", &sz) == 0 && sz == 2u << 20);
	CHECK(rv_parse_size("1G", &sz) == 0 && sz == 1u << 30);
	CHECK(rv_parse_size("0x1000", &sz) == 0 && sz == 4096);
	CHECK(rv_parse_size("", &sz) < 0 && rv_parse_size("12Q", &sz) < 0 && rv_parse_size("-1", &sz) < 0);
	CHECK(rv_parse_size("99999999999999999999G", &sz) < 0);
	CHECK(rv_parse_list("all", rv_kind_names, RV_NKINDS, &m) == 0 && m == (1u << RV_NKINDS) - 1);
	CHECK(rv_parse_list("none", rv_kind_names, RV_NKINDS, &m) == 0 && m == 0);
	CHECK(rv_parse_list("FORK,thp", rv_kind_names, RV_NKINDS, &m) == 0 &&
	      m == ((1u << RV_EV_FORK) | (1u << RV_EV_THP)));
	CHECK(rv_parse_list("fork,", rv_kind_names, RV_NKINDS, &m) == 0 && m == (1u << RV_EV_FORK));
	CHECK(rv_parse_list("for", rv_kind_names, RV_NKINDS, &m) < 0);
}

int main(void)
{
	FILE *devnull = fopen("/dev/null", "w");

	test_pattern_roundtrip();
	test_single_bit();
	test_classes();
	test_unaligned_offset();
	test_opts();
	rv_usage(devnull, "rv");
	fclose(devnull);
	if (failures) {
		fprintf(stderr, "reclaim-verify unit tests: %d FAILED\n", failures);
		return 1;
	}
	printf("reclaim-verify unit tests: all passed\n");
	return 0;
}
