#!/bin/bash
# make fuzz: run the project's fuzzers against our rdma_rxe in QEMU guests,
# for minutes to hours; keep every finding as a replayable corpus entry.
# scripts/fuzz.sh --help explains it all.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	cat <<'EOF'
usage: scripts/fuzz.sh [options]          (make fuzz [FUZZ_TIME=SEC] does the same)
       scripts/fuzz.sh --replay FILE      run one corpus entry again, in a guest

Fuzzes our rdma_rxe (build/rxe/rdma_rxe.ko, built by `make`) with every
fuzzer of the project, each in a fresh QEMU guest (tests/vm/run) per chunk:

  verbs-fuzz  random work requests through libibverbs (and written straight
              into the send ring) on ODP and pinned MRs, while other threads
              unmap, mprotect, madvise, fork, deregister and destroy QPs;
              userspace/verbs-fuzz, `build/bin/verbs-fuzz --help`
  roce-fuzz   crafted RoCEv2 packets from a raw socket to rxe0's UDP port
              4791, aimed at live QPs and MRs; userspace/roce-fuzz,
              `build/bin/roce-fuzz --help`

The fuzzers take turns, one chunk each, each chunk with the next seed, until
the total time is spent. Progress lines of the running fuzzer are shown as
they come (every 60 s of fuzzing), and a summary after every chunk.

A finding is: a fuzzer's own verdict (a wrong completion status, a byte
changed outside an MR, a canary hit, a lost completion, a kernel report in
dmesg), or a guest that died, hung or showed kernel trouble on its console.
Each finding is kept in the corpus as a small text file:
  reproducer: <the fuzzer's command line that replays it, in a guest>
  finding: <what went wrong>
  console: <the guest's console log, for a crash>
Replay one with `scripts/fuzz.sh --replay FILE`. The corpus is never
cleaned by this script: delete entries once their bug is fixed and has a
regression case (verbs-fuzz --regress, roce-fuzz --regress).

options (environment variable in brackets, for make fuzz):
  --time SEC     total fuzzing time over all fuzzers [FUZZ_TIME] (default 600;
                 e.g. 3600 for an hour). Wall time is ~1.2x plus ~15 s per chunk.
  --chunk SEC    fuzzing per guest boot [FUZZ_CHUNK] (default 300): a crash
                 costs at most one chunk, and every chunk starts from a clean boot
  --only NAMES   only these fuzzers, space or comma separated [FUZZ_ONLY]
  --seed N       first seed [FUZZ_SEED] (default random); then N+1, N+2, ...
  --vm-args ARGS more tests/vm/run options, e.g. "--kernel debug" [FUZZ_VM_ARGS]
  --dir DIR      where corpus/ and logs/ go [FUZZ_DIR] (default build/fuzz)
  -h, --help     this text

Files: DIR/corpus/<fuzzer>-<seed>[-<batch>].txt the findings (kept across runs),
       DIR/logs/<fuzzer>-<seed>.log each chunk's console (with the fuzzer's output).
Exit status: 0 no finding, 1 at least one finding, 2 usage or setup error.
Verbs-fuzz classes whose kernel fix is still pending
(tests/lib/verbs-fuzz-pending.txt) are left out.
EOF
}

TOTAL=${FUZZ_TIME:-600}
CHUNK=${FUZZ_CHUNK:-300}
ONLY=${FUZZ_ONLY:-}
SEED=${FUZZ_SEED:-}
VMARGS=${FUZZ_VM_ARGS:-}
DIR=${FUZZ_DIR:-$TOP/build/fuzz}
REPLAY=
num() { [[ $2 =~ ^[0-9]+$ ]] || { echo "fuzz: $1 needs a number, not '$2'" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case "$1" in
	--time) num "$1" "${2:-}"; TOTAL=$2; shift 2 ;;
	--chunk) num "$1" "${2:-}"; CHUNK=$2; shift 2 ;;
	--only) ONLY=${2:-}; shift 2 ;;
	--seed) SEED=${2:-}; shift 2 ;;
	--vm-args) VMARGS=${2:-}; shift 2 ;;
	--dir) DIR=${2:-}; shift 2 ;;
	--replay) REPLAY=${2:-}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "fuzz: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
