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
pyverbs_suite stock "Debian's stock rdma_rxe"
pyverbs_judge "$PYV_RES" || fail "pyverbs suite on the stock rdma_rxe: see UNEXPECTED lines above"
echo "pyverbs-stock: ok"
