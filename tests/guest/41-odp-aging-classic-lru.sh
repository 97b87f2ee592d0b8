#!/bin/bash
# The same experiment as 40-odp-aging with the multi-gen LRU switched off at
# runtime, so reclaim asks through the rmap walk's clear_flush_young
# (folio_referenced_one). Same assertions: with odp_aging on, at least 10x
# fewer pages of the RDMA-only buffer A are faulted back in and swapped in,
# and the idle buffer B is reclaimed first.
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/odp-aging.sh"

aging_setup
echo n >/sys/kernel/mm/lru_gen/enabled || skip "cannot switch MGLRU off"
[ "$(cat /sys/kernel/mm/lru_gen/enabled)" = 0x0000 ] || fail "MGLRU still on"
echo "MGLRU switched off: $(cat /sys/kernel/mm/lru_gen/enabled)"
aging_run_and_check
echo "odp aging (classic LRU): ok"
