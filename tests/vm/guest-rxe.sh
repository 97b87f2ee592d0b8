#!/bin/bash
# Sourced by the job script in the guest: bring up Soft-RoCE.
#   RXE_MODE=ours   insmod the rdma_rxe.ko we built (RXE_KO), never Debian's
#   RXE_MODE=stock  modprobe Debian's rdma_rxe (for comparisons)
#   RXE_MODE=none   no RDMA
# On success rxe0 runs on lo (on eth0 with tests/vm/run --net: RXE_NETDEV,
# RXE_NET_IP, RXE_NET_MTU) and RXE_GID holds the IPv4-mapped GID index.

# net_up: eth0, the virtio NIC of tests/vm/run --net, up with its address and
# MTU, and netem ready for tests that lose or reorder packets.
net_up() {
	modprobe -a virtio_net sch_netem || return 1
	ip link set eth0 mtu "$RXE_NET_MTU" || return 1
	ip addr add "$RXE_NET_IP" dev eth0 || return 1
	ip link set eth0 up || return 1
	echo "guest: eth0 $RXE_NET_IP mtu $RXE_NET_MTU"
}

rxe_up() {
	if [ -n "${RXE_NETDEV:-}" ]; then
		net_up || { echo "guest: eth0 setup failed"; return 1; }
	fi
	case "$RXE_MODE" in
	none) return 0 ;;
	ours)
		modprobe -a ib_uverbs ib_core ip6_udp_tunnel udp_tunnel rdma_ucm || return 1
		insmod "$RXE_KO" || { echo "guest: insmod $RXE_KO failed"; return 1; }
		local v
		v=$(cat /sys/module/rdma_rxe/version 2>/dev/null)
		if [ "$v" != "$RXE_VERSION" ]; then
			echo "guest: loaded rdma_rxe has version '$v', expected '$RXE_VERSION'"
			return 1
		fi
		echo "guest: rdma_rxe $v loaded from $RXE_KO"
		;;
	stock)
		modprobe -a rdma_rxe rdma_ucm || return 1
		if [ -e /sys/module/rdma_rxe/version ]; then
			echo "guest: stock rdma_rxe unexpectedly has a version stamp"
			return 1
		fi
		echo "guest: Debian's stock rdma_rxe loaded ($(modinfo -n rdma_rxe))"
		;;
	*)
		echo "guest: unknown RXE_MODE=$RXE_MODE"
		return 1
		;;
	esac
	rdma link add rxe0 type rxe netdev "${RXE_NETDEV:-lo}" || return 1
	# Tests address rxe0 by its IPv4-mapped GID: wait for it (bounded)
	# rather than guess its index.
	local i
	for i in $(seq 300); do
		RXE_GID=$(ibv_devinfo -v -d rxe0 | sed -n 's/.*GID\[ *\([0-9]*\)\]:.*::ffff:.*/\1/p' | head -1)
		[ -n "$RXE_GID" ] && break
		sleep 0.1
	done
	[ -n "$RXE_GID" ] || { echo "guest: rxe0 has no IPv4-mapped GID after 30 s"; return 1; }
	export RXE_GID
	chmod 666 /dev/infiniband/* 2>/dev/null
	return 0
}
