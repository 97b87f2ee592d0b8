#!/bin/bash
# Extract the uncompressed ELF vmlinux (has a PVH entry note, CONFIG_PVH=y) from
# Debian's zstd-compressed bzImage so QEMU can boot it directly (-kernel vmlinux),
# skipping ~1.3 s of in-guest decompression under TCG.
# Usage: extract-vmlinux.sh [KVER] [OUT]
set -euo pipefail
KVER=${1:?usage: $0 KVER OUT}
OUT=${2:?usage: $0 KVER OUT}
/usr/bin/python3 - "/boot/vmlinuz-$KVER" "$OUT.tmp" <<'PY'
import subprocess, sys
d = open(sys.argv[1], 'rb').read()
pos = 0
while True:
    pos = d.find(b'\x28\xb5\x2f\xfd', pos)          # zstd frame magic
    if pos < 0: sys.exit("no zstd-compressed ELF found in " + sys.argv[1])
    out = subprocess.run(['zstd', '-d', '-c', '-q'], input=d[pos:], capture_output=True).stdout
    if out[:4] == b'\x7fELF':                         # trailing bytes make zstd complain; output is complete
        open(sys.argv[2], 'wb').write(out); break
    pos += 1
PY
readelf -n "$OUT.tmp" | grep -q 'Unknown note type: (0x00000012)' || { echo "no PVH (XEN_ELFNOTE_PHYS32_ENTRY) note" >&2; exit 1; }
mv "$OUT.tmp" "$OUT"
ls -la "$OUT"
