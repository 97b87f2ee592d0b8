#!/usr/bin/python3
"""Sample the host's load while the bench runs (started by bench/run.sh).

usage: bench/hostload.py ROOTPID OUT [INTERVAL]

Every INTERVAL seconds (default 10) until ROOTPID exits, appends a line
"seconds,load1,others,ours" to OUT: seconds since the start, the 1-minute
load average, and the CPUs (0..nproc) that the sample's busy time amounts to,
split into the processes of ROOTPID's tree (the bench: bench/run.sh, QEMU,
its threads) and everything else.  The 1-minute load alone cannot tell the
bench's own guest from the other guests sharing the host; this split can:
"others" is what competed with the guest for the host's CPUs.

Busy time = user + nice + system + irq + softirq + steal of /proc/stat's cpu
line; a tree's time = utime + stime + cutime + cstime of its live processes
(a child that ended was reaped by a member of the tree and is in its
cutime).  Cheap: one pass over /proc per sample.
"""
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is in user)
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)


def tree_ticks(root):
    kids, ticks = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        f = s[s.rindex(")") + 2:].split()
        # after "pid (comm) ": state ppid ... utime(14) stime cutime cstime, 1-based in stat
        pid, ppid = int(d), int(f[1])
        kids.setdefault(ppid, []).append(pid)
        ticks[pid] = int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += ticks.get(p, 0)
        todo += kids.get(p, [])
    return total


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, out = int(argv[1]), argv[2]
    interval = float(argv[3]) if len(argv) > 3 else 10.0
    t0 = time.monotonic()
    last = (t0, busy_ticks(), tree_ticks(root))
    while alive(root):
        time.sleep(interval)
        now = (time.monotonic(), busy_ticks(), tree_ticks(root))
        dt = (now[0] - last[0]) * HZ
        ours = max(now[2] - last[2], 0)
        others = max(now[1] - last[1] - ours, 0)
        with open("/proc/loadavg") as f:
            load1 = f.read().split()[0]
        with open(out, "a") as f:
            f.write("%d,%s,%.2f,%.2f\n" % (now[0] - t0, load1, others / dt, ours / dt))
        last = now
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(0)
