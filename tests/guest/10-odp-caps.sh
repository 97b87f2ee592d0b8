#!/bin/bash
# ODP is advertised and works end to end on our rdma_rxe: ibv_devinfo -v shows
# the ODP capabilities, an ODP MR is registered with nothing mapped (restrack
# driver attributes), ibv_rc_pingpong -o and ib_write_bw --odp pass and make
# the driver fault pages in, and an ODP ib_write_bw run pins no page
# (/proc/vmstat nr_foll_pin_acquired stays put) while the pinned run moves it.
source "$TOP/tests/lib/guest.sh"

hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
counter() { cat "$hw/$1"; }

# 1. Capabilities, as user space sees them through ibv_query_device_ex.
ibv_devinfo -v -d rxe0 >/tmp/devinfo.log || fail "ibv_devinfo -v failed"
caps() { # caps SECTION: the capability lines under "SECTION:"
	awk -v s="$1:" '$1 == s { on = 1; next } on && /^\t[a-z_]+:/ { exit } on { print $1 }' \
		/tmp/devinfo.log | tr '\n' ' '
}
gen=$(caps general_odp_caps) rc=$(caps rc_odp_caps) ud=$(caps ud_odp_caps)
echo "general: $gen"
echo "rc: $rc"
echo "ud: $ud"
[[ " $gen " == *" ODP_SUPPORT "* ]] || fail "general_odp_caps lacks ODP_SUPPORT: '$gen'"
[[ " $gen " == *" ODP_SUPPORT_IMPLICIT "* ]] || fail "general_odp_caps lacks ODP_SUPPORT_IMPLICIT: '$gen'"
for c in SEND RECV WRITE READ ATOMIC SRQ; do
	[[ " $rc " == *" SUPPORT_$c "* ]] || fail "rc_odp_caps lacks SUPPORT_$c: '$rc'"
done
for c in SEND RECV SRQ; do
	[[ " $ud " == *" SUPPORT_$c "* ]] || fail "ud_odp_caps lacks SUPPORT_$c: '$ud'"
done
# RDMA FLUSH (1 << 6) and ATOMIC WRITE (1 << 7) on ODP: rdma-core from v58 on
# names them; older ones, like Debian 12's 44, print "Unknown flags: 0xC0".
rc_unknown=$(awk '$1 == "rc_odp_caps:" { on = 1; next } on && /^\t[a-z_]+:/ { exit }
	on && /Unknown flags:/ { print $3 }' /tmp/devinfo.log)
echo "rc unknown flags: ${rc_unknown:-none}"
if [[ " $rc " == *" SUPPORT_FLUSH "* ]]; then
	[[ " $rc " == *" SUPPORT_ATOMIC_WRITE "* ]] || fail "rc_odp_caps lacks SUPPORT_ATOMIC_WRITE: '$rc'"
else
	[ "$rc_unknown" = 0xC0 ] ||
		fail "rc_odp_caps lacks FLUSH and ATOMIC_WRITE (1 << 6, 1 << 7): unknown flags '${rc_unknown:-none}'"
fi

# 2. ibv_rc_pingpong -o: its server registers its ODP MR before it waits for
# the client (it listens only after that), so once it listens restrack shows
# the MR as ODP with no page mapped yet.
f0=$(counter odp_faults)
perftest_next_port
server_start "$PT_PORT" /tmp/pp-server.log "ibv_rc_pingpong -o" \
	ibv_rc_pingpong -d rxe0 -g "$RXE_GID" -p "$PT_PORT" -o -n 200 || fail "ibv_rc_pingpong -o server does not listen"
rdma resource show mr -dd >/tmp/mr.log 2>&1
cat /tmp/mr.log
grep -q 'drv_odp explicit' /tmp/mr.log || { server_end 0; fail "rdma resource show mr -dd shows no ODP MR"; }
grep -Eq 'odp_mapped_pages 0( |$)' /tmp/mr.log ||
	{ server_end 0; fail "a fresh ODP MR already has pages mapped (expected odp_mapped_pages 0)"; }
client_run /tmp/pp-client.log "ibv_rc_pingpong -o client" \
	ibv_rc_pingpong -d rxe0 -g "$RXE_GID" -p "$PT_PORT" -o -n 200 "$IP" ||
	{ server_end 10; fail "ibv_rc_pingpong -o client failed"; }
server_end || fail "ibv_rc_pingpong -o server failed"
f1=$(counter odp_faults)
echo "ibv_rc_pingpong -o: odp_faults $f0 -> $f1"
[ "$f1" -gt "$f0" ] || fail "ibv_rc_pingpong -o ran without a single ODP fault"

# 3. ib_write_bw --odp pins nothing; the same run without --odp pins its MRs.
p0=$(pins_acquired) e0=$(counter odp_fault_errors) g0=$(counter odp_pages_faulted)
perftest ib_write_bw --odp -s 65536 -n 200 --report_gbits || fail "ib_write_bw --odp"
p1=$(pins_acquired) e1=$(counter odp_fault_errors) g1=$(counter odp_pages_faulted)
perftest ib_write_bw -s 65536 -n 200 --report_gbits || fail "ib_write_bw (pinned)"
p2=$(pins_acquired)
echo "nr_foll_pin_acquired: ODP run +$((p1 - p0)), pinned run +$((p2 - p1))"
echo "ODP run: odp_pages_faulted +$((g1 - g0)), odp_fault_errors +$((e1 - e0))"
[ "$p1" -eq "$p0" ] || fail "ib_write_bw --odp pinned $((p1 - p0)) pages"
[ "$p2" -gt "$p1" ] || fail "the pinned ib_write_bw did not move nr_foll_pin_acquired: the check proves nothing"
# The server's MR received 64 KiB writes: at least 16 pages were faulted in.
[ $((g1 - g0)) -ge 16 ] || fail "ib_write_bw --odp faulted only $((g1 - g0)) pages"
[ "$e1" -eq "$e0" ] || fail "ib_write_bw --odp had $((e1 - e0)) fault errors"
echo "odp-caps: ok"
