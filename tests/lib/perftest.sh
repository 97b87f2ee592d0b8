#!/bin/bash
# perftest (ib_*_bw, ib_*_lat) in a TCG guest: every perftest run of the
# tests and the bench (the demo runs none) goes through these functions
# (sourced by tests/lib/guest.sh and bench/guest.sh; needs $RXE_GID, set by
# tests/vm/run).
#
# What each run gets, and why:
# - -F.  For its report perftest fits the TSC against gettimeofday; on a
#   starved guest the fit fails ("Correlation coefficient r^2: 0.55 < 0.9")
#   and without -F both sides then exit 1 ("Can't produce a report") after a
#   good transfer.  With -F they exit 0, but the figures are 0 (bandwidth) or
#   inf (latency): perftest_clock_ok says whether they are real.
# - a port of its own (-p, perftest_next_port), so that back-to-back runs
#   never meet the server or a socket of the run before.
# - the client starts only once the server listens (wait_listen), and a
#   server that dies before it listens is seen at once, with its log.
# - timeouts on both sides: the client PT_TIMEOUT (default 180 s), the server
#   that plus PT_LISTEN_WAIT (default 60 s); the server is ended when the
#   client failed.
# - on failure the full log of the side that failed (of both, in perftest).
#
# One host (loopback on rxe0):   perftest PROG ARGS...
# Two hosts, e.g. server in guest a, client in guest b ($PEER = a's address),
# both on the same PORT (any agreed number, e.g. perftest_next_port in both):
#   a: perftest_server PORT LOG PROG ARGS...   (returns once it listens)
#      ... tell b that the server listens ...
#      server_end                              (waits for the run to finish)
#   b: ... wait until a says its server listens ...
#      perftest_client PORT LOG "$PEER" PROG ARGS...
PT_DEV=${PT_DEV:-rxe0}
PT_TIMEOUT=${PT_TIMEOUT:-180}
PT_LISTEN_WAIT=${PT_LISTEN_WAIT:-60}
PT_PORT=${PT_PORT:-18600}

# wait_listen PORT SECONDS [PID]: until a TCP server (or a perftest -R server,
# on rdma_cm) listens on PORT (a fixed sleep is not enough in a TCG guest on a
# loaded host); gives up at once when PID, the server, is gone.
wait_listen() {
	local port=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		ss -Hltn "sport = :$port" | grep -q . && return 0
		# perftest -R (rdma_cm) listens on an rdma_cm port, not on TCP
		rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [^ ]*:$port\b" && return 0
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			echo "the server exited before it listened on port $port"
			return 1
		fi
		sleep 0.1
	done
	echo "nothing listens on port $port after $2 s"
	return 1
}

# perftest_next_port: a port no earlier run of this shell used, in $PT_PORT.
perftest_next_port() {
	PT_PORT=$((PT_PORT + 1))
}

# show_log WHAT LOG: a whole log, framed.
show_log() {
	echo "----- $1: $2"
	cat "$2"
	echo "----- end of $2"
}

# server_start PORT LOG WHAT CMD...: start the server CMD (any program whose
# client connects over TCP: perftest, ibv_rc_pingpong) in the background under
# a timeout and return once it listens on PORT (1, with its log, if it does
# not).  WHAT names it in messages.  Sets PT_SPID, PT_SLOG and PT_SWHAT.
server_start() {
	local port=$1
	PT_SLOG=$2 PT_SWHAT="$3, port $port"
	shift 3
	timeout -k 5 $((PT_TIMEOUT + PT_LISTEN_WAIT)) "$@" >"$PT_SLOG" 2>&1 &
	PT_SPID=$!
	wait_listen "$port" "$PT_LISTEN_WAIT" "$PT_SPID" && return 0
	server_end 0
	return 1
}

# server_end [GRACE]: wait for the server of server_start; with GRACE, give
# it GRACE seconds to end by itself (it may be printing why the run failed),
# then end it.  Returns its exit status; prints its whole log unless 0.
server_end() {
	local i rc
	if [ -n "${1:-}" ]; then
		for ((i = 0; i < $1 * 10; i++)); do
			kill -0 "$PT_SPID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$PT_SPID" 2>/dev/null && echo "($PT_SWHAT: ended)"
	fi
	wait "$PT_SPID"
	rc=$?
	[ "$rc" = 124 ] && echo "($PT_SWHAT: timed out after $((PT_TIMEOUT + PT_LISTEN_WAIT)) s)"
	[ "$rc" = 0 ] || show_log "$PT_SWHAT, rc $rc" "$PT_SLOG"
	return "$rc"
}

