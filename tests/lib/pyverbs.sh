#!/bin/bash
# Helpers for running rdma-core's own pyverbs suite in the guest (sourced after
# tests/lib/guest.sh).  Debian ships the suite gzipped in
# /usr/share/doc/rdma-core/tests; it is copied and gunzipped into /tmp.
PYV_SRC=/usr/share/doc/rdma-core/tests
PYV_DIR=/tmp/pyverbs/tests
PYV_KNOWN=$TOP/tests/lib/pyverbs-known-failures.txt

# pyverbs_prepare: copy + gunzip the suite, give the huge-page ODP tests their
# 2 MiB pages, load rdma_ucm for test_rdmacm.
pyverbs_prepare() {
	rm -rf /tmp/pyverbs && mkdir -p /tmp/pyverbs || return 1
	cp -r "$PYV_SRC" "$PYV_DIR" || return 1
	gunzip -f "$PYV_DIR"/*.gz || return 1
	echo 64 >/proc/sys/vm/nr_hugepages
	echo "hugepages: $(cat /proc/sys/vm/nr_hugepages) x 2 MiB"
	modprobe rdma_ucm || return 1
}

# pyverbs_modules: every test module of the suite that is not vendor-specific
# (mlx5, efa) and needs no GPU; rxe-inapplicable tests in them skip with a
# reason, which is reported.
pyverbs_modules() {
	local f m
	for f in "$PYV_DIR"/test_*.py; do
		m=$(basename "$f" .py)
		case "$m" in test_mlx5_* | test_efa* | test_cuda_*) continue ;; esac
		printf 'tests.%s ' "$m"
	done
}

# pyverbs_run RESULTS TEST...: run the given tests against rxe0; one line per
# test in RESULTS (see pyverbs-run.py); the verbose unittest log on stdout.
pyverbs_run() {
	local res=$1
	shift
	timeout 600 /usr/bin/python3 "$TOP/tests/lib/pyverbs-run.py" "$PYV_DIR" "$res" \
		--dev rxe0 --gid "$RXE_GID" -v "$@" 2>&1
}

# pyverbs_suite NAME LABEL: the whole suite (every module of pyverbs_modules)
# against rxe0: prepare, run, print the log and the summary headed LABEL.
# Fails the test if the suite cannot be prepared or gives no result.  The
# results are in $PYV_RES (/tmp/pyverbs-NAME.res), for pyverbs_judge.
pyverbs_suite() {
	local name=$1 label=$2
	PYV_RES=/tmp/pyverbs-$name.res
	pyverbs_prepare || fail "cannot prepare the pyverbs suite from $PYV_SRC"
	# shellcheck disable=SC2046
	pyverbs_run "$PYV_RES" $(pyverbs_modules) >"/tmp/pyverbs-$name.log"
	cat "/tmp/pyverbs-$name.log"
	[ -s "$PYV_RES" ] || fail "the pyverbs run produced no results"
	pyverbs_summary "$PYV_RES" "$label"
}

# pyverbs_summary RESULTS LABEL: the summary block, skips grouped by reason.
pyverbs_summary() {
	local res=$1 label=$2
	echo "===== pyverbs summary ($label) ====="
	printf 'passed %d  failed %d  errors %d  skipped %d  (xfail %d, xpass %d)\n' \
		"$(grep -c '^PASS ' "$res")" "$(grep -c '^FAIL ' "$res")" \
		"$(grep -c '^ERROR ' "$res")" "$(grep -c '^SKIP ' "$res")" \
		"$(grep -c '^XFAIL ' "$res")" "$(grep -c '^XPASS ' "$res")"
	if grep -q '^\(FAIL\|ERROR\|XPASS\) ' "$res"; then
		echo "-- failures and errors:"
		grep '^\(FAIL\|ERROR\|XPASS\) ' "$res" | sed 's/^/   /'
	fi
	if grep -q '^SKIP ' "$res"; then
		echo "-- skips, grouped by reason (count: reason; tests):"
		grep '^SKIP ' "$res" | sed 's/^SKIP \([^ ]*\) | \(.*\)$/\2\t\1/' | sort |
			awk -F'\t' '{ n[$1]++; t[$1] = t[$1] (t[$1] ? ", " : "") $2 }
				END { for (r in n) printf "%d\t%s\t%s\n", n[r], r, t[r] }' |
			sort -t"$(printf '\t')" -k1,1nr -k2 |
			awk -F'\t' '{ printf "   %3d: %s\n        %s\n", $1, $2, $3 }'
	fi
	echo "===== end of summary ($label) ====="
}

# known_ids: ids in the known-failure list.
pyverbs_known_ids() {
	grep -v '^\s*#' "$PYV_KNOWN" | grep -v '^\s*$' | awk -F' [|] ' '{ print $1 }'
}

# known_msg ID: the failure message the list expects for ID.
pyverbs_known_msg() {
	grep -v '^\s*#' "$PYV_KNOWN" | awk -F' [|] ' -v id="$1" '$1 == id { print $2 }'
}

# pyverbs_judge RESULTS: fails (returns 1) on any FAIL/ERROR/XPASS that is not
# in the known-failure list, or a known one whose message differs from the
# list's.  Prints each known failure seen.  Sets PYV_KNOWN_SEEN to the ids of
# known failures that did fail as listed.
pyverbs_judge() {
	local res=$1 bad=0 kind id msg want line
	PYV_KNOWN_SEEN=""
	# (no process substitution: the guest has no /dev/fd)
	grep '^\(FAIL\|ERROR\|XPASS\) ' "$res" >"$res.bad"
	while read -r line; do
		kind=${line%% *}
		id=${line#* }
		id=${id%% *}
		msg=${line#*" | "}
		[ "$msg" = "$line" ] && msg=""
		want=$(pyverbs_known_msg "$id")
		if [ "$kind" != XPASS ] && [ -n "$want" ] && [ "$msg" = "$want" ]; then
			echo "KNOWN FAILURE (listed in tests/lib/pyverbs-known-failures.txt): $id: $msg"
			PYV_KNOWN_SEEN="$PYV_KNOWN_SEEN $id"
		else
			echo "UNEXPECTED $kind: $id${msg:+: $msg}"
			[ -n "$want" ] && echo "   (listed as known, but with message: $want)"
			bad=1
		fi
	done <"$res.bad"
	# Every failure line must have been judged: known ones + unexpected ones.
	local nbad nknown
	nbad=$(wc -l <"$res.bad")
	nknown=$(echo "$PYV_KNOWN_SEEN" | wc -w)
	if [ "$bad" = 0 ] && [ "$nbad" != "$nknown" ]; then
		echo "INTERNAL: $nbad failure lines but $nknown judged known"
		bad=1
	fi
	for id in $(pyverbs_known_ids); do
		line=$(grep -m1 " $id\( \|$\)" "$res") || continue
		case "$line" in PASS*) echo "NOTE: known failure $id now PASSES" ;; esac
	done
	return $bad
}

# pyverbs_confirm_on_stock RESULTS IDS: replace our rdma_rxe by Debian's stock
# one (same boot, rxe0 recreated) and re-run the tests IDS; each must fail
# there exactly as it did in RESULTS.  A listed failure may be timing-dependent
# (see the list), so up to 8 runs; fails if one never fails identically.
pyverbs_confirm_on_stock() {
	local res=$1 todo=$2 try sres left id ours stock
	{ rdma link delete rxe0 && rmmod rdma_rxe; } || { echo "cannot unload our rdma_rxe"; return 1; }
	# shellcheck source=../vm/guest-rxe.sh
	source "$TOP/tests/vm/guest-rxe.sh"
	RXE_MODE=stock rxe_up || { echo "cannot bring up rxe0 on the stock rdma_rxe"; return 1; }
	for try in 1 2 3 4 5 6 7 8; do
		[ -n "$todo" ] || break
		sres=/tmp/pyverbs-stock-known.$try.res
		# shellcheck disable=SC2086
		pyverbs_run "$sres" $todo >/tmp/pyverbs-stock-known.$try.log
		left=""
		for id in $todo; do
			ours=$(grep -m1 " $id\( \|$\)" "$res")
			stock=$(grep -m1 " $id\( \|$\)" "$sres")
			if [ "$ours" = "$stock" ]; then
				echo "KNOWN FAILURE, identical on Debian's stock rdma_rxe (stock run $try): $stock"
			else
				echo "stock run $try: ${stock:-no result for $id}"
				left="$left $id"
			fi
		done
		todo=$left
	done
	[ -z "$todo" ] && return 0
	for id in $todo; do
		echo "known failure $id failed on our module but never on stock in 8 runs"
	done
	cat "$sres"
	return 1
}
