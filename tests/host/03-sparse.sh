#!/bin/bash
# The whole module (stock rxe + patches + kernel/) is sparse clean (C=1).
source "$TOP/tests/lib/host.sh"
command -v sparse >/dev/null || fail "sparse is not installed (make deps)"
out=$(mktemp -d "$TOP/build/test.XXXXXX")
trap 'rm -rf "$out"' EXIT
KBUILD_EXTRA_ARGS=C=1 bash "$TOP/scripts/build-module.sh" "$TOP" "$out" "$KVER" sparse ||
	fail "sparse build failed or printed warnings"
checked=$(grep -c '^ *CHECK ' "$out/build.log")
[ "$checked" -gt 10 ] || fail "sparse checked only $checked files"
echo "sparse: $checked files checked, no warnings"
