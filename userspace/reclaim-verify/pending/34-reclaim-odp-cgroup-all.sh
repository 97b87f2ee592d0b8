#!/bin/bash
# PENDING (move to tests/guest/ when kernel/KNOWN-ISSUES.md 1 is fixed):
# reclaim-verify, ODP MRs, in a cgroup whose memory.max is below the working
# set, then every reclaim kind at once: 0 stale, 0 corrupt, no error
# completion, nothing pinned, every kind hit MRs with transfers in flight.
# On main @78d735b it fails: transient ODP fault failures under memory
# pressure kill QPs (#3) and an atomic result can be lost (#5).
# vm-args: -m 2G --append numa=fake=2
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

rv_run cgroup -r cgroup -d 12 || fail "cgroup run failed"
rv_check_odp cgroup cgroup
rv_check cgroup 'd["events"]["cgroup"]["memory_max"] < d["events"]["cgroup"]["working_set"]' "memory.max is below the working set"
rv_check cgroup 'd["vmstat"]["pswpout"] > 0 and d["events"]["cgroup"]["oom_kill"] == 0' "the limit swapped pages out, no OOM kill"

rv_run all -d 20 || fail "all-kinds run failed"
for k in pageout dontneed remap mprotect fork thp compact cgroup; do
	rv_check_odp all "$k"
done
echo "34-reclaim-odp-cgroup-all: ok"
