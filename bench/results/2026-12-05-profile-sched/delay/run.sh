#!/bin/bash
# EXPERIMENT (session 19): does busy time added to the pinned copy path
# reproduce ODP's perftest gap and its scheduling signature?  One guest boot,
# this worktree's module (patch 0036: exp_pinned_copy_ns), bench/profile.sh's
# sched case with five modes rotated per pair: pinned, odp, pinned with 800
# and 2400 ns per copy, and pinned again (the control).
# usage (host): tests/vm/run -q -m 3G --out OUT -- bash exp/run.sh /vmout PAIRS
set -uo pipefail
OUT=$1 N=${2:-20}
grep -q . /sys/module/rdma_rxe/parameters/exp_pinned_copy_ns || { echo "not the experiment module"; exit 1; }
PROFILE_SCHED_PAIRS=$N PROFILE_SCHED_RUNS="${EXP_RUNS:-ib_read_bw 4096}" \
	PROFILE_SCHED_MODES="pinned odp pinned-slow800 pinned-slow2400 pinned-again" \
	bash "$TOP/bench/profile.sh" "$OUT/exp" sched >"$OUT/exp.log" 2>&1
echo "profile.sh exit $?"
tail -5 "$OUT/exp.log"
