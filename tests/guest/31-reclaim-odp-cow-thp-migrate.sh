#!/bin/bash
# reclaim-verify, ODP MRs: fork() with the child writing every page (COW),
# THP collapse (MADV_COLLAPSE) and split (debugfs split_huge_pages), and
# page migration (move_pages to the other node of a fake-NUMA guest, plus
# /proc/sys/vm/compact_memory), each concurrent with RDMA traffic: 0 stale,
# 0 corrupt (no fork child's byte may reach the parent), nothing pinned,
# events hit MRs with transfers in flight, and the kernel really did it.
# vm-args: -m 2G --append numa=fake=2
source "$TOP/tests/lib/guest.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || fail "guest setup (rxe0 on a dummy netdev, zram swap)"
[ -e /sys/devices/system/node/node1 ] || fail "numa=fake=2 gave no second node"
# Migration here is explicit (move_pages, compaction) and automatic: NUMA
# balancing is on, so its hinting faults also hit the driver's hmm_range_fault
# (they once soft-locked the rxe worker; fixed by a cond_resched between retries).
echo 1 >/proc/sys/kernel/numa_balancing

rv_odp_case fork \
	'd["fork_child_pages"] > 0 and d["classes"]["fork-child-data"] == 0' "children wrote every page; none of it reached the parent"
rv_odp_case thp \
	'd["thp"]["collapse_ok"] > 0 and d["thp"]["split_ok"] > 0' "huge pages were collapsed and split under traffic"
rv_odp_case compact \
	'd["migrated_pages"] > 0 and d["compactions"] > 0' "pages were migrated between nodes and memory compacted" \
	'd["vmstat"]["pgmigrate_success"] > 0' "the kernel counted the migrations"
echo "31-reclaim-odp-cow-thp-migrate: ok"
