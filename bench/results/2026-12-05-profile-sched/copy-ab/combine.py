#!/usr/bin/env python3
"""Merge the sched.csv of blocks (DIR/1-A, DIR/3-A, ...) of one module into
DIR/<M>.csv, pairs renumbered block after block, for bench/sched-sum.py."""
import csv, os, sys
d, m = sys.argv[1], sys.argv[2]
blocks = sorted(b for b in os.listdir(d) if b.endswith("-" + m) and os.path.isdir(os.path.join(d, b)))
out = open(os.path.join(d, m + ".csv"), "w", newline="")
w = csv.writer(out)
w.writerow(["case", "mode", "pair", "bw_gbps", "samples"])
off = 0
for b in blocks:
    rows = list(csv.DictReader(open(os.path.join(d, b, "sched.csv"))))
    for r in rows:
        w.writerow([r["case"], r["mode"], int(r["pair"]) + off, r["bw_gbps"], os.path.join(b, r["samples"])])
    off += max(int(r["pair"]) for r in rows)
