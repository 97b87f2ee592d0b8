#!/bin/bash
# Print the directory holding the kernel's kselftest_harness.h and
# kselftest.h (tools/testing/selftests of Debian's linux-source-6.12), which
# odp-selftest is built on.  The headers are used from the kernel's own
# tree, never copied into this repository:
#   - $KSELFTEST_DIR, if set;
#   - else the tree the debug-kernel build unpacked from the same tarball
#     (scripts/build-debug-kernel.sh), if there is one;
#   - else the two headers, extracted once from the tarball into
#     BUILD/kselftest-<tarball size>-<mtime> (about 20 s: xz decompresses
#     the whole tarball to find them).
# usage: kselftest-dir.sh BUILD
set -euo pipefail
rel=tools/testing/selftests
have() { [ -f "$1/kselftest_harness.h" ] && [ -f "$1/kselftest.h" ]; }

if [ -n "${KSELFTEST_DIR:-}" ]; then
	have "$KSELFTEST_DIR" || { echo "kselftest-dir: no kselftest_harness.h in KSELFTEST_DIR=$KSELFTEST_DIR" >&2; exit 1; }
	echo "$KSELFTEST_DIR"
	exit 0
fi
[ $# = 1 ] || { echo "usage: $0 BUILD" >&2; exit 2; }
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
[ -r "$tarball" ] || { echo "kselftest-dir: $tarball missing: run 'make deps'" >&2; exit 1; }
key=$(stat -c '%s-%Y' "$tarball")
for d in "${RXE_ODP_KCACHE:-/var/cache/rxe-odp}"/debug-kernel/src-*-"$key"; do
	if [ -f "$d/.unpacked" ] && have "$d/$rel"; then
		echo "$d/$rel"
		exit 0
	fi
done
out=$1/kselftest-$key
if ! have "$out/$rel"; then
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	tar -xJf "$tarball" -C "$out.tmp" --strip-components=1 \
		--wildcards "*/$rel/kselftest_harness.h" "*/$rel/kselftest.h"
	have "$out.tmp/$rel" || { echo "kselftest-dir: $rel/kselftest_harness.h not in $tarball" >&2; exit 1; }
	rm -rf "$out"
	mv -T "$out.tmp" "$out"
fi
echo "$out/$rel"
