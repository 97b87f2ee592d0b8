#!/bin/bash
# reclaim-verify, ODP MRs, inside a cgroup v2 whose memory.max is below the
# working set (zram swap): the kernel swaps the live buffers out and rxe
# faults them back in (RNR NAK / local retry when a fault fails for a while):
# 0 stale, 0 corrupt, no error completion, nothing pinned, the limit hit MRs
# with transfers in flight, pages really went to swap, no OOM kill.
# Every kind at once is userspace/reclaim-verify/pending/35-… (and make demo).
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

rv_odp_case cgroup \
	'd["events"]["cgroup"]["memory_max"] < d["events"]["cgroup"]["working_set"]' "memory.max is below the working set" \
	'd["vmstat"]["pswpout"] > 0 and d["events"]["cgroup"]["oom_kill"] == 0' "the limit swapped pages out, no OOM kill"
echo "34-reclaim-odp-cgroup: ok"
