#!/bin/bash
# Helpers for guest tests (sourced).  rxe0 is up and $RXE_GID set by tests/vm/run.
IP=127.0.0.1

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# wait_listen PORT SECONDS: until a TCP server listens on PORT (a fixed sleep
# is not enough in a TCG guest on a loaded host).
wait_listen() {
	local port=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	echo "nothing listens on port $port after $2 s"
	return 1
}

# perftest PROG ARGS...: server and client of one perftest binary on rxe0.
# The client's output is left in /tmp/perftest-client.log.
perftest() {
	local prog=$1 rc src
	shift
	timeout 300 "$prog" -d rxe0 -x "$RXE_GID" "$@" >/tmp/perftest-server.log 2>&1 &
	local sp=$!
	wait_listen 18515 60 || { cat /tmp/perftest-server.log; return 1; }
	timeout 300 "$prog" -d rxe0 -x "$RXE_GID" "$@" "$IP" >/tmp/perftest-client.log 2>&1
	rc=$?
	wait "$sp"
	src=$?
	echo "== $prog $* : client rc=$rc server rc=$src"
	cat /tmp/perftest-client.log
	[ "$rc" = 0 ] && [ "$src" = 0 ] || { tail -5 /tmp/perftest-server.log; return 1; }
}
