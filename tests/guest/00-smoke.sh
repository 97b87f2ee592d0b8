#!/bin/bash
# Smoke: rxe0 is served by OUR rdma_rxe.ko (its version stamp, its path), and
# ibv_rc_pingpong and perftest traffic complete on it.
source "$TOP/tests/lib/guest.sh"

ver=$(cat /sys/module/rdma_rxe/version) || fail "rdma_rxe has no version in sysfs: not our module"
[ "$ver" = "$RXE_VERSION" ] || fail "rdma_rxe version '$ver', expected '$RXE_VERSION'"
taint=$(cat /sys/module/rdma_rxe/taint)
echo "rdma_rxe: version $ver, taint '$taint' (O = out of tree), built from $RXE_KO"
case "$taint" in *O*) ;; *) fail "rdma_rxe is not marked out-of-tree: it is not ours" ;; esac
ibv_devinfo -d rxe0 | tee /tmp/devinfo.log
grep -q 'PORT_ACTIVE' /tmp/devinfo.log || fail "rxe0 port not active"
rdma link show | grep -q 'rxe0/1 state ACTIVE' || fail "rdma link does not show rxe0 active"

perftest_next_port
server_start "$PT_PORT" /tmp/pp-server.log ibv_rc_pingpong \
	ibv_rc_pingpong -d rxe0 -g "$RXE_GID" -p "$PT_PORT" -n 500 || fail "ibv_rc_pingpong server does not listen"
client_run /tmp/pp-client.log "ibv_rc_pingpong client" \
	ibv_rc_pingpong -d rxe0 -g "$RXE_GID" -p "$PT_PORT" -n 500 "$IP" || { server_end 10; fail "ibv_rc_pingpong client failed"; }
cat /tmp/pp-client.log
server_end || fail "ibv_rc_pingpong server failed"

perftest ib_write_bw -s 65536 -n 500 --report_gbits || fail "ib_write_bw"
perftest ib_read_bw -s 65536 -n 500 --report_gbits || fail "ib_read_bw"
perftest ib_send_bw -s 65536 -n 500 --report_gbits || fail "ib_send_bw"
perftest ib_write_lat -s 8 -n 500 || fail "ib_write_lat"

# The traffic above went through the module we loaded: its counters moved.
sent=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts)
[ "$sent" -gt 1000 ] || fail "rxe0 sent only $sent packets"
echo "rxe0 (rdma_rxe $ver) sent $sent packets"
echo "smoke: ok"
