#!/bin/bash
# The profile tools' arithmetic on synthetic input, no guest needed:
# bench/sched-sum.py (bench/profile.sh's sched case) takes each run's data
# phase only (the samples between which packets flowed), gives per-packet
# figures per mode and the median pair ratio ODP/pinned with its interval,
# still reads sample files without the per-process columns, and compares
# any two modes (the control: pinned against pinned again).
source "$TOP/tests/lib/host.sh"
d=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
S=$TOP/bench/sched-sum.py

# One run's samples: 3 set-up samples (no packets, and a burst of CPU that
# must not count), 6 of traffic at PPS packets/s with BUSY us of CPU per
# packet, 3 of tear-down.  Columns: t, run, wait, slices (schedstat), ctxt,
# the cpu line's 7 ticks, sent_pkts + 4 ODP counters, then per process
# (client, server) run, wait, slices, voluntary, involuntary switches.
# The client's CPU is a third of all, its involuntary switches 1 per 100
# packets; FAULTS pages fault in the traffic.  OLD=1: no process columns.
run_file() { # file busy_us pps faults
	awk -v busy="$2" -v pps="$3" -v faults="$4" -v old="${OLD:-0}" 'BEGIN {
		t = 1000; run = 5e9; pk = 100; f = 0; cr = 1e9; cn = 10
		for (i = 0; i < 12; i++) {
			if (i < 3) run += 1e9   # set-up: CPU, no packets
			line = sprintf("%.3f %.0f %.0f %d %d 0 0 0 0 0 0 0 %d %d %d 0 0", t, run, run / 10,
				i * 10, i * 100, pk, f, f)
			if (!old)
				line = line sprintf(" %.0f 0 %d 0 %d 0 0 0 0 0", cr, i, cn)
			print line
			t += 0.1
			if (i >= 2 && i < 8) {   # traffic between samples 2 and 8
				n = pps * 0.1; pk += n; run += n * busy * 1e3; cr += n * busy * 1e3 / 3
				cn += n / 100; f += faults / 6
			}
		}
	}' >"$1"
}
mkdir -p "$d/s"
echo "case,mode,pair,bw_gbps,samples" >"$d/sched.csv"
for p in $(seq 8); do
	run_file "$d/s/p$p.txt" 10 10000 0
	run_file "$d/s/o$p.txt" $((11 + p % 2)) 9000 60   # ODP: 10-20 % more CPU per packet
	echo "c,pinned,$p,1.0,s/p$p.txt" >>"$d/sched.csv"
	echo "c,odp,$p,0.9,s/o$p.txt" >>"$d/sched.csv"
