#!/bin/bash
# Build (once per machine) the debug kernel the guest tests also run on:
# Debian's 6.12 from /usr/src/linux-source-6.12.tar.xz with Debian's own config
# for the same ABI (/boot/config-$KVER), plus the kernel's debuggers
# (scripts/debug-kernel/debug.config: KASAN, KFENCE, lockdep, UBSAN, DEBUG_VM,
# ...), trimmed to what the guest uses: the modules the guest tests load
# (scripts/debug-kernel/modules) become built-in, every other module is dropped
# (localyesconfig), built-in parts a q35 virtio guest never reaches go too
# (scripts/debug-kernel/trim.config).  Debian's stock rdma_rxe stays a module.
#
# usage: build-debug-kernel.sh [--quiet|--lookup]
#   Prints the cache entry directory on its last line.  The entry holds
#   vmlinux (booted by tests/vm/run --kernel debug), build/ (for out-of-tree
#   modules: make -C ENTRY/build M=...), modules/lib/modules/<release>/,
#   release (the kernel release string), config and info (how it was built).
#   --lookup only looks: it exits 1 (printing nothing) when the cache has no
#   entry for these inputs.  RXE_ODP_DEBUG_KERNEL=ENTRY uses that entry as it
#   is (to compare two configurations, or to test one while another builds).
#
# The cache lives outside the clone: $RXE_ODP_KCACHE (default
# /var/cache/rxe-odp), in debug-kernel/.  An entry is named
# <linux-source version>-<hash of the final .config, the compiler and $recipe>;
# an index (inputs/<hash of every input: the tarball's identity, Debian's
# config, the three files in scripts/debug-kernel/, this script, the compiler>)
# maps the inputs to it, so a warm lookup neither unpacks nor configures
# anything, and an edit that does not change the final .config costs a
# configuration run (about a minute), not a build.  A missing, incomplete or
# stale entry is rebuilt; builders take one lock, so concurrent runs wait for
# each other instead of building twice or corrupting the cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
quiet=0 lookup_only=0
case "${1:-}" in
--quiet) quiet=1 ;;
--lookup) quiet=1 lookup_only=1 ;;
'') ;;
*) echo "usage: $0 [--quiet|--lookup]" >&2 && exit 2 ;;
esac
say() { [ "$quiet" = 1 ] || echo "debug-kernel: $*" >&2; }
die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

kver=${KVER:-$("$here/kver.sh")}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
baseconfig=${DEBUG_KERNEL_BASE_CONFIG:-/boot/config-$kver}
frag=$here/debug-kernel
cache=${RXE_ODP_KCACHE:-/var/cache/rxe-odp}/debug-kernel
# Debian builds its kernels with this compiler name (CONFIG_CC_VERSION_TEXT);
# using the same one keeps the config's compiler checks identical.
cc=${DEBUG_KERNEL_CC:-x86_64-linux-gnu-gcc-12}
# one job more than cores: many short steps per object (fixdep, objtool) leave gaps
jobs=${JOBS:-$(($(nproc) + 1))}
# Bump when the build steps or the entry's layout change (not for the config:
# the final .config is part of the entry's name).
recipe=1

