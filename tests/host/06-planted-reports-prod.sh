#!/bin/bash
# A guest on Debian's production kernel with kernel reports planted: every
# sample report line written to /dev/kmsg, and the real reports this kernel's
# checkers print (WARN, DEBUG_LIST, KFENCE turned on at run time, soft lockup, RCU
# stall, hung task, with their thresholds lowered), committed by the test
# module tests/plant/rxe_plant.c.  tests/vm/run must fail each boot with 126
# and its console gate must have flagged every one of them.  Two boots.
source "$TOP/tests/lib/host.sh"
source "$TOP/tests/lib/planted.sh"
planted_run prod
