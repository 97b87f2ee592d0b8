#!/bin/bash
# What make demo (tests/demo.sh, one guest) and make demo2 (tests/demo2.sh,
# two guests on one link) share, on the host: the settings, and the
# one-screen comparison of the ODP run against the pinned one
# (tests/lib/demo-report.py).

# demo_start NAME OUT: the build is there (else exit 2), OUT is new and empty,
# then demo_settings OUT.
demo_start() {
	if [ ! -x "$TOP/build/bin/reclaim-verify" ] || [ ! -e "$TOP/build/rxe/rdma_rxe.ko" ]; then
		echo "$1: build first (make)"
		exit 2
	fi
	rm -rf "$2"
	mkdir -p "$2"
	demo_settings "$2"
}

# demo_settings: DEMO_SECS (seconds of traffic per run, default 20) and
# DEMO_ARGS (extra reclaim-verify options) from the environment, written to
# OUT/demo.env for the guest side.
demo_settings() {
	DEMO_SECS=${DEMO_SECS:-20}
	DEMO_ARGS=${DEMO_ARGS:-}
	printf 'DEMO_SECS=%q\nDEMO_ARGS=%q\n' "$DEMO_SECS" "$DEMO_ARGS" >"$1/demo.env"
}

# demo_report OUT VMRC HOSTS LOG FILE...: the comparison of OUT/odp.json and
# OUT/pinned.json, with the demo's exit status; when either report is
# missing, say so with the tail of LOG (the guest run's) and of the FILEs in
# OUT that exist, and return 1.
demo_report() {
	local out=$1 vmrc=$2 hosts=$3 log=$4 f
	shift 4
	if [ ! -s "$out/odp.json" ] || [ ! -s "$out/pinned.json" ]; then
		echo "demo: the guest run did not produce both reports (vm/${DEMO_RUNNER:-run} exit $vmrc)"
		tail -20 "$log"
		for f in "$@"; do
			[ -s "$out/$f" ] && { echo "--- $f"; tail -15 "$out/$f"; }
		done
		return 1
	fi
	/usr/bin/python3 "$TOP/tests/lib/demo-report.py" "$out" "$vmrc" "$DEMO_SECS" "$DEMO_ARGS" "$hosts"
}
