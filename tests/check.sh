#!/bin/bash
# Run the test suite: host tests (tests/host/*.sh), then guest tests
# (tests/guest/*.sh, each in its own boot of the 6.12 guest via tests/vm/run).
#
# usage: tests/check.sh [--host-only|--guest-only] [NAME-PATTERN...]
#
# A test passes with exit 0, is skipped with exit 77 (it prints "SKIP: reason"),
# and fails otherwise; a guest test also fails when the guest console shows
# kernel trouble.  A guest test may carry a line "# vm-args: ..." with options
# for tests/vm/run (e.g. --rxe stock, -m 3G).  Logs: build/check/<test>.log.
# The last line is "N passed, N failed, N skipped"; the exit status is non-zero
# if anything failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
KVER=${KVER:-$("$TOP/scripts/kver.sh")}
export KVER
LOGS=$TOP/build/check
mkdir -p "$LOGS"
host=1 guest=1
pats=()
for a in "$@"; do
	case "$a" in
	--host-only) guest=0 ;;
	--guest-only) host=0 ;;
	*) pats+=("$a") ;;
	esac
done

pass=0 fail=0 skip=0
failed=() skipped=()
selected() {
	local p
	[ ${#pats[@]} -eq 0 ] && return 0
	for p in "${pats[@]}"; do
		case "$1" in *$p*) return 0 ;; esac
	done
	return 1
}

record() { # name rc seconds log
	local name=$1 rc=$2 secs=$3 log=$4 why
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-40s %4ss\n' "$name" "$secs"
	elif [ "$rc" = 77 ]; then
		skip=$((skip + 1))
		why=$(grep -a '^SKIP: ' "$log" | tail -1 | cut -c7-)
		why=${why:-no reason given}
		skipped+=("$name: $why")
		printf 'SKIP  %-40s %4ss  (%s)\n' "$name" "$secs" "$why"
	else
		fail=$((fail + 1))
		failed+=("$name (rc $rc, log $log)")
		printf 'FAIL  %-40s %4ss  rc=%s\n' "$name" "$secs" "$rc"
		echo "----- last lines of $log"
		tail -25 "$log" | sed 's/^/  | /'
		echo "-----"
	fi
}

run_host() {
	local t name log t0 rc
	for t in "$TOP"/tests/host/*.sh; do
		[ -e "$t" ] || continue
		name=host/$(basename "$t" .sh)
		selected "$name" || continue
		log=$LOGS/${name//\//_}.log
		t0=$(date +%s)
		(cd "$TOP" && bash "$t") >"$log" 2>&1 </dev/null
		rc=$?
		record "$name" "$rc" $(($(date +%s) - t0)) "$log"
	done
}

run_guest() {
	local t name log t0 rc args
	for t in "$TOP"/tests/guest/*.sh; do
		[ -e "$t" ] || continue
		name=guest/$(basename "$t" .sh)
		selected "$name" || continue
		log=$LOGS/${name//\//_}.log
		args=$(sed -n 's/^# vm-args: //p' "$t" | head -1)
		t0=$(date +%s)
		# shellcheck disable=SC2086
		"$TOP/tests/vm/run" -q $args --log "$log.console" "$t" >"$log" 2>&1 </dev/null
		rc=$?
		cat "$log.console" >>"$log" 2>/dev/null
		record "$name" "$rc" $(($(date +%s) - t0)) "$log"
	done
}

echo "rxe-odp check: kernel $KVER, module $(modinfo -F version "$TOP/build/rxe/rdma_rxe.ko" 2>/dev/null)"
[ "$host" = 1 ] && run_host
[ "$guest" = 1 ] && run_guest
echo
for s in "${skipped[@]}"; do echo "skipped: $s"; done
for f in "${failed[@]}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
