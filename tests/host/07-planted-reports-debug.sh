#!/bin/bash
# The same as 06-planted-reports-prod on the debug kernel (make debug-kernel),
# whose checkers report more: lockdep, sleeping in atomic context,
# debugobjects, KASAN, UBSAN, KFENCE, the hang detectors, DEBUG_LIST and
# DEBUG_VM, each committed for real by tests/plant/rxe_plant.c.  This also
# proves the debug kernel's debuggers are on: a debug stage whose kernel could
# not report would pass every test and prove nothing.
# needs: debug-kernel
source "$TOP/tests/lib/host.sh"
source "$TOP/tests/lib/planted.sh"
planted_run debug
