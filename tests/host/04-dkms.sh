#!/bin/bash
# `dkms add` + `dkms build` of the tree from `make dkms-src` produces the same
# rdma_rxe (same version stamp, same srcversion) as `make` for the installed
# Debian 6.12 kernel.  Build only: this host cannot load modules.
source "$TOP/tests/lib/host.sh"
command -v dkms >/dev/null || fail "dkms is not installed (make deps)"
[ "$(id -u)" = 0 ] || skip "dkms add/build needs root"
ko=$TOP/build/rxe/rdma_rxe.ko
[ -f "$ko" ] || fail "$ko not built"
want=$(modinfo -F version "$ko")
ver=${want#rxe-odp-}
dir=$(bash "$TOP/scripts/dkms-src.sh" "$TOP" "$TOP/build/dkms" "$want") || fail "dkms-src failed"
cleanup() { dkms remove "rxe-odp/$ver" --all >/dev/null 2>&1 || true; rm -rf "/usr/src/rxe-odp-$ver"; }
cleanup
trap cleanup EXIT
dkms add "$dir" || fail "dkms add failed"
dkms build "rxe-odp/$ver" -k "$KVER" || {
	cat "/var/lib/dkms/rxe-odp/$ver/build/make.log" 2>/dev/null | tail -30
	fail "dkms build failed"
}
built=$(find "/var/lib/dkms/rxe-odp/$ver/$KVER" -name 'rdma_rxe.ko*' | head -1)
[ -n "$built" ] || fail "dkms produced no rdma_rxe.ko"
case "$built" in *.xz) xz -dc "$built" >"$TOP/build/dkms/rdma_rxe.ko"; built=$TOP/build/dkms/rdma_rxe.ko ;; esac
for f in version srcversion vermagic; do
	a=$(modinfo -F "$f" "$ko") b=$(modinfo -F "$f" "$built")
	echo "$f: make '$a', dkms '$b'"
	[ "$a" = "$b" ] || fail "dkms module differs from make's in $f"
done
dkms status "rxe-odp/$ver"
echo "dkms builds the same module ($want) for $KVER"
