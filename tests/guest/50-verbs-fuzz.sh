#!/bin/bash
# vm-args: -m 2G
# debug-kernel:
# verbs-fuzz (userspace/verbs-fuzz) on OUR rdma_rxe, short: the
# reproducers of every bug it found (--regress), deterministic, then ~60 s
# of random fuzzing with every class: the fixed seeds 0x5eed0001 and
# 0x5eed0002 for VERBS_FUZZ_TIME/2 (30) seconds each.  Random seeds run in
# make fuzz: two READ findings of random seeds (KNOWN-ISSUES 9) are not
# explained yet, and make check must fail only on what we can name.
# VERBS_FUZZ_SEEDS=0 runs the regression cases only.  Every completion status is checked against
# the model, the data against the shadow, the canaries around every MR,
# lost completions (a WR without completion for 60 s, twice rxe's 30 s
# local-retry bound: a hang) and the kernel log: any of them ends the run
# with exit 1 and a one-line reproducer.  Threads race, so a replay of a
# seed is close, not exact (kernel/KNOWN-ISSUES.md 9).  The guest gets
# 2 MiB hugepages (ODP + IBV_ACCESS_HUGETLB on hugetlbfs) and zram swap
# (MADV_PAGEOUT) first.  Classes and cases whose kernel fix is not on main
# yet (tests/lib/verbs-fuzz-pending.txt) are left out / reported PENDING.
# Longer runs: make fuzz (scripts/fuzz.sh).
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/verbs-fuzz.sh"

command -v verbs-fuzz >/dev/null || fail "verbs-fuzz not built (make)"
vf_setup
vf_regress
if [ "${VERBS_FUZZ_SEEDS:-1}" = 0 ]; then
	vf_classes >/dev/null
	echo "verbs-fuzz: regression cases ok; random fuzzing skipped (VERBS_FUZZ_SEEDS=0)"
	exit 0
fi
vf_seeds "${VERBS_FUZZ_TIME:-60}"
echo "verbs-fuzz: ok"
