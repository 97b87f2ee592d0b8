#!/bin/bash
# Helpers for guest tests (sourced).  rxe0 is up and $RXE_GID set by tests/vm/run.
IP=127.0.0.1

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# wait_listen, perftest and its server/client halves
# shellcheck source=perftest.sh
source "$(dirname "${BASH_SOURCE[0]}")/perftest.sh"
# zram_swap
# shellcheck source=swap.sh
source "$(dirname "${BASH_SOURCE[0]}")/swap.sh"

# veth_rxe N LOCAL PEER: rxe device Nrxe on veth N0 (LOCAL/24), whose other
# end N1 (PEER/24) sits in the network namespace Npeer where no RDMA runs:
# an address that answers ARP and nothing else, for a test that looks at
# what rxe puts on a real link (on lo rxe loops packets back inside itself).
# Returns 77 when this kernel has no veth, 1 (saying why) on another failure.
veth_rxe() {
	local n=$1 local_ip=$2 peer_ip=$3
	ip link add "${n}0" type veth peer name "${n}1" 2>/dev/null || return 77
	ip netns add "${n}peer" || { echo "veth_rxe: ip netns add ${n}peer failed"; return 1; }
	if ! { ip link set "${n}1" netns "${n}peer" &&
		ip addr add "$local_ip/24" dev "${n}0" &&
		ip link set "${n}0" up &&
		ip -n "${n}peer" addr add "$peer_ip/24" dev "${n}1" &&
		ip -n "${n}peer" link set "${n}1" up; }; then
		echo "veth_rxe: setting up ${n}0/${n}1 failed"
		return 1
	fi
	rdma link add "${n}rxe" type rxe netdev "${n}0" || { echo "veth_rxe: rdma link add on ${n}0 failed"; return 1; }
}

# veth_rxe_del N: remove what veth_rxe N made.
veth_rxe_del() {
	rdma link delete "${1}rxe"
	ip netns delete "${1}peer"
	ip link delete "${1}0" 2>/dev/null
}
