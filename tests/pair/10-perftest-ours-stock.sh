#!/bin/bash
# perftest across the link between OUR rdma_rxe (guest a) and Debian's stock
# rdma_rxe (guest b), jumbo frames (RoCE path MTU 4096): ib_write_bw,
# ib_read_bw, ib_send_bw and ib_write_lat with the ODP side on ours, both
# ways: our server with --odp against a stock client, and a stock server
# against our client with --odp (stock has no ODP); ib_atomic_bw pinned both
# ways (perftest has no --odp for atomics).  Each run completes on both
# sides, the ODP side faulted its pages in without pinning any, and the path
# MTU is 4096 on both.
# pair-args: --a ours --b stock --mtu 4200
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pair.sh"

mtu=$(ibv_devinfo -d rxe0 | awk '/active_mtu/ { print $2 }')
[ "$mtu" = 4096 ] || fail "rxe0 in $ROLE has active_mtu $mtu on a 4200-byte link, expected 4096"
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
	# shellcheck disable=SC2086
	pair_perftest_case a 1 0 "$prog" $args || exit 1 # ours --odp serves stock
	# shellcheck disable=SC2086
	pair_perftest_case b 0 1 "$prog" $args || exit 1 # stock serves ours --odp
done
echo "10-perftest-ours-stock ($ROLE): ok"
