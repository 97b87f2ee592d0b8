#!/bin/bash
# Two guests on one link (tests/vm/pair): what a command in either guest uses
# to meet its peer.  Sourced by tests/vm/pair-guest.sh (which also exports
# these functions to the command it runs) and by tests/pair/*.sh.
#
# Set by tests/vm/pair-guest.sh in both guests:
#   ROLE / PEER_ROLE   a or b
#   PEER               the peer's IPv4 address on eth0 (169.254.77.1 or .2)
#   LOCAL_IP           this guest's own
#   PEER_RXE           the peer's rdma_rxe: ours, stock or none (RXE_MODE is ours)
#   PEER_GID           the peer's IPv4-mapped GID, as sysfs prints GIDs
#   RXE_GID            this guest's IPv4-mapped GID index (tests/vm/run)
#
# Signals: pair_signal NAME tells the peer that NAME happened (it reaches the
# peer's listener, tests/vm/pair-signal.py, over TCP on eth0), pair_wait NAME
# waits until the peer signalled NAME.  Each NAME means one event: signal it
# once.  E.g. a perftest server in a, its client in b:
#   a: perftest_server 18601 /tmp/s.log ib_write_bw --odp && pair_signal listen-18601
#      server_end
#   b: pair_wait listen-18601 && perftest_client 18601 /tmp/c.log "$PEER" ib_write_bw
# (perftest_client cannot probe the server's port: a probe would take the
# connection perftest's server waits for.)
PAIR_PORT=${PAIR_PORT:-7471}
PAIR_DIR=${PAIR_DIR:-/run/pair}
PAIR_WAIT=${PAIR_WAIT:-300}
# zram_swap
# shellcheck source=swap.sh
source "$(dirname "${BASH_SOURCE[0]}")/swap.sh"

# pair_signal NAME [SECS]: deliver NAME to the peer's listener; retried until
# it answers (it may not run yet) for SECS (default PAIR_WAIT).
pair_signal() {
	local name=$1 secs=${2:-$PAIR_WAIT} i reply
	[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "pair_signal: bad name '$name'"; return 2; }
	for ((i = 0; i < secs * 5; i++)); do
		if { exec 3<>"/dev/tcp/$PEER/$PAIR_PORT"; } 2>/dev/null; then
			echo "$name" >&3
			reply=
			read -r -t 10 reply <&3
			exec 3<&-
			[ "$reply" = ok ] && return 0
		fi
		sleep 0.2
	done
	echo "pair_signal: the peer ($PEER) took no signal '$name' in $secs s"
	return 1
}

# pair_wait NAME [SECS]: until the peer signalled NAME (default PAIR_WAIT s).
pair_wait() {
	pair_wait_any "${2:-$PAIR_WAIT}" "$1"
}

# pair_wait_any SECS NAME...: until the peer signalled one of the NAMEs; that
# one is in PAIR_GOT.
pair_wait_any() {
	local secs=$1 i n
	shift
	PAIR_GOT=
	for ((i = 0; i < secs * 10; i++)); do
		for n in "$@"; do
			[ -e "$PAIR_DIR/got/$n" ] && { PAIR_GOT=$n; return 0; }
		done
		sleep 0.1
	done
	echo "pair_wait: no signal '$*' from the peer ($PEER) in $secs s"
	return 1
}

# pair_sync NAME: both guests reach this point before either goes on.
pair_sync() {
	pair_signal "$1" && pair_wait "$1"
}

