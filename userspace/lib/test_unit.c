/* Host unit tests of the shared code (no RDMA device needed): the error
 * paths of loopback, which must fail cleanly and say why, counters (and
 * the parser of the netlink reply they come in), the fuzzers' seeded
 * generator, the option checks. */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aging.h"
#include "counters.h"
#include "loopback.h"
#include "nldev.h"
#include "sysfile.h"
#include "opts.h"
#include "tool.h"
#include "rng.h"
#include "unit.h"

/* No such device: -1, errno set, a message naming what failed, nothing
 * left open, and closing what is not open is harmless. */
static void test_open_missing(void)
{
	struct lb_dev d;
	int r;

	errno = 0;
	r = lb_dev_open(&d, "no-such-rdma-dev", 1);
	CHECK(r == -1);
	CHECK(errno != 0);
	CHECK(!d.ctx && !d.pd);
	CHECK(d.gid_index == -1);
	/* A host without RDMA support fails in ibv_get_device_list (with the
	 * errno text), one with devices finds none of this name. */
	CHECK(!strncmp(d.err, "ibv_get_device_list: ", 21) ||
	      !strncmp(d.err, "no RDMA device named no-such-rdma-dev (", 39));
	if (!strncmp(d.err, "ibv_get_device_list: ", 21))
		CHECK(!strcmp(d.err + 21, strerror(errno)));
	printf("lb_dev_open(no-such-rdma-dev): %s\n", d.err);
	lb_dev_close(&d);
	lb_dev_close(&d);
}

/* A name longer than the message buffer: the message is cut, not overrun. */
static void test_long_name(void)
{
	char name[600];
	struct lb_dev d;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	CHECK(lb_dev_open(&d, name, 1) == -1);
	CHECK(strlen(d.err) < sizeof(d.err));
	CHECK(strlen(d.err) > 20);
	lb_dev_close(&d);
}

/* A pair needs a GID first; destroying a zeroed or half-made pair is fine. */
static void test_pair_without_gid(void)
{
	struct lb_dev d = { .gid_index = -1 };
	struct lb_pair_attr at = { .cqe_a = 4 };
	struct lb_pair p;

	errno = 0;
	CHECK(lb_pair_create(&d, &p, &at) == -1);
	CHECK(errno == EINVAL);
	CHECK(strstr(d.err, "lb_dev_gid") != NULL);
	CHECK(!p.a.qp && !p.a.cq && !p.b.qp && !p.b.cq);
	lb_pair_destroy(&p);
	lb_pair_destroy(&p);
}

static void test_counters(void)
{
	CHECK(vmstat("nr_free_pages") > 0);
	CHECK(vmstat("nr_free_page") == -1);	/* a prefix is not the counter */
	CHECK(vmstat("no_such_counter") == -1);
	{
		/* one reading of several: a missing one is -1, the others are read */
		const char *const names[] = { "nr_free_page", "pgfault", "no_such_counter",
					      "nr_free_pages" };
		long long v[4];

		CHECK(vmstat_read(names, v, 4) == 0);
		CHECK(v[0] == -1 && v[2] == -1);
		CHECK(v[1] > 0 && v[3] > 0);
	}
	CHECK(hw_counter_read("no-such-rdma-dev", 1, "odp_faults") == -1);
	{
		const char *const names[] = { "odp_faults", "lifespan" };
		long long v[2] = { 7, 7 };

		CHECK(hw_counters_read("no-such-rdma-dev", 1, names, v, 2) == -1);
		CHECK(v[0] == -1 && v[1] == -1);
	}
	CHECK(file_number("/proc/sys/kernel/pid_max") > 0);
	CHECK(file_number("/proc/self/comm") == -1);	/* not a number */
	CHECK(file_number("/no/such/file") == -1);
}

/* A crafted RDMA_NLDEV_CMD_STAT_GET reply, built as the kernel's
 * stat_get_doit_default_counter() does (attributes after the netlink
 * header; nests' lengths cover their padded contents). */
static uint32_t nl_words[512];
#define NL_BUF ((unsigned char *)nl_words)
static size_t nl_used;

