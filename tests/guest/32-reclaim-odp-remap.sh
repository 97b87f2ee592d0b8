#!/bin/bash
# reclaim-verify, ODP MRs: munmap + mmap(MAP_FIXED_NOREPLACE) of idle slots at
# the same address while their neighbours carry traffic: 0 stale, 0 corrupt,
# no error completion, nothing pinned, remaps hit MRs with transfers in
# flight and the NIC used the remapped slots again afterwards.
# vm-args: -m 2G
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"

rv_odp_case remap \
	'd["events"]["remap"]["reaccessed"] > 0' "remapped slots were used by the NIC again afterwards"
echo "32-reclaim-odp-remap: ok"
