#!/bin/bash
# reclaim-verify, ODP MRs, every reclaim kind at once inside a cgroup whose
# memory.max is below the working set: 0 stale, 0 corrupt, no error
# completion, nothing pinned, every kind hit MRs with transfers in flight.
# Each kind alone gates in tests/guest/30-34.  It waited in
# userspace/reclaim-verify/pending/ (kernel/KNOWN-ISSUES.md 1) until it had
# passed 20 runs in a row under host load on each kernel (tests/README.md).
# vm-args: -m 2G --append numa=fake=2
# On the debug kernel, 147 s idle and 415-658 s in loaded hunt rounds: a
# bound for hangs twice the default 900 s.
# debug-kernel: --timeout 1800
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

# 20 s, or longer until every kind has hit an MR with transfers in flight
# (on a loaded host one fork alone took 27 s): bounded at 200 s
rv_run all -d 20 --min-events 1 --max-duration 200 || fail "all-kinds run failed"
for k in pageout dontneed remap mprotect fork thp compact cgroup; do
	rv_check_odp all "$k"
done
echo "35-reclaim-odp-all-kinds: ok"
