#!/bin/bash
# The profile tools' arithmetic on synthetic input, no guest needed:
# bench/sched-sum.py (bench/profile.sh's sched case) takes each run's data
# phase only (the samples between which packets flowed), gives per-packet
# figures per mode and the median pair ratio ODP/pinned with its interval,
# still reads sample files without the per-process columns, and compares
# any two modes (the control: pinned against pinned again); and
# bench/wake-sum.py (the wake case) counts each rxe task's activations, its
# waits, the preemptions and the vCPUs each side held, from ftrace's text.
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
# expect FILE METRIC COLUMN VALUE WHAT: a summary's figure is VALUE
expect() {
	local v
	v=$(awk -v k="$2" -v c="$3" '$1 == k { print $c }' "$1")
	[ "$v" = "$4" ] || fail "$5: $v, expected $4"
}
grep -q '^== c: 8 pairs$' "$d/out.txt" || fail "not 8 pairs"
expect "$d/out.txt" busy 2 10 "pinned busy per packet, us (the set-up's CPU counted?)"
expect "$d/out.txt" busy 3 11.5 "ODP busy per packet, us (the median)"
expect "$d/out.txt" busy 4 1.15 "busy pair ratio"
expect "$d/out.txt" pps 4 0.9 "pps ratio"
expect "$d/out.txt" cli_cpu 2 3.33 "client CPU per packet"
expect "$d/out.txt" cli_nvcs 2 10 "client preemptions per 1000 packets"
expect "$d/out.txt" workers 2 6.67 "workers per packet"
# the vCPUs each held: 6.67 and 3.33 us per packet at 10,000 packets/s
expect "$d/out.txt" wrk_cpus 2 0.0667 "workers' vCPUs"
expect "$d/out.txt" cli_cpus 2 0.0333 "client's vCPUs"
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

# bench/wake-sum.py (profile.sh's wake case) on synthetic traces in ftrace's
# text format.  Two vCPUs; the client (ib_read_bw-100) polls on CPU 0; every
# 1 ms it queues the send task (its doorbell), whose kworker (pid 50) wakes
# on CPU 0, preempts the client after WAKE us and runs EXEC us; that work
# queues the recv task, run by kworker 51 on the idle CPU 1 for 300 us.
# The server (ib_read_bw-101) sleeps throughout.  The trace spans 0.1 s.
trace_file() { # file wake_us exec_us
	awk -v wake="$2" -v exec="$3" 'function ev(comm, pid, cpu, t, what) {
			printf "%16s-%-7d [%03d] d..2. %12.6f: %s\n", comm, pid, cpu, t / 1e6, what }
		BEGIN {
			print "# tracer: nop"
			ev("swapper/0", 0, 0, 0, "sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ib_read_bw next_pid=100 next_prio=120")
			ev("ib_read_bw", 101, 1, 0, "sched_switch: prev_comm=ib_read_bw prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120")
			for (i = 0; i < 100; i++) {
				t = 500 + i * 1000
				ev("ib_read_bw", 100, 0, t, "workqueue_queue_work: work struct=00000000aaaa function=do_work [rdma_rxe] workqueue=rxe_wq req_cpu=8192 cpu=-1")
				ev("ib_read_bw", 100, 0, t, "sched_waking: comm=kworker/u8:1 pid=50 prio=120 target_cpu=000")
				ev("ib_read_bw", 100, 0, t, "sched_wakeup: comm=kworker/u8:1 pid=50 prio=120 target_cpu=000")
				t += wake
				ev("ib_read_bw", 100, 0, t, "sched_switch: prev_comm=ib_read_bw prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=kworker/u8:1 next_pid=50 next_prio=120")
				ev("kworker/u8:1", 50, 0, t, "workqueue_execute_start: work struct 00000000aaaa: function do_work [rdma_rxe]")
				ev("kworker/u8:1", 50, 0, t + 10, "workqueue_queue_work: work struct=00000000bbbb function=do_work [rdma_rxe] workqueue=rxe_wq req_cpu=8192 cpu=-1")
				ev("kworker/u8:1", 50, 0, t + 10, "sched_waking: comm=kworker/u8:2 pid=51 prio=120 target_cpu=001")
				ev("kworker/u8:1", 50, 0, t + 10, "sched_wakeup: comm=kworker/u8:2 pid=51 prio=120 target_cpu=001")
				ev("swapper/1", 0, 1, t + 30, "sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/u8:2 next_pid=51 next_prio=120")
				ev("kworker/u8:2", 51, 1, t + 30, "workqueue_execute_start: work struct 00000000bbbb: function do_work [rdma_rxe]")
				ev("kworker/u8:2", 51, 1, t + 330, "workqueue_execute_end: work struct 00000000bbbb: function do_work [rdma_rxe]")
				ev("kworker/u8:2", 51, 1, t + 330, "sched_switch: prev_comm=kworker/u8:2 prev_pid=51 prev_prio=120 prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120")
				ev("kworker/u8:1", 50, 0, t + exec, "workqueue_execute_end: work struct 00000000aaaa: function do_work [rdma_rxe]")
				ev("kworker/u8:1", 50, 0, t + exec, "sched_switch: prev_comm=kworker/u8:1 prev_pid=50 prev_prio=120 prev_state=I ==> next_comm=ib_read_bw next_pid=100 next_prio=120")
			}
			ev("ib_read_bw", 100, 0, 100000, "sched_waking: comm=rcu_preempt pid=18 prio=120 target_cpu=000")
		}' | gzip >"$1"
}
W=$TOP/bench/wake-sum.py
mkdir -p "$d/w"
echo "case,mode,pair,rc,bw_gbps,pkts,secs,trace" >"$d/wake.csv"
for p in $(seq 6); do
	trace_file "$d/w/p$p.gz" 5 200
	trace_file "$d/w/o$p.gz" $((10 + 10 * (p % 2))) 250   # ODP: waits 10-20 us, runs 250
	# 10 packets per ms: 1000 in the trace's 0.1 s
	echo "c,pinned,$p,0,1.0,2000,0.2,w/p$p.gz" >>"$d/wake.csv"
	echo "c,odp,$p,0,0.9,2000,0.2,w/o$p.gz" >>"$d/wake.csv"
