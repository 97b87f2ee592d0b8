#!/usr/bin/env python3
"""Compare pinned and --odp perftest runs by how rxe's work was woken and
scheduled, from a trace of each run's data phase.

Reads the wake.csv that `bench/profile.sh OUT wake` writes: one row per
perftest run (pinned and --odp back to back, a pair; or the two modes of
PROFILE_SCHED_MODES, the reference being the mode of the file's first row),
each with a trace of PROFILE_WAKE_REC s of its data phase: ftrace's
sched_switch, sched_waking, sched_wakeup and workqueue_queue_work /
execute_start / execute_end events, system-wide (tracefs' text).  Per run,
over the trace's span, with packets counted by rxe0's sent_pkts around it:

  cpus_TASK    vCPUs held by TASK over the span: cli (perftest's client, the
               ib_* process that ran most), wrk (kworkers of rxe_wq and any
               other unbound kworker), srv (the perftest server), oth
               (everything else), idle
  TASK_run_us  TASK's CPU time per packet, us
  ITEM_*       per rxe task (the work items of do_work): send is the
               client QP's send task (requester and completer), recv the
               server QP's responder.  A run's two tasks are told apart by
               the length of their activations, and named by which of the
               two the client's doorbell queues in most runs of the case
               (long_* and short_* when it queues neither)
    _queued    times per 1000 packets it was queued (rxe_sched_task() found
               it idle: each one a new activation, every packet between two
               of them handled by one run of the loop in do_task())
    _by_cli    of those, queued by the client (its doorbell syscall)
    _by_wrk    queued by a worker (the other task's transmit, in loopback)
    _exec_us   an activation's wall time, median, us (execute_start to
               _end, preemptions included)
    _qlat_us   queue to execute_start, median, us (the wake-up and the
               wait for a vCPU)
    _pkts      packets per activation (1000 / _queued)
  wrk_wakeups  worker wake-ups per 1000 packets, and of those _on_cli: on a
               vCPU the client was running (a wake-up preemption candidate),
               _on_idle, _on_wrk
  wrk_lat_us   wake-up to running, median, us
  cli_preempted  the client switched out runnable per 1000 packets (_by_wrk:
               in favour of a worker)
  wrk_preempted, wrk_slept  workers switched out runnable / asleep, per 1000
               packets
  switches     context switches per 1000 packets

and, per metric, the median over the pairs of each mode and the median pair
ratio (second mode over the reference) with its 95 % interval (order
statistics, as bench/report.py).

usage: wake-sum.py WAKE.CSV [--runs]   (--runs: every run's figures too)
"""
import csv
import gzip
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import complete_pairs, fmt, median, pair_ratio  # noqa: E402

# "  comm-pid  [cpu] flags  time: event: fields"; comm may hold '-' and ' '
LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$")
KV = re.compile(r"(\w+)=(\S+)")
WORK = re.compile(r"work struct[= ](\w+):? function[= ](\S+)")


def klass(comm, is_client):
    if comm.startswith("kworker/u"):
        return "wrk"
    if comm.startswith("ib_"):
        return "cli" if is_client else "srv"
    if comm.startswith("swapper"):
        return "idle"
    return "oth"


def parse(path):
    """The trace's events: (time, cpu, event, fields, fields after '==>',
    pid of the task that emitted it, its comm)."""
    ev = []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, pid, cpu, t, name, rest = m.groups()
            if name == "sched_switch":
                a, _, b = rest.partition(" ==> ")
                ev.append((float(t), int(cpu), name, dict(KV.findall(a)), dict(KV.findall(b)),
                           int(pid), comm))
            elif name.startswith("workqueue_"):
                w = WORK.search(rest)
                if w and w.group(2) == "do_work":
                    ev.append((float(t), int(cpu), name, {"work": w.group(1)}, None, int(pid), comm))
            elif name in ("sched_waking", "sched_wakeup"):
                ev.append((float(t), int(cpu), name, dict(KV.findall(rest)), None, int(pid), comm))
    ev.sort(key=lambda e: e[0])
    return ev


