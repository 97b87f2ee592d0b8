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