done
echo "c,odp,7,1,NaN,2000,0.2,w/o1.gz" >>"$d/wake.csv"   # a failed run: left out
python3 "$W" "$d/wake.csv" >"$d/wake.txt" || fail "wake-sum.py exited $?"
cat "$d/wake.txt"
grep -q '^== c: 6 pairs$' "$d/wake.txt" || fail "wake-sum.py: not 6 pairs"
expect "$d/wake.txt" send_queued 2 100 "send task's activations per 1000 packets"
expect "$d/wake.txt" send_by_cli 2 100 "send task queued by the client"
expect "$d/wake.txt" recv_by_wrk 2 100 "recv task queued by a worker"
expect "$d/wake.txt" send_pkts 2 10 "packets per send activation"
expect "$d/wake.txt" send_exec_us 2 200 "a send activation, us"
expect "$d/wake.txt" send_exec_us 3 250 "an ODP send activation, us"
expect "$d/wake.txt" recv_exec_us 2 300 "a recv activation, us"
expect "$d/wake.txt" send_qlat_us 2 5 "send task's queue to start, us"
expect "$d/wake.txt" recv_qlat_us 2 20 "recv task's queue to start, us"
# pairs 1, 3, 5 wait 20 us, 2, 4, 6 10 us: the ratios 4 and 2, median 3
expect "$d/wake.txt" send_qlat_us 4 3 "send task's queue-to-start ratio"
expect "$d/wake.txt" cli_preempted_by_wrk 2 100 "client preemptions by a worker"
expect "$d/wake.txt" wrk_wakeups_on_cli 2 100 "wake-ups on the client's vCPU"
expect "$d/wake.txt" wrk_wakeups_on_idle 2 100 "wake-ups on an idle vCPU"
# worker time: 200 + 300 us per ms over the 0.1 s: 0.5 vCPUs, 50 us per packet
expect "$d/wake.txt" cpus_wrk 2 0.5 "workers' vCPUs"
expect "$d/wake.txt" wrk_run_us 2 50 "workers' time per packet"
expect "$d/wake.txt" cpus_srv 2 0 "vCPUs the sleeping server held"
echo "wake-sum.py: per-task activations, waits, preemptions and shares: ok"