# pair_netem [ARGS...]: netem on this guest's eth0 egress (e.g. loss 1%;
# 'delay 1ms reorder 25% 50%'); no ARGS: none.  Each guest shapes what it
# sends, so loss on both directions needs it in both.
pair_netem() {
	if [ $# = 0 ]; then
		tc qdisc del dev eth0 root 2>/dev/null
		return 0
	fi
	tc qdisc replace dev eth0 root netem "$@" || { echo "pair_netem: tc netem $* failed"; return 1; }
	echo "netem on eth0 ($ROLE): $*"
}

# pair_kill_peer: ask tests/vm/pair to end the peer's QEMU at once, as if the
# machine lost power (its console must still be clean up to then).  Returns
# once the peer answers no more ping (bounded: 120 s).
pair_kill_peer() {
	local i
	echo "PAIR_KILL_PEER"
	for ((i = 0; i < 120; i++)); do
		busybox ping -c 1 -W 1 "$PEER" >/dev/null 2>&1 || { echo "the peer ($PEER) is gone"; return 0; }
	done
	echo "pair_kill_peer: the peer ($PEER) still answers after 120 s"
	return 1
}

# ------------------------------------------------------------ tests
# What tests/pair/*.sh run in both guests, in the same order on both sides:
# each call is one case, the guest whose ROLE is SERVER_ROLE serves, the other
# is the client; every case has a port of its own (the same counter runs in
# both guests), and its server tells the client when it listens.

# pair_perftest SERVER_ROLE PROG ARGS...: one perftest run across the link
# (tests/lib/perftest.sh's perftest_server / perftest_client), ARGS on both
# sides, PT_SERVER_ARGS / PT_CLIENT_ARGS on one.  Logs: $PT_LOG-server.log in
# the server's guest, $PT_LOG-client.log in the client's (PT_LOG defaults to
# /tmp/perftest).  Returns this side's status.
pair_perftest() {
	local srole=$1 prog=$2 base=${PT_LOG:-/tmp/perftest} rc
	shift 2
	perftest_next_port
	if [ "$ROLE" = "$srole" ]; then
		# shellcheck disable=SC2086
		if ! perftest_server "$PT_PORT" "$base-server.log" "$prog" ${PT_SERVER_ARGS:-} "$@"; then
			pair_signal "nolisten-$PT_PORT"
			echo "== $prog $* (port $PT_PORT, server in $ROLE): the server did not start"
			return 1
		fi
		pair_signal "listen-$PT_PORT" || { server_end 10; return 1; }
		# the client's failure ends the server (no client to wait for)
		pair_wait_any $((PT_TIMEOUT + PT_LISTEN_WAIT)) "done-$PT_PORT" "failed-$PT_PORT"
		if [ "$PAIR_GOT" = "done-$PT_PORT" ]; then
			server_end
		else
			server_end 10
		fi
		rc=$?
		echo "== $prog $* (server in $ROLE${PT_SERVER_ARGS:+: $PT_SERVER_ARGS}, port $PT_PORT): server rc=$rc"
		return "$rc"
	fi
	pair_wait_any $((PT_LISTEN_WAIT + 30)) "listen-$PT_PORT" "nolisten-$PT_PORT" || return 1
	if [ "$PAIR_GOT" != "listen-$PT_PORT" ]; then
		echo "== $prog $* (port $PT_PORT): the peer's server did not start"
		return 1
	fi
	# shellcheck disable=SC2086
	perftest_client "$PT_PORT" "$base-client.log" "$PEER" "$prog" ${PT_CLIENT_ARGS:-} "$@"
	rc=$?
	if [ "$rc" = 0 ]; then
		pair_signal "done-$PT_PORT"
	else
		pair_signal "failed-$PT_PORT"
	fi
	echo "== $prog $* (client in $ROLE${PT_CLIENT_ARGS:+: $PT_CLIENT_ARGS}, port $PT_PORT): client rc=$rc"
	perftest_clock_ok "$base-client.log" ||
		echo "(perftest's clock calibration failed in this run: its figures are not real)"
	return "$rc"
}

# pair_rv SERVER_ROLE LABEL "SERVER ARGS" "CLIENT ARGS": one reclaim-verify
# run across the link (rdma_cm on eth0): the server in SERVER_ROLE's guest, the
# client in the other, each with its own options (--odp/--pinned, -r ...).
# Report: stdout; JSON /tmp/rv-LABEL.json on each side (rv_get/rv_check of
# userspace/reclaim-verify/guest-env.sh read it).  Returns this side's status.
PAIR_RV_PORT=${PAIR_RV_PORT:-18720}
# pair_diag: what the link and the device did, for a failed run: rxe's non-zero
# hw counters (send_err: a packet the IP stack refused, which stock 6.12 rxe
# turns into a local QP operation error), the qdisc's drops and eth0's stats.
pair_diag() {
	local f
	echo "== $ROLE: rxe0 hw counters (non-zero):"
	for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
		[ "$(cat "$f" 2>/dev/null || echo 0)" != 0 ] && echo "   ${f##*/} $(cat "$f")"
	done
	echo "== $ROLE: tc -s qdisc show dev eth0:"
	tc -s qdisc show dev eth0 2>&1 | sed 's/^/   /'
	echo "== $ROLE: ip -s link show eth0:"
	ip -s link show eth0 2>&1 | sed 's/^/   /'
}

# A stall (nothing completes) for PAIR_RV_STALL seconds (default 180) fails
# the run; reclaim-verify's own default, 60 s, is too short across the pair:
# the hunt's loaded round of 5 December (host load 12-15) had the ODP side's
# own fork under its cgroup limit hold the responder back for 120 s (3 forks
# took 148 s in all, guest thrashing), and both pair/30 and pair/31 "stalled"
# while every transfer later completed with the right bytes.  180 s still
# ends a real hang well inside the runs' 600 s limit.
PAIR_RV_STALL=${PAIR_RV_STALL:-180}
pair_rv() {
	local srole=$1 label=$2 sargs=$3 cargs=$4 pid i rc log=/tmp/rv-$2.server.log
	PAIR_RV_PORT=$((PAIR_RV_PORT + 1))
	if [ "$ROLE" = "$srole" ]; then
		echo "== reclaim-verify --server $sargs ($label, server in $ROLE)"
		# shellcheck disable=SC2086
		timeout -k 5 600 reclaim-verify --server "$LOCAL_IP" -p "$PAIR_RV_PORT" --progress 5 \
			--stall "$PAIR_RV_STALL" --json-file "/tmp/rv-$label.json" $sargs >"$log" 2>&1 &
		pid=$!
		for ((i = 0; i < 600; i++)); do
			grep -q 'server listening' "$log" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -q 'server listening' "$log"; then
			pair_signal "nolisten-rv-$label"
			kill "$pid" 2>/dev/null
			wait "$pid"
			cat "$log"
			echo "== $label: the reclaim-verify server did not start"
			return 1
		fi
		pair_signal "listen-rv-$label" || { kill "$pid"; wait "$pid"; cat "$log"; return 1; }
		wait "$pid"
		rc=$?
		cat "$log"
		echo "== $label: server exit status $rc"
		[ "$rc" = 0 ] || pair_diag
		return "$rc"
	fi
	pair_wait_any 90 "listen-rv-$label" "nolisten-rv-$label" || return 1
	[ "$PAIR_GOT" = "listen-rv-$label" ] || { echo "== $label: the peer's server did not start"; return 1; }
	echo "== reclaim-verify --client $cargs ($label, client in $ROLE)"
	# shellcheck disable=SC2086
	timeout -k 5 600 reclaim-verify --client "$PEER" -p "$PAIR_RV_PORT" --progress 5 \
		--stall "$PAIR_RV_STALL" --json-file "/tmp/rv-$label.json" $cargs 2>&1
	rc=$?
	echo "== $label: client exit status $rc"
	[ "$rc" = 0 ] || pair_diag
	return "$rc"
}

# pair_perftest_case SERVER_ROLE SERVER_ODP CLIENT_ODP PROG ARGS...: one
# perftest case of the interop matrix, --odp on the server and/or the client
# (1 = yes).  A side with --odp must really have gone through ODP: its driver
# faulted pages in, no ODP fault failed, no page was pinned.  The client
# prints "RESULT <server>-><client> PROG ... value unit".  Returns 1 (with
# the reason) when this side failed.  (perftest 4.5 refuses --odp with
# ib_atomic_bw, "ODP does not support ATOMICS for now": ODP atomics across the
# link are reclaim-verify's.)
pair_perftest_case() {
	local srole=$1 sodp=$2 codp=$3 prog=$4 odp=0 hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	local f0 f1 e0 e1 p0 p1 rc side v kind=bw unit=Gb/s
	shift 4
	local PT_SERVER_ARGS='' PT_CLIENT_ARGS=''
	[ "$sodp" = 1 ] && PT_SERVER_ARGS=--odp
	[ "$codp" = 1 ] && PT_CLIENT_ARGS=--odp
	side=client
	[ "$ROLE" = "$srole" ] && side=server
	{ [ "$side" = server ] && [ "$sodp" = 1 ]; } || { [ "$side" = client ] && [ "$codp" = 1 ]; } && odp=1
	if [ "$odp" = 1 ]; then
		[ -e "$hw/odp_pages_faulted" ] || { echo "FAIL: --odp on $ROLE, whose rdma_rxe ($RXE_MODE) has no ODP counters"; return 1; }
		f0=$(cat "$hw/odp_pages_faulted") e0=$(cat "$hw/odp_fault_errors")
		p0=$(pins_acquired)
	fi
	pair_perftest "$srole" "$prog" "$@"
	rc=$?
	[ "$rc" = 0 ] || { echo "FAIL: $prog $* (server in $srole${PT_SERVER_ARGS:+ with --odp}${PT_CLIENT_ARGS:+, client with --odp}): the $side in $ROLE failed, rc $rc"; return 1; }
	if [ "$odp" = 1 ]; then
		f1=$(cat "$hw/odp_pages_faulted") e1=$(cat "$hw/odp_fault_errors")
		p1=$(pins_acquired)
		echo "$prog, $side with --odp in $ROLE: odp_pages_faulted +$((f1 - f0)), odp_fault_errors +$((e1 - e0)), nr_foll_pin_acquired +$((p1 - p0))"
		[ "$f1" -gt "$f0" ] || { echo "FAIL: $prog --odp on the $side ($ROLE): no page faulted in: not ODP?"; return 1; }
		[ "$e1" = "$e0" ] || { echo "FAIL: $prog --odp on the $side ($ROLE): $((e1 - e0)) ODP faults failed"; return 1; }
		[ "$p1" = "$p0" ] || { echo "FAIL: $prog --odp on the $side ($ROLE): $((p1 - p0)) pages pinned"; return 1; }
	fi
	if [ "$side" = client ]; then
		case "$prog" in *_lat) kind=lat unit=us ;; esac
		v=n/a
		perftest_clock_ok "${PT_LOG:-/tmp/perftest}-client.log" &&
			v=$(perftest_value "${PT_LOG:-/tmp/perftest}-client.log" "$kind")
		[ -n "$v" ] || { echo "FAIL: $prog: no result line in the client's log"; cat "${PT_LOG:-/tmp/perftest}-client.log"; return 1; }
		if [ "$v" != n/a ] && [ "$kind" = bw ]; then
			awk -v b="$v" 'BEGIN { exit !(b + 0 > 0) }' || { echo "FAIL: $prog reported bandwidth $v"; return 1; }
		fi
		echo "RESULT $srole($([ "$srole" = "$ROLE" ] && echo "$RXE_MODE" || echo "$PEER_RXE")${PT_SERVER_ARGS:+ odp})->$ROLE($RXE_MODE${PT_CLIENT_ARGS:+ odp}) $prog $* : $v $unit"
	fi
	return 0
}