done
python3 "$S" "$d/sched.csv" >"$d/out.txt" || fail "sched-sum.py exited $?"
cat "$d/out.txt"
field() { awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$d/out.txt"; }
grep -q '^== c: 8 pairs$' "$d/out.txt" || fail "not 8 pairs"
[ "$(field busy 2)" = 10 ] || fail "pinned busy per packet $(field busy 2), not 10 us (the set-up's CPU counted?)"
[ "$(field busy 3)" = 11.5 ] || fail "ODP busy per packet $(field busy 3), not the median 11.5 us"
[ "$(field busy 4)" = 1.15 ] || fail "busy pair ratio $(field busy 4), not 1.15"
[ "$(field pps 4)" = 0.9 ] || fail "pps ratio $(field pps 4), not 0.9"
[ "$(field cli_cpu 2)" = 3.33 ] || fail "client CPU per packet $(field cli_cpu 2), not 3.33 us"
[ "$(field cli_nvcs 2)" = 10 ] || fail "client preemptions per 1000 packets $(field cli_nvcs 2), not 10"
[ "$(field workers 2)" = 6.67 ] || fail "workers per packet $(field workers 2), not 6.67 us"
# the vCPUs each held: 6.67 and 3.33 us per packet at 10,000 packets/s
[ "$(field wrk_cpus 2)" = 0.0667 ] || fail "workers' vCPUs $(field wrk_cpus 2), not 0.0667"
[ "$(field cli_cpus 2)" = 0.0333 ] || fail "client's vCPUs $(field cli_cpus 2), not 0.0333"
# the window runs from the first sample after packets rose to the last one
# before they stopped: 4 of the 6 traffic intervals, so 40 of the 60 faults
grep -q '^faulted in data phase, median \[min-max\]: pinned 0 \[0–0\]; odp 40 \[40–40\]$' "$d/out.txt" ||
	fail "faults in the data phase not 40 per ODP run"
grep -q '^faulted in the run, median \[min-max\]: pinned 0 \[0–0\]; odp 60 \[60–60\]$' "$d/out.txt" ||
	fail "faults in the run not 60 per ODP run"

# Sample files of 415abff's sampler (no process columns): the same guest-wide
# figures, the per-process ones n/a.
mkdir -p "$d/old"
echo "case,mode,pair,bw_gbps,samples" >"$d/old.csv"
for p in $(seq 6); do
	OLD=1 run_file "$d/old/p$p.txt" 10 10000 0
	OLD=1 run_file "$d/old/o$p.txt" 12 9000 60
	printf 'c,pinned,%s,1.0,old/p%s.txt\nc,odp,%s,0.9,old/o%s.txt\n' "$p" "$p" "$p" "$p" >>"$d/old.csv"
done
python3 "$S" "$d/old.csv" >"$d/old.txt" || fail "sched-sum.py exited $? on old sample files"
grep -q '^== c: 6 pairs$' "$d/old.txt" || fail "old sample files not read"
awk '$1 == "busy" && $4 == 1.2' "$d/old.txt" | grep -q . || fail "old sample files: busy ratio not 1.2"
awk '$1 == "cli_cpu" && $2 == "n/a" && $3 == "n/a"' "$d/old.txt" | grep -q . ||
	fail "per-process figures invented for old sample files"

# A run whose packets never moved has no data phase: left out, not a zero.
run_file "$d/s/o2.txt" 12 0 0
python3 "$S" "$d/sched.csv" >"$d/none.txt" || fail "sched-sum.py exited $? with an empty run"
grep -q '^== c: 7 pairs$' "$d/none.txt" || fail "a run without traffic was counted"
# The control (PROFILE_SCHED_MODES="pinned pinned-again"): the reference is
# the first row's mode, the ratio the other over it, whatever the names.
echo "case,mode,pair,bw_gbps,samples" >"$d/ctl.csv"
for p in $(seq 6); do
	run_file "$d/s/a$p.txt" $((10 + p % 2)) 10000 0
	rows=$(printf 'c,pinned,%s,1.0,s/p%s.txt\nc,pinned-again,%s,1.0,s/a%s.txt' "$p" "$p" "$p" "$p")
	# odd pairs: the reference first; even pairs: the other first
	if [ $((p % 2)) = 1 ]; then echo "$rows"; else echo "$rows" | tac; fi >>"$d/ctl.csv"
done
python3 "$S" "$d/ctl.csv" >"$d/ctl.txt" || fail "sched-sum.py exited $? on the control"
grep -q '^metric  *pinned  *pinned-again  *pinned-again/pinned ' "$d/ctl.txt" ||
	fail "control: not pinned-again over pinned: $(grep '^metric' "$d/ctl.txt")"
# pairs 1, 3, 5 at 11 us against 10, pairs 2, 4, 6 at 10: median 1.05
awk '$1 == "busy" && $2 == 10 && $4 == 1.05' "$d/ctl.txt" | grep -q . ||
	fail "control: busy ratio $(awk '$1 == "busy" { print $4 }' "$d/ctl.txt"), not 1.05"
# three modes in one file: refused, not half-compared
{ cat "$d/ctl.csv"; echo "c,odp,1,0.9,s/o1.txt"; } >"$d/three.csv"
python3 "$S" "$d/three.csv" >/dev/null 2>"$d/three.err" && fail "three modes accepted"
grep -q 'not two' "$d/three.err" || fail "three modes: no clear error: $(cat "$d/three.err")"
echo "sched-sum.py: data phase only, per-packet figures and pair ratios, old sample files, control: ok"
