#!/usr/bin/python3
"""The one-screen comparison of make demo and make demo2 (tests/demo.sh,
tests/demo2.sh): an ODP reclaim-verify run against a pinned one.

usage: demo-report.py OUTDIR VMRC SECS ARGS [HOSTS]

Reads OUTDIR/odp.json and OUTDIR/pinned.json (reclaim-verify --json-file; in
the two-host demo, the reports of the server, the side under reclaim), VMRC =
the exit status of the guest run(s), SECS and ARGS as the demo was called.
HOSTS: 1 (make demo, one guest, loopback) or 2 (make demo2: our ODP server
in guest a, the client on Debian's stock rdma_rxe in guest b).
Exit 0 only if the ODP run kept every byte (0 stale, 0 corrupt, the tool's
PASS), the pinned run shows its staleness, and the guest run(s) ended 0.
"""
import json
import sys

out, vmrc, secs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
hosts = int(sys.argv[5]) if len(sys.argv) > 5 else 1
o = json.load(open(f"{out}/odp.json"))
p = json.load(open(f"{out}/pinned.json"))
rel = out.split("/build/", 1)[-1]
rel = "build/" + rel if rel != out else out


def mib(b):
    return f"{b / 1048576:.0f} MiB"


def errs(d, short=False):
    e = d["error_completions"]
    if not e:
        return "none"
    first = [k for k in e if "Flush" not in k] or list(e)
    return f"{sum(e.values())} ({first[0]})" if short else ", ".join(f"{k} x{v}" for k, v in e.items())


def hw(d, k):
    return d["hw_counters"].get(k, "n/a")


cg = o["events"].get("cgroup")
ops = "WRITE+READ+atomic+SEND/RECV" if hosts == 1 else "stock client: WRITE+SEND/RECV"
rows = [
    ("memory limit (cgroup v2 memory.max, zram swap)",
     f"{mib(cg['memory_max'])} < {mib(cg['working_set'])} working set" if cg else "none",
     "none (pinned: unevictable)"),
    (f"transactions ({ops})", o["transactions"], p["transactions"]),
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
if hosts == 1:
    print(f"rxe-odp demo: reclaim-verify on rxe0 (our rdma_rxe, Linux 6.12 guest, zram swap), {o['qps']} RC QPs x window {o['window']},")
    print(f"{o['block'] // 1024} KiB blocks, {secs} s per run; reclaim events fire while transfers are in flight.")
else:
    print(f"rxe-odp demo2: reclaim-verify across a virtual link between two Linux 6.12 guests: the server on OUR")
    print(f"rdma_rxe (guest a, zram swap, under reclaim), the client on Debian's stock rdma_rxe (guest b, pinned MRs),")
    print(f"{o['qps']} RC QPs x window {o['window']}, {o['block'] // 1024} KiB blocks, {secs} s per run; the columns are the server's.")
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
if hosts == 1:
    print("Full reports: build/demo/odp.txt build/demo/pinned.txt (JSON: *.json; console: build/demo/console.log)")
    print('Rerun: make demo DEMO_SECS=60 DEMO_ARGS="-r dontneed,remap -q 8"   (any reclaim-verify option; --help lists them)')
    print("By hand: tests/vm/run -m 2G -- bash -c 'source userspace/reclaim-verify/guest-env.sh; rv_guest_setup;")
    print("         reclaim-verify --addr $RV_ADDR --pinned -r dontneed -d 30'")
else:
    print(f"Full reports: the consoles {rel}/a.console (server) {rel}/b.console (client); JSON: {rel}/*.json")
    print('Rerun: make demo2 DEMO_SECS=60 DEMO_ARGS="-r dontneed,remap -q 8"   (server-side reclaim-verify options)')
    print("By hand: c='source tests/lib/pair.sh; [ $ROLE = a ] && pair_swap; pair_rv a x \"--odp -r all -d 30\" \"--pinned -r none -d 30 --ops write,send\"'")
    print("         tests/vm/pair --a ours --b stock --cmd-a \"$c\" --cmd-b \"$c\"")
if vmrc not in (0,):
    if hosts == 1:
        print(f"\nWARNING: the guest run ended with status {vmrc} (126 = kernel warning on the console: build/demo/console.log)")
    else:
        print(f"\nWARNING: the pair run ended with status {vmrc} (126 = kernel warning on a console: {rel}/a.console, b.console)")
sys.exit(0 if ok_odp and ok_pin and vmrc == 0 else 1)
