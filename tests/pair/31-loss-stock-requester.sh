#!/bin/bash
# History: pending until 5 December.  On 4 December, host load 10-30 (several
# helpers' guests), 0 of 5 runs passed.  r1: the lossy part's reclaim-verify
# server lacked -b 4K (fixed then); r2, r3: RCU stall reports in guest a.
# Explained on 5 December (branch p31: runs with a responder debug log, and
# a busy loop in guest a standing in for the load):
# - s1, our server's rdma_create_qp failed with EINVAL in the no-loss run:
#   reclaim-verify's server started its reclaim thread at the FIRST QP's
#   ESTABLISHED; a fork event under the cgroup limit then thrashed guest a
#   while the client connected its other QPs, the client gave up after its
#   20 s wait for ESTABLISHED and the server's late rdma_create_qp() met a
#   CM ID rejected by then (reproduced: "rdma_create_qp: Invalid argument",
#   client QP 4 left in INIT).  Fixed in the tool: the server's reclaim
#   starts once all QPs are connected.
# - s2, the no-loss run STALLED (no completion for 60 s) with frozen stock
#   sq-psns, thousands of duplicate requests at our responder, 0 RNR NAKs:
#   not a protocol livelock.  The same picture with the busy loop: a fork
#   event of 41.9 s, the server frozen 22 s, our responder's rxe_wq work in
#   D state in mmu_interval_read_begin() (an ODP fault waiting for the
#   invalidations of the server's mm to end), the stock requester timing
#   out every 4.3 s (completer_retry_err +4 per 5 s, sq-psn frozen) and
#   resending its window (duplicate_request +2180), then everything
#   completed and verified.  Our answers to duplicates, logged one by one:
#   an ACK at the newest PSN for a SEND/WRITE, a replay from the resource
#   for a READ or atomic.  At host load 10-30 such a fork can outlast the
#   tool's 60 s stall limit; pair/20 runs the same ODP server under the
#   same reclaim and has the same exposure.
# Then 3 of 3 runs passed (141, 161, 440 s, host load 3-6.5): out of pending/.
#
# Debian's STOCK rdma_rxe as the requester (guest b) against OUR rdma_rxe with
# ODP as the responder (guest a): tests/pair/30 turned around.  Our server's
# MRs are ODP, every reclaim kind fires on them under a cgroup limit below the
# working set, so our responder faults, answers RNR NAK while a page cannot be
# had, and is slow enough to make the stock requester time out and resend.
# MTU 4200 on the link (RoCE MTU 4096).
#
# 1. No loss: perftest write/read/send (64 KiB) with --odp on our server,
#    atomic (pinned: perftest refuses --odp with it), and reclaim-verify with
#    every operation (64 KiB blocks), stock client, our ODP server.
# 2. 'loss 1% delay 1ms' on both guests' eth0, then 'loss 5% delay 1ms
#    reorder 25% 50%': perftest write and send, reclaim-verify writing and
#    sending, all with messages of ONE packet (4 KiB at MTU 4096).  A stock
#    requester on a lossy link corrupts its own multi-packet SEND/WRITE stream
#    after a second timeout (a stock responder then NAKs it: invalid request),
#    and completes an RDMA READ or atomic with a duplicate's ACK: both happen
#    against a stock responder too, see kernel/KNOWN-ISSUES.md 11; our
#    requester has the fixes (patches 0015 and 0014).  So the lossy part
#    leaves out what stock cannot do (multi-packet messages, READ, atomics),
#    part 1 keeps them.  P31_LOSS_BLOCK=64K (in both guests) puts the
#    multi-packet messages back, which fails on stock's bug.
# Every run completes, both sides verify every byte (0 stale, 0 corrupt,
# 0 error completions), the stock requester really resent and our responder
# really saw duplicates or out-of-sequence requests, and no QP gave up.
# pair-args: --a ours --b stock --mtu 4200 --netem 'loss 1% delay 1ms'
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"
source "$TOP/userspace/reclaim-verify/guest-env.sh"

