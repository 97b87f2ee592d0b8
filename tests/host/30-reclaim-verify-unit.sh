#!/bin/bash
# reclaim-verify's host-side logic under ASan/UBSan: pattern generation and
# mismatch classification (zero / old generation / fork child / misplaced /
# garbage), option parsing and --help, and that its files call each other
# only as rv.h's layers say (no circle).  No RDMA device needed.
set -e
cd "$(dirname "$0")/../.."
make --no-print-directory -C userspace/reclaim-verify OUT="$PWD/build/bin" test
# the real binary's --help and usage errors
build/bin/reclaim-verify --help | grep -q -- '--pinned'
rc=0
build/bin/reclaim-verify --block 1000 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: bad --block gave exit $rc, expected 2"; exit 1; }
# the call graph of the objects: every edge one that rv.h allows (no circle)
allowed() { # module: what it may call
	case $1 in
	main) echo "server client buffers reclaim cgroup common pattern config" ;;
	server | client) echo "xfer conn buffers common pattern config" ;;
	xfer) echo "buffers common pattern config" ;;
	buffers | conn | reclaim | cgroup) echo "common pattern config" ;;
	*) echo "" ;;
	esac
}
objs=$(mktemp -d)
trap 'rm -rf "$objs"' EXIT
mods="main server client buffers xfer conn reclaim cgroup common pattern config"
for m in $mods; do
	cc -c -std=c11 -D_GNU_SOURCE -Iuserspace/lib -pthread \
		"userspace/reclaim-verify/$m.c" -o "$objs/$m.o"
	nm --defined-only "$objs/$m.o" | awk -v m="$m" '$2 == "T" { print $3, m }' >>"$objs/defs"
done
bad=0
for m in $mods; do
	# "symbol module" of what m calls in another module of ours
	edges=$(nm -u "$objs/$m.o" | awk 'NR == FNR { def[$1] = $2; next }
		($2 in def) { print $2, def[$2] }' "$objs/defs" -)
	while read -r u d; do
		[ -n "$d" ] && [ "$d" != "$m" ] || continue
		case " $(allowed "$m") " in
		*" $d "*) ;;
		*) echo "FAIL: $m.c calls $u() of $d.c (rv.h: Who calls whom)"; bad=1 ;;
		esac
	done <<<"$edges"
done
[ "$bad" = 0 ]
echo "reclaim-verify unit: ok"
