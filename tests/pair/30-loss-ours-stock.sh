#!/bin/bash
# OUR rdma_rxe with ODP (guest a) against Debian's stock rdma_rxe (guest b)
# on a link that loses packets, MTU 1500: tests/vm/pair --netem puts
# 'loss 1% delay 1ms' on both guests' eth0, so each direction loses 1%.
# perftest (write, read, send) with --odp on our server and on our client;
# reclaim-verify both ways with every reclaim kind under a cgroup limit on the
# ODP side; then 5% loss, reclaim-verify both ways again.  (Reordering on
# top, 'reorder 25% 50%', stalls a stock client against our ODP server:
# tests/pair/pending/31-loss-reorder-ours-stock.sh.)
# Retransmission races ODP faults, RNR NAKs and invalidations: every run
# completes, both sides verify every byte (0 stale, 0 corrupt, 0 error
# completions), and both guests really retransmitted (their rxe counters of
# sequence errors, duplicates and retries moved).
# pair-args: --a ours --b stock --mtu 1500 --netem 'loss 1% delay 1ms'
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"

CNT="out_of_seq_request duplicate_request rcvd_seq_err completer_retry_err rcvd_rnr_err send_rnr_err retry_exceeded_err retry_rnr_exceeded_err odp_rnr_naks odp_fault_retries odp_fault_errors"
declare -A c0
for c in $CNT; do c0[$c]=$(pair_hw "$c"); done
tc qdisc show dev eth0 | grep -q 'netem.*loss 1%' || fail "no netem loss on eth0 in $ROLE: $(tc qdisc show dev eth0)"

if [ "$RXE_MODE" = ours ]; then
	pair_swap || fail "zram swap in $ROLE"
fi

BW="-s 65536 -n 100 --report_gbits"
for prog in ib_write_bw ib_read_bw ib_send_bw; do
	# shellcheck disable=SC2086
	pair_perftest_case a 1 0 "$prog" $BW || exit 1 # ours --odp serves stock
	# shellcheck disable=SC2086
	pair_perftest_case b 0 1 "$prog" $BW || exit 1 # stock serves ours --odp
done

# A stock requester must not mix RDMA READ or atomics with WRITE/SEND on a
# link that loses packets: when it resends a WRITE/SEND, the responder ACKs
# each duplicate with its latest PSN, and stock rxe's completer takes such an
# ACK for the READ or atomic at the head of its send queue (our patch 0014
# fixes that in ours): a WARN in the stock completer, a wrong read-back, and
# the QP in error.  It takes a responder slow enough for the requester to
# time out and resend: our ODP server under a cgroup limit and 1% loss is
# (seen in this test), a pinned stock or ours server was not in 20 s of the
# same traffic.  So the stock client writes and sends only; our ODP client
# runs every operation.
ODP="--odp -r all -d 10"
STOCK="--pinned -r none -d 10"
STOCK_CLIENT="$STOCK --ops write,send"
rv_both() { # LABEL: our ODP server, then our ODP client, against stock
	pair_rv a "$1-odp-server" "$ODP" "$STOCK_CLIENT" || fail "$1-odp-server run failed in $ROLE"
	pair_rv_verify "$1-odp-server" a
	pair_rv b "$1-odp-client" "$STOCK" "$ODP" || fail "$1-odp-client run failed in $ROLE"
	pair_rv_verify "$1-odp-client" a
}
rv_both loss1
pair_netem loss 5% delay 1ms || fail "netem in $ROLE"
rv_both loss5
pair_netem

line=
for c in $CNT; do line+=" $c +$(($(pair_hw "$c") - c0[$c]))"; done
echo "rxe0 counters in $ROLE ($RXE_MODE) over the test:$line"
re=0
for c in out_of_seq_request duplicate_request rcvd_seq_err completer_retry_err; do
	re=$((re + $(pair_hw "$c") - c0[$c]))
done
[ "$re" -gt 0 ] || fail "$ROLE: no retransmission seen (no sequence error, duplicate or retry) on a lossy link"
for c in retry_exceeded_err retry_rnr_exceeded_err; do
	[ "$(pair_hw "$c")" = "${c0[$c]}" ] || fail "$ROLE: $c moved: a QP gave up"
done
echo "30-loss-ours-stock ($ROLE): ok"
