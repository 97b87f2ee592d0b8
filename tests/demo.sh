#!/bin/bash
# make demo: reclaim-verify in the 6.12 guest on our rdma_rxe, first with ODP
# memory regions inside a cgroup whose memory.max is below the working set
# (zram swap), then with pinned MRs, and a one-screen comparison.
# Builds nothing ('make demo' builds first).
#
#   DEMO_SECS=N      seconds of traffic per run (default 20)
#   DEMO_ARGS="..."  extra reclaim-verify options for both runs (e.g. "-q 8 -b 16K")
#
# Inside the guest: tests/demo.sh --guest (reads $VMOUT/demo.env).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --guest ]; then
	# shellcheck disable=SC1091
	source "$VMOUT/demo.env"
	source "$TOP/userspace/reclaim-verify/guest-env.sh"
	rv_guest_setup || { echo "demo: guest setup failed"; exit 1; }
	# automatic NUMA balancing stays on (hinting faults also reach the driver)
	echo 1 >/proc/sys/kernel/numa_balancing 2>/dev/null
	# shellcheck disable=SC2086
	reclaim-verify --addr "$RV_ADDR" -d "$DEMO_SECS" --progress 5 $DEMO_ARGS \
		--json-file /tmp/odp.json >/tmp/odp.txt 2>/tmp/odp.err
	echo "demo: ODP run exit $?"
	# Pinned pages cannot be reclaimed, so the pinned run goes without the
	# cgroup limit (under it the OOM killer kills the process; the tool refuses).
	# shellcheck disable=SC2086
	reclaim-verify --addr "$RV_ADDR" --pinned -r pageout,dontneed,remap,mprotect,fork,thp,compact \
		-d "$DEMO_SECS" --progress 5 $DEMO_ARGS \
		--json-file /tmp/pinned.json >/tmp/pinned.txt 2>/tmp/pinned.err
	echo "demo: pinned run exit $?"
	# results go to the host share only now: no file I/O during the runs
	cp /tmp/odp.* /tmp/pinned.* "$VMOUT/"
	exit 0
fi

BIN=$TOP/build/bin/reclaim-verify
[ -x "$BIN" ] && [ -e "$TOP/build/rxe/rdma_rxe.ko" ] ||
	{ echo "demo: build first (make)"; exit 2; }
OUT=$TOP/build/demo
rm -rf "$OUT"
mkdir -p "$OUT"
DEMO_SECS=${DEMO_SECS:-20}
DEMO_ARGS=${DEMO_ARGS:-}
printf 'DEMO_SECS=%q\nDEMO_ARGS=%q\n' "$DEMO_SECS" "$DEMO_ARGS" >"$OUT/demo.env"
echo "demo: booting the 6.12 guest with our rdma_rxe: ODP run, then pinned run, ${DEMO_SECS} s each (about $((DEMO_SECS * 2 + 60)) s)..."
"$TOP/tests/vm/run" -q -m 2G --append numa=fake=2 --out "$OUT" --log "$OUT/console.log" \
	-- bash "$TOP/tests/demo.sh" --guest >"$OUT/vm.log" 2>&1
vmrc=$?
if [ ! -s "$OUT/odp.json" ] || [ ! -s "$OUT/pinned.json" ]; then
	echo "demo: the guest run did not produce both reports (vm/run exit $vmrc)"
	tail -20 "$OUT/vm.log"
	for f in odp.txt odp.err pinned.txt pinned.err; do
		[ -s "$OUT/$f" ] && { echo "--- $f"; tail -15 "$OUT/$f"; }
	done
	exit 1
fi
/usr/bin/python3 - "$OUT" "$vmrc" "$DEMO_SECS" "$DEMO_ARGS" <<'PY'
import json, sys
out, vmrc, secs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
o = json.load(open(f"{out}/odp.json")); p = json.load(open(f"{out}/pinned.json"))
def mib(b): return f"{b / 1048576:.0f} MiB"
def errs(d, short=False):
    e = d["error_completions"]
    if not e:
        return "none"
    first = [k for k in e if "Flush" not in k] or list(e)
    return f"{sum(e.values())} ({first[0]})" if short else ", ".join(f"{k} x{v}" for k, v in e.items())
