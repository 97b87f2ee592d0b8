#!/bin/bash
# debug-kernel:
# A packet rxe's own qdisc refuses is a lost packet, not a local error
# (patch 0034): rxe on a veth whose peer end, in another network namespace,
# has an address but no RDMA; netem on rxe's end holds packets 200 ms and
# takes at most 8, so it refuses (NET_XMIT_DROP) most of a burst.  Then
# userspace/xmit-lost posts 32 UD SENDs at once (each must complete
# successfully: a lost datagram) and one RC WRITE of 32 packets (it must be
# retransmitted until its retry count runs out, IBV_WC_RETRY_EXC_ERR, as
# nobody answers); send_err must grow.  Stock 6.12 rxe fails both with
# IBV_WC_LOC_QP_OP_ERR and moves the QPs to the error state, as pair/30's
# ODP client saw under netem (tests/README.md, flake table).
source "$TOP/tests/lib/guest.sh"

command -v xmit-lost >/dev/null || fail "xmit-lost not built (make)"
veth_rxe xl 169.254.78.1 169.254.78.2
case $? in
0) ;;
77) skip "no veth in this kernel" ;;
*) fail "veth_rxe" ;;
esac
# the peer's MAC is known before netem slows everything down
busybox ping -c 1 -W 5 169.254.78.2 >/dev/null || fail "the veth peer does not answer"
tc qdisc add dev xl0 root netem delay 200ms limit 8 || fail "tc netem on xl0"
rc=0
xmit-lost --dev xlrxe --peer 169.254.78.2 || rc=$?
tc -s qdisc show dev xl0
veth_rxe_del xl
[ "$rc" = 0 ] || fail "xmit-lost exit status $rc"
echo "53-xmit-lost: ok"
