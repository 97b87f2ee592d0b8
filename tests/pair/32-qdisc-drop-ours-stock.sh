#!/bin/bash
# OUR requester (guest a) against Debian's stock responder (guest b) while
# a's own qdisc refuses packets (patch 0034): netem 'delay 5ms limit 10' on
# a's eth0 alone holds packets 5 ms and refuses (NET_XMIT_DROP) any beyond
# 10, so a burst of a 64-packet message (RoCE MTU 1024) or of READ requests
# loses packets before the wire.  A refused packet is a lost packet: the
# requester's retransmit timer or the stock responder's sequence-error NAK
# gets it resent.  ib_write_bw, ib_read_bw and ib_send_bw with --odp on our
# client, ib_atomic_bw pinned, all against a stock server: each completes,
# a's send_err grew (the qdisc did refuse packets), no QP gave up.  Stock
# rxe, and ours before 0034, fail the WQE with IBV_WC_LOC_QP_OP_ERR and the
# QP goes to the error state.  (The other way round, a stock requester
# against our responder whose ACKs and READ responses are refused, takes
# loss recovery from the stock requester, which has the bugs of
# kernel/KNOWN-ISSUES.md 11: not tested here.)
# pair-args: --a ours --b stock --mtu 1500
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"

CNT="send_err sent_pkts completer_retry_err rcvd_seq_err retry_exceeded_err retry_rnr_exceeded_err"
declare -A c0
for c in $CNT; do c0[$c]=$(pair_hw "$c"); done
if [ "$ROLE" = a ]; then
	pair_netem delay 5ms limit 10 || fail "netem in a"
fi

BW="-s 65536 -n 20 --report_gbits"
for prog in ib_write_bw ib_read_bw ib_send_bw; do
	# shellcheck disable=SC2086
	pair_perftest_case b 0 1 "$prog" $BW || { [ "$ROLE" = a ] && pair_diag; exit 1; }
done
pair_perftest_case b 0 0 ib_atomic_bw -n 100 --report_gbits || { [ "$ROLE" = a ] && pair_diag; exit 1; }

line=
for c in $CNT; do line+=" $c +$(($(pair_hw "$c") - c0[$c]))"; done
echo "rxe0 counters in $ROLE ($RXE_MODE) over the test:$line"
if [ "$ROLE" = a ]; then
	tc -s qdisc show dev eth0
	[ "$(pair_hw send_err)" -gt "${c0[send_err]}" ] ||
		fail "a: send_err did not grow: the qdisc refused no packet, nothing was tested"
fi
for c in retry_exceeded_err retry_rnr_exceeded_err; do
	[ "$(pair_hw "$c")" = "${c0[$c]}" ] || fail "$ROLE: $c moved: a QP gave up"
done
echo "32-qdisc-drop-ours-stock ($ROLE): ok"
