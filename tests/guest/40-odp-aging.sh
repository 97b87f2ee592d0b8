#!/bin/bash
# debug-kernel:
# Page aging for ODP MRs changes what reclaim takes (MGLRU, Debian's default,
# which asks the young question through clear_young). Two ODP buffers of
# 16 MiB: A is written without pause by RDMA WRITEs (loopback RC QP pair, the
# CPU never touches it after setup), B is registered and idle. aging-probe runs
# in a memory cgroup with zram swap and applies memory.reclaim rounds, first
# with rdma_rxe's odp_aging off, then on (same boot, fresh buffers per mode).
# Passes only if, with aging on, rxe answered young callbacks, A stayed
# resident while B was reclaimed, and rxe faulted at least 10x fewer pages of A
# back in (and swap-ins were 10x fewer) than with aging off, where reclaim
# must have hit A for the comparison to mean anything.
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/odp-aging.sh"

aging_setup
[ "$(cat /sys/kernel/mm/lru_gen/enabled)" != 0x0000 ] || skip "MGLRU is off in this kernel"
aging_run_and_check
echo "odp aging (MGLRU): ok"
