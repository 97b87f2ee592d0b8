#!/bin/bash
# Print the modules the guest tests load on Debian's production kernel (the
# union of lsmod after every test in tests/guest/ and
# userspace/reclaim-verify/pending/), one per line, for comparison with
# scripts/debug-kernel/modules.  Each test runs once in its own guest boot
# (about 20 minutes in all); a test's own result does not matter here.
# usage: scripts/debug-kernel/record-modules.sh [NAME-PATTERN]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "$top"/tests/guest/*.sh "$top"/userspace/reclaim-verify/pending/*.sh; do
	[ -e "$t" ] || continue
	case "$(basename "$t")" in *${1:-}*) ;; *) continue ;; esac
	args=$(sed -n 's/^# vm-args: //p' "$t" | head -1)
	# shellcheck disable=SC2086
	"$top/tests/vm/run" -q $args --log "$tmp/console" -- \
		bash -c 'bash "$0"; echo LSMOD_BEGIN; lsmod; echo LSMOD_END' "$t" >/dev/null 2>&1
	sed -n '/^LSMOD_BEGIN/,/^LSMOD_END/p' "$tmp/console" | awk 'NR > 2 && $1 != "LSMOD_END" { print $1 }' |
		tee -a "$tmp/all" | sort | tr '\n' ' ' | sed "s|^|$(basename "$t"): |" >&2
	echo >&2
done
sort -u "$tmp/all" | grep -vx rdma_rxe
