#!/bin/bash
# Sourced in the guest by reclaim-verify's tests and by tests/demo.sh.
#
# rv_guest_setup: rdma_cm cannot use an rxe device on 'lo' (it only binds
# RoCE GIDs of ARPHRD_ETHER netdevs, and treats 127.0.0.0/8 as "any device,
# no netdev"), so move rxe0 onto a dummy Ethernet device with its own address
# (rxe loops packets to its own address back internally), and give the guest
# zram swap so pageout and the cgroup limit have somewhere to put pages.
# Sets RV_ADDR.
rv_guest_setup() {
	# link-local (the project never uses private or public ranges), and apart
	# from tests/vm/pair's 169.254.77.x link
	RV_ADDR=169.254.99.1
	export RV_ADDR
	# the tail of the IPv4-mapped GID rxe0 gets for it: a9fe:6301
	local gid_tail
	gid_tail=$(printf '%02x%02x:%02x%02x' ${RV_ADDR//./ })
	if ! ip -4 addr show dev rv0 2>/dev/null | grep -q "$RV_ADDR"; then
		rdma link delete rxe0 2>/dev/null
		ip link add rv0 type dummy || return 1
		ip link set rv0 mtu 9000 up || return 1
		ip addr add "$RV_ADDR/24" dev rv0 || return 1
		rdma link add rxe0 type rxe netdev rv0 || return 1
		local i
		for i in $(seq 300); do
			grep -q "$gid_tail" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null && break
			sleep 0.1
		done
		# rdma_cm resolves $RV_ADDR through this GID: without it every run fails
		grep -q "$gid_tail" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null ||
			{ echo "rv_guest_setup: rxe0 has no GID for $RV_ADDR after 30 s"; return 1; }
	fi
	if ! grep -q zram /proc/swaps; then
		modprobe zram || return 1
		local dev
		dev=$(zramctl --find --size 1G) || return 1
		mkswap "$dev" >/dev/null || return 1
		swapon "$dev" || return 1
	fi
	return 0
}

# rv_run LABEL ARGS...: run reclaim-verify on $RV_ADDR; the text report goes to
# stdout, the JSON to /tmp/rv-LABEL.json.  Returns the tool's exit status.
rv_run() {
	local label=$1
	shift
	echo "== reclaim-verify $* ($label)"
	timeout 600 reclaim-verify --addr "$RV_ADDR" --progress 5 --json-file "/tmp/rv-$label.json" "$@" 2>&1
	local rc=$?
	echo "== exit status $rc"
	return $rc
}

# rv_get LABEL PYEXPR: evaluate PYEXPR on the run's JSON report (as 'd').
rv_get() {
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"/tmp/rv-$1.json" "$2"
}

# rv_check LABEL PYEXPR WHAT: fail the test unless PYEXPR is true for LABEL's report.
rv_check() {
	local v
	v=$(rv_get "$1" "$2") || { echo "FAIL: $1: no report to check '$3'"; exit 1; }
	if [ "$v" != True ]; then
		echo "FAIL: $1: $3   [$2]"
		exit 1
	fi
	echo "ok: $1: $3"
}

# rv_check_odp LABEL KIND: the assertions every ODP reclaim run must meet:
# it passed, moved and verified data, found no stale or corrupt block, had no
# error completion, pinned nothing, the driver faulted and invalidated, and
# events of KIND fired while transfers were in flight on the MR they hit.
rv_check_odp() {
	local l=$1 k=$2
	rv_check "$l" 'd["pass"]' "the tool's verdict is PASS"
	rv_check "$l" 'd["blocks_verified"] >= 100' "at least 100 blocks verified byte by byte"
	rv_check "$l" 'd["stale_blocks"] == 0 and d["corrupt_blocks"] == 0 and d["unexplained"] == 0' "0 stale, 0 corrupt blocks"
	rv_check "$l" 'd["atomics_ok"] > 0 and d["atomics_bad"] == 0 and d["final_counters_bad"] == 0' "atomics computed right"
	rv_check "$l" 'not d["error_completions"]' "no error completions"
	rv_check "$l" 'd["vmstat"]["nr_foll_pin_acquired"] == 0' "ODP registration and traffic pinned no page"
	rv_check "$l" 'd["hw_counters"].get("odp_faults", 0) > 0' "the driver faulted pages in (odp_faults)"
	rv_check "$l" 'd["hw_counters"].get("odp_invalidations", 0) > 0' "the driver saw invalidations (odp_invalidations)"
	rv_check "$l" "d['events']['$k']['events'] > 0 and d['events']['$k']['in_flight'] > 0" "$k events fired while transfers were in flight on the MR they hit"
}

# The checks of a cgroup case (rv_odp_case cgroup "${RV_CGROUP_CHECKS[@]}", with
# --min-events so that the traffic comes round to slots the limit took): what
# the limit guarantees is that the kernel reclaims the cgroup's memory, not
# which pages; with the buffers nearly all of it, anonymous pages go to swap.
# A zero-filled page (a slot the traffic has not written yet) goes and comes
# back without I/O, counted in swpout_zero/swpin_zero only (6.12's swap
# zeromap): a run that moved only those has pswpout 0 and pswpin 0 and major
# faults all the same.  Evidence that the ODP buffers were reclaimed: slots
# the NIC had used found swapped out when it came to use them again (mincore;
# their translations were invalidated on the way out), and the driver dropped
# translated pages.
# shellcheck disable=SC2034 # used by the tests that source this file
RV_CGROUP_CHECKS=(
	'd["events"]["cgroup"]["memory_max"] < d["events"]["cgroup"]["working_set"]' "memory.max is below the working set"
	'd["events"]["cgroup"]["reaccessed"] > 0' "the NIC came back to slots it had used that the limit had swapped out"
	'd["hw_counters"]["odp_pages_invalidated"] > 0' "the driver dropped translated pages"
	'd["vmstat"]["pswpout"] + d["vmstat"]["swpout_zero"] > 0 and d["vmstat"]["pswpin"] + d["vmstat"]["swpin_zero"] > 0' "pages went to swap and came back (zero-filled ones included)"
	'd["events"]["cgroup"]["oom_kill"] == 0' "no OOM kill"
)

# rv_odp_case KIND [PYEXPR WHAT]...: one ODP reclaim case of the guest tests:
# reclaim-verify -r KIND $RV_CASE_OPTS (report labelled KIND), every
# assertion of rv_check_odp, then each PYEXPR on the report (rv_check, WHAT
# says what it proves).  Exits the test with FAIL on the first assertion that
# does not hold.  RV_CASE_OPTS (default "-d 12") are more options of the run.
rv_odp_case() {
	local k=$1
	shift
	if [ $(($# % 2)) != 0 ]; then
		echo "FAIL: rv_odp_case $k: a PYEXPR without its WHAT"
		exit 1
	fi
	# shellcheck disable=SC2086 # options, split on purpose
	rv_run "$k" -r "$k" ${RV_CASE_OPTS:--d 12} || { echo "FAIL: $k run failed"; exit 1; }
	rv_check_odp "$k" "$k"
	while [ $# -gt 0 ]; do
		rv_check "$k" "$1" "$2"
		shift 2
	done
}
