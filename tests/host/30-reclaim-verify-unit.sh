#!/bin/bash
# reclaim-verify's host-side logic under ASan/UBSan: pattern generation and
# mismatch classification (zero / old generation / fork child / misplaced /
# garbage), option parsing and --help.  No RDMA device needed.
set -e
cd "$(dirname "$0")/../.."
make --no-print-directory -C userspace/reclaim-verify OUT="$PWD/build/bin" test
# the real binary's --help and usage errors
build/bin/reclaim-verify --help | grep -q -- '--pinned'
rc=0
build/bin/reclaim-verify --block 1000 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: bad --block gave exit $rc, expected 2"; exit 1; }
echo "reclaim-verify unit: ok"
