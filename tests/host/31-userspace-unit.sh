#!/bin/bash
# Every userspace unit test under ASan/UBSan (make -C userspace test): the
# shared code in userspace/lib (loopback's error paths, counters) and each
# tool's TEST_PROG.  No RDMA device needed.
source "$TOP/tests/lib/host.sh"
out=$(make --no-print-directory -C "$TOP/userspace" OUT="$TOP/build/bin" test 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "make -C userspace test exited $rc"
for t in "lib unit: ok" "odp-bench unit: ok" "roce-fuzz unit: ok" \
	"reclaim-verify unit tests: all passed" "verbs-fuzz unit: ok"; do
	grep -qxF "$t" <<<"$out" || fail "no '$t' line: that unit test did not run"
done
echo "userspace unit tests: ok"
