#!/usr/bin/python3
"""Turn one bench run (raw.csv + meta.txt from bench/guest.sh) into the report.

usage: bench/report.py RAWDIR OUTBASE [--title TEXT] [--force-verdict]

Writes OUTBASE.md (tables with medians, spreads, ratios and the goals: met, not
met or undecided on the 95 % interval of the median pair ratio; none on a host
too busy for a verdict, judged from RAWDIR/meta.txt's host_load_* and the
samples of RAWDIR/hostload.csv, unless --force-verdict), OUTBASE.csv (the summary rows of those tables), OUTBASE-raw.csv
(every measurement) and OUTBASE.png (gnuplot: bandwidth vs message size
pinned/ODP, registration time vs size on log axes, pages of the RDMA-only
buffer faulted back with page aging off/on; only the panels of the steps run).  Medians over the runs;
spread = min..max; a ratio is computed per pair (pinned and ODP ran back to
back, interleaved) and its median taken, so drift of the TCG guest cancels,
with the distribution-free 95 % interval of that median (median_ci()).
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

GOAL_STEADY = 0.98
GOAL_REG_SPEEDUP_1G = 1000.0
GOAL_REG_FLAT = 2.0
GOAL_REG_PINNED_1G = 100.0  # issue 14: pinned/ODP registration time at 1 GiB of never-touched memory
GOAL_COLD_WARM = 0.5
GOAL_INVAL = 2.0
GOAL_AGING = 10.0
GOAL_AGING_TPUT = 1.5  # issue 15 item 4: RDMA throughput, aging on / off (aging-probe and perftest)
GOAL_YOUNG_OUTSIDE = 1.1
GOAL_YOUNG_INSIDE = 1.5
GOAL_YOUNG_INVAL = 2.0
GOAL_FAULT_COST = 1.2

PT_BW = ["ib_write_bw", "ib_read_bw", "ib_send_bw"]
PT_LAT = ["ib_write_lat", "ib_read_lat"]
PT_SIDES = [("odp-req", "requester"), ("odp-resp", "responder")]
PT_NO_ATOMICS = ("Atomics are not measured: perftest 4.5 refuses `--odp` for `ib_atomic_bw` and `ib_atomic_lat` "
                 "(\"ODP does not support ATOMICS for now\") before it opens the device; the odp-bench steady "
                 "table below has them.")
PASS_TAGS = ["write", "read", "write+local", "read+local"]
PASS_INFO_TAGS = ["write+fresh"]
PREFETCH_TAGS = ["write", "read", "write+local", "read+local", "write+fresh"]
PREFETCH_KINDS = [("none", "none"), ("sync", "sync (FLUSH)"), ("async", "async")]
INVAL_CASES = ["dontneed-thp", "dontneed-4k", "munmap-thp", "munmap-4k"]
AGING_LRUS = [("mglru", "MGLRU"), ("classic", "classic LRU")]
# bench/guest.sh's steps, in order, and the report sections they fill
STEPS = [("perftest", "perftest"), ("ptsides", "pt_sides"), ("steady", "steady"), ("reg", "reg"), ("chunk", "chunk"), ("pass", "cold_warm"),
         ("batch", "batch"), ("faultcost", "faultcost"),
         ("prefetch", "prefetch"), ("inval", "inval"), ("pressure", "pressure"), ("aging", "aging"),
         ("agingpt", "aging_pt"), ("young", "young"), ("pair", "pair")]
PAIR_CONDS = [("nolimit", "no memory limit"), ("limit", "server under memory pressure")]
YOUNG_LAYOUTS = [("outside", "outside the MRs"), ("outside+hot", "outside, 1 MR page RDMA-hot"),
                 ("inside", "inside the MRs"), ("inside+hot", "inside, 1 MR page RDMA-hot")]
YOUNG_INVAL = [("inval-dontneed-outside", "MADV_DONTNEED outside"), ("inval-munmap-outside", "munmap outside"),
               ("inval-dontneed-mr", "MADV_DONTNEED of an MR page")]


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


def parse_size(s):
    """Bytes from "4096", "128M", "1G" (the raw CSV has both forms)."""
    s = s.strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(s[-1:].upper(), 1)
    if mult > 1:
        s = s[:-1]
    try:
        return int(float(s) * mult)
    except ValueError:
        return 0


def ok(x):
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def median(xs):
    xs = sorted(x for x in xs if ok(x))
    if not xs:
        return float("nan")
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def spread(xs):
    xs = [x for x in xs if ok(x)]
    return (min(xs), max(xs)) if xs else (float("nan"), float("nan"))


def fmt(x, digits=3):
    if not ok(x):
        return "n/a"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e5:
        return "%.0f" % x
    return "%.*g" % (digits, x)


def fmt_n(x):
    """Counts and percentages as they are: 1280, 46.5, 0 (not 1.28e+03)."""
    if not ok(x):
        return "n/a"
    return "%d" % x if x == int(x) else "%.1f" % x


def fmt_us(us):
    if not ok(us):
        return "n/a"
    if us >= 1e6:
        return "%.3g s" % (us / 1e6)
    if us >= 1e3:
        return "%.3g ms" % (us / 1e3)
    return "%.3g µs" % us


def fmt_size(b):
    b = int(b)
    for unit, sh in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << sh and b % (1 << sh) == 0:
            return "%d %s" % (b >> sh, unit)
    return "%d B" % b


def med_spread(xs, f=fmt):
    xs = [x for x in xs if ok(x)]
    if not xs:
        return "n/a"
    lo, hi = spread(xs)
    if len(xs) == 1:
        return f(xs[0])
    return "%s [%s–%s]" % (f(median(xs)), f(lo), f(hi))


def median_ci(xs, conf=0.95):
    """Distribution-free interval of the median: order statistics x_(k) and
    x_(n-k+1), with k the largest rank such that a Binomial(n, 1/2) falls
    below k with probability at most (1 - conf) / 2.  It needs no model of
    the host's noise, only independent pairs; below 6 pairs no such k exists
    at 95 % and the result is (nan, nan)."""
    xs = sorted(x for x in xs if ok(x))
    n = len(xs)
    tail, k, cdf = (1 - conf) / 2, 0, 0.0
    for i in range(n + 1):
        cdf += math.comb(n, i) / 2.0 ** n
        if cdf > tail:
            break
        k = i + 1
    if k < 1:
        return float("nan"), float("nan")
    return xs[k - 1], xs[n - k]


def complete_pairs(keys, a, b):
    """The pairs that have a run in both modes a and b, in numeric order,
    of (pair, mode) keys: the profile summaries' pair tables."""
    keys = set(keys)
    return sorted({p for p, _ in keys if (p, a) in keys and (p, b) in keys}, key=int)


def pair_ratio(va, vb):
    """Per-pair ratios b/a of two figures listed pair by pair (a pair whose
    a is 0 left out): their median and the 95 % interval of that median,
    (median, low, high); nan where there is no pair (no interval below 6)."""
    rat = [y / x for x, y in zip(va, vb) if x > 0]
    return (median(rat),) + median_ci(rat)


def fmt_ci(xs):
    lo, hi = median_ci(xs)
    return "%s–%s" % (fmt(lo), fmt(hi)) if ok(lo) else "n/a (%d pairs)" % len([x for x in xs if ok(x)])


# The method (issue 15): a goal on an ODP-vs-pinned (or on-vs-off) figure is
# judged on the 95 % interval of the median pair ratio: met when the whole
# interval lies on the right side of the bound, not met when it lies wholly on
# the wrong side, undecided otherwise (it straddles the bound, or too few pairs
# for an interval).  A goal state is True (met), False (not met), None (not
# measured) or a string "undecided: why".
PAIRS_WANTED = 20
# The host is too busy for a verdict when its 1-minute load average before the
# guest booted is above HOST_BUSY_LOAD, or when other processes than the
# bench's own used more than HOST_BUSY_OTHERS CPUs on average while it ran
# (bench/hostload.py).  The host has 2 CPUs and the guest 2 vCPUs (TCG, one
# host thread each): a load of 1.5 before the start means that 3/4 of the host
# is wanted by others, and half a CPU taken by others during the run is a
# quarter of the host: either slows the guest by tens of percent, in bursts
# that pinned and ODP runs do not share evenly.  The 1-minute load at the end
# includes the bench's own guest and is shown, not judged (except for runs
# without samples, where start or end above HOST_BUSY_LOAD counts).
HOST_BUSY_LOAD = 1.5
HOST_BUSY_OTHERS = 0.5
NO_VERDICT = None  # set by Report: why the host was too busy for a verdict


def ci_state(xs, bound, higher=True):
    """The goal state of pair ratios xs against bound (higher: ratio >= bound
    is good, else ratio <= bound), from the 95 % interval of their median."""
    xs = [x for x in xs if ok(x)]
    if not xs:
        return None
    lo, hi = median_ci(xs)
    if not ok(lo):
        return "undecided: %d pair%s, too few for a 95%% interval, which needs 6" % (len(xs), "s"[:len(xs) != 1])
    if (lo >= bound) if higher else (hi <= bound):
        return True
    if (hi < bound) if higher else (lo > bound):
        return False
    return "undecided: the interval %s–%s straddles %g" % (fmt(lo), fmt(hi), bound)


def all_state(states):
    """One state for "every case": not met if any case is not met, met if all
    are met, else undecided."""
    states = [s for s in states if s is not None]
    if not states:
        return None
    if any(s is False for s in states):
        return False
    if all(s is True for s in states):
        return True
    und = [s for s in states if isinstance(s, str)]
    few = sum(1 for s in und if "too few" in s)
    why = ", ".join(w for w in ("%d straddle the bound" % (len(und) - few) if len(und) > few else "",
                                "%d too few pairs" % few if few else "") if w)
    return "undecided: %d of %d cases; %s" % (len(und), len(states), why)


def state_text(met, timing=True):
    """The plain text of a goal state; timing goals get none on a busy host."""
    if met is None:
        return "not measured"
    if timing and NO_VERDICT:
        return "host too busy for a verdict"
    if isinstance(met, str):
        return met.replace(":", "", 1) if met.startswith("undecided:") else met
    return "met" if met else "not met"


def verdict(met, timing=True):
    t = state_text(met, timing)
    if t in ("met", "not met"):
        return "**%s**" % t
    if t.startswith("undecided"):
        return "**undecided** (%s)" % t[len("undecided "):]
    return t


def med_ci(xs):
    """A pair ratio for an informative column: median, spread, 95 % interval."""
    n = len([x for x in xs if ok(x)])
    if not n:
        return "n/a"
    lo, _ = median_ci(xs)
    return med_spread(xs) + ("; 95%% %s" % fmt_ci(xs) if ok(lo) else "; %d pair%s" % (n, "s"[:n != 1]))


def fmt_ci_us(xs):
    """The 95 % interval of the median of times in µs, as times."""
    lo, hi = median_ci(xs)
    return "%s–%s" % (fmt_us(lo), fmt_us(hi)) if ok(lo) else "%d runs" % len([x for x in xs if ok(x)])


def fig_ci(name, xs):
    """A case in a goal's figure: name, median pair ratio, its 95 % interval."""
    return "%s %s (95%% %s)" % (name, fmt(median(xs)), fmt_ci(xs))


class Raw:
    def __init__(self, path):
        self.rows = []
        with open(path, newline="") as f:
            for r in csv.reader(f):
                if len(r) != 8:
                    continue
                sec, case, mode, size, tag, run, value, unit = r
                self.rows.append(dict(sec=sec, case=case, mode=mode, size=parse_size(size),
                                      tag=tag, run=int(fnum(run)) if ok(fnum(run)) else 0,
                                      value=fnum(value), unit=unit))

    def get(self, **kw):
        return [r for r in self.rows if all(r[k] == v for k, v in kw.items())]

    def by_run(self, **kw):
        d = {}
        for r in self.get(**kw):
            d[r["run"]] = r["value"]
        return d

    def values(self, **kw):
        return [r["value"] for r in self.get(**kw)]


def read_meta(path):
    m = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    m[k] = v
    return m


def paired_ratios(a, b, inverse=False):
    """Per-run ratio b/a (or a/b) over the runs both have."""
    out = []
    for run, va in a.items():
        vb = b.get(run)
        if ok(va) and ok(vb) and va > 0 and vb > 0:
            out.append(va / vb if inverse else vb / va)
    return out


def pt_pairs(raw, sec, prog, size, mode):
    """A perftest case's pinned and mode runs by run, and their per-pair
    ratios of ODP's relative performance: bandwidth mode/pinned, latency
    pinned/mode (> 1: ODP faster)."""
    p = raw.by_run(sec=sec, case=prog, mode="pinned", size=size)
    o = raw.by_run(sec=sec, case=prog, mode=mode, size=size)
    return p, o, paired_ratios(p, o, inverse=prog in PT_LAT)


# The steady step's rows are those with tag "-": the reg step's implicit-vs-
# explicit pairs share the section, the case names and the run numbers (tag
# "implicit"; section 2).
def steady_cases(raw):
    """The steady step's cases (write-4096, atomic-65536, ...) in run order."""
    cases = []
    for r in raw.get(sec="steady", tag="-"):
        if r["case"] not in cases and r["mode"] in ("pinned", "odp") and not r["case"].endswith("error"):
            cases.append(r["case"])
    return cases


def steady_pairs(raw, case):
    """A steady case's pinned and ODP pass times by run, and the per-pair
    ratios pinned time / ODP time (> 1: ODP faster)."""
    p = raw.by_run(sec="steady", case=case, mode="pinned", tag="-")
    o = raw.by_run(sec="steady", case=case, mode="odp", tag="-")
    return p, o, paired_ratios(o, p)


def best_ratio(num, den, higher_better=False):
    """Best result vs best result: for times (lower is better) min(den)/min(num),
    for throughput max(num)/max(den).  The best of several runs is the one
    least slowed down by the other guests sharing the host."""
    a = [x for x in num if ok(x) and x > 0]
    b = [x for x in den if ok(x) and x > 0]
    if not a or not b:
        return float("nan")
    return max(a) / max(b) if higher_better else min(b) / min(a)


def read_hostload(path):
    """bench/hostload.py's samples: (seconds, 1-min load, CPUs used by others, by the bench)."""
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for r in csv.reader(f):
                if len(r) == 4 and ok(fnum(r[0])):
                    out.append(tuple(fnum(x) for x in r))
    return out


def host_state(meta, samples, force):
    """How loaded the host was, and whether that allows a verdict: a dict with
    text (for the Environment table), busy (a reason, or ""), verdict (what
    the report does about it)."""
    cpus = meta.get("host_cpus", "2")
    start, end = fnum(meta.get("host_load_start")), fnum(meta.get("host_load_end"))
    parts, why = [], []
    if ok(start):
        parts.append("1-min load average %s before the guest booted, %s at the end (the end includes the "
                     "bench's own guest)" % (fmt(start), fmt(end)))
        if start > HOST_BUSY_LOAD:
            why.append("1-min load %s > %g before the start" % (fmt(start), HOST_BUSY_LOAD))
    others = [x[2] for x in samples if ok(x[2])]
    if others:
        mean = sum(others) / len(others)
        ours = [x[3] for x in samples if ok(x[3])]
        parts.append("other processes than the bench's used %s CPUs on average while it ran (max %s in a sample; "
                     "the bench itself %s; %d samples every %s s; bench/hostload.py)"
                     % (fmt(mean, 2), fmt(max(others), 2), fmt(sum(ours) / max(len(ours), 1), 2), len(others),
                        meta.get("host_load_interval", "?")))
        if mean > HOST_BUSY_OTHERS:
            why.append("others used %s CPUs on average during the run (> %g)" % (fmt(mean, 2), HOST_BUSY_OTHERS))
    elif ok(end) and end > HOST_BUSY_LOAD:
        # an older run without samples: the end load is all there is
        why.append("1-min load %s > %g at the end (no samples during the run)" % (fmt(end), HOST_BUSY_LOAD))
    if not parts:
        return dict(text="not recorded", busy="", known=False,
                    verdict="given, but the host's load was not recorded: nobody knows whether it was idle")
    text = "; ".join(parts) + "; %s host CPUs" % cpus
    busy = "; ".join(why)
    if not busy:
        verdict = ("given: the host was idle enough (1-min load <= %g before the start, others <= %g CPUs "
                   "during the run)" % (HOST_BUSY_LOAD, HOST_BUSY_OTHERS))
    elif force:
        verdict = "**forced** although the host was too busy (%s)" % busy
    else:
        verdict = ("**none: host too busy for a verdict** (%s); `make bench BENCH_FORCE_VERDICT=1` "
                   "(bench/run.sh --force-verdict) writes them anyway" % busy)
    return dict(text=text, busy=busy, known=True, verdict=verdict)


