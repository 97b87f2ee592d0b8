#!/usr/bin/python3
"""Pool the steady-state pairs of several bench runs of the same code.

usage: bench/pool.py RAW.csv [RAW.csv ...]

Each bench run (bench/results/*-raw.csv) pairs pinned and ODP runs back to
back in one guest boot; its report judges each case on the 95 % interval of
the median of its 20 pair ratios.  When two runs of the same driver both
leave a case undecided, their pairs together (still each pair within one
boot) give a tighter interval.  This prints, for the perftest cases and the
odp-bench steady cases: each run's median pair ratio, then the median of all
the pairs with its 95 % interval and the verdict against 0.98, the same rule
as bench/report.py (whose functions it uses).  Ratio > 1: ODP faster.
Pool only runs of the same kernel code on an idle host: the tool cannot
check either, so it prints each run's commit as its file name gives it.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import (GOAL_STEADY, PT_BW, PT_LAT, Raw, ci_state, fmt, fmt_ci,  # noqa: E402
                    fmt_size, median, pt_pairs, state_text, steady_cases, steady_pairs)


def cases(raws):
    """(label, [ratios per run]) of every perftest and steady case."""
    out = []
    for prog in PT_BW + PT_LAT:
        sizes = sorted({r["size"] for raw in raws for r in raw.get(sec="perftest", case=prog)})
        for size in sizes:
            per = [pt_pairs(raw, "perftest", prog, size, "odp")[2] for raw in raws]
            out.append(("perftest %s %s" % (prog, fmt_size(size)), per))
    steady = []
    for raw in raws:
        steady += [c for c in steady_cases(raw) if c not in steady]
    for case in steady:
        op, chunk = case.split("-", 1)
        out.append(("odp-bench %s %s" % (op, fmt_size(int(chunk))),
                    [steady_pairs(raw, case)[2] for raw in raws]))
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 else 2
    raws = [Raw(p) for p in argv[1:]]
    names = [os.path.basename(p).replace("-raw.csv", "") for p in argv[1:]]
    print("runs: " + ", ".join(names))
    print("| case | %s | pooled pairs | pooled median | 95%% interval | goal >= %.2f |"
          % (" | ".join("median, run %d" % (i + 1) for i in range(len(raws))), GOAL_STEADY))
    print("|---|%s---|---|---|---|" % ("---|" * len(raws)))
    for label, per in cases(raws):
        pooled = [x for run in per for x in run]
        if not pooled:
            continue
        st = ci_state(pooled, GOAL_STEADY)
        cells = ["%s (%d)" % (fmt(median(run)), len(run)) if run else "-" for run in per]
        print("| %s | %s | %d | %s | %s | %s |" % (label, " | ".join(cells), len(pooled), fmt(median(pooled)),
                                                 fmt_ci(pooled), state_text(st)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
