#!/bin/bash
# Latency across the link of tests/vm/pair (issue 11): ping, UDP ping-pong,
# ib_write_lat and ib_send_lat in one pair boot (bench/pair-latency-guest.sh
# says what each is), the host's load before and after, and on a TCP link
# TCP_NODELAY of both QEMUs' ends (bench/tcp-nodelay.py).  tests/README.md
# "Latency across the pair" has what it found.
#
# usage: bench/pair-latency.sh [--a ours|stock] [--b ours|stock] [--link tcp|unix]
#                              [-n ITERS] [--reps N] [--logdir DIR]
#   -n ITERS   perftest iterations per run (default 100)
#   --reps N   ib_write_lat runs (default 3)
# Prints the PAIRLAT lines of both guests; exit status: tests/vm/pair's.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
A=ours B=ours LINK=tcp ITERS=100 REPS=3 LOGDIR=
while [ $# -gt 0 ]; do
	case "$1" in
	--a) A=$2; shift 2 ;;
	--b) B=$2; shift 2 ;;
	--link) LINK=$2; shift 2 ;;
	-n) ITERS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--logdir) LOGDIR=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "pair-latency: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$ITERS" =~ ^[1-9][0-9]*$ && "$REPS" =~ ^[1-9][0-9]*$ ]] || { echo "pair-latency: -n and --reps take numbers" >&2; exit 2; }
[ -n "$LOGDIR" ] || LOGDIR=$TOP/build/pair-latency/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$LOGDIR" || exit 2
echo "pair-latency: a=$A b=$B link $LINK, $REPS x ib_write_lat -n $ITERS; host load before: $(cat /proc/loadavg)"
# once both commands started, the link is up: its TCP ends' TCP_NODELAY
probe() {
	local i r
	for ((i = 0; i < 3000; i++)); do
		grep -aq '^PAIR_CMD_START' "$LOGDIR/a.console" 2>/dev/null && break
		sleep 0.2
	done
	for r in a b; do
		[ -s "$LOGDIR/$r.pid" ] && python3 "$TOP/bench/tcp-nodelay.py" "$(cat "$LOGDIR/$r.pid")" | sed "s/^/pair-latency: QEMU of $r: /"
	done
}
PROBE=
if [ "$LINK" = tcp ]; then
	probe & PROBE=$!
fi
PAIRLAT_ITERS=$ITERS PAIRLAT_REPS=$REPS "$TOP/tests/vm/pair" -q --a "$A" --b "$B" --link "$LINK" --logdir "$LOGDIR" \
	--cmd-a "PAIRLAT_ITERS=$ITERS PAIRLAT_REPS=$REPS bash bench/pair-latency-guest.sh" \
	--cmd-b "PAIRLAT_ITERS=$ITERS PAIRLAT_REPS=$REPS bash bench/pair-latency-guest.sh" >"$LOGDIR/pair.log" 2>&1
rc=$?
[ -n "$PROBE" ] && { kill "$PROBE" 2>/dev/null; wait "$PROBE" 2>/dev/null; }
grep -a -h '^PAIRLAT' "$LOGDIR/a.console" "$LOGDIR/b.console" | tr -d '\r'
echo "pair-latency: host load after: $(cat /proc/loadavg); tests/vm/pair rc=$rc, logs $LOGDIR"
[ "$rc" = 0 ] || tail -20 "$LOGDIR/pair.log"
exit "$rc"
