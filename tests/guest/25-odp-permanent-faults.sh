#!/bin/bash
# A fault that can never succeed fails the access within seconds; only
# memory pressure gets RNR NAK / local retry (issue 12, item 1).
# odp-selftest's perm_* cases (userspace/odp-selftest/perm.c), each on fresh
# QP pairs with rnr_retry 7, each access bounded at 10 s: an ODP MR over a
# memfd truncated under remote WRITE/READ/atomic and under local SGEs (and a
# receive buffer), its pinned control, a MADV_HWPOISON'd page, PROT_NONE and
# write-only pages, a punched hole that must read zeros, the last page below
# EOF zapped in a loop under traffic (a failed fault-ahead is not the
# access's failure), and transient failures injected with odp_fail_faults on
# the same MR. Every case checks
# the completion status, the time to it, both QPs' states and the
# odp_fault_errors / odp_rnr_naks / odp_fault_retries counters.
# Poisoning a page makes the kernel print KERN_ERR "Memory failure: ..."
# lines; they are not kernel reports (tests/vm/run's gate ignores them),
# and the guest must survive them.
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"

command -v odp-selftest >/dev/null || fail "odp-selftest not built (make)"
param=/sys/module/rdma_rxe/parameters/odp_fail_faults
[ -w "$param" ] || fail "rdma_rxe has no odp_fail_faults parameter: not our ODP module?"

odp-selftest -d rxe0 -g "$RXE_GID" -t 120 'perm_*' | tee /tmp/perm.tap
rc=${PIPESTATUS[0]}
grep -q '^# odp-selftest: ' /tmp/perm.tap || fail "odp-selftest did not finish (rc $rc)"
# Here (root, Debian's CONFIG_MEMORY_FAILURE=y, our module) every case runs.
if grep -q '^skip ' /tmp/perm.tap; then
	grep '^skip ' /tmp/perm.tap
	fail "a permanent-fault case was skipped"
fi
[ "$rc" = 0 ] || fail "odp-selftest perm_* failed: $(awk '/^not ok / { printf " %s", $4 }' /tmp/perm.tap)"
[ "$(cat "$param")" = 0 ] || fail "odp_fail_faults left armed: $(cat "$param")"
# The poison was real: the memory-failure handler ran on the page.
dmesg | grep -E 'Memory failure|memory failure' || fail "no memory-failure message: MADV_HWPOISON did nothing?"
echo "odp-permanent-faults: ok"
