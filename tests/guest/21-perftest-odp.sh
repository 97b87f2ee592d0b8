#!/bin/bash
# debug-kernel:
# Debian's perftest with --odp on OUR rdma_rxe: ib_write_bw, ib_read_bw and
# ib_send_bw each complete (client and server exit 0), report a bandwidth
# figure above zero (when perftest's own clock calibration worked), and really
# go through ODP: the driver faults pages in, no fault fails, and not one page
# gets pinned (nr_foll_pin_acquired).
source "$TOP/tests/lib/guest.sh"

hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
[ -e "$hw/odp_faults" ] || fail "rxe0 has no odp_* counters: not our ODP module?"
counter() { cat "$hw/$1"; }

# bw_of LOG: the "BW average" column of perftest's result line.
bw_of() {
	awk '/BW average/ { getline; print $4; exit }' "$1"
}

for prog in ib_write_bw ib_read_bw ib_send_bw; do
	p0=$(pins_acquired) g0=$(counter odp_pages_faulted) e0=$(counter odp_fault_errors)
	perftest "$prog" --odp -s 65536 -n 200 --report_gbits || fail "$prog --odp did not complete"
	p1=$(pins_acquired) g1=$(counter odp_pages_faulted) e1=$(counter odp_fault_errors)
	bw=$(bw_of /tmp/perftest-client.log)
	echo "RESULT $prog --odp: BW average ${bw:-?} Gb/s; odp_pages_faulted +$((g1 - g0)); odp_fault_errors +$((e1 - e0)); nr_foll_pin_acquired +$((p1 - p0))"
	[ -n "$bw" ] || fail "$prog --odp printed no bandwidth line"
	# With -F a failed clock calibration of perftest's own leaves 0.00 there.
	if perftest_clock_ok /tmp/perftest-client.log; then
		awk -v b="$bw" 'BEGIN { exit !(b + 0 > 0) }' || fail "$prog --odp reported bandwidth '$bw'"
	else
		echo "(no bandwidth to check: perftest's clock calibration failed, not the driver)"
	fi
	grep -qi 'odp' /tmp/perftest-client.log || echo "(perftest does not echo ODP in its banner)"
	# Both sides' 64 KiB buffers (16 pages each) were faulted in by the driver.
	[ $((g1 - g0)) -ge 32 ] || fail "$prog --odp faulted only $((g1 - g0)) pages: not ODP?"
	[ "$e1" -eq "$e0" ] || fail "$prog --odp: $((e1 - e0)) ODP fault errors"
	[ "$p1" -eq "$p0" ] || fail "$prog --odp pinned $((p1 - p0)) pages"
done
echo "perftest-odp: ok"
