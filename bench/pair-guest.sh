#!/bin/bash
# The two-host step of the bench ('pair'), run in both guests of tests/vm/pair
# by bench/run.sh: perftest bandwidth across the link, the server in guest a
# (our rdma_rxe) with pinned or --odp memory, the client in guest b, pinned.
# Pinned and ODP runs alternate (which goes first alternates too), BENCH_PAIR_RUNS
# pairs per program, first without a memory limit, then with the server inside
# a cgroup whose memory.max is below its working set: a memory user in the
# same cgroup (BENCH_PAIR_HOG MiB, touched page by page in rounds) keeps it
# reclaiming while perftest runs.
#
# usage: bench/pair-guest.sh   (under tests/vm/pair: ROLE, PEER, pair_* set)
# Environment: BENCH_PAIR_RUNS (default 6, the fewest pairs that give a 95 %
# interval), BENCH_PAIR_DUR (perftest -D,
# default 2), BENCH_PAIR_SIZE (default 65536), BENCH_PAIR_PROGS (default
# "ib_write_bw ib_read_bw ib_send_bw"), BENCH_PAIR_MAX / BENCH_PAIR_HOG
# (memory.max and the memory user, MiB; default 48 and 96), BENCH_PAIR_CONDS
# (default "nolimit limit").
#
# tests/vm/pair has no share to write results to: every measurement is a
# "BENCHROW section,case,mode,size,tag,run,value,unit" line on the console
# (bench/guest.sh's raw.csv rows, section 'pair'), settings "BENCHMETA k=v";
# bench/run.sh collects them.  Every perftest run goes through
# tests/lib/perftest.sh (tests/lib/pair.sh's pair_perftest).
set -uo pipefail
source "$TOP/tests/lib/perftest.sh"
source "$TOP/tests/lib/pair.sh"
RUNS=${BENCH_PAIR_RUNS:-6}
DUR=${BENCH_PAIR_DUR:-2}
SIZE=${BENCH_PAIR_SIZE:-65536}
PROGS=${BENCH_PAIR_PROGS:-ib_write_bw ib_read_bw ib_send_bw}
MAXM=${BENCH_PAIR_MAX:-48}
HOGM=${BENCH_PAIR_HOG:-96}
CONDS=${BENCH_PAIR_CONDS:-nolimit limit}
CG=/sys/fs/cgroup/bench-pair
HW=/sys/class/infiniband/rxe0/ports/1/hw_counters

row() { local IFS=,; echo "BENCHROW $*"; }
meta() { echo "BENCHMETA $1=$2"; }
snap() { # counters of this guest, one "name value" a line
	sleep 0.05 # the core caches port hw_counters for 10 ms
	{
		grep -H . "$HW"/* 2>/dev/null | sed 's|^.*/\([^/:]*\):|hw:\1 |'
		grep -E '^(pswpin|pswpout|pgmajfault|nr_foll_pin_acquired) ' /proc/vmstat | sed 's/^/vm:/'
		[ -f "$CG/memory.events" ] && sed 's/^/memcg:/' "$CG/memory.events"
	} >"$1"
}
delta_rows() { # mode tag run before after: rows of the counters that moved
	awk -v m="$1" -v z="$SIZE" -v t="$2" -v r="$3" '
		NR == FNR { a[$1] = $2; next }
		($1 in a) && $2 != a[$1] { printf "BENCHROW pair,ctr:%s,%s,%s,%s,%s,%d,count\n", $1, m, z, t, r, $2 - a[$1] }
	' "$4" "$5"
}

if [ "$ROLE" = a ]; then
	meta pair_kernel "$(uname -r)"
	meta pair_a_module "$(cat /sys/module/rdma_rxe/version 2>/dev/null || echo stock) ($RXE_MODE)"
	meta pair_b_module "$PEER_RXE"
	meta pair_guest_mem_kib "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
	meta pair_guest_cpus "$(nproc)"
	meta pair_mtu "$(cat /sys/class/net/eth0/mtu) (RoCE $(ibv_devinfo -d rxe0 | awk '/active_mtu/ {print $2; exit}'))"
	meta pair_netem "$(tc qdisc show dev eth0 | grep -o 'netem.*' || echo none)"
	meta pair_runs "$RUNS"
	meta pair_dur "$DUR"
	meta pair_size "$SIZE"
	meta pair_max_mib "$MAXM"
	meta pair_hog_mib "$HOGM"
	meta pkg_perftest "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo none)"
	if [[ " $CONDS " = *" limit "* ]]; then
		pair_swap || { echo "bench pair: no zram swap"; CONDS=nolimit; }
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p "$CG" ||
			{ echo "bench pair: no memory cgroup"; CONDS=nolimit; }
	fi