# client_run LOG WHAT CMD...: a client under PT_TIMEOUT, output in LOG.
# Returns its exit status; prints its whole log unless 0.
client_run() {
	local log=$1 what=$2 rc
	shift 2
	timeout -k 5 "$PT_TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	[ "$rc" = 124 ] && echo "($what: timed out after $PT_TIMEOUT s)"
	[ "$rc" = 0 ] || show_log "$what, rc $rc" "$log"
	return "$rc"
}

# perftest_server PORT LOG PROG ARGS...: a perftest server (server_start);
# end it with server_end.
perftest_server() {
	local port=$1 log=$2 prog=$3
	shift 3
	server_start "$port" "$log" "$prog server" "$prog" -d "$PT_DEV" -x "$RXE_GID" -F -p "$port" "$@"
}

# perftest_client PORT LOG HOST PROG ARGS...: the client, against a server
# that listens on HOST:PORT (client_run).
perftest_client() {
	local port=$1 log=$2 host=$3 prog=$4
	shift 4
	client_run "$log" "$prog client, port $port" \
		"$prog" -d "$PT_DEV" -x "$RXE_GID" -F -p "$port" "$@" "$host"
}

# perftest_clock_ok LOG: perftest's clock calibration worked for this run, so
# its figures (bandwidth, message rate, latency) are real; with -F a failed
# calibration leaves them 0 or inf.
perftest_clock_ok() {
	! grep -q 'Correlation coefficient r^2' "$1"
}

# The result line of a perftest log: average bandwidth [Gb/s] or t_avg [us].
# perftest prints BW average with two decimals from 0.1 Gb/s on (0.11); then
# bytes x MsgRate (six decimals) gives the bandwidth more precisely.
# perftest_value LOG bw|lat: the figure of a run (print it only when
# perftest_clock_ok LOG).
perftest_value() {
	awk -v kind="$2" '
		/^ *#bytes/ { for (i = 1; i <= NF; i++) if ($i == "t_avg[usec]") col = i; hdr = 1; next }
		hdr && NF >= 3 && $1 ~ /^[0-9]+$/ {
			if (kind == "bw") {
				d = $4
				gsub(/[^0-9]/, "", d)
				sub(/^0+/, "", d)
				# "0.11": two digits; bytes x Mpps has more
				if (length(d) < 3 && $5 > 0)
					printf "%.6g\n", $1 * $5 * 8 / 1000
				else
					print $4
			} else
				print $col
			exit
		}
	' "$1"
}

# perftest PROG ARGS...: server and client of one perftest binary on rxe0
# (loopback), both with ARGS; PT_SERVER_ARGS and PT_CLIENT_ARGS add words for
# one side only (e.g. --odp).  Logs: $PT_LOG-server.log and $PT_LOG-client.log
# (PT_LOG defaults to /tmp/perftest); the client's log is printed unless
# PT_QUIET=1.
perftest() {
	local prog=$1 base=${PT_LOG:-/tmp/perftest} rc src
	shift
	perftest_next_port
	# shellcheck disable=SC2086
	perftest_server "$PT_PORT" "$base-server.log" "$prog" ${PT_SERVER_ARGS:-} "$@" ||
		{ echo "== $prog $* (port $PT_PORT): the server did not start"; return 1; }
	# shellcheck disable=SC2086
	perftest_client "$PT_PORT" "$base-client.log" 127.0.0.1 "$prog" ${PT_CLIENT_ARGS:-} "$@"
	rc=$?
	if [ "$rc" = 0 ]; then
		server_end
	else
		server_end 10
	fi
	src=$?
	echo "== $prog $*${PT_SERVER_ARGS:+ (server: $PT_SERVER_ARGS)}${PT_CLIENT_ARGS:+ (client: $PT_CLIENT_ARGS)} (port $PT_PORT): client rc=$rc server rc=$src"
	[ "$rc" = 0 ] && [ "${PT_QUIET:-0}" != 1 ] && cat "$base-client.log"
	perftest_clock_ok "$base-client.log" ||
		echo "(perftest's clock calibration failed in this run: its figures are not real)"
	[ "$rc" = 0 ] && [ "$src" = 0 ]
}
