#!/bin/bash
# Helpers for guest tests (sourced).  rxe0 is up and $RXE_GID set by tests/vm/run.
IP=127.0.0.1

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# perftest PROG ARGS...: server and client of one perftest binary on rxe0.
# The client's output is left in /tmp/perftest-client.log.
perftest() {
	local prog=$1 rc src
	shift
	timeout 300 "$prog" -d rxe0 -x "$RXE_GID" "$@" >/tmp/perftest-server.log 2>&1 &
	local sp=$!
	sleep 1.5
	timeout 300 "$prog" -d rxe0 -x "$RXE_GID" "$@" "$IP" >/tmp/perftest-client.log 2>&1
	rc=$?
	wait "$sp"
	src=$?
	echo "== $prog $* : client rc=$rc server rc=$src"
	cat /tmp/perftest-client.log
	[ "$rc" = 0 ] && [ "$src" = 0 ] || { tail -5 /tmp/perftest-server.log; return 1; }
}
