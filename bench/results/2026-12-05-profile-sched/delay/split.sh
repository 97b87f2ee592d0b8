#!/bin/bash
# split.sh DIR: one sched-sum.py summary per mode against pinned
# (it ran as exp/split.sh in the experiment's worktree; sched-sum.py is
# found from the repository's top either way)
D=$1
S=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)/bench/sched-sum.py
for m in odp pinned-slow800 pinned-slow2400 pinned-again; do
	{ head -1 "$D/sched.csv"; grep ',pinned,' "$D/sched.csv"; grep ",$m," "$D/sched.csv"; } >"$D/vs-$m.csv"
	python3 "$S" "$D/vs-$m.csv" >"$D/vs-$m.txt"
	echo "== $m"; grep -E "^==|^(bw|wall|workers|wrk_cpus|cli_cpus|cli_nvcs) " "$D/vs-$m.txt"
done