/* Append an attribute; returns its offset (for nl_end() of a nest). */
static size_t nl_put(int type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = (uint16_t)type };
	size_t at = nl_used;

	memcpy(NL_BUF + nl_used, &a, sizeof(a));
	if (len)
		memcpy(NL_BUF + nl_used + NLA_HDRLEN, data, len);
	nl_used += NLA_ALIGN(a.nla_len);
	return at;
}

static size_t nl_nest(int type)
{
	return nl_put(type | NLA_F_NESTED, NULL, 0);
}

/* Close the nest that starts at offset at. */
static void nl_end(size_t at)
{
	uint16_t len = (uint16_t)(nl_used - at);

	memcpy(NL_BUF + at, &len, sizeof(len));
}

static void nl_entry(const char *name, uint64_t v)
{
	size_t e = nl_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name, strlen(name) + 1);
	nl_put(RDMA_NLDEV_ATTR_PAD, NULL, 0);	/* nla_put_u64_64bit() may pad */
	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, &v, sizeof(v));
	nl_end(e);
}

/* The reply's head: device index and name, port; returns the offset of
 * the counter table, still open. */
static size_t nl_head(void)
{
	uint32_t idx = 3, port = 1;

	memset(nl_words, 0, sizeof(nl_words));
	nl_used = 0;
	nl_put(RDMA_NLDEV_ATTR_DEV_INDEX, &idx, 4);
	nl_put(RDMA_NLDEV_ATTR_DEV_NAME, "rxe0", 5);
	nl_put(RDMA_NLDEV_ATTR_PORT_INDEX, &port, 4);
	return nl_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
}

static void test_stat_reply(void)
{
	struct nldev_attr a[8];
	char err[256] = "";
	size_t t, e;
	uint32_t v32 = 5;
	int n;

	/* three counters (one with a name too long to keep), something else */
	t = nl_head();
	nl_entry("sent_pkts", 42);
	nl_put(RDMA_NLDEV_ATTR_PAD, NULL, 0);
	nl_entry("odp_pages_prefetched", 1ULL << 40);
	nl_entry("a_counter_name_much_longer_than_forty_seven_bytes_x", 9);
	nl_entry("odp_faults", 0);
	nl_end(t);
	n = nldev_parse_stat_reply(NL_BUF, nl_used, a, 8);
	CHECK(n == 3);
	CHECK(nldev_attr_get(a, n, "sent_pkts") == 42);
	CHECK(nldev_attr_get(a, n, "odp_pages_prefetched") == 1LL << 40);
	CHECK(nldev_attr_get(a, n, "odp_faults") == 0);
	CHECK(nldev_attr_get(a, n, "lifespan") == -1);	/* sysfs only */
	CHECK(nldev_attr_get(a, n, "odp_fault") == -1);	/* a prefix is not it */
	/* a full output array: all counted, the first ones kept */
	memset(a, 0, sizeof(a));
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 1) == 3);
	CHECK(nldev_attr_get(a, 1, "sent_pkts") == 42 && !a[1].name[0]);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, NULL, 0) == 3);

	/* cut short anywhere, in the last entry's value or its name: refused */
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used - 4, a, 8) == -1);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used - 20, a, 8) == -1);
	CHECK(nldev_parse_stat_reply(NL_BUF, 7, a, 8) == -1);
	CHECK(nldev_parse_stat_reply(NL_BUF, 0, a, 8) == -1);	/* no table */

	/* an empty table: no counters, not an error */
	t = nl_head();
	nl_end(t);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == 0);

	/* no table at all (a reply to something else) */
	t = nl_head();
	nl_used = t;
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);

	/* a value of 4 bytes, not 8 */
	t = nl_head();
	nl_entry("sent_pkts", 42);
	e = nl_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "odp_faults", 11);
	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, &v32, 4);
	nl_end(e);
	nl_end(t);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);

	/* an entry without a name, one without a value */
	t = nl_head();
	e = nl_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, &(uint64_t){ 1 }, 8);
	nl_end(e);
	nl_end(t);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);
	t = nl_head();
	e = nl_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	nl_put(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "odp_faults", 11);
	nl_end(e);
	nl_end(t);
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);

	/* an attribute inside an entry claiming more than the entry holds */
	t = nl_head();
	e = nl_used;
	nl_entry("odp_faults", 1);
	nl_end(t);
	{
		uint16_t bad = 200;	/* the name's nla_len */

		memcpy(NL_BUF + e + NLA_HDRLEN, &bad, sizeof(bad));
	}
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);

	/* an attribute shorter than its own header */
	t = nl_head();
	nl_entry("odp_faults", 1);
	nl_end(t);
	{
		uint16_t bad = 2;	/* the entry's nla_len */

		memcpy(NL_BUF + t + NLA_HDRLEN, &bad, sizeof(bad));
	}
	CHECK(nldev_parse_stat_reply(NL_BUF, nl_used, a, 8) == -1);

	/* no such device: -1 and why */
	CHECK(nldev_hw_counters("no-such-rdma-dev", 1, a, 8, err, sizeof(err)) == -1);
	CHECK(err[0] != 0);
	printf("nldev_hw_counters(no-such-rdma-dev): %s\n", err);
}

