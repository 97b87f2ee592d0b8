#!/bin/bash
# Profiles (perf, in the guest) of the ODP paths the bench reports on, to say
# what limits a goal that is missed.  Run it in a guest:
#   tests/vm/run -m 3G --out DIR -- bash bench/profile.sh /vmout [CASE...]
# Writes DIR/<case>.txt (perf report, flat by symbol, >= 1 %) and
# DIR/<case>-graph.txt (callers of the hottest symbols), plus DIR/<case>.csv
# (the odp-bench rows of the profiled run).  CASEs (default: all but perftest):
#   reg     ODP registrations + deregistrations of 1 GiB (process context)
#   cold    cold + warm RDMA WRITE passes into a fresh ODP MR (system-wide:
#           the faults run in the rxe_wq worker)
#   steady  alternating passes over a warm pinned and a warm ODP MR (system-wide)
#   inval   MADV_DONTNEED of 4 KiB pages, with and without an ODP MR
#   atomic  odp-bench steady --atomic (pinned and ODP passes interleaved, a
#           fetch-and-add every PROFILE_ATOMIC_CHUNKS: "4K 64K"; system-wide);
#           DIR/atomic-share.txt: the share of all samples in ODP's own code
#           and in the responder's atomic, pinned and ODP
#   perftest  ib_send_bw 64 KiB and ib_write_bw 4 KiB (or PROFILE_PT_RUNS="PROG
#           SIZE ITERATIONS,..."), pinned then --odp
#           (system-wide, both sides in this guest); DIR/perftest-share.txt
#           gives, per run, the share of all samples in ODP's own code (see
#           ODP_SYMS) and in the copy of either kind of MR: issue 15's
#           "ODP functions < 2 % of samples"; and rxe's workers' samples
#           per 1000 packets with their hottest symbols (<case>-worker.txt):
#           what a loopback perftest's bandwidth follows.
#   faultcost  fault-cost (64 MiB, odp_fault_ahead 128), zero-fill and swap-in
#           from zram (system-wide); bench/fault-split.py splits the samples
#           into the kernel's populate and rxe's fault service and gives each
#           category (zeroing, allocation, walks, locks, ...) in us per page,
#           driver minus kernel: DIR/faultcost-<kind>-split.txt.  Issue 15
#           item 3: what the driver's fault costs beyond the kernel's own.
#   sched   no perf record: perftest pairs (pinned and --odp back to back,
#           which goes first alternating; PROFILE_SCHED_RUNS="PROG SIZE,...",
#           PROFILE_SCHED_PAIRS, -D PROFILE_SCHED_DUR s as in the bench), the
#           guest-wide counters sampled every 0.1 s during each run
#           (DIR/sched/*.txt); bench/sched-sum.py takes, over the run's data
#           phase only (the samples between which packets flowed), where the
#           two vCPUs went per packet: user, system, softirq and idle time,
#           run-queue waits, context switches; and compares the modes pair
#           by pair (DIR/sched.csv, DIR/sched.txt).  What a gap that no
#           profile of the workers shows is made of: work, waiting, or the
#           scheduler.  PROFILE_SCHED_MODES="pinned pinned-again" runs the
#           control: two identical runs per pair.
#   wake    the same pairs, each run traced by ftrace for PROFILE_WAKE_REC s
#           (1) of its data phase: the scheduler's switches and wake-ups and
#           the workqueue's queue/start/end of rxe's tasks (DIR/wake/*.gz);
#           bench/wake-sum.py gives per packet how often each rxe task went
#           idle and was queued again, by whom, how long a wake-up waited
#           for a vCPU, who preempted whom, and the vCPUs each side held,
#           and compares the modes pair by pair (DIR/wake.csv, DIR/wake.txt):
#           how the scheduler shares the vCPUs, where sched says only that
#           it does so differently.
set -uo pipefail
OUT=${1:?usage: bench/profile.sh OUTDIR [reg|cold|steady|inval|atomic|perftest|faultcost|sched|wake ...]}
shift
CASES=${*:-reg cold steady inval}
export TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
mkdir -p "$OUT"
# Kernel symbols for perf: Debian restricts kernel pointers by default.
sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
# perf.data stays on the guest's tmpfs: writing it through 9p slows the
# recording down enough to miss a short run's start.
DATA=$(mktemp -d)
cp /proc/kallsyms "$DATA/kallsyms"
rep() {
	perf report -i "$DATA/$1.data" --kallsyms "$DATA/kallsyms" --stdio --no-children \
		--sort dso,sym --percent-limit 1 -g none 2>/dev/null | grep -v '^$' | head -60 >"$OUT/$1.txt"
	perf report -i "$DATA/$1.data" --kallsyms "$DATA/kallsyms" --stdio --no-children \
		--sort sym --percent-limit 4 -g caller,1,callee 2>/dev/null | grep -v '^$' | head -300 >"$OUT/$1-graph.txt"
	echo "== $1" && head -40 "$OUT/$1.txt"
}