# pair_hw NAME: this guest's rxe0 hardware counter NAME (0 when the module
# has no such counter: stock rxe has no odp_* ones).
pair_hw() {
	cat "/sys/class/infiniband/rxe0/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# pair_swap: zram swap (1 GiB) for the ODP side of reclaim-verify, so that
# pageout and a cgroup limit have somewhere to put pages.
pair_swap() { zram_swap 1G >/dev/null; }

# pair_rv_ok LABEL: the assertions on this side's report of every
# reclaim-verify run across the link that must keep all data: the tool's
# verdict is PASS, blocks moved and were verified, 0 stale, 0 corrupt,
# nothing unexplained, no error completion.  (rv_check: exits the test with
# FAIL on the first one that does not hold.)
pair_rv_ok() {
	local l=$1
	rv_check "$l" 'd["pass"]' "$ROLE: the tool's verdict is PASS"
	rv_check "$l" 'd["blocks_verified"] >= 20' "$ROLE: at least 20 blocks verified byte by byte (a lossy link is slow)"
	rv_check "$l" 'd["stale_blocks"] == 0 and d["corrupt_blocks"] == 0 and d["unexplained"] == 0' "$ROLE: 0 stale, 0 corrupt blocks"
	rv_check "$l" 'not d["error_completions"]' "$ROLE: no error completions"
	echo "$l ($ROLE, $RXE_MODE): $(rv_get "$l" 'd["blocks_verified"]') blocks verified, 0 stale, 0 corrupt, 0 error completions"
}

# pair_rv_odp LABEL: pair_rv_ok, and for the ODP side that ran every reclaim
# kind under a cgroup limit: nothing pinned, the driver faulted and
# invalidated, pageout/dontneed/remap/mprotect/cgroup fired (every kind's
# count is printed), the cgroup limit (below the working set) hit
# MRs with transfers in flight, swapped pages out, killed nothing.
pair_rv_odp() {
	local l=$1 k
	pair_rv_ok "$l"
	rv_check "$l" 'd["vmstat"]["nr_foll_pin_acquired"] == 0' "$ROLE: ODP registration and traffic pinned no page"
	rv_check "$l" 'd["hw_counters"].get("odp_faults", 0) > 0' "$ROLE: the driver faulted pages in"
	rv_check "$l" 'd["hw_counters"].get("odp_invalidations", 0) > 0' "$ROLE: the driver saw invalidations"
	# The reclaim thread runs the kinds one after another; in a starved
	# one-vCPU guest a fork (its child writes pages under the cgroup limit)
	# can take 20 s, and a 10 s run may end before thp's or compact's turn:
	# those are reported, the quick ones must have fired.
	# The cgroup kind is the limit being hit, not a scheduled event: a
	# run whose traffic crawls (5% loss) on a fast host may keep under it.
	# PAIR_RV_CGROUP_ACROSS=1: the caller checks it over several runs
	# (pair_rv_cgroup_across).
	local kinds="pageout dontneed remap mprotect"
	[ -n "${PAIR_RV_CGROUP_ACROSS:-}" ] || kinds+=" cgroup"
	for k in $kinds; do
		rv_check "$l" "d['events']['$k']['events'] > 0" "$ROLE: $k events fired"
	done
	[ -n "${PAIR_RV_CGROUP_ACROSS:-}" ] ||
		rv_check "$l" 'd["events"]["cgroup"]["in_flight"] > 0' "$ROLE: the cgroup limit hit MRs with transfers in flight"
	rv_check "$l" 'd["events"]["cgroup"]["memory_max"] < d["events"]["cgroup"]["working_set"]' "$ROLE: memory.max is below the working set"
	# zero-filled pages go to swap without I/O, counted in swpout_zero only
	rv_check "$l" 'd["vmstat"]["pswpout"] + d["vmstat"]["swpout_zero"] > 0 and d["events"]["cgroup"]["oom_kill"] == 0' "$ROLE: pages went to swap, no OOM kill"
	local ev hw
	ev=$(rv_get "$l" "', '.join('%s %d' % (k, v['events']) for k, v in sorted(d['events'].items()))")
	hw=$(rv_get "$l" "', '.join('%s %d' % (k, v) for k, v in sorted(d['hw_counters'].items()) if v)")
	echo "$l ($ROLE): events: $ev; driver: $hw"
}

# pair_rv_verify LABEL ODP_ROLE: the checks of one ODP-against-pinned
# reclaim-verify case on this side: pair_rv_odp in ODP_ROLE's guest,
# pair_rv_ok in the other.  Exits the test with FAIL when one does not hold.
# pair_rv_cgroup_across LABEL...: in this guest's reports of these runs
# together, the cgroup limit was hit with transfers in flight on the MRs
# (each run's own pair_rv_odp left that out: PAIR_RV_CGROUP_ACROSS=1).
pair_rv_cgroup_across() {
	local l ev=0 fl=0 e f
	for l in "$@"; do
		e=$(rv_get "$l" 'd["events"]["cgroup"]["events"]') || fail "$l: no report"
		f=$(rv_get "$l" 'd["events"]["cgroup"]["in_flight"]') || fail "$l: no report"
		echo "$l ($ROLE): cgroup limit hit $e times, $f with transfers in flight"
		ev=$((ev + e)) fl=$((fl + f))
	done
	[ "$ev" -gt 0 ] && [ "$fl" -gt 0 ] && { echo "ok: $*: the cgroup limit hit MRs with transfers in flight ($fl times)"; return 0; }
	fail "$ROLE: the cgroup limit was never hit with transfers in flight in $*"
}

pair_rv_verify() {
	if [ "$ROLE" = "$2" ]; then
		pair_rv_odp "$1" || fail "$1: the ODP checks did not run in $ROLE"
	else
		pair_rv_ok "$1" || fail "$1: the checks did not run in $ROLE"
	fi
}
