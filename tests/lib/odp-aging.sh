#!/bin/bash
# Shared by tests/guest/40-odp-aging*.sh and 41-*.sh (sourced after guest.sh):
# zram swap + memory cgroup, then aging-probe with odp_aging off and on, and
# the assertions on its numbers.

# aging_setup: zram swap and a memory cgroup in $cg
aging_setup() {
	local param=/sys/module/rdma_rxe/parameters/odp_aging
	local hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	[ -w "$param" ] || fail "$param missing: this rdma_rxe has no ODP page aging"
	[ -r "$hw/odp_young_answers" ] || fail "no odp_young_answers hw counter"
	rdma statistic show link rxe0/1 | grep -q 'odp_young_answers' ||
		fail "rdma statistic show does not list odp_young_answers"

	zdev=$(zram_swap 512M) || fail "no zram swap"

	cg=/sys/fs/cgroup/odp-aging
	grep -qw memory /sys/fs/cgroup/cgroup.controllers || skip "cgroup v2 memory controller missing"
	echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control || fail "cannot enable the memory controller"
	mkdir -p "$cg" || fail "mkdir $cg"
	echo "swap: $zdev; MGLRU: $(cat /sys/kernel/mm/lru_gen/enabled)"
}

# aging_run_and_check: run the probe (aging off, then on) and assert
aging_run_and_check() {
	local rc m k v pages
	# ACK timeout 2^18 * 4.096 us (~1 s): under TCG a swap-in fault can stall
	# the responder longer than perftest's 67 ms, and the retransmissions
	# that follow have, about once in 8 runs, ended in a NAK "invalid
	# request" (IBV_WC_REM_INV_REQ_ERR) - a retry bug this test is not about.
	timeout 600 aging-probe --cgroup "$cg" --size 16 --modes off,on --qp-timeout 18 \
		>/tmp/aging.log 2>&1
	rc=$?
	cat /tmp/aging.log
	[ "$rc" = 0 ] || fail "aging-probe failed (rc=$rc)"

	pages=$(sed -n 's/^config .*a_pages=\([0-9]*\).*/\1/p' /tmp/aging.log)
	for m in off on; do
		for k in a_pages_faulted pswpin young_answers a_resident_min_pct b_resident_end_pct; do
			# KEY=value from the probe's "mode=MODE ..." line
			v=$(sed -n "s/^mode=$m .*\<$k=\([0-9.-]*\).*/\1/p" /tmp/aging.log)
			[ -n "$v" ] || fail "probe output lacks $k for aging $m"
			declare -g "${m}_$k=$v"
		done
	done

	echo "A ($pages pages): pages rxe faulted back in: aging off $off_a_pages_faulted, on $on_a_pages_faulted (ratio $(aging_ratio "$off_a_pages_faulted" "$on_a_pages_faulted"))"
	echo "swap-ins (pswpin): aging off $off_pswpin, on $on_pswpin (ratio $(aging_ratio "$off_pswpin" "$on_pswpin"))"
	echo "young answers: aging off $off_young_answers, on $on_young_answers"
	echo "aging on: A resident >= ${on_a_resident_min_pct}% after every round, B resident ${on_b_resident_end_pct}% at the end"
	echo "aging off: A resident >= ${off_a_resident_min_pct}% after every round, B resident ${off_b_resident_end_pct}% at the end"

	[ "$off_young_answers" = 0 ] || fail "odp_aging=N still answered $off_young_answers young callbacks"
	[ "$on_young_answers" -gt 0 ] || fail "odp_aging=Y never answered a young callback"
	# Without aging, reclaim must have taken part of A, or nothing is compared.
	[ "$off_a_pages_faulted" -ge $((pages / 20)) ] ||
		fail "aging off: only $off_a_pages_faulted pages of A faulted back; the pressure did not reach A"
	[ "$off_a_pages_faulted" -ge $((10 * (on_a_pages_faulted > 0 ? on_a_pages_faulted : 1))) ] ||
		fail "aging on does not fault 10x fewer pages of A ($on_a_pages_faulted vs $off_a_pages_faulted)"
	[ "$off_pswpin" -ge $((10 * (on_pswpin > 0 ? on_pswpin : 1))) ] ||
		fail "aging on does not swap in 10x fewer pages ($on_pswpin vs $off_pswpin)"
	# B first: with aging on, B lost most of itself while A stayed resident.
	awk -v a="$on_a_resident_min_pct" -v b="$on_b_resident_end_pct" 'BEGIN { exit !(a >= 95 && b <= 60) }' ||
		fail "aging on: B was not reclaimed first (A min ${on_a_resident_min_pct}%, B end ${on_b_resident_end_pct}%)"
}

aging_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 1) }'; }