[ -r "$tarball" ] || die "$tarball missing: run 'make deps'"
[ -r "$baseconfig" ] || die "Debian's config $baseconfig missing: run 'make deps'"
command -v "$cc" >/dev/null || die "$cc not found: run 'make deps'"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
srcver=${srcver//\~/_}

# Everything that decides what gets built, cheap to compute.
inputs=$({
	echo "linux-source $srcver $(stat -c '%s %Y' "$tarball")"
	"$cc" --version | head -1
	sha256sum "$baseconfig" "$frag/debug.config" "$frag/trim.config" "$frag/modules" "$0" | cut -c1-64
} | sha256sum | cut -c1-16)

# complete DIR: the entry is whole (the stamp is written last) and its files exist.
complete() {
	[ -f "$1/complete" ] && [ -f "$1/vmlinux" ] && [ -f "$1/build/Module.symvers" ] &&
		[ -f "$1/release" ] && [ -d "$1/modules/lib/modules/$(cat "$1/release")" ] &&
		[ -f "$1/build/source/Makefile" ]
}

lookup() {
	local e
	e=$(readlink -f "$cache/inputs/$inputs" 2>/dev/null) || return 1
	complete "$e" || return 1
	touch "$e/last-used" 2>/dev/null || true
	echo "$e"
}

if [ -n "${RXE_ODP_DEBUG_KERNEL:-}" ]; then
	complete "$RXE_ODP_DEBUG_KERNEL" || die "RXE_ODP_DEBUG_KERNEL=$RXE_ODP_DEBUG_KERNEL is not a complete entry"
	echo "$RXE_ODP_DEBUG_KERNEL"
	exit 0
fi
if entry=$(lookup); then
	say "cached: $entry"
	echo "$entry"
	exit 0
fi
[ "$lookup_only" = 0 ] || exit 1

mkdir -p "$cache/inputs"
exec 9>"$cache/lock"
if ! flock -n 9; then
	say "another build holds $cache/lock; waiting for it"
	flock 9
fi
# The build we waited for may have been this one.
if entry=$(lookup); then
	say "cached: $entry"
	echo "$entry"
	exit 0
fi

t0=$(date +%s)
# The unpacked source is shared by every entry of one linux-source version.
src=$cache/src-$srcver-$(stat -c '%s-%Y' "$tarball")
if [ ! -f "$src/.unpacked" ]; then
	say "unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.unpacked"
fi
t1=$(date +%s)

# The config, in a scratch object directory.
scratch=$cache/config.tmp
rm -rf "$scratch"
mkdir -p "$scratch"
printf 'CC = %s\n' "$cc" >"$scratch/.kernelvariables"
cp "$baseconfig" "$scratch/.config"
grep -v '^\s*\(#\|$\)' "$frag/modules" | awk '{ print $1 }' >"$scratch/lsmod"
kmake() { make -C "$src" O="$1" LOCALVERSION= "${@:2}"; }
# Modules the guest loads become built-in, all others go, except rxe (=m).
kmake "$scratch" LSMOD="$scratch/lsmod" LMC_KEEP=drivers/infiniband/sw/rxe \
	localyesconfig </dev/null >"$scratch/config.log" 2>&1 ||
	{ cat "$scratch/config.log" >&2; die "localyesconfig failed"; }

# apply FRAGMENT: set every CONFIG_ line of a .config fragment.
apply() {
	local l n v args=()
	while IFS= read -r l; do
		case "$l" in
		"# CONFIG_"*" is not set")
			n=${l#\# CONFIG_}
			args+=(--disable "${n%% is not set}")
			;;
		CONFIG_*=*)
			n=${l%%=*} v=${l#*=}
			n=${n#CONFIG_}
			case "$v" in
			y) args+=(--enable "$n") ;;
			m) args+=(--module "$n") ;;
			\"*) v=${v#\"} && args+=(--set-str "$n" "${v%\"}") ;;
			*) args+=(--set-val "$n" "$v") ;;
			esac
			;;
		esac
	done <"$1"
	"$src/scripts/config" --file "$scratch/.config" "${args[@]}"
}
# unmet FRAGMENT: the fragment's lines the final .config does not have.
unmet() {
	local l n
	while IFS= read -r l; do
		case "$l" in
		"# CONFIG_"*" is not set")
			n=${l#\# }
			n=${n%% is not set}
			! grep -q "^$n=" "$scratch/.config" || echo "$l"
			;;
		CONFIG_*=*) grep -qxF "$l" "$scratch/.config" || echo "$l" ;;
		esac
	done <"$1"
}
apply "$frag/trim.config"
apply "$frag/debug.config"
kmake "$scratch" olddefconfig </dev/null >>"$scratch/config.log" 2>&1 ||
	{ cat "$scratch/config.log" >&2; die "olddefconfig failed"; }
