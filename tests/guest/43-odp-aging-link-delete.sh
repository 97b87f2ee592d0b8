#!/bin/bash
# debug-kernel:
# `rdma link delete` while other processes hold ODP MRs under reclaim, then the
# link is added again and used (issue 12's review finding, settled in issue
# 17): the page-aging callbacks count their answers on the MR's rxe device, so
# they must never reach a device that is gone. Two processes (young-scale)
# each hold ODP MRs on rxe0 with one page kept in RDMA use, so reclaim's young
# callbacks find it and answer; a third process writes memory.reclaim of their
# cgroup without pause. Then rxe0 is deleted. rxe cannot take user contexts
# away from a process, so the delete waits until both have closed the device:
# one is killed (its MRs go at exit), the other is asked to stop (SIGTERM) and
# deregisters its MRs itself, both while reclaim runs. The delete is kept
# waiting for seconds only: a task blocked in it for a minute is a hung-task
# report (the kernel's hung-task detector, not a bug), and on the debug kernel
# a holder's whole series of reclaims would take that long. The delete must then complete, rxe0
# come back with `rdma link add`, and ODP traffic and page aging work on it.
# The guest fails the test on any kernel report (a freed device reached by a
# callback would show as one on a debug kernel, or as a crash here).
source "$TOP/tests/lib/guest.sh"
source "$TOP/tests/lib/odp-aging.sh"

aging_setup
# On the debug kernel (KASAN, lockdep) tearing down a process's ODP MRs under
# constant reclaim is many times slower, and the delete waits for exactly that:
# fewer MRs there keep it under the minute after which a blocked task is a
# hung-task report.
mrs=1000 data=48
[ "${RXE_KERNEL:-prod}" = debug ] && mrs=200 data=16
pids=()
cleanup() { touch /tmp/stop-reclaim; for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT

# wait_for FILE PATTERN SECONDS
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

young-scale --cgroup "$cg" --mrs "$mrs" --layout inside --hot --data "$data" --reps 1000 --modes on \
	>/tmp/holder1.csv 2>/tmp/holder1.err &
h1=$!
pids+=("$h1")
young-scale --cgroup "$cg" --mrs "$mrs" --layout outside --hot --data "$data" --reps 1000 \
	>/tmp/holder2.csv 2>/tmp/holder2.err &
h2=$!
pids+=("$h2")
wait_for /tmp/holder1.err "rep 1 done" 300 || { cat /tmp/holder1.err; fail "holder 1 did not get going"; }
wait_for /tmp/holder2.err "rep 1 done" 300 || { cat /tmp/holder2.err; fail "holder 2 did not get going"; }
echo "two processes hold $mrs ODP MRs each on rxe0, one page of each in RDMA use"

rm -f /tmp/stop-reclaim
(
	n=0
	until [ -e /tmp/stop-reclaim ]; do
		echo 8M >"$cg/memory.reclaim" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" >/tmp/reclaims
) &
rl=$!
pids+=("$rl")
y0=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_young_answers)

t_del=$SECONDS
timeout 300 rdma link delete rxe0 &
del=$!
sleep 3
if kill -0 "$del" 2>/dev/null; then
	echo "rdma link delete rxe0 waits for the processes that have rxe0 open (as expected for rxe)"
else
	echo "rdma link delete rxe0 returned while the MRs were held"
fi
y1=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_young_answers 2>/dev/null || echo gone)
echo "young answers on rxe0 since reclaim started: $y0 -> $y1"

kill -KILL "$h1"
wait "$h1" 2>/dev/null
echo "holder 1 killed with its MRs registered ($((SECONDS - t_del)) s after the delete began)"
kill -TERM "$h2"
wait "$h2"
rc=$?
[ "$rc" = 0 ] || fail "holder 2 exited $rc on SIGTERM: $(tail -3 /tmp/holder2.err)"
echo "holder 2 stopped and deregistered its MRs ($((SECONDS - t_del)) s after the delete began)"
wait "$del"
rc=$?
[ "$rc" = 0 ] || fail "rdma link delete rxe0 failed (rc $rc)"
echo "rdma link delete rxe0 returned $((SECONDS - t_del)) s after it began"
touch /tmp/stop-reclaim
wait "$rl"
echo "memory.reclaim writes while the link went away: $(cat /tmp/reclaims)"
[ ! -e /sys/class/infiniband/rxe0 ] || fail "rxe0 still exists after rdma link delete"

rdma link add rxe0 type rxe netdev lo || fail "rdma link add rxe0 failed"
for i in $(seq 50); do
	[ -e /sys/class/infiniband/rxe0/ports/1/gids/1 ] && break
	sleep 0.1
done
gid=$(ibv_devinfo -v -d rxe0 | sed -n 's/.*GID\[ *\([0-9]*\)\]:.*::ffff:.*/\1/p' | head -1)
[ -n "$gid" ] || fail "re-added rxe0 has no IPv4-mapped GID"
# RDMA WRITEs (hot page) and READs (invalidation step) into ODP MRs, reclaim with aging on
young-scale --cgroup "$cg" --mrs 100 --layout inside --hot --data 32 --reps 2 --gid "$gid" \
	--inval-reps 1 >/tmp/after.csv 2>/tmp/after.err || {
	cat /tmp/after.err
	fail "ODP traffic on the re-added rxe0 failed"
}
grep -q '^young,inval-dontneed-mr,' /tmp/after.csv || fail "no RDMA READ into an ODP MR on the re-added rxe0"
[ -r /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_young_answers ] ||
	fail "re-added rxe0 has no odp_young_answers counter"
echo "re-added rxe0: ODP traffic and reclaim with page aging ok;" \
	"young answers $(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_young_answers)"
trap - EXIT
echo "link delete under reclaim: ok"
