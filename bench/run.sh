#!/bin/bash
# make bench: the full benchmark, pinned vs ODP and ODP page aging on vs off, in
# ONE boot of the 6.12 guest.
#
# usage: bench/run.sh [--smoke] [-m MEM] [--steps "perftest reg ..."] [--force-verdict]
#
# Runs bench/guest.sh in the guest (tests/vm/run, -m 6G by default so a 4 GiB
# MR can be pinned), collects raw.csv/meta.txt/logs in build/bench/<name>/ and
# writes bench/results/<name>.md, .csv, -raw.csv and .png with bench/report.py,
# where <name> = <UTC date>-<git sha>.  Every ODP-vs-pinned figure is the
# median of interleaved pairs (20 per case where a pair takes seconds; fewer
# for the long ones: see bench/guest.sh) with its 95 % interval, and the goals
# are judged on the interval.  The pressure step runs ODP under memory.max =
# 50 % and 25 % of its working set, each in pairs with an unlimited ODP run
# (throughput ratio, swap-ins/outs per run, corrupt bytes), and pinned once
# per limit (OOM-killed as root, refused under RLIMIT_MEMLOCK).  Takes about
# 67 minutes in the guest on an idle host (perftest about 30 of them, at 20
# pairs; ptsides, ODP on one side only, about 12, at 20 triples; young about
# 6, faultcost and agingpt about 4 each), then about 10 for the pair step:
# 77 minutes in all on 2026-12-06 (the per-step costs in bench/guest.sh come
# from that run).  Progress: "step i of n: NAME, elapsed T, about
# R left" on stderr at every step (the estimate: each step's expected time
# under TCG, scaled by the pace of the steps so far).
# Host load: /proc/loadavg before and after, and every BENCH_LOAD_INTERVAL
# seconds (default 10) the CPU time of other processes than the bench's own
# (bench/hostload.py, into build/bench/<name>/hostload.csv).  When the host was
# too busy (1-min load > 1.5 before the start, or others using > 0.5 CPU on
# average during the run; see bench/report.py) the report writes "host too
# busy for a verdict" instead of met / not met.
# --force-verdict (or BENCH_FORCE_VERDICT=1, e.g. make bench
#          BENCH_FORCE_VERDICT=1): verdicts even on a busy host (marked forced).
# --smoke: tiny sizes, one run each (what tests/guest/90-bench-smoke.sh does).
# --steps: only these steps, in this order (default all: perftest ptsides steady reg
#          chunk pass batch faultcost prefetch inval pressure aging agingpt young pair); the name gets "-<steps>" appended
#          (e.g. --steps aging -> <name>-aging) and the report says it is partial.
# The step 'pair' needs two guests: it runs after the one-guest steps, through
# tests/vm/pair (guest a: our rdma_rxe, the perftest server, pinned vs --odp,
# without and with a memory limit; guest b: the client, BENCH_PAIR_B = ours
# (default) or stock), bench/pair-guest.sh in both; its rows join the same
# raw.csv and report (about 10 minutes; BENCH_PAIR_RUNS=N pairs per case, default 6,
# the fewest that give a 95 % interval: a pair of two-guest runs takes about 17 s).
# BENCH_TIMEOUT: the one-guest boot's limit in seconds (default 7200).  The
# guest's BENCH_* settings (bench/guest.sh: BENCH_PT_RUNS, BENCH_STEADY_REPS,
# ...) are passed on from this environment.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
MEM=6G SMOKE= STEPS= FORCE=${BENCH_FORCE_VERDICT:-}
[ "$FORCE" = 0 ] && FORCE=
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) SMOKE=--smoke; shift ;;
	--force-verdict) FORCE=1; shift ;;
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
loadavg0=$(cat /proc/loadavg)
# the host's load while the bench runs: bench/hostload.py samples it until this
# script exits (or is ended below)
python3 "$TOP/bench/hostload.py" $$ "$raw/hostload.csv" "${BENCH_LOAD_INTERVAL:-10}" &
hlpid=$!
# the one-guest steps in one boot, then the two-guest step
all="perftest ptsides steady reg chunk pass batch faultcost prefetch inval pressure aging agingpt young pair"
gsteps=$(echo " ${STEPS:-$all} " | sed 's/ pair / /g' | xargs)
total=$(wc -w <<<"${STEPS:-$all}")
pair_runs=${BENCH_PAIR_RUNS:-6}
[ -n "$SMOKE" ] && pair_runs=1
# the pair step's expected time: 3 programs x 2 conditions x 2 modes per pair,
# about 8 s a run under TCG (the two guests in lockstep, -D 2), plus the boots
# (608 s for 6 pairs on the idle host of 2026-12-06)
pair_secs=0
if [[ " ${STEPS:-$all} " = *" pair "* ]]; then
	pair_secs=$((pair_runs * 12 * 8 + 30))
	[ -n "$SMOKE" ] && pair_secs=120