# ODP's own code: rxe's ODP files and what they call only for ODP (the
# core's umem_odp, HMM's fault, the interval notifier).
ODP_SYMS='^(rxe_odp_|ib_umem_odp_|hmm_|mmu_interval_|rxe_mr_odp)'
# share TAG PACKETS: the percentages of all samples of run TAG that are in
# ODP_SYMS (self), and in the copy of each kind of MR with what it calls
# (children: rxe_mr_copy for pinned MRs, rxe_odp_mr_copy for ODP ones); then
# rxe's workers alone (the kworker threads: rxe's work runs there, and a
# loopback perftest is bound by it, not by the polling processes): their
# samples per 1000 packets of the run, their share in ODP_SYMS, and their
# hottest symbols (DIR/TAG-worker.txt).
# odp_self TAG: the percentage of all samples of run TAG in ODP_SYMS (self)
odp_self() {
	perf report -i "$DATA/$1.data" --kallsyms "$DATA/kallsyms" --stdio --no-children \
		--sort sym --percent-limit 0 -g none 2>/dev/null |
		awk -v re="$ODP_SYMS" '$1 ~ /%$/ && $3 ~ re { s += $1 } END { printf "%.2f", s }'
}
# with_callees TAG SYM...: "SYM PERCENT " for each SYM with samples in run
# TAG, its percentage of all samples counting what it calls (children)
with_callees() {
	local tag=$1
	shift
	perf report -i "$DATA/$tag.data" --kallsyms "$DATA/kallsyms" --stdio --children \
		--sort sym --percent-limit 0 -g none 2>/dev/null |
		awk -v syms=" $* " '$1 ~ /%$/ && index(syms, " " $4 " ") { printf "%s %s ", $4, $1 }'
}
share() {
	local self children
	self=$(odp_self "$1")
	children=$(with_callees "$1" rxe_mr_copy rxe_odp_mr_copy)
	perf report -i "$DATA/$1.data" --kallsyms "$DATA/kallsyms" --stdio --no-children -n \
		--sort comm,sym --percent-limit 0 -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $3 ~ /^kworker/ { n[$5] += $2; t += $2 }
			END { for (s in n) printf "%d %.2f%% %s\n", n[s], 100 * n[s] / t, s }' |
		sort -rn >"$OUT/$1-worker.txt"
	awk -v re="$ODP_SYMS" -v pk="$2" '{ t += $1 } $3 ~ re { o += $1 }
		END { printf "rxe workers: %d samples, %.1f per 1000 packets (%d packets), ODP functions %.1f%% of them",
			t, pk ? 1000 * t / pk : 0, pk, t ? 100 * o / t : 0 }' "$OUT/$1-worker.txt" >"$DATA/w"
	echo "$1: ODP functions (self) ${self}% of samples; copy (with callees): ${children:-none}; $(cat "$DATA/w")" |
		tee -a "$OUT/perftest-share.txt"
	echo "  the workers' hottest symbols (samples, share of the workers'):" && head -12 "$OUT/$1-worker.txt"
}
# atomic_share TAG: in run TAG (pinned and ODP passes of atomics, interleaved),
# the share of all samples in ODP's own code (self), and in the responder's
# atomic with what it calls: rxe_mr_do_atomic_op for both kinds of MR, of
# which rxe_odp_atomic_op is the ODP one's.
atomic_share() {
	local self children
	self=$(odp_self "$1")
	children=$(with_callees "$1" rxe_mr_do_atomic_op rxe_odp_atomic_op)
	echo "$1: ODP functions (self) ${self}% of samples; the atomic (with callees): ${children:-none}" |
		tee -a "$OUT/atomic-share.txt"
}
PKTS=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
# atomic case: the message columns of the fetch-and-adds (one every CHUNK)
PROFILE_ATOMIC_CHUNKS=${PROFILE_ATOMIC_CHUNKS:-4K 64K}
FC_PAIRS=${FC_PAIRS:-6} FC_HZ=999 FC_MIB=64
# perftest case: "PROG SIZE ITERATIONS", comma-separated
PROFILE_PT_RUNS=${PROFILE_PT_RUNS:-ib_send_bw 65536 3000,ib_write_bw 4096 6000}
# sched case: "PROG SIZE", comma-separated (default: the idle bench's two
# not-met cases, bench/results/2026-12-05-d0f061c-issue15.md)
PROFILE_SCHED_RUNS=${PROFILE_SCHED_RUNS:-ib_write_bw 1048576,ib_read_bw 4096}
PROFILE_SCHED_PAIRS=${PROFILE_SCHED_PAIRS:-20} PROFILE_SCHED_DUR=${PROFILE_SCHED_DUR:-2}
# sched case: the two modes of a pair, the reference first; a mode is pinned
# or odp (perftest --odp), with an optional -SUFFIX that only names it:
# "pinned pinned-again" is the control, two identical runs per pair, whose
# ratio says how far from 1 the method reads when nothing differs
PROFILE_SCHED_MODES=${PROFILE_SCHED_MODES:-pinned odp}
# wake case: seconds of each run's data phase traced (its -D is
# PROFILE_SCHED_DUR: leave room for the start, 0.4 s, and the trace)
PROFILE_WAKE_REC=${PROFILE_WAKE_REC:-1}

