#!/bin/bash
# Lay out a DKMS source tree: build/dkms/rxe-odp-<version>/ holding dkms.conf,
# patches/, kernel/ and the build script.  Then, as root:
#   dkms add build/dkms/rxe-odp-<version> && dkms build rxe-odp/<version> -k <kernel>
set -euo pipefail
top=$1 dest=$2 version=${3#rxe-odp-}
dir=$dest/rxe-odp-$version
rm -rf "$dir"
mkdir -p "$dir/scripts"
cp -r "$top/patches" "$top/kernel" "$dir/"
rm -f "$dir/kernel/dkms.conf"
cp "$top/scripts/build-module.sh" "$dir/scripts/"
sed "s/@VERSION@/$version/" "$top/kernel/dkms.conf" >"$dir/dkms.conf"
echo "$dir"