def run_figures(ev, kpkt):
    """The figures of one run's trace; kpkt: thousands of packets in it."""
    # Two passes: the first only finds the client (the perftest process that
    # ran longest), which the second's every figure is classed by; one pass
    # would have to key each counter by pid and class them at the end.
    comm, ran, since = {}, Counter(), {}
    for t, cpu, name, a, b, pid, c in ev:
        if name == "sched_switch":
            p, n = int(a["prev_pid"]), int(b["next_pid"])
            comm[p], comm[n] = a["prev_comm"], b["next_comm"]
            if p in since:
                ran[p] += t - since.pop(p)
            since[n] = t
    ib = [p for p in ran if comm[p].startswith("ib_")]
    client = max(ib, key=lambda p: ran[p]) if ib else -1

    def k(pid, c=None):
        if pid == 0:
            return "idle"
        return klass(comm.get(pid, c or "?"), pid == client)

    n, run, lat = Counter(), Counter(), defaultdict(list)
    cur, woken, since = {}, {}, {}
    queued, started = {}, {}
    works = defaultdict(lambda: {"by": Counter(), "exec": [], "qlat": []})
    for t, cpu, name, a, b, pid, c in ev:
        if name == "sched_switch":
            p, nx = int(a["prev_pid"]), int(b["next_pid"])
            kp, kn = k(p), k(nx)
            if p in since:
                run[kp] += t - since.pop(p)
            since[nx] = t
            cur[cpu] = nx
            n["switches"] += 1
            if a["prev_state"].startswith("R"):
                n["%s_preempted" % kp] += 1
                n["%s_preempted_by_%s" % (kp, kn)] += 1
            else:
                n["%s_slept" % kp] += 1
            if nx in woken:
                lat["%s_lat_us" % kn].append(t - woken.pop(nx))
        elif name == "sched_wakeup":
            p = int(a["pid"])
            if k(p, a["comm"]) == "wrk":
                tc = int(a["target_cpu"])
                n["wrk_wakeups"] += 1
                n["wrk_wakeups_on_%s" % (k(cur[tc]) if tc in cur else "unknown")] += 1
                woken[p] = t
        elif name == "workqueue_queue_work":
            queued[a["work"]] = t
            works[a["work"]]["by"][k(pid, c)] += 1
        elif name == "workqueue_execute_start":
            started[a["work"]] = t
            if a["work"] in queued:
                works[a["work"]]["qlat"].append(t - queued.pop(a["work"]))
        elif name == "workqueue_execute_end" and a["work"] in started:
            works[a["work"]]["exec"].append(t - started.pop(a["work"]))
    span = ev[-1][0] - ev[0][0]
    f = {}
    for who in ("cli", "wrk", "srv", "oth", "idle"):
        f["cpus_" + who] = run[who] / span
        if who != "idle":
            f[who + "_run_us"] = 1e6 * run[who] / (kpkt * 1e3)
    for key, v in n.items():
        f[key] = v / kpkt
    for key, v in lat.items():
        f[key] = 1e6 * median(v)
    # rxe's two tasks, told apart by their activations' length (in these
    # loopback cases one runs ~100x longer than the other); main() names
    # them send and recv by which of the two the client queues in the case
    order = sorted(works, key=lambda w: -median(works[w]["exec"]) if works[w]["exec"] else 0)
    for w, tag in zip(order, ("long", "short")):
        d = works[w]
        q = sum(d["by"].values())
        f[tag + "_queued"] = q / kpkt
        f[tag + "_by_cli"] = d["by"]["cli"] / kpkt
        f[tag + "_by_wrk"] = d["by"]["wrk"] / kpkt
        f[tag + "_pkts"] = kpkt * 1e3 / q if q else float("nan")
        if d["exec"]:
            f[tag + "_exec_us"] = 1e6 * median(d["exec"])
        if d["qlat"]:
            f[tag + "_qlat_us"] = 1e6 * median(d["qlat"])
    return f


def name_tasks(per, case):
    """Rename the long_* and short_* figures of the case's runs to send_*
    and recv_*.  The client's QP's send task (requester and completer) is
    the one the client's doorbell queues; the other is the server QP's
    responder.  By the vote of the runs in which the client queued one more
    often than the other (in some it queues neither: its task stays busy);
    without a vote the names stay long and short."""
    vote = sum((v.get("long_by_cli", 0) > v.get("short_by_cli", 0)) -
               (v.get("long_by_cli", 0) < v.get("short_by_cli", 0))
               for (c, _, _), v in per.items() if c == case)
    if not vote:
        return
    names = {"long": "send", "short": "recv"} if vote > 0 else {"long": "recv", "short": "send"}

    def renamed(k):
        head, sep, rest = k.partition("_")
        return names.get(head, head) + sep + rest

    for key, v in per.items():
        if key[0] == case:
            per[key] = {renamed(k): x for k, x in v.items()}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    top = os.path.dirname(argv[1])
    per, modes = {}, []
    with open(argv[1], newline="") as fh:
        for r in csv.DictReader(fh):
            if r["mode"] not in modes:
                modes.append(r["mode"])
            if r["rc"] != "0":
                continue
            ev = parse(os.path.join(top, r["trace"]))
            if len(ev) < 100 or int(r["pkts"]) <= 0:
                continue
            span = ev[-1][0] - ev[0][0]
            pps = int(r["pkts"]) / float(r["secs"])
            f = run_figures(ev, pps * span / 1e3)
            f["bw"], f["pps"] = float(r["bw_gbps"]), pps
            per[(r["case"], r["pair"], r["mode"])] = f
    cases = sorted({c for c, _, _ in per})
    for case in cases:
        name_tasks(per, case)
    if "--runs" in argv:
        for (c, p, m), f in per.items():
            print(c, m, p, " ".join("%s=%s" % (key, fmt(v)) for key, v in sorted(f.items())))
    if len(modes) != 2:
        print("wake-sum.py: %s has %d modes (%s), not two" % (argv[1], len(modes), " ".join(modes)),
              file=sys.stderr)
        return 1
    a, b = modes
    for case in cases:
        pairs = complete_pairs([(p, m) for c, p, m in per if c == case], a, b)
        print("== %s: %d pairs" % (case, len(pairs)))
        print("%-28s %10s %10s %10s %16s" % ("metric", a, b, "%s/%s" % (b, a), "95% interval"))
        keys = sorted({key for (c, _, _), v in per.items() if c == case for key in v})
        for key in keys:
            va = [per[(case, p, a)].get(key, 0.0) for p in pairs]
            vb = [per[(case, p, b)].get(key, 0.0) for p in pairs]
            mid, lo, hi = pair_ratio(va, vb)
            print("%-28s %10s %10s %10s %16s" % (key, fmt(median(va)), fmt(median(vb)), fmt(mid),
                                                "%s-%s" % (fmt(lo), fmt(hi))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
