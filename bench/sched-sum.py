#!/usr/bin/env python3
"""Compare pinned and --odp perftest runs by where the guest's CPUs went.

Reads the sched.csv that `bench/profile.sh OUT sched` writes: one row per
perftest run, pinned and --odp back to back (a pair; or the two modes of
PROFILE_SCHED_MODES, the reference being the mode of the file's first row,
e.g. pinned against pinned again: the control), each with a file of
guest-wide counters sampled every 0.1 s during the run.  Only the run's data
phase counts: from the first sample by which rxe0's sent packets rose to the
last one after which they still rose (perftest's set-up and tear-down, which
take most of a short run's wall time in TCG, are left out).  Over that
window, per case and mode, the median over the runs of

  bw        perftest's bandwidth, Gb/s (its own figure)
  pps       packets per second in the window (rxe0's sent_pkts: requests and
            their acknowledgements or responses, both sides of the loopback)
  cpus      vCPUs busy on average (schedstat: any task but the idle ones)
  wall      the window's wall time per packet, us
  busy      CPU time of all tasks per packet, us (both vCPUs)
  user      user time per packet, us (/proc/stat: perftest's polling)
  system    system time per packet, us (rxe's workers, perftest's syscalls)
  softirq   softirq time per packet, us
  idle      idle time per packet, us
  wait      time runnable tasks waited on a run queue, per packet, us
  ctxt      context switches per 1000 packets
  slices    time slices per 1000 packets
  cli_cpu   the perftest client's CPU time per packet, us (its schedstat)
  cli_wait  the client's run-queue wait per packet, us
  cli_nvcs  the client's involuntary context switches per 1000 packets
            (each one a preemption: for a polling client, mostly by rxe's
            worker waking on its CPU)
  cli_vcs   the client's voluntary context switches per 1000 packets
  srv_cpu   the perftest server's CPU time per packet, us
  workers   busy - cli_cpu - srv_cpu: rxe's workers and everything else
  sys_cpus  vCPUs held by the kernel (system + softirq time over the wall
            time): how the two vCPUs were shared, beside the work per packet
  usr_cpus  vCPUs held in user mode (perftest's polling)
  wrk_cpus  vCPUs held by the workers (workers over wall)
  cli_cpus  vCPUs held by the client (cli_cpu over wall)
            Since wall = workers / wrk_cpus, the ratio of the wall time per
            packet is the workers' work ratio over their vCPU share's ratio:
            a gap is either more work per packet or a smaller share.
(the per-process figures only from sample files that have them: 415abff's
sampler read no process)

and, per metric, the median pair ratio ODP/pinned (the second mode over the
reference) with the 95 % interval of that median (order statistics, as in
bench/report.py).  Above 1: ODP's run
has more of it per packet (per second for pps and cpus; bw: faster).  Then
rxe's ODP counters per run: pages faulted in the data phase and in the whole
run, and invalidations in the run (device-wide; 0 for pinned MRs).

usage: sched-sum.py SCHED.CSV
       sched-sum.py --sample FILE HW_COUNTERS_DIR [TICK]
The second form is the sampler profile.sh runs beside each perftest run
(until killed): every TICK s (0.1) a line of FILE with the time, schedstat's
run and wait time (ns) and time slices summed over the CPUs, /proc/stat's
context switches and its cpu line's user, nice, system, idle, iowait, irq
and softirq ticks, rxe0's sent_pkts and ODP counters (COUNTERS), and for
the perftest client and server (the processes named ib_*; the client is the
one whose last word is 127.0.0.1) their schedstat run and wait time and
slices and their voluntary and involuntary context switches.  One process
reads the files in a loop, so its cost is small and the same in both modes.
"""
import csv
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import complete_pairs, fmt, med_spread, median, ok, pair_ratio  # noqa: E402
from report import fnum as num  # noqa: E402

