#!/bin/bash
# reclaim-verify, ODP MRs, inside a cgroup v2 whose memory.max is below the
# working set (zram swap): the kernel swaps the live buffers out and rxe
# faults them back in (RNR NAK / local retry when a fault fails for a while):
# 0 stale, 0 corrupt, no error completion, nothing pinned, the driver dropped
# translations, the traffic came back to slots the NIC had used that the limit
# had swapped out (--min-events waits for two), pages went to swap and came
# back, no OOM kill.  And a setup refused after the cgroup was made removes it
# again.  Swap counts zero-filled pages (slots not written yet) in
# swpout_zero/swpin_zero only, never in pswpout/pswpin (6.12's zeromap): a
# slow run can move only those.
# Every kind at once is tests/guest/35-reclaim-odp-all-kinds (and make demo).
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

RV_CASE_OPTS="-d 12 --min-events 2" rv_odp_case cgroup "${RV_CGROUP_CHECKS[@]}"

# A setup that fails must not leave its cgroup behind (issue 16): pinned MRs
# cannot live under a memory.max below the working set, and are refused.
rc=0
reclaim-verify --addr "$RV_ADDR" --pinned --reclaim cgroup --duration 1 \
	>/tmp/rv-cgroup-refused.log 2>&1 || rc=$?
cat /tmp/rv-cgroup-refused.log
[ "$rc" = 2 ] || fail "pinned MRs with the cgroup kind: exit $rc, expected 2 (refused at setup)"
grep -q "pinned MRs keep all" /tmp/rv-cgroup-refused.log ||
	fail "pinned MRs with the cgroup kind: refused for another reason"
left=$(find /sys/fs/cgroup -maxdepth 1 -name 'reclaim-verify.*' -type d)
[ -z "$left" ] || fail "a refused setup left its cgroup behind: $left"
echo "34-reclaim-odp-cgroup: ok"
