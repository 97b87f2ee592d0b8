#!/bin/bash
# vm-args: -m 2G --timeout 1800
# debug-kernel:
# odp-selftest (userspace/odp-selftest) on OUR rdma_rxe: registration rules,
# nothing pinned, every verb on ODP MRs with data verified, invalidation proof
# (driver counters, mincore, swap counters), coherence after MADV_DONTNEED and
# munmap+mmap (ODP sees the new pages; pinned controls do not), fork, access
# errors, iova wrap, teardown races, THP split/collapse and compaction, and
# exact deltas of the MRs' own counters (drv_odp_*: pages faulted, pages
# invalidated, fault errors) where the driver's behaviour is exact.  The
# tests run on the kernel's kselftest harness (TAP: "ok N odp.NAME", "not ok
# N odp.NAME", "ok N odp.NAME # SKIP reason").  The guest gets zram swap
# (for MADV_PAGEOUT) and 2 MiB hugepages first.  Then,
# in the same boot, Debian's stock rdma_rxe replaces ours and the tests that
# need a device WITHOUT ODP run there (ODP refused cleanly; pinned controls).
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/odp-selftest.sh"

command -v odp-selftest >/dev/null || fail "odp-selftest not built (make)"
dev=$(zram_swap 256M) || fail "no zram swap"
echo 64 >/proc/sys/vm/nr_hugepages
echo "swap: $dev ($(awk '/SwapTotal/ { print $2 }' /proc/meminfo) kB); hugepages: $(cat /proc/sys/vm/nr_hugepages)"

# perm_* (permanent fault failures, a poisoned page) run in test 25,
# prefetch_* (advise_mr) in test 26.
odp-selftest -d rxe0 -g "$RXE_GID" -x 'perm_*' -x 'prefetch_*' | tee /tmp/ours.tap
rc=${PIPESTATUS[0]}
# Cases listed as pending a kernel fix (tests/lib/odp-selftest-pending.txt)
# are reported as such; any other failure fails this test.
ost_judge /tmp/ours.tap "$rc" "on our rdma_rxe"
echo "skipped on our rdma_rxe, with the reasons:"
grep ' # SKIP ' /tmp/ours.tap || echo "  (none)"
# On our module nothing ODP may skip for lack of caps.
if grep -Eq ' # SKIP .*(no ODP|ODP caps)' /tmp/ours.tap; then
	fail "ODP tests skipped on our module for lack of ODP caps"
fi
# The exact per-MR counter cases ran and passed here.
for t in fault_exact invalidate_exact cow_zero_page_exact fault_error_exact fault_hist_exact; do
	grep -q "^ok [0-9]* odp[.]$t\$" /tmp/ours.tap || fail "$t did not pass on our module"
done
# A counter the tests need that the module lacks fails them, it is not
# skipped: ask for one no module has.
odp-selftest -d rxe0 -g "$RXE_GID" --need-counter odp_no_such_counter fault_exact >/tmp/plant.tap
rc=$?
cat /tmp/plant.tap
[ "$rc" = 1 ] && grep -q '^not ok [0-9]* odp[.]fault_exact$' /tmp/plant.tap &&
	grep -q 'no driver attribute odp_no_such_counter' /tmp/plant.tap ||
	fail "a missing per-MR counter did not fail fault_exact (rc $rc)"

echo "== Debian's stock rdma_rxe (no ODP) in place of ours"
{ rdma link delete rxe0 && rmmod rdma_rxe; } || fail "cannot unload our rdma_rxe"
# shellcheck source=../vm/guest-rxe.sh
source "$TOP/tests/vm/guest-rxe.sh"
RXE_MODE=stock rxe_up || fail "cannot bring up rxe0 on the stock rdma_rxe"
odp-selftest -d rxe0 -g "$RXE_GID" reg_refused_no_caps pin_control pageout_pinned_control \
	'coherence_*_pinned' caps | tee /tmp/stock.tap
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "odp-selftest on the stock rdma_rxe failed"
grep -q '^ok [0-9]* odp[.]reg_refused_no_caps$' /tmp/stock.tap || fail "reg_refused_no_caps did not run on stock"
grep -q '^ok [0-9]* odp[.]caps # SKIP ' /tmp/stock.tap || fail "stock rxe unexpectedly advertises ODP"
echo "skipped on the stock rdma_rxe, with the reasons:"
grep ' # SKIP ' /tmp/stock.tap
echo "odp-selftest: ok"
