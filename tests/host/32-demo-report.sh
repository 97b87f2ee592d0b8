#!/bin/bash
# The comparison of make demo and make demo2 (tests/lib/demo-report.py) on
# reports of a real make demo2 run (tests/host/data/demo2-*.json): it passes
# only when ODP kept every byte, pinned showed staleness and the guest run(s)
# ended 0; each condition broken in turn must fail it.  No guest needed.
source "$TOP/tests/lib/host.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
R=$TOP/tests/lib/demo-report.py
# case NAME WANT_RC VMRC HOSTS PYEXPR: the report on the fixtures, PYEXPR
# applied to (o, p) = the ODP and the pinned report first
case_() {
	local name=$1 want=$2 vmrc=$3 hosts=$4 expr=$5 out rc
	/usr/bin/python3 - "$TOP/tests/host/data" "$d" "$expr" <<'PY' || fail "$name: fixture"
import json, sys
src, dst, expr = sys.argv[1:4]
o = json.load(open(src + "/demo2-odp.json")); p = json.load(open(src + "/demo2-pinned.json"))
exec(expr)
json.dump(o, open(dst + "/odp.json", "w")); json.dump(p, open(dst + "/pinned.json", "w"))
PY
	out=$(/usr/bin/python3 "$R" "$d" "$vmrc" 20 "" "$hosts" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || { echo "$out"; fail "$name: exit $rc, want $want"; }
	echo "$name: exit $rc"
	LAST=$out
}
case_ "demo2 reports as they are" 0 0 2 "pass"
grep -q 'rdma_rxe (guest a' <<<"$LAST" && grep -q 'stale, as pinned must be' <<<"$LAST" ||
	{ echo "$LAST"; fail "the two-host header or the pinned verdict is missing"; }
case_ "one-host layout" 0 0 1 "pass"
grep -q '^rxe-odp demo: reclaim-verify on rxe0' <<<"$LAST" || { echo "$LAST"; fail "the one-host header is missing"; }
case_ "ODP stale block" 1 0 2 "o['stale_blocks'] = 1"
grep -q 'ODP run FAILED' <<<"$LAST" || fail "an ODP stale block is not reported as a failure"
case_ "ODP corrupt block" 1 0 2 "o['corrupt_blocks'] = 1"
case_ "ODP verdict FAIL" 1 0 1 "o['pass'] = False"
case_ "pinned shows no staleness" 1 0 2 "p['stale_blocks'] = 0"
grep -q 'no staleness shown' <<<"$LAST" || fail "pinned without staleness is not reported"
case_ "kernel report on a console" 1 126 2 "pass"
grep -q 'WARNING: the pair run ended with status 126' <<<"$LAST" || fail "no warning for status 126"
echo "demo report: ok"
