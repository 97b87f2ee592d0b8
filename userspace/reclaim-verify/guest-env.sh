#!/bin/bash
# Sourced in the guest by reclaim-verify's tests and by tests/demo.sh.
#
# rv_guest_setup: rdma_cm cannot use an rxe device on 'lo' (it only binds
# RoCE GIDs of ARPHRD_ETHER netdevs, and treats 127.0.0.0/8 as "any device,
# no netdev"), so move rxe0 onto a dummy Ethernet device with its own address
# (rxe loops packets to its own address back internally), and give the guest
# zram swap so pageout and the cgroup limit have somewhere to put pages.
# Sets RV_ADDR.
rv_guest_setup() {
	RV_ADDR=10.77.0.1
	export RV_ADDR
	if ! ip -4 addr show dev rv0 2>/dev/null | grep -q "$RV_ADDR"; then
		rdma link delete rxe0 2>/dev/null
		ip link add rv0 type dummy || return 1
		ip link set rv0 mtu 9000 up || return 1
		ip addr add "$RV_ADDR/24" dev rv0 || return 1
		rdma link add rxe0 type rxe netdev rv0 || return 1
		local i
		for i in $(seq 50); do
			grep -q "0a4d:0001" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null && break
			sleep 0.1
		done
	fi
	if ! grep -q zram /proc/swaps; then
		modprobe zram || return 1
		local dev
		dev=$(zramctl --find --size 1G) || return 1
		mkswap "$dev" >/dev/null || return 1
		swapon "$dev" || return 1
	fi
	return 0
}
