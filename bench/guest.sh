#!/bin/bash
# The guest side of the benchmark (run by bench/run.sh through tests/vm/run, or
# by tests/guest/90-bench-smoke.sh): pinned vs ODP memory regions on rxe0,
# measured side by side in this one boot, interleaved and repeated; and ODP
# page aging (odp_aging) off vs on under memory.reclaim, on both LRUs.
#
# usage: [BENCH_STEPS="aging ..."] bench/guest.sh [--smoke] OUTDIR
#
# BENCH_STEPS: the steps to run, in order (default: perftest ptsides steady reg chunk pass
# batch faultcost prefetch inval pressure aging agingpt young).  Pairs per case (the method of
# issue 15: every ODP-vs-pinned figure is the median of >= 20 interleaved
# pairs with its 95 % interval; the steps whose runs are long get fewer, so
# that the whole bench stays near an hour and a half under TCG):
# BENCH_PT_RUNS (perftest, default 20, the method's minimum: a pair of the 11
# cases is 22 runs of about 4 s, so 20 pairs take about 30 min; also the
# triples per case of ptsides, 3 cases of 3 runs: 20 triples about 13 min;
# set 10 for a quicker, less certain run), BENCH_STEADY_REPS (20),
# BENCH_REG_REPS (20; BENCH_REG_BIG from 256 MiB, 6), BENCH_REG_FRESH_REPS
# (20: never-touched memory, 4 KiB .. 1 TiB), BENCH_REG_MEM_REPS (6),
# BENCH_REG_IMPL_REPS (20: implicit vs explicit ODP), BENCH_CHUNK_REPS (12),
# BENCH_REG_RESIDENT=0 (leave out the resident-memory table: a short run),
# BENCH_PASS_REPS (20),
# BENCH_BATCH_REPS (6), BENCH_PF_REPS (8), BENCH_INVAL_REPS (20),
# BENCH_PRESS_PAIRS (6: a pair takes 20-40 s under the limit at 32 MiB; each
# limit of BENCH_PRESS_PCTS, default "50 25", memory.max as % of the working
# set BENCH_PRESS_WS, default 32M, gets that many pairs of ODP limited vs
# unlimited),
# BENCH_AGING_RUNS (6: each aging mode goes first 3 times; 6 gives the
# smallest 95 % interval, min-max), BENCH_YOUNG_REPS (8).  Also:
# BENCH_PT_DUR, BENCH_BATCH_PARAM, BENCH_BATCH_VALUES, BENCH_REG_PINNED_MAX
# (largest pinned registration of never-touched memory, default 1G),
# BENCH_CHUNK_SHIFTS (default 16,18,21,24,27), BENCH_CHUNK_N (256),
# BENCH_CHUNK_SEQ (16M),
# BENCH_AGING_LRUS (default "mglru classic"), BENCH_YOUNG_NS (default
# "0 1 100 1000 10000").  Progress: at the start of every step a line
# "bench: step I of N: NAME, elapsed T, about R left" (stderr, so the
# console; bench/run.sh shows them); BENCH_STEP_TOTAL and BENCH_AFTER_SECS
# count steps that run after the guest (bench/run.sh's pair step).
#
# Writes OUTDIR/raw.csv (one row per measurement:
# section,case,mode,size,tag,run,value,unit), OUTDIR/meta.txt (kernel, module,
# packages, guest size, ODP caps, module parameters) and OUTDIR/logs/.
# bench/report.py turns that into the report, the summary CSV and the plot.
# --smoke: tiny sizes and one run of everything (seconds, for make check).
# Exit status 0 even when a measurement fails: failures are rows of the
# report; non-zero only when the bench itself cannot run.
set -uo pipefail
SMOKE=0
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	shift
fi
[ $# = 1 ] || { echo "usage: bench/guest.sh [--smoke] OUTDIR" >&2; exit 2; }
OUT=$1
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
RAW=$OUT/raw.csv
LOGS=$OUT/logs
META=$OUT/meta.txt
mkdir -p "$LOGS" || exit 2
: >"$RAW"
: >"$META"
export RXE_GID=${RXE_GID:-1}
HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters
PARAMS=/sys/module/rdma_rxe/parameters
CG=/sys/fs/cgroup/bench

# Sizes and repetitions.  The guest is emulated (TCG) on a shared 2-core host,
# so its speed swings by several times within seconds: every comparison is
# made of many short back-to-back pairs and reported as the median of the
# per-pair ratios, rather than of a few long runs.
PT_SIZES="4096 65536 1048576"
if [ "$SMOKE" = 1 ]; then
	PT_RUNS=1 PT_MODE=iters PT_BW_ITERS=20 PT_LAT_ITERS=50 PT_SIZES=4096
	STEADY_SIZE=1M STEADY_REPS=1 STEADY_CHUNKS="64K"
	REG_SIZES=4K,1M,16M REG_REPS=1 REG_BIG=1
	REG_FRESH_SIZES=4K,1M,1G,1T REG_FRESH_REPS=1 REG_PINNED_MAX=1M REG_TOUCH=4
	REG_MEM_SIZE=16M REG_MEM_REPS=1 REG_IMPL_REPS=1 REG_IMPL_SIZE=1M
	CHUNK_SHIFTS=16,21 CHUNK_N=8 CHUNK_SEQ=1M CHUNK_REPS=1
	PASS_SIZE=1M PASS_REPS=1 PASS_VARIANTS="write read"
	BATCH_SIZE=1M BATCH_REPS=1
	PF_SIZE=1M PF_REPS=1 PF_VARIANTS="write"
	INVAL_SIZE=2M INVAL_REPS=1 INVAL_VARIANTS="dontneed:on"
	PRESS_WS=16M PRESS_PCTS="50 25" PRESS_PAIRS=1 PRESS_PASSES=1 PRESS_CHUNK=64K ZRAM=64M
	AGING_SIZE=4 AGING_RUNS=1 AGING_ROUNDS=2 AGING_SWEEPS=2
	YOUNG_NS="0 1 10" YOUNG_LAYOUTS="outside inside+hot" YOUNG_DATA=16 YOUNG_REPS=1 YOUNG_INVAL=1
else
	PT_RUNS=${BENCH_PT_RUNS:-20} PT_MODE=duration PT_DUR=${BENCH_PT_DUR:-2}
	STEADY_SIZE=2M STEADY_REPS=${BENCH_STEADY_REPS:-20} STEADY_CHUNKS="4K 64K 1M"
	REG_SIZES=4K,64K,1M,16M,256M,1G,4G REG_REPS=${BENCH_REG_REPS:-20} REG_BIG=${BENCH_REG_BIG:-6}
	REG_FRESH_SIZES=4K,64K,1M,16M,256M,1G,16G,256G,1T REG_FRESH_REPS=${BENCH_REG_FRESH_REPS:-20}
	REG_PINNED_MAX=${BENCH_REG_PINNED_MAX:-1G} REG_TOUCH=4
	REG_MEM_SIZE=1G REG_MEM_REPS=${BENCH_REG_MEM_REPS:-6}
	REG_IMPL_REPS=${BENCH_REG_IMPL_REPS:-20} REG_IMPL_SIZE=2M
	CHUNK_SHIFTS=${BENCH_CHUNK_SHIFTS:-16,18,21,24,27} CHUNK_N=${BENCH_CHUNK_N:-256}
	CHUNK_SEQ=${BENCH_CHUNK_SEQ:-16M} CHUNK_REPS=${BENCH_CHUNK_REPS:-12}
	PASS_SIZE=2M PASS_REPS=${BENCH_PASS_REPS:-20}
	PASS_VARIANTS="write read write+local read+local write+fresh"
	BATCH_SIZE=2M BATCH_REPS=${BENCH_BATCH_REPS:-6}
	PF_SIZE=16M PF_REPS=${BENCH_PF_REPS:-8} PF_VARIANTS="write read write+fresh"
	INVAL_SIZE=8M INVAL_REPS=${BENCH_INVAL_REPS:-20}
	INVAL_VARIANTS="dontneed:on dontneed:off munmap:on munmap:off"
	PRESS_WS=${BENCH_PRESS_WS:-32M} PRESS_PCTS=${BENCH_PRESS_PCTS:-50 25} PRESS_PAIRS=${BENCH_PRESS_PAIRS:-6}
	PRESS_PASSES=1 PRESS_CHUNK=256K ZRAM=256M
	AGING_SIZE=16 AGING_RUNS=${BENCH_AGING_RUNS:-6} AGING_ROUNDS=5 AGING_SWEEPS=2
	YOUNG_NS=${BENCH_YOUNG_NS:-0 1 100 1000 10000} YOUNG_LAYOUTS="outside inside outside+hot inside+hot"
	YOUNG_DATA=128 YOUNG_REPS=${BENCH_YOUNG_REPS:-8} YOUNG_INVAL=3
fi
AGING_LRUS=${BENCH_AGING_LRUS:-mglru classic}
ACG=/sys/fs/cgroup/bench-aging
YCG=/sys/fs/cgroup/bench-young
PT_BW="ib_write_bw ib_read_bw ib_send_bw"
PT_LAT="ib_write_lat ib_read_lat"
PTS_SIZE=65536
[ "$SMOKE" = 1 ] && PTS_SIZE=4096
LAT_SIZE=8

log() { echo "bench: $*" | tee -a "$LOGS/bench.log" >&2; }
row() { # section case mode size tag run value unit
	local IFS=,
	echo "$*" >>"$RAW"
}
meta() { echo "$1=$2" >>"$META"; }

# Counter snapshot: rxe hw_counters (the ODP counters among them) and the
# vmstat lines that tell faults, swap and pinning apart.
snap() {
	sleep 0.05 # the core caches port hw_counters for 10 ms
	{
		# one process, not one per file: process start-up is slow in the guest
		grep -H . "$HWC"/* 2>/dev/null | sed 's|^.*/\([^/:]*\):|hw:\1 |'
		grep -E '^(pswpin|pswpout|pgfault|pgmajfault|nr_foll_pin_acquired|nr_foll_pin_released|thp_split_pmd|pgsteal_direct|pgsteal_kswapd) ' /proc/vmstat |
			sed 's/^/vm:/'
	} >"$1"
}
# Rows "SECTION,ctr:NAME,MODE,SIZE,TAG,RUN,DELTA,count" for every counter that moved
# (%.0f: mawk's %d stops at 2^31 - 1, which odp_fault_ns_total passes in 2 s).
delta_rows() { # section mode size tag run before after
	local sec=$1 mode=$2 size=$3 tag=$4 run=$5
	awk -v s="$sec" -v m="$mode" -v z="$size" -v t="$tag" -v r="$run" '
		NR == FNR { a[$1] = $2; next }
		($1 in a) && $2 != a[$1] { printf "%s,ctr:%s,%s,%s,%s,%s,%.0f,count\n", s, $1, m, z, t, r, $2 - a[$1] }
	' "$6" "$7" >>"$RAW"
}

# ---------------------------------------------------------------- meta
{
	meta kernel "$(uname -r) ($(uname -v))"
	meta module_version "$(cat /sys/module/rdma_rxe/version 2>/dev/null || echo stock)"
	meta module_file "${RXE_KO:-}"
	if [ -n "${RXE_KO:-}" ] && [ -f "$RXE_KO" ]; then
		meta module_srcversion "$(modinfo -F srcversion "$RXE_KO")"
		meta module_vermagic "$(modinfo -F vermagic "$RXE_KO")"
		meta module_parm "$(modinfo -F parm "$RXE_KO" | tr '\n' ';')"
	fi
	for p in "$PARAMS"/*; do
		[ -f "$p" ] && meta "param_$(basename "$p")" "$(cat "$p")"
	done
	for p in perftest rdma-core libibverbs1 ibverbs-providers qemu-system-x86 linux-perf \
		linux-image-"$(uname -r)"-unsigned; do
		meta "pkg_$p" "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo none)"
	done
	meta guest_mem_kib "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
	meta guest_cpus "$(nproc)"
	meta thp "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
	meta mglru "$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo n/a)"
	meta hw_counters "$(ls "$HWC" 2>/dev/null | tr '\n' ' ')"
	meta smoke "$SMOKE"
	meta date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
ODP=no
if caps=$(odp-bench caps 2>&1) && grep -q '^odp=yes' <<<"$caps"; then
	ODP=yes
fi
meta odp_caps "$(tr '\n' ' ' <<<"$caps")"
meta odp "$ODP"
log "ODP: $ODP ($(tr '\n' ' ' <<<"$caps"))"

# ---------------------------------------------------------------- perftest
# Every run goes through tests/lib/perftest.sh (-F, a port per run, the server
# listening before the client starts, timeouts, full logs on failure).
# shellcheck source=../tests/lib/perftest.sh
source "$TOP/tests/lib/perftest.sh"
# zram_swap
# shellcheck source=../tests/lib/swap.sh
source "$TOP/tests/lib/swap.sh"

# One perftest run of SECTION (a row of raw.csv): PROG at SIZE, MODE pinned,
# odp (--odp on both sides), odp-req (--odp on the client, the requester, only)
# or odp-resp (on the server, the responder, only), RUN = the pair or triple.
pt_one() { # section prog size mode run
	local sec=$1 prog=$2 size=$3 mode=$4 run=$5 kind=bw n lg v unit t args
	local cargs='' sargs=''
	case $prog in *_lat) kind=lat ;; esac
	if [ "$mode" != pinned ] && [ "$ODP" != yes ]; then
		row "$sec" "$prog" "$mode" "$size" - "$run" NaN unsupported
		return
	fi
	args=(-s "$size")
	[ "$kind" = bw ] && args+=(--report_gbits)
	if [ "$PT_MODE" = duration ]; then
		args+=(-D "$PT_DUR")
	else
		n=$PT_BW_ITERS
		[ "$kind" = lat ] && n=$PT_LAT_ITERS
		args+=(-n "$n")
	fi
	case $mode in
	odp) args+=(--odp) ;;
	odp-req) cargs=--odp ;;
	odp-resp) sargs=--odp ;;
	esac
	lg=$LOGS/$sec-$prog-$size-$mode-$run
	v='' unit=failed t=$EPOCHREALTIME
	if PT_LOG=$lg PT_QUIET=1 PT_CLIENT_ARGS=$cargs PT_SERVER_ARGS=$sargs perftest "$prog" "${args[@]}"; then
		if perftest_clock_ok "$lg-client.log"; then
			v=$(perftest_value "$lg-client.log" "$kind")
		else
			unit=no-clock
		fi
	fi
	echo "   $sec $prog $size $mode run $run: $(awk -v a="$t" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }') s" >>"$LOGS/bench.log"
	if [ -z "$v" ]; then
		log "$sec $prog $size $mode run $run: no figure ($unit, see $lg-*.log)"
		row "$sec" "$prog" "$mode" "$size" - "$run" NaN "$unit"
	elif [ "$kind" = bw ]; then
		row "$sec" "$prog" "$mode" "$size" - "$run" "$v" Gb/s
	else
		row "$sec" "$prog" "$mode" "$size" - "$run" "$v" us
	fi
}

# Pairs: for each case the pinned and the --odp run back to back, which goes
# first alternating from pair to pair (bench/report.py takes the ratio per
# pair, its median and the 95 % interval of the median).
# Atomics are not among them: perftest 4.5 refuses --odp for ib_atomic_bw and
# ib_atomic_lat ("ODP does not support ATOMICS for now") before it opens the
# device.
run_perftest() {
	local run prog size sizes mode order
	meta perftest_runs "$PT_RUNS"
	meta perftest_dur "${PT_DUR:-iters}"
	for run in $(seq "$PT_RUNS"); do
		for prog in $PT_BW $PT_LAT; do
			sizes=$PT_SIZES
			case $prog in *_lat) sizes=$LAT_SIZE ;; esac
			for size in $sizes; do
				# Alternate which mode goes first: neither gets the warmer slot.
				order="pinned odp"
				[ $((run % 2)) = 0 ] && order="odp pinned"
				for mode in $order; do
					pt_one perftest "$prog" "$size" "$mode" "$run"
				done
			done
		done
	done
}

# Issue 15 item 2, ODP on one side only: for each of PT_BW at PTS_SIZE,
# PT_RUNS triples of a pinned run, one with --odp on the client only (the
# requester: its WRITE source, READ sink, SEND source is ODP) and one with
# --odp on the server only (the responder: the WRITE target, READ source,
# RECV buffer is ODP), back to back, which goes first rotating from triple to
# triple (bench/report.py: per triple the ratio of each one-sided run to the
# pinned run, their medians and 95 % intervals).
run_ptsides() {
	local run prog mode order
	meta ptsides_runs "$PT_RUNS"
	meta ptsides_size "$PTS_SIZE"
	for run in $(seq "$PT_RUNS"); do
		case $((run % 3)) in
		1) order="pinned odp-req odp-resp" ;;
		2) order="odp-req odp-resp pinned" ;;
		0) order="odp-resp pinned odp-req" ;;
		esac
		for prog in $PT_BW; do
			for mode in $order; do
				pt_one ptsides "$prog" "$PTS_SIZE" "$mode" "$run"
			done
		done
	done
}

# ---------------------------------------------------------------- odp-bench
bench() { # logname odp-bench-args...
	local lg=$LOGS/$1.log t=$SECONDS
	shift
	echo "== odp-bench $*" >>"$lg"
	odp-bench "$@" >>"$RAW" 2>>"$lg"
	local rc=$?
	echo "   odp-bench $* : rc $rc, $((SECONDS - t)) s" >>"$LOGS/bench.log"
	[ "$rc" = 0 ] || log "odp-bench $* exited $rc (see $lg)"
	return "$rc"
}

# Steady state, pinned vs ODP MR in interleaved pairs: RDMA WRITE, READ and
# 8-byte ATOMIC FETCH_ADDs (one every CHUNK bytes, values checked) per chunk.
run_steady() {
	local c op
	meta steady_reps "$STEADY_REPS"
	for c in $STEADY_CHUNKS; do
		for op in write read atomic; do
			local args=(--size "$STEADY_SIZE" --reps "$STEADY_REPS" --chunk "$c")
			[ $op = write ] || args+=("--$op")
			bench steady steady "${args[@]}"
		done
	done
}

# Registration (issue 14): first registration alone, explicit and implicit
# ODP over a fresh never-touched MAP_NORESERVE mapping of each size, 4 KiB ..
# 1 TiB, interleaved, nothing else in a repetition (tag flat: the flatness
# goal's figures; in the run below, a size's pinned registration zeroing up
# to 1 GiB and its faulted huge pages come between the timed calls, and the
# implicit MR, whose registration never looks at the size, spread 2.3x over
# the sizes there).  Then never-touched memory again with more in each
# repetition: explicit ODP, implicit ODP and
# pinned up to REG_PINNED_MAX (a pinned registration faults every page in:
# it measures allocating, zeroing and pinning), sizes and modes
# interleaved; each ODP registration is followed by one whose REG_TOUCH
# pages were faulted in (sync prefetch), to time its deregistration.  Then
# resident memory, pinned vs ODP; the translation's kernel memory per GiB
# touched (odp-bench mem); implicit vs explicit ODP in steady state and on
# the cold pass (interleaved pairs).
run_reg() {
	local a=$OUT/.a b=$OUT/.b big=${REG_SIZES##*,} op
	meta reg_reps "$REG_REPS"
	meta reg_big_reps "$REG_BIG"
	meta reg_fresh_reps "$REG_FRESH_REPS"
	meta reg_pinned_max "$REG_PINNED_MAX"
	meta reg_touch "$REG_TOUCH"
	bench reg reg --fresh --mode odp,implicit --sizes "$REG_FRESH_SIZES" --reps "$REG_FRESH_REPS" --tag flat
	bench reg reg --fresh --mode all --sizes "$REG_FRESH_SIZES" --reps "$REG_FRESH_REPS" \
		--pinned-max "$REG_PINNED_MAX" --touch "$REG_TOUCH" --tag untouched
	if [ "${BENCH_REG_RESIDENT:-1}" = 0 ]; then
		meta reg_resident skipped
		run_reg_more
		return 0
	fi
	bench reg reg --sizes "${REG_SIZES%,*}" --reps "$REG_REPS" --big-reps "$REG_BIG"
	# The largest size: ODP, then pinned.  Debian's rxe keeps a pinned MR's
	# page list in one kmalloc'd array (16 bytes per 4 KiB page), so pinning
	# 4 GiB asks kmalloc for 16 MiB: the page allocator refuses with a
	# WARNING and registration fails with ENOMEM.  That is the measured
	# outcome; the guard lets exactly that warning through, nothing else.
	bench reg reg --mode odp --sizes "$big" --reps "$REG_BIG"
	if trouble_guard_begin; then
		bench reg reg --mode pinned --sizes "$big" --reps 1
		if trouble_guard_end "$LOGS/dmesg-reg-pinned-$big.log" rxe_page_list_warning; then
			grep -q 'returned err' "$LOGS/dmesg-reg-pinned-$big.log" &&
				row reg kernel-warning pinned "$(numfmt --from=iec "$big")" - 1 1 "page-list-kmalloc"
		else
			row reg kernel-trouble pinned "$(numfmt --from=iec "$big")" - 1 1 flag
		fi
	fi
	run_reg_more
}

# The rest of the reg step: the translation's memory, implicit vs explicit.
run_reg_more() {
	local op tag
	meta reg_mem_size "$REG_MEM_SIZE"
	bench reg mem --mode odp,implicit --size "$REG_MEM_SIZE" --reps "$REG_MEM_REPS"
	meta reg_impl_reps "$REG_IMPL_REPS"
	for op in write read; do
		local args=(--implicit --size "$REG_IMPL_SIZE" --reps "$REG_IMPL_REPS" --chunk 64K --tag implicit)
		[ $op = read ] && args+=(--read)
		bench reg steady "${args[@]}"
	done
	for tag in write write+fresh; do
		bench reg pass --implicit --size "$REG_IMPL_SIZE" --reps "$REG_IMPL_REPS" --chunk 1M \
			$(variant_args "$tag") --tag "implicit-$tag"
	done
}

# The chunk of an ODP child (issue 14, deliver 1): odp-bench chunk sets the
# testing parameter odp_child_shift (MRs registered from then on) to each of
# CHUNK_SHIFTS in turn, in rotating order, CHUNK_REPS times: the first-access
# cost of a chunk (one 4 KiB RDMA WRITE into each of CHUNK_N chunks, cold vs
# warm, odp_fault_ahead 0), the kernel memory of a child, the
# deregistration, and a cold/warm pass over CHUNK_SEQ.  Restores both
# parameters.
run_chunk() {
	if [ "$ODP" != yes ] || [ ! -w "$PARAMS/odp_child_shift" ]; then
		row chunk unsupported odp 0 - 0 NaN no-odp_child_shift-parameter
		log "no ODP or no writable $PARAMS/odp_child_shift: chunk step skipped"
		return 0
	fi
	meta chunk_shifts "$CHUNK_SHIFTS"
	meta chunk_n "$CHUNK_N"
	meta chunk_seq "$CHUNK_SEQ"
	meta chunk_reps "$CHUNK_REPS"
	meta chunk_default "$(cat "$PARAMS/odp_child_shift")"
	bench chunk chunk --shifts "$CHUNK_SHIFTS" --chunks "$CHUNK_N" --size "$CHUNK_SEQ" --chunk 1M \
		--reps "$CHUNK_REPS"
}

# The odp-bench pass options of a variant tag: read*, *+local, *+fresh.
variant_args() {
	case $1 in read*) echo --read ;; esac
	case $1 in *+local*) echo --local ;; esac
	case $1 in *+fresh*) echo --fresh ;; esac
}

run_pass() {
	local a=$OUT/.a b=$OUT/.b v
	meta pass_reps "$PASS_REPS"
	for tag in $PASS_VARIANTS; do
		local args=(--size "$PASS_SIZE" --reps "$PASS_REPS" --chunk 1M $(variant_args "$tag"))
		snap "$a"
		bench "pass-$tag" pass "${args[@]}" --tag "$tag"
		snap "$b"
		delta_rows pass both "$PASS_SIZE" "$tag" 0 "$a" "$b"
	done
}

# The ODP fault batch (module parameter odp_fault_ahead) sized by sweeping it over the
# cold pass.  BENCH_BATCH_PARAM names it, BENCH_BATCH_VALUES the values.
run_batch() {
	local p=${BENCH_BATCH_PARAM:-} vals=${BENCH_BATCH_VALUES:-} orig v a=$OUT/.a b=$OUT/.b
	if [ -z "$p" ]; then
		for v in "$PARAMS"/odp_fault_ahead "$PARAMS"/*batch*; do
			[ -f "$v" ] && p=$(basename "$v") && break
		done
	fi
	if [ -z "$p" ] || [ ! -w "$PARAMS/$p" ] || [ "$ODP" != yes ]; then
		row batch none odp 0 - 0 NaN "no-batch-parameter"
		log "no writable fault-batch parameter in $PARAMS: batch sweep skipped"
		return 0
	fi
	orig=$(cat "$PARAMS/$p")
	[ -n "$vals" ] || vals="0 8 32 128 1024"
	[ "$SMOKE" = 1 ] && vals="1 $orig"
	meta batch_param "$p"
	meta batch_default "$orig"
	for v in $vals; do
		if ! echo "$v" >"$PARAMS/$p" 2>/dev/null; then
			row batch rejected odp 0 "$p=$v" 0 NaN rejected
			continue
		fi
		for op in write read; do
			local args=(--size "$BATCH_SIZE" --reps "$BATCH_REPS" --chunk 1M --mode odp --tag "$p=$v")
			[ $op = read ] && args+=(--read)
			snap "$a"
			bench batch pass "${args[@]}"
			snap "$b"
			delta_rows batch odp "$BATCH_SIZE" "$p=$v/$op" 0 "$a" "$b"
		done
	done
	echo "$orig" >"$PARAMS/$p"
}

# Prefetch (issue 13): the cold pass over a fresh ODP MR after ibv_advise_mr
# sync (FLUSH), async and none, rotating which goes first, then the warm
# pass; odp-bench reads the MR's own counters (pages the cold pass faulted,
# pages prefetched).  Needs our module's advise_mr.
run_prefetch() {
	local tag a=$OUT/.a b=$OUT/.b
	if [ "$ODP" != yes ] || [ ! -e "$HWC/odp_pages_prefetched" ]; then
		row prefetch unsupported - 0 - 0 NaN no-advise_mr
		log "no ODP or no odp_pages_prefetched counter: prefetch step skipped"
		return 0
	fi
	meta prefetch_size "$PF_SIZE"
	meta prefetch_reps "$PF_REPS"
	for tag in $PF_VARIANTS; do
		local args=(--size "$PF_SIZE" --reps "$PF_REPS" --chunk 1M --prefetch none,sync,async
			$(variant_args "$tag"))
		snap "$a"
		bench "prefetch-$tag" pass "${args[@]}" --tag "$tag"
		snap "$b"
		delta_rows prefetch all "$PF_SIZE" "$tag" 0 "$a" "$b"
	done
}

run_inval() {
	local v
	meta inval_reps "$INVAL_REPS"
	for v in $INVAL_VARIANTS; do
		local args=(--size "$INVAL_SIZE" --reps "$INVAL_REPS" --thp "${v#*:}" --chunk 1M)
		[ "${v%%:*}" = munmap ] && args+=(--munmap)
		bench inval inval "${args[@]}"
	done
}

# ---------------------------------------------------------------- pressure
# The OOM killer's report on the console carries a call trace, which the VM
# harness rightly counts as kernel trouble.  Around a run where such a report
# is the expected outcome (an OOM kill, the page-list WARNING of a 4 GiB
# pinned MR), keep the console quiet, save the kernel log, fail on any
# trouble outside that report, and clear the ring buffer only when the
# expected report is all there is.
TROUBLE='(WARNING:|BUG:|Oops|kernel BUG|general protection fault|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|blocked for more than|Call Trace:|UBSAN:|KASAN:|refcount_t:|list_(add|del) corruption|soft lockup|hard LOCKUP|self-detected stall)'
trouble_guard_begin() {
	# a here-string: under pipefail, grep -q leaving at the first match
	# could kill dmesg with SIGPIPE and hide the very trouble it found
	if grep -Eq "$TROUBLE" <<<"$(dmesg)"; then
		log "kernel trouble in the log already: not hiding anything"
		return 1
	fi
	dmesg -n 1
}
# Kernel log blocks that are the expected outcome of a measurement.
oom_report() { # the OOM killer's report, from "invoked" to "Killed process"
	awk '
		/invoked oom-killer/ { inb = 1 }
		!inb { print }
		/(Memory cgroup out of memory|Out of memory): Killed process/ { inb = 0 }
	'
}
rxe_page_list_warning() { # a WARNING block whose trace is rxe's page-list kmalloc
	awk '
		/------------\[ cut here \]/ { inb = 1; blk = ""; next }
		inb { blk = blk $0 "\n" }
		inb && /---\[ end trace/ {
			inb = 0
			if (blk !~ /__alloc_mr_page_info/ || blk !~ /WARNING: .*page_alloc/)
				printf "%s", blk
			next
		}
		!inb { print }
	'
}
trouble_guard_end() { # logfile filter
	dmesg >"$1"
	dmesg -n 5
	local outside
	outside=$("$2" <"$1" | grep -E "$TROUBLE")
	if [ -n "$outside" ]; then
		log "kernel trouble outside the expected report (kept in the log): $outside"
		return 1
	fi
	dmesg -C
}

# zram swap of $ZRAM, once per boot (the pressure and aging steps share it).
setup_swap() {
	local dev z
	dev=$(zram_swap "$ZRAM") || return 1
	# the swap in use, which may not be the one this call would have made
	z=$(zramctl --noheadings --output NAME,DISKSIZE,ALGORITHM |
		awk -v d=" $dev " 'index(d, " " $1 " ") { print $1, $2, $3 }' | paste -sd ';')
	meta zram "${z:-$dev}"
}
setup_cgroup() { # dir: a memory cgroup
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$1"
}
setup_pressure() { setup_swap && setup_cgroup "$CG"; }

# One pressure run in the cgroup: mode, memory.max (bytes, or max), tag, run
# (+ runner prefix).  odp-bench numbers its rows by pass; here every row of the
# run gets RUN (a pass's rows add up in the report).
press_one() { # mode max tag run [runner...]
	local mode=$1 max=$2 tag=$3 run=$4 a=$OUT/.a b=$OUT/.b rc t0 t1
	shift 4
	echo "$max" >"$CG/memory.max" || return 1
	echo max >"$CG/memory.swap.max" 2>/dev/null
	cp "$CG/memory.events" "$OUT/.ev0"
	snap "$a"
	t0=$EPOCHREALTIME
	(
		echo "$BASHPID" >"$CG/cgroup.procs" || exit 126
		exec "$@" odp-bench pressure --mode "$mode" --size "$PRESS_WS" \
			--chunk "$PRESS_CHUNK" --passes "$PRESS_PASSES" --tag "$tag"
	) 2>>"$LOGS/pressure-$tag.log" | awk -F, -v OFS=, -v r="$run" '{ $6 = r; print }' >>"$RAW"
	rc=${PIPESTATUS[0]}
	t1=$EPOCHREALTIME
	snap "$b"
	delta_rows pressure "$mode" "$PRESS_WS" "$tag" "$run" "$a" "$b"
	row pressure exit "$mode" "$PRESS_WS" "$tag" "$run" "$rc" status
	row pressure wall "$mode" "$PRESS_WS" "$tag" "$run" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1e6 }')" us
	row pressure memory.max "$mode" "$PRESS_WS" "$tag" "$run" "$([ "$max" = max ] && echo 0 || echo "$max")" bytes
	awk -v m="$mode" -v z="$PRESS_WS" -v t="$tag" -v r="$run" '
		NR == FNR { a[$1] = $2; next }
		{ printf "pressure,memcg:%s,%s,%s,%s,%s,%.0f,count\n", $1, m, z, t, r, $2 - a[$1] }
	' "$OUT/.ev0" "$CG/memory.events" >>"$RAW"
	log "pressure $mode $tag run $run: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
}

# Issue 15 item 5: for each limit of PRESS_PCTS (memory.max = PCT % of the
# working set PRESS_WS), PRESS_PAIRS pairs of ODP runs, one under the limit
# (tag limit-PCT) and one without (tag nolimit-PCT), back to back, which goes
# first alternating from pair to pair (row "order" = 1 for the one that ran
# first; run = the pair): the report takes the throughput ratio limited /
# unlimited per pair, its median and 95 % interval, and the swap-ins/outs of
# every run (pswpin/pswpout deltas).  Pinned runs once per limit and shows
# what happens to it: as root the registration pins (swaps in and charges)
# the whole working set and the memcg OOM killer ends it (tag limit-PCT);
# an ordinary user whose RLIMIT_MEMLOCK is the limit is refused (tag
# limit-memlock-PCT).  One pinned run without a limit (tag nolimit) first,
# for its throughput.
run_pressure() {
	if ! setup_pressure; then
		row pressure setup-failed - 0 - 0 NaN error
		return 0
	fi
	local ws pct maxb run first
	ws=$(numfmt --from=iec "$PRESS_WS")
	meta press_passes "$PRESS_PASSES"
	meta press_ws "$PRESS_WS"
	meta press_pcts "$PRESS_PCTS"
	meta press_pairs "$PRESS_PAIRS"
	press_one pinned max nolimit 0
	for pct in $PRESS_PCTS; do
		maxb=$((ws * pct / 100 / 4096 * 4096))
		if trouble_guard_begin; then
			press_one pinned "$maxb" "limit-$pct" 0
			press_one pinned "$maxb" "limit-memlock-$pct" 0 prlimit --memlock="$maxb" \
				setpriv --reuid=65534 --regid=65534 --clear-groups
			trouble_guard_end "$LOGS/dmesg-pressure-pinned-$pct.log" oom_report ||
				row pressure kernel-trouble pinned 0 "limit-$pct" 0 1 flag
		fi
		if [ "$ODP" != yes ]; then
			row pressure exit odp "$PRESS_WS" "limit-$pct" 0 NaN unsupported
			continue
		fi
		for run in $(seq "$PRESS_PAIRS"); do
			first=limit
			[ $((run % 2)) = 0 ] && first=nolimit
			row pressure order odp "$PRESS_WS" "$first-$pct" "$run" 1 index
			if [ $first = limit ]; then
				press_one odp "$maxb" "limit-$pct" "$run"
				press_one odp max "nolimit-$pct" "$run"
			else
				press_one odp max "nolimit-$pct" "$run"
				press_one odp "$maxb" "limit-$pct" "$run"
			fi
		done
	done
}

# ---------------------------------------------------------------- aging
# Issue 6's bench case: does rxe answering the young callbacks (odp_aging)
# keep a buffer that only RDMA uses resident under reclaim?  aging-probe
# registers two ODP buffers of AGING_SIZE MiB, writes A without pause by RDMA
# and leaves B idle, in the memory cgroup $ACG, and applies memory.reclaim
# rounds (zram swap), once with odp_aging off and once on, fresh buffers
# each.  Repeated AGING_RUNS times on MGLRU and on the classic LRU (lru_gen
# switched off at runtime: reclaim then asks through the rmap walk's
# clear_flush_young instead of MGLRU's clear_young), alternating which mode
# goes first.  rdma_mib_s, the RDMA throughput into A over the counted
# rounds, is issue 15's "aging as throughput" (report: on/off >= 1.5).
# Rows: every number of the probe's JSON per mode, tag = LRU,
# run = repetition; case "order" = 1 for the mode that ran first; cfg:KEY =
# the probe's settings (mode "both").
LRU_GEN=/sys/kernel/mm/lru_gen/enabled
set_lru() { # mglru|classic
	[ -w "$LRU_GEN" ] || return 1
	case $1 in
	mglru) echo y >"$LRU_GEN" && [ "$(cat "$LRU_GEN")" != 0x0000 ] ;;
	classic) echo n >"$LRU_GEN" && [ "$(cat "$LRU_GEN")" = 0x0000 ] ;;
	*) return 1 ;;
	esac
}

# The probe's JSON as raw.csv rows.
aging_rows() { # json lru run
	python3 -c '
import json, sys
path, lru, run = sys.argv[1:4]
d = json.load(open(path))
size = d["a_pages"] * 4096
num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
for k, v in d.items():
    if num(v):
        print("aging,cfg:%s,both,%d,%s,%s,%s,count" % (k, size, lru, run, v))
for pos, m in enumerate(d["modes"]):
    mode = m["aging"]
    print("aging,order,%s,%d,%s,%s,%d,index" % (mode, size, lru, run, pos + 1))
    for k, v in m.items():
        if num(v):
            unit = ("pct" if k.endswith("_pct") else "MiB" if k.endswith("_mib") else
                    "MiB/s" if k.endswith("_mib_s") else "count")
            print("aging,%s,%s,%d,%s,%s,%s,%s" % (k, mode, size, lru, run, v, unit))
' "$@"
}

aging_one() { # lru run modes
	local lru=$1 run=$2 modes=$3 js=$LOGS/aging-$1-$2.json rc t=$SECONDS rows secs
	# --qp-timeout 18 (ACK timeout ~1 s) as in tests/lib/odp-aging.sh: under
	# TCG a swap-in fault can stall the responder past perftest's 67 ms.
	timeout 1200 aging-probe --json --cgroup "$ACG" --size "$AGING_SIZE" --rounds "$AGING_ROUNDS" \
		--sweeps "$AGING_SWEEPS" --modes "$modes" --qp-timeout 18 >"$js" 2>"$LOGS/aging-$lru-$run.log"
	rc=$? secs=$((SECONDS - t))
	row aging exit both "$((AGING_SIZE << 20))" "$lru" "$run" "$rc" status
	row aging wall both "$((AGING_SIZE << 20))" "$lru" "$run" "$secs" s
	if [ "$rc" != 0 ] || ! rows=$(aging_rows "$js" "$lru" "$run"); then
		log "aging-probe $lru run $run ($modes) failed: rc $rc (see $LOGS/aging-$lru-$run.log)"
		return 0
	fi
	echo "$rows" >>"$RAW"
	log "aging $lru run $run ($modes): $secs s; pages of A faulted back:" \
		"$(awk -F, '$2 == "a_pages_faulted" { printf " %s %s", $3, $7 }' <<<"$rows")"
}

# aging_ready SECTION CGROUP: ODP with a writable odp_aging, zram swap and the
# memory cgroup CGROUP; otherwise a row of SECTION says why not, and it fails.
aging_ready() {
	if [ "$ODP" != yes ] || [ ! -w "$PARAMS/odp_aging" ]; then
		row "$1" unsupported - 0 - 0 NaN no-odp_aging-parameter
		log "no ODP or no writable $PARAMS/odp_aging: $1 step skipped"
		return 1
	fi
	if ! setup_swap || ! setup_cgroup "$2"; then
		row "$1" setup-failed - 0 - 0 NaN error
		return 1
	fi
}

run_aging() {
	local param=$PARAMS/odp_aging orig_aging orig_lru run lru modes
	aging_ready aging "$ACG" || return 0
	orig_aging=$(cat "$param")
	orig_lru=$(cat "$LRU_GEN" 2>/dev/null)
	meta aging_size_mib "$AGING_SIZE"
	meta aging_runs "$AGING_RUNS"
	meta aging_rounds "$AGING_ROUNDS"
	meta aging_sweeps "$AGING_SWEEPS"
	meta aging_lrus "$AGING_LRUS"
	for run in $(seq "$AGING_RUNS"); do
		modes=off,on
		[ $((run % 2)) = 0 ] && modes=on,off
		for lru in $AGING_LRUS; do
			if ! set_lru "$lru"; then
				row aging lru-unavailable - "$((AGING_SIZE << 20))" "$lru" "$run" NaN error
				log "cannot switch to the $lru LRU ($LRU_GEN: $(cat "$LRU_GEN" 2>&1))"
				continue
			fi
			aging_one "$lru" "$run" "$modes"
		done
	done
	echo "$orig_aging" >"$param"
	[ -n "$orig_lru" ] && echo "$orig_lru" >"$LRU_GEN"
}

# ---------------------------------------------------------------- agingpt
# Issue 15 item 4, second half: aging as throughput for a perftest server
# with --odp under pressure.  In the memory cgroup $PTA_CG: an ib_write_bw
# server with --odp (PTA_QPS QPs of PTA_SIZE-byte messages: with messages
# above half of perftest's page-sized cycle buffer every WRITE of a QP lands
# at the same address, so the RDMA-hot part of the server's buffer is
# PTA_QPS x PTA_SIZE, and the client's first touch faults exactly that; the
# first pair logs the server's VmRSS/VmSwap after each reclaim round),
# started first, then PTA_IDLE MiB of idle memory B (a process
# that writes it once and sleeps; so B is younger than the server's buffer
# on the LRU).  The client (outside the cgroup, pinned, loopback rxe0) runs
# for PTA_DUR s; once its WRITEs reach the server's buffer,
# memory.reclaim asks the cgroup for PTA_RECLAIM MiB, PTA_EVERY s apart, at
# most PTA_ROUNDS rounds (3/4 of B: pressure that the idle memory alone can
# satisfy) or until the client ends.  odp_aging off and on in PTA_PAIRS
# interleaved pairs, the order flipping every pair, each run with a fresh
# server and a fresh B.  Rows: section agingpt, mode off|on, size = the hot
# bytes, run = pair: bw (Gb/s, the client's), order (1 = first in its
# pair), reclaim-rounds, reclaim-begun and reclaim-short (memory.reclaim
# rounds completed, begun, and those that could not reclaim it all), reclaim-start, reclaim-end and
# client (s from the client's start), the counters that moved
# (ctr:hw:odp_pages_faulted, ctr:vm:pswpin, ...), exit (0, or why not).
# Transparent huge pages are set to PTA_THP during the step (restored after):
# "never" by default, so that the server's buffer is in 4 KiB pages, one
# LRU entry each, as aging-probe's are.
# Settings: BENCH_AGINGPT_PAIRS (6), BENCH_AGINGPT_DUR (10), _SIZE (1048576),
# _QPS (8), _IDLE (32, MiB), _RECLAIM (4, MiB), _EVERY (0.2), _THP (never).
PTA_CG=/sys/fs/cgroup/bench-agingpt
if [ "$SMOKE" = 1 ]; then
	PTA_PAIRS=1 PTA_DUR=4 PTA_SIZE=65536 PTA_QPS=2 PTA_IDLE=8 PTA_RECLAIM=1 PTA_EVERY=0.3
else
	PTA_PAIRS=${BENCH_AGINGPT_PAIRS:-6} PTA_DUR=${BENCH_AGINGPT_DUR:-10}
	PTA_SIZE=${BENCH_AGINGPT_SIZE:-1048576} PTA_QPS=${BENCH_AGINGPT_QPS:-8}
	PTA_IDLE=${BENCH_AGINGPT_IDLE:-32} PTA_RECLAIM=${BENCH_AGINGPT_RECLAIM:-4}
	PTA_EVERY=${BENCH_AGINGPT_EVERY:-0.2}
fi
PTA_THP=${BENCH_AGINGPT_THP:-never}
THP_EN=/sys/kernel/mm/transparent_hugepage/enabled
PTA_ROUNDS=$((PTA_IDLE * 3 / 4 / PTA_RECLAIM))
[ "$PTA_ROUNDS" -ge 1 ] || PTA_ROUNDS=1

# The reclaim rounds, into FILE as "done short start end begun" (done:
# rounds completed, begun: started, the last of them maybe cut short by the
# client's end; start, end: seconds from the client's start to the first
# round and to the end of the last), from the moment the client's WRITEs reach the
# server's buffer (odp_pages_faulted has grown since FROM; under TCG the
# whole hot region is faulted in only seconds later).  MEMFILE (if not
# empty): the server's VmRSS and VmSwap after each round.
# The server's pid is looked up before the wait and the counter read without
# a fork: under load a pgrep or a cat can take a second of a short run.
pta_pressure() { # file memfile from
	local i short=0 spid t0=$SECONDS w n
	spid=$(pgrep -P "$PT_SPID" | head -1)
	for ((i = 0; i < 1200; i++)); do
		read -r n <"$HWC/odp_pages_faulted" && [ "$n" -gt "$3" ] && break
		sleep 0.05
	done
	w=$((SECONDS - t0))
	for ((i = 1; i <= PTA_ROUNDS; i++)); do
		echo "$((i - 1)) $short $w NaN $i" >"$1"
		echo "$((PTA_RECLAIM << 20))" >"$PTA_CG/memory.reclaim" 2>/dev/null || short=$((short + 1))
		echo "$i $short $w $((SECONDS - t0)) $i" >"$1"
		[ -n "$2" ] && echo "round $i: $(grep -E '^Vm(RSS|Swap)' "/proc/$spid/status" | tr -s '\t\n ' ' ')" >>"$2"
		sleep "$PTA_EVERY"
	done
}
pta_ctr() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$2"; } # name snapfile

# One run: odp_aging MODE (off|on), pair RUN, position POS in the pair.
pta_one() { # mode run pos
	local mode=$1 run=$2 pos=$3 hot=$((PTA_QPS * PTA_SIZE)) lg=$LOGS/agingpt-$1-$2
	local a=$OUT/.a b=$OUT/.b rdy=$OUT/.pta-ready prs=$OUT/.pta-rounds
	local bpid ppid crc src i nr=0 ns=0 nb=0 rs='' re='' v='' unit=Gb/s yn=N mrf='' t=$SECONDS t1 t2
	local args=(-s "$PTA_SIZE" -q "$PTA_QPS" -D "$PTA_DUR" -u 18 --report_gbits)
	row agingpt order "$mode" "$hot" - "$run" "$pos" index
	[ "$mode" = on ] && yn=Y
	[ "$run" = 1 ] && mrf=$lg-server-mem.txt
	if ! echo "$yn" >"$PARAMS/odp_aging"; then
		row agingpt exit "$mode" "$hot" - "$run" NaN no-switch
		return
	fi
	rm -f "$rdy" "$prs"
	perftest_next_port
	# the server in the cgroup: this shell joins it to start the server, and
	# leaves (the client runs outside)
	if ! echo $$ >"$PTA_CG/cgroup.procs"; then
		row agingpt exit "$mode" "$hot" - "$run" NaN no-cgroup
		return
	fi
	perftest_server "$PT_PORT" "$lg-server.log" ib_write_bw --odp "${args[@]}"
	src=$?
	echo $$ >/sys/fs/cgroup/cgroup.procs
	if [ "$src" != 0 ]; then
		log "agingpt $mode run $run: the server did not start (see $lg-server.log)"
		row agingpt exit "$mode" "$hot" - "$run" NaN no-server
		return
	fi
	# idle memory B, after the server: written once, then asleep
	(
		echo "$BASHPID" >"$PTA_CG/cgroup.procs" || exit 126
		exec python3 -c '
import sys, time
b = bytearray(b"\x5a") * (int(sys.argv[1]) << 20)
open(sys.argv[2], "w").close()
time.sleep(3600)
' "$PTA_IDLE" "$rdy"
	) &
	bpid=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$rdy" ] && break
		kill -0 "$bpid" 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$rdy" ] || log "agingpt $mode run $run: the idle memory B is not ready"
	snap "$a"
	t1=$SECONDS
	pta_pressure "$prs" "$mrf" "$(pta_ctr hw:odp_pages_faulted "$a")" &
	ppid=$!
	perftest_client "$PT_PORT" "$lg-client.log" 127.0.0.1 ib_write_bw "${args[@]}"
	crc=$?
	t2=$SECONDS
	kill "$ppid" 2>/dev/null
	wait "$ppid" 2>/dev/null
	snap "$b"
	if [ "$crc" = 0 ]; then server_end; else server_end 10; fi
	src=$?
	kill "$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	delta_rows agingpt "$mode" "$hot" - "$run" "$a" "$b"
	[ -s "$prs" ] && read -r nr ns rs re nb <"$prs"
	row agingpt reclaim-rounds "$mode" "$hot" - "$run" "$nr" count
	row agingpt reclaim-begun "$mode" "$hot" - "$run" "$nb" count
	row agingpt reclaim-short "$mode" "$hot" - "$run" "$ns" count
	row agingpt reclaim-start "$mode" "$hot" - "$run" "${rs:-NaN}" s
	row agingpt reclaim-end "$mode" "$hot" - "$run" "${re:-NaN}" s
	row agingpt client "$mode" "$hot" - "$run" "$((t2 - t1))" s
	row agingpt exit "$mode" "$hot" - "$run" "$((crc ? crc : src))" status
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		unit=failed
	elif perftest_clock_ok "$lg-client.log"; then
		v=$(perftest_value "$lg-client.log" bw)
	else
		unit=no-clock
	fi
	row agingpt bw "$mode" "$hot" - "$run" "${v:-NaN}" "$unit"
	log "agingpt $mode run $run: ${v:-no figure ($unit)} Gb/s, $nr reclaim rounds done of $nb begun ($ns short, s $rs-$re)," \
		"pages faulted $(($(pta_ctr hw:odp_pages_faulted "$b") - $(pta_ctr hw:odp_pages_faulted "$a")))," \
		"pswpin $(($(pta_ctr vm:pswpin "$b") - $(pta_ctr vm:pswpin "$a"))), $((SECONDS - t)) s" \
		"(server and B $((t1 - t)) s, client $((t2 - t1)) s)"
}

run_agingpt() {
	local run orig orig_thp
	aging_ready agingpt "$PTA_CG" || return 0
	orig=$(cat "$PARAMS/odp_aging")
	orig_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP_EN")
	echo "$PTA_THP" >"$THP_EN" || log "agingpt: cannot set THP to $PTA_THP"
	meta agingpt_thp "$(cat "$THP_EN")"
	meta agingpt_pairs "$PTA_PAIRS"
	meta agingpt_dur "$PTA_DUR"
	meta agingpt_size "$PTA_SIZE"
	meta agingpt_qps "$PTA_QPS"
	meta agingpt_idle_mib "$PTA_IDLE"
	meta agingpt_reclaim_mib "$PTA_RECLAIM"
	meta agingpt_every "$PTA_EVERY"
	meta agingpt_rounds "$PTA_ROUNDS"
	meta agingpt_lru "$(cat "$LRU_GEN" 2>/dev/null || echo n/a)"
	for run in $(seq "$PTA_PAIRS"); do
		if [ $((run % 2)) = 1 ]; then
			pta_one off "$run" 1
			pta_one on "$run" 2
		else
			pta_one on "$run" 1
			pta_one off "$run" 2
		fi
	done
	echo "$orig" >"$PARAMS/odp_aging"
	echo "$orig_thp" >"$THP_EN"
	rm -f "$OUT/.pta-ready" "$OUT/.pta-rounds"
}

# ---------------------------------------------------------------- young
# Issue 17: what answering reclaim's young callbacks costs as the number of
# ODP MRs grows.  young-scale, one process per N and layout in the memory
# cgroup $YCG (zram swap): N ODP MRs, YOUNG_DATA MiB of data touched before
# each memory.reclaim of half of it, odp_aging off and on alternating (the
# order flips every repetition), YOUNG_REPS times; then YOUNG_INVAL
# repetitions of the invalidation costs.  Layouts: outside = one-page MRs
# spread through the data, never touched (reclaim takes memory outside every
# MR, at addresses among them); inside = the MRs tile the data; +hot = one
# page of MR 0 in RDMA use throughout, so the callbacks cannot take the
# "nothing used" shortcut.  N = 0 is the process without any ODP MR.  Rows:
# young-scale's (section young, size = N, tag = layout), plus young,exit.
run_young() {
	local n tag lay hot rc t
	aging_ready young "$YCG" || return 0
	meta young_data_mib "$YOUNG_DATA"
	meta young_reps "$YOUNG_REPS"
	meta young_inval_reps "$YOUNG_INVAL"
	for n in $YOUNG_NS; do
		for tag in $YOUNG_LAYOUTS; do
			lay=${tag%+hot} hot=
			[ "$tag" != "$lay" ] && hot=--hot
			# no MR: nothing to tile, nothing to keep hot
			[ "$n" = 0 ] && [ "$tag" != outside ] && continue
			t=$SECONDS
			timeout 1800 young-scale --cgroup "$YCG" --mrs "$n" --layout "$lay" $hot \
				--data "$YOUNG_DATA" --reps "$YOUNG_REPS" --inval-reps "$YOUNG_INVAL" \
				>>"$RAW" 2>>"$LOGS/young.log"
			rc=$?
			row young exit both "$n" "$tag" 0 "$rc" status
			log "young N=$n $tag: exit $rc, $((SECONDS - t)) s"
		done
	done
}

# ---------------------------------------------------------------- faultcost
# Issue 15, deliver 3: rxe's ODP fault service per page against the kernel's
# own fault-in of the same pages, in this boot.  fault-cost (userspace/
# fault-cost) registers a FC_SIZE region (THP off) as an ODP MR and, in
# FC_PAIRS interleaved pairs, faults it in once by MADV_POPULATE_WRITE
# (timed around the call) and once by RDMA WRITEs into it (the driver's
# own time: device counters odp_fault_ns_total / odp_pages_faulted, which
# the fault path fills), after MADV_DONTNEED (zero-fill) and after
# MADV_PAGEOUT to zram (swap-in), for each odp_fault_ahead of FC_AHEAD (set
# at run time; every value gets its pair in each round).  Rows: section
# faultcost, case zero|swap, tag ahead=N (fault-cost --help).  Settings:
# BENCH_FC_SIZE (64M), BENCH_FC_PAIRS (20), BENCH_FC_AHEAD (1,8,32,128).
FC_SIZE=${BENCH_FC_SIZE:-64M} FC_PAIRS=${BENCH_FC_PAIRS:-20} FC_AHEAD=${BENCH_FC_AHEAD:-1,8,32,128}
[ "$SMOKE" = 1 ] && FC_SIZE=2M FC_PAIRS=1 FC_AHEAD=1,32
run_faultcost() {
	local kinds=zero,swap rc t=$SECONDS
	if [ "$ODP" != yes ] || [ ! -e "$HWC/odp_fault_ns_total" ] || [ ! -w "$PARAMS/odp_fault_ahead" ]; then
		row faultcost unsupported - 0 - 0 NaN no-fault-histogram
		log "no ODP, no odp_fault_ns_total counter or no writable odp_fault_ahead: faultcost step skipped"
		return 0
	fi
	if ! setup_swap; then
		kinds=zero
		row faultcost swap-unavailable - 0 - 0 NaN error
		log "no zram swap: faultcost measures the zero-fill case only"
	fi
	meta faultcost_size "$FC_SIZE"
	meta faultcost_pairs "$FC_PAIRS"
	meta faultcost_ahead "$FC_AHEAD"
	meta faultcost_ahead_default "$(cat "$PARAMS/odp_fault_ahead")"
	timeout 3600 fault-cost --size "$FC_SIZE" --pairs "$FC_PAIRS" --ahead "$FC_AHEAD" --kinds "$kinds" \
		>>"$RAW" 2>>"$LOGS/faultcost.log"
	rc=$?
	row faultcost exit both 0 - 0 "$rc" status
	log "faultcost: exit $rc, $((SECONDS - t)) s"
}

# ---------------------------------------------------------------- main
# What a step is expected to take, in seconds, under TCG on an idle 2-core
# host: per-unit costs (a perftest run, a pair of passes, an aging run, ...)
# times this run's repetitions.  The costs are those of the whole bench of
# 2026-12-06 on an idle host (bench/results/2026-12-06-e314b38.md, 77 min;
# the meta's secs_<step>), which the estimate before them put at 137 min.  The
# progress line scales the sum of the steps left by the pace so far (time
# taken / expected time of the finished steps), so a slower host only
# needs the costs right relative to each other.
nw() { NW=$#; } # NW = the number of words of its arguments (no fork: TCG forks are slow)
expect_secs() { # STEP: EXP = its expected seconds
	local nb
	# shellcheck disable=SC2086
	case $1 in
	perftest)
		nw $PT_BW; nb=$NW; nw $PT_SIZES; nb=$((nb * NW)); nw $PT_LAT
		EXP=$((PT_RUNS * (nb + NW) * 2 * (${PT_DUR:-1} + 2))) ;;
	ptsides) nw $PT_BW; EXP=$((PT_RUNS * NW * 3 * (${PT_DUR:-1} + 2))) ;;
	steady) nw $STEADY_CHUNKS; EXP=$((NW * 3 * STEADY_REPS / 14 + 1)) ;;
	reg) EXP=$((5 + REG_REPS * 6 / 10 + REG_BIG * 5 + REG_FRESH_REPS * 4 + REG_MEM_REPS * 3 + REG_IMPL_REPS * 2)) ;;
	chunk) nw ${CHUNK_SHIFTS//,/ }; EXP=$((CHUNK_REPS * NW * 2 + 10)) ;;
	pass) nw $PASS_VARIANTS; EXP=$((NW * PASS_REPS / 6 + 2)) ;;
	batch) EXP=$((5 * 2 * BATCH_REPS / 4 + 1)) ;;
	faultcost) nw ${FC_AHEAD//,/ }; EXP=$((FC_PAIRS * NW * 3 + 30)) ;;
	prefetch) nw $PF_VARIANTS; EXP=$((NW * 3 * PF_REPS * 3 / 4 + 6)) ;;
	inval) nw $INVAL_VARIANTS; EXP=$((NW * INVAL_REPS / 6 + 1)) ;;
	pressure)
		# a pinned run without a limit, two pinned runs per limit, and per
		# pair an unlimited ODP run (~WS/24 s for WS in MiB) and one under
		# the limit, slower the lower it is (~WS * 7 / PCT s)
		local ws=${PRESS_WS%[MG]} pct
		[ "${PRESS_WS: -1}" = G ] && ws=$((ws << 10))
		EXP=10
		for pct in $PRESS_PCTS; do
			EXP=$((EXP + 4 + PRESS_PAIRS * (ws * 7 / pct + ws / 24 + 2)))
		done ;;
	aging) nw $AGING_LRUS; EXP=$((NW * AGING_RUNS * 7 + 4)) ;;
	agingpt) EXP=$((PTA_PAIRS * 2 * (PTA_DUR + 8))) ;;
	young) EXP=$((YOUNG_REPS * 40 + 23)) ;;
	*) EXP=60 ;;
	esac
}
T0=$(date +%s)
mmss() { printf "%dm%02ds" $(($1 / 60)) $(($1 % 60)); }
STEP_I=0 DONE_EXP=0
step() {
	local t=$(date +%s) left=${BENCH_AFTER_SECS:-0} s el
	el=$((t - T0))
	STEP_I=$((STEP_I + 1))
	for s in $STEPS_LEFT; do
		expect_secs "$s"
		left=$((left + EXP))
	done
	# the pace of the finished steps: elapsed / expected
	[ "$DONE_EXP" -gt 0 ] && left=$((left * el / DONE_EXP))
	log "step $STEP_I of $STEP_TOTAL: $1, elapsed $(mmss "$el"), about $(mmss "$left") left"
	read -r _ STEPS_LEFT <<<"$STEPS_LEFT"
	"run_$1"
	meta "secs_$1" $(($(date +%s) - t))
	expect_secs "$1"
	DONE_EXP=$((DONE_EXP + EXP))
}
STEPS=${BENCH_STEPS:-perftest ptsides steady reg chunk pass batch faultcost prefetch inval pressure aging agingpt young}
# shellcheck disable=SC2086
nw $STEPS
STEPS_LEFT=$STEPS STEP_TOTAL=${BENCH_STEP_TOTAL:-$NW}
meta steps "$STEPS"
exp=${BENCH_AFTER_SECS:-0}
for s in $STEPS; do
	expect_secs "$s"
	exp=$((exp + EXP))
done
meta secs_expected "$exp"
after=
[ "${BENCH_AFTER_SECS:-0}" -gt 0 ] && after=", then the two-guest step"
log "$STEP_TOTAL steps ($STEPS$after), expected about $(mmss "$exp") on an idle host"
for s in $STEPS; do
	step "$s"
done
meta secs_total $(($(date +%s) - T0))
rm -f "$OUT/.a" "$OUT/.b" "$OUT/.ev0"
log "done in $(($(date +%s) - T0))s: $(wc -l <"$RAW") rows in $RAW"
