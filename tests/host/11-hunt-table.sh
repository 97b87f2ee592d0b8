#!/bin/bash
# tests/hunt-table.sh, the flake hunt's table across check.sh logs, on
# synthetic logs: runs, failures, skips and voids per test, slowest and
# median time, which log a failure was in, and its exit status.
source "$TOP/tests/lib/host.sh"
H=$TOP/tests/hunt-table.sh
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '%s\n' 'rxe-odp check: ...' \
	'PASS  guest/00-smoke                             30s' \
	'PASS  guest/20-odp-selftest                     80s' \
	'SKIP  guest/28-ucx-odp                          16s  (no ucx)' \
	'59 passed, 0 failed, 0 skipped' >"$d/a.log"
printf '%s\n' 'PASS  guest/00-smoke                             50s' \
	'VOID  guest/20-odp-selftest                    900s  the guest clock jumped' \
	'FAIL  guest/20-odp-selftest                    120s  rc=1' >"$d/b.log"
printf '%s\n' 'PASS  guest/00-smoke                             10s' >"$d/c.log"
out=$("$H" --label "round one" "$d/a.log" --label loaded "$d/b.log" "$d/c.log")
rc=$?
echo "$out"
[ "$rc" = 1 ] || fail "a log with a FAIL line: exit $rc, not 1"
row() { grep -E "^$1 " <<<"$out" | tr -s ' '; }
[ "$(row guest/00-smoke)" = "guest/00-smoke 3 0 0 0 50s 30s " ] || fail "smoke: '$(row guest/00-smoke)'"
[ "$(row guest/20-odp-selftest)" = "guest/20-odp-selftest 2 1 0 1 120s 100s loaded" ] ||
	fail "selftest (the void run not counted, the failure in 'loaded'): '$(row guest/20-odp-selftest)'"
[ "$(row guest/28-ucx-odp)" = "guest/28-ucx-odp 1 0 1 0 16s 16s " ] || fail "ucx: '$(row guest/28-ucx-odp)'"
grep -qE '^round one +3 +2 +0$' <<<"$out" || fail "per-log line of 'round one'"
grep -qE '^c.log +1 +1 +0$' <<<"$out" || fail "per-log line labelled by file name"
"$H" "$d/a.log" "$d/c.log" >/dev/null || fail "logs without a failure: exit $?, not 0"
: >"$d/empty.log"
"$H" "$d/empty.log" >/dev/null 2>&1
[ $? = 2 ] || fail "a log without result lines is not refused (exit 2)"
"$H" >/dev/null 2>&1
[ $? = 2 ] || fail "no log given is not refused (exit 2)"
echo "hunt table: ok"
