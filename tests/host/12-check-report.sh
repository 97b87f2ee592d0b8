#!/bin/bash
# tests/check.sh's report of a failed test, on a synthetic tree: the test's
# own verdict (its last "FAIL: " line) on the FAIL line and in the "failed:"
# summary at the end, the lines a shortened copy of CI's output keeps (the
# middle of a failure's excerpt can be cut: issue 18, CI of 3474282); a test
# that gives no reason keeps the bare exit status; tests/hunt-table.sh still
# reads the FAIL line.
source "$TOP/tests/lib/host.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/tests/host" "$d/scripts"
cp -r "$TOP/tests/lib" "$d/tests/"
cp "$TOP/tests/check.sh" "$TOP/tests/hunt-table.sh" "$d/tests/"
cp "$TOP/scripts/kver.sh" "$d/scripts/"
printf '%s\n' '#!/bin/bash' 'source "$TOP/tests/lib/common.sh"' 'echo "FAIL: not this one"' \
	'echo some output' 'fail "the widget is 3, expected 4"' >"$d/tests/host/01-reason.sh"
printf '%s\n' '#!/bin/bash' 'echo no verdict' 'exit 3' >"$d/tests/host/02-no-reason.sh"
printf '%s\n' '#!/bin/bash' 'exit 0' >"$d/tests/host/03-pass.sh"
out=$(KVER=$KVER "$d/tests/check.sh" --host-only 2>&1)
rc=$?
echo "$out"
[ "$rc" = 1 ] || fail "two failed tests: exit $rc, not 1"
grep -qE '^FAIL  host/01-reason +[0-9]+s  rc=1: the widget is 3, expected 4$' <<<"$out" ||
	fail "the FAIL line does not carry the test's last FAIL: line"
grep -qE '^FAIL  host/02-no-reason +[0-9]+s  rc=3$' <<<"$out" ||
	fail "a test without a FAIL: line: its FAIL line is not the bare exit status"
grep -qF "failed: host/01-reason (rc 1: the widget is 3, expected 4; log $d/build/check/host_01-reason.log)" <<<"$out" ||
	fail "the summary's failed: line does not carry the reason"
grep -qF "failed: host/02-no-reason (rc 3; log " <<<"$out" || fail "the summary's failed: line of 02"
grep -q '^1 passed, 2 failed, 0 skipped$' <<<"$out" || fail "the count line"
echo "$out" >"$d/check.log"
"$d/tests/hunt-table.sh" "$d/check.log" | grep -qE '^host/01-reason +1 +1 ' ||
	fail "hunt-table.sh does not count the FAIL line with a reason"
echo "check-report: ok"
