#!/bin/bash
# make demo2 (make demo HOSTS=2): the main job of make demo across two guests
# on one virtual link (tests/vm/pair).  Guest a runs OUR rdma_rxe and the
# reclaim-verify server, first with ODP memory regions and every reclaim kind
# firing inside a cgroup whose memory.max is below its working set (zram
# swap), then with pinned MRs; guest b runs Debian's stock rdma_rxe and the
# client, pinned, RDMA WRITE and SEND (stock rxe's completer mishandles a
# duplicate's ACK of a READ or atomic: see tests/pair/20-reclaim-ours-stock.sh).
# Prints the same one-screen comparison as make demo (tests/lib/demo-report.py),
# from the server's reports.  Builds nothing ('make demo2' builds first).
#
#   DEMO_SECS=N      seconds of traffic per run (default 20)
#   DEMO_ARGS="..."  extra reclaim-verify options for the server in both runs
#
# Inside the guests: tests/demo2.sh --guest SECS ARGS (tests/vm/pair has no
# share for results: the server prints its JSON reports base64-encoded on its
# console, between DEMO2-BEGIN/DEMO2-END lines, and this script decodes them).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --guest ]; then
	secs=$2 args=$3
	source "$TOP/tests/lib/pair.sh"
	client="--pinned -r none -d $secs --ops write,send"
	[ "$ROLE" = a ] && { pair_swap || echo "demo2: no zram swap in a"; }
	pair_rv a odp "--odp -r all -d $secs $args" "$client"
	echo "demo2: ODP run exit $?"
	# Pinned pages cannot be reclaimed: the pinned run goes without the
	# cgroup limit (under it the OOM killer would end the process).
	pair_rv a pinned "--pinned -r pageout,dontneed,remap,mprotect,fork,thp,compact -d $secs $args" "$client"
	echo "demo2: pinned run exit $?"
	if [ "$ROLE" = a ]; then
		for l in odp pinned; do
			[ -s "/tmp/rv-$l.json" ] || continue
			echo "DEMO2-BEGIN $l"
			base64 -w 64 "/tmp/rv-$l.json" | sed "s/^/DEMO2 $l /"
			echo "DEMO2-END $l $(md5sum <"/tmp/rv-$l.json" | cut -d' ' -f1)"
		done
	fi
	exit 0
fi

OUT=$TOP/build/demo2
# shellcheck source=lib/demo.sh
source "$TOP/tests/lib/demo.sh"
demo_start demo2 "$OUT"
cmd="bash tests/demo2.sh --guest $(printf %q "$DEMO_SECS") $(printf %q "$DEMO_ARGS")"
echo "demo2: booting two 6.12 guests on one link, a: our rdma_rxe (server), b: Debian's stock rdma_rxe (client);"
echo "demo2: ODP run, then pinned run, ${DEMO_SECS} s each (about $((DEMO_SECS * 2 + 190)) s)..."
"$TOP/tests/vm/pair" -q --a ours --b stock --timeout $((DEMO_SECS * 4 + 600)) --logdir "$OUT" \
	--cmd-a "$cmd" --cmd-b "$cmd" >"$OUT/pair.log" 2>&1
vmrc=$?
# the server's reports from its console: each line checked, the whole by md5
for l in odp pinned; do
	tr -d '\r' <"$OUT/a.console" | sed -n "s/^DEMO2 $l \([A-Za-z0-9+\/=]*\)\$/\1/p" |
		base64 -d >"$OUT/$l.json" 2>/dev/null
	sum=$(tr -d '\r' <"$OUT/a.console" | sed -n "s/^DEMO2-END $l \([0-9a-f]*\)\$/\1/p")
	if [ -z "$sum" ] || [ "$(md5sum <"$OUT/$l.json" | cut -d' ' -f1)" != "$sum" ]; then
		[ -s "$OUT/$l.json" ] && echo "demo2: the $l report on a's console is garbled (a kernel message inside it?)"
		rm -f "$OUT/$l.json"
	fi
done
DEMO_RUNNER=pair demo_report "$OUT" "$vmrc" 2 "$OUT/pair.log" a.console b.console
