/*
 * counters: the kernel's counters the tools read to see what happened,
 * /proc/vmstat and an RDMA device's hw_counters (where rxe-odp's odp_*
 * counters are).  Built into each tool that lists it in LIB (../common.mk);
 * it uses nldev, which common.mk then builds in too.
 */
#ifndef RXE_ODP_COUNTERS_H
#define RXE_ODP_COUNTERS_H

#include <stdint.h>

/* The number a sysfs/procfs file starts with (a counter, a module
 * parameter), or -1 if it cannot be read. */
long long file_number(const char *path);

/* Fold every CPU's pending vmstat deltas into /proc/vmstat
 * (/proc/sys/vm/stat_refresh; root only, else nothing): without it a
 * counter shows an event only after vmstat's periodic fold, about a second
 * later, so a pin made just before a "before" reading shows up in the
 * "after" one. */
void vmstat_fold(void);

/* The /proc/vmstat counters names[0..n-1] in one reading, folded first
 * (vmstat_fold()): vals[i] is the value, or -1 if the kernel has no such
 * counter (e.g. thp_* without THP).  Returns 0, or -1 if /proc/vmstat
 * cannot be read (every vals[i] is then -1). */
int vmstat_read(const char *const names[], long long vals[], unsigned int n);

/* The /proc/vmstat counter name, folded first (vmstat_fold()), or -1 if it
 * cannot be read. */
long long vmstat(const char *name);

/* The /proc/meminfo field name (e.g. "Slab", "VmallocUsed") in KiB, or -1
 * if it cannot be read. */
long long meminfo_kib(const char *name);

/* The hw counters names[0..n-1] of port on RDMA device dev in one reading:
 * vals[i] is the value, or -1 if it cannot be read (another driver, an
 * older rxe).  Fresh: read over RDMA netlink (nldev_hw_counters(), the
 * driver is asked each time), never from sysfs's hw_counters files, which
 * ib_core serves from a snapshot up to "lifespan" ms old, and in jiffies,
 * which in a TCG guest can lag the clock.  Only if netlink fails (no
 * NETLINK_RDMA, an old kernel) are they read from
 * /sys/class/infiniband/DEV/ports/PORT/hw_counters/NAME, after waiting out
 * that snapshot's lifespan (+5 ms) as the tools used to, which is a timing
 * assumption.  A name netlink does not report (the "lifespan" file) is
 * read from sysfs as well.  Returns 1 if netlink answered, 0 if the values
 * are sysfs's, -1 if none of them could be read. */
int hw_counters_read(const char *dev, unsigned int port, const char *const names[],
		     long long vals[], unsigned int n);

/* The hw counter name of port on RDMA device dev, or -1 if it cannot be
 * read: hw_counters_read() of one name (fresh, over netlink; sysfs only
 * if netlink fails). */
long long hw_counter_read(const char *dev, unsigned int port, const char *name);

/* The driver attribute name ("rdma resource show mr -dd" prints it as
 * drv_NAME) of the MR with lkey on RDMA device dev, e.g. rxe-odp's
 * odp_mapped_pages or odp_pages_prefetched; -1 if there is no such MR or
 * attribute.  Read fresh on each call (restrack is not cached). */
long long mr_driver_attr(const char *dev, uint32_t lkey, const char *name);

#endif