/* One write of exactly the value; errors as -errno, nothing half done. */
static void test_sysfile(void)
{
	char path[] = "/tmp/lib-unit-sysfile-XXXXXX", buf[16] = "";
	char dir[600];
	FILE *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK(sysfile_write(path, "Y") == 0);
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	CHECK(!strcmp(buf, "Y"));
	if (f)
		fclose(f);
	unlink(path);
	CHECK(sysfile_write("/nonexistent-dir/file", "1") == -ENOENT);
	CHECK(cgroup_join("/nonexistent-cgroup") == -ENOENT);
	memset(dir, 'd', sizeof(dir) - 1);
	dir[sizeof(dir) - 1] = 0;
	CHECK(cgroup_join(dir) == -ENAMETOOLONG);
}

static void test_tool(void)
{
	double t0, t1;

	t0 = tool_now_us();
	t1 = tool_now_us();
	CHECK(t0 > 0 && t1 >= t0);
}

/* Numbers: decimal or 0x hex, in range, nothing trailing; the output is
 * left alone on an error. */
static void test_opt_numbers(void)
{
	unsigned u = 9;
	uint64_t w = 5;
	double d = 3;
	long v = 7;

	CHECK(opt_long("42", 0, 100, &v) == 0 && v == 42);
	CHECK(opt_long("0x10", 0, 100, &v) == 0 && v == 16);
	CHECK(opt_long("010", 0, 100, &v) == 0 && v == 10);
	CHECK(opt_long("-0x10", -20, 0, &v) == 0 && v == -16);
	CHECK(opt_long("101", 0, 100, &v) == -1 && v == -16);
	CHECK(opt_long("-1", 0, 100, &v) == -1);
	CHECK(opt_long("12k", 0, 100, &v) == -1);
	CHECK(opt_long("", 0, 100, &v) == -1);
	CHECK(opt_long(" 1", 0, 100, &v) == -1);
	CHECK(opt_long(NULL, 0, 100, &v) == -1);
	CHECK(opt_long("99999999999999999999", 0, 100, &v) == -1);
	CHECK(opt_uint("65535", 1, 65535, &u) == 0 && u == 65535);
	CHECK(opt_uint("0", 1, 65535, &u) == -1 && u == 65535);
	CHECK(opt_uint("4294967295", 0, ~0u, &u) == 0 && u == ~0u);
	CHECK(opt_u64("0xffffffffffffffff", &w) == 0 && w == UINT64_MAX);
	CHECK(opt_u64("18446744073709551616", &w) == -1 && w == UINT64_MAX);
	CHECK(opt_u64("-1", &w) == -1 && opt_u64("", &w) == -1 && opt_u64("1x", &w) == -1);
	CHECK(opt_double("2.5", 0, 10, &d) == 0 && d == 2.5);
	CHECK(opt_double("0", 0, 10, &d) == -1 && d == 2.5);
	CHECK(opt_double("10.5", 0, 10, &d) == -1 && opt_double("nan", 0, 10, &d) == -1);
	CHECK(opt_double("1s", 0, 10, &d) == -1 && opt_double("", 0, 10, &d) == -1);
}

/* Sizes: suffixes K/M/G/T (with i and B), 0x hex; zero, junk and
 * overflow refused. */
