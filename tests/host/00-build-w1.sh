#!/bin/bash
# A from-scratch build of rdma_rxe.ko (Debian's rxe + patches/ + kernel/, W=1)
# succeeds with zero warnings and the module identifies our build.
source "$TOP/tests/lib/host.sh"
out=$(mktemp -d "$TOP/build/test.XXXXXX")
trap 'rm -rf "$out"' EXIT
ver=rxe-odp-buildtest
bash "$TOP/scripts/build-module.sh" "$TOP" "$out" "$KVER" "$ver" || fail "module build failed"
grep -q 'W=1\|-Wextra' "$out/build.log" || grep -q . "$out/build.log" || fail "empty build log"
# make's own lines do not count ("make[1]: warning: -jN forced in submake")
if grep -E 'warning:|^WARNING:' "$out/build.log" | grep -vE '^make(\[[0-9]+\])?: '; then
	fail "warnings in the build"
fi
got=$(modinfo -F version "$out/rxe/rdma_rxe.ko")
[ "$got" = "$ver" ] || fail "modinfo version '$got', expected '$ver'"
vm=$(modinfo -F vermagic "$out/rxe/rdma_rxe.ko")
case "$vm" in "$KVER "*) ;; *) fail "vermagic '$vm' is not for $KVER" ;; esac
n=$(grep -cv '^\s*\(#\|$\)' "$TOP/patches/series" || true)
echo "built with $n patches, version $got, vermagic $vm, 0 warnings"
