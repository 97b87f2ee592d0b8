#!/bin/bash
# UCX with ODP on our rxe0 (issue 14, item 4): Debian 12's UCX 1.13
# (ucx-utils, unmodified) with its "odp" registration method,
# UCX_IB_REG_METHODS=odp, which needs IBV_ODP_SUPPORT_IMPLICIT and registers
# one implicit ODP MR (NULL, SIZE_MAX) per memory domain: every buffer UCX
# is asked to register then uses that MR's keys.  ucx_perftest at the
# transport level over rc_verbs, RDMA WRITE (put_bw) and READ (get) of
# 64 KiB from registered buffers (zcopy), server and client on rxe0.  Both
# must complete; while they run an implicit ODP MR of ucx_perftest must be
# in `rdma resource show mr`, and the driver must have faulted pages in for
# it.  (UCX's own internal buffers stay pinned MRs: it registers those
# directly.)  The UCP level (tag matching) needs ud_verbs for its wire-up,
# which times out on rxe here with pinned memory as well: not tested.
# Known UCX 1.13 bug, not rxe's: with the odp method, ucx_perftest may die
# of SIGSEGV after its run, in uct_ib_md_close() (the generic verbs memory
# domain frees its global ODP handle through a pointer of value 1, seen at
# address 0x11; it happened also when no transfer ran at all).  A process
# that printed its "Final:" line and then died exactly so is reported as
# that bug, not failed; any other failure fails.
source "$TOP/tests/lib/guest.sh"

command -v ucx_perftest >/dev/null || fail "ucx_perftest not installed (ucx-utils; make deps)"
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
faulted() { sleep 0.05; cat "$hw/odp_pages_faulted"; } # the core caches hw counters for 10 ms
export UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs UCX_IB_GID_INDEX=$RXE_GID UCX_IB_REG_METHODS=odp
ucx_info -v | head -1
port=13340
for t in put_bw get; do
	port=$((port + 1))
	timeout 300 ucx_perftest -d rxe0:1 -x rc_verbs -p $port >/tmp/ucx-srv-$t.log 2>&1 &
	srv=$!
	wait_listen $port 60 $srv || { cat /tmp/ucx-srv-$t.log; fail "$t: the ucx_perftest server did not listen"; }
	g0=$(faulted)
	timeout 300 ucx_perftest -d rxe0:1 -x rc_verbs -p $port -t $t -D zcopy -s 65536 -n 500 127.0.0.1 \
		>/tmp/ucx-cli-$t.log 2>&1 &
	cli=$!
	implicit=
	while kill -0 $cli 2>/dev/null; do
		if [ -z "$implicit" ]; then
			implicit=$(rdma resource show mr -dd 2>/dev/null |
				grep -m1 'mrlen 18446744073709551615 .*comm ucx_perftest drv_odp implicit')
		fi
		sleep 0.2
	done
	wait $cli
	crc=$?
	# a client that never ran its test leaves the server waiting for it
	grep -q '^Final:' /tmp/ucx-cli-$t.log || kill $srv 2>/dev/null
	wait $srv
	src=$?
	g1=$(faulted)
	cat /tmp/ucx-cli-$t.log
	for side in cli srv; do
		rc=$crc
		[ $side = srv ] && rc=$src
		[ "$rc" = 139 ] || continue
		if grep -q '^Final:' /tmp/ucx-cli-$t.log &&
			grep -q 'Caught signal 11 (Segmentation fault: address not mapped to object at address 0x11)' \
				/tmp/ucx-$side-$t.log && grep -q 'uct_ib_md_close' /tmp/ucx-$side-$t.log; then
			echo "KNOWN UCX 1.13 BUG: ucx_perftest ($side) died in uct_ib_md_close() after its run (see the header)"
			[ $side = cli ] && crc=0 || src=0
		fi
	done
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "--- server log"
		cat /tmp/ucx-srv-$t.log
		fail "$t: ucx_perftest client exited $crc, server $src"
	fi
	grep -q '^Final:' /tmp/ucx-cli-$t.log || fail "$t: no 'Final:' line from the client"
	[ -n "$implicit" ] || fail "$t: no implicit ODP MR of ucx_perftest seen during the run"
	echo "$t: implicit ODP MR seen: $implicit"
	[ "$g1" -gt "$g0" ] || fail "$t: odp_pages_faulted did not move ($g0 -> $g1)"
	echo "RESULT $t: ok, odp_pages_faulted +$((g1 - g0))"
done
echo "ucx odp: ok"