static void test_opt_size(void)
{
	uint64_t v = 0, s[4];

	CHECK(opt_size("4096", &v) == 0 && v == 4096);
	CHECK(opt_size("4096B", &v) == 0 && v == 4096);
	CHECK(opt_size("4K", &v) == 0 && v == 4096);
	CHECK(opt_size("64k", &v) == 0 && v == 65536);
	CHECK(opt_size("2MiB", &v) == 0 && v == 2u << 20);
	CHECK(opt_size("1Mb", &v) == 0 && v == 1u << 20);
	CHECK(opt_size("1G", &v) == 0 && v == 1u << 30);
	CHECK(opt_size("2T", &v) == 0 && v == 2ull << 40);
	CHECK(opt_size("0x1000", &v) == 0 && v == 4096);
	CHECK(opt_size("0", &v) == -1 && v == 4096);
	CHECK(opt_size("", &v) == -1 && opt_size(NULL, &v) == -1);
	CHECK(opt_size("-1", &v) == -1 && opt_size("K", &v) == -1);
	CHECK(opt_size("12Q", &v) == -1 && opt_size("4KK", &v) == -1);
	CHECK(opt_size("4i", &v) == -1 && opt_size("4BB", &v) == -1);
	CHECK(opt_size("99999999999999999999", &v) == -1);
	CHECK(opt_size("16777216T", &v) == -1);
	CHECK(opt_size_list("4K,1M,4G", s, 4) == 3 && s[0] == 4096 &&
	      s[1] == 1 << 20 && s[2] == 4ull << 30);
	CHECK(opt_size_list("4K,1M,4G,8G,16G", s, 4) == -1);
	CHECK(opt_size_list("4K,,1M", s, 4) == 2);
	CHECK(opt_size_list(",", s, 4) == -1 && opt_size_list("4K,x", s, 4) == -1);
}

static void test_opt_names(void)
{
	static const char *const names[] = { "write", "read", "send" };
	bool on[3] = { false, true, false };

	CHECK(opt_names("all", names, 3, on) == 0 && on[0] && on[1] && on[2]);
	CHECK(opt_names("none", names, 3, on) == 0 && !on[0] && !on[1] && !on[2]);
	CHECK(opt_names("SEND,write", names, 3, on) == 0 && on[0] && !on[1] && on[2]);
	CHECK(opt_names("read,", names, 3, on) == 0 && !on[0] && on[1] && !on[2]);
	CHECK(opt_names("rea", names, 3, on) == -1 && on[1]);
	CHECK(opt_names("read,bogus", names, 3, on) == -1 && !on[0] && on[1]);
	CHECK(opt_names("", names, 3, on) == -1 && opt_names(",read", names, 3, on) == -1);
}

static void test_opt_gid(void)
{
	setenv("RXE_GID", "3", 1);
	CHECK(opt_gid_default(1) == 3);
	setenv("RXE_GID", "300", 1);
	CHECK(opt_gid_default(1) == 1);
	setenv("RXE_GID", "", 1);
	CHECK(opt_gid_default(-1) == -1);
	unsetenv("RXE_GID");
	CHECK(opt_gid_default(1) == 1);
}

/* Freeing a zeroed or half-made buffer is fine, twice. */
static void test_buf_free(void)
{
	struct lb_buf b = { 0 };

	lb_buf_free(&b);
	b.addr = malloc(16);
	lb_buf_free(&b);
	CHECK(!b.addr && !b.mr && !b.len);
	lb_buf_free(&b);
}

/* rng: the same seed and stream give the same numbers, other streams
 * others; the helpers stay in range; and the sequence of a seed never
 * changes, or the fuzzers' old seeds stop reproducing. */
