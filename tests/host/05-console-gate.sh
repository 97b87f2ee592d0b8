#!/bin/bash
# The console gate of tests/vm/run (tests/vm/console-gate) on sample lines:
# the first line of every kind of kernel report (KASAN, KFENCE, lockdep's
# headers, UBSAN, DEBUG_VM, ODEBUG, list corruption, sleeping in atomic,
# hung task, lockups, RCU stalls, faults, panics) fails a run when it carries
# a printk timestamp, also after half a line of the job's own output; the
# same words printed by a test without one do not; nor do the benign lines
# clean boots print.  Every pattern of the gate is exercised by some sample.
# Real guests: tests/host/06-* and 07-*.
source "$TOP/tests/lib/host.sh"
source "$TOP/tests/lib/planted.sh"
gate=$TOP/tests/vm/console-gate
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bad=0
n=0
for s in "${PLANT_SAMPLES[@]}"; do
	n=$((n + 1))
	printf '[   %d.123456] %s\n' "$n" "$s" >"$log"
	"$gate" "$log" >/dev/null && { echo "NOT FLAGGED: $s"; bad=1; }
	printf 'job output, half a line[ %4d.000001] %s\n' "$n" "$s" >"$log"
	"$gate" "$log" >/dev/null && { echo "NOT FLAGGED after half a line of output: $s"; bad=1; }
	printf '%s\n' "$s" >"$log"
	"$gate" "$log" >/dev/null || { echo "FLAGGED without a timestamp: $s"; bad=1; }
done
for s in "${PLANT_BENIGN[@]}"; do
	printf '[    1.000000] %s\n' "$s" >"$log"
	"$gate" "$log" >/dev/null || { echo "FLAGGED (benign): $s"; bad=1; }
done
while read -r p; do
	printf '%s\n' "${PLANT_SAMPLES[@]}" | grep -qE "$p" || { echo "no sample exercises the pattern /$p/"; bad=1; }
done < <("$gate" --patterns)
"$gate" /nonexistent >/dev/null 2>&1
[ $? = 2 ] || { echo "a missing log is not a usage error"; bad=1; }
# --context: the first report, from a few lines before it, with its trace
{
	printf 'job line %d\n' 1 2 3 4 5 6 7
	printf '[    2.000000] ------------[ cut here ]------------\n'
	printf '[    2.000001] WARNING: CPU: 0 PID: 1 at first\n'
	printf '[    2.000002] trace line %d\n' 1 2 3
	printf '[    3.000000] WARNING: CPU: 0 PID: 1 at second\n'
} >"$log"
ctx=$("$gate" --context 2 "$log")
[ $? = 1 ] || { echo "--context: a report does not exit 1"; bad=1; }
want=$(printf 'job line %d\n' 4 5 6 7
	printf '[    2.000000] ------------[ cut here ]------------\n'
	printf '[    2.000001] WARNING: CPU: 0 PID: 1 at first\n'
	printf '[    2.000002] trace line %d\n' 1 2)
[ "$ctx" = "$want" ] || { printf -- '--context 2 printed:\n%s\n' "$ctx"; bad=1; }
printf 'clean\n' >"$log"
[ -z "$("$gate" --context 9 "$log")" ] || { echo "--context printed lines of a clean log"; bad=1; }
[ "$bad" = 0 ] || fail "the console gate misjudged the lines above"
echo "console gate: ${#PLANT_SAMPLES[@]} kinds of report flagged (with a timestamp, also mid-line), not flagged without one; ${#PLANT_BENIGN[@]} benign lines pass; $("$gate" --patterns | wc -l) patterns all exercised"