fi

# hog_start / hog_stop: the memory user in the server's cgroup (a only).
HOG_PID=
hog_start() {
	/usr/bin/python3 -c '
import sys, time
n = int(sys.argv[1]) << 20
b = bytearray(n)
v = 0
while True:
    v = (v + 1) & 255
    for i in range(0, n, 4096):
        b[i] = v
    time.sleep(0.05)
' "$HOGM" &
	HOG_PID=$!
}
hog_stop() {
	[ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null && wait "$HOG_PID" 2>/dev/null
	HOG_PID=
}

T0=$SECONDS
fails=0
for cond in $CONDS; do
	if [ "$ROLE" = a ] && [ "$cond" = limit ]; then
		echo $((MAXM << 20)) >"$CG/memory.max"
		echo max >"$CG/memory.swap.max" 2>/dev/null
		echo $$ >"$CG/cgroup.procs" || { echo "bench pair: cannot join $CG"; exit 1; }
		hog_start
		# until the cgroup is at its limit (the memory user has filled it)
		for ((i = 0; i < 600; i++)); do
			[ "$(cat "$CG/memory.current")" -ge $(((MAXM - 4) << 20)) ] && break
			sleep 0.1
		done
		echo "bench pair: cgroup memory.max ${MAXM} MiB, memory.current $(($(cat "$CG/memory.current") >> 20)) MiB, memory user ${HOGM} MiB"
	fi
	pair_sync "cond-$cond" || exit 1
	for prog in $PROGS; do
		for run in $(seq "$RUNS"); do
			order="pinned odp"
			[ $((run % 2)) = 0 ] && order="odp pinned"
			for mode in $order; do
				PT_SERVER_ARGS=
				[ "$mode" = odp ] && PT_SERVER_ARGS=--odp
				lg=/tmp/pair-$prog-$cond-$mode-$run
				[ "$ROLE" = a ] && snap /tmp/.s0
				PT_SERVER_ARGS=$PT_SERVER_ARGS PT_LOG=$lg \
					pair_perftest a "$prog" -s "$SIZE" -D "$DUR" --report_gbits >/tmp/pair-last.log 2>&1
				rc=$?
				if [ "$ROLE" = a ]; then
					snap /tmp/.s1
					delta_rows "$mode" "$cond" "$run" /tmp/.s0 /tmp/.s1
					[ "$rc" = 0 ] || { fails=$((fails + 1)); echo "bench pair: $prog $mode $cond run $run: server rc $rc"; tail -20 /tmp/pair-last.log; }
					continue
				fi
				v="" unit=failed
				if [ "$rc" = 0 ]; then
					if perftest_clock_ok "$lg-client.log"; then
						v=$(perftest_value "$lg-client.log" bw)
					else
						unit=no-clock
					fi
				else
					fails=$((fails + 1))
					echo "bench pair: $prog $mode $cond run $run: client rc $rc"
					tail -20 /tmp/pair-last.log
				fi
				if [ -n "$v" ]; then
					row pair "$prog" "$mode" "$SIZE" "$cond" "$run" "$v" Gb/s
				else
					row pair "$prog" "$mode" "$SIZE" "$cond" "$run" NaN "$unit"
				fi
				echo "bench pair: $prog $mode $cond run $run: ${v:-$unit} (t+$((SECONDS - T0))s)"
			done
		done
	done
	if [ "$ROLE" = a ] && [ "$cond" = limit ]; then
		hog_stop
		echo $$ >/sys/fs/cgroup/cgroup.procs
	fi
done
[ "$ROLE" = a ] && meta secs_pair_guest $((SECONDS - T0))
echo "bench pair ($ROLE): done in $((SECONDS - T0)) s, $fails failed runs"
exit 0
