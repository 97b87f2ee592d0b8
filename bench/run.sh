#!/bin/bash
# make bench: the full benchmark, pinned vs ODP and ODP page aging on vs off, in
# ONE boot of the 6.12 guest.
#
# usage: bench/run.sh [--smoke] [-m MEM] [--steps "perftest reg ..."]
#
# Runs bench/guest.sh in the guest (tests/vm/run, -m 6G by default so a 4 GiB
# MR can be pinned), collects raw.csv/meta.txt/logs in build/bench/<name>/ and
# writes bench/results/<name>.md, .csv, -raw.csv and .png with bench/report.py,
# where <name> = <UTC date>-<git sha>.  Takes about 30-45 minutes under TCG
# (the aging step alone: 3-5 minutes on a lightly loaded host; the young step
# about as long).
# --smoke: tiny sizes, one run each (what tests/guest/90-bench-smoke.sh does).
# --steps: only these steps, in this order (default all: perftest steady reg
#          pass batch inval pressure aging young); the name gets "-<steps>" appended
#          (e.g. --steps aging -> <name>-aging) and the report says it is partial.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
MEM=6G SMOKE= STEPS=
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) SMOKE=--smoke; shift ;;
	-m) MEM=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
sha=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
git -C "$TOP" diff --quiet HEAD -- 2>/dev/null || sha=$sha-dirty
name=$(date -u +%Y-%m-%d)-$sha
[ -n "$STEPS" ] && name=$name-$(echo $STEPS | tr ' ' +)
[ -n "$SMOKE" ] && name=$name-smoke
raw=$TOP/build/bench/$name
rm -rf "$raw"
mkdir -p "$raw" "$TOP/bench/results"
echo "bench: raw data in $raw" >&2
t0=$(date +%s)
load0=$(cut -d' ' -f1 /proc/loadavg)
BENCH_STEPS=$STEPS "$TOP/tests/vm/run" -q -m "$MEM" --timeout 3300 --out "$raw" \
	--log "$raw/console.log" -- env BENCH_STEPS="$STEPS" bash "$TOP/bench/guest.sh" $SMOKE /vmout
rc=$?
echo "bench: guest finished rc=$rc after $(($(date +%s) - t0))s (console: $raw/console.log)" >&2
[ -s "$raw/raw.csv" ] || { echo "bench: no results came back" >&2; exit 1; }
{
	echo "host_load_start=$load0"
	echo "host_load_end=$(cut -d' ' -f1 /proc/loadavg)"
	echo "host_console_log=$raw/console.log"
	echo "guest_rc=$rc"
} >>"$raw/meta.txt"
out=$TOP/bench/results/$name
[ -n "$SMOKE" ] && out=$raw/report
python3 "$TOP/bench/report.py" "$raw" "$out" --title "rxe-odp bench $name" || rc=1
echo "bench: report $out.md" >&2
exit "$rc"