CNT="out_of_seq_request duplicate_request rcvd_seq_err completer_retry_err rcvd_rnr_err send_rnr_err retry_exceeded_err retry_rnr_exceeded_err odp_rnr_naks odp_fault_retries odp_fault_errors"
declare -A c0
tc qdisc show dev eth0 | grep -q 'netem.*loss 1%' || fail "no netem loss on eth0 in $ROLE: $(tc qdisc show dev eth0)"
mtu=$(ibv_devinfo -d rxe0 | awk '$1 == "active_mtu:" { print $2 }')
LB=${P31_LOSS_BLOCK:-4K}
[ "$LB" != 4K ] || [ "$mtu" = 4096 ] || fail "$ROLE: active MTU $mtu, not 4096: 4 KiB messages would not be one packet"

if [ "$RXE_MODE" = ours ]; then
	pair_swap || fail "zram swap in $ROLE"
fi
ODP="--odp -r all -d 10"
STOCK="--pinned -r none -d 10"

# ---- 1. no loss: everything.  A stock requester must not time out here:
# resending a multi-packet message, a READ or an atomic is what it gets wrong
# (KNOWN-ISSUES 11), and our responder, faulting ODP pages under reclaim on a
# loaded host, can take longer than perftest's 67 ms (-u 14) or rdma_cm's
# QP timeout.  4.3 s (2^20 x 4.096 us) it never takes without loss.
pair_netem
for prog in ib_write_bw ib_read_bw ib_send_bw; do
	pair_perftest_case a 1 0 "$prog" -s 65536 -n 100 -u 20 --report_gbits || exit 1 # ours --odp serves stock
done
pair_perftest_case a 0 0 ib_atomic_bw -n 100 -u 20 --report_gbits || exit 1
pair_rv a noloss-all-ops "$ODP" "$STOCK --ack-timeout 20" || fail "noloss-all-ops run failed in $ROLE"
pair_rv_verify noloss-all-ops a

# ---- 2. loss: one-packet WRITE and SEND (KNOWN-ISSUES 11)
for c in $CNT; do c0[$c]=$(pair_hw "$c"); done
pair_netem loss 1% delay 1ms || fail "netem in $ROLE"
lbytes=$((${LB%K} * 1024))
for prog in ib_write_bw ib_send_bw; do
	pair_perftest_case a 1 0 "$prog" -s "$lbytes" -n 400 --report_gbits || exit 1
done
pair_rv a loss1-write-send "$ODP -b $LB" "$STOCK --ops write,send -b $LB" || fail "loss1-write-send run failed in $ROLE"
pair_rv_verify loss1-write-send a
pair_netem loss 5% delay 1ms reorder 25% 50% || fail "netem in $ROLE"
pair_rv a loss5-reorder-write-send "$ODP -b $LB" "$STOCK --ops write,send -b $LB" ||
	fail "loss5-reorder-write-send run failed in $ROLE"
pair_rv_verify loss5-reorder-write-send a
pair_netem

line=
for c in $CNT; do line+=" $c +$(($(pair_hw "$c") - c0[$c]))"; done
echo "rxe0 counters in $ROLE ($RXE_MODE) over the lossy part:$line"
moved() { echo $(($(pair_hw "$1") - c0[$1])); }
if [ "$ROLE" = b ]; then
	# a timeout, a sequence NAK or an RNR NAK made the stock requester resend
	[ $(($(moved completer_retry_err) + $(moved rcvd_seq_err) + $(moved rcvd_rnr_err))) -gt 0 ] ||
		fail "b: the stock requester never resent on a lossy link"
else
	[ $(($(moved duplicate_request) + $(moved out_of_seq_request))) -gt 0 ] ||
		fail "a: our responder saw no duplicate and no out-of-sequence request on a lossy link"
fi
for c in retry_exceeded_err retry_rnr_exceeded_err; do
	[ "$(pair_hw "$c")" = "${c0[$c]}" ] || fail "$ROLE: $c moved: a QP gave up"
done
echo "31-loss-stock-requester ($ROLE): ok"
