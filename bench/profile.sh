#!/bin/bash
# Profiles (perf, in the guest) of the ODP paths the bench reports on, to say
# what limits a goal that is missed.  Run it in a guest:
#   tests/vm/run -m 3G --out DIR -- bash bench/profile.sh /vmout
# Writes DIR/<case>.txt: perf report, flat, by symbol (>= 1 %).
#   reg     10 ODP registrations + deregistrations of 1 GiB (process context)
#   cold    cold + warm RDMA WRITE passes into a fresh 16 MiB ODP MR (system-wide:
#           the faults run in the rxe_wq worker)
#   steady  alternating passes over a warm pinned and a warm ODP MR (system-wide)
#   inval   MADV_DONTNEED of 64 MiB, 4 KiB pages, with and without an ODP MR
set -uo pipefail
OUT=${1:?usage: bench/profile.sh OUTDIR}
mkdir -p "$OUT"
rep() { # name
	perf report -i "$OUT/$1.data" --stdio --no-children --sort dso,sym --percent-limit 1 -g none \
		2>/dev/null | grep -v '^$' | head -60 >"$OUT/$1.txt"
	echo "== $1" && head -40 "$OUT/$1.txt"
	rm -f "$OUT/$1.data"
}
perf record -q -g -o "$OUT/reg.data" -- odp-bench reg --mode odp --fresh --sizes 1G --reps 10 >"$OUT/reg.csv" && rep reg
perf record -q -a -g -o "$OUT/cold.data" -- odp-bench pass --mode odp --size 16M --reps 2 >"$OUT/cold.csv" && rep cold
perf record -q -a -g -o "$OUT/steady.data" -- odp-bench steady --size 4M --reps 4 --chunk 64K >"$OUT/steady.csv" && rep steady
perf record -q -g -o "$OUT/inval.data" -- odp-bench inval --size 64M --reps 3 --thp off >"$OUT/inval.csv" && rep inval
cat "$OUT"/*.csv