fi
mmss() { printf "%dm%02ds" $(($1 / 60)) $(($1 % 60)); }
rc=0
if [ -n "$gsteps" ]; then
	# the guest's progress lines, from its console as they come
	(
		seen=0
		while sleep 2; do
			n=$(grep -ac '^bench: \(step \|[0-9]* steps\)' "$raw/console.log" 2>/dev/null)
			[ "${n:-0}" -gt "$seen" ] || continue
			grep -a '^bench: \(step \|[0-9]* steps\)' "$raw/console.log" | tail -n +$((seen + 1)) |
				head -n $((n - seen)) | tr -d '\r' >&2
			seen=$n
		done
	) &
	follow=$!
	# the guest does not inherit this environment: pass on the BENCH_* settings
	# bench/guest.sh reads (BENCH_PT_RUNS, BENCH_STEADY_REPS, ...)
	genv=()
	for v in $(compgen -v BENCH_); do
		case $v in BENCH_STEPS | BENCH_STEP_TOTAL | BENCH_AFTER_SECS | BENCH_PAIR_* | BENCH_TIMEOUT | \
			BENCH_LOAD_INTERVAL | BENCH_FORCE_VERDICT) continue ;; esac
		genv+=("$v=${!v}")
	done
	"$TOP/tests/vm/run" -q -m "$MEM" --timeout "${BENCH_TIMEOUT:-7200}" --out "$raw" \
		--log "$raw/console.log" -- env "${genv[@]}" BENCH_STEPS="$gsteps" BENCH_STEP_TOTAL="$total" \
		BENCH_AFTER_SECS="$pair_secs" bash "$TOP/bench/guest.sh" $SMOKE /vmout
	rc=$?
	sleep 2 # the last lines
	kill "$follow" 2>/dev/null
	wait "$follow" 2>/dev/null
	echo "bench: guest finished rc=$rc after $(($(date +%s) - t0))s (console: $raw/console.log)" >&2
fi
: >>"$raw/raw.csv"
if [[ " ${STEPS:-$all} " = *" pair "* ]]; then
	t1=$(date +%s)
	el=$((t1 - t0))
	echo "bench: step $total of $total: pair, elapsed $(mmss "$el"), about $(mmss "$pair_secs") left" \
		"(its expected time)" >&2
	penv="BENCH_PAIR_RUNS=$pair_runs"
	[ -n "$SMOKE" ] && penv="BENCH_PAIR_RUNS=1 BENCH_PAIR_DUR=1 BENCH_PAIR_PROGS=ib_write_bw"
	for v in BENCH_PAIR_DUR BENCH_PAIR_SIZE BENCH_PAIR_PROGS BENCH_PAIR_MAX BENCH_PAIR_HOG BENCH_PAIR_CONDS; do
		[ -n "${!v:-}" ] && penv="$penv $v=$(printf %q "${!v}")"
	done
	"$TOP/tests/vm/pair" -q --a ours --b "${BENCH_PAIR_B:-ours}" --timeout $((pair_secs * 3 > 2400 ? pair_secs * 3 : 2400)) --logdir "$raw/pair" \
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
kill "$hlpid" 2>/dev/null
wait "$hlpid" 2>/dev/null
[ -s "$raw/raw.csv" ] || { echo "bench: no results came back" >&2; exit 1; }
{
	echo "host_load_start=${loadavg0%% *}"
	echo "host_loadavg_start=$loadavg0"
	echo "host_load_end=$(cut -d' ' -f1 /proc/loadavg)"
	echo "host_loadavg_end=$(cat /proc/loadavg)"
	echo "host_load_interval=${BENCH_LOAD_INTERVAL:-10}"
	echo "host_cpus=$(nproc)"
	echo "host_console_log=$raw/console.log"
	echo "secs_wall=$(($(date +%s) - t0))"
	echo "force_verdict=${FORCE:-0}"
	echo "guest_rc=$rc"
} >>"$raw/meta.txt"
out=$TOP/bench/results/$name
[ -n "$SMOKE" ] && out=$raw/report
python3 "$TOP/bench/report.py" "$raw" "$out" --title "rxe-odp bench $name" ${FORCE:+--force-verdict} || rc=1
echo "bench: report $out.md" >&2
exit "$rc"
