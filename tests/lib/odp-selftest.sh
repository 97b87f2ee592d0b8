#!/bin/bash
# Judging an odp-selftest run (sourced after guest.sh), shared by
# tests/guest/20-odp-selftest.sh and 52-userspace-sanitizers.sh.

# ost_judge TAP RC WHAT: fail unless odp-selftest (exit status RC, output in
# TAP) finished and every failed case is listed as pending a kernel fix in
# tests/lib/odp-selftest-pending.txt (by test name without the fixture); those
# are reported as PENDING, and a pending case that passed is reported so its
# line can go.  WHAT names the run in the messages.
ost_judge() {
	local tap=$1 rc=$2 what=$3 t why bad=""
	local pending=$TOP/tests/lib/odp-selftest-pending.txt
	grep -q '^# odp-selftest: ' "$tap" || fail "odp-selftest did not finish (rc $rc)"
	echo "===== odp-selftest $what: $(tail -1 "$tap" | sed 's/^# odp-selftest: //')"
	for t in $(awk '/^not ok / { sub(/^odp[.]/, "", $4); print $4 }' "$tap"); do
		why=$(awk -F' [|] ' -v t="$t" '$1 == t { print $2 }' "$pending")
		if [ -n "$why" ]; then
			echo "PENDING KERNEL FIX (fails as expected): $t: $why"
		else
			echo "FAILED: $t"
			bad="$bad $t"
		fi
	done
	for t in $(grep -v '^#' "$pending" | awk -F' [|] ' 'NF > 1 { print $1 }'); do
		grep -q "^ok [0-9]* odp[.]$t\$" "$tap" && echo "PENDING case now PASSES (remove it from $pending): $t"
	done
	[ "$rc" = 0 ] || [ -n "$bad" ] || grep -q '^not ok ' "$tap" ||
		fail "odp-selftest exited $rc without a failed case"
	[ -z "$bad" ] || fail "odp-selftest $what failed:$bad"
}
