/*
 * nldev: an MR's driver attributes, read from the kernel's RDMA netlink
 * interface (NETLINK_RDMA, RDMA_NLDEV_CMD_RES_MR_GET), the same records
 * "rdma resource show mr -dd" prints as drv_NAME.  rxe-odp puts its per-MR
 * counters there (odp_mapped_pages, odp_faults, odp_pages_faulted, ...).
 * One dump of the device's MRs per call, no rdma process started; the
 * kernel only shows an MR's lkey to CAP_NET_ADMIN, so this needs root.
 * Built into each tool that lists it in LIB (../common.mk).
 */
#ifndef RXE_ODP_NLDEV_H
#define RXE_ODP_NLDEV_H

#include <stddef.h>
#include <stdint.h>

/* One numeric driver attribute of an MR (string attributes are skipped). */
struct nldev_attr {
	char name[48];
	uint64_t value;
};

/* The numeric driver attributes of the MR with lkey on RDMA device dev,
 * up to max of them into out.  Returns how many there are (may be more
 * than max; 0 for an MR without any), -1 if dev has no MR with that
 * lkey, -2 on a netlink error (no such device, not root, ...).  err, if
 * not NULL, says why in errlen bytes. */
int nldev_mr_attrs(const char *dev, uint32_t lkey, struct nldev_attr *out, int max, char *err,
		   size_t errlen);

/* The value of attribute name in the n attributes at a, or -1 if absent. */
long long nldev_attr_get(const struct nldev_attr *a, int n, const char *name);

/* Parse one RDMA_NLDEV_ATTR_DRIVER table (the payload of that nested
 * attribute, len bytes) into out (up to max): name/value pairs, a string
 * RDMA_NLDEV_ATTR_DRIVER_STRING naming each value that follows.  Returns
 * the number of numeric attributes seen.  Exposed for the unit test. */
int nldev_parse_driver_table(const void *payload, size_t len, struct nldev_attr *out, int max);

#endif
