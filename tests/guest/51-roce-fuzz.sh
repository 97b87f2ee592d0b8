#!/bin/bash
# debug-kernel:
# The RoCE packet fuzzer (userspace/roce-fuzz): crafted RoCEv2 packets from a
# raw socket to rxe0's UDP port 4791, aimed at RC/UD QPs and pinned/ODP MRs
# the fuzzer owns. First its ICRC is checked against packets rxe itself
# sends (a second rxe device on a veth link whose peer end sits in another
# network namespace, captured with AF_PACKET); then the regression cases of
# the bugs it found before run, and two fixed seeds and one
# random seed (printed) run for a bounded time each. Any finding (a byte
# written outside what the packets aimed at, a canary hit, a wrong UD
# delivery, a QP broken by packets rxe had to drop, a kernel report) fails
# the test with a one-line reproducer, and so does a kernel report on the
# console. Runs on the debug kernel as well (tests/vm/run --kernel debug).
source "$TOP/tests/lib/guest.sh"

secs=${ROCE_FUZZ_SECS:-15}
command -v roce-fuzz >/dev/null || fail "roce-fuzz not built (make)"

# ICRC against rxe's own packets: lo would loop them back inside rxe. (Every
# fuzz run also proves it on rxe0: a crafted packet must be accepted, the
# same with a wrong ICRC dropped.)
veth_rxe rfz 169.254.77.1 169.254.77.2
case $? in
0)
	sleep 1
	roce-fuzz --capture rfz0 --peer 169.254.77.2 --dev rfzrxe | tail -4 ||
		fail "the fuzzer's ICRC does not match the packets rxe sends"
	veth_rxe_del rfz
	;;
77) echo "NOTE: no veth in this kernel: capture check not run (the ICRC is still checked on rxe0)" ;;
*) fail "veth_rxe" ;;
esac

# The minimal reproducers of the bugs the fuzzer found (patches 0016, 0017, 0023, 0029).
roce-fuzz --regress all || fail "a regression case of an earlier roce-fuzz finding failed"

rseed=$(( $(od -An -N4 -tu4 /dev/urandom) ))
echo "random seed this run: $rseed"
total=0
for seed in 1 2 "$rseed"; do
	t0=$(date +%s)
	roce-fuzz --seed "$seed" --time "$secs" --progress 5 ||
		fail "roce-fuzz --seed $seed found something (its FINDING and REPRODUCE lines are above)"
	total=$((total + $(date +%s) - t0))
done
echo "RESULT roce-fuzz: seeds 1 2 $rseed, ${total}s of fuzzing, no finding"