done
num FUZZ_TIME "$TOTAL"
num FUZZ_CHUNK "$CHUNK"
[ "$CHUNK" -gt 0 ] || { echo "fuzz: --chunk must be > 0" >&2; exit 2; }
CORPUS=$DIR/corpus
LOGS=$DIR/logs
OUT=$DIR/out
mkdir -p "$CORPUS" "$LOGS" "$OUT/corpus"

# Before every fuzzer, in the guest: hugepages (ODP + HUGETLB MRs), zram
# swap (MADV_PAGEOUT has somewhere to write pages to).
guest_prep='echo 16 >/proc/sys/vm/nr_hugepages; source "$TOP/tests/lib/swap.sh" && zram_swap 256M'

# vm_run LOG CMD: CMD in a guest (rxe0 up, our module); the console (with
# CMD's output) goes to LOG, and its progress and finding lines are shown as
# they come; tests/vm/run's own lines go to LOG.out.
# The pipeline showing a running guest's progress; stopped with the guest,
# and by the traps below when make fuzz is interrupted (else its tail -F
# would run on, holding whatever the caller gave it, e.g. a host lock).
follower=
stop_follower() {
	[ -n "$follower" ] || return 0
	pkill -P "$follower" 2>/dev/null
	wait "$follower" 2>/dev/null
	follower=
}
trap stop_follower EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

vm_run() {
	local log=$1 rc tailpid
	shift
	: >"$log"
	(tail -n +1 -F "$log" 2>/dev/null | sed -u 's/\r$//' |
		grep -a --line-buffered -E '^\[ *[0-9.]+\] ops |^\[roce-fuzz\] +[0-9.]+s batch|FINDING|FAILED|REPRODUCE|reproduce:' |
		sed -u 's/^\(.\{196\}\).*/\1/; s/^/    /') &
	tailpid=$!	# the subshell: its children are the pipeline
	follower=$tailpid
	# shellcheck disable=SC2086
	"$TOP/tests/vm/run" -q $VMARGS -m 3G --timeout $((CHUNK * 3 + 300)) \
		--out "$OUT" --log "$log" -- bash -c "$guest_prep; $*" >"$log.out" 2>&1
	rc=$?
	sleep 1
	stop_follower
	return "$rc"
}

if [ -n "$REPLAY" ]; then
	[ -f "$REPLAY" ] || { echo "fuzz: no corpus file '$REPLAY'" >&2; exit 2; }
	cmd=$(sed -n 's/^reproducer: //p' "$REPLAY" | head -1)
	[ -n "$cmd" ] || { echo "fuzz: no 'reproducer:' line in $REPLAY" >&2; exit 2; }
	echo "[fuzz] replay: $cmd"
	vm_run "$LOGS/replay-$(date +%s).log" "$cmd"
	rc=$?
	echo "[fuzz] replay exit $rc; output in $LOGS"
	exit "$rc"
fi

# The command line of fuzzer $1 with seed $2 for $3 seconds.
fuzz_cmd() {
	case "$1" in
	verbs-fuzz)
		local classes=all c
		for c in $(sed -n 's/^class:\([^ ]*\) .*/\1/p' "$TOP/tests/lib/verbs-fuzz-pending.txt"); do
			classes="$classes,-$c"
		done
		echo "verbs-fuzz --seed $2 --time $3 --classes $classes --progress 60 --corpus /vmout/corpus"
		;;
	roce-fuzz)
		echo "roce-fuzz --seed $2 --time $3 --progress 60 --corpus /vmout/corpus"
		;;
	esac
}

