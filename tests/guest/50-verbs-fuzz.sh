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

command -v verbs-fuzz >/dev/null || fail "verbs-fuzz not built (make)"
echo 16 >/proc/sys/vm/nr_hugepages
modprobe zram num_devices=1 && dev=$(zramctl --find --size 256M) && mkswap "$dev" >/dev/null &&
	swapon "$dev" || echo "no zram swap: MADV_PAGEOUT will not write pages out"
echo "hugepages: $(cat /proc/sys/vm/nr_hugepages)"

pending=$TOP/tests/lib/verbs-fuzz-pending.txt
why() { awk -F' [|] ' -v k="$1" '$1 == k { print $2 }' "$pending"; }

verbs-fuzz --regress | tee /tmp/regress.out
grep -q '^verbs-fuzz regress: ' /tmp/regress.out || fail "verbs-fuzz --regress did not finish"
bad=""
for c in $(sed -n 's/^not ok \([^:]*\):.*/\1/p' /tmp/regress.out); do
	w=$(why "regress:$c")
	if [ -n "$w" ]; then
		echo "PENDING KERNEL FIX (fails as expected): $c: $w"
	else
		bad="$bad $c"
	fi
done
for c in $(sed -n 's/^ok \(.*\)$/\1/p' /tmp/regress.out); do
	[ -z "$(why "regress:$c")" ] || echo "PENDING case now PASSES (remove it from $pending): $c"
done
[ -z "$bad" ] || fail "a bug verbs-fuzz found is back:$bad"

classes=all
for c in $(sed -n 's/^class:\([^ ]*\) .*/\1/p' "$pending"); do
	echo "PENDING KERNEL FIX (class left out): $c: $(why "class:$c")"
	classes="$classes,-$c"
done
if [ "${VERBS_FUZZ_SEEDS:-1}" = 0 ]; then
	echo "verbs-fuzz: regression cases ok; random fuzzing skipped (VERBS_FUZZ_SEEDS=0)"
	exit 0
fi
secs=${VERBS_FUZZ_TIME:-60}
seeds=(0x5eed0001 0x5eed0002)
times=($((secs / 2)) $((secs - secs / 2)))
for i in 0 1; do
	echo "== verbs-fuzz --seed ${seeds[i]} --time ${times[i]} --hang 60 --classes $classes"
	verbs-fuzz --seed "${seeds[i]}" --time "${times[i]}" --hang 60 --classes "$classes" \
		--progress 10 || fail "verbs-fuzz found something with seed ${seeds[i]} (reproducer above)"
done
echo "verbs-fuzz: ok"
