#!/bin/bash
# Bench smoke: bench/guest.sh --smoke (tiny sizes, one run of every
# measurement) and bench/report.py still produce a complete report: every
# section and every goal row with a measured figure, a PNG plot, perftest
# pinned and --odp results (--odp on both sides, on the requester only, on
# the responder only), the memory-pressure runs of ODP (limited to 50 %
# and 25 % of the working set, and unlimited) with their data verified (0
# corrupt bytes) and pinned's outcome at each limit, the page-aging case on
# MGLRU and the classic LRU with odp_aging off and on (young callbacks
# answered only when on), the perftest --odp server under reclaim with aging
# off and on, the steady-state atomics (odp-bench steady --atomic, values
# checked), and
# the page-aging-at-scale step (reclaim and invalidation with 0 and 10 ODP
# MRs).  No timing is asserted: speed is bench/'s job.
# vm-args: --timeout 1800
source "$TOP/tests/lib/guest.sh"

out=/tmp/bench-smoke
bash "$TOP/bench/guest.sh" --smoke "$out" || fail "bench/guest.sh --smoke exited $?"
raw=$out/raw.csv
[ -s "$raw" ] || fail "no raw.csv"
grep -q '^odp=yes' "$out/meta.txt" || fail "odp-bench caps: our rxe does not offer ODP ($(grep odp_caps "$out/meta.txt"))"

python3 "$TOP/bench/report.py" "$out" "$out/report" --title smoke || fail "bench/report.py failed"
md=$out/report.md
for f in "$md" "$out/report.csv" "$out/report-raw.csv" "$out/report.png"; do
	[ -s "$f" ] || fail "report file $f missing or empty"