bad=$(unmet "$frag/debug.config")
[ -z "$bad" ] || die "Kconfig refused these debug options (a dependency is missing):"$'\n'"$bad"
kept=$(unmet "$frag/trim.config")
[ -z "$kept" ] || say "still built in (selected by something the guest needs): $(echo $kept | sed 's/# CONFIG_//g; s/ is not set//g')"

key=$({
	grep -v '^#' "$scratch/.config"
	"$cc" --version | head -1
	echo "recipe $recipe"
} | sha256sum | cut -c1-12)
entry=$cache/$srcver-$key
if complete "$entry"; then
	say "the final config matches cached entry $entry"
else
	rm -rf "$entry"
	mkdir -p "$entry/build"
	mv "$scratch/.config" "$scratch/.kernelvariables" "$scratch/config.log" "$entry/build/"
	build=$entry/build
	t2=$(date +%s)
	say "building $srcver ($key) with $jobs jobs; log: $entry/build.log"
	# -pipe: no temporary assembler files (the output is the same)
	if ! kmake "$build" -j"$jobs" KCFLAGS=-pipe vmlinux modules >"$entry/build.log" 2>&1; then
		tail -40 "$entry/build.log" >&2
		die "kernel build failed (log: $entry/build.log)"
	fi
	kmake "$build" INSTALL_MOD_PATH="$entry/modules" modules_install >>"$entry/build.log" 2>&1 ||
		die "modules_install failed (log: $entry/build.log)"
	release=$(cat "$build/include/config/kernel.release")
	[ -f "$entry/modules/lib/modules/$release/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko" ] ||
		die "Debian's rdma_rxe.ko was not built"
	readelf -n "$build/vmlinux" | grep -q 'Unknown note type: (0x00000012)' ||
		die "vmlinux has no PVH entry note: QEMU cannot boot it directly"
	# Out-of-tree modules need the headers, scripts and Module.symvers, not
	# the kernel's objects: drop those (they are most of the size).
	mv "$build/vmlinux" "$entry/vmlinux"
	find "$build" \( -path "$build/scripts" -o -path "$build/tools" \) -prune -o \
		-type f \( -name '*.o' -o -name '*.a' -o -name '.*.cmd' -o -name '*.mod.c' \) -print0 |
		xargs -0 rm -f
	rm -f "$build/vmlinux.o" "$build/arch/x86/boot/compressed/vmlinux.bin"*
	cp "$build/.config" "$entry/config"
	echo "$release" >"$entry/release"
	{
		echo "linux-source-6.12 $srcver, Debian config $(basename "$baseconfig"), $("$cc" --version | head -1)"
		echo "built $(date -u +%FT%TZ) in $(($(date +%s) - t0)) s with $jobs jobs on $(nproc) cores:" \
			"unpack $((t1 - t0)) s, config $((t2 - t1)) s, build and install $(($(date +%s) - t2)) s"
		echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$entry/info"
	touch "$entry/last-used" "$entry/complete"
	say "built $entry in $(($(date +%s) - t0)) s"
fi
rm -rf "$scratch"
ln -sfn "../$(basename "$entry")" "$cache/inputs/$inputs"

# Keep the cache small (we hold the lock, so no build is in progress): the
# sources of other linux-source versions go, and so do unfinished entries,
# entries whose sources are gone, and entries beyond the newest three that
# nobody used for two weeks.
for old in "$cache"/src-*; do
	[ "$old" = "$src" ] || rm -rf "$old"
done
n=0
for old in $(ls -1dt "$cache"/*/ | sed 's|/$||'); do
	case "$old" in "$entry" | "$src" | "$cache/inputs") continue ;; esac
	n=$((n + 1))
	if ! complete "$old" || { [ "$n" -ge 3 ] && [ -z "$(find "$old/last-used" -mtime -14)" ]; }; then
		rm -rf "$old"
	fi
done
find "$cache/inputs" -xtype l -delete
echo "$entry"
