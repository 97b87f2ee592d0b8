#!/bin/bash
# verbs-fuzz in a guest test (sourced after guest.sh), shared by
# tests/guest/50-verbs-fuzz.sh and 52-userspace-sanitizers.sh: the guest set-up
# it wants, its regression cases and its fixed-seed runs, both judged against
# tests/lib/verbs-fuzz-pending.txt (classes and cases whose kernel fix is not
# on main yet).  VF names the binary (default verbs-fuzz on PATH; 52 sets
# build/bin/san/verbs-fuzz).
VF=${VF:-verbs-fuzz}
VF_PENDING=$TOP/tests/lib/verbs-fuzz-pending.txt

# vf_why KEY: the bug a pending line names for KEY (class:NAME, regress:NAME)
vf_why() { awk -F' [|] ' -v k="$1" '$1 == k { print $2 }' "$VF_PENDING"; }

# vf_setup: 2 MiB hugepages (ODP + IBV_ACCESS_HUGETLB on hugetlbfs) and zram
# swap (MADV_PAGEOUT writes pages out only with swap)
vf_setup() {
	echo 16 >/proc/sys/vm/nr_hugepages
	zram_swap 256M >/dev/null || echo "no zram swap: MADV_PAGEOUT will not write pages out"
	echo "hugepages: $(cat /proc/sys/vm/nr_hugepages)"
}

# vf_regress: the reproducers of every bug verbs-fuzz found; fails on any
# failed case that is not pending, reports pending ones that pass
vf_regress() {
	local c w bad=""
	"$VF" --regress | tee /tmp/regress.out
	grep -q '^verbs-fuzz regress: ' /tmp/regress.out || fail "$VF --regress did not finish"
	for c in $(sed -n 's/^not ok \([^:]*\):.*/\1/p' /tmp/regress.out); do
		w=$(vf_why "regress:$c")
		if [ -n "$w" ]; then
			echo "PENDING KERNEL FIX (fails as expected): $c: $w"
		else
			bad="$bad $c"
		fi
	done
	for c in $(sed -n 's/^ok \(.*\)$/\1/p' /tmp/regress.out); do
		[ -z "$(vf_why "regress:$c")" ] || echo "PENDING case now PASSES (remove it from $VF_PENDING): $c"
	done
	[ -z "$bad" ] || fail "a bug verbs-fuzz found is back:$bad"
}

# vf_classes: the --classes argument, every class but the pending ones
# (printed as such)
vf_classes() {
	local c classes=all
	for c in $(sed -n 's/^class:\([^ ]*\) .*/\1/p' "$VF_PENDING"); do
		echo "PENDING KERNEL FIX (class left out): $c: $(vf_why "class:$c")" >&2
		classes="$classes,-$c"
	done
	echo "$classes"
}

# vf_seeds SECS [note]: the fixed seeds 0x5eed0001 and 0x5eed0002, SECS/2
# each, every class but the pending ones; any finding fails with the tool's
# reproducer.  With 'note', a finding (exit 1 after its "verbs-fuzz: FAILED"
# line) is printed as a NOTE instead; any other failure still fails.
vf_seeds() {
	local secs=$1 mode=${2:-fail} i classes rc
	local seeds=(0x5eed0001 0x5eed0002) times=($((secs / 2)) $((secs - secs / 2)))
	classes=$(vf_classes)
	for i in 0 1; do
		echo "== $VF --seed ${seeds[i]} --time ${times[i]} --hang 60 --classes $classes"
		"$VF" --seed "${seeds[i]}" --time "${times[i]}" --hang 60 --classes "$classes" \
			--progress 10 2>&1 | tee /tmp/vf-seed.out
		rc=${PIPESTATUS[0]}
		[ "$rc" = 0 ] && continue
		if [ "$mode" = note ] && [ "$rc" = 1 ] && grep -q '^verbs-fuzz: FAILED (seed' /tmp/vf-seed.out; then
			echo "NOTE: verbs-fuzz finding with seed ${seeds[i]} (above), not failing this test"
			continue
		fi
		fail "verbs-fuzz found something with seed ${seeds[i]} (reproducer above, exit $rc)"
	done
}
