#!/bin/bash
# In one guest boot: blocks of bench/profile.sh's sched case (pinned and
# --odp perftest pairs) under two rdma_rxe modules, A (main) and B (the ODP
# copy's length hidden from gcc, so that it calls memcpy() as the pinned
# path does instead of an inline rep movsq), in the order A B A B.
# usage: run.sh OUT KO_A KO_B PAIRS_PER_BLOCK
set -uo pipefail
OUT=$1 A=$2 B=$3 N=$4
swap() {
	rdma link delete rxe0 || return 1
	rmmod rdma_rxe || return 1
	insmod "$1" || return 1
	rdma link add rxe0 type rxe netdev lo || return 1
	for i in $(seq 50); do
		ibv_devinfo -d rxe0 2>/dev/null | grep -q PORT_ACTIVE && break
		sleep 0.2
	done
	echo "module: $(cat /sys/module/rdma_rxe/srcversion) $1"
}
blk=0
for m in A B A B; do
	blk=$((blk + 1))
	ko=$A; [ "$m" = B ] && ko=$B
	swap "$ko" || { echo "swap to $ko failed"; exit 1; }
	PROFILE_SCHED_PAIRS=$N PROFILE_SCHED_RUNS="ib_read_bw 4096,ib_write_bw 1048576" \
		bash "$TOP/bench/profile.sh" "$OUT/$blk-$m" sched >"$OUT/$blk-$m.log" 2>&1
	tail -40 "$OUT/$blk-$m/sched.txt"
done
