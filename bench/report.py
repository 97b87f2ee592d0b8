#!/usr/bin/python3
"""Turn one bench run (raw.csv + meta.txt from bench/guest.sh) into the report.

usage: bench/report.py RAWDIR OUTBASE [--title TEXT]

Writes OUTBASE.md (tables with medians, spreads, ratios and the goals, met or
not met), OUTBASE.csv (the summary rows of those tables), OUTBASE-raw.csv
(every measurement) and OUTBASE.png (gnuplot: bandwidth vs message size
pinned/ODP, registration time vs size on log axes).  Medians over the runs;
spread = min..max; a ratio is computed per run (pinned and ODP ran back to
back, interleaved) and its median taken, so drift of the TCG guest cancels.
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
GOAL_COLD_WARM = 0.5
GOAL_INVAL = 2.0

PT_BW = ["ib_write_bw", "ib_read_bw", "ib_send_bw"]
PT_LAT = ["ib_write_lat", "ib_read_lat"]
PASS_TAGS = ["write", "read", "write+local", "read+local"]
PASS_INFO_TAGS = ["write+fresh"]
INVAL_CASES = ["dontneed-thp", "dontneed-4k", "munmap-thp", "munmap-4k"]


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


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
    for unit, sh in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
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


def verdict(met):
    if met is None:
        return "not measured"
    return "**met**" if met else "**not met**"


class Raw:
    def __init__(self, path):
        self.rows = []
        with open(path, newline="") as f:
            for r in csv.reader(f):
                if len(r) != 8:
                    continue
                sec, case, mode, size, tag, run, value, unit = r
                self.rows.append(dict(sec=sec, case=case, mode=mode, size=int(fnum(size)) if ok(fnum(size)) else 0,
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


class Report:
    def __init__(self, raw, meta):
        self.raw = raw
        self.meta = meta
        self.md = []
        self.summary = []  # rows for the summary CSV
        self.goals = []  # (goal, figure, met)
        self.plot_bw = []  # (prog, size, pinned, odp)
        self.plot_reg = []  # (size, pinned, odp, pinned dereg, odp dereg)

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

    # ------------------------------------------------------------ perftest
    def perftest(self):
        raw = self.raw
        rows, ratios_all, met_all = [], [], []
        for prog in PT_BW + PT_LAT:
            lat = prog in PT_LAT
            sizes = sorted({r["size"] for r in raw.get(sec="perftest", case=prog)})
            for size in sizes:
                p = raw.by_run(sec="perftest", case=prog, mode="pinned", size=size)
                o = raw.by_run(sec="perftest", case=prog, mode="odp", size=size)
                unit = "µs" if lat else "Gb/s"
                odp_units = {r["unit"] for r in raw.get(sec="perftest", case=prog, mode="odp", size=size)}
                rat = paired_ratios(p, o, inverse=lat)
                mr = median(rat)
                if rat:
                    met = mr >= GOAL_STEADY
                    met_all.append(met)
                    ratios_all.append(mr)
                    v = verdict(met)
                    if not met and spread(rat)[1] >= 1.0:
                        v += " (runs range over 1.0)"
                elif "unsupported" in odp_units:
                    v = "not run: ODP unsupported"
                else:
                    v = "no ODP result (%s)" % ",".join(sorted(odp_units))
                fails = sum(1 for r in raw.get(sec="perftest", case=prog, size=size) if r["unit"] == "failed")
                rows.append([prog, fmt_size(size), med_spread(list(p.values())) + " " + unit,
                             med_spread([x for x in o.values()]) + (" " + unit if any(ok(x) for x in o.values()) else ""),
                             med_spread(rat), v + (" (%d failed runs)" % fails if fails else "")])
                self.add("perftest", prog, size, median(p.values()), median(o.values()), mr,
                         unit, "ratio=%s" % ("pinned/odp latency" if lat else "odp/pinned bandwidth"))
                if not lat:
                    self.plot_bw.append((prog, size, median(p.values()), median(o.values())))
        self.out("## 1. Steady state: perftest, pinned vs `--odp`")
        self.out()
        self.out("Median [min–max] over the runs; bandwidth = `BW average`, latency = `t_avg`. "
                 "Ratio per run (ODP/pinned bandwidth, pinned/ODP latency: > 1 means ODP is faster), "
                 "then its median [min–max]. Goal: ratio >= %.2f." % GOAL_STEADY)
        self.out()
        self.table(["test", "size", "pinned", "ODP", "ratio", "goal >= 0.98"], rows)
        if ratios_all:
            worst = min(ratios_all)
            gm = math.exp(sum(math.log(x) for x in ratios_all) / len(ratios_all))
            self.goals.append(("steady-state ODP/pinned >= %.2f (perftest, every case)" % GOAL_STEADY,
                               "%d of %d cases met; worst median ratio %.3f, geometric mean %.3f"
                               % (sum(met_all), len(met_all), worst, gm), all(met_all)))
        else:
            self.goals.append(("steady-state ODP/pinned >= %.2f" % GOAL_STEADY, "no ODP perftest result", None))

    def steady(self):
        raw = self.raw
        cases = []
        for r in raw.get(sec="steady"):
            if r["case"] not in cases and r["mode"] in ("pinned", "odp") and not r["case"].endswith("error"):
                cases.append(r["case"])
        rows, meds = [], []
        for case in cases:
            p = raw.by_run(sec="steady", case=case, mode="pinned")
            o = raw.by_run(sec="steady", case=case, mode="odp")
            size = raw.get(sec="steady", case=case)[0]["size"]
            rat = paired_ratios(o, p)  # pinned time / odp time
            mr = median(rat)
            op, chunk = case.split("-", 1)
            mbps = lambda d: [size / v for v in d.values() if ok(v) and v > 0]
            rows.append(["RDMA " + op.upper(), fmt_size(int(chunk)), med_spread(mbps(p)) + " MB/s",
                         med_spread(mbps(o)) + " MB/s", med_spread(rat),
                         verdict(mr >= GOAL_STEADY) if rat else "not measured"])
            self.add("steady", case, size, median(p.values()), median(o.values()), mr, "us",
                     "ratio=pinned/odp time per pair")
            if rat:
                meds.append((case, mr))
        errs = raw.get(sec="steady", case="reg-error")
        self.out("### Steady state, finely interleaved (odp-bench steady)")
        self.out()
        self.out("A pinned and an ODP MR of %s, both fully mapped, passed over alternately (one pass each, "
                 "back to back, %s pairs): the per-pair ratio is robust against the swings of the shared "
                 "emulated machine that perftest's separate runs suffer from. Ratio = pinned time / ODP "
                 "time (ODP relative throughput)." % (fmt_size(raw.get(sec="steady")[0]["size"])
                                                     if raw.get(sec="steady") else "?",
                                                     max([r["run"] for r in raw.get(sec="steady")] or [0])))
        self.out()
        if errs:
            self.out("ODP registration failed: errno %d." % int(errs[0]["value"]))
            self.out()
        self.table(["operation", "message", "pinned", "ODP", "ratio", "goal >= 0.98"], rows)
        if meds:
            self.goals.append(("steady-state ODP/pinned >= %.2f (odp-bench, interleaved pairs, every case)"
                               % GOAL_STEADY, "; ".join("%s %.3f" % kv for kv in meds),
                               all(v >= GOAL_STEADY for _, v in meds)))

    # ------------------------------------------------------------ registration
    def reg(self):
        raw = self.raw
        sizes = sorted({r["size"] for r in raw.get(sec="reg") if r["case"] in ("reg", "reg-error")})
        rows = []
        odp_med = {}
        speed = {}
        for size in sizes:
            cells = [fmt_size(size)]
            meds = {}
            for mode in ("pinned", "odp"):
                for what in ("reg", "dereg"):
                    v = raw.values(sec="reg", case=what, mode=mode, size=size)
                    errs = raw.get(sec="reg", case=what + "-error", mode=mode, size=size)
                    meds[(mode, what)] = median(v)
                    c = med_spread(v, fmt_us) if v else ""
                    if errs:
                        c = (c + "; " if c else "") + "%d× errno %d" % (len(errs), int(errs[0]["value"]))
                    cells.append(c or "n/a")
            pr = paired_ratios(raw.by_run(sec="reg", case="reg", mode="odp", size=size),
                               raw.by_run(sec="reg", case="reg", mode="pinned", size=size))
            sp = median(pr)
            speed[size] = sp
            odp_med[size] = meds[("odp", "reg")]
            cells.append(fmt(sp) + "×" if ok(sp) else "n/a")
            rows.append(cells)
            self.add("reg", "reg", size, meds[("pinned", "reg")], meds[("odp", "reg")], sp, "us",
                     "ratio=pinned/odp reg time")
            self.add("reg", "dereg", size, meds[("pinned", "dereg")], meds[("odp", "dereg")],
                     meds[("pinned", "dereg")] / meds[("odp", "dereg")]
                     if ok(meds[("odp", "dereg")]) and meds[("odp", "dereg")] > 0 else float("nan"),
                     "us", "ratio=pinned/odp dereg time")
            self.plot_reg.append((size, meds[("pinned", "reg")], meds[("odp", "reg")],
                                  meds[("pinned", "dereg")], meds[("odp", "dereg")]))
        self.out("## 2. Registration and deregistration cost")
        self.out()
        self.out("`ibv_reg_mr` / `ibv_dereg_mr` of resident anonymous memory (THP as the guest has it), "
                 "pinned and ODP alternating; median [min–max]. Speed-up = pinned/ODP registration time, "
                 "per run, median.")
        self.out()
        self.table(["size", "pinned reg", "pinned dereg", "ODP reg", "ODP dereg", "speed-up"], rows)
        pins = raw.get(sec="reg", case="pins-acquired")
        if pins:
            self.out("Pages pinned (`nr_foll_pin_acquired`) by one 1 GiB ODP registration: **%d**." %
                     int(pins[0]["value"]))
            self.out()
        one_g = 1 << 30
        if ok(speed.get(one_g)):
            self.goals.append(("ODP registration of 1 GiB >= %d× faster than pinned" % GOAL_REG_SPEEDUP_1G,
                               "%.0f× (pinned %s, ODP %s)" % (speed[one_g], fmt_us(median(raw.values(
                                   sec="reg", case="reg", mode="pinned", size=one_g))), fmt_us(odp_med[one_g])),
                               speed[one_g] >= GOAL_REG_SPEEDUP_1G))
        else:
            self.goals.append(("ODP registration of 1 GiB >= %d× faster than pinned" % GOAL_REG_SPEEDUP_1G,
                               "not measured", None))
        flat = {s: v for s, v in odp_med.items() if s >= 1 << 20 and ok(v)}
        if len(flat) >= 2:
            lo, hi = min(flat.values()), max(flat.values())
            self.goals.append(("ODP registration time within %g× from 1 MiB to %s" % (GOAL_REG_FLAT,
                                                                                     fmt_size(max(flat))),
                               "max/min = %.2f (%s .. %s)" % (hi / lo, fmt_us(lo), fmt_us(hi)),
                               hi / lo <= GOAL_REG_FLAT))
        else:
            self.goals.append(("ODP registration time within %g× from 1 MiB to 4 GiB" % GOAL_REG_FLAT,
                               "not measured", None))

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
            if rat:
                res[tag] = (mr, median(per_page))
            rows.append([tag, fmt_size(size), med_spread(list(pwarm.values()), fmt_us),
                         med_spread(list(warm.values()), fmt_us) if warm else
                         ("registration failed: errno %d" % int(errs[0]["value"]) if errs else "n/a"),
                         med_spread(list(cold.values()), fmt_us), med_spread(rat),
                         med_spread(per_page, fmt_us), med_spread(steady),
                         ", ".join("%s %d" % (k[3:], v) for k, v in sorted(faults.items())) or "-",
                         verdict(mr >= GOAL_COLD_WARM) if rat else "not measured"])
            self.add("pass", tag, size, median(pwarm.values()), median(warm.values()), mr, "us",
                     "odp cold=%s us; per-page fault=%s us; %s" % (fmt(median(cold.values()), 4),
                                                                    fmt(median(per_page), 4), sec_note))
        return rows, res

    def cold_warm(self):
        self.out("## 3. Cold vs warm: first pass over a fresh ODP MR vs the second")
        self.out()
        self.out("odp-bench: register a resident region, then two passes of 1 MiB RDMA messages (8 in flight) "
                 "over all of it. *write*/*read* = RDMA WRITE into / READ from the region as the remote MR "
                 "(the responder faults); *+local* = the region is the local buffer (the requester or "
                 "completer faults); *+fresh* = the region was never touched (the fault also allocates "
                 "and zeroes). Cold/warm = warm time / cold time per run (goal >= %.1f); fault time per "
                 "4 KiB page = (cold - warm) / pages; warm ODP vs pinned = pinned/ODP time of the warm pass. "
                 "Counters: rxe hw_counters that moved during the whole command (both modes, all runs)."
                 % GOAL_COLD_WARM)
        self.out()
        hdr = ["pass", "region", "pinned warm", "ODP warm", "ODP cold", "cold/warm", "fault per page",
               "warm ODP vs pinned", "counters", "goal >= 0.5"]
        rows, res = self.pass_rows(PASS_TAGS, "goal")
        irows, _ = self.pass_rows(PASS_INFO_TAGS, "info")
        self.table(hdr, rows + irows)
        if res:
            worst = min(res.items(), key=lambda kv: kv[1][0] if ok(kv[1][0]) else -1)
            self.goals.append(("cold pass >= %.1f× warm pass (every variant)" % GOAL_COLD_WARM,
                               "; ".join("%s %.2f" % (t, v[0]) for t, v in res.items()) +
                               "; worst %s" % worst[0],
                               all(ok(v[0]) and v[0] >= GOAL_COLD_WARM for v in res.values())))
        else:
            self.goals.append(("cold pass >= %.1f× warm pass" % GOAL_COLD_WARM, "not measured", None))

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
                          med_spread(rat), med_spread(pp, fmt_us)]
                self.add("batch", tag + " " + base, size, float("nan"), median(cold.values()), median(rat),
                         "us", "cold/warm ratio; per-page fault %s us" % fmt(median(pp), 4))
            rows.append(cells)
        self.table(["setting", "WRITE cold", "WRITE warm", "WRITE cold/warm", "WRITE fault/page",
                    "READ cold", "READ warm", "READ cold/warm", "READ fault/page"], rows)

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
            if rat:
                res[case] = mr
            rows.append([case, fmt_size(size), med_spread(list(nomr.values()), fmt_us),
                         med_spread(list(odp.values()), fmt_us) if odp else
                         ("registration failed: errno %d" % int(errs[0]["value"]) if errs else "n/a"),
                         med_spread(rat), verdict(mr <= GOAL_INVAL) if rat else "not measured"])
            self.add("inval", case, size, median(nomr.values()), median(odp.values()), mr, "us",
                     "pinned column = no MR; ratio = odp/no-MR time")
        stale = raw.values(sec="inval", case="stale-bytes")
        self.out("## 4. Invalidation: MADV_DONTNEED / munmap of a fully mapped ODP region vs no MR")
        self.out()
        self.out("Resident region, THP on (*-thp*) or off (*-4k*); with an ODP MR every page was first mapped "
                 "into the MR by an RDMA READ pass. Ratio = ODP/no-MR time per run (goal <= %g)." % GOAL_INVAL)
        self.out()
        self.table(["operation", "region", "no MR", "ODP MR", "ratio", "goal <= 2"], rows)
        if stale:
            self.out("After MADV_DONTNEED the ODP MR must read the new zero pages: stale bytes read back "
                     "by RDMA = **%d** (over %d checks)." % (sum(int(x) for x in stale if ok(x)), len(stale)))
            self.out()
        if res:
            self.goals.append(("invalidation <= %g× no-MR (every variant)" % GOAL_INVAL,
                               "; ".join("%s %.2f" % kv for kv in res.items()),
                               all(v <= GOAL_INVAL for v in res.values())))
        else:
            self.goals.append(("invalidation <= %g× no-MR" % GOAL_INVAL, "not measured", None))

    # ------------------------------------------------------------ pressure
    def pressure(self):
        raw = self.raw
        rows = []
        goal = None
        figure = "not measured"
        order = [("pinned", "nolimit"), ("odp", "nolimit"), ("pinned", "limit"), ("pinned", "limit-memlock"),
                 ("odp", "limit")]
        for mode, tag in order:
            g = lambda case: raw.get(sec="pressure", mode=mode, tag=tag, case=case)
            ex = g("exit")
            if not ex:
                continue
            rc = ex[0]["value"]
            size = ex[0]["size"]
            mmax = g("memory.max")
            reg = g("reg")
            regerr = g("reg-error")
            w = [size / r["value"] for r in g("write") if r["value"] > 0]  # bytes/us = MB/s
            rd = [size / r["value"] for r in g("read") if r["value"] > 0]
            corrupt = sum(r["value"] for r in g("corrupt-rdma") + g("corrupt-cpu"))
            checked = len(g("corrupt-cpu"))
            ctr = {r["case"][4:]: r["value"] for r in raw.get(sec="pressure", mode=mode, tag=tag)
                   if r["case"].startswith("ctr:")}
            memcg = {r["case"][6:]: r["value"] for r in raw.get(sec="pressure", mode=mode, tag=tag)
                     if r["case"].startswith("memcg:")}
            if not ok(rc):
                outcome = "not run (ODP unsupported)"
            elif regerr:
                e = int(regerr[0]["value"])
                outcome = "registration refused: errno %d (%s)" % (e, os.strerror(e))
            elif rc == 137 and memcg.get("oom_kill", 0) > 0:
                outcome = "OOM-killed by the memcg %s" % ("during registration" if not reg else "during traffic")
            elif rc == 0 and checked:
                outcome = "completed"
            else:
                outcome = "exit %d" % rc
            limit = "none" if not mmax or mmax[0]["value"] == 0 else fmt_size(mmax[0]["value"])
            faults = ", ".join("%s %d" % (k[3:], v) for k, v in sorted(ctr.items()) if k.startswith("hw:odp") and v)
            rows.append(["%s (%s)" % (mode, tag), fmt_size(size), limit, outcome,
                         fmt_us(reg[0]["value"]) if reg else "-",
                         med_spread(w) + " MB/s" if w else "-", med_spread(rd) + " MB/s" if rd else "-",
                         "%d / %d" % (ctr.get("vm:pswpin", 0), ctr.get("vm:pswpout", 0)),
                         "%d" % memcg.get("oom_kill", 0), faults or "-",
                         "%d" % corrupt if checked else "-"])
            self.add("pressure", "%s/%s" % (mode, tag), size, float("nan"), median(w + rd), float("nan"),
                     "MB/s", "%s; corrupt=%s; swapin=%d swapout=%d" % (outcome, int(corrupt) if checked else "-",
                                                                       ctr.get("vm:pswpin", 0),
                                                                       ctr.get("vm:pswpout", 0)))
            if mode == "odp" and tag == "limit":
                goal = outcome == "completed" and corrupt == 0
                figure = "%s; %d corrupt bytes; %s/%s MB/s write/read; %d swap-ins, %d swap-outs" % (
                    outcome, corrupt, fmt(median(w)), fmt(median(rd)), ctr.get("vm:pswpin", 0),
                    ctr.get("vm:pswpout", 0)) if ok(rc) else outcome
                if not ok(rc):
                    goal = None
        self.out("## 5. Memory pressure: working set 2× memory.max, zram swap")
        self.out()
        self.out("odp-bench pressure in a cgroup v2 with memory.max below the working set (zram swap %s): "
                 "fill the region with a pattern, register it, then %s pass(es) of RDMA WRITE (new "
                 "pattern) and RDMA READ (checked), and a final CPU check of every byte. *nolimit* = same "
                 "without memory.max (baseline); *limit-memlock* = pinned as uid 65534 with "
                 "RLIMIT_MEMLOCK = memory.max. Swap-ins/outs from /proc/vmstat, OOM kills from "
                 "memory.events." % (self.meta.get("zram", "n/a"), self.meta.get("press_passes", "?")))
        self.out()
        self.table(["run", "working set", "memory.max", "outcome", "registration", "WRITE", "READ",
                    "swap-in / swap-out", "OOM kills", "rxe counters", "corrupt bytes"], rows)
        self.goals.append(("under pressure ODP completes with 0 corrupt bytes", figure, goal))

    # ------------------------------------------------------------ environment
    def environment(self):
        m = self.meta
        self.out("## Environment")
        self.out()
        rows = [["kernel", m.get("kernel", "?")],
                ["module", "%s (srcversion %s) %s" % (m.get("module_version", "?"), m.get("module_srcversion", "?"),
                                                     m.get("module_file", ""))],
                ["module parameters", ", ".join("%s=%s" % (k[6:], v) for k, v in sorted(m.items())
                                                if k.startswith("param_")) or "none"],
                ["ODP", "%s — %s" % (m.get("odp", "?"), m.get("odp_caps", ""))],
                ["guest", "%s MiB RAM, %s vCPUs (QEMU TCG), THP %s, MGLRU %s" % (
                    int(m.get("guest_mem_kib", "0")) // 1024, m.get("guest_cpus", "?"), m.get("thp", "?"),
                    m.get("mglru", "?"))],
                ["packages", ", ".join("%s %s" % (k[4:], v) for k, v in sorted(m.items()) if k.startswith("pkg_"))],
                ["rxe hw_counters", m.get("hw_counters", "?")],
                ["run time", "%s s (perftest %s, steady %s, reg %s, pass %s, batch %s, inval %s, pressure %s)" % tuple(
                    m.get(k, "?") for k in ("secs_total", "secs_perftest", "secs_steady", "secs_reg", "secs_pass",
                                            "secs_batch", "secs_inval", "secs_pressure"))],
                ["host load (1-min average, start / end of the run)", "%s / %s (2 host CPUs, shared with other "
                 "guests)" % (m.get("host_load_start", "?"), m.get("host_load_end", "?"))],
                ["date", m.get("date", "?")]]
        self.table(["", ""], rows)

    def build(self, title):
        body_start = len(self.md)
        self.perftest()
        self.steady()
        self.reg()
        self.cold_warm()
        self.batch()
        self.inval()
        self.pressure()
        self.environment()
        body = self.md[body_start:]
        self.md = self.md[:body_start]
        self.out("# %s" % title)
        self.out()
        self.out("Pinned vs ODP memory regions on Soft-RoCE (rxe0 on lo), measured side by side in one boot "
                 "of a QEMU/TCG guest: only ratios within this run mean anything, absolute figures do not "
                 "carry over to hardware. Plot: `%s`; every measurement: `%s`." %
                 (self.png_name, self.raw_name))
        if self.meta.get("smoke") == "1":
            self.out()
            self.out("**Smoke run** (tiny sizes, one run each): proves the scripts work, the numbers mean nothing.")
        self.out()
        self.out("## Goals")
        self.out()
        self.table(["goal", "figure", "verdict"], [[g, f, verdict(m)] for g, f, m in self.goals])
        self.md += body


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
        cmds = ["set terminal pngcairo noenhanced size 1400,600 font 'sans,10'",
                "set output '%s'" % png,
                "set multiplot layout 1,2",
                "set logscale x 2", "set grid",
                "set xlabel 'message size [bytes]'", "set ylabel 'bandwidth [Gb/s]'",
                "set title 'perftest bandwidth (median): pinned solid, ODP dashed'",
                "set key top left", "set yrange [0:*]",
                "set xtics ('4K' 4096, '64K' 65536, '1M' 1048576)"]
        plots = []
        colors = ["#1f77b4", "#d62728", "#2ca02c"]
        for i, (prog, fn) in enumerate(names):
            plots.append("'%s' using 1:2 with linespoints lw 2 dt 1 lc rgb '%s' title '%s pinned'"
                         % (fn, colors[i], prog))
            plots.append("'%s' using 1:3 with linespoints lw 2 dt 2 lc rgb '%s' title '%s ODP'"
                         % (fn, colors[i], prog))
        cmds.append("plot " + (", ".join(plots) if plots else "NaN notitle"))
        cmds += ["set logscale x 2", "set logscale y 10", "set yrange [*:*]",
                 "set xtics ('4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216, '256M' 268435456, "
                 "'1G' 1073741824, '4G' 4294967296)", "set format y '%g'", "set key top left",
                 "set xlabel 'MR size [bytes]'", "set ylabel 'time [µs]'",
                 "set title 'registration / deregistration time (median)'",
                 "plot '%s' using 1:2 with linespoints lw 2 lc rgb '#1f77b4' title 'pinned reg', "
                 "'%s' using 1:3 with linespoints lw 2 lc rgb '#d62728' title 'ODP reg', "
                 "'%s' using 1:4 with linespoints lw 1 dt 2 lc rgb '#1f77b4' title 'pinned dereg', "
                 "'%s' using 1:5 with linespoints lw 1 dt 2 lc rgb '#d62728' title 'ODP dereg'"
                 % (regf, regf, regf, regf),
                 "unset multiplot"]
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
    if len(argv) >= 5 and argv[3] == "--title":
        title = argv[4]
    raw = Raw(os.path.join(rawdir, "raw.csv"))
    meta = read_meta(os.path.join(rawdir, "meta.txt"))
    rep = Report(raw, meta)
    rep.png_name = os.path.basename(base) + ".png"
    rep.raw_name = os.path.basename(base) + "-raw.csv"
    rep.build(title)
    with open(base + ".md", "w") as f:
        f.write("\n".join(rep.md) + "\n")
    with open(base + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "case", "size", "pinned_or_baseline", "odp", "ratio", "unit", "note"])
        w.writerows(rep.summary)
        for g, fig, m in rep.goals:
            w.writerow(["goal", g, "", "", "", "", "", "%s: %s" % ({True: "met", False: "not met"}.get(m, "not measured"), fig)])
    shutil.copyfile(os.path.join(rawdir, "raw.csv"), base + "-raw.csv")
    ok_plot = plot(rep, base + ".png")
    print("report: %s.md, %s.csv, %s-raw.csv%s" % (base, base, base, ", %s.png" % base if ok_plot else " (no plot)"))
    return 0 if ok_plot else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
