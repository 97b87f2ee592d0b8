#!/bin/bash
# Run the test suite: host tests (tests/host/*.sh), then guest tests
# (tests/guest/*.sh, each in its own boot of the 6.12 guest via tests/vm/run),
# then two-host tests (tests/pair/*.sh, each in one boot of two guests on one
# link via tests/vm/pair; they count as guest tests), then the debug-kernel
# stage (debug/*: the tests marked "# debug-kernel:"; the debug kernel and our
# module for it are built in the background at nice 19 from the start).
#
# usage: tests/check.sh [--host-only|--guest-only] [--repeat N] [--load] [NAME-PATTERN...]
#
#   --host-only, --guest-only   only one kind of test
#   NAME-PATTERN                only the tests whose name (host/NN-x, guest/NN-x,
#                               pair/NN-x, debug/NN-x: the debug-kernel
#                               stage) contains one of the patterns
#   --repeat N                  run the selected tests N times in a row (rounds)
#                               and end with a table: per test its runs,
#                               failures, skips, slowest and median time; per
#                               round the host load (loadavg at its start and
#                               end) and its "N passed, N failed, N skipped".
#                               The table and every result line also go to
#                               build/check/repeat-<date>/summary.txt, and the
#                               log of a test that failed in round R to
#                               build/check/repeat-<date>/<test>.round<R>.log.
#   --load                      two extra guests run reclaim-verify in a loop
#                               (tests/lib/load-guest.sh) for the whole run:
#                               started before the first test, stopped and
#                               reaped after the last; their failures are
#                               reported apart and do not count as the tests'.
#                               Logs: build/check/load-<k>/.  Implies the table.
#   -h, --help                  this text
#
# A test passes with exit 0, is skipped with exit 77 (it prints "SKIP: reason"),
# and fails otherwise (its last "FAIL: reason" line, from fail, is repeated on
# its FAIL line and in the "failed:" summary); a guest test also fails when
# the guest console shows kernel trouble.  A guest run that tests/vm/run calls
# void (exit 75: the guest's clock jumped with the host's TSC because the host
# VM was paused or moved, which sets off the guest's stall detectors) is
# reported as VOID with its evidence and run once more; only the second run counts.  A guest test may carry a line "# vm-args: ..." with options
# for tests/vm/run (e.g. --rxe stock, -m 3G).  A guest test with a line
# "# debug-kernel: [options]" runs a second time, as debug/<test>, on the debug
# kernel (KASAN, lockdep, ...: tests/vm/run --kernel debug, after the vm-args,
# then these options); tests waiting in userspace/reclaim-verify/pending/ may
# carry that line too.  A two-host test runs in both guests ($ROLE a or b) and
# may carry "# pair-args: ..." with options for tests/vm/pair (e.g. --a ours
# --b stock --mtu 4200).  A host test with a line "# needs: debug-kernel"
# that finds the debug kernel still building in the background runs after
# that build, before the debug-kernel stage (on a cold machine it would
# otherwise only skip).  Logs: build/check/<test>.log (a two-host test's
# consoles: build/check/<test>.d/).
# The last line is "N passed, N failed, N skipped" (over all rounds); the exit
# status is non-zero if anything failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
host=1 guest=1 repeat=1 load=0 table=0
pats=()
while [ $# -gt 0 ]; do
	case "$1" in
	--host-only) guest=0 ;;
	--guest-only) host=0 ;;
	--repeat)
		repeat=${2:-}
		shift
		table=1
		;;
	--load) load=1 table=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) pats+=("$1") ;;
	esac
	shift
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: --repeat needs a count >= 1" >&2; exit 2; }
KVER=${KVER:-$("$TOP/scripts/kver.sh")}
export KVER
LOGS=$TOP/build/check
mkdir -p "$LOGS"
SUMMARY= RUNDIR=
if [ "$table" = 1 ]; then
	RUNDIR=$LOGS/repeat-$(date +%Y%m%d-%H%M%S)
	SUMMARY=$RUNDIR/summary.txt
	mkdir -p "$RUNDIR" && : >"$SUMMARY" || exit 2
fi
# say LINE...: print, and keep in the summary file of a repeat run.
say() {
	echo "$@"
	[ -z "$SUMMARY" ] || echo "$@" >>"$SUMMARY"
}

