#!/bin/bash
# vm-args: --rxe stock
# The same rdma-core 44 pyverbs suite as 22-pyverbs-ours, against Debian's
# STOCK rdma_rxe: the baseline that shows our module regresses nothing on
# pinned MRs.  Passes when there is no failure or error except the listed known
# ones (tests/lib/pyverbs-known-failures.txt), which must fail exactly as
# listed.  Every skip is printed with its reason (the ODP tests skip here:
# the stock module has no ODP caps).
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/pyverbs.sh"

[ ! -e /sys/module/rdma_rxe/version ] || fail "rdma_rxe has a version stamp: this is not the stock module"
pyverbs_prepare || fail "cannot prepare the pyverbs suite from $PYV_SRC"
res=/tmp/pyverbs-stock.res
# shellcheck disable=SC2046
pyverbs_run "$res" $(pyverbs_modules) >/tmp/pyverbs-stock.log
cat /tmp/pyverbs-stock.log
[ -s "$res" ] || fail "the pyverbs run produced no results"
pyverbs_summary "$res" "Debian's stock rdma_rxe"
pyverbs_judge "$res" || fail "pyverbs suite on the stock rdma_rxe: see UNEXPECTED lines above"
echo "pyverbs-stock: ok"
