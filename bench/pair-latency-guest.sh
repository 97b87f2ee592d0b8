#!/bin/bash
# The guests' half of bench/pair-latency.sh, run in both guests of one
# tests/vm/pair boot: the latency of the link with and without RDMA on it.
#   ping      busybox ping -c 20 from a to b (ICMP, answered in b's softirq)
#   udp       50 UDP round trips, a to b (bench/udp-pingpong.py: user space on
#             both sides, one datagram each way)
#   lat       ib_write_lat -s 8 -n $PAIRLAT_ITERS, PAIRLAT_REPS times, server
#             in a, client in b (tests/lib/perftest.sh: -F, ports, timeouts)
#   send_lat  ib_send_lat -s 8 -n $PAIRLAT_ITERS once
# Every figure is printed by b or a as "PAIRLAT WHAT ... median X ms"; perftest's
# t_typical is its median of the one-way latency (half the round trip).
# usage: bench/pair-latency-guest.sh   (under tests/vm/pair)
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"
ITERS=${PAIRLAT_ITERS:-100} REPS=${PAIRLAT_REPS:-3}
echo "PAIRLAT guest $ROLE: rxe $RXE_MODE, peer $PEER_RXE, $(nproc) vCPU"
if [ "$ROLE" = a ]; then
	busybox ping -c 20 "$PEER" >/tmp/ping.txt
	echo "PAIRLAT ping a->b: median $(grep -o 'time=[0-9.]*' /tmp/ping.txt | cut -d= -f2 | sort -n | sed -n 10p) ms ($(tail -1 /tmp/ping.txt))"
	pair_wait udp-listen || exit 1
	r=$(timeout 200 /usr/bin/python3 "$TOP/bench/udp-pingpong.py" client "$PEER" 9911 50) || exit 1
	read -r mn md p9 mx <<<"$r"
	echo "PAIRLAT udp a->b: median $md ms (min $mn, p90 $p9, max $mx ms, 50 round trips)"
	pair_signal udp-done || exit 1
else
	timeout 200 /usr/bin/python3 "$TOP/bench/udp-pingpong.py" server "$LOCAL_IP" 9911 50 &
	sleep 2
	pair_signal udp-listen || exit 1
	pair_wait udp-done || exit 1
	wait
fi
rc=0
one() {
	local what=$1 prog=$2 v
	pair_perftest a "$prog" -s 8 -n "$ITERS" >/tmp/pairlat.log 2>&1 || { cat /tmp/pairlat.log; rc=1; return; }
	[ "$ROLE" = b ] || return
	# t_typical: perftest's median; n/a when its clock calibration failed (-F)
	v=n/a
	perftest_clock_ok /tmp/perftest-client.log && v=$(awk '
		/^ *#bytes/ { for (i = 1; i <= NF; i++) if ($i == "t_typical[usec]") c = i; next }
		c && $1 ~ /^[0-9]+$/ { printf "%.3f", $c / 1000; exit }' /tmp/perftest-client.log)
	echo "PAIRLAT $what a($PEER_RXE)<-b($RXE_MODE): median ${v:-n/a} ms (t_typical, one way)"
}
for ((i = 1; i <= REPS; i++)); do
	one "ib_write_lat#$i" ib_write_lat
done
one ib_send_lat ib_send_lat
exit $rc
