/* Host unit tests of the shared code (no RDMA device needed): the error
 * paths of loopback, which must fail cleanly and say why, and counters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "loopback.h"
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

int main(void)
{
	test_open_missing();
	test_long_name();
	test_pair_without_gid();
	test_counters();
	return unit_result("lib unit");
}