static void test_rng(void)
{
	struct rng a, b, c;
	unsigned int w[3] = { 0, 5, 1 }, hits[3] = { 0 }, i;
	int same = 1, diff = 0;

	rng_seed(&a, 42, 0);
	rng_seed(&b, 42, 0);
	rng_seed(&c, 42, 1);
	for (i = 0; i < 1000; i++) {
		uint64_t x = rng_u64(&a), y = rng_u64(&b), z = rng_u64(&c);

		same &= x == y;
		diff += x != z;
	}
	CHECK(same);
	CHECK(diff > 990);
	for (i = 0; i < 6000; i++) {
		unsigned int k = rng_pick(&a, w, 3);

		CHECK(k < 3);
		hits[k]++;
		CHECK(rng_below(&a, 7) < 7);
		CHECK(rng_range(&a, 5, 9) >= 5 && rng_range(&a, 5, 9) <= 9);
	}
	CHECK(hits[0] == 0);
	CHECK(hits[1] > 4 * hits[2] && hits[1] < 6 * hits[2]);
	CHECK(rng_below(&a, 0) == 0);
	rng_seed(&a, 1, 0);
	CHECK(rng_u64(&a) == 0xb3f2af6d0fc710c5ull);
}

/* The page-aging tools' shared options and set-up: values checked, the
 * tool's limits kept, and each set-up step failing with its reason. */
static void test_aging(void)
{
	char dir[] = "/tmp/aging-unit.XXXXXX", param[64], buf[8] = "";
	struct aging_rdma rd = { 0 };
	struct aging_opts a;
	bool m[4] = { false };
	int n = 0;
	FILE *f;

	CHECK(aging_parse_modes("off,on", m, 2, &n) == 0 && n == 2 && !m[0] && m[1]);
	CHECK(aging_parse_modes("on", m, 2, &n) == 0 && n == 1 && m[0]);
	CHECK(aging_parse_modes("on,off,on", m, 2, &n) == -1 && n == 1);
	CHECK(aging_parse_modes("on,off,on,off", m, 4, &n) == 0 && n == 4 && !m[3]);
	CHECK(aging_parse_modes("on,", m, 4, &n) == -1 && aging_parse_modes("", m, 4, &n) == -1);
	CHECK(aging_parse_modes("onn", m, 4, &n) == -1 && aging_parse_modes(",on", m, 4, &n) == -1);

	unsetenv("RXE_GID");
	aging_opts_init(&a, "lib-unit", 16, 4096, 4);
	CHECK(!strcmp(a.dev, "rxe0") && a.gid == 1 && a.size == 16u << 20 && !a.reclaim);
	CHECK(a.nmodes == 2 && !a.modes[0] && a.modes[1] && !strcmp(a.param, AGING_PARAM));
	CHECK(aging_opts_check(&a) == -1);
	CHECK(aging_opt(&a, 's', "4096") == 1 && a.size == 4096ul << 20);
	CHECK(aging_opt(&a, 's', "4097") == -1 && a.size == 4096ul << 20);
	CHECK(aging_opt(&a, 'g', "3") == 1 && a.gid == 3 && aging_opt(&a, 'g', "x") == -1);
	CHECK(aging_opt(&a, 'R', "2") == 1 && a.reclaim == 2u << 20);
	CHECK(aging_opt(&a, 'M', "on,on,off") == 1 && a.nmodes == 3);
	CHECK(aging_opt(&a, 'q', "1") == 0);
	CHECK(aging_opt(&a, 'c', "/nonexistent-cgroup") == 1 && aging_opts_check(&a) == 0);
	CHECK(aging_join(&a) == -1);
	CHECK(aging_reclaim(&a, 4096) == -1);

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(param, sizeof(param), "%s/odp_aging", dir);
	a.param = param;
	CHECK(aging_switch(&a, true) == -1);	/* no such file: not created */
	f = fopen(param, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(aging_switch(&a, true) == 0);
	f = fopen(param, "r");
	CHECK(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "Y"));
	if (f)
		fclose(f);
	unlink(param);
	rmdir(dir);

	a.dev = "no-such-rdma-dev";
	CHECK(aging_rdma_open(&rd, &a, NULL, 4096) == -1 && rd.dev.err[0]);
	aging_rdma_close(&rd);
	aging_rdma_close(&rd);
}

int main(void)
{
	test_open_missing();
	test_long_name();
	test_pair_without_gid();
	test_counters();
	test_stat_reply();
	test_sysfile();
	test_tool();
	test_opt_numbers();
	test_opt_size();
	test_opt_names();
	test_opt_gid();
	test_aging();
	test_buf_free();
	test_rng();
	return unit_result("lib unit");
}
