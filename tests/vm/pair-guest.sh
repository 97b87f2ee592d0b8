#!/bin/bash
# The job of each guest of tests/vm/pair (run by tests/vm/run, rxe0 up on eth0):
# start the signal listener, wait until the peer answers on the link and has
# its listener up too (a rendezvous in both directions), set netem, then run
# the command with ROLE, PEER, PEER_GID... in its environment (tests/lib/pair.sh
# says what each is) and the pair_* functions exported.
#
# usage: pair-guest.sh ROLE LOCAL_IP PEER_IP PEER_RXE NETEM -- COMMAND...
#        (NETEM: netem arguments for eth0, or '' for none)
set -uo pipefail
[ $# -ge 7 ] && [ "$6" = -- ] || { echo "usage: pair-guest.sh ROLE LOCAL_IP PEER_IP PEER_RXE NETEM -- CMD..."; exit 2; }
export ROLE=$1 LOCAL_IP=$2 PEER=$3 PEER_RXE=$4
NETEM=$5
shift 6
export PEER_ROLE=b
[ "$ROLE" = b ] && PEER_ROLE=a
# shellcheck source=../lib/pair.sh
source "$TOP/tests/lib/pair.sh"
export PAIR_PORT PAIR_DIR PAIR_WAIT
export -f pair_signal pair_wait pair_sync pair_netem pair_kill_peer
hostname "pair-$ROLE"

# The peer's IPv4-mapped GID as sysfs prints GIDs (::ffff:a.b.c.d).
PEER_GID=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${PEER//./ })
export PEER_GID

mkdir -p "$PAIR_DIR"
/usr/bin/python3 "$TOP/tests/vm/pair-signal.py" "$PAIR_PORT" "$PAIR_DIR" >"$PAIR_DIR/signal.log" 2>&1 &
for ((i = 0; i < 300; i++)); do
	[ -e "$PAIR_DIR/listening" ] && break
	sleep 0.1
done
[ -e "$PAIR_DIR/listening" ] || { echo "pair-guest: the signal listener did not start"; cat "$PAIR_DIR/signal.log"; exit 1; }

# The link: the peer may still be booting (b starts once a's QEMU listens).
# (busybox ping: iputils-ping is not among the packages the project installs)
t0=$SECONDS
until busybox ping -c 1 -W 1 "$PEER" >/dev/null 2>&1; do
	if [ $((SECONDS - t0)) -ge "$PAIR_WAIT" ]; then
		echo "pair-guest: no ping answer from the peer $PEER in $PAIR_WAIT s"
		exit 1
	fi
done
pair_sync up || exit 1
echo "pair-guest: $ROLE ($LOCAL_IP, rxe $RXE_MODE, GID index $RXE_GID) meets $PEER_ROLE ($PEER, rxe $PEER_RXE) after $((SECONDS - t0)) s"
if [ -n "$NETEM" ]; then
	# shellcheck disable=SC2086
	pair_netem $NETEM || exit 1
fi
echo "rxe0: $(ibv_devinfo -d rxe0 | grep -E 'active_mtu' | tr -s ' \t' ' ')"
echo "PAIR_CMD_START"
"$@"
