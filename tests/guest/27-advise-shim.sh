#!/bin/bash
# ibv_advise_mr() through Debian 12's own libibverbs (rdma-core 44) on our
# rdma_rxe, with the interim LD_PRELOAD library build/lib/librxe-odp-advise.so
# (userspace/advise-shim, issue 13 items 2/3 until the provider package can
# be built). advise-check, a plain verbs program: without the library the
# call answers EOPNOTSUPP and prefetches nothing (librxe 44 has no
# advise_mr); with it, sync PREFETCH_WRITE/PREFETCH/NO_FAULT succeed and the
# MR's and the device's odp_pages_prefetched counters move by the MR's pages.
# Then rdma-core 44's four prefetch tests of test_odp (sync, async,
# NO_FAULT sync and async), which skip without the library ("not
# supported"), must pass with it; every test_odp prefetch test's result is
# printed, and the two implicit-ODP ones must pass with it too.
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pyverbs.sh"

SHIM=$TOP/build/lib/librxe-odp-advise.so
command -v advise-check >/dev/null || fail "advise-check not built (make)"
[ -f "$SHIM" ] || fail "$SHIM not built (make)"
[ -e /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_pages_prefetched ] ||
	fail "rxe0 has no odp_pages_prefetched counter: not our module with prefetch?"
pages=64
get() { sed -n "s/^$1=//p" "$2"; }

# Without the library: libibverbs answers before the kernel is asked.
advise-check -n $pages >/tmp/ac0.out 2>&1
rc=$?
cat /tmp/ac0.out
[ "$rc" = 1 ] || fail "without the shim: advise-check exited $rc, expected 1 (EOPNOTSUPP)"
grep -q '^advise_mr=EOPNOTSUPP ' /tmp/ac0.out || fail "without the shim: not EOPNOTSUPP"
[ "$(get mr_prefetched /tmp/ac0.out)" = 0 ] || fail "without the shim: the MR counted prefetched pages"

# With it.
for advice in write read nofault; do
	LD_PRELOAD=$SHIM RXE_ODP_ADVISE_VERBOSE=1 advise-check -n $pages -a $advice >/tmp/ac1.out 2>&1
	rc=$?
	cat /tmp/ac1.out
	[ "$rc" = 0 ] || fail "with the shim, $advice: advise-check exited $rc"
	grep -q '^librxe-odp-advise: rxe0: advise_mr added' /tmp/ac1.out ||
		fail "with the shim, $advice: the library did not complete rxe0's context"
	mp=$(get mr_prefetched /tmp/ac1.out) dp=$(get dev_prefetched_delta /tmp/ac1.out)
	# the pages are resident: NO_FAULT maps them all too
	[ "$mp" -ge $pages ] || fail "with the shim, $advice: the MR counted $mp prefetched pages, expected >= $pages"
	[ "$dp" -ge $pages ] || fail "with the shim, $advice: the device counter moved by $dp, expected >= $pages"
done

# rdma-core 44's own prefetch tests, without and with the library.
pyverbs_prepare || fail "cannot prepare the pyverbs suite"
ids=""
for t in sync_prefetch_rc_traffic async_prefetch_rc_traffic prefetch_sync_no_page_fault_rc_traffic \
	prefetch_async_no_page_fault_rc_traffic implicit_sync_prefetch_rc_traffic \
	implicit_async_prefetch_rc_traffic; do
	ids="$ids tests.test_odp.OdpTestCase.test_odp_$t"
done
# shellcheck disable=SC2086
pyverbs_run /tmp/pf-plain.res $ids >/tmp/pf-plain.log
# shellcheck disable=SC2086
LD_PRELOAD=$SHIM pyverbs_run /tmp/pf-shim.res $ids >/tmp/pf-shim.log
echo "== rdma-core 44 prefetch tests without the library:"
cat /tmp/pf-plain.res
echo "== with LD_PRELOAD=$SHIM:"
cat /tmp/pf-shim.res
bad=0
for t in sync_prefetch_rc_traffic async_prefetch_rc_traffic prefetch_sync_no_page_fault_rc_traffic \
	prefetch_async_no_page_fault_rc_traffic implicit_sync_prefetch_rc_traffic \
	implicit_async_prefetch_rc_traffic; do
	id=tests.test_odp.OdpTestCase.test_odp_$t
	line=$(grep -m1 " $id\( \|$\)" /tmp/pf-shim.res) || { echo "MISSING: $id"; bad=1; continue; }
	case "$line" in
	PASS*) ;;
	*) echo "NOT PASSED with the library: $line"; bad=1 ;;
	esac
done
if [ "$bad" != 0 ]; then
	cat /tmp/pf-shim.log
	fail "rdma-core 44's prefetch tests did not all pass with the library"
fi
echo "advise-shim: ok"
