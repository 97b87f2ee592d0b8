/* Host unit tests of odp-selftest's netlink reader of per-MR counters
 * (../lib/nldev.c), under ASan/UBSan: a driver table as rxe-odp's
 * rxe_odp_fill_res_mr_entry() builds it, a cut one, a full output array,
 * and a device that does not exist.  No RDMA device needed. */
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nldev.h"
#include "unit.h"

static unsigned char buf[1024];
static size_t used;

static void put(int type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = (uint16_t)type };

	memcpy(buf + used, &a, sizeof(a));
	memcpy(buf + used + NLA_HDRLEN, data, len);
	used += NLA_ALIGN(a.nla_len);
}

static void put_str(int type, const char *s)
{
	put(type, s, strlen(s) + 1);
}

static void put_u64(const char *name, uint64_t v)
{
	put_str(RDMA_NLDEV_ATTR_DRIVER_STRING, name);
	put(RDMA_NLDEV_ATTR_PAD, "", 0);	/* nla_put_u64_64bit may pad */
	put(RDMA_NLDEV_ATTR_DRIVER_U64, &v, sizeof(v));
}

static void table(void)
{
	uint8_t hex = RDMA_NLDEV_PRINT_TYPE_HEX;
	uint32_t v32 = 3;

	used = 0;
	put_str(RDMA_NLDEV_ATTR_DRIVER_STRING, "odp");
	put_str(RDMA_NLDEV_ATTR_DRIVER_STRING, "explicit");
	put_u64("odp_mapped_pages", 5);
	put_str(RDMA_NLDEV_ATTR_DRIVER_STRING, "odp_faults");
	put(RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, &hex, 1);
	put(RDMA_NLDEV_ATTR_DRIVER_U64, &(uint64_t){ 1ULL << 40 }, 8);
	put_str(RDMA_NLDEV_ATTR_DRIVER_STRING, "small");
	put(RDMA_NLDEV_ATTR_DRIVER_U32, &v32, 4);
}

int main(void)
{
	struct nldev_attr a[8];
	char err[256] = "";
	int n, r;

	table();
	n = nldev_parse_driver_table(buf, used, a, 8);
	CHECK(n == 3);
	CHECK(nldev_attr_get(a, n, "odp_mapped_pages") == 5);
	CHECK(nldev_attr_get(a, n, "odp_faults") == 1LL << 40);
	CHECK(nldev_attr_get(a, n, "small") == 3);
	CHECK(nldev_attr_get(a, n, "odp") == -1);	/* a string, not a counter */
	CHECK(nldev_attr_get(a, n, "explicit") == -1);
	CHECK(nldev_attr_get(a, n, "odp_pages_faulted") == -1);

	/* more attributes than room: counted, only max written */
	n = nldev_parse_driver_table(buf, used, a, 1);
	CHECK(n == 3);
	CHECK(nldev_attr_get(a, 1, "odp_mapped_pages") == 5);

	/* cut in the middle of the last attribute: that one is not read */
	n = nldev_parse_driver_table(buf, used - 2, a, 8);
	CHECK(n == 2);
	CHECK(nldev_attr_get(a, n, "small") == -1);
	/* an attribute whose length runs past the buffer stops the walk */
	((struct nlattr *)buf)->nla_len = 2000;
	CHECK(nldev_parse_driver_table(buf, used, a, 8) == 0);
	CHECK(nldev_parse_driver_table(buf, 0, a, 8) == 0);

	/* no such device: an error with a reason, nothing else */
	r = nldev_mr_attrs("no-such-rdma-dev", 0x1234, a, 8, err, sizeof(err));
	printf("nldev_mr_attrs(no-such-rdma-dev): %d: %s\n", r, err);
	CHECK(r == -2);
	CHECK(err[0] != 0);
	return unit_result("odp-selftest unit");
}
