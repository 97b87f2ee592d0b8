/* Host unit tests of the shared code (no RDMA device needed): the error
 * paths of loopback, which must fail cleanly and say why, and counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "loopback.h"
#include "sysfile.h"
#include "tool.h"
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

int main(void)
{
	test_open_missing();
	test_long_name();
	test_pair_without_gid();
	test_counters();
	test_sysfile();
	test_tool();
	test_buf_free();
	return unit_result("lib unit");
}