class Report:
    def __init__(self, raw, meta, samples=(), force=False):
        global NO_VERDICT
        self.raw = raw
        self.meta = meta
        self.host = host_state(meta, samples, force)
        NO_VERDICT = self.host["busy"] if self.host["busy"] and not force else None
        self.md = []
        self.summary = []  # rows for the summary CSV
        self.goals = []  # (goal, figure, met)
        self.plot_bw = []  # (prog, size, pinned, odp)
        self.plot_reg = []  # (size, pinned, odp, pinned dereg, odp dereg)
        self.reg_counts = []
        self.plot_reg_u = []  # never-touched memory: (size, ODP, implicit, pinned reg, ODP dereg after a few faults)
        self.plot_aging = []  # (label, pages faulted aging off, aging on)
        self.plot_young = []  # (layout, N, best on/off reclaim time)
        self.plot_pair = []  # (label, pinned median, odp median) across the link
        self.plot_prefetch = []  # (variant and kind, median advise + cold pass, median warm pass) in ms

    def out(self, s=""):
        self.md.append(s)

    def table(self, header, rows):
        self.out("| " + " | ".join(header) + " |")
        self.out("|" + "|".join("---" for _ in header) + "|")
        for r in rows:
            self.out("| " + " | ".join(str(c) for c in r) + " |")
        self.out()

    def add(self, section, case, size, pinned, odp, ratio, unit, extra=""):
        self.summary.append([section, case, size, fmt(pinned, 4), fmt(odp, 4), fmt(ratio, 4), unit, extra])

    def few_pairs(self, counts, knob, unit="pairs"):
        """A sentence when a table has fewer than PAIRS_WANTED pairs (or
        triples: unit) per case."""
        counts = [c for c in counts if c]
        if counts and min(counts) < PAIRS_WANTED:
            self.out("*%s %s per case, fewer than the %d the method asks for*: the 95%% interval is wide "
                     "(below 6 %s there is none, and the verdict is undecided); %s."
                     % ("%d" % min(counts) if min(counts) == max(counts) else "%d–%d" % (min(counts), max(counts)),
                        unit, PAIRS_WANTED, unit, knob))
            self.out()

    def goal(self, name, figure, state, timing=True):
        """A row of the Goals table; timing = the verdict rests on measured times
        (none on a busy host), not on counts or correctness."""
        self.goals.append((name, figure, state, timing))

    # ------------------------------------------------------------ perftest
    def pt_case(self, sec, prog, size, mode, label=()):
        """A perftest case of section sec, pinned vs mode (odp, odp-req,
        odp-resp) paired by run: its table row (label cells after test and
        size), its summary row, and its pair ratios and goal state."""
        raw = self.raw
        lat = prog in PT_LAT
        p, o, rat = pt_pairs(raw, sec, prog, size, mode)
        unit = "µs" if lat else "Gb/s"
        odp_units = {r["unit"] for r in raw.get(sec=sec, case=prog, mode=mode, size=size)}
        br = best_ratio(list(o.values()), list(p.values())) if lat else \
            best_ratio(list(o.values()), list(p.values()), higher_better=True)
        st = ci_state(rat, GOAL_STEADY)
        if rat:
            v = verdict(st)
        elif "unsupported" in odp_units:
            v = "not run: ODP unsupported"
        else:
            v = "no ODP result (%s)" % ",".join(sorted(odp_units))
        runs = [r for r in raw.get(sec=sec, case=prog, size=size) if r["mode"] in ("pinned", mode)]
        fails = sum(1 for r in runs if r["unit"] == "failed")
        # runs that completed, but perftest's clock calibration failed: no figure
        noclk = sum(1 for r in runs if r["unit"] == "no-clock")
        row = [prog, fmt_size(size)] + list(label) + [
            med_spread(list(p.values())) + " " + unit,
            med_spread([x for x in o.values()]) + (" " + unit if any(ok(x) for x in o.values()) else ""),
            "%d" % len(rat), med_spread(rat), fmt_ci(rat) if rat else "-",
            v + (" (%d failed runs)" % fails if fails else "")
            + (" (%d runs without perftest's clock)" % noclk if noclk else "")]
        self.add(sec, prog if mode == "odp" else "%s/%s" % (prog, mode), size, median(p.values()),
                 median(o.values()), median(rat), unit,
                 "ratio=median per-pair %s over %d pairs; 95%% interval %s; best vs best %s" % (
                     "pinned/odp latency" if lat else "odp/pinned bandwidth", len(rat), fmt_ci(rat), fmt(br, 4)))
        if not lat and mode == "odp":
            self.plot_bw.append((prog, size, median(p.values()), median(o.values())))
        return row, rat, st

    def pt_goal(self, name, cases, what="perftest result"):
        """A goal over perftest cases [(name, ratios, state)]: every case met."""
        cases = [c for c in cases if c[1]]
        if not cases:
            self.goal(name, "no ODP %s" % what, None)
            return
        states = [st for _, _, st in cases]
        low = min(cases, key=lambda c: median(c[1]))
        self.goal(name, "%d of %d cases met, %d not met, %d undecided; lowest: %s"
                  % (sum(1 for x in states if x is True), len(states), sum(1 for x in states if x is False),
                     sum(1 for x in states if isinstance(x, str)), fig_ci(low[0], low[1])), all_state(states))

    def perftest(self):
        raw = self.raw
        rows, cases = [], []
        for prog in PT_BW + PT_LAT:
            for size in sorted({r["size"] for r in raw.get(sec="perftest", case=prog)}):
                row, rat, st = self.pt_case("perftest", prog, size, "odp")
                rows.append(row)
                cases.append(("%s %s" % (prog, fmt_size(size)), rat, st))
        counts = [len(c[1]) for c in cases if c[1]]
        self.out("## 1. Steady state: perftest, pinned vs `--odp`")
        self.out()
        self.out("Pinned and `--odp` runs of the same case back to back (a pair), which goes first alternating "
                 "from pair to pair, %s pairs per case in one boot; median [min–max] over the runs; bandwidth = "
                 "`BW average`, latency = `t_avg`. Ratio per pair: ODP/pinned bandwidth, pinned/ODP latency "
                 "(> 1 means ODP is faster), its median [min–max] and the 95%% interval of that median (order "
                 "statistics of the pairs, distribution-free). Goal: ratio >= %.2f, judged on the interval: "
                 "met when all of it lies at or above %.2f, not met when all of it lies below, undecided "
                 "otherwise. %s" % (self.meta.get("perftest_runs", max(counts or [0])), GOAL_STEADY, GOAL_STEADY,
                                    PT_NO_ATOMICS))
        self.out()
        self.table(["test", "size", "pinned", "ODP", "pairs", "ratio per pair", "95% interval",
                    "goal >= %.2f" % GOAL_STEADY], rows)
        self.few_pairs(counts, "`BENCH_PT_RUNS=N` sets the pairs per case (a pair of every case is 22 perftest "
                       "runs of about 5 s under TCG: 20 pairs take about 37 min)")
        self.pt_goal("steady-state ODP/pinned >= %.2f (perftest, every case, 95%% interval of the median pair "
                     "ratio; atomics not measured: perftest refuses `--odp` for them)" % GOAL_STEADY, cases)

    def pt_sides(self):
        raw = self.raw
        rows, cases = [], []
        for prog in PT_BW:
            for size in sorted({r["size"] for r in raw.get(sec="ptsides", case=prog)}):
                for mode, side in PT_SIDES:
                    row, rat, st = self.pt_case("ptsides", prog, size, mode, [side])
                    rows.append(row)
                    cases.append(("%s %s %s" % (prog, fmt_size(size), side), rat, st))
        counts = [len(c[1]) for c in cases if c[1]]
        self.out("### Steady state, ODP on one side only: perftest, pinned vs `--odp` on the requester or the "
                 "responder")
        self.out()
        self.out("Three runs of the same case back to back (a triple): pinned, `--odp` on the client only (the "
                 "requester: the source of a WRITE or SEND, the sink of a READ) and `--odp` on the server only "
                 "(the responder: the WRITE target, the READ source, the RECV buffers), which goes first rotating "
                 "from triple to triple, %s triples per case in one boot. Ratio per triple: one-sided ODP / "
                 "pinned bandwidth, its median [min–max] and the 95%% interval of that median; goal >= %.2f on "
                 "the interval, as in section 1. %s" % (self.meta.get("ptsides_runs", max(counts or [0])),
                                                        GOAL_STEADY, PT_NO_ATOMICS))
        self.out()
        self.table(["test", "size", "ODP on", "pinned", "ODP", "triples", "ratio per triple", "95% interval",
                    "goal >= %.2f" % GOAL_STEADY], rows)
        self.few_pairs(counts, "`BENCH_PT_RUNS=N` sets the triples per case (a triple of the 3 cases is 9 "
                       "perftest runs of about 5 s under TCG)", "triples")
        self.pt_goal("steady-state ODP/pinned >= %.2f, ODP on one side only (perftest, requester or responder, "
                     "every case, 95%% interval of the median triple ratio)" % GOAL_STEADY, cases,
                     "one-sided perftest result")

    def steady(self):
        raw = self.raw
        rows, meds, states, counts, wrong = [], [], [], [], {}
        for case in steady_cases(raw):
            p, o, rat = steady_pairs(raw, case)
            size = raw.get(sec="steady", case=case, tag="-")[0]["size"]
            mr = median(rat)
            br = best_ratio(list(o.values()), list(p.values()))
            op, chunk = case.split("-", 1)
            st = ci_state(rat, GOAL_STEADY)
            v = verdict(st)
            if op == "atomic":
                # value = pass time per atomic (µs); odp-bench checked every
                # fetched value and final word (value-error: wrong words per MR)
                checks = raw.values(sec="steady", case=case + "-value-error", tag="-")
                wrong[case] = sum(checks) if checks else float("nan")
                if wrong[case]:
                    v = "**wrong values**: %s words" % fmt_n(wrong[case]) if ok(wrong[case]) else \
                        "no value check"
                    st = False
                rate = lambda d: [1e3 / x for x in d.values() if ok(x) and x > 0]
                cells = ["ATOMIC FETCH_ADD", "8 B every %s" % fmt_size(int(chunk)), med_spread(rate(p)) + " k/s",
                         med_spread(rate(o)) + " k/s"]
            else:
                mbps = lambda d: [size / x for x in d.values() if ok(x) and x > 0]
                cells = ["RDMA " + op.upper(), fmt_size(int(chunk)), med_spread(mbps(p)) + " MB/s",
                         med_spread(mbps(o)) + " MB/s"]
            rows.append(cells + ["%d" % len(rat), med_spread(rat), fmt_ci(rat) if rat else "-", v])
            self.add("steady", case, size, median(p.values()), median(o.values()), mr,
                     raw.get(sec="steady", case=case, tag="-")[0]["unit"],
                     "ratio=median per-pair pinned time/odp time over %d pairs; 95%% interval %s; best vs best %s"
                     % (len(rat), fmt_ci(rat), fmt(br, 4)))
            if rat:
                meds.append(fig_ci(case, rat))
                states.append(st)
                counts.append(len(rat))
        errs = raw.get(sec="steady", case="reg-error")
        self.out("### Steady state, finely interleaved (odp-bench steady)")
        self.out()
        self.out("A pinned and an ODP MR of %s, both fully mapped, passed over alternately (one pass each, "
                 "back to back, %s pairs): the per-pair ratio is robust against the swings of the shared "
                 "emulated machine. Ratio = pinned time / ODP time (ODP relative throughput), its median "
                 "[min–max] and the 95%% interval of the median; the verdict rests on the interval (goal >= %.2f)."
                 " ATOMIC FETCH_ADD: 8-byte fetch-and-adds (of 1), one on the word at every message-column "
                 "bytes of the MR (so one per 4 KiB touches every page), the MR as the remote target as in the "
                 "RDMA rows; a pass sweeps the MR until it has posted at least 512 atomics; k/s = thousands of "
                 "atomics per second. odp-bench "
                 "checks every fetched value and at the end every word of both MRs; a wrong value fails the "
                 "case, whatever its time."
                 % (fmt_size(raw.get(sec="steady")[0]["size"]) if raw.get(sec="steady") else "?",
                    max([r["run"] for r in raw.get(sec="steady")] or [0]), GOAL_STEADY))
        self.out()
        if errs:
            self.out("ODP registration failed: errno %d." % int(errs[0]["value"]))
            self.out()
        self.table(["operation", "message", "pinned", "ODP", "pairs", "ratio per pair", "95% interval",
                    "goal >= %.2f" % GOAL_STEADY], rows)
        self.few_pairs(counts, "`BENCH_STEADY_REPS=N` sets the pairs per case")
        if meds:
            self.goal("steady-state ODP/pinned >= %.2f (odp-bench, interleaved pairs, every case, 95%% interval)"
                      % GOAL_STEADY, "; ".join(meds), all_state(states))
        if wrong:
            bad = ["%s %s" % (c, "no value check" if not ok(n) else "%s wrong words" % fmt_n(n))
                   for c, n in wrong.items() if n != 0]
            self.goal("steady-state atomics leave every fetched and final value right (odp-bench steady "
                      "--atomic, both MRs)", "; ".join(bad) if bad else "%d cases, 0 wrong words" % len(wrong),
                      not bad, timing=False)

    # ------------------------------------------------------------ registration
    def reg(self):
        self.out("## 2. Registration and deregistration cost")
        self.out()
        self.reg_untouched()
        self.reg_resident()
        self.reg_mem()
        self.reg_implicit()

    def size_pair(self, case, mode, sizes, tag):
        """The sizes with the largest and smallest median of case/mode among
        sizes, and the per-repetition ratio largest/smallest (both sizes ran in
        every repetition, interleaved): its median and 95 % interval judge
        "max/min median over sizes" by the method of pairs."""
        d = {z: self.raw.by_run(sec="reg", case=case, mode=mode, size=z, tag=tag) for z in sizes}
        meds = {z: median(list(v.values())) for z, v in d.items() if v}
        meds = {z: m for z, m in meds.items() if ok(m)}
        if len(meds) < 2:
            return None
        hi = max(meds, key=meds.get)
        lo = min(meds, key=meds.get)
        rat = paired_ratios(d[lo], d[hi])
        return dict(hi=hi, lo=lo, mhi=meds[hi], mlo=meds[lo], flat=meds[hi] / meds[lo], rat=rat)

    @staticmethod
    def med_ci_us(v):
        """A time cell: median (95 % interval of the median), or '-'."""
        if not v:
            return "-"
        return fmt_us(median(v)) + (" (%s)" % fmt_ci_us(v) if len(v) >= 6 else " (%d)" % len(v))

    def reg_untouched(self):
        raw, tag = self.raw, "untouched"
        rr = raw.get(sec="reg", tag=tag)
        if not rr:
            return
        sizes = sorted({r["size"] for r in rr if r["case"] in ("reg", "reg-error")})
        modes = [m for m in ("odp", "implicit", "pinned") if any(r["mode"] == m for r in rr)]
        names = {"odp": "ODP", "implicit": "implicit ODP", "pinned": "pinned"}

        def touched_children(size, mode):
            ch = raw.values(sec="reg", case="touched-children", mode=mode, size=size, tag=tag)
            return max(ch) if ch else None

        def cell(case, mode, size):
            v = raw.values(sec="reg", case=case, mode=mode, size=size, tag=tag)
            errs = raw.get(sec="reg", case=case + "-error", mode=mode, size=size, tag=tag)
            c = self.med_ci_us(v) if v else ""
            if errs:
                c = (c + "; " if c else "") + "%d× errno %d" % (len(errs), int(errs[0]["value"]))
            return c or "-"

        rows, errors = [], 0
        pin_at = {}
        for size in sizes:
            cells = [fmt_size(size)]
            for what in ("reg", "dereg"):
                for m in modes:
                    cells.append(cell(what, m, size))
            for m in ("odp", "implicit"):
                if m in modes:
                    ch = touched_children(size, m)
                    c = cell("dereg-touched", m, size)
                    cells.append(c + ("; %s children" % fmt_n(ch) if ch is not None else ""))
            pr = paired_ratios(raw.by_run(sec="reg", case="reg", mode="odp", size=size, tag=tag),
                               raw.by_run(sec="reg", case="reg", mode="pinned", size=size, tag=tag))
            pin_at[size] = pr
            self.plot_reg_u.append((size,) + tuple(median(raw.values(sec="reg", case=c, mode=m, size=size, tag=tag))
                                                   for c, m in (("reg", "odp"), ("reg", "implicit"), ("reg", "pinned"),
                                                                ("dereg-touched", "odp"))))
            cells.append(("%s× (%s)" % (fmt(median(pr)), fmt_ci(pr))) if pr else "-")
            errors += sum(1 for r in raw.get(sec="reg", size=size, tag=tag) if r["case"].endswith("-error"))
            rows.append(cells)
            for m in modes:
                self.add("reg", "reg-untouched-" + m, size, float("nan"),
                         median(raw.values(sec="reg", case="reg", mode=m, size=size, tag=tag)), float("nan"), "us",
                         "median over %d; 95%% interval %s" % (
                             len(raw.values(sec="reg", case="reg", mode=m, size=size, tag=tag)),
                             fmt_ci(raw.values(sec="reg", case="reg", mode=m, size=size, tag=tag))))
        touch = self.meta.get("reg_touch", "?")
        pmax = self.meta.get("reg_pinned_max", "")
        reps = max([r["run"] for r in rr] or [0])
        fl = raw.get(sec="reg", tag="flat")
        if fl:
            fsz = sorted({r["size"] for r in fl if r["case"] in ("reg", "reg-error")})
            self.out("### Registration alone, never-touched memory, 4 KiB .. %s (issue 14)" % fmt_size(max(fsz)))
            self.out()
            self.out("Explicit ODP (*ODP*) and implicit ODP registrations of a fresh never-touched `MAP_NORESERVE` "
                     "mapping per registration, and their deregistration, sizes and modes interleaved in rotating "
                     "order, %d repetitions, nothing else in a repetition: every call meets the same guest. The "
                     "implicit MR (`NULL, SIZE_MAX`) does not look at the size: it is the control, whose spread "
                     "over the sizes is the guest's. Median (95%% interval of the median)."
                     % max([r["run"] for r in fl] or [0]))
            self.out()
            frows = []
            for size in fsz:
                frows.append([fmt_size(size)] + [self.med_ci_us(raw.values(sec="reg", case=c, mode=m, size=size,
                                                                           tag="flat"))
                                                 for c in ("reg", "dereg") for m in ("odp", "implicit")])
            self.table(["size", "ODP reg", "implicit ODP reg", "ODP dereg", "implicit ODP dereg"], frows)
        self.out("### Never-touched memory, 4 KiB .. %s (issue 14)" % fmt_size(max(sizes)))
        self.out()
        self.out("Each registration of a fresh `MAP_NORESERVE` anonymous mapping that nothing touched, %d "
                 "repetitions; every repetition goes over all sizes and, per size, all modes, in an order that "
                 "rotates from one repetition to the next. *ODP* = explicit ODP MR over the mapping, *implicit* = "
                 "`ibv_reg_mr(pd, NULL, SIZE_MAX, ON_DEMAND)` (its cost does not depend on the size: it is timed "
                 "at every size only to interleave it), *pinned* (up to %s) = a pinned MR, whose registration "
                 "faults every page in: it measures allocating, zeroing and pinning the memory, which is what "
                 "pinning never-touched memory costs. Time: median (95%% interval of the median). "
                 "*dereg, %s pages faulted*: a second MR of the same kind whose %s pages, spread over the size, were "
                 "faulted in by a sync prefetch before its deregistration (children: the MR's `odp_children`). "
                 "Pinned/ODP: per repetition, the two registrations of that size, median (95%% interval)."
                 % (reps, pmax or "every size", touch, touch))
        self.out()
        hdr = ["size"] + ["%s reg" % names[m] for m in modes] + ["%s dereg" % names[m] for m in modes] + \
              ["%s dereg, %s pages faulted" % (names[m], touch) for m in ("odp", "implicit") if m in modes] + \
              ["pinned/ODP reg"]
        self.table(hdr, rows)
        if errors:
            self.out("**%d errors** in this table's runs (see the raw CSV: cases ending in -error)." % errors)
            self.out()
        # goals: every size registers, flat, pinned/ODP at 1 GiB, dereg after a few faults flat
        reg_errs = [r for r in raw.get(sec="reg", tag=tag) if r["case"] == "reg-error" and r["mode"] != "pinned"]
        self.goal("4 KiB .. %s of never-touched memory all register, ODP and implicit" % fmt_size(max(sizes)),
                  "%d registration errors over %d sizes" % (len(reg_errs), len(sizes)), not reg_errs, timing=False)
        # The faulted pages of a small MR share children (one 2 MiB chunk
        # holds all of them up to 8 MiB), so its deregistration frees less
        # than a large one's: the dereg goal compares the sizes at which
        # they fault as many children as pages, i.e. the same translation.
        full = [z for z in sizes if touch != "?" and touched_children(z, "odp") == int(touch)]
        # Registration alone (tag flat), when the run has it: the same guest
        # around every size's call; the implicit MR is the control.
        flat = sorted({r["size"] for r in raw.get(sec="reg", case="reg", mode="odp", tag="flat")})
        reg_goal = (("reg", "ODP registration alone", "odp", flat, "flat",
                     ", explicit and implicit ODP only in the repetitions") if flat else
                    ("reg", "ODP registration", "odp", sizes, tag, ""))
        for case, what, m, zs, t, which in (
                reg_goal,
                ("dereg-touched", "ODP deregistration after %s faulted pages" % touch, "odp", full, tag,
                 ", the sizes where the %s pages fault %s children" % (touch, touch))):
            sp = self.size_pair(case, m, zs, t)
            span = "%s .. %s" % (fmt_size(min(zs)), fmt_size(max(zs))) if zs else "no size"
            name = "%s time flat over %s (never-touched%s): max/min median <= %g" % (what, span, which, GOAL_REG_FLAT)
            if not sp:
                self.goal(name, "not measured", None)
                continue
            ctl = self.size_pair(case, "implicit", zs, t) if t == "flat" else None
            self.goal(name, "max/min of the medians %.2f (%s at %s / %s at %s); per repetition %s/%s: %s "
                      "(95%% %s, %d pairs)%s" % (
                          sp["flat"], fmt_us(sp["mhi"]), fmt_size(sp["hi"]), fmt_us(sp["mlo"]), fmt_size(sp["lo"]),
                          fmt_size(sp["hi"]), fmt_size(sp["lo"]), fmt(median(sp["rat"])), fmt_ci(sp["rat"]),
                          len(sp["rat"]),
                          "; the implicit MR (the control: its registration does not look at the size) "
                          "%.2f (%s at %s / %s at %s)" % (ctl["flat"], fmt_us(ctl["mhi"]), fmt_size(ctl["hi"]),
                                                         fmt_us(ctl["mlo"]), fmt_size(ctl["lo"])) if ctl else ""),
                      ci_state(sp["rat"], GOAL_REG_FLAT, higher=False))
        one_g = 1 << 30
        pr = pin_at.get(one_g, [])
        name = "pinned/ODP registration time at 1 GiB of never-touched memory >= %d× (95%% interval)" % \
            GOAL_REG_PINNED_1G
        if pr:
            self.goal(name, "%s× over %d pairs, 95%% interval %s (pinned %s, ODP %s)" % (
                fmt(median(pr)), len(pr), fmt_ci(pr),
                fmt_us(median(raw.values(sec="reg", case="reg", mode="pinned", size=one_g, tag=tag))),
                fmt_us(median(raw.values(sec="reg", case="reg", mode="odp", size=one_g, tag=tag)))),
                ci_state(pr, GOAL_REG_PINNED_1G))
        else:
            self.goal(name, "not measured", None)
        self.reg_counts.append(reps)

    def reg_mem(self):
        raw = self.raw
        rr = raw.get(sec="mem")
        if not rr:
            return
        rows = []
        for m in ("odp", "implicit"):
            kmem = raw.values(sec="mem", case="kmem", mode=m)
            if not kmem:
                continue
            size = raw.get(sec="mem", case="kmem", mode=m)[0]["size"]
            gib = size / float(1 << 30)
            ch = raw.values(sec="mem", case="children", mode=m)
            mp = raw.values(sec="mem", case="mapped-pages", mode=m)
            freed = raw.values(sec="mem", case="kmem-freed", mode=m)
            pf = raw.values(sec="mem", case="prefetch", mode=m)
            per = [k / gib / 1024 for k in kmem]
            per_child = [k * 1024 / c for k, c in zip(kmem, ch) if c]
            rows.append([{"odp": "explicit ODP", "implicit": "implicit ODP"}[m], fmt_size(size),
                         fmt_n(median(mp)), fmt_n(median(ch)), med_spread(per) + " MiB",
                         med_spread([x / 1024 for x in per_child]) + " KiB",
                         "%.1f B" % (median(kmem) * 1024 / median(mp)) if ok(median(mp)) and median(mp) else "n/a",
                         med_spread([f / 1024 for f in freed]) + " MiB", med_spread(pf, fmt_us)])
            self.add("reg", "mem-per-gib-" + m, size, float("nan"), median(per), float("nan"), "MiB/GiB",
                     "kernel heap growth per GiB touched over %d runs; children %s" % (len(per), fmt_n(median(ch))))
        if not rows:
            return
        self.out("### Memory of the translation per GiB touched")
        self.out()
        self.out("A resident region, registered ODP (explicit or implicit), every page mapped into the MR by one "
                 "sync prefetch (`ibv_advise_mr` PREFETCH_WRITE with FLUSH). Method: the kernel heap in use before "
                 "and after the prefetch, objects in use of every slab cache (`/proc/slabinfo` active_objs × "
                 "objsize: a cache's free room does not count) + kmallocs too large for a cache (meminfo `Slab` "
                 "minus the caches' slab pages) + `VmallocUsed`; the growth is what the children, their per-page "
                 "arrays and page-use bits take (the pages themselves were resident before). Cross-checked "
                 "against the MR's own counters (`rdma resource show mr -dd`: `odp_mapped_pages`, "
                 "`odp_children`); freed = the heap's fall at deregistration. Median [min–max] over the runs.")
        self.out()
        self.table(["MR", "region", "mapped pages", "children", "per GiB touched", "per child",
                    "per mapped page", "freed at dereg", "prefetch time"], rows)

    def reg_implicit(self):
        raw = self.raw
        rows, counts = [], []
        for r in sorted({r["case"] for r in raw.get(sec="steady", tag="implicit")}):
            if r.endswith("error"):
                continue
            e = raw.by_run(sec="steady", case=r, mode="odp", tag="implicit")
            i = raw.by_run(sec="steady", case=r, mode="implicit", tag="implicit")
            rat = paired_ratios(i, e)  # explicit time / implicit time
            op, chunk = r.split("-", 1)
            rows.append(["steady RDMA %s, %s messages" % (op.upper(), fmt_size(int(chunk))),
                         med_spread(list(e.values()), fmt_us), med_spread(list(i.values()), fmt_us),
                         "%d" % len(rat), med_spread(rat), fmt_ci(rat) if rat else "-"])
            counts.append(len(rat))
            self.add("reg", "implicit-steady-" + r, 0, median(e.values()), median(i.values()), median(rat), "us",
                     "explicit/implicit time per pair over %d pairs; 95%% interval %s" % (len(rat), fmt_ci(rat)))
        tags = []
        for r in raw.get(sec="pass"):
            if r["tag"].startswith("implicit-") and r["tag"] not in tags:
                tags.append(r["tag"])
        for t in tags:
            cases = {r["case"][:-5] for r in raw.get(sec="pass", tag=t) if r["case"].endswith("-cold")}
            for base in sorted(cases):
                for p in ("cold", "warm"):
                    e = raw.by_run(sec="pass", case=base + "-" + p, mode="odp", tag=t)
                    i = raw.by_run(sec="pass", case=base + "-" + p, mode="implicit", tag=t)
                    rat = paired_ratios(i, e)
                    rows.append(["%s pass, %s (%s)" % (p, base, t[len("implicit-"):]),
                                 med_spread(list(e.values()), fmt_us), med_spread(list(i.values()), fmt_us),
                                 "%d" % len(rat), med_spread(rat), fmt_ci(rat) if rat else "-"])
                    counts.append(len(rat))
                    self.add("reg", "implicit-%s-%s-%s" % (p, base, t), 0, median(e.values()), median(i.values()),
                             median(rat), "us", "explicit/implicit time per pair over %d pairs; 95%% interval %s"
                             % (len(rat), fmt_ci(rat)))
        if not rows:
            return
        self.out("### Implicit vs explicit ODP")
        self.out()
        self.out("The same transfers through an explicit ODP MR over the buffer and through an implicit ODP MR "
                 "(`NULL, SIZE_MAX`), back to back, which goes first alternating (a pair). Steady: both buffers "
                 "fully mapped, one pass each per pair (odp-bench steady --implicit). Cold/warm: a fresh MR per "
                 "pair over resident memory (*write*) or never-touched memory (*write+fresh*), its first and "
                 "second pass of 1 MiB RDMA WRITEs (odp-bench pass --implicit). Ratio = explicit time / implicit "
                 "time per pair (> 1: implicit faster), median [min–max] and the 95% interval of the median. "
                 "No goal: information (issue 14, deliver 5).")
        self.out()
        self.table(["transfer", "explicit ODP", "implicit ODP", "pairs", "explicit/implicit per pair",
                    "95% interval"], rows)
        self.few_pairs(counts, "`BENCH_REG_IMPL_REPS=N` sets the pairs")

    # ------------------------------------------------------------ chunk
    def chunk(self):
        raw = self.raw
        rr = raw.get(sec="chunk")
        self.out("## 2b. The chunk of an ODP child (`odp_child_shift`)")
        self.out()
        if not any(r["case"] == "sparse-cold" for r in rr):
            why = [r["unit"] for r in rr if r["case"] == "unsupported"]
            self.out("Not measured: %s." % (why[0] if why else "no data"))
            self.out()
            return
        sizes = sorted({r["size"] for r in rr if r["case"] == "sparse-cold"})
        rows = []
        for z in sizes:
            cold = raw.by_run(sec="chunk", case="sparse-cold", size=z)
            warm = raw.by_run(sec="chunk", case="sparse-warm", size=z)
            n = raw.values(sec="chunk", case="sparse-chunks", size=z)
            ch = raw.by_run(sec="chunk", case="children", size=z)
            km = raw.by_run(sec="chunk", case="kmem", size=z)
            dr = raw.by_run(sec="chunk", case="dereg", size=z)
            scold = raw.by_run(sec="chunk", case="seq-cold", size=z)
            swarm = raw.by_run(sec="chunk", case="seq-warm", size=z)
            ssize = raw.values(sec="chunk", case="seq-size", size=z)
            nn = n[0] if n else float("nan")
            first = [(cold[r] - warm[r]) / nn for r in cold if r in warm]
            pfc = raw.by_run(sec="chunk", case="pf-cold", size=z)
            pfw = raw.by_run(sec="chunk", case="pf-warm", size=z)
            pfirst = [(pfc[r] - pfw[r]) / nn for r in pfc if r in pfw]
            per_child = [km[r] * 1024 / ch[r] for r in km if ch.get(r)]
            dper = [dr[r] / ch[r] for r in dr if ch.get(r)]
            mib = ssize[0] / float(1 << 20) if ssize else float("nan")
            seq = [(scold[r] - swarm[r]) / mib for r in scold if r in swarm]
            seqrat = paired_ratios(scold, swarm)  # warm/cold
            sh = z.bit_length() - 1
            rows.append(["%d (%s)" % (sh, fmt_size(z)), "%d" % len(first),
                         "%s (%s)" % (fmt_us(median(pfirst)), fmt_ci_us(pfirst)) if pfirst else "-",
                         "%s (%s)" % (fmt_us(median(first)), fmt_ci_us(first)),
                         "%s (%s)" % (fmt_us(median(list(cold.values()))), fmt_ci_us(list(cold.values()))),
                         "%s [%s–%s]" % tuple(fmt(x / 1024, 3) for x in (median(per_child),) + spread(per_child))
                         + " KiB",
                         "%.1f B" % (median(per_child) / (z / 4096.0)) if per_child else "n/a",
                         "%s (%s)" % (fmt_us(median(dper)), fmt_ci_us(dper)),
                         "%s (%s)" % (fmt_us(median(seq)), fmt_ci_us(seq)),
                         "%s (%s)" % (fmt(median(seqrat)), fmt_ci(seqrat))])
            self.add("chunk", "first-access-per-chunk", z, float("nan"), median(first), float("nan"), "us",
                     "shift %d; (sparse cold - warm)/chunks over %d runs; 95%% interval %s; by prefetch %s us; "
                     "memory per child %s "
                     "KiB; seq cold-warm per MiB %s us" % (sh, len(first), fmt_ci(first), fmt(median(pfirst)),
                                                          fmt(median(per_child) / 1024), fmt(median(seq))))
        default = self.meta.get("chunk_default", "?")
        self.out("odp-bench chunk, for each `odp_child_shift` (a testing module parameter, written between "
                 "registrations; default %s) in an order rotating per repetition, %s repetitions after a warm-up: "
                 "*sparse*: one resident page in each of %s chunks, an ODP MR over them, one 4 KiB RDMA WRITE "
                 "into each chunk, `odp_fault_ahead` = 0 so the cold pass makes one child and maps one page per "
                 "chunk; first access per chunk = (cold − warm pass) / chunks; memory per child = kernel heap "
                 "growth over the cold pass / `odp_children` (method as in \"Memory of the translation\"); dereg "
                 "per child = the MR's deregistration / children. *By prefetch*: the same through the CPU "
                 "alone, without packets or rxe's worker: a new ODP MR over the same pages, a sync "
                 "`ibv_advise_mr` PREFETCH_WRITE of one page per chunk (cold: makes the children) minus the "
                 "same again (warm), per chunk. *sequential*: a resident region of %s, cold and "
                 "warm pass of 1 MiB WRITEs (fault-ahead as configured): (cold − warm) per MiB and warm/cold per "
                 "pair. Median (95%% interval of the median)."
                 % (default, self.meta.get("chunk_reps", "?"), self.meta.get("chunk_n", "?"),
                    self.meta.get("chunk_seq", "?")))
        self.out()
        self.table(["shift (chunk)", "runs", "first access per chunk, by prefetch",
                    "first access per chunk, by RDMA WRITE", "sparse cold pass", "memory per child",
                    "per 4 KiB page of chunk", "dereg per child", "sequential cold−warm per MiB",
                    "sequential warm/cold"], rows)

    def reg_resident(self):
        raw = self.raw
        sizes = sorted({r["size"] for r in raw.get(sec="reg", tag="-") if r["case"] in ("reg", "reg-error")})
        rows = []
        odp_med = {}
        speed, speed_pairs, counts = {}, {}, []
        for size in sizes:
            cells = [fmt_size(size)]
            meds = {}
            for mode in ("pinned", "odp"):
                for what in ("reg", "dereg"):
                    v = raw.values(sec="reg", case=what, mode=mode, size=size, tag="-")
                    errs = raw.get(sec="reg", case=what + "-error", mode=mode, size=size, tag="-")
                    meds[(mode, what)] = median(v)
                    c = med_spread(v, fmt_us) if v else ""
                    if errs:
                        c = (c + "; " if c else "") + "%d× errno %d" % (len(errs), int(errs[0]["value"]))
                    cells.append(c or "n/a")
            pr = paired_ratios(raw.by_run(sec="reg", case="reg", mode="odp", size=size, tag="-"),
                               raw.by_run(sec="reg", case="reg", mode="pinned", size=size, tag="-"))
            sp = median(pr)
            speed[size], speed_pairs[size] = sp, pr
            counts.append(len(pr))
            odp_med[size] = meds[("odp", "reg")]
            cells.append(fmt(sp) + "×" if ok(sp) else "n/a")
            cells.append("%d" % len(pr))
            cells.append(fmt_ci(pr) if pr else "-")
            rows.append(cells)
            self.add("reg", "reg-resident", size, meds[("pinned", "reg")], meds[("odp", "reg")], sp, "us",
                     "ratio=median per-pair pinned/odp reg time over %d pairs; 95%% interval %s"
                     % (len(pr), fmt_ci(pr)))
            self.add("reg", "dereg-resident", size, meds[("pinned", "dereg")], meds[("odp", "dereg")],
                     meds[("pinned", "dereg")] / meds[("odp", "dereg")]
                     if ok(meds[("odp", "dereg")]) and meds[("odp", "dereg")] > 0 else float("nan"),
                     "us", "ratio=pinned/odp dereg time")
            self.plot_reg.append((size, meds[("pinned", "reg")], meds[("odp", "reg")],
                                  meds[("pinned", "dereg")], meds[("odp", "dereg")]))
        if not rows:
            return
        self.out("### Resident memory")
        self.out()
        self.out("`ibv_reg_mr` / `ibv_dereg_mr` of resident anonymous memory (THP as the guest has it), "
                 "pinned and ODP alternating; median [min–max]. Speed-up = pinned/ODP registration time, "
                 "per pair (the two registrations of a repetition), its median and the 95% interval of the "
                 "median.")
        self.out()
        self.table(["size", "pinned reg", "pinned dereg", "ODP reg", "ODP dereg", "speed-up", "pairs",
                    "95% interval"], rows)
        self.few_pairs(counts, "`odp-bench reg --reps` (bench/guest.sh REG_REPS, REG_BIG from 256 MiB)")
        pins = {}
        for r in raw.get(sec="reg", case="pins", tag="-"):
            pins.setdefault((r["mode"], r["size"]), []).append(r["value"])
        if pins:
            self.out("Pages pinned per registration (`nr_foll_pin_acquired` around `ibv_reg_mr`, largest "
                     "over the runs): " + "; ".join(
                         "%s %s **%d**" % (mode, fmt_size(size), int(max(v)))
                         for (mode, size), v in sorted(pins.items(), key=lambda kv: (kv[0][0], kv[0][1]))) + ".")
            self.out()
        for w in raw.get(sec="reg", case="kernel-warning"):
            self.out("Pinned registration of %s: refused (ENOMEM) with a kernel WARNING from the page "
                     "allocator: Debian's rxe keeps a pinned MR's page list in one kmalloc'd array of 16 bytes "
                     "per 4 KiB page (`__alloc_mr_page_info`), %s here, beyond kmalloc's largest size. "
                     "Not an ODP issue; an ODP MR of the same size registers." %
                     (fmt_size(w["size"]), fmt_size(w["size"] // 4096 * 16)))
            self.out()
        for w in raw.get(sec="reg", case="kernel-trouble"):
            self.out("**Kernel trouble** during the pinned registration of %s (see the run's logs)." %
                     fmt_size(w["size"]))
            self.out()
        one_g = 1 << 30
        if ok(speed.get(one_g)):
            self.goal("ODP registration of 1 GiB >= %d× faster than pinned (resident memory, 95%% interval)"
                      % GOAL_REG_SPEEDUP_1G,
                      "%s× over %d pairs, 95%% interval %s (pinned %s, ODP %s)" % (
                          fmt(speed[one_g]), len(speed_pairs[one_g]), fmt_ci(speed_pairs[one_g]), fmt_us(median(
                              raw.values(sec="reg", case="reg", mode="pinned", size=one_g, tag="-"))),
                          fmt_us(odp_med[one_g])),
                      ci_state(speed_pairs[one_g], GOAL_REG_SPEEDUP_1G))
        else:
            self.goal("ODP registration of 1 GiB >= %d× faster than pinned" % GOAL_REG_SPEEDUP_1G,
                      "not measured", None)
        flat = {s: v for s, v in odp_med.items() if s >= 1 << 20 and ok(v)}
        if len(flat) >= 2:
            lo, hi = min(flat.values()), max(flat.values())
            # not a pair ratio: medians of different sizes against each other
            self.goal("ODP registration time within %g× from 1 MiB to %s (medians)" % (GOAL_REG_FLAT,
                                                                                     fmt_size(max(flat))),
                      "max/min = %.2f (%s .. %s)" % (hi / lo, fmt_us(lo), fmt_us(hi)), hi / lo <= GOAL_REG_FLAT)
        else:
            self.goal("ODP registration time within %g× from 1 MiB to 4 GiB" % GOAL_REG_FLAT, "not measured", None)

    # ------------------------------------------------------------ cold/warm
    def ctr_rows(self, sec, tag):
        return {r["case"][4:]: r["value"] for r in self.raw.get(sec=sec, tag=tag) if r["case"].startswith("ctr:")}

    def pass_rows(self, tags, sec_note):
        raw = self.raw
        rows, res = [], {}
        for tag in tags:
            cases = {r["case"] for r in raw.get(sec="pass", tag=tag)}
            cold_case = next((c for c in cases if c.endswith("-cold")), None)
            if not cold_case:
                continue
            base = cold_case[:-5]
            size = raw.get(sec="pass", tag=tag, case=cold_case)[0]["size"]
            pages = size // 4096
            cold = raw.by_run(sec="pass", tag=tag, case=base + "-cold", mode="odp")
            warm = raw.by_run(sec="pass", tag=tag, case=base + "-warm", mode="odp")
            pwarm = raw.by_run(sec="pass", tag=tag, case=base + "-warm", mode="pinned")
            reg = raw.values(sec="pass", tag=tag, case=base + "-reg", mode="odp")
            errs = raw.get(sec="pass", tag=tag, case="reg-error", mode="odp")
            rat = paired_ratios(cold, warm)  # warm/cold time = cold speed relative to warm
            per_page = [(cold[r] - warm[r]) / pages for r in cold if r in warm and ok(cold[r]) and ok(warm[r])]
            steady = paired_ratios(pwarm, warm, inverse=True)  # pinned/odp time of the warm pass
            ctr = self.ctr_rows("pass", tag)
            faults = {k: v for k, v in ctr.items() if k.startswith("hw:odp") and v}
            mr = median(rat)
            br = best_ratio(list(cold.values()), list(warm.values()))
            st = ci_state(rat, GOAL_COLD_WARM)
            if rat:
                res[tag] = (fig_ci(tag, rat), st, len(rat))
            rows.append([tag, fmt_size(size), med_spread(list(pwarm.values()), fmt_us),
                         med_spread(list(warm.values()), fmt_us) if warm else
                         ("registration failed: errno %d" % int(errs[0]["value"]) if errs else "n/a"),
                         med_spread(list(cold.values()), fmt_us), "%d" % len(rat), med_spread(rat),
                         fmt_ci(rat) if rat else "-", med_spread(per_page, fmt_us), med_ci(steady),
                         ", ".join("%s %d" % (k[3:], v) for k, v in sorted(faults.items())) or "-",
                         verdict(st) if sec_note == "goal" else "(information)"])
            self.add("pass", tag, size, median(pwarm.values()), median(warm.values()), mr, "us",
                     "ratio=median per-pair warm/cold over %d pairs; 95%% interval %s; best vs best %s; "
                     "odp cold=%s us; per-page fault=%s us; warm odp vs pinned %s; %s"
                     % (len(rat), fmt_ci(rat), fmt(br, 4), fmt(median(cold.values()), 4),
                        fmt(median(per_page), 4), med_ci(steady), sec_note))
        return rows, res

    def cold_warm(self):
        self.out("## 3. Cold vs warm: first pass over a fresh ODP MR vs the second")
        self.out()
        self.out("odp-bench: register a resident region, then two passes of 1 MiB RDMA messages (8 in flight) "
                 "over all of it. *write*/*read* = RDMA WRITE into / READ from the region as the remote MR "
                 "(the responder faults); *+local* = the region is the local buffer (the requester or "
                 "completer faults); *+fresh* = the region was never touched (the fault also allocates "
                 "and zeroes). Cold/warm = warm time / cold time per pair (the cold and the warm pass of one "
                 "MR), its median [min–max] and the 95%% interval of the median (the verdict, goal >= %.1f); "
                 "fault time per 4 KiB page = (cold - warm) / pages; warm ODP vs pinned = pinned/ODP time "
                 "of the warm pass per pair (median [min–max]; 95%% interval). "
                 "Counters: rxe hw_counters that moved during the whole command (both modes, all runs)."
                 % GOAL_COLD_WARM)
        self.out()
        hdr = ["pass", "region", "pinned warm", "ODP warm", "ODP cold", "pairs", "cold/warm per pair",
               "95% interval", "fault per page", "warm ODP vs pinned", "counters", "goal >= 0.5"]
        rows, res = self.pass_rows(PASS_TAGS, "goal")
        irows, ires = self.pass_rows(PASS_INFO_TAGS, "info")
        self.table(hdr, rows + irows)
        self.few_pairs([v[2] for v in list(res.values()) + list(ires.values())],
                       "bench/guest.sh PASS_REPS sets the pairs per case")
        if res:
            self.goal("cold pass >= %.1f× warm pass (every variant, 95%% interval)" % GOAL_COLD_WARM,
                      "; ".join(v[0] for v in res.values()),
                      all_state([v[1] for v in res.values()]))
        else:
            self.goal("cold pass >= %.1f× warm pass" % GOAL_COLD_WARM, "not measured", None)

    def batch(self):
        raw = self.raw
        tags = []
        for r in raw.get(sec="pass"):
            if "=" in r["tag"] and r["tag"] not in tags:
                tags.append(r["tag"])
        self.out("### Fault batch size (module parameter `%s`, default %s)" %
                 (self.meta.get("batch_param", "n/a"), self.meta.get("batch_default", "n/a")))
        self.out()
        if not tags:
            why = raw.get(sec="batch")
            self.out("Not swept: %s." % (why[0]["unit"] if why else "no data"))
            self.out()
            return
        rows = []
        for tag in tags:
            cells = [tag]
            for base in ("write-remote", "read-remote"):
                cold = raw.by_run(sec="pass", tag=tag, case=base + "-cold", mode="odp")
                warm = raw.by_run(sec="pass", tag=tag, case=base + "-warm", mode="odp")
                size = next((r["size"] for r in raw.get(sec="pass", tag=tag, case=base + "-cold")), 0)
                pages = max(size // 4096, 1)
                rat = paired_ratios(cold, warm)
                pp = [(cold[r] - warm[r]) / pages for r in cold if r in warm]
                cells += [med_spread(list(cold.values()), fmt_us), med_spread(list(warm.values()), fmt_us),
                          med_ci(rat), med_spread(pp, fmt_us)]
                self.add("batch", tag + " " + base, size, float("nan"), median(cold.values()), median(rat),
                         "us", "median per-pair warm/cold over %d pairs; 95%% interval %s; per-page fault %s us"
                         % (len(rat), fmt_ci(rat), fmt(median(pp), 4)))
            rows.append(cells)
        self.out("Cold/warm = warm/cold time per pair (the two passes of one MR): median [min–max]; 95% interval "
                 "of the median (6 pairs or more).")
        self.out()
        self.table(["setting", "WRITE cold", "WRITE warm", "WRITE cold/warm", "WRITE fault/page",
                    "READ cold", "READ warm", "READ cold/warm", "READ fault/page"], rows)

    # ------------------------------------------------------------ fault cost
    FC_KINDS = [("zero", "zero-fill (after MADV_DONTNEED)"), ("swap", "swap-in from zram (after MADV_PAGEOUT)")]
    FC_BUCKETS = ["lt10us", "lt100us", "lt1ms", "lt10ms", "ge10ms"]

    def faultcost(self):
        """Issue 15, deliver 3: the driver's fault service per page (its own
        counters odp_fault_ns_total / odp_pages_faulted) against the kernel's
        MADV_POPULATE_WRITE of the same region, per pair, per odp_fault_ahead."""
        raw = self.raw
        self.out("### Fault cost: rxe's fault service vs the kernel's own populate, per page")
        self.out()
        rows_all = raw.get(sec="faultcost")
        aheads = sorted({r["tag"] for r in rows_all if r["tag"].startswith("ahead=")},
                        key=lambda t: int(t.split("=")[1]))
        if not aheads:
            why = [r for r in rows_all if r["unit"] not in ("status",)]
            self.out("Not measured: %s." % (why[0]["unit"] if why else "no data"))
            self.out()
            self.goal("driver fault service <= %.1f× the kernel's populate per page" % GOAL_FAULT_COST,
                      "not measured", None)
            return
        m = self.meta
        self.out("`fault-cost` (bench step `faultcost`): a %s region, THP off, registered as an ODP MR (the remote "
                 "end of a loopback RC pair). Each pair brings the region to the same state twice and faults it "
                 "in once each way, which goes first alternating: *kernel* = `MADV_POPULATE_WRITE` of the whole "
                 "region, timed around the call, per page; *driver* = RDMA WRITEs over the whole region, and the "
                 "driver's own fault service from its device counters, `odp_fault_ns_total` / "
                 "`odp_pages_faulted` moved by the pass (rxe times each fault: `hmm_range_fault()` and the "
                 "mapping, one `ib_umem_odp_map_dma_and_lock()`). *pass* = the WRITE pass's wall time per page "
                 "(faults, copies and the wire). Every `odp_fault_ahead` value (set at run time) gets its pair "
                 "in each round. Ratio = driver / kernel per pair: median [min–max]; 95%% interval of the median. "
                 "Histogram = the device's `odp_fault_lat_*` buckets summed over the pairs (faults by service "
                 "time)." % m.get("faultcost_size", "?"))
        self.out()
        rows, by_kind, hist_ok, hist_n = [], {}, True, 0
        for kind, kname in self.FC_KINDS:
            for tag in aheads:
                ker = raw.by_run(sec="faultcost", case=kind, mode="kernel", tag=tag)
                drv = raw.by_run(sec="faultcost", case=kind, mode="driver", tag=tag)
                if not ker and not drv:
                    continue
                pas = raw.by_run(sec="faultcost", case=kind, mode="driver-pass", tag=tag)
                ctr = lambda n: raw.by_run(sec="faultcost", case=kind, mode="ctr:" + n, tag=tag)
                faults, pages = ctr("odp_faults"), ctr("odp_pages_faulted")
                buckets = [ctr("odp_fault_lat_" + b) for b in self.FC_BUCKETS]
                for run, f in faults.items():
                    hist_n += 1
                    if sum(b.get(run, 0) for b in buckets) != f:
                        hist_ok = False
                rat = paired_ratios(ker, drv)
                ppf = [pages[r] / faults[r] for r in faults if faults[r] > 0 and r in pages]
                by_kind.setdefault(kind, {})[tag] = rat
                rows.append([kname.split(" ")[0], tag.split("=")[1], med_spread(list(ker.values()), fmt_us),
                             med_spread(list(drv.values()), fmt_us), med_ci(rat),
                             med_spread(list(pas.values()), fmt_us), med_spread(ppf),
                             " / ".join(fmt_n(sum(b.values())) for b in buckets)])
                self.add("faultcost", "%s %s" % (kind, tag), self.raw.get(sec="faultcost", case=kind)[0]["size"],
                         median(ker.values()), median(drv.values()), median(rat), "us/page",
                         "pinned column = kernel MADV_POPULATE_WRITE per page, odp column = driver fault service "
                         "per page; ratio = median per-pair driver/kernel over %d pairs, 95%% interval %s"
                         % (len(rat), fmt_ci(rat)))
        self.table(["kind", "fault-ahead", "kernel populate", "driver fault service", "driver / kernel",
                    "WRITE pass", "pages per fault", "histogram <10µs / <100µs / <1ms / <10ms / >=10ms"], rows)
        self.few_pairs([len(r) for k in by_kind.values() for r in k.values()],
                       "`BENCH_FC_PAIRS=20` gives 20")
        # the batch size chosen by the measurement: the lowest median ratio on
        # zero-fill (the common first-touch case), swap-in as the tie-break
        zero, swap = by_kind.get("zero", {}), by_kind.get("swap", {})
        cand = [t for t in aheads if zero.get(t)] or [t for t in aheads if swap.get(t)]
        key = lambda t: (median(zero.get(t, [])) if zero.get(t) else float("inf"),
                         median(swap.get(t, [])) if swap.get(t) else float("inf"))
        best = min(cand, key=key) if cand else None
        if best:
            self.out("Fault-ahead chosen by this run: **%s** (the lowest median driver/kernel ratio on zero-fill; "
                     "the module's default was %s)%s." % (
                         best.split("=")[1], m.get("faultcost_ahead_default", "?"),
                         "; the host was too busy for a verdict, so this choice is provisional" if NO_VERDICT
                         else ""))
            self.out()
            figs = ["%s %s" % (k, fig_ci(best, by_kind[k][best])) for k, _ in self.FC_KINDS
                    if by_kind.get(k, {}).get(best)]
            self.goal("driver fault service <= %.1f× the kernel's populate per page (at the chosen fault-ahead, "
                      "zero-fill and swap-in, 95%% interval)" % GOAL_FAULT_COST, "; ".join(figs),
                      all_state([ci_state(by_kind[k][best], GOAL_FAULT_COST, higher=False)
                                 for k, _ in self.FC_KINDS if by_kind.get(k, {}).get(best)]))
        if hist_n:
            self.goal("the fault histogram's buckets sum to odp_faults (every pass)",
                      "%d passes, %s" % (hist_n, "all equal" if hist_ok else "some differ"), hist_ok,
                      timing=False)

    # ------------------------------------------------------------ prefetch
    def prefetch(self):
        raw = self.raw
        self.out("### Prefetch: the cold pass after `ibv_advise_mr` (sync, async) vs none")
        self.out()
        rows, sync_faults, none_faults, any_rows = [], [], [], False
        for tag in PREFETCH_TAGS + sorted({r["tag"] for r in raw.get(sec="prefetch")} - set(PREFETCH_TAGS)):
            cases = {r["case"] for r in raw.get(sec="prefetch", tag=tag)}
            cold_case = next((c for c in cases if c.endswith("-cold")), None)
            if not cold_case:
                continue
            base = cold_case[:-5]
            size = raw.get(sec="prefetch", tag=tag, case=cold_case)[0]["size"]
            none_cold = raw.by_run(sec="prefetch", tag=tag, case=cold_case, mode="none")
            for kind, kname in PREFETCH_KINDS:
                cold = raw.by_run(sec="prefetch", tag=tag, case=cold_case, mode=kind)
                errs = raw.get(sec="prefetch", tag=tag, case="advise-error", mode=kind)
                if not cold and not errs:
                    continue
                any_rows = True
                warm = raw.by_run(sec="prefetch", tag=tag, case=base + "-warm", mode=kind)
                adv = raw.by_run(sec="prefetch", tag=tag, case="advise", mode=kind)
                per_gib = raw.values(sec="prefetch", tag=tag, case="advise-per-gib", mode=kind)
                faulted = raw.values(sec="prefetch", tag=tag, case=base + "-cold-faulted", mode=kind)
                pre = raw.values(sec="prefetch", tag=tag, case="prefetched", mode=kind)
                if kind == "sync":
                    sync_faults += [v for v in faulted if ok(v)]
                if kind == "none":
                    none_faults += [v for v in faulted if ok(v)]
                # per run: warm/cold (cold speed relative to warm), and the first touch
                # relative to no prefetch: none cold / (advise + cold), both of the same run
                cw = paired_ratios(cold, warm)
                total = {r: cold[r] + adv.get(r, 0.0) for r in cold}
                vs_none = paired_ratios(total, none_cold, inverse=False) if kind != "none" else []
                vs_none_pass = paired_ratios(cold, none_cold) if kind != "none" else []
                self.plot_prefetch.append(("%s %s" % (tag, kind), median(total.values()) / 1e3,
                                           median(warm.values()) / 1e3))
                rows.append([tag, fmt_size(size), kname,
                             med_spread(list(adv.values()), fmt_us) if adv else
                             ("errno %d" % int(errs[0]["value"]) if errs else "-"),
                             med_spread(per_gib, fmt_us) if per_gib else "-",
                             med_spread(list(cold.values()), fmt_us), med_spread(list(warm.values()), fmt_us),
                             med_ci(cw), med_ci(vs_none_pass) if vs_none_pass else "-",
                             med_ci(vs_none) if vs_none else "-",
                             med_spread(faulted, fmt_n), med_spread(pre, fmt_n)])
                self.add("prefetch", "%s %s" % (tag, kind), size, median(none_cold.values()),
                         median(cold.values()), median(vs_none) if vs_none else median(cw), "us",
                         "pinned column = cold pass without prefetch; ratio = median per run none cold / "
                         "(advise + cold)%s over %d pairs, 95%% interval %s; advise %s us/GiB; cold-pass "
                         "faulted pages %s"
                         % (" (none: warm/cold)" if kind == "none" else "", len(vs_none or cw),
                            fmt_ci(vs_none or cw), fmt(median(per_gib), 4), fmt(median(faulted), 4)))
        if not any_rows:
            why = raw.get(sec="prefetch")
            self.out("Not measured: %s." % (why[0]["unit"] if why else "no data"))
            self.out()
            self.goal("sync prefetch: the cold pass faults no page", "not measured", None)
            return
        self.out("odp-bench `pass --prefetch none,sync,async`: a fresh ODP MR per run, then `ibv_advise_mr` "
                 "PREFETCH_WRITE (the pass writes the region) or PREFETCH (it reads it) of the whole MR through "
                 "uverbs' ioctl (`uv_advise_mr`, as rdma-core 44's librxe has no advise_mr): *sync* with "
                 "IB_UVERBS_ADVISE_MR_FLAG_FLUSH (returns once every page is mapped), *async* without it "
                 "(queued; the cold pass starts at once and races the prefetch), *none* no call. Then the cold "
                 "pass and the warm pass (1 MiB messages, 8 in flight); the three kinds rotate which goes "
                 "first. *advise* = the call's own time (median [min–max]), also per GiB; the ratios are per "
                 "repetition (median [min–max]; 95% interval of the median): cold/warm = warm/cold "
                 "time; *pass vs none* = the none run's cold pass / this cold pass (same repetition: "
                 "> 1 = the data pass got faster); *first touch vs none* = none's cold pass / (advise + cold "
                 "pass) (> 1 = prefetching and then passing beat faulting on the data path); *faulted* = pages "
                 "the cold pass had to fault (the MR's own odp_pages_faulted); *prefetched* = the MR's "
                 "odp_pages_prefetched after the passes.")
        self.out()
        self.table(["pass", "region", "prefetch", "advise", "advise per GiB", "cold pass", "warm pass",
                    "cold/warm per rep.", "pass vs none", "first touch vs none", "faulted (cold pass)",
                    "prefetched"], rows)
        if sync_faults:
            # counts, not times: the host's load does not decide it
            self.goal("sync prefetch: the cold pass faults no page (none faults some)",
                      "sync: %s pages faulted over %d runs; none: %s" %
                      (fmt_n(sum(sync_faults)), len(sync_faults), med_spread(none_faults, fmt_n)),
                      sum(sync_faults) == 0 and all(v > 0 for v in none_faults), timing=False)
        else:
            self.goal("sync prefetch: the cold pass faults no page", "not measured", None)

    # ------------------------------------------------------------ invalidation
    def inval(self):
        raw = self.raw
        rows, res = [], {}
        for case in INVAL_CASES:
            nomr = raw.by_run(sec="inval", case=case, mode="nomr")
            odp = raw.by_run(sec="inval", case=case, mode="odp")
            if not nomr and not odp:
                continue
            size = raw.get(sec="inval", case=case)[0]["size"]
            rat = paired_ratios(nomr, odp)
            errs = raw.get(sec="inval", case="reg-error", size=size)
            mr = median(rat)
            br = best_ratio(list(nomr.values()), list(odp.values()))  # min(odp)/min(nomr)
            st = ci_state(rat, GOAL_INVAL, higher=False)
            if rat:
                res[case] = (fig_ci(case, rat), st, len(rat))
            rows.append([case, fmt_size(size), med_spread(list(nomr.values()), fmt_us),
                         med_spread(list(odp.values()), fmt_us) if odp else
                         ("registration failed: errno %d" % int(errs[0]["value"]) if errs else "n/a"),
                         "%d" % len(rat), med_spread(rat), fmt_ci(rat) if rat else "-", verdict(st)])
            self.add("inval", case, size, median(nomr.values()), median(odp.values()), mr, "us",
                     "pinned column = no MR; ratio = median per-pair odp/no-MR time over %d pairs; 95%% interval "
                     "%s; best vs best %s" % (len(rat), fmt_ci(rat), fmt(br, 4)))
        stale = raw.values(sec="inval", case="stale-bytes")
        self.out("## 4. Invalidation: MADV_DONTNEED / munmap of a fully mapped ODP region vs no MR")
        self.out()
        self.out("Resident region, THP on (*-thp*) or off (*-4k*); with an ODP MR every page was first mapped "
                 "into the MR by an RDMA READ pass; the run with and the run without an MR alternate (a pair). "
                 "Ratio = ODP/no-MR time per pair, its median [min–max] and the 95%% interval of the median "
                 "(the verdict, goal <= %g)." % GOAL_INVAL)
        self.out()
        self.table(["operation", "region", "no MR", "ODP MR", "pairs", "ratio per pair", "95% interval",
                    "goal <= %g" % GOAL_INVAL], rows)
        self.few_pairs([v[2] for v in res.values()], "bench/guest.sh INVAL_REPS sets the pairs per case")
        if stale:
            self.out("After MADV_DONTNEED the ODP MR must read the new zero pages: stale bytes read back "
                     "by RDMA = **%d** (over %d checks)." % (sum(int(x) for x in stale if ok(x)), len(stale)))
            self.out()
        if res:
            self.goal("invalidation <= %g× no-MR (every variant, 95%% interval)" % GOAL_INVAL,
                      "; ".join(v[0] for v in res.values()),
                      all_state([v[1] for v in res.values()]))
        else:
            self.goal("invalidation <= %g× no-MR" % GOAL_INVAL, "not measured", None)

    # ------------------------------------------------------------ pressure
    def press_runs(self, mode, tag):
        """The runs of one kind of the pressure step (bench/guest.sh press_one),
        by run number: dict(rc, outcome, ok, tput, w, rd, reg, corrupt, checked,
        swapin, swapout, oom, rxe counters, memory.max)."""
        raw = self.raw
        rows = raw.get(sec="pressure", mode=mode, tag=tag)
        out = {}
        for ex in [r for r in rows if r["case"] == "exit"]:
            run = ex["run"]
            g = lambda case: [r for r in rows if r["run"] == run and r["case"] == case]
            size, rc = ex["size"], ex["value"]
            reg, regerr = g("reg"), g("reg-error")
            wt = [r["value"] for r in g("write") if r["value"] > 0]
            rt = [r["value"] for r in g("read") if r["value"] > 0]
            corrupt = sum(r["value"] for r in g("corrupt-rdma") + g("corrupt-cpu"))
            checked = len(g("corrupt-cpu"))
            ctr = {r["case"][4:]: r["value"] for r in rows if r["run"] == run and r["case"].startswith("ctr:")}
            memcg = {r["case"][6:]: r["value"] for r in rows if r["run"] == run and r["case"].startswith("memcg:")}
            mmax = g("memory.max")
            if not ok(rc):
                outcome = "not run (ODP unsupported)"
            elif regerr:
                e = int(regerr[0]["value"])
                outcome = "registration refused: errno %d (%s)" % (e, os.strerror(e))
            elif rc == 137 and memcg.get("oom_kill", 0) > 0:
                outcome = "OOM-killed by the memcg %s" % ("during traffic" if reg else "during registration"
                                                          if g("fill") else "before its region was filled")
            elif rc == 0 and checked:
                outcome = "completed"
            else:
                outcome = "exit %d" % rc
            done = outcome == "completed"
            out[run] = dict(
                rc=rc, outcome=outcome, done=done, size=size, corrupt=corrupt, checked=checked,
                # RDMA throughput of the run: the bytes of its WRITE and READ passes over their time (MB/s)
                tput=size * (len(wt) + len(rt)) / sum(wt + rt) if done and wt + rt else float("nan"),
                w=size * len(wt) / sum(wt) if wt else float("nan"),
                rd=size * len(rt) / sum(rt) if rt else float("nan"),
                reg=reg[0]["value"] if reg else float("nan"),
                swapin=ctr.get("vm:pswpin", 0), swapout=ctr.get("vm:pswpout", 0),
                oom=memcg.get("oom_kill", 0), ctr=ctr,
                max=mmax[0]["value"] if mmax else float("nan"))
        return out

    @staticmethod
    def press_outcome(runs):
        """One cell for the outcomes of runs: "completed" or "OOM-killed ... (2 of 3)"."""
        n = defaultdict(int)
        for r in runs.values():
            n[r["outcome"]] += 1
        if not n:
            return "not run"
        return "; ".join(o if c == len(runs) else "%s (%d of %d)" % (o, c, len(runs)) for o, c in sorted(n.items()))

    def pressure(self):
        raw = self.raw
        tags = {r["tag"] for r in raw.get(sec="pressure")}
        pcts = sorted({int(t.rsplit("-", 1)[1]) for t in tags
                       if t.startswith("limit-") and t.rsplit("-", 1)[1].isdigit()}, reverse=True)
        ws = next((r["size"] for r in raw.get(sec="pressure", case="exit")), 0)
        rows, runs_rows, counts, comp_figs, comp_states = [], [], [], [], []
        per_run = lambda runs, key: [r[key] for r in runs.values()]
        for pct in pcts:
            lim = self.press_runs("odp", "limit-%d" % pct)
            unl = self.press_runs("odp", "nolimit-%d" % pct)
            proot = self.press_runs("pinned", "limit-%d" % pct)
            pmem = self.press_runs("pinned", "limit-memlock-%d" % pct)
            tl = {k: v["tput"] for k, v in lim.items()}
            tu = {k: v["tput"] for k, v in unl.items()}
            rat = paired_ratios(tu, tl)  # limited / unlimited throughput, per pair
            mmax = next((r["max"] for r in list(lim.values()) + list(proot.values()) if ok(r["max"])), float("nan"))
            corrupt = sum(r["corrupt"] for r in list(lim.values()) + list(unl.values()))
            checked = sum(r["checked"] for r in list(lim.values()) + list(unl.values()))
            label = "%d %%" % pct
            uswap = per_run(unl, "swapin") + per_run(unl, "swapout")
            rows.append([label, fmt_size(mmax) if ok(mmax) else "?", "%d" % len(rat),
                         med_spread(per_run(lim, "tput")) + " MB/s" if lim else "-",
                         med_spread(per_run(unl, "tput")) + " MB/s" if unl else "-",
                         med_spread(rat), fmt_ci(rat) if rat else "-",
                         med_spread(per_run(lim, "swapin"), fmt_n) if lim else "-",
                         med_spread(per_run(lim, "swapout"), fmt_n) if lim else "-",
                         "%d" % corrupt if checked else "-",
                         self.press_outcome(lim) + ("" if not any(uswap) else
                                                    "; unlimited runs swapped too: in %s, out %s" % (
                                                        med_spread(per_run(unl, "swapin"), fmt_n),
                                                        med_spread(per_run(unl, "swapout"), fmt_n))),
                         self.press_outcome(proot) + (
                             "; **kernel trouble outside the OOM report** (logs/dmesg-pressure-pinned-%d.log)" % pct
                             if raw.get(sec="pressure", case="kernel-trouble", tag="limit-%d" % pct) else ""),
                         self.press_outcome(pmem)])
            if rat:
                counts.append(len(rat))
            self.add("pressure", "odp limit %d%% / no limit" % pct, ws, median(tu.values()), median(tl.values()),
                     median(rat), "MB/s", "ratio=median per-pair limited/unlimited ODP throughput over %d pairs; "
                     "95%% interval %s; memory.max %s; swap-ins %s, swap-outs %s per limited run; corrupt=%s; "
                     "pinned root: %s; pinned RLIMIT_MEMLOCK: %s" % (
                         len(rat), fmt_ci(rat), fmt_n(mmax), med_spread(per_run(lim, "swapin"), fmt_n),
                         med_spread(per_run(lim, "swapout"), fmt_n), "%d" % corrupt if checked else "-",
                         self.press_outcome(proot), self.press_outcome(pmem)))
            name = "ODP throughput at memory.max = %d%% of the working set / no limit (median pair ratio, 95%% " \
                   "interval; no bound)" % pct
            if rat:
                self.goal(name, "%s (95%% %s, %d pairs); swap-ins %s, swap-outs %s per run" % (
                    fmt(median(rat)), fmt_ci(rat), len(rat), med_spread(per_run(lim, "swapin"), fmt_n),
                    med_spread(per_run(lim, "swapout"), fmt_n)), "shown", timing=False)
            else:
                self.goal(name, "not measured (%s)" % self.press_outcome(lim), None)
            if lim and all(not ok(r["rc"]) for r in lim.values()):
                comp_states.append(None)
                comp_figs.append("%d %%: ODP unsupported" % pct)
            elif lim:
                good = all(r["done"] for r in list(lim.values()) + list(unl.values())) and corrupt == 0
                comp_states.append(good)
                comp_figs.append("%d %%: %d of %d limited runs completed, %d corrupt bytes" % (
                    pct, sum(1 for r in lim.values() if r["done"]), len(lim), corrupt))
        # every kind of run, one row each (runs of a kind: median [min–max])
        kinds = [("pinned", "nolimit")] + [(m, "%s-%d" % (t, p)) for p in pcts for m, t in (
            ("pinned", "limit"), ("pinned", "limit-memlock"), ("odp", "nolimit"), ("odp", "limit"))]
        for mode, tag in kinds:
            runs = self.press_runs(mode, tag)
            if not runs:
                continue
            mmax = next((r["max"] for r in runs.values() if ok(r["max"])), float("nan"))
            faults = defaultdict(list)
            for r in runs.values():
                for k, v in r["ctr"].items():
                    if k.startswith("hw:odp"):
                        faults[k[3:]].append(v)
            checked = sum(r["checked"] for r in runs.values())
            runs_rows.append([mode, tag, "%d" % len(runs), "none" if not ok(mmax) or mmax == 0 else fmt_size(mmax),
                              self.press_outcome(runs),
                              fmt_us(median(per_run(runs, "reg"))) if any(ok(x) for x in per_run(runs, "reg")) else "-",
                              med_spread(per_run(runs, "w")) + " MB/s" if any(ok(x) for x in per_run(runs, "w")) else "-",
                              med_spread(per_run(runs, "rd")) + " MB/s" if any(ok(x) for x in per_run(runs, "rd")) else "-",
                              "%s / %s" % (med_spread(per_run(runs, "swapin"), fmt_n),
                                           med_spread(per_run(runs, "swapout"), fmt_n)),
                              "%d" % sum(per_run(runs, "oom")),
                              ", ".join("%s %s" % (k, fmt_n(median(v))) for k, v in sorted(faults.items())
                                        if any(v)) or "-",
                              "%d" % sum(per_run(runs, "corrupt")) if checked else "-"])
        self.out("## 5. Memory pressure: memory.max below the working set, zram swap")
        self.out()
        self.out("odp-bench pressure in a cgroup v2 (zram swap %s), working set %s: fill the region with a pattern, "
                 "register it, then %s pass(es) of RDMA WRITE (new pattern) and RDMA READ (checked), and a final "
                 "CPU check of every byte. For each limit (memory.max = that share of the working set), %s pairs "
                 "of ODP runs: one under the limit and one without, back to back, which goes first alternating "
                 "from pair to pair; throughput = the bytes of the WRITE and READ passes over their time; ratio "
                 "per pair = limited / unlimited, its median [min–max] and the 95%% interval of that median (no "
                 "bound: the figure is shown). Swap-ins/outs per run: pswpin/pswpout deltas of /proc/vmstat "
                 "(median [min–max]). Pinned runs once per limit and shows what it is: as root (its registration "
                 "pins, so charges, the whole working set), and as uid 65534 with RLIMIT_MEMLOCK = memory.max. "
                 "OOM kills from memory.events. Each pass goes through the working set in order: with less memory than "
                 "the working set, reclaim (LRU) has evicted a page before the pass comes back to it, so every pass "
                 "faults every page in again whatever the limit, and the swap counts hardly depend on it." % (
                     self.meta.get("zram", "n/a"), fmt_size(ws) if ws else "?", self.meta.get("press_passes", "?"),
                     self.meta.get("press_pairs", "?")))
        self.out()
        if rows:
            self.table(["limit (% of WS)", "memory.max", "pairs", "ODP limited", "ODP unlimited",
                        "limited / unlimited per pair", "95% interval", "swap-ins per run", "swap-outs per run",
                        "corrupt bytes", "ODP under the limit", "pinned (root)", "pinned (RLIMIT_MEMLOCK)"], rows)
            self.few_pairs(counts, "`BENCH_PRESS_PAIRS=N` sets the pairs per limit (a pair of runs under a "
                           "limit takes tens of seconds under TCG)")
        if runs_rows:
            self.out("Every kind of run (median [min–max] over its runs; rxe counters: median per run):")
            self.out()
            self.table(["mode", "tag", "runs", "memory.max", "outcome", "registration", "WRITE", "READ",
                        "swap-in / swap-out", "OOM kills", "rxe counters", "corrupt bytes"], runs_rows)
        name = "under pressure ODP completes with 0 corrupt bytes (every limit)"
        if comp_states:
            self.goal(name, "; ".join(comp_figs), all_state(comp_states), timing=False)
        else:
            self.goal(name, "not measured", None)

    # ------------------------------------------------------------ aging
    AGING_METRICS = [  # label, probe key, off/on ratio per run
        ("pages of A faulted back (odp_pages_faulted)", "a_pages_faulted", True),
        ("faults on A (odp_faults)", "a_faults", True),
        ("swap-ins (pswpin)", "pswpin", True),
        ("swap-outs (pswpout)", "pswpout", False),
        ("pages of A invalidated (odp_pages_invalidated)", "a_pages_invalidated", False),
        ("young answers (odp_young_answers)", "young_answers", False),
        ("RDMA into A during the rounds, MiB/s", "rdma_mib_s", False),
        ("A resident, lowest after a round", "a_resident_min_pct", False),
        ("A resident at the end", "a_resident_end_pct", False),
        ("B resident at the end", "b_resident_end_pct", False),
        ("settle round: pages of A faulted back (not counted)", "settle_a_pages_faulted", False),
        ("RDMA WRITE volume into A, counted rounds", "rdma_mib", False),
    ]

    def aging(self):
        raw = self.raw
        get = lambda lru, case, mode: raw.by_run(sec="aging", case=case, mode=mode, tag=lru)
        per_run = lambda off, on, runs: [off[r] / max(on[r], 1) for r in runs if ok(off[r]) and ok(on[r])]
        cfg = {r["case"][4:]: r["value"] for r in raw.get(sec="aging") if r["case"].startswith("cfg:")}
        rows, run_rows, figs, ratios_all, states = [], [], [], [], []
        tput_figs, tput_states = [], []
        for lru, name in AGING_LRUS:
            off, on = get(lru, "a_pages_faulted", "off"), get(lru, "a_pages_faulted", "on")
            runs = sorted(set(off) & set(on))
            if not runs:
                continue
            # issue 15 item 4: the throughput the pressure leaves RDMA, on / off per run
            toff, ton = get(lru, "rdma_mib_s", "off"), get(lru, "rdma_mib_s", "on")
            trat = [ton[r] / toff[r] for r in sorted(set(toff) & set(ton))
                    if ok(ton[r]) and ok(toff[r]) and toff[r] > 0]
            if trat:
                tput_states.append(ci_state(trat, GOAL_AGING_TPUT))
                tput_figs.append("%s: %s / %s MiB/s, on/off per run %s, 95%% interval %s (runs: %d)" % (
                    name, med_spread(list(ton.values()), fmt_n), med_spread(list(toff.values()), fmt_n),
                    med_spread(trat, fmt_n), fmt_ci(trat), len(trat)))
            size = raw.get(sec="aging", case="a_pages_faulted", tag=lru)[0]["size"]
            rat = per_run(off, on, runs)
            ratios_all += rat
            states.append(ci_state(rat, GOAL_AGING))
            for label, key, with_ratio in self.AGING_METRICS:
                o, n = get(lru, key, "off"), get(lru, key, "on")
                if not o and not n:
                    continue
                unit = {"pct": " %", "MiB": " MiB", "MiB/s": " MiB/s"}.get(
                    next((r["unit"] for r in raw.get(sec="aging", case=key, tag=lru)), ""), "")
                r = per_run(o, n, sorted(set(o) & set(n))) if with_ratio else []
                rows.append([name, label, med_spread(list(o.values()), fmt_n) + unit, med_spread(list(n.values()), fmt_n) + unit,
                             med_spread(r, fmt_n) if with_ratio else "", fmt_ci(r) if with_ratio and r else ""])
                self.add("aging", "%s %s" % (lru, key), size, median(o.values()), median(n.values()),
                         median(r) if with_ratio else float("nan"), unit.strip() or "count",
                         "pinned_or_baseline = odp_aging off, odp = on; ratio = median per-run off/max(on,1)"
                         if with_ratio else "pinned_or_baseline = odp_aging off, odp = on")
            order = get(lru, "order", "off")
            for run in runs:
                v = lambda key, mode: get(lru, key, mode).get(run, float("nan"))
                run_rows.append([name, run, "off, on" if order.get(run) == 1 else "on, off",
                                 fmt_n(off[run]), fmt_n(on[run]), fmt_n(off[run] / max(on[run], 1)),
                                 "%s / %s" % (fmt_n(v("pswpin", "off")), fmt_n(v("pswpin", "on"))),
                                 fmt_n(v("young_answers", "on")),
                                 "%s / %s" % (fmt_n(v("a_resident_min_pct", "off")), fmt_n(v("a_resident_min_pct", "on"))),
                                 "%s / %s" % (fmt_n(v("b_resident_end_pct", "off")), fmt_n(v("b_resident_end_pct", "on")))])
                self.plot_aging.append(("%s %d" % ("MGLRU" if lru == "mglru" else "classic", run), off[run], on[run]))
            figs.append("%s: %s / %s pages, ratio per run %s, 95%% interval %s (runs: %d)" % (
                name, med_spread(list(off.values()), fmt_n), med_spread(list(on.values()), fmt_n), med_spread(rat, fmt_n),
                fmt_ci(rat), len(rat)))
        failed = [r for r in raw.get(sec="aging", case="exit") if r["value"] != 0]
        why = [r["unit"] for r in raw.get(sec="aging") if r["case"] in ("unsupported", "setup-failed", "lru-unavailable")]

        goal = ("faults on A, aging off / aging on >= %g (pages of A faulted back, every LRU, 95%% interval of the "
                "median per-run ratio)" % GOAL_AGING)
        goal_tput = ("RDMA throughput into A under the reclaim rounds, aging on / aging off >= %g (every LRU, 95%% "
                     "interval of the median per-run ratio)" % GOAL_AGING_TPUT)
        self.out("## 6. Page aging: an RDMA-only ODP buffer under reclaim, `odp_aging` off vs on")
        self.out()
        if not raw.get(sec="aging"):
            self.out("No aging rows in this run (it predates the step or did not run it).")
            self.out()
            self.goal(goal, "not measured", None)
            self.goal(goal_tput, "not measured", None)
            return
        self.out("aging-probe: two ODP MRs of %s each; A is written without pause by RDMA WRITEs (loopback RC QP "
                 "pair, %s messages) and never touched by the CPU after the fill, B is registered and idle. "
                 "The probe sits in a memory cgroup and asks `memory.reclaim` for %s MiB per round "
                 "(%s uncounted settle round, then %s counted rounds; the traffic sweeps all of A %s times "
                 "between rounds), zram swap %s. Each run does both modes of rdma_rxe's `odp_aging` with fresh "
                 "buffers, alternating which goes first; %s runs on MGLRU (reclaim asks `clear_young`) and on "
                 "the classic LRU (lru_gen off: `clear_flush_young` from the rmap walk). rxe's ODP counters "
                 "are device-wide, but A is the only ODP MR with traffic; pswpin/pswpout are the guest's "
                 "(nothing else runs). Ratio = aging off / aging on per run (the two modes of a run are a "
                 "pair), *on* counted as at least 1: median [min–max] over the runs and the 95%% interval of "
                 "the median (6 runs or more; with 6 to 8 it is min–max), on which the verdict rests." % (
                     fmt_size(int(self.meta.get("aging_size_mib", "0")) << 20), fmt_size(int(cfg["msg"])) if ok(cfg.get("msg")) else "?",
                     fmt_n(cfg.get("reclaim_mib")), fmt_n(cfg.get("settle")),
                     fmt_n(cfg.get("rounds")), fmt_n(cfg.get("sweeps")),
                     self.meta.get("zram", "n/a"), self.meta.get("aging_runs", "?")))
        self.out()
        for w in sorted(set(why)):
            self.out("Not measured: %s." % w)
            self.out()
        if failed:
            self.out("**%d probe run(s) failed** (%s): see logs/aging-*.log of the run." % (
                len(failed), ", ".join("%s run %d exit %d" % (r["tag"], r["run"], r["value"]) for r in failed)))
            self.out()
        if rows:
            self.table(["LRU", "measure (per run)", "aging off", "aging on", "off/on per run", "95% interval"], rows)
            self.table(["LRU", "run", "order", "A pages faulted, off", "on", "off/on",
                        "swap-ins off / on", "young answers (on)", "A resident min % off / on",
                        "B resident end % off / on"], run_rows)
        if ratios_all:
            self.few_pairs([len(per_run(get(lru, "a_pages_faulted", "off"), get(lru, "a_pages_faulted", "on"),
                                        sorted(set(get(lru, "a_pages_faulted", "off")) &
                                               set(get(lru, "a_pages_faulted", "on")))))
                            for lru, _ in AGING_LRUS],
                           "`BENCH_AGING_RUNS=N` sets the runs (a run takes 30-70 s per LRU under TCG)")
            # page counts, but under a reclaim that the host's load paces: a timing goal
            self.goal(goal, "; ".join(figs) + ("; %d failed run(s)" % len(failed) if failed else ""),
                      all_state(states))
        else:
            self.goal(goal, "not measured" + (": %s" % ", ".join(sorted(set(why))) if why else ""), None)
        # a throughput: a timing goal, no verdict on a busy host
        if tput_figs:
            self.goal(goal_tput, "; ".join(tput_figs), all_state(tput_states))
        else:
            self.goal(goal_tput, "not measured (a probe older than rdma_mib_s, or no run)", None)

    # ------------------------------------------------------------ agingpt (issue 15 item 4)
    AGING_PT_METRICS = [  # label, raw case, unit shown
        ("ib_write_bw bandwidth (client)", "bw", " Gb/s"),
        ("pages faulted (odp_pages_faulted)", "ctr:hw:odp_pages_faulted", ""),
        ("faults (odp_faults)", "ctr:hw:odp_faults", ""),
        ("swap-ins (pswpin)", "ctr:vm:pswpin", ""),
        ("swap-outs (pswpout)", "ctr:vm:pswpout", ""),
        ("pages invalidated (odp_pages_invalidated)", "ctr:hw:odp_pages_invalidated", ""),
        ("young answers (odp_young_answers)", "ctr:hw:odp_young_answers", ""),
        ("RNR NAKs while faulting (odp_rnr_naks)", "ctr:hw:odp_rnr_naks", ""),
        ("memory.reclaim rounds completed", "reclaim-rounds", ""),
        ("memory.reclaim rounds begun (the last maybe cut by the client's end)", "reclaim-begun", ""),
        ("rounds that could not reclaim it all", "reclaim-short", ""),
        ("first round, s after the client's start", "reclaim-start", " s"),
        ("end of the last round, s after the client's start", "reclaim-end", " s"),
        ("client run (set-up, -D, teardown)", "client", " s"),
    ]

    def aging_pt(self):
        raw = self.raw

        def get(case, mode):
            """case's values by run; a counter that did not move in a run that ran has no row: 0"""
            d = raw.by_run(sec="agingpt", case=case, mode=mode)
            if case.startswith("ctr:"):
                for run, rc in raw.by_run(sec="agingpt", case="exit", mode=mode).items():
                    if rc == 0:
                        d.setdefault(run, 0.0)
            return d
        name = ("perftest --odp server under pressure: aging on/off BW >= %g (ib_write_bw, 95%% interval of the "
                "median pair ratio)" % GOAL_AGING_TPUT)
        self.out("## 6b. Page aging as throughput: a perftest `--odp` server under pressure, `odp_aging` off vs on")
        self.out()
        rows = raw.get(sec="agingpt")
        if not rows:
            self.out("No agingpt rows in this run (it predates the step or did not run it).")
            self.out()
            self.goal(name, "not measured", None)
            return
        m = self.meta
        hot = next((r["size"] for r in rows if r["case"] == "bw"), 0)
        hot_pages = hot // 4096
        self.out("An `ib_write_bw --odp` server (%s QPs, %s-byte messages, `-D %s`; with messages above half of "
                 "perftest's page-sized cycle buffer every WRITE of a QP lands at the same address, so %s of the "
                 "server's buffer is RDMA-hot: QPs x size) in a memory cgroup, started first; then %s MiB of idle memory B in "
                 "the same cgroup (written once, then asleep: younger than the server's buffer on the LRU). "
                 "The client (outside the cgroup, pinned, loopback rxe0) runs; once its WRITEs reach the server's "
                 "buffer, `memory.reclaim` asks the cgroup for %s MiB, %s s apart, at most %s rounds (3/4 of "
                 "B: the idle memory alone can satisfy it) or until the client ends; zram swap %s, LRU %s, THP %s during the step. `odp_aging` off and on in %s interleaved pairs, which goes first "
                 "alternating, a fresh server and B in every run. Ratio = BW aging on / off per pair; the "
                 "verdict rests on the 95%% interval of its median. *Faulted back* = pages faulted minus the "
                 "%s pages of the hot region's first touch (rxe's counters are device-wide; the client's MR is "
                 "pinned, so only the server's MR faults)." % (
                     m.get("agingpt_qps", "?"), m.get("agingpt_size", "?"), m.get("agingpt_dur", "?"),
                     fmt_size(hot) if hot else "?", m.get("agingpt_idle_mib", "?"), m.get("agingpt_reclaim_mib", "?"),
                     m.get("agingpt_every", "?"), m.get("agingpt_rounds", "?"), m.get("zram", "n/a"),
                     m.get("agingpt_lru", "?"), m.get("agingpt_thp", "?"), m.get("agingpt_pairs", "?"), fmt_n(hot_pages)))
        self.out()
        why = sorted(set(r["unit"] for r in rows if r["case"] in ("unsupported", "setup-failed")))
        for w in why:
            self.out("Not measured: %s." % w)
            self.out()
        failed = [r for r in rows if r["case"] == "exit" and r["value"] != 0]
        if failed:
            self.out("**%d run(s) failed** (%s): see logs/agingpt-*.log of the run." % (
                len(failed), ", ".join("%s run %d: %s" % (r["mode"], r["run"], fmt_n(r["value"]) if ok(r["value"])
                                                           else r["unit"]) for r in failed)))
            self.out()
        off, on = get("bw", "off"), get("bw", "on")
        rat = paired_ratios(off, on)
        back = {mode: {run: v - hot_pages for run, v in get("ctr:hw:odp_pages_faulted", mode).items()}
                for mode in ("off", "on")}
        table = []
        for label, case, unit in self.AGING_PT_METRICS:
            o, n = get(case, "off"), get(case, "on")
            if not o and not n:
                continue
            r = rat if case == "bw" else []
            f = fmt if case == "bw" else fmt_n
            cell = lambda d: med_spread(list(d.values()), f) + (unit if any(ok(x) for x in d.values()) else "")
            table.append([label, cell(o), cell(n), med_ci(r) if r else ""])
            self.add("agingpt", case, hot, median(o.values()), median(n.values()),
                     median(r) if r else float("nan"), unit.strip() or "count",
                     "pinned_or_baseline = odp_aging off, odp = on" +
                     ("; ratio = median per-pair on/off" if r else ""))
            if case == "ctr:hw:odp_pages_faulted":
                table.append(["pages faulted back (minus the first touch)",
                              med_spread(list(back["off"].values()), fmt_n),
                              med_spread(list(back["on"].values()), fmt_n), ""])
                self.add("agingpt", "faulted-back", hot, median(back["off"].values()), median(back["on"].values()),
                         float("nan"), "count", "odp_pages_faulted minus the hot region's pages")
        if table:
            self.table(["measure (per run)", "aging off", "aging on", "on/off per pair (95% interval)"], table)
        order = get("order", "off")
        ctr = lambda case, mode, run: get(case, mode).get(run, float("nan"))
        runs = sorted(set(off) | set(on))
        if runs:
            self.table(["pair", "order", "BW off / on, Gb/s", "on/off", "faulted back off / on",
                        "swap-ins off / on", "young answers (on)"],
                       [[run, "off, on" if order.get(run) == 1 else "on, off",
                         "%s / %s" % (fmt(off.get(run, float("nan"))), fmt(on.get(run, float("nan")))),
                         fmt(on[run] / off[run]) if ok(on.get(run)) and ok(off.get(run)) and off[run] > 0 else "n/a",
                         "%s / %s" % (fmt_n(back["off"].get(run, float("nan"))), fmt_n(back["on"].get(run, float("nan")))),
                         "%s / %s" % (fmt_n(ctr("ctr:vm:pswpin", "off", run)), fmt_n(ctr("ctr:vm:pswpin", "on", run))),
                         fmt_n(ctr("ctr:hw:odp_young_answers", "on", run))] for run in runs])
        self.few_pairs([len(rat)], "`BENCH_AGINGPT_PAIRS=N` sets the pairs (a pair takes about 35 s under TCG on an idle host, a minute or more on a loaded one)")
        if rat:
            self.goal(name, "%s; BW on %s / off %s Gb/s; pages faulted back per run off %s / on %s, swap-ins off "
                      "%s / on %s (pairs: %d)%s" % (
                          fig_ci("on/off", rat), med_spread(list(on.values())), med_spread(list(off.values())),
                          med_spread(list(back["off"].values()), fmt_n), med_spread(list(back["on"].values()), fmt_n),
                          med_spread(list(get("ctr:vm:pswpin", "off").values()), fmt_n),
                          med_spread(list(get("ctr:vm:pswpin", "on").values()), fmt_n), len(rat),
                          "; %d failed run(s)" % len(failed) if failed else ""),
                      ci_state(rat, GOAL_AGING_TPUT))
        else:
            self.goal(name, "not measured" + (": %s" % ", ".join(why) if why else
                                              ": no pair with both figures" if runs else ""), None)

    # ------------------------------------------------------------ young (issue 17)
    def young(self):
        raw = self.raw
        goal_out = ("page aging at scale: memory.reclaim outside the MRs, aging on/off <= %g at every N "
                    "(95%% interval of the median pair ratio)" % GOAL_YOUNG_OUTSIDE)
        goal_in = ("page aging at scale: memory.reclaim inside the MRs, aging on/off <= %g at every N "
                   "(95%% interval of the median pair ratio)" % GOAL_YOUNG_INSIDE)
        goal_inv = "invalidation with the most ODP MRs <= %g× with 1 MR (every kind, best vs best)" % GOAL_YOUNG_INVAL
        self.out("## 7. Page aging at scale: reclaim and invalidation with N ODP MRs, `odp_aging` off vs on")
        self.out()
        if not raw.get(sec="young"):
            self.out("No young rows in this run (it predates the step or did not run it).")
            self.out()
            for g in (goal_out, goal_in, goal_inv):
                self.goal(g, "not measured", None)
            return
        m = self.meta
        self.out("young-scale, one process per N and layout, in a memory cgroup with zram swap (%s): N ODP MRs "
                 "(one `ibv_reg_mr` each), %s MiB of anonymous data dropped (`MADV_DONTNEED`) and written again "
                 "before every `memory.reclaim` of half of it (timed), so every reclaim starts from freshly "
                 "faulted data, with `odp_aging` off and on alternating, the order flipping every "
                 "repetition (%s repetitions after one uncounted reclaim). *outside*: one-page MRs spread "
                 "evenly through the data and never touched, so reclaim takes only memory outside every MR "
                 "while every address it asks about lies among the MRs; *inside*: the MRs tile the data; "
                 "*+hot*: one page of MR 0 is written by RDMA every millisecond throughout, so the mm always "
                 "has a page rxe used and the young callbacks must look the range up instead of answering "
                 "\"nothing used\" at once. N = 0: no ODP MR at all, so no notifier of any kind. "
                 "Times median [min–max]; on/off per repetition (the two modes ran back to back), median "
                 "[min–max] (a reclaim may have to run MGLRU aging passes over the whole mm first, raw rows "
                 "`aging-passes`, and a loaded host slows any single reclaim, so the fastest of a mode can be an "
                 "outlier, which the median of the pairs is not); *95%% interval*: of that median, from the "
                 "order statistics of the pairs (distribution-free; needs 6 pairs or more), the verdict: met "
                 "when all of it lies at or below the bound, not met when all of it lies above; *best* = best "
                 "on / best off; *off vs no MR* = median off at N / median at N = 0: what the mere presence "
                 "of ODP MRs (their interval notifiers) costs reclaim, aging or not."
                 % (m.get("zram", "n/a"), m.get("young_data_mib", "?"), m.get("young_reps", "?")))
        self.out()
        failed = [r for r in raw.get(sec="young", case="exit") if r["value"] != 0]
        if failed:
            self.out("**%d young-scale run(s) failed**: %s (see logs/young.log of the run)." % (
                len(failed), ", ".join("N=%d %s exit %d" % (r["size"], r["tag"], r["value"]) for r in failed)))
            self.out()
        ns = sorted({r["size"] for r in raw.get(sec="young", case="reclaim")})
        base = median(raw.values(sec="young", case="reclaim", size=0, tag="outside"))
        rows, worst = [], {"outside": [], "inside": []}
        for tag, name in YOUNG_LAYOUTS:
            for n in ns:
                off = raw.by_run(sec="young", case="reclaim", mode="off", size=n, tag=tag)
                on = raw.by_run(sec="young", case="reclaim", mode="on", size=n, tag=tag)
                if not off or not on:
                    continue
                rat = paired_ratios(off, on)
                br = best_ratio(list(off.values()), list(on.values()))
                kind = tag.split("+")[0]
                bound = GOAL_YOUNG_OUTSIDE if kind == "outside" else GOAL_YOUNG_INSIDE
                mr = median(rat)
                st = ci_state(rat, bound, higher=False)
                worst[kind].append((mr, n, tag, fmt_ci(rat), st, len(rat)))
                ya = sum(v for v in raw.values(sec="young", case="young-answers", mode="on", size=n, tag=tag)
                         if ok(v))
                short = sum(v for v in raw.values(sec="young", case="short", size=n, tag=tag) if ok(v))
                rows.append([name, "%d" % n, med_spread(list(off.values()), fmt_us),
                             med_spread(list(on.values()), fmt_us), med_spread(rat), fmt_ci(rat), fmt(br),
                             fmt(median(off.values()) / base) if ok(base) and base > 0 else "n/a",
                             "%d" % ya + (" (%d short)" % short if short else ""),
                             verdict(st)])
                self.add("young", "reclaim %s" % tag, n, median(off.values()), median(on.values()), mr, "us",
                         "pinned_or_baseline = odp_aging off, odp = on; ratio = median of per-pair on/off; "
                         "best on / best off %s" % fmt(br, 4))
                if ok(mr):
                    self.plot_young.append((tag, n, mr))
        self.table(["memory reclaimed", "N", "aging off", "aging on", "on/off per rep", "95% interval", "best",
                    "off vs no MR",
                    "young answers (on)", "goal"], rows)
        for kind, goal, bound in (("outside", goal_out, GOAL_YOUNG_OUTSIDE), ("inside", goal_in, GOAL_YOUNG_INSIDE)):
            w = worst[kind]
            if w:
                mr, n, tag, ci, _, _ = max((x for x in w if ok(x[0])), key=lambda x: x[0]) \
                    if any(ok(x[0]) for x in w) else (float("nan"), 0, "-", "n/a", None, 0)
                self.goal(goal, "worst %.2f (N=%d, %s; 95%% interval of the median %s); %d cases"
                          % (mr, n, tag, ci, len(w)), all_state([x[4] for x in w]))
            else:
                self.goal(goal, "not measured", None)
        self.few_pairs([x[5] for k in worst for x in worst[k]], "`BENCH_YOUNG_REPS=N` sets the pairs per case")

        # registration of the N MRs
        rows = []
        for tag, name in YOUNG_LAYOUTS:
            for n in ns:
                reg = raw.values(sec="young", case="reg", size=n, tag=tag)
                if not reg:
                    continue
                dereg = raw.values(sec="young", case="dereg", size=n, tag=tag)
                maps = raw.values(sec="young", case="maps", size=n, tag=tag)
                mmc = raw.values(sec="young", case="max_map_count", size=n, tag=tag)
                rows.append([name, "%d" % n, fmt_us(median(reg)), fmt_us(median(reg) / n),
                             fmt_us(median(dereg)) if dereg else "n/a",
                             "%s / %s" % (fmt_n(median(maps)), fmt_n(median(mmc)))])
        if rows:
            self.out("Registering and deregistering the N MRs (one process, each MR its own `ibv_reg_mr` with "
                     "its interval notifier and page-aging entry); *mappings* = lines of /proc/self/maps after "
                     "registration / vm.max_map_count (the MRs add no mappings).")
            self.out()
            self.table(["MRs over", "N", "registration of all N", "per MR", "deregistration of all N",
                        "mappings / max_map_count"], rows)

        # invalidation
        rows, inv = [], []
        for tag, name in YOUNG_LAYOUTS:
            if "+" in tag:
                continue
            one = {case: raw.values(sec="young", case=case, size=1, tag=tag) for case, _ in YOUNG_INVAL}
            top = max([n for n in ns if raw.values(sec="young", case="inval-dontneed-mr", size=n, tag=tag)] or [0])
            for n in ns:
                cells, have = [name, "%d" % n], False
                for case, _ in YOUNG_INVAL:
                    v = raw.values(sec="young", case=case, size=n, tag=tag)
                    have = have or bool(v)
                    rel = best_ratio(one[case], v) if one[case] and v else float("nan")
                    cells.append(med_spread(v, fmt_us) + (" (%s× N=1)" % fmt(rel) if ok(rel) and n > 1 else ""))
                    if n == top and n > 1 and ok(rel):
                        inv.append((rel, case, tag, n))
                if have:
                    rows.append(cells)
        if rows:
            self.out("Invalidation side (MMU interval notifiers, driven by the core's interval tree), with aging "
                     "on: mean time of one `madvise(MADV_DONTNEED)` and one `munmap` of 16 resident pages "
                     "outside every MR, and of one `MADV_DONTNEED` of an MR page that an RDMA READ mapped into "
                     "the MR just before (64 operations per repetition); median [min–max] over the "
                     "repetitions, and best vs best against N = 1 of the same layout.")
            self.out()
            self.table(["MRs over", "N"] + [label for _, label in YOUNG_INVAL], rows)
        if inv:
            rel, case, tag, n = max(inv)
            # not a pair ratio: separate processes at N and at 1, best against best
            self.goal(goal_inv, "N=%d: worst %.2f (%s, %s)" % (n, rel, case, tag),
                      all(x[0] <= GOAL_YOUNG_INVAL for x in inv))
        else:
            self.goal(goal_inv, "not measured", None)


    # ------------------------------------------------------------ pair (two guests)
    def pair(self):
        raw, m = self.raw, self.meta
        rows, crows, pcounts = [], [], []
        for cond, cname in PAIR_CONDS:
            for prog in PT_BW:
                for size in sorted({r["size"] for r in raw.get(sec="pair", case=prog, tag=cond)}):
                    p = raw.by_run(sec="pair", case=prog, mode="pinned", size=size, tag=cond)
                    o = raw.by_run(sec="pair", case=prog, mode="odp", size=size, tag=cond)
                    rat = paired_ratios(p, o)
                    bad = [r["unit"] for r in raw.get(sec="pair", case=prog, size=size, tag=cond)
                           if not ok(r["value"])]
                    rows.append([cname, prog, fmt_size(size), med_spread(list(p.values())) + " Gb/s",
                                 med_spread(list(o.values())) + " Gb/s", "%d" % len(rat), med_spread(rat),
                                 fmt_ci(rat) if rat else "-", ", ".join("%d %s" % (bad.count(u), u) for u in sorted(set(bad))) or "none"])
                    self.plot_pair.append(("%s %s" % (prog.replace("ib_", "").replace("_bw", ""), cond),
                                           median(p.values()), median(o.values())))
                    self.add("pair-" + cond, prog, size, median(p.values()), median(o.values()), median(rat),
                             "Gb/s", "ratio=median per-pair odp/pinned bandwidth over %d pairs, spread %s, "
                             "95%% interval %s" % (len(rat), med_spread(rat), fmt_ci(rat)))
                    pcounts.append(len(rat))
            for mode in ("pinned", "odp"):
                def tot(ctr):
                    v = [r["value"] for r in raw.get(sec="pair", case=ctr, mode=mode, tag=cond) if ok(r["value"])]
                    return fmt_n(sum(v)) if v else "0"
                if not raw.get(sec="pair", mode=mode, tag=cond):
                    continue
                crows.append([cname, mode, tot("ctr:hw:odp_faults"), tot("ctr:hw:odp_invalidations"),
                              tot("ctr:hw:rcvd_rnr_err") + " / " + tot("ctr:hw:send_rnr_err"),
                              tot("ctr:vm:pswpout") + " / " + tot("ctr:vm:pswpin"),
                              tot("ctr:vm:nr_foll_pin_acquired"), tot("ctr:memcg:max"), tot("ctr:memcg:oom_kill")])
        if not rows:
            return
        self.out("## 8. Two hosts: perftest across a virtual link, pinned vs `--odp` server")
        self.out()
        self.out("Two guests (`tests/vm/pair`, one vCPU each, MTU %s, netem %s): guest a runs our rdma_rxe and the "
                 "perftest server, with pinned memory or `--odp`; guest b (rdma_rxe: %s) runs the client, pinned, and "
                 "measures. %s pairs per case of %s s runs at %s, pinned and ODP back to back, which goes first "
                 "alternating. Ratio = ODP/pinned bandwidth per pair, its median [min–max] (> 1: ODP faster) "
                 "and the 95%% interval of the median. "
                 "*Server under memory pressure*: the server runs in a cgroup with memory.max %s MiB, in which a "
                 "memory user touches %s MiB page by page in rounds (so the cgroup's working set is above its "
                 "limit and reclaim, zram swap, runs throughout; its CPU use slows both modes alike)."
                 % (m.get("pair_mtu", "?"), m.get("pair_netem", "?"), m.get("pair_b_module", "?"),
                    m.get("pair_runs", "?"), m.get("pair_dur", "?"), fmt_size(int(m.get("pair_size", "0") or 0)),
                    m.get("pair_max_mib", "?"), m.get("pair_hog_mib", "?")))
        self.out()
        self.table(["condition", "test", "size", "pinned", "ODP", "pairs", "ratio per pair", "95% interval",
                    "runs without figure"], rows)
        self.few_pairs(pcounts, "`BENCH_PAIR_RUNS=N` sets the pairs per case (a pair of two-guest runs takes "
                       "about 17 s under TCG on an idle host: 6 pairs per case, 10 min with the boots)")
        self.out("What the server's guest (a) counted over all runs of a mode: driver ODP faults and invalidations, "
                 "RNR NAKs received / sent, pages swapped out / in, pages pinned, times the cgroup hit memory.max, "
                 "OOM kills.")
        self.out()
        self.table(["condition", "server MRs", "odp_faults", "odp_invalidations", "RNR rcvd / sent",
                    "pswpout / pswpin", "pinned pages", "memory.max hit", "OOM kills"], crows)
        if m.get("pair_rc", "0") != "0":
            self.out("tests/vm/pair ended with status %s (see its consoles)." % m.get("pair_rc"))
            self.out()

    # ------------------------------------------------------------ environment
    def environment(self):
        m = self.meta
        self.out("## Environment")
        self.out()
        rows = [["kernel", m.get("kernel", m.get("pair_kernel", "?"))],
                ["module", "%s (srcversion %s) %s" % (m.get("module_version", "?"), m.get("module_srcversion", "?"),
                                                     m.get("module_file", ""))],
                ["two-host step (pair)", "guest a: %s, guest b: %s, %s MiB RAM and %s vCPU each" % (
                    m.get("pair_a_module", "?"), m.get("pair_b_module", "?"),
                    int(m.get("pair_guest_mem_kib", "0") or 0) // 1024, m.get("pair_guest_cpus", "?"))]
                if "pair_a_module" in m else None,
                ["module parameters", ", ".join("%s=%s" % (k[6:], v) for k, v in sorted(m.items())
                                                if k.startswith("param_")) or "none"],
                ["ODP", "%s — %s" % (m.get("odp", "?"), m.get("odp_caps", ""))],
                ["guest", "%s MiB RAM, %s vCPUs (QEMU TCG), THP %s, MGLRU %s" % (
                    int(m.get("guest_mem_kib", "0")) // 1024, m.get("guest_cpus", "?"), m.get("thp", "?"),
                    m.get("mglru", "?"))],
                ["packages", ", ".join("%s %s" % (k[4:], v) for k, v in sorted(m.items()) if k.startswith("pkg_"))],
                ["rxe hw_counters", m.get("hw_counters", "?")],
                ["run time", "%s s in the guest (%s)%s%s" % (m.get("secs_total", "?"), ", ".join(
                    "%s %s" % (st, m["secs_" + st]) for st, _ in STEPS if "secs_" + st in m),
                    "; expected %s s on an idle host" % m["secs_expected"] if "secs_expected" in m else "",
                    "; %s s in all (bench/run.sh)" % m["secs_wall"] if "secs_wall" in m else "")],
                ["host load", self.host["text"]],
                ["verdicts", self.host["verdict"]],
                ["date", m.get("date", "?")]]
        self.table(["", ""], [r for r in rows if r])

    def build(self, title):
        body_start = len(self.md)
        ran = self.meta.get("steps", " ".join(s for s, _ in STEPS)).split()
        for step, section in STEPS:
            if step in ran:
                getattr(self, section)()
        self.environment()
        body = self.md[body_start:]
        self.md = self.md[:body_start]
        self.out("# %s" % title)
        self.out()
        self.out("Pinned vs ODP memory regions on Soft-RoCE (rxe0 on lo), and ODP page aging on vs off, "
                 "measured side by side in one boot "
                 "of a QEMU/TCG guest: only ratios within this run mean anything, absolute figures do not "
                 "carry over to hardware%s. Plot: `%s`; every measurement: `%s`." %
                 (" (section 8, `pair`: two guests on a virtual link)" if "pair" in ran else "",
                  self.png_name, self.raw_name))
        skipped = [s for s, _ in STEPS if s not in ran]
        if skipped:
            self.out()
            self.out("**Partial run**: only the step(s) %s (`bench/run.sh --steps \"%s\"`); the sections of %s "
                     "were not run." % (", ".join(ran), " ".join(ran), ", ".join(skipped)))
        if self.meta.get("smoke") == "1":
            self.out()
            self.out("**Smoke run** (tiny sizes, one run each): proves the scripts work, the numbers mean nothing.")
        self.out()
        self.out("## Goals")
        self.out()
        self.out("Every ODP-vs-pinned (or on-vs-off) figure is the median of per-pair ratios, the two runs of a pair "
                 "back to back in one process or one boot; a goal on it is judged on the 95% interval of that "
                 "median (order statistics of the pairs): **met** when the whole interval lies on the right side "
                 "of the bound, **not met** when it lies wholly on the wrong side, **undecided** otherwise (the "
                 "interval straddles the bound, or fewer than 6 pairs give no interval).")
        self.out()
        if NO_VERDICT:
            self.out("**Host too busy for a verdict** (%s): the timing goals below say so instead of met / not met; "
                     "the figures are what was measured. Rerun on an idle host, or `make bench "
                     "BENCH_FORCE_VERDICT=1` for verdicts anyway. Host load: %s." % (NO_VERDICT, self.host["text"]))
        else:
            self.out("Verdicts: %s. Host load: %s." % (self.host["verdict"], self.host["text"]))
        self.out()
        self.table(["goal", "figure", "verdict"], [[g, f, verdict(m, t)] for g, f, m, t in self.goals])
        self.md += body


def bar_data(path, rows):
    """A gnuplot histogram data file: "label" a b per row (NaN for no figure)."""
    with open(path, "w") as f:
        for label, a, b in rows:
            f.write('"%s" %s %s\n' % (label, a if ok(a) else "NaN", b if ok(b) else "NaN"))


BAR_STYLE = ["set style data histograms", "set style histogram clustered gap 1",
             "set style fill solid 0.8 border -1", "set boxwidth 0.9", "set yrange [0:*]",
             "set xrange [*:*]", "set xtics rotate by -30", "set format y '%g'"]


def bar_panel(path, rows, xlabel, ylabel, title, a, b, sets=(), more=""):
    """A clustered-bar panel of rows (bar_data()) written to path: columns 2 and
    3 drawn as a and b, each (color, key title); sets: gnuplot settings after
    the title; more: plot clauses appended to the plot command."""
    bar_data(path, rows)
    return BAR_STYLE + ["set xlabel '%s'" % xlabel, "set ylabel '%s'" % ylabel,
                        "set title '%s'" % title] + list(sets) + [
        "plot '%s' using 2:xtic(1) lc rgb '%s' title '%s', '' using 3 lc rgb '%s' title '%s'%s"
        % (path, a[0], a[1], b[0], b[1], more)]


def plot(rep, png):
    gp = shutil.which("gnuplot")
    if not gp:
        print("report: gnuplot not found, no plot", file=sys.stderr)
        return False
    tmp = tempfile.mkdtemp(prefix="bench-plot-")
    try:
        names = []
        for prog in PT_BW:
            pts = [(s, p, o) for pr, s, p, o in rep.plot_bw if pr == prog]
            if not pts:
                continue
            fn = os.path.join(tmp, prog + ".dat")
            with open(fn, "w") as f:
                for s, p, o in sorted(pts):
                    f.write("%d %s %s\n" % (s, p if ok(p) else "NaN", o if ok(o) else "NaN"))
            names.append((prog, fn))
        regf = os.path.join(tmp, "reg.dat")
        with open(regf, "w") as f:
            for s, p, o, pd, od in sorted(rep.plot_reg):
                f.write("%d %s\n" % (s, " ".join(str(x) if ok(x) and x > 0 else "NaN" for x in (p, o, pd, od))))
        # One panel per measured kind; a run of only some steps plots only those.
        panels = []
        if names:
            plots = []
            colors = ["#1f77b4", "#d62728", "#2ca02c"]
            for i, (prog, fn) in enumerate(names):
                plots.append("'%s' using 1:2 with linespoints lw 2 dt 1 lc rgb '%s' title '%s pinned'"
                             % (fn, colors[i], prog))
                plots.append("'%s' using 1:3 with linespoints lw 2 dt 2 lc rgb '%s' title '%s ODP'"
                             % (fn, colors[i], prog))
            panels.append(["set logscale x 2", "set xlabel 'message size [bytes]'",
                           "set ylabel 'bandwidth [Gb/s]'",
                           "set title 'perftest bandwidth (median): pinned solid, ODP dashed'",
                           "set yrange [0:*]", "set xrange [3000:1500000]",
                           "set xtics ('4K' 4096, '64K' 65536, '1M' 1048576)",
                           "plot " + ", ".join(plots)])
        if rep.plot_reg:
            panels.append(["set logscale x 2", "set logscale y 10", "set yrange [*:*]", "set xrange [3000:6e9]",
                           "set xtics ('4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216, '256M' 268435456, "
                           "'1G' 1073741824, '4G' 4294967296)", "set format y '%g'",
                           "set xlabel 'MR size [bytes]'", "set ylabel 'time [µs]'",
                           "set title 'registration / deregistration time (median)'",
                           "plot '%s' using 1:2 with linespoints lw 2 lc rgb '#1f77b4' title 'pinned reg', "
                           "'%s' using 1:3 with linespoints lw 2 lc rgb '#d62728' title 'ODP reg', "
                           "'%s' using 1:4 with linespoints lw 1 dt 2 lc rgb '#1f77b4' title 'pinned dereg', "
                           "'%s' using 1:5 with linespoints lw 1 dt 2 lc rgb '#d62728' title 'ODP dereg'"
                           % (regf, regf, regf, regf)])
        if rep.plot_reg_u:
            regu = os.path.join(tmp, "reg-untouched.dat")
            with open(regu, "w") as f:
                for row in sorted(rep.plot_reg_u):
                    f.write("%d %s\n" % (row[0], " ".join(str(x) if ok(x) and x > 0 else "NaN" for x in row[1:])))
            panels.append(["set logscale x 2", "set logscale y 10", "set yrange [*:*]", "set xrange [3000:2e12]",
                           "set xtics ('4K' 4096, '1M' 1048576, '1G' 1073741824, '1T' 1099511627776)",
                           "set format y '%g'", "set xlabel 'MR size [bytes], never-touched memory'",
                           "set ylabel 'time [µs]'", "set title 'registration of never-touched memory (median)'",
                           "plot '%s' using 1:2 with linespoints lw 2 lc rgb '#d62728' title 'ODP reg', "
                           "'%s' using 1:3 with linespoints lw 2 lc rgb '#ff7f0e' title 'implicit reg', "
                           "'%s' using 1:4 with linespoints lw 2 lc rgb '#1f77b4' title 'pinned reg (faults in)', "
                           "'%s' using 1:5 with linespoints lw 1 dt 2 lc rgb '#d62728' title 'ODP dereg, few pages "
                           "faulted'" % (regu, regu, regu, regu)])
        if rep.plot_aging:
            panels.append(bar_panel(
                os.path.join(tmp, "aging.dat"), rep.plot_aging, "LRU and run", "pages of A faulted back",
                "page aging: RDMA-only buffer A under memory.reclaim",
                ("#1f77b4", "odp_aging off"), ("#d62728", "odp_aging on"),
                sets=["set offsets 0, 0, graph 0.08, 0"],
                # the counts over the bars: 0 is the result, not a missing bar
                more=", '' using ($0 - 0.17):2:(sprintf('%d', $2)) with labels offset 0,0.6 notitle, "
                "'' using ($0 + 0.17):3:(sprintf('%d', $3)) with labels offset 0,0.6 "
                "tc rgb '#d62728' notitle"))
        if rep.plot_young:
            plots = []
            colors = {"outside": "#1f77b4", "outside+hot": "#17becf", "inside": "#d62728", "inside+hot": "#ff7f0e"}
            for tag, _ in YOUNG_LAYOUTS:
                pts = sorted((n, r) for t, n, r in rep.plot_young if t == tag and n > 0)
                if not pts:
                    continue
                fn = os.path.join(tmp, "young-%s.dat" % tag.replace("+", "-"))
                with open(fn, "w") as f:
                    for n, r in pts:
                        f.write("%d %s\n" % (n, r))
                plots.append("'%s' using 1:2 with linespoints lw 2 lc rgb '%s' title '%s'"
                             % (fn, colors.get(tag, "#000000"), tag))
            if plots:
                panels.append(["set logscale x 10", "set xrange [0.5:20000]", "set yrange [0:*]",
                               "set format y '%g'", "set xlabel 'ODP MRs in the process (N)'",
                               "set ylabel 'memory.reclaim time, aging on / off (median of pairs)'",
                               "set title 'page aging at scale: reclaim cost of odp_aging'",
                               "set arrow from 0.5,%g to 20000,%g nohead dt 2 lc rgb '#1f77b4'"
                               % (GOAL_YOUNG_OUTSIDE, GOAL_YOUNG_OUTSIDE),
                               "set arrow from 0.5,%g to 20000,%g nohead dt 2 lc rgb '#d62728'"
                               % (GOAL_YOUNG_INSIDE, GOAL_YOUNG_INSIDE),
                               "plot " + ", ".join(plots)])
        if rep.plot_prefetch:
            panels.append(bar_panel(
                os.path.join(tmp, "prefetch.dat"), rep.plot_prefetch, "pass and prefetch", "time [ms] (median)",
                "first touch of a fresh ODP MR: prefetch + cold pass vs warm pass",
                ("#d62728", "advise + cold pass"), ("#1f77b4", "warm pass")))
        if rep.plot_pair:
            panels.append(bar_panel(
                os.path.join(tmp, "pair.dat"), rep.plot_pair, "test and condition of the server",
                "bandwidth [Gb/s] (median)", "two guests across a link: pinned vs ODP server",
                ("#1f77b4", "pinned"), ("#d62728", "ODP")))
        if not panels:
            panels.append(["set title 'no data to plot'", "set xrange [0:1]", "set yrange [0:1]", "plot -1 notitle"])
        cmds = ["set terminal pngcairo noenhanced size %d,600 font 'sans,10'" % (700 * len(panels)),
                "set output '%s'" % png,
                "set multiplot layout 1,%d" % len(panels)]
        for pc in panels:
            cmds += ["reset", "set grid", "set key top left"] + pc
        cmds.append("unset multiplot")
        r = subprocess.run([gp], input="\n".join(cmds) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            print("report: gnuplot failed: %s" % r.stderr, file=sys.stderr)
            return False
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    rawdir, base = argv[1], argv[2]
    title = "rxe-odp bench: pinned vs ODP"
    force, rest = False, argv[3:]
    while rest:
        if rest[0] == "--title" and len(rest) > 1:
            title, rest = rest[1], rest[2:]
        elif rest[0] == "--force-verdict":
            force, rest = True, rest[1:]
        else:
            print("report: unknown argument %s" % rest[0], file=sys.stderr)
            return 2
    raw = Raw(os.path.join(rawdir, "raw.csv"))
    meta = read_meta(os.path.join(rawdir, "meta.txt"))
    rep = Report(raw, meta, read_hostload(os.path.join(rawdir, "hostload.csv")), force)
    rep.png_name = os.path.basename(base) + ".png"
    rep.raw_name = os.path.basename(base) + "-raw.csv"
    rep.build(title)
    with open(base + ".md", "w") as f:
        f.write("\n".join(rep.md) + "\n")
    with open(base + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "case", "size", "pinned_or_baseline", "odp", "ratio", "unit", "note"])
        w.writerows(rep.summary)
        for g, fig, m, t in rep.goals:
            w.writerow(["goal", g, "", "", "", "", "", "%s: %s" % (state_text(m, t), fig)])
    shutil.copyfile(os.path.join(rawdir, "raw.csv"), base + "-raw.csv")
    ok_plot = plot(rep, base + ".png")
    if NO_VERDICT:
        print("report: host too busy for a verdict (%s): no met / not met written; rerun on an idle host, or "
              "BENCH_FORCE_VERDICT=1 (report.py --force-verdict) to write them anyway" % NO_VERDICT, file=sys.stderr)
    print("report: %s.md, %s.csv, %s-raw.csv%s" % (base, base, base, ", %s.png" % base if ok_plot else " (no plot)"))
    return 0 if ok_plot else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
