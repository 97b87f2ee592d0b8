/* Host unit tests of the shared code (no RDMA device needed): the error
 * paths of loopback, which must fail cleanly and say why, counters, and
 * the fuzzers' seeded generator. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "loopback.h"
#include "sysfile.h"
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
	CHECK(hw_counter_read("no-such-rdma-dev", 1, "odp_faults") == -1);
	CHECK(file_number("/proc/sys/kernel/pid_max") > 0);
	CHECK(file_number("/proc/self/comm") == -1);	/* not a number */
	CHECK(file_number("/no/such/file") == -1);
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
	long v = 7;
	double t0, t1;

	CHECK(tool_parse_long("42", 0, 100, &v) == 0 && v == 42);
	CHECK(tool_parse_long("0x10", 0, 100, &v) == 0 && v == 16);
	CHECK(tool_parse_long("101", 0, 100, &v) == -1 && v == 16);
	CHECK(tool_parse_long("-1", 0, 100, &v) == -1);
	CHECK(tool_parse_long("12k", 0, 100, &v) == -1);
	CHECK(tool_parse_long("", 0, 100, &v) == -1);
	CHECK(tool_parse_long("99999999999999999999", 0, 100, &v) == -1);
	t0 = tool_now_us();
	t1 = tool_now_us();
	CHECK(t0 > 0 && t1 >= t0);
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

int main(void)
{
	test_open_missing();
	test_long_name();
	test_pair_without_gid();
	test_counters();
	test_sysfile();
	test_tool();
	test_buf_free();
	test_rng();
	return unit_result("lib unit");
}