METRICS = ["bw", "pps", "cpus", "wall", "busy", "user", "system", "softirq", "idle", "wait", "ctxt",
           "slices", "cli_cpu", "cli_wait", "cli_nvcs", "cli_vcs", "srv_cpu", "workers", "sys_cpus",
           "usr_cpus", "wrk_cpus", "cli_cpus"]
# counts per run (rxe's device counters: pages faulted, invalidations), shown
# as median [min-max] per mode
COUNTS = ["faulted in data phase", "faulted in the run", "invalidations in the run"]
USER_HZ = 100  # /proc/stat's tick


def window(path):
    """The counters moved over a run's data phase (see the docstring) and
    over the whole run (keys with a "run_" prefix), as a dict of deltas, or
    None when the data phase holds fewer than two samples."""
    rows = []
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            v = line.split()
            if len(v) in (len(BASE), len(NAMES)):
                rows.append([num(x) for x in v] + [float("nan")] * (len(NAMES) - len(v)))
    pk = [r[NAMES.index("sent_pkts")] for r in rows]
    up = [i for i in range(1, len(rows)) if pk[i] > pk[i - 1]]
    if len(up) < 2:
        return None
    # a: packets already flowed before it; b: they still flow after it
    i, j = up[0], up[-1] - 1
    if j <= i:
        return None
    d = {n: y - x for n, x, y in zip(NAMES, rows[i], rows[j])}
    d.update({"run_" + n: y - x for n, x, y in zip(NAMES, rows[0], rows[-1])})
    return d


def metrics(bw, d):
    """The per-packet figures of one run's window d."""
    pk, tick = d["sent_pkts"], 1e6 / USER_HZ
    wrk = d["busy"] - d["cli_run"] - d["srv_run"]  # rxe's workers and the rest, ns
    return {
        "bw": bw,
        "pps": pk / d["t"],
        "cpus": d["busy"] / 1e9 / d["t"],
        "wall": d["t"] * 1e6 / pk,
        "busy": d["busy"] / 1e3 / pk,
        "user": (d["user"] + d["nice"]) * tick / pk,
        "system": d["system"] * tick / pk,
        "softirq": (d["softirq"] + d["irq"]) * tick / pk,
        "idle": (d["idle"] + d["iowait"]) * tick / pk,
        "wait": d["wait"] / 1e3 / pk,
        "ctxt": d["ctxt"] * 1e3 / pk,
        "slices": d["slices"] * 1e3 / pk,
        "cli_cpu": d["cli_run"] / 1e3 / pk,
        "cli_wait": d["cli_wait"] / 1e3 / pk,
        "cli_nvcs": d["cli_nvcs"] * 1e3 / pk,
        "cli_vcs": d["cli_vcs"] * 1e3 / pk,
        "srv_cpu": d["srv_run"] / 1e3 / pk,
        "workers": wrk / 1e3 / pk,
        "sys_cpus": (d["system"] + d["softirq"] + d["irq"]) / USER_HZ / d["t"],
        "usr_cpus": (d["user"] + d["nice"]) / USER_HZ / d["t"],
        "wrk_cpus": wrk / 1e9 / d["t"],
        "cli_cpus": d["cli_run"] / 1e9 / d["t"],
        "faulted in data phase": d["odp_pages_faulted"],
        "faulted in the run": d["run_odp_pages_faulted"],
        "invalidations in the run": d["run_odp_invalidations"],
    }


# rxe's device counters the sampler reads (0 when a module has none)
COUNTERS = ["sent_pkts", "odp_faults", "odp_pages_faulted", "odp_invalidations", "odp_fault_ns_total"]
# per perftest process (cli, srv): schedstat's three fields, then the
# voluntary and involuntary context switches of /proc/PID/status
TASK = ["run", "wait", "slices", "vcs", "nvcs"]
BASE = ["t", "busy", "wait", "slices", "ctxt", "user", "nice", "system", "idle", "iowait", "irq",
        "softirq"] + COUNTERS
NAMES = BASE + ["%s_%s" % (who, f) for who in ("cli", "srv") for f in TASK]


def counter(hwc, name):
    try:
        with open(os.path.join(hwc, name)) as f:
            return f.read().strip()
    except OSError:
        return "0"


