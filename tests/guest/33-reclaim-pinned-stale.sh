#!/bin/bash
# reclaim-verify, the staleness demonstration: with pinned MRs, MADV_DONTNEED
# and munmap + mmap(MAP_FIXED) at the same address leave the NIC reading and
# writing the old pages while the process sees new ones.  The tool must detect
# those stale blocks (and nothing it cannot explain).  Then fork with pinned
# MRs: reported as it is (since 5.8 fork copies pinned pages for the child).
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

for k in dontneed remap; do
	rv_run "pinned-$k" --pinned -r "$k" -d 8 || fail "pinned $k run failed"
	rv_check "pinned-$k" 'd["stale_blocks"] > 0' "pinned + $k: stale blocks detected"
	rv_check "pinned-$k" 'd["corrupt_blocks"] == 0 and d["unexplained"] == 0' "every mismatch is explained staleness"
	rv_check "pinned-$k" 'd["vmstat"]["nr_foll_pin_acquired"] > 0' "the MRs really were pinned"
	echo "pinned + $k: $(rv_get "pinned-$k" 'd["stale_blocks"]') stale blocks of $(rv_get "pinned-$k" 'd["blocks_verified"]')"
done

rv_run pinned-fork --pinned -r fork -d 8 || fail "pinned fork run failed"
rv_check pinned-fork 'd["corrupt_blocks"] == 0 and d["events"]["fork"]["events"] > 0' "pinned + fork: no corruption, forks happened"
echo "pinned + fork: $(rv_get pinned-fork 'd["stale_blocks"]') stale blocks of $(rv_get pinned-fork 'd["blocks_verified"]') (fork copies pinned pages for the child)"
echo "33-reclaim-pinned-stale: ok"
