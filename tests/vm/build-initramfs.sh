#!/bin/bash
# Build a tiny busybox initramfs that mounts the host root (9p or virtiofs),
# overlays a tmpfs on top of it, switch_roots into it and runs stage2.
# Usage: build-initramfs.sh KVER OUT [MODDIR]
#   MODDIR  the kernel's module tree (default /lib/modules/KVER); modules it
#           lists in modules.builtin are built in and not copied
set -euo pipefail
KVER=${1:?usage: $0 KVER OUT [MODDIR]}
OUT=${2:?usage: $0 KVER OUT [MODDIR]}
MODDIR=${3:-/lib/modules/$KVER}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

mkdir -p "$W"/{bin,dev,proc,sys,lower,rw,newroot,mods}
cp /bin/busybox "$W/bin/busybox"
ln -s busybox "$W/bin/sh"

# Modules needed *before* the host root is available (in load order).
# virtio, virtio_pci, virtiofs, fuse are built in (=y) in Debian's 6.12 config;
# the debug kernel (scripts/build-debug-kernel.sh) builds all of them in.
MODS="fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay"
i=0
for m in $MODS; do
  i=$((i+1))
  dst=$W/mods/$(printf %02d $i)-$(basename $m).ko
  if grep -qx "kernel/$m.ko" "$MODDIR/modules.builtin"; then
    continue
  elif [ -f "$MODDIR/kernel/$m.ko.xz" ]; then
    xz -dc "$MODDIR/kernel/$m.ko.xz" > "$dst"
  else
    cp "$MODDIR/kernel/$m.ko" "$dst"
  fi
done

cat > "$W/init" <<'EOF'
#!/bin/sh
# stage1 (initramfs)
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
B=/bin/busybox
fs=9p; stage2=; outshare=0
for a in $($B cat /proc/cmdline); do
  case "$a" in
    vmfs=*) fs=${a#vmfs=} ;;
    vmstage2=*) stage2=${a#vmstage2=} ;;
    vmout=*) outshare=${a#vmout=} ;;
  esac
done
for m in /mods/*.ko; do
  [ -e "$m" ] || continue
  case "$fs:$m" in virtiofs:*9p*|virtiofs:*netfs*) [ "$outshare" = 1 ] || continue ;; esac
  $B insmod "$m" || echo "stage1: insmod $m failed"
done
if [ "$fs" = virtiofs ]; then
  $B mount -t virtiofs -o ro hostroot /lower || { echo "stage1: virtiofs mount failed"; $B sh; }
else
  $B mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=524288,cache=loose hostroot /lower \
    || { echo "stage1: 9p mount failed"; $B sh; }
fi
$B mount -t tmpfs -o mode=755 rw /rw
$B mkdir -p /rw/upper /rw/work
$B mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot \
  || { echo "stage1: overlay failed"; $B sh; }
if [ "$outshare" = 1 ]; then
  $B mkdir -p /newroot/vmout
  $B mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 vmout /newroot/vmout \
    || echo "stage1: vmout mount failed"
fi
$B mount --move /proc /newroot/proc
$B mount --move /sys /newroot/sys
$B mount --move /dev /newroot/dev
exec $B switch_root /newroot /bin/busybox sh "$stage2"
EOF
chmod 755 "$W/init"
(cd "$W" && find . | cpio -o -H newc --quiet) > "$OUT"
ls -la "$OUT"