# Move the corpus entries a guest wrote into CORPUS, in the common format
# (verbs-fuzz writes it already; roce-fuzz writes the command line, then
# "# kind: what").
collect() {
	local f b
	for f in "$OUT"/corpus/*; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .txt)
		if grep -q '^reproducer: ' "$f"; then
			mv "$f" "$CORPUS/$b.txt"
		else
			{
				echo "# $b"
				echo "reproducer: $(grep -v '^#' "$f" | head -1)"
				echo "finding: $(sed -n 's/^# //p' "$f" | head -1)"
			} >"$CORPUS/$b.txt"
			rm -f "$f"
		fi
		echo "$CORPUS/$b.txt"
	done
}

fuzzers=()
for n in verbs-fuzz roce-fuzz; do
	[ -z "$ONLY" ] || [[ " ${ONLY//,/ } " == *" $n "* ]] || continue
	[ -x "$TOP/build/bin/$n" ] || { echo "fuzz: build/bin/$n not built (make)" >&2; exit 2; }
	fuzzers+=("$n")
done
[ ${#fuzzers[@]} -gt 0 ] || { echo "fuzz: no fuzzer selected by '$ONLY'" >&2; exit 2; }
[ -f "$TOP/build/rxe/rdma_rxe.ko" ] || { echo "fuzz: build/rxe/rdma_rxe.ko not built (make)" >&2; exit 2; }

seed=$((${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}))
declare -A clean
findings=()
spent=0 i=0 start=$(date +%s)
echo "[fuzz] ${fuzzers[*]}: ${TOTAL} s in chunks of ${CHUNK} s, first seed $seed, corpus $CORPUS"
while [ "$spent" -lt "$TOTAL" ]; do
	f=${fuzzers[$((i % ${#fuzzers[@]}))]}
	i=$((i + 1))
	t=$((TOTAL - spent < CHUNK ? TOTAL - spent : CHUNK))
	s=$seed
	seed=$((seed + 1))
	log=$LOGS/$f-$s.log
	cmd=$(fuzz_cmd "$f" "$s" "$t")
	echo "[fuzz] $f seed $s, $t s: $cmd"
	t0=$(date +%s)
	vm_run "$log" "$cmd"
	rc=$?
	dt=$(($(date +%s) - t0))
	spent=$((spent + t))
	kept=$(collect)
	case "$rc" in
	0)
		clean[$f]=$((${clean[$f]:-0} + t))
		echo "[fuzz] $f seed $s: clean, $t s (wall $dt s); $spent of $TOTAL s done, $(($(date +%s) - start)) s wall"
		;;
	2 | 127)
		tail -n 20 "$log.out" "$log"
		echo "[fuzz] $f seed $s: setup failed (exit $rc), see $log" >&2
		exit 2
		;;
	*)
		if [ -z "$kept" ]; then
			# the guest died, hung or the kernel complained: keep what is known
			kept=$CORPUS/$f-$s.txt
			{
				echo "# $f: guest run exit $rc (124 timeout, 125 guest died, 126 kernel trouble)"
				echo "reproducer: $cmd"
				echo "finding: $(grep -a -m1 -E 'BUG:|Oops|WARNING:|Kernel panic|KASAN|UBSAN|lockdep|blocked for' "$log" ||
					echo "guest run exit $rc")"
				echo "console: $log"
			} >"$kept"
		fi
		for k in $kept; do
			findings+=("$f seed $s (exit $rc): $(sed -n 's/^finding: //p' "$k" | head -1 | cut -c1-160); kept in $k")
		done
		echo "[fuzz] $f seed $s: FINDING (exit $rc), kept in: $kept"
		echo "[fuzz]   replay: scripts/fuzz.sh --replay $(echo "$kept" | head -1)"
		;;
	esac
done

echo
for f in "${fuzzers[@]}"; do
	echo "[fuzz] $f: ${clean[$f]:-0} s fuzzed clean"
done
for x in "${findings[@]}"; do echo "[fuzz] finding: $x"; done
echo "[fuzz] ${#findings[@]} finding(s) in $(($(date +%s) - start)) s wall; corpus: $CORPUS"
[ ${#findings[@]} -eq 0 ]