done
[ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "report.png is not a PNG"

# Raw measurements: each kind has pinned and ODP rows with numbers.
need() { # description, awk condition on the CSV fields
	awk -F, "$2 { found = 1 } END { exit !found }" "$raw" && return
	# the guest's logs die with it: show why, then fail
	tail -n 20 "$out/logs/bench.log"
	for f in "$out"/logs/perftest-*-client.log; do
		grep -q '^ *#bytes' "$f" 2>/dev/null && continue
		echo "--- $f"
		tail -n 15 "$f"
	done
	fail "raw.csv has no row for: $1"
}
# A run that completed but whose figures perftest could not compute (its own
# clock calibration failed on the starved guest: unit no-clock) counts as run.
for prog in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat; do
	for mode in pinned odp; do
		need "perftest $prog $mode" "\$1 == \"perftest\" && \$2 == \"$prog\" && \$3 == \"$mode\" && (\$8 == \"no-clock\" || \$8 != \"failed\" && \$7 + 0 > 0)"
	done
done
# The ptsides step (issue 15 item 2): --odp on the client (requester) only and
# on the server (responder) only, each next to a pinned run.
for prog in ib_write_bw ib_read_bw ib_send_bw; do
	for mode in pinned odp-req odp-resp; do
		need "ptsides $prog $mode" "\$1 == \"ptsides\" && \$2 == \"$prog\" && \$3 == \"$mode\" && (\$8 == \"no-clock\" || \$8 != \"failed\" && \$7 + 0 > 0)"
	done
done
grep '^\(perftest\|ptsides\),.*,no-clock$' "$raw" | sed 's/^/(perftest ran, no figure: its clock calibration failed) /'
for mode in pinned odp; do
	need "steady $mode" "\$1 == \"steady\" && \$3 == \"$mode\" && \$8 == \"us\""
	# atomics (issue 15 item 2): timed, and odp-bench found every value right
	need "steady atomic $mode" "\$1 == \"steady\" && \$2 ~ /^atomic-[0-9]+\$/ && \$3 == \"$mode\" && \$8 == \"us/atomic\" && \$7 > 0"
	need "steady atomic $mode value check" "\$1 == \"steady\" && \$2 ~ /^atomic-[0-9]+-value-error\$/ && \$3 == \"$mode\" && \$7 == 0"
	need "reg $mode" "\$1 == \"reg\" && \$2 == \"reg\" && \$3 == \"$mode\""
	need "dereg $mode" "\$1 == \"reg\" && \$2 == \"dereg\" && \$3 == \"$mode\""
	need "pass cold $mode" "\$1 == \"pass\" && \$2 ~ /-cold\$/ && \$3 == \"$mode\""
	need "pass warm $mode" "\$1 == \"pass\" && \$2 ~ /-warm\$/ && \$3 == \"$mode\""
done
need "pages pinned by a pinned registration" '$1 == "reg" && $2 == "pins" && $3 == "pinned" && $7 > 0'
need "pages pinned by an ODP registration" '$1 == "reg" && $2 == "pins" && $3 == "odp"'
pinned=$(awk -F, '$1 == "reg" && $2 == "pins" && $3 == "odp" { s += $7 } END { print s + 0 }' "$raw")
[ "$pinned" = 0 ] || fail "ODP registrations pinned $pinned pages"
need "ODP fault counters" '$1 == "pass" && $2 == "ctr:hw:odp_pages_faulted" && $7 > 0'
need "fault-ahead sweep" '$1 == "pass" && $5 ~ /=/ && $2 ~ /-cold$/'
# The prefetch step (issue 13): sync, async and none, and the per-MR fault counts.
for kind in none sync async; do
	need "prefetch $kind cold pass" "\$1 == \"prefetch\" && \$2 ~ /-cold\$/ && \$3 == \"$kind\""
	need "prefetch $kind warm pass" "\$1 == \"prefetch\" && \$2 ~ /-warm\$/ && \$3 == \"$kind\""
	need "prefetch $kind cold-pass faults" "\$1 == \"prefetch\" && \$2 ~ /-cold-faulted\$/ && \$3 == \"$kind\""
done
for kind in sync async; do
	need "prefetch $kind advise cost per GiB" "\$1 == \"prefetch\" && \$2 == \"advise-per-gib\" && \$3 == \"$kind\" && \$7 > 0"
done
# The faultcost step (issue 15): kernel populate and driver fault service per
# page, zero-fill and swap-in, and the histogram's buckets summing to the faults.
for kind in zero swap; do
	for mode in kernel driver; do
		need "faultcost $kind $mode" "\$1 == \"faultcost\" && \$2 == \"$kind\" && \$3 == \"$mode\" && \$7 > 0"
	done
done
need "faultcost exit 0" '$1 == "faultcost" && $2 == "exit" && $7 == 0'
need "inval no MR" '$1 == "inval" && $3 == "nomr"'
need "inval ODP" '$1 == "inval" && $3 == "odp" && $2 != "reg-error"'
need "inval stale bytes = 0" '$1 == "inval" && $2 == "stale-bytes" && $7 == 0'
# The pressure step: at each limit (% of the working set) pinned once as root
# and once under RLIMIT_MEMLOCK, ODP limited and unlimited in pairs.
for pct in 50 25; do
	need "pinned pressure outcome at $pct %" "\$1 == \"pressure\" && \$2 == \"exit\" && \$3 == \"pinned\" && \$5 == \"limit-$pct\""
	need "pinned RLIMIT_MEMLOCK outcome at $pct %" "\$1 == \"pressure\" && \$2 == \"exit\" && \$3 == \"pinned\" && \$5 == \"limit-memlock-$pct\""
	for t in limit nolimit; do
		need "ODP pressure $t-$pct completed" "\$1 == \"pressure\" && \$2 == \"exit\" && \$3 == \"odp\" && \$5 == \"$t-$pct\" && \$6 == 1 && \$7 == 0"
		need "ODP pressure $t-$pct RDMA check" "\$1 == \"pressure\" && \$2 == \"corrupt-rdma\" && \$3 == \"odp\" && \$5 == \"$t-$pct\""
		need "ODP pressure $t-$pct CPU check" "\$1 == \"pressure\" && \$2 == \"corrupt-cpu\" && \$3 == \"odp\" && \$5 == \"$t-$pct\""
	done
	need "ODP pressure limit-$pct memory.max" "\$1 == \"pressure\" && \$2 == \"memory.max\" && \$3 == \"odp\" && \$5 == \"limit-$pct\" && \$7 > 0"
done
bad=$(awk -F, '$1 == "steady" && $2 ~ /-value-error$/ && $7 != 0' "$raw")
[ -z "$bad" ] || fail "odp-bench steady --atomic: wrong values: $bad"
grep -q '^   odp-bench steady .*--atomic : rc 0,' "$out/logs/bench.log" ||
	fail "odp-bench steady --atomic did not exit 0: $(grep -- '--atomic' "$out/logs/bench.log")"
bad=$(awk -F, '$1 == "pressure" && $3 == "odp" && $2 ~ /^corrupt-/ { s += $7 } END { print s + 0 }' "$raw")
[ "$bad" = 0 ] || fail "ODP under memory pressure: $bad corrupt bytes"
for lru in mglru classic; do
	need "aging probe on $lru completed" "\$1 == \"aging\" && \$2 == \"exit\" && \$5 == \"$lru\" && \$7 == 0"
	for mode in off on; do
		need "aging $lru $mode: pages of A faulted" "\$1 == \"aging\" && \$2 == \"a_pages_faulted\" && \$3 == \"$mode\" && \$5 == \"$lru\""
		need "aging $lru $mode: B residency" "\$1 == \"aging\" && \$2 == \"b_resident_end_pct\" && \$3 == \"$mode\" && \$5 == \"$lru\""
	done
	need "aging $lru on: young callbacks answered" "\$1 == \"aging\" && \$2 == \"young_answers\" && \$3 == \"on\" && \$5 == \"$lru\" && \$7 > 0"
	need "aging $lru off: no young answers" "\$1 == \"aging\" && \$2 == \"young_answers\" && \$3 == \"off\" && \$5 == \"$lru\" && \$7 == 0"
done
bad=$(awk -F, '$1 == "aging" && $2 == "young_answers" && $3 == "off" && $7 != 0' "$raw")
[ -z "$bad" ] || fail "odp_aging=N still answered young callbacks: $bad"
# The agingpt step (issue 15 item 4): a perftest --odp server under pressure,
# aging off and on, its bandwidth, faults and reclaim rounds; odp_aging=N never answers.
for mode in off on; do
	need "agingpt $mode: perftest ran" "\$1 == \"agingpt\" && \$2 == \"exit\" && \$3 == \"$mode\" && \$7 == 0"
	need "agingpt $mode: bandwidth" "\$1 == \"agingpt\" && \$2 == \"bw\" && \$3 == \"$mode\" && (\$8 == \"no-clock\" || \$7 + 0 > 0)"
	need "agingpt $mode: the server's MR faulted" "\$1 == \"agingpt\" && \$2 == \"ctr:hw:odp_pages_faulted\" && \$3 == \"$mode\" && \$7 > 0"
	need "agingpt $mode: reclaim rounds begun" "\$1 == \"agingpt\" && \$2 == \"reclaim-begun\" && \$3 == \"$mode\""
done
# The rounds start once the WRITEs reach the server; in the smoke's 4 s run
# the busy vCPUs may leave the loop no time in one mode, not in both.
need "agingpt: a reclaim round during the traffic" '$1 == "agingpt" && $2 == "reclaim-begun" && $7 > 0'
bad=$(awk -F, '$1 == "agingpt" && $2 == "ctr:hw:odp_young_answers" && $3 == "off" && $7 != 0' "$raw")
[ -z "$bad" ] || fail "agingpt: odp_aging=N still answered young callbacks: $bad"
# The young step (issue 17): reclaim with and without ODP MRs, aging off and on,
# registration and invalidation rows; every young-scale run exited 0.
for n in 0 10; do
	for mode in off on; do
		need "young N=$n reclaim aging $mode" "\$1 == \"young\" && \$2 == \"reclaim\" && \$3 == \"$mode\" && \$4 == $n && \$7 > 0"
	done
	need "young N=$n invalidation outside the MRs" "\$1 == \"young\" && \$2 == \"inval-munmap-outside\" && \$4 == $n"
done
need "young N=10 registration" '$1 == "young" && $2 == "reg" && $4 == 10 && $7 > 0'
need "young N=10 invalidation of an MR page" '$1 == "young" && $2 == "inval-dontneed-mr" && $4 == 10'
bad=$(awk -F, '$1 == "young" && (($2 == "exit" && $7 != 0) || ($2 == "young-answers" && $3 == "off" && $7 != 0))' "$raw")
[ -z "$bad" ] || fail "young step: a run failed or odp_aging=N answered: $bad"

# The report: every section, every goal row measured (met, not met, or undecided:
# one pair per case gives no 95 % interval, so the smoke's timing goals are undecided).
for h in "## Goals" "## 1. Steady state" "### Steady state, ODP on one side only" "### Steady state, finely interleaved" "## 2. Registration" \
	"## 3. Cold vs warm" "### Fault batch size" "### Fault cost" "### Prefetch" "## 4. Invalidation" "## 5. Memory pressure" "## 6. Page aging" \
	"## 6b. Page aging as throughput" "## 7. Page aging at scale" \
	"## Environment"; do
	grep -qF "$h" "$md" || fail "report has no section '$h'"
done
for g in "steady-state ODP/pinned >= 0.98 (perftest" "steady-state ODP/pinned >= 0.98, ODP on one side only" \
	"steady-state ODP/pinned >= 0.98 (odp-bench" \
	"ODP registration of 1 GiB" "ODP registration time within 2" "cold pass >= 0.5" \
	"invalidation <= 2" "under pressure ODP completes with 0 corrupt bytes" \
	"sync prefetch: the cold pass faults no page" "driver fault service <= 1.2" \
	"the fault histogram's buckets sum to odp_faults" "faults on A, aging off / aging on >= 10" "perftest --odp server under pressure: aging on/off BW" \
	"page aging at scale: memory.reclaim outside" \
	"page aging at scale: memory.reclaim inside" "invalidation with the most ODP MRs"; do
	line=$(grep -F "| $g" "$md" | head -1)
	[ -n "$line" ] || fail "report has no goal row '$g'"
	case "$line" in
	*"**met**"* | *"**not met**"* | *"**undecided**"*) ;;
	# The smoke registers at most 16 MiB: the 1 GiB goal is not measured there.
	*"1 GiB"*"not measured"*) ;;
	# a perftest run without figures (its clock calibration failed) leaves no pair
	*"perftest --odp server under pressure"*"not measured"*)
		grep -q '^agingpt,bw,.*,no-clock$' "$raw" || fail "goal row not measured: $line" ;;
	*) fail "goal row not measured: $line" ;;
	esac
done
# the throughput under each limit relative to none: a figure, no bound
for pct in 50 25; do
	grep -F "| ODP throughput at memory.max = $pct% of the working set / no limit" "$md" | grep -qF "| shown |" ||
		fail "no ODP throughput figure at $pct % of the working set: $(grep -F "| ODP throughput at memory.max = $pct%" "$md")"
	grep -qF "| $pct % | " "$md" || fail "no row of the $pct % limit in the pressure table"
done
grep -F "| ATOMIC FETCH_ADD | 8 B every 64 KiB |" "$md" | grep -qF "| 1 |" ||
	fail "report: no atomic row with its pair in the steady table"
grep -F "| steady-state atomics leave every fetched and final value right" "$md" | grep -qF "**met**" ||
	fail "report: the atomics' value check is not met: $(grep -F '| steady-state atomics' "$md")"
grep -F "| under pressure ODP completes" "$md" | grep -qF "**met**" ||
	fail "ODP under pressure did not complete cleanly: $(grep -F '| under pressure' "$md")"
echo "report rows: $(grep -c '^|' "$md"), raw rows: $(wc -l <"$raw")"
echo "bench smoke: ok"
