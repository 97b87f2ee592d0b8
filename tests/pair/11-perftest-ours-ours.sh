#!/bin/bash
# perftest across the link between two guests with OUR rdma_rxe, MTU 1500:
# ib_write_bw, ib_read_bw and ib_send_bw with --odp on the server, on the
# client and on both, ib_write_lat with --odp on both; ib_atomic_bw pinned, both
# ways (perftest has no --odp for atomics).  Each run completes on both
# sides, and every side with --odp faulted its pages in without pinning any.
# pair-args: --a ours --b ours --mtu 1500
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"

mtu=$(ibv_devinfo -d rxe0 | awk '/active_mtu/ { print $2 }')
[ "$mtu" = 1024 ] || fail "rxe0 in $ROLE has active_mtu $mtu on a 1500-byte link, expected 1024"
BW="-s 65536 -n 100 --report_gbits"
for prog in ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat; do
	args=$BW
	case $prog in
	ib_atomic_bw)
		# perftest 4.5 has no --odp for atomics: pinned on both sides
		pair_perftest_case a 0 0 "$prog" -n 100 --report_gbits || exit 1
		pair_perftest_case b 0 0 "$prog" -n 100 --report_gbits || exit 1
		continue
		;;
	ib_write_lat) args="-s 8 -n 100" ;;
	esac
	# the server alternates between a and b; latency: --odp on both only
	cases=("1 0 a" "0 1 b" "1 1 a")
	[ "$prog" = ib_write_lat ] && cases=("1 1 b")
	for odp in "${cases[@]}"; do
		# shellcheck disable=SC2086
		set -- $odp
		# shellcheck disable=SC2086
		pair_perftest_case "$3" "$1" "$2" "$prog" $args || exit 1
	done
done
echo "11-perftest-ours-ours ($ROLE): ok"
