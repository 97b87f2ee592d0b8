#!/bin/bash
# make demo: reclaim-verify in the 6.12 guest on our rdma_rxe, first with ODP
# memory regions inside a cgroup whose memory.max is below the working set
# (zram swap), then with pinned MRs, and a one-screen comparison.
# Builds nothing ('make demo' builds first).
#
#   DEMO_SECS=N      seconds of traffic per run (default 20)
#   DEMO_ARGS="..."  extra reclaim-verify options for both runs (e.g. "-q 8 -b 16K")
#
# Inside the guest: tests/demo.sh --guest (reads $VMOUT/demo.env).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --guest ]; then
	# shellcheck disable=SC1091
	source "$VMOUT/demo.env"
	source "$TOP/userspace/reclaim-verify/guest-env.sh"
	rv_guest_setup || { echo "demo: guest setup failed"; exit 1; }
	# automatic NUMA balancing stays on (hinting faults also reach the driver)
	echo 1 >/proc/sys/kernel/numa_balancing 2>/dev/null
	# shellcheck disable=SC2086
	reclaim-verify --addr "$RV_ADDR" -d "$DEMO_SECS" --progress 5 $DEMO_ARGS \
		--json-file /tmp/odp.json >/tmp/odp.txt 2>/tmp/odp.err
	echo "demo: ODP run exit $?"
	# Pinned pages cannot be reclaimed, so the pinned run goes without the
	# cgroup limit (under it the OOM killer kills the process; the tool refuses).
	# shellcheck disable=SC2086
	reclaim-verify --addr "$RV_ADDR" --pinned -r pageout,dontneed,remap,mprotect,fork,thp,compact \
		-d "$DEMO_SECS" --progress 5 $DEMO_ARGS \
		--json-file /tmp/pinned.json >/tmp/pinned.txt 2>/tmp/pinned.err
	echo "demo: pinned run exit $?"
	# results go to the host share only now: no file I/O during the runs
	cp /tmp/odp.* /tmp/pinned.* "$VMOUT/"
	exit 0
fi

OUT=$TOP/build/demo
# shellcheck source=lib/demo.sh
source "$TOP/tests/lib/demo.sh"
demo_start demo "$OUT"
echo "demo: booting the 6.12 guest with our rdma_rxe: ODP run, then pinned run, ${DEMO_SECS} s each (about $((DEMO_SECS * 2 + 60)) s)..."
"$TOP/tests/vm/run" -q -m 2G --append numa=fake=2 --out "$OUT" --log "$OUT/console.log" \
	-- bash "$TOP/tests/demo.sh" --guest >"$OUT/vm.log" 2>&1
vmrc=$?
demo_report "$OUT" "$vmrc" 1 "$OUT/vm.log" odp.txt odp.err pinned.txt pinned.err
