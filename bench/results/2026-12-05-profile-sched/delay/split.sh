#!/bin/bash
# split.sh DIR: one sched-sum.py summary per mode against pinned
D=$1
for m in odp pinned-slow800 pinned-slow2400 pinned-again; do
	{ head -1 "$D/sched.csv"; grep ',pinned,' "$D/sched.csv"; grep ",$m," "$D/sched.csv"; } >"$D/vs-$m.csv"
	python3 "$(dirname "$0")/../bench/sched-sum.py" "$D/vs-$m.csv" >"$D/vs-$m.txt"
	echo "== $m"; grep -E "^==|^(bw|wall|workers|wrk_cpus|cli_cpus|cli_nvcs) " "$D/vs-$m.txt"
done