pass=0 fail=0 skip=0
failed=() skipped=() voided=()
round=1
declare -A t_runs t_fail t_skip t_secs
t_order=()
selected() {
	local p
	[ ${#pats[@]} -eq 0 ] && return 0
	for p in "${pats[@]}"; do
		case "$1" in *$p*) return 0 ;; esac
	done
	return 1
}

# move_logs LOG DEST: a test's log, with its guest console (LOG.console) and
# a two-host test's console directory (LOG.d), becomes DEST, DEST.console and
# DEST.d, replacing what was there.
move_logs() {
	local log=$1 dest=$2
	rm -rf "$dest" "$dest.console" "$dest.d"
	mv "$log" "$dest"
	[ -e "$log.console" ] && mv "$log.console" "$dest.console"
	[ -d "$log.d" ] && mv "$log.d" "$dest.d"
	return 0
}

record() { # name rc seconds log
	local name=$1 rc=$2 secs=$3 log=$4 why at="" keep
	[ "$table" = 1 ] && at=" (round $round)"
	[ -n "${t_runs[$name]:-}" ] || t_order+=("$name")
	t_runs[$name]=$((${t_runs[$name]:-0} + 1))
	t_secs[$name]="${t_secs[$name]:-} $secs"
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		say "$(printf 'PASS  %-40s %4ss' "$name" "$secs")"
	elif [ "$rc" = 77 ]; then
		skip=$((skip + 1))
		t_skip[$name]=$((${t_skip[$name]:-0} + 1))
		why=$(grep -a '^SKIP: ' "$log" | tail -1 | cut -c7-)
		why=${why:-no reason given}
		skipped+=("$name$at: $why")
		say "$(printf 'SKIP  %-40s %4ss  (%s)' "$name" "$secs" "$why")"
	else
		fail=$((fail + 1))
		t_fail[$name]=$((${t_fail[$name]:-0} + 1))
		if [ "$table" = 1 ]; then
			# the next round writes <test>.log again: keep this one
			keep=$RUNDIR/$(basename "${log%.log}").round$round.log
			move_logs "$log" "$keep"
			log=$keep
		fi
		# the test's own verdict (its last FAIL: line) on the lines a
		# shortened copy of this output keeps: the FAIL line and the
		# summary at the end
		why=$(grep -a '^FAIL: ' "$log" | tail -1 | cut -c7- | cut -c1-200)
		why=${why:+: $why}
		failed+=("$name$at (rc $rc$why; log $log)")
		say "$(printf 'FAIL  %-40s %4ss  rc=%s%s' "$name" "$secs" "$rc" "$why")"
		show_tail "$log"
		show_report "$log"
		echo "-----"
	fi
}

# The end of a failed test's own output.  A guest run ends with the kernel
# log (VMRUN_DMESG_BEGIN..END), which would push the test's own verdict (its
# FAIL: line, a tool's reproducer) out of a plain tail: show the last lines
# before that dump without the kernel's lines (show_report has its reports),
# any FAIL/FAILED/finding lines, then the dump's end.
show_tail() {
	local log=$1 n
	n=$(grep -an -m1 '^VMRUN_DMESG_BEGIN' "$log" | cut -d: -f1)
	if [ -z "$n" ]; then
		echo "----- last lines of $log"
		tail -25 "$log" | sed 's/^/  | /'
		return
	fi
	echo "----- last lines of $log before its kernel log"
	head -n $((n - 1)) "$log" | grep -avE '^\[ *[0-9]+\.[0-9]{6}\] ' | tail -30 | sed 's/^/  | /'
	echo "----- its FAIL and finding lines"
	head -n $((n - 1)) "$log" | grep -a 'FAIL\|finding\|reproduce:' | head -12 | sed 's/^/  | /'
	echo "----- the end of its kernel log"
	tail -n +"$n" "$log" | tail -8 | sed 's/^/  | /'
}

# The first kernel report on a failed test's guest console(s), with its call
# trace: CI keeps only this output, not the consoles.
show_report() {
	local c
	for c in "$1.console" "$1.d/a.console" "$1.d/b.console"; do
		[ -e "$c" ] || continue
		"$TOP/tests/vm/console-gate" "$c" >/dev/null && continue
		echo "----- first kernel report on $c"
		"$TOP/tests/vm/console-gate" --context 45 "$c" | sed 's/^/  | /'
	done
}

# void_run NAME RC TRY LOG T0: true if this run was void (tests/vm/run's and
# tests/vm/pair's 75: the guest clock jumped with the host's TSC, the host VM
# being paused or moved) and is to be run once more.  The void run is reported
# and its logs kept next to the test's (.void); a second void run fails.
void_run() {
	local name=$1 rc=$2 try=$3 log=$4 t0=$5 at=""
	[ "$rc" = 75 ] && [ "$try" = 1 ] || return 1
	[ "$table" = 1 ] && at=" (round $round)"
	say "$(printf 'VOID  %-40s %4ss  the guest clock jumped with the host'"'"'s: running it once more' \
		"$name" $(($(date +%s) - t0)))"
	grep -a 'VOID\|for the record\|^\[vm/pair\] [ab]: \[' "$log" | head -12 | sed 's/^/  | /'
	voided+=("$name$at (log $log.void)")
	move_logs "$log" "$log.void"
	return 0
}

DEFERRED=()
run_host() { # [TEST-FILE...]: only these (the deferred ones), now
	local t name log t0 rc files=("$@")
	[ $# -gt 0 ] || files=("$TOP"/tests/host/*.sh)
	for t in "${files[@]}"; do
		[ -e "$t" ] || continue
		name=host/$(basename "$t" .sh)
		selected "$name" || continue
		if [ $# = 0 ] && [ -n "$DK_PID" ] && grep -q '^# needs: debug-kernel' "$t" &&
			! "$TOP/scripts/build-debug-kernel.sh" --lookup >/dev/null 2>&1; then
			echo "$name: waits for the debug kernel's build (runs before the debug-kernel stage)"
			DEFERRED+=("$t")
			continue
		fi
		log=$LOGS/${name//\//_}.log
		t0=$(date +%s)
		(cd "$TOP" && bash "$t") >"$log" 2>&1 </dev/null
		rc=$?
		record "$name" "$rc" $(($(date +%s) - t0)) "$log"
	done
}

# ------------------------------------------------------ debug-kernel build
# On a cold machine the debug kernel is a ~25-minute build. It runs in the
# background from the start, at nice 19, so it takes only the CPU time the
# host tests and the production-kernel guests leave idle (a TCG guest mostly
# keeps one of the two cores busy), and the debug stage waits for it.
DK_PID= DK_LOG=$LOGS/debug-kernel-build.log
debug_selected() {
	local t
	for t in "$TOP"/tests/guest/*.sh "$TOP"/userspace/reclaim-verify/pending/*.sh; do
		grep -q '^# debug-kernel:' "$t" 2>/dev/null && selected "debug/$(basename "$t" .sh)" &&
			return 0
	done
	return 1
}
debug_build_start() {
	[ "$guest" = 1 ] && debug_selected || return 0
	# a session of its own, so that stopping it reaches the compilers
	setsid nice -n 19 make --no-print-directory -C "$TOP" debug-kernel >"$DK_LOG" 2>&1 </dev/null &
	DK_PID=$!
	echo "debug kernel and our module for it: building in the background (nice 19), log $DK_LOG"
}
# debug_build_wait: 0 once the build is done; else it counts as a failed test.
debug_build_wait() {
	local rc t0=$(date +%s)
	[ -n "$DK_PID" ] || return 0
	wait "$DK_PID"
	rc=$?
	DK_PID=
	# cold or warm: "cached: ENTRY" or "built ENTRY in N s"
	echo "debug kernel build: rc $rc, waited $(($(date +%s) - t0)) s;" \
		"$(grep -a '^debug-kernel: \(cached: \|built \)' "$DK_LOG" | tail -1)"
	echo "debug module: $(tail -1 "$DK_LOG")"
	[ "$rc" = 0 ] && return 0
	record debug/build "$rc" $(($(date +%s) - t0)) "$DK_LOG"
	return 1
}

run_guest() { # prod|debug
	local kernel=$1 t name log t0 rc try args files=("$TOP"/tests/guest/*.sh)
	[ "$kernel" = debug ] && files+=("$TOP"/userspace/reclaim-verify/pending/*.sh)
	for t in "${files[@]}"; do
		[ -e "$t" ] || continue
		name=guest/$(basename "$t" .sh)
		args=$(sed -n 's/^# vm-args: //p' "$t" | head -1)
		if [ "$kernel" = debug ]; then
			grep -q '^# debug-kernel:' "$t" || continue
			name=debug/$(basename "$t" .sh)
			args+=" --kernel debug $(sed -n 's/^# debug-kernel://p' "$t" | head -1)"
		fi
		selected "$name" || continue
		log=$LOGS/${name//\//_}.log
		t0=$(date +%s)
		if [ "$kernel" = debug ] && ! "$TOP/scripts/build-debug-kernel.sh" --lookup >/dev/null; then
			echo "SKIP: the debug kernel is not built (make debug-kernel)" >"$log"
			record "$name" 77 0 "$log"
			continue
		fi
		for try in 1 2; do
			# shellcheck disable=SC2086
			"$TOP/tests/vm/run" -q $args --log "$log.console" "$t" >"$log" 2>&1 </dev/null
			rc=$?
			cat "$log.console" >>"$log" 2>/dev/null
			void_run "$name" "$rc" "$try" "$log" "$t0" || break
			t0=$(date +%s)
		done
		record "$name" "$rc" $(($(date +%s) - t0)) "$log"
	done
}

# Two-host tests: the same script in both guests of one tests/vm/pair run;
# the log gets both consoles.
run_pair() {
	local t name log t0 rc r try
	local -a args
	for t in "$TOP"/tests/pair/*.sh; do
		[ -e "$t" ] || continue
		name=pair/$(basename "$t" .sh)
		selected "$name" || continue
		log=$LOGS/${name//\//_}.log
		# the line is shell words (--netem 'loss 1% delay 1ms')
		eval "args=($(sed -n 's/^# pair-args: //p' "$t" | head -1))"
		t0=$(date +%s)
		for try in 1 2; do
			rm -rf "$log.d"
			"$TOP/tests/vm/pair" -q "${args[@]}" --logdir "$log.d" --cmd-a "bash $(printf %q "$t")" \
				--cmd-b "bash $(printf %q "$t")" >"$log" 2>&1 </dev/null
			rc=$?
			void_run "$name" "$rc" "$try" "$log" "$t0" || break
			t0=$(date +%s)
		done
		for r in a b; do
			echo "===== console of guest $r ($log.d/$r.console)"
			cat "$log.d/$r.console" 2>/dev/null
		done >>"$log"
		# what a failure report's tail must show, from both guests
		{
			echo "===== summary"
			grep -aH '^FAIL' "$log.d/a.console" "$log.d/b.console" 2>/dev/null
			grep -a '^\[vm/pair\]' "$log"
		} >>"$log.sum"
		cat "$log.sum" >>"$log"
		rm -f "$log.sum"
		record "$name" "$rc" $(($(date +%s) - t0)) "$log"
	done
}

# ---------------------------------------------------------------- --load
# Two guests running tests/lib/load-guest.sh, each in a session of its own
# (setsid), so that stopping one reaches its QEMU.
LOADS=2 load_pids=()
load_start() {
	local k dir i
	for ((k = 1; k <= LOADS; k++)); do
		dir=$LOGS/load-$k
		rm -rf "$dir"
		mkdir -p "$dir"
		setsid "$TOP/tests/vm/run" -q -m 2G --timeout 172800 --out "$dir" --log "$dir/console.log" \
			-- bash "$TOP/tests/lib/load-guest.sh" >"$dir/vm.log" 2>&1 </dev/null &
		load_pids+=($!)
	done
	# The tests start once every load guest runs its loop.
	for ((k = 1; k <= LOADS; k++)); do
		for ((i = 0; i < 600; i++)); do
			[ -e "$LOGS/load-$k/running" ] && break
			kill -0 "${load_pids[k - 1]}" 2>/dev/null || break
			sleep 1
		done
		if [ ! -e "$LOGS/load-$k/running" ]; then
			echo "check.sh: load guest $k did not start (see $LOGS/load-$k/vm.log)" >&2
			return 1
		fi
	done
	say "load: $LOADS guests run reclaim-verify in a loop (logs $LOGS/load-*/)"
}

# load_stop [GRACE]: ask the load guests to stop after their current run, give
# them GRACE seconds (default 0), then end what is left; reap them all.
load_stop() {
	local k pid i alive
	for ((k = 1; k <= ${#load_pids[@]}; k++)); do
		kill -0 "${load_pids[k - 1]}" 2>/dev/null ||
			echo "(load guest $k had ended before the tests did)" >>"$LOGS/load-$k/vm.log"
		: >"$LOGS/load-$k/stop"
	done
	for ((i = 0; i < ${1:-0}; i++)); do
		alive=0
		for pid in "${load_pids[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && break
		sleep 1
	done
	for ((k = 1; k <= ${#load_pids[@]}; k++)); do
		pid=${load_pids[k - 1]}
		if kill -0 "$pid" 2>/dev/null; then
			echo "(load guest $k did not stop by itself: ended)" >>"$LOGS/load-$k/vm.log"
			kill -TERM -- "-$pid" 2>/dev/null
		fi
		wait "$pid"
		echo "$?" >"$LOGS/load-$k/rc"
	done
	load_pids=()
}

# load_report: what the load guests did, apart from the tests' results.
load_report() {
	local k dir runs bad rc
	for ((k = 1; k <= LOADS; k++)); do
		dir=$LOGS/load-$k
		runs=$(grep -ac '^LOAD_RUN ' "$dir/console.log" 2>/dev/null)
		bad=$(grep -a '^LOAD_RUN ' "$dir/console.log" 2>/dev/null | grep -vc ' rc=0$')
		rc=$(cat "$dir/rc" 2>/dev/null)
		say "load guest $k: ${runs:-0} reclaim-verify runs, ${bad:-0} failed; guest exit ${rc:-?}$(
			[ "${rc:-}" = 126 ] && echo ' (kernel trouble on its console)'); $dir/"
		grep -aE '^\[vm/run\] FAIL|^\(load guest' "$dir/vm.log" 2>/dev/null | sed 's/^/    /'
	done
}

on_exit() {
	[ ${#load_pids[@]} -gt 0 ] && load_stop 0
	[ -z "$DK_PID" ] || kill -TERM -- "-$DK_PID" 2>/dev/null
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- table
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
slowest() { tr ' ' '\n' | grep . | sort -n | tail -1; }

print_table() {
	local name
	say
	say "$(printf '%-40s %5s %5s %5s %8s %8s' test runs fail skip slowest median)"
	for name in "${t_order[@]}"; do
		say "$(printf '%-40s %5s %5s %5s %7ss %7ss' "$name" "${t_runs[$name]}" "${t_fail[$name]:-0}" \
			"${t_skip[$name]:-0}" "$(slowest <<<"${t_secs[$name]}")" "$(median <<<"${t_secs[$name]}")")"
	done
	say
	say "$(printf '%-6s %-16s %-16s %7s  %s' round 'load at start' 'load at end' time result)"
	printf '%s\n' "${rounds[@]}" | while read -r line; do say "$line"; done
}

CHECK_T0=$(date +%s)
say "rxe-odp check: kernel $KVER, module $(modinfo -F version "$TOP/build/rxe/rdma_rxe.ko" 2>/dev/null)"
if [ "$table" = 1 ]; then
	say "rounds: $repeat; load: $([ "$load" = 1 ] && echo "$LOADS guests" || echo none);" \
		"host: $(nproc) CPUs; tests: ${pats[*]:-all}$([ "$host" = 0 ] && echo ', guest only')$([ "$guest" = 0 ] && echo ', host only')"
fi
if [ "$load" = 1 ]; then
	load_start || exit 2
fi
rounds=()
for ((round = 1; round <= repeat; round++)); do
	p0=$pass f0=$fail s0=$skip
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	r0=$(date +%s)
	[ "$table" = 1 ] && say "== round $round of $repeat (host load $l0)"
	[ "$round" = 1 ] && debug_build_start
	[ "$host" = 1 ] && run_host
	if [ "$guest" = 1 ]; then
		run_guest prod
		run_pair
		d0=$(date +%s)
		debug_build_wait
		rc=$?
		# the host tests that waited for the build (they skip if it failed)
		[ ${#DEFERRED[@]} = 0 ] || run_host "${DEFERRED[@]}"
		DEFERRED=()
		[ "$rc" = 0 ] && run_guest debug
		say "debug-kernel stage: $(($(date +%s) - d0)) s"
	fi
	l1=$(cut -d' ' -f1-3 /proc/loadavg)
	rounds+=("$(printf '%-6s %-16s %-16s %6ss  %s' "$round" "$l0" "$l1" $(($(date +%s) - r0)) \
		"$((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped")")
done
if [ "$load" = 1 ]; then
	# a load guest's run lasts 20 s; stopping and powering off adds some
	load_stop 180
	say
	load_report
fi
[ "$table" = 1 ] && print_table
say
for s in "${skipped[@]}"; do say "skipped: $s"; done
for f in "${failed[@]}"; do say "failed: $f"; done
for v in "${voided[@]}"; do say "void, run again: $v"; done
[ -n "$SUMMARY" ] && echo "summary: $SUMMARY"
say "check.sh took $(($(date +%s) - CHECK_T0)) s (host load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
say "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
