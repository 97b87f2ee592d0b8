#!/bin/bash
# Helpers every test uses, host or guest (sourced by tests/lib/host.sh and
# tests/lib/guest.sh): the two ways a test ends early besides passing.

# fail MSG...: the test failed; MSG says what was seen.
fail() {
	echo "FAIL: $*"
	exit 1
}

# skip MSG...: the test cannot run here; MSG is the reason tests/check.sh reports.
skip() {
	echo "SKIP: $*"
	exit 77
}

# pins_acquired: this machine's nr_foll_pin_acquired, read after folding
# every CPU's pending vmstat counts in (/proc/sys/vm/stat_refresh):
# /proc/vmstat itself shows a pin only once vmstat's periodic fold (about
# every second) moved it, so a pin made just before a "before" reading
# (a pinned MR of the case before) would show up in the "after" one.
pins_acquired() {
	cat /proc/sys/vm/stat_refresh >/dev/null 2>&1
	awk '$1 == "nr_foll_pin_acquired" { print $2 }' /proc/vmstat
}
