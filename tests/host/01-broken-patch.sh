#!/bin/bash
# A patch that does not apply stops the build with a message naming it.
source "$TOP/tests/lib/host.sh"
src=$(mktemp -d "$TOP/build/test.XXXXXX")
mkdir -p "$src/build"
ln -s "$TOP/build/rxe-src-"* "$src/build/" 2>/dev/null
out=$(mktemp -d "$TOP/build/test.XXXXXX")
trap 'rm -rf "$src" "$out"' EXIT
cp -r "$TOP/patches" "$TOP/kernel" "$src/"
cat >"$src/patches/9999-broken.patch" <<'P'
Subject: [PATCH] deliberately broken

--- a/drivers/infiniband/sw/rxe/rxe.c
+++ b/drivers/infiniband/sw/rxe/rxe.c
@@ -1,3 +1,3 @@
-this line is not in rxe.c
+so the hunk cannot apply
 nor is this one
 or this one
P
echo "9999-broken.patch" >>"$src/patches/series"
if bash "$TOP/scripts/build-module.sh" "$src" "$out" "$KVER" broken >"$out/log" 2>&1; then
	fail "the build succeeded with a broken patch"
fi
cat "$out/log"
grep -q 'FAILED to apply patch .*patches/9999-broken.patch' "$out/log" ||
	fail "the failure message does not name the broken patch"
[ ! -e "$out/rxe/rdma_rxe.ko" ] || fail "a module was produced despite the broken patch"

# A series entry without its file is an error too.
echo "0000-missing.patch" >"$src/patches/series"
bash "$TOP/scripts/build-module.sh" "$src" "$out" "$KVER" broken >"$out/log" 2>&1 &&
	fail "the build succeeded with a missing patch file"
grep -q '0000-missing.patch, which does not exist' "$out/log" || fail "missing patch not named"
echo "broken and missing patches are refused by name"
