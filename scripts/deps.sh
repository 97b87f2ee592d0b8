#!/bin/bash
# Install everything rxe-odp needs, from Debian 12's own packages only.
#
# Idempotent: when every package is present it only asks dpkg and exits in
# about a second.  The kernel ABI follows the linux-source-6.12 version Debian
# serves now (scripts/kver.sh candidate); KVER=6.12.N+deb12-amd64 overrides it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root (apt-get install)" >&2
	exit 1
fi

base_pkgs=(
	build-essential git make bc bison flex libelf-dev libssl-dev
	qemu-system-x86 busybox-static cpio kmod iproute2 procps util-linux
	xz-utils zstd sparse dkms
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	rdmacm-utils perftest python3 python3-pyverbs ucx-utils
	gnuplot-nox linux-perf python3-ply
)

missing() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || echo "$p"
	done
}

updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	echo "deps: apt-get update"
	apt-get update -q
	updated=1
}

# The ABI: ask the package index; without an index (fresh machine) update first.
kver=${KVER:-}
if [ -z "$kver" ]; then
	kver=$("$here/kver.sh" candidate 2>/dev/null) || { apt_update; kver=$("$here/kver.sh" candidate); }
fi
kpkgs=(linux-image-"$kver"-unsigned linux-headers-"$kver" linux-source-6.12)

need=$(missing "${base_pkgs[@]}" "${kpkgs[@]}")
if [ -n "$need" ]; then
	apt_update
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $need
fi

# linux-source-6.12 must match the ABI we build for: the rxe sources come from it.
src_ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
if [ "${src_ver%%-*}+deb12-amd64" != "$kver" ]; then
	echo "deps: linux-source-6.12 $src_ver does not match KVER=$kver;" \
		"the rxe sources and the headers would differ" >&2
	exit 1
fi
for f in /boot/vmlinuz-"$kver" /lib/modules/"$kver"/build/Makefile /usr/src/linux-source-6.12.tar.xz; do
	[ -e "$f" ] || { echo "deps: $f is missing after install" >&2; exit 1; }
done
echo "deps: ok (kernel $kver)"