# pairs_run sched|wake: PROFILE_SCHED_PAIRS pairs of each PROFILE_SCHED_RUNS
# case, the two PROFILE_SCHED_MODES back to back, which goes first
# alternating; each run watched by the case's observer (run_sched, run_wake)
pairs_run() {
	local pair run mode order tag args
	# shellcheck source=../tests/lib/perftest.sh
	source "$TOP/tests/lib/perftest.sh"
	read -ra modes <<<"$PROFILE_SCHED_MODES"
	if [ ${#modes[@]} != 2 ] || [ "${modes[0]}" = "${modes[1]}" ] ||
		printf '%s\n' "${modes[@]}" | grep -qvE '^(pinned|odp)(-[a-z0-9]+)?$'; then
		echo "profile.sh: PROFILE_SCHED_MODES='$PROFILE_SCHED_MODES': two different modes," \
			"each pinned or odp with an optional -suffix" >&2
		exit 2
	fi
	mkdir -p "$OUT/$1"
	"${1}_start"
	IFS=, read -ra runs <<<"$PROFILE_SCHED_RUNS"
	for pair in $(seq "$PROFILE_SCHED_PAIRS"); do
		for run in "${runs[@]}"; do
			# shellcheck disable=SC2086 # prog size
			set -- "$1" $run
			order="${modes[0]} ${modes[1]}"
			[ $((pair % 2)) = 0 ] && order="${modes[1]} ${modes[0]}"
			for mode in $order; do
				tag=$2-$3-$mode-$pair
				args=(-s "$3" -D "$PROFILE_SCHED_DUR" --report_gbits)
				[ "${mode%%-*}" = odp ] && args+=(--odp)
				"run_$1" "$2 $3" "$mode" "$pair" "$tag" "$2" "${args[@]}"
			done
		done
	done
	python3 "$TOP/bench/$1-sum.py" "$OUT/$1.csv" | tee "$OUT/$1.txt"
}

# bw_of TAG RC: perftest's bandwidth of run TAG, NaN (and why) if it failed
bw_of() {
	if [ "$2" = 0 ] && perftest_clock_ok "$DATA/$1-client.log"; then
		perftest_value "$DATA/$1-client.log" bw
	else
		echo "$1 failed (rc $2) or its clock check did:" >&2 && cat "$DATA/$1.out" >&2
		echo NaN
	fi
}

sched_start() {
	sysctl -qw kernel.sched_schedstats=1
	echo "case,mode,pair,bw_gbps,samples" >"$OUT/sched.csv"
}

# run_sched CASE MODE PAIR TAG PROG ARGS...: the run, with sched-sum.py's
# sampler beside it
run_sched() {
	local spid i rc
	# on the guest's tmpfs: a write through 9p per sample costs
	python3 "$TOP/bench/sched-sum.py" --sample "$DATA/$4.txt" "$(dirname "$PKTS")" &
	spid=$!
	# the run starts once the sampler has its first line
	for ((i = 0; i < 200; i++)); do
		[ -s "$DATA/$4.txt" ] && break
		sleep 0.05
	done
	# in this shell: a port of its own per run
	PT_LOG=$DATA/$4 PT_QUIET=1 perftest "${@:5}" >"$DATA/$4.out" 2>&1
	rc=$?
	kill "$spid"
	wait "$spid" 2>/dev/null
	cp "$DATA/$4.txt" "$OUT/sched/"
	echo "$1,$2,$3,$(bw_of "$4" "$rc"),sched/$4.txt" | tee -a "$OUT/sched.csv"
}

TRACE=/sys/kernel/tracing
wake_start() {
	[ -e "$TRACE/tracing_on" ] || mount -t tracefs tracefs "$TRACE"
	echo 0 >"$TRACE/tracing_on"
	echo 16384 >"$TRACE/buffer_size_kb"
	local e
	for e in sched/sched_switch sched/sched_waking sched/sched_wakeup workqueue/workqueue_queue_work \
		workqueue/workqueue_execute_start workqueue/workqueue_execute_end; do
		echo 1 >"$TRACE/events/$e/enable"
	done
	echo "case,mode,pair,rc,bw_gbps,pkts,secs,trace" >"$OUT/wake.csv"
}

# run_wake CASE MODE PAIR TAG PROG ARGS...: the run, traced for
# PROFILE_WAKE_REC s from 0.3 s after packets start to flow (100 in 0.1 s)
run_wake() {
	local ppid i p0 p1 a b ta tb rc
	echo >"$TRACE/trace"
	perftest_next_port
	# in the background: the run's own port, perftest() takes the next one
	PT_PORT=$((PT_PORT - 1)) PT_LOG=$DATA/$4 PT_QUIET=1 perftest "${@:5}" >"$DATA/$4.out" 2>&1 &
	ppid=$!
	p0=$(cat "$PKTS")
	for ((i = 0; i < 300; i++)); do
		sleep 0.1
		p1=$(cat "$PKTS")
		[ $((p1 - p0)) -gt 100 ] && break
		p0=$p1
	done
	sleep 0.3
	a=$(cat "$PKTS") ta=$(date +%s.%N)
	echo 1 >"$TRACE/tracing_on"
	sleep "$PROFILE_WAKE_REC"
	echo 0 >"$TRACE/tracing_on"
	b=$(cat "$PKTS") tb=$(date +%s.%N)
	wait "$ppid"
	rc=$?
	gzip <"$TRACE/trace" >"$OUT/wake/$4.trace.gz"
	echo "$1,$2,$3,$rc,$(bw_of "$4" "$rc"),$((b - a)),$(echo "$tb - $ta" | bc -l),wake/$4.trace.gz" |
		tee -a "$OUT/wake.csv"
}

for c in $CASES; do
	case $c in
	reg) perf record -q -g -o "$DATA/reg.data" -- odp-bench reg --mode odp --fresh --sizes 1G --reps 6 \
		>"$OUT/reg.csv" && rep reg ;;
	cold) perf record -q -a -g -o "$DATA/cold.data" -- odp-bench pass --mode odp --size 8M --reps 2 \
		>"$OUT/cold.csv" && rep cold ;;
	steady) perf record -q -a -g -o "$DATA/steady.data" -- odp-bench steady --size 2M --reps 3 \
		--chunk 64K >"$OUT/steady.csv" && rep steady ;;
	inval) perf record -q -g -o "$DATA/inval.data" -- odp-bench inval --size 32M --reps 2 --thp off \
		>"$OUT/inval.csv" && rep inval ;;
	atomic)
		for chunk in $PROFILE_ATOMIC_CHUNKS; do
			perf record -q -a -g -o "$DATA/atomic-$chunk.data" -- odp-bench steady --size 2M \
				--reps 20 --chunk "$chunk" --atomic >"$OUT/atomic-$chunk.csv" &&
				rep "atomic-$chunk" && atomic_share "atomic-$chunk"
		done ;;
	perftest)
		: >"$OUT/perftest-share.txt"
		IFS=, read -ra runs <<<"$PROFILE_PT_RUNS"
		for run in "${runs[@]}"; do
			# shellcheck disable=SC2086 # prog size iterations
			set -- $run
			for mode in pinned odp; do
				tag=perftest-$1-$2-$mode
				args=(-s "$2" -n "$3" --report_gbits)
				[ "$mode" = odp ] && args+=(--odp)
				# perf starts the run once it is set up: one perftest
				# (both sides) through the tests' helper
				p0=$(cat "$PKTS")
				# shellcheck disable=SC2016 # expanded by that bash
				perf record -q -a -g -o "$DATA/$tag.data" -- bash -c \
					'source "$TOP/tests/lib/guest.sh"; PT_LOG=$0 PT_QUIET=1 perftest "$@"' \
					"$OUT/$tag" "$1" "${args[@]}" || echo "$tag: perftest failed"
				rep "$tag"
				share "$tag" $(($(cat "$PKTS") - p0))
			done
		done ;;
	faultcost)
		kinds=zero
		# shellcheck source=../tests/lib/swap.sh
		if source "$TOP/tests/lib/swap.sh" && zram_swap 256M >/dev/null; then
			kinds="zero swap"
		else
			echo "faultcost: no zram swap, zero-fill only"
		fi
		for k in $kinds; do
			tag=faultcost-$k
			perf record -q -F "$FC_HZ" -a -g -o "$DATA/$tag.data" -- fault-cost --size "${FC_MIB}M" \
				--pairs "$FC_PAIRS" --ahead 128 --kinds "$k" >"$OUT/$tag.csv" || echo "$tag: fault-cost failed"
			rep "$tag"
			perf script -i "$DATA/$tag.data" --kallsyms "$DATA/kallsyms" -F comm,ip,sym 2>/dev/null |
				python3 "$TOP/bench/fault-split.py" --pages $((FC_PAIRS * FC_MIB * 256)) --hz "$FC_HZ" |
				tee "$OUT/$tag-split.txt"
		done ;;
	sched | wake)
		pairs_run "$c" ;;
	*) echo "profile.sh: unknown case $c" >&2; exit 2 ;;
	esac
	rm -f "$DATA"/*.data
done
rm -rf "$DATA"