def perftest_pids(pids):
    """Fill pids["cli"] and pids["srv"] with perftest's processes found in
    /proc (a scan only while one is missing)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                if not f.read().startswith("ib_"):
                    continue
            with open("/proc/%s/cmdline" % d) as f:
                args = [a for a in f.read().split("\0") if a]
        except OSError:
            continue
        pids.setdefault("cli" if args and args[-1] == "127.0.0.1" else "srv", d)


def task(pid):
    """TASK's figures of one process, nan when it is not (or no more) there."""
    try:
        with open("/proc/%s/schedstat" % pid) as f:
            v = f.read().split()[:3]
        with open("/proc/%s/status" % pid) as f:
            cs = {k: w.strip() for k, w in (line.split(":", 1) for line in f if ":" in line)}
        return v + [cs["voluntary_ctxt_switches"], cs["nonvoluntary_ctxt_switches"]]
    except (OSError, KeyError, TypeError):
        return ["nan"] * len(TASK)


def sample(out, hwc, tick=0.1):
    pids = {}
    with open(out, "w") as f:
        while True:
            t = time.time()
            run = wait = slices = 0
            with open("/proc/schedstat") as ss:
                for line in ss:
                    v = line.split()
                    if v[0].startswith("cpu") and len(v) >= 10:
                        run, wait, slices = run + int(v[7]), wait + int(v[8]), slices + int(v[9])
            cpu = ctxt = None
            with open("/proc/stat") as st:
                for line in st:
                    v = line.split()
                    if v[0] == "cpu":
                        cpu = v[1:8]
                    elif v[0] == "ctxt":
                        ctxt = v[1]
            hw = " ".join(counter(hwc, c) for c in COUNTERS)
            if len(pids) < 2:
                perftest_pids(pids)
            tasks = " ".join(" ".join(task(pids.get(who, "none"))) for who in ("cli", "srv"))
            f.write("%.6f %d %d %d %s %s %s %s\n" % (t, run, wait, slices, ctxt, " ".join(cpu), hw, tasks))
            f.flush()
            time.sleep(tick)


def main(argv):
    if len(argv) >= 4 and argv[1] == "--sample":
        sample(argv[2], argv[3], float(argv[4]) if len(argv) > 4 else 0.1)
        return 0
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    runs = defaultdict(dict)  # case -> (pair, mode) -> metrics
    modes = []  # the reference first: the mode of the file's first row
    with open(argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r["mode"] not in modes:
                modes.append(r["mode"])
            bw = num(r["bw_gbps"])
            d = window(os.path.join(os.path.dirname(argv[1]), r["samples"]))
            if ok(bw) and d and d["sent_pkts"] > 0:
                runs[r["case"]][(r["pair"], r["mode"])] = metrics(bw, d)
    if len(modes) != 2:
        print("sched-sum.py: %s has %d modes (%s), not two" % (argv[1], len(modes), " ".join(modes)),
              file=sys.stderr)
        return 1
    a, b = modes
    for case, by in runs.items():
        pairs = complete_pairs(by, a, b)
        print("== %s: %d pairs" % (case, len(pairs)))
        print("%-7s %12s %12s %10s %20s" % ("metric", a, b, "%s/%s" % (b, a), "95% interval"))
        for k in METRICS:
            med = {mode: median([v[k] for (p, md), v in by.items() if md == mode]) for mode in modes}
            mid, lo, hi = pair_ratio([by[(p, a)][k] for p in pairs], [by[(p, b)][k] for p in pairs])
            print("%-7s %12s %12s %10s %20s" % (k, fmt(med[a]), fmt(med[b]), fmt(mid),
                                                "%s-%s" % (fmt(lo), fmt(hi))))
        for k in COUNTS:
            print("%s, median [min-max]: %s" % (k, "; ".join(
                "%s %s" % (mode, med_spread([v[k] for (p, md), v in by.items() if md == mode]))
                for mode in modes)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
