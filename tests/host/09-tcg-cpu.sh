#!/bin/bash
# The guest CPU of tests/vm/run does not corrupt RFLAGS.  QEMU 7.2's TCG
# leaks a stale operand into RFLAGS after CMPXCHG16B (userspace/tcg-probe
# explains it); Debian 12's SLUB runs that instruction on every allocation,
# and the leak made guests take spurious single-step traps and double faults
# in kmem_cache_alloc_node (CI, 2026-12-04: pair/20; 2026-12-03: pair/11).
# Two one-vCPU boots (like tests/vm/pair's): the harness's default CPU must
# pass the probe; QEMU's plain "max" CPU must show the leak, so that the
# probe is known to see it (with a QEMU that has been fixed, that half only
# says so).
source "$TOP/tests/lib/host.sh"
probe=$TOP/build/bin/tcg-probe
[ -x "$probe" ] || fail "build/bin/tcg-probe is missing (make userspace)"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

"$TOP/tests/vm/run" -q --smp 1 --rxe none --log "$log/default.log" -- "$probe" >"$log/default.out" 2>&1
rc=$?
res=$(grep -a '^tcg-probe:' "$log/default.log")
echo "default CPU: ${res:-no probe output} (rc $rc)"
[ "$rc" = 0 ] || { tail -20 "$log/default.out"; fail "the harness's guest CPU fails tcg-probe"; }

"$TOP/tests/vm/run" -q --smp 1 --rxe none --cpu max --log "$log/max.log" -- "$probe" >"$log/max.out" 2>&1
rc=$?
res=$(grep -a '^tcg-probe:' "$log/max.log")
echo "-cpu max: ${res:-no probe output} (rc $rc)"
case "$rc" in
1) echo "tcg-probe sees QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}')'s CMPXCHG16B leak on -cpu max; the default CPU avoids it" ;;
0) echo "NOTE: this QEMU no longer leaks RFLAGS after CMPXCHG16B: tests/vm/run could keep CX16" ;;
*) tail -20 "$log/max.out"; fail "the -cpu max guest did not run tcg-probe (rc $rc)" ;;
esac
