#!/bin/bash
# debug-kernel:
# Prefetch of ODP MRs (the advise_mr verb, issue 13), through uverbs' ioctl()
# ABI since rdma-core 44's librxe has no advise_mr: odp-selftest's prefetch_*
# cases. Sync PREFETCH/PREFETCH_WRITE map the whole range (per-MR
# odp_mapped_pages/odp_pages_prefetched, device odp_pages_prefetched) and the
# next RDMA access faults nothing; a read prefetch maps read-only;
# PREFETCH_NO_FAULT maps exactly the present pages and faults nothing in;
# PREFETCH_WRITE breaks COW (MAP_PRIVATE file, fork); an async prefetch
# completes; prefetches racing munmap and dereg, and a process exiting with
# prefetches queued, are safe and leak nothing; every error case answers the
# errno mlx5 gives. Then the module is unloaded, which drains the prefetch
# workqueue.
source "$TOP/tests/lib/guest.sh"

command -v odp-selftest >/dev/null || fail "odp-selftest not built (make)"
[ -e /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_pages_prefetched ] ||
	fail "rxe0 has no odp_pages_prefetched counter: not our module with prefetch?"

odp-selftest -d rxe0 -g "$RXE_GID" 'prefetch_*' | tee /tmp/pf.tap
rc=${PIPESTATUS[0]}
grep -q '^# odp-selftest: ' /tmp/pf.tap || fail "odp-selftest did not finish (rc $rc)"
[ "$rc" = 0 ] || fail "odp-selftest prefetch_* failed"
if grep '^skip' /tmp/pf.tap; then
	fail "prefetch cases skipped on our module"
fi
echo "device odp_pages_prefetched: $(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_pages_prefetched)"

# Async prefetches may still be queued (the races queue many): unloading
# must wait for them (destroy_workqueue) without a kernel report.
{ rdma link delete rxe0 && rmmod rdma_rxe; } || fail "cannot unload rdma_rxe after the prefetch tests"
echo "odp-prefetch: ok"
