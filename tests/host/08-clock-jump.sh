#!/bin/bash
# tests/vm/clock-jump, the check by which tests/vm/run calls a run void when
# the guest's clock jumped with the host's TSC: on sample consoles modelled
# on a real void run (pair/11 on 2026-12-03: the host VM was forked, both
# guests' consoles reached 4633 s after 143 s of QEMU, with RCU stall
# reports), a normal run, a run slower than its host, and bad usage.
source "$TOP/tests/lib/host.sh"
cj=$TOP/tests/vm/clock-jump
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bad=0
expect() { # WANT_RC HOST_SECONDS WHAT
	local got
	"$cj" "$log" "$2" >/dev/null 2>&1
	got=$?
	[ "$got" = "$1" ] || { echo "$3: exit $got, expected $1"; bad=1; }
}
printf '[    3.641014] amd_pstate: x\nguest: job output\n[   14.723931] rdma_rxe: loaded\n' >"$log"
printf 'ib_send_bw ... half a line[ 4632.823204] rcu: INFO: rcu_preempt self-detected stall on CPU\n' >>"$log"
printf '[ 4632.872396] rcu: rcu_preempt kthread timer wakeup didn'"'"'t happen for 1125464 jiffies!\n' >>"$log"
printf 'VMRUN_EXIT=1 uptime=4633.36\n' >>"$log"
expect 1 143 "a console at 4633 s after 143 s of QEMU"
[ "$("$cj" "$log" 143)" = 4632 ] || { echo "latest printk time: $("$cj" "$log" 143), expected 4632"; bad=1; }
expect 0 4700 "the same console after 4700 s of QEMU"
printf '[    2.000000] boot\n[   61.500000] last line\n' >"$log"
expect 0 60 "a console 1.5 s ahead of QEMU's time (rounding, boot offsets)"
expect 0 31 "a console 30.5 s ahead (the margin)"
expect 1 30 "a console 31.5 s ahead"
expect 0 900 "a guest slower than its host"
printf 'no timestamps at all\n' >"$log"
expect 0 10 "a console without printk times (QEMU died early)"
expect 2 x "a host time that is not a number"
"$cj" /nonexistent 10 >/dev/null 2>&1
[ $? = 2 ] || { echo "a missing console is not a usage error"; bad=1; }
[ "$bad" = 0 ] || fail "tests/vm/clock-jump misjudged the cases above"
echo "clock-jump: a 4633 s console after 143 s is void, normal and slow runs are not, 30 s margin exact"
