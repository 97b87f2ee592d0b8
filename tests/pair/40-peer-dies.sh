#!/bin/bash
# A peer that disappears mid-transfer: guest b (Debian's stock rdma_rxe) serves
# ib_write_bw, guest a (OUR rdma_rxe) is its client with --odp; once traffic
# flows, a has b's QEMU killed (as if the machine lost power).  a's QP must
# complete with an error (transport retries exceeded) within a bound, nothing
# hangs, every resource of the run is gone afterwards (rdma resource counts
# back to where they were: no MR, QP, CQ, PD or context leak), and rxe0 still
# works (a loopback ib_write_bw --odp on it).  The QPs come from rdma_cm
# (perftest -R) with retry_count 6: rxe, stock and ours, takes retry_cnt 7 as
# "retry forever" (perftest's default without -R; reclaim-verify's too).
# pair-args: --a ours --b stock --mtu 1500
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"

res() { # this guest's rxe0 resource counts: "pd N cq N qp N cm_id N mr N ctx N"
	rdma resource show | awk '$2 == "rxe0:" { $1 = $2 = ""; sub(/^ +/, ""); print }'
}

perftest_next_port
if [ "$ROLE" = b ]; then
	perftest_server "$PT_PORT" /tmp/peer-dies-server.log ib_write_bw -R --retry_count 6 -s 65536 -D 60 --report_gbits ||
		{ pair_signal "nolisten-$PT_PORT"; fail "the ib_write_bw server did not start"; }
	pair_signal "listen-$PT_PORT" || fail "could not tell a that the server listens"
	# a kills this guest; if it never does, a failed: this bound ends b too
	pair_wait never 300
	fail "b was not killed by its peer"
fi

r0=$(res)
echo "rxe0 resources before: $r0"
e0=$(pair_hw retry_exceeded_err) s0=$(pair_hw sent_pkts)
pair_wait_any 120 "listen-$PT_PORT" "nolisten-$PT_PORT" || fail "no word from b's server"
[ "$PAIR_GOT" = "listen-$PT_PORT" ] || fail "b's server did not start"
perftest_client "$PT_PORT" /tmp/peer-dies-client.log "$PEER" ib_write_bw -R --retry_count 6 ${PD_ODP---odp} -s 65536 -D 60 --report_gbits &
cpid=$!
# traffic flows: the client sent a few hundred packets
for ((i = 0; i < 1200; i++)); do
	[ $(($(pair_hw sent_pkts) - s0)) -ge 500 ] && break
	kill -0 "$cpid" 2>/dev/null || break
	sleep 0.1
done
s1=$(pair_hw sent_pkts)
[ $((s1 - s0)) -ge 500 ] || fail "no traffic towards b: $((s1 - s0)) packets sent (client alive: $(kill -0 $cpid 2>/dev/null && echo yes || echo no))"
echo "traffic flows ($((s1 - s0)) packets sent): killing b"
t0=$SECONDS
pair_kill_peer || fail "b is still there"
# perftest_client's timeout (PT_TIMEOUT) bounds a hang
wait "$cpid"
rc=$?
echo "the client ended $((SECONDS - t0)) s after b was killed, rc $rc"
for c in retry_exceeded_err completer_retry_err rcvd_seq_err send_err sent_pkts; do printf '%s %s  ' "$c" "$(pair_hw "$c")"; done
echo
[ "$rc" != 124 ] || fail "the client hung until its timeout"
[ "$rc" != 0 ] || fail "the client passed although its peer died mid-transfer"
grep -Eq 'status|error|Failed' /tmp/peer-dies-client.log || fail "the client's log shows no completion error"
grep -E -m3 'status|error|Failed' /tmp/peer-dies-client.log
e1=$(pair_hw retry_exceeded_err)
[ "$e1" -gt "$e0" ] || fail "retry_exceeded_err did not move ($e0 -> $e1): how did the QP end?"
echo "retry_exceeded_err +$((e1 - e0))"
# the process is gone: every resource it held must be gone with it
for ((i = 0; i < 100; i++)); do
	[ "$(res)" = "$r0" ] && break
	sleep 0.1
done
r1=$(res)
echo "rxe0 resources after: $r1"
[ "$r1" = "$r0" ] || { rdma resource show mr; rdma resource show qp; fail "resources leaked: before '$r0', after '$r1'"; }
# the device still works
PT_LOG=/tmp/after perftest ib_write_bw --odp -s 65536 -n 100 --report_gbits ||
	fail "rxe0 does not work after its peer died"
echo "40-peer-dies ($ROLE): ok"
