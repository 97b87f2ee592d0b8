#!/bin/bash
# The load of tests/check.sh --load, run in a guest by tests/vm/run --out DIR:
# reclaim-verify on ODP MRs (swap-out, page drops, remaps, write-protection,
# the kinds tests/guest/30 and 32 check) on rxe0, 20 s a run, in a loop until
# DIR/stop appears.  DIR/running tells check.sh that the loop runs.  One line
# "LOAD_RUN N rc=RC" per run on the console; the report of a failed run in
# DIR/fail-N.txt.  Exit status 1 if any run failed.
source "$TOP/userspace/reclaim-verify/guest-env.sh"
rv_guest_setup || { echo "load: guest setup failed"; exit 1; }
: >"$VMOUT/running"
n=0 bad=0
while [ ! -e "$VMOUT/stop" ]; do
	n=$((n + 1))
	timeout 300 reclaim-verify --addr "$RV_ADDR" -r pageout,dontneed,remap,mprotect -d 20 \
		>/tmp/rv.txt 2>&1
	rc=$?
	echo "LOAD_RUN $n rc=$rc"
	if [ "$rc" != 0 ]; then
		bad=$((bad + 1))
		cp /tmp/rv.txt "$VMOUT/fail-$n.txt"
		tail -n 20 /tmp/rv.txt
	fi
done
echo "load: $n runs, $bad failed"
[ "$bad" = 0 ]
