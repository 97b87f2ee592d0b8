#!/bin/bash
# The flake hunt's record across runs: one table, per test, of every round in
# the logs given, which are the outputs of `tests/check.sh` (a `make check`,
# `.ci/run` or `tests/check.sh --repeat N [--load]` run; each PASS/FAIL/SKIP/
# VOID line is one run of one test).
#
# usage: tests/hunt-table.sh [--label L] LOG [[--label L] LOG ...]
#
# Prints per test: runs, failures, skips, voids (a void run is not counted as
# a run: check.sh ran the test once more), the slowest and the median time,
# and in which logs (their labels, default the file names) it failed.  Then
# per log: its label and its count of results, passed and failed.
# Exit status 0 when no test failed in any log, 1 otherwise, 2 on a usage
# error (no log, or a log without a single result line).
set -uo pipefail

usage() { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; }

labels=() logs=() label=
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--label) label=${2:?--label needs a value}; shift 2 ;;
	-*) echo "hunt-table: unknown option $1" >&2; exit 2 ;;
	*)
		[ -r "$1" ] || { echo "hunt-table: cannot read $1" >&2; exit 2; }
		grep -aqE '^(PASS|FAIL|SKIP|VOID)  ' "$1" ||
			{ echo "hunt-table: $1 has no result line of tests/check.sh" >&2; exit 2; }
		logs+=("$1") labels+=("${label:-$(basename "$1")}") label=
		shift ;;
	esac
done
[ ${#logs[@]} -gt 0 ] || { usage >&2; exit 2; }

for i in "${!logs[@]}"; do
	grep -aE '^(PASS|FAIL|SKIP|VOID)  ' "${logs[$i]}" | sed "s|^|${labels[$i]//|/_}\t|"
done | awk -F'\t' '
{
	label = $1; split($2, f, " +"); st = f[1]; name = f[2]; secs = f[3]; sub(/s$/, "", secs)
	if (!(name in runs)) order[++n] = name
	if (st == "VOID") { voids[name]++; runs[name] += 0; next }
	runs[name]++; t[name, runs[name]] = secs + 0
	if (st == "FAIL") { fails[name]++; where[name] = where[name] (where[name] ? ", " : "") label; bad = 1 }
	if (st == "SKIP") skips[name]++
	if (!(label in per)) lorder[++m] = label
	per[label]++; if (st == "PASS") lpass[label]++; if (st == "FAIL") lfail[label]++
}
function median(name,   k, a, i, j, x) {
	k = runs[name]; if (!k) return "-"
	for (i = 1; i <= k; i++) a[i] = t[name, i]
	for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return k % 2 ? a[(k + 1) / 2] "s" : (a[k / 2] + a[k / 2 + 1]) / 2 "s"
}
function slowest(name,   k, i, s) {
	k = runs[name]; if (!k) return "-"
	for (i = 1; i <= k; i++) if (t[name, i] > s) s = t[name, i]
	return s "s"
}
END {
	printf "%-40s %5s %5s %5s %5s %8s %8s  %s\n", "test", "runs", "fail", "skip", "void", "slowest", "median", "failed in"
	for (i = 1; i <= n; i++) {
		x = order[i]
		printf "%-40s %5d %5d %5d %5d %8s %8s  %s\n", x, runs[x], fails[x], skips[x], voids[x], slowest(x), median(x), where[x]
	}
	printf "\n%-36s %7s %7s %7s\n", "log", "results", "passed", "failed"
	for (i = 1; i <= m; i++) printf "%-36s %7d %7d %7d\n", lorder[i], per[lorder[i]], lpass[lorder[i]], lfail[lorder[i]]
	exit bad
}'
