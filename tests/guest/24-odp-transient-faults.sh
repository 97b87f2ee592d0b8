#!/bin/bash
# debug-kernel:
# Transient ODP fault failures do not fail the QP. The module parameter
# odp_fail_faults makes the next N faults fail as hmm does when it gives up
# on a busy range under memory pressure. perftest (RC) WRITE, READ and SEND
# must still complete with the failures injected
# - on the responder (only the server's MR is ODP): every injected failure is
#   answered with an RNR NAK (remote WRITE target, READ source, RECV buffer);
# - on the requester/completer (only the client's MR is ODP): every injected
#   failure is retried later (SEND/WRITE payload, READ response data);
# and none may turn into a fault error. odp-selftest's atomic cases (both MRs
# ODP, every fetched value checked) then show that an atomic NAKed for a
# transient fault is executed exactly once when resent.
source "$TOP/tests/lib/guest.sh"

param=/sys/module/rdma_rxe/parameters/odp_fail_faults
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
[ -w "$param" ] || fail "rdma_rxe has no odp_fail_faults parameter: not our ODP module?"
counter() { cat "$hw/$1"; }
inject=20

# run PROG SERVER_ODP CLIENT_ODP: perftest with --odp on the chosen sides.
run() {
	PT_SERVER_ARGS=$2 PT_CLIENT_ARGS=$3 PT_LOG=/tmp/pt PT_QUIET=1 perftest "$1" -s 65536 -n 100 ||
		{ dmesg | tail -n 5; return 1; }
}

for prog in ib_write_bw ib_read_bw ib_send_bw; do
	for side in responder requester; do
		if [ $side = responder ]; then
			sopt=--odp copt= want=odp_rnr_naks
		else
			sopt= copt=--odp want=odp_fault_retries
		fi
		w0=$(counter $want) e0=$(counter odp_fault_errors)
		echo "$inject" >"$param"
		run "$prog" "$sopt" "$copt" || fail "$prog, ODP on the $side: failed with $inject injected fault failures"
		left=$(cat "$param")
		echo 0 >"$param"
		w1=$(counter $want) e1=$(counter odp_fault_errors)
		echo "RESULT $prog, ODP on the $side: injected $((inject - left)), $want +$((w1 - w0)), odp_fault_errors +$((e1 - e0))"
		[ "$left" -eq 0 ] || fail "$prog ($side): only $((inject - left)) of $inject injected failures were hit"
		[ $((w1 - w0)) -ge "$inject" ] || fail "$prog ($side): $inject failures injected, $want only +$((w1 - w0))"
		[ "$e1" -eq "$e0" ] || fail "$prog ($side): a transient failure became $((e1 - e0)) fault errors"
	done
done
for t in atomic_cmp_swp atomic_fetch_add; do
	r0=$(counter odp_rnr_naks) e0=$(counter odp_fault_errors)
	echo 10 >"$param"
	odp-selftest "$t" || fail "odp-selftest $t failed with 10 injected fault failures"
	left=$(cat "$param")
	echo 0 >"$param"
	r1=$(counter odp_rnr_naks) e1=$(counter odp_fault_errors)
	echo "RESULT odp-selftest $t: injected $((10 - left)), odp_rnr_naks +$((r1 - r0)), odp_fault_errors +$((e1 - e0))"
	[ $((r1 - r0)) -gt 0 ] || fail "$t: no RNR NAK for the injected atomic fault failures"
	[ "$e1" -eq "$e0" ] || fail "$t: a transient failure became $((e1 - e0)) fault errors"
done
echo "odp-transient-faults: ok"
