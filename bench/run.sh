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
#          pass batch prefetch inval pressure aging young pair); the name gets "-<steps>" appended
#          (e.g. --steps aging -> <name>-aging) and the report says it is partial.
# The step 'pair' needs two guests: it runs after the one-guest steps, through
# tests/vm/pair (guest a: our rdma_rxe, the perftest server, pinned vs --odp,
# without and with a memory limit; guest b: the client, BENCH_PAIR_B = ours
# (default) or stock), bench/pair-guest.sh in both; its rows join the same
# raw.csv and report (about 10 minutes; BENCH_PAIR_RUNS=N pairs per case, default 5).
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
# the one-guest steps in one boot, then the two-guest step
all="perftest steady reg pass batch prefetch inval pressure aging young pair"
gsteps=$(echo " ${STEPS:-$all} " | sed 's/ pair / /g' | xargs)
rc=0
if [ -n "$gsteps" ]; then
	BENCH_STEPS=$gsteps "$TOP/tests/vm/run" -q -m "$MEM" --timeout 3300 --out "$raw" \
		--log "$raw/console.log" -- env BENCH_STEPS="$gsteps" bash "$TOP/bench/guest.sh" $SMOKE /vmout
	rc=$?
	echo "bench: guest finished rc=$rc after $(($(date +%s) - t0))s (console: $raw/console.log)" >&2
fi
: >>"$raw/raw.csv"
if [[ " ${STEPS:-$all} " = *" pair "* ]]; then
	t1=$(date +%s)
	penv="BENCH_PAIR_RUNS=${BENCH_PAIR_RUNS:-5}"
	[ -n "$SMOKE" ] && penv="BENCH_PAIR_RUNS=1 BENCH_PAIR_DUR=1 BENCH_PAIR_PROGS=ib_write_bw"
	for v in BENCH_PAIR_DUR BENCH_PAIR_SIZE BENCH_PAIR_PROGS BENCH_PAIR_MAX BENCH_PAIR_HOG BENCH_PAIR_CONDS; do
		[ -n "${!v:-}" ] && penv="$penv $v=$(printf %q "${!v}")"
	done
	"$TOP/tests/vm/pair" -q --a ours --b "${BENCH_PAIR_B:-ours}" --timeout 2400 --logdir "$raw/pair" \
		--cmd-a "env $penv bash bench/pair-guest.sh" --cmd-b "env $penv bash bench/pair-guest.sh" \
		>"$raw/pair.log" 2>&1
	prc=$?
	echo "bench: pair finished rc=$prc after $(($(date +%s) - t1))s (consoles: $raw/pair/a.console b.console)" >&2
	[ "$prc" = 0 ] || rc=$prc
	cat "$raw/pair/a.console" "$raw/pair/b.console" 2>/dev/null | tr -d '\r' |
		sed -n 's/^BENCHROW \(pair,[^ ]*\)$/\1/p' >>"$raw/raw.csv"
	{
		tr -d '\r' <"$raw/pair/a.console" | sed -n 's/^BENCHMETA //p'
		echo "secs_pair=$(($(date +%s) - t1))"
		echo "pair_rc=$prc"
		# the steps run, as the report knows them (the guest's line, if any, says fewer)
		echo "steps=${STEPS:-$all}"
		[ -n "$gsteps" ] || echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >>"$raw/meta.txt"
fi
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