def hw(d, k): return d["hw_counters"].get(k, "n/a")
cg = o["events"].get("cgroup")
rows = [
    ("memory limit (cgroup v2 memory.max, zram swap)",
     f"{mib(cg['memory_max'])} < {mib(cg['working_set'])} working set" if cg else "none",
     "none (pinned: unevictable)"),
    ("transactions (WRITE+READ+atomic+SEND/RECV)", o["transactions"], p["transactions"]),
    ("data moved, throughput", f"{mib(o['bytes'])}, {o['gbps']:.3f} Gb/s", f"{mib(p['bytes'])}, {p['gbps']:.3f} Gb/s"),
    ("blocks verified byte by byte", o["blocks_verified"], p["blocks_verified"]),
    ("STALE blocks (NIC used a page the process lost)", o["stale_blocks"], p["stale_blocks"]),
    ("corrupt blocks", o["corrupt_blocks"], p["corrupt_blocks"]),
    ("atomics right / wrong / stale result page",
     f"{o['atomics_ok']} / {o['atomics_bad']} / {o['atomics_stale']}",
     f"{p['atomics_ok']} / {p['atomics_bad']} / {p['atomics_stale']}"),
    ("error completions", errs(o, True), errs(p, True)),
    ("pages pinned (nr_foll_pin_acquired)", o["vmstat"]["nr_foll_pin_acquired"], p["vmstat"]["nr_foll_pin_acquired"]),
    ("swapped out / in (pages)", f"{o['vmstat']['pswpout']} / {o['vmstat']['pswpin']}", f"{p['vmstat']['pswpout']} / {p['vmstat']['pswpin']}"),
    ("driver ODP faults / invalidations", f"{hw(o, 'odp_faults')} / {hw(o, 'odp_invalidations')}",
     f"{hw(p, 'odp_faults')} / {hw(p, 'odp_invalidations')}"),
]
print()
print(f"rxe-odp demo: reclaim-verify on rxe0 (our rdma_rxe, Linux 6.12 guest, zram swap), {o['qps']} RC QPs x window {o['window']},")
print(f"{o['block'] // 1024} KiB blocks, {secs} s per run; reclaim events fire while transfers are in flight.")
print()
w = 46
print(f"{'':{w}} {'ODP MRs':>28} {'pinned MRs':>28}")
for name, a, b in rows:
    print(f"{name:{w}} {str(a)[:28]:>28} {str(b)[:28]:>28}")
print(f"{'reclaim events: fired (with transfers in flight)':{w}}")
for k in ["pageout", "dontneed", "remap", "mprotect", "fork", "thp", "compact", "cgroup"]:
    def ev(d):
        e = d["events"].get(k)
        return "-" if not e else f"{e['events']} ({e['in_flight']})"
    print(f"{'  ' + k:{w}} {ev(o):>28} {ev(p):>28}")
ok_odp = o["pass"] and o["stale_blocks"] == 0 and o["corrupt_blocks"] == 0
ok_pin = p["stale_blocks"] > 0 and p["corrupt_blocks"] == 0 and p["unexplained"] == 0
print(f"{'verdict':{w}} {('PASS' if ok_odp else 'FAIL'):>28} {('stale, as pinned must be' if ok_pin else 'no staleness shown'):>28}")
print()
print(f"pinned: {p['stale_blocks']} stale blocks; ODP: {o['stale_blocks']}"
      + ("" if ok_odp else f"   (ODP run FAILED: {o['failure'] or errs(o)})"))
print()
print("Full reports: build/demo/odp.txt build/demo/pinned.txt (JSON: *.json; console: build/demo/console.log)")
print('Rerun: make demo DEMO_SECS=60 DEMO_ARGS="-r dontneed,remap -q 8"   (any reclaim-verify option; --help lists them)')
print("By hand: tests/vm/run -m 2G -- bash -c 'source userspace/reclaim-verify/guest-env.sh; rv_guest_setup;")
print("         reclaim-verify --addr $RV_ADDR --pinned -r dontneed -d 30'")
if vmrc not in (0,):
    print(f"\nWARNING: the guest run ended with status {vmrc} (126 = kernel warning on the console: build/demo/console.log)")
sys.exit(0 if ok_odp and ok_pin and vmrc == 0 else 1)
PY
