#!/bin/bash
# reclaim-verify, ODP MRs: swap-out (MADV_PAGEOUT), page drops (MADV_DONTNEED)
# and write-protection (mprotect), each concurrent with RDMA WRITE/READ/SEND/
# atomic traffic.  Every run must verify its blocks with 0 stale and 0 corrupt,
# pin nothing, and its events must have hit MRs with transfers in flight (and,
# for drops, slots the NIC used again afterwards); pageout must really swap.
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

rv_odp_case pageout \
	'd["vmstat"]["pswpout"] > 0 and d["vmstat"]["pswpin"] > 0' "pages really went to swap and came back" \
	'd["hw_counters"]["odp_pages_invalidated"] > 0' "swap-out invalidated ODP pages"
rv_odp_case dontneed \
	'd["events"]["dontneed"]["reaccessed"] > 0' "dropped slots were used by the NIC again afterwards"
rv_odp_case mprotect

echo "30-reclaim-odp-pages: ok"
