/*
 * nldev: what the tools read from the kernel's RDMA netlink interface
 * (NETLINK_RDMA), no rdma process started:
 *   - an MR's driver attributes (RDMA_NLDEV_CMD_RES_MR_GET), the same
 *     records "rdma resource show mr -dd" prints as drv_NAME.  rxe-odp puts
 *     its per-MR counters there (odp_mapped_pages, odp_faults, ...).  One
 *     dump of the device's MRs per call; the kernel only shows an MR's lkey
 *     to CAP_NET_ADMIN, so this needs root.
 *   - a port's hw counters (RDMA_NLDEV_CMD_STAT_GET, what "rdma statistic
 *     show link DEV/PORT" prints), where rxe-odp's device-wide odp_*
 *     counters are.  Unlike sysfs's hw_counters files, which ib_core
 *     serves from a snapshot kept "lifespan" (10 ms for rxe) in jiffies,
 *     the kernel asks the driver on every request: the values are current.
 *     No privilege needed.
 * Built into each tool that lists it in LIB (../common.mk).
 */
#ifndef RXE_ODP_NLDEV_H
#define RXE_ODP_NLDEV_H

#include <stddef.h>
#include <stdint.h>

/* One numeric driver attribute of an MR (string attributes are skipped),
 * or one hw counter of a port. */
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

/* All hw counters of port on RDMA device dev, read fresh from the driver
 * in one request, up to max of them into out.  Returns how many there are
 * (may be more than max), or -1 on an error (no such device or port, a
 * malformed reply, ...); err, if not NULL, then says why in errlen bytes.
 * There is no "lifespan" among them: that is a sysfs file, not a counter. */
int nldev_hw_counters(const char *dev, unsigned int port, struct nldev_attr *out, int max,
		      char *err, size_t errlen);

/* Parse one RDMA_NLDEV_CMD_STAT_GET reply (the attributes after its
 * netlink header, len bytes): the counters of its RDMA_NLDEV_ATTR_STAT_-
 * HWCOUNTERS table, nested ..._HWCOUNTER_ENTRY attributes each holding a
 * ..._ENTRY_NAME string and an 8-byte ..._ENTRY_VALUE, into out (up to
 * max).  Returns how many there are (may be more than max; an entry whose
 * name does not fit out->name is left out), or -1 if the reply has no such
 * table or any attribute of it is cut short or malformed: then nothing it
 * says is to be trusted.  Exposed for the unit test. */
int nldev_parse_stat_reply(const void *attrs, size_t len, struct nldev_attr *out, int max);

#endif
