#!/bin/bash
# Check that patches/ is one series that could be mailed upstream as it is.
#
# usage: scripts/check-series.sh [--build] [--patches DIR] [--keep] [-h|--help]
#
# In a temporary git repository of Debian's rxe sources
# (drivers/infiniband/sw/rxe from /usr/src/linux-source-6.12.tar.xz, at that
# path, so the patches apply with -p1) it checks:
#
#   form      every file in patches/series is a complete git am mbox: the
#             'From <sha> Mon Sep 17 00:00:00 2001' line, From:, Date: and
#             Subject: headers, a commit message, Signed-off-by:, '---', a
#             diff; file names NNNN-*.patch numbered 1..N in series order;
#             every patches/*.patch is in series
#   subjects  '[PATCH NN/MM] RDMA/rxe: ...' with NN = the patch's place in
#             series (1..MM, contiguous, zero-padded to MM's width) and
#             MM = the number of patches
#   git am    each patch in order ('git am --whitespace=error'), naming the
#             first one that does not apply; its commit keeps the author
#             and subject of the mail
#   same tree the tree after 'git am' of the whole series equals the tree
#             scripts/build-module.sh gets with 'patch -p1 -F0'
#   checkpatch 'checkpatch.pl --strict' on every patch (from the same
#             linux-source tarball, as tests/host/02-checkpatch.sh)
#
# --build   also build after every patch (slow: make series-check). Each
#           step compiles every object of rxe's Makefile with W=1 and links
#           them into rdma_rxe.o; any compiler warning or error fails the step,
#           naming the patch. kernel/*.h are there from the start (rxe's
#           files include some from patch 10 on); the step lists the kernel/
#           headers its files include and the symbols rdma_rxe.o needs from
#           kernel/ (our ODP files are copied in by the build, not added by
#           a patch; see patches/README.md). After the last
#           patch the whole module is built with kernel/ as
#           scripts/build-module.sh does (W=1, modpost, no warnings).
# --patches DIR  check DIR (holding series and the patches) instead of
#           patches/ (tests use it to plant broken series)
# --keep    keep the temporary directory and print its path
#
# Environment: KVER (default scripts/kver.sh), KDIR (default
# /lib/modules/$KVER/build), LINUX_SOURCE_TARBALL, RXE_SRC_CACHE (as for
# scripts/build-module.sh: the unpacked rxe sources it keeps are reused).
# Exit 0 when every check passed, 1 when one failed, 2 on a usage error.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

build=0 keep=0 pdir=$TOP/patches
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=1 ;;
	--keep) keep=1 ;;
	--patches)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		pdir=$(cd "$2" && pwd)
		shift
		;;
	-h | --help) usage; exit 0 ;;
	*) echo "check-series: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
rel=drivers/infiniband/sw/rxe
series=$pdir/series
[ -r "$tarball" ] || { echo "check-series: $tarball missing: run 'make deps'" >&2; exit 1; }
[ -f "$series" ] || { echo "check-series: $series missing" >&2; exit 1; }

t0=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-series.XXXXXX")
if [ "$keep" = 1 ]; then
	echo "check-series: keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi
bad=0
problem() {
	echo "check-series: $*"
	bad=1
}

# --- form and subjects -------------------------------------------------------
mapfile -t patches < <(awk '$1 != "" && $1 !~ /^#/ {print $1}' "$series")
total=${#patches[@]}
[ "$total" -gt 0 ] || { echo "check-series: $series lists no patch" >&2; exit 1; }
width=${#total}
for f in "$pdir"/*.patch; do
	[ -e "$f" ] || continue
	b=$(basename "$f")
	# a here-string, not a pipe: under pipefail, grep -q leaving at the first
	# match can kill printf with SIGPIPE and fail the check at random
	grep -qxF "$b" <<<"$(printf '%s\n' "${patches[@]}")" ||
		problem "$b is in $(basename "$pdir")/ but not in series"
done
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	f=$pdir/$p
	[ -f "$f" ] || { problem "series names $p, which does not exist"; continue; }
	case "$p" in
	"$(printf '%04d' "$n")"-*.patch) ;;
	*) problem "$p: file name should start with $(printf '%04d' "$n")- (its place in series)" ;;
	esac
	grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' <<<"$(head -1 "$f")" ||
		problem "$p: line 1 is not the mbox line 'From <sha> Mon Sep 17 00:00:00 2001'"
	# The mail header ends at the first empty line; folded lines start with a blank.
	hdr=$(awk '/^$/ {exit} !(NR == 1 && /^From /)' "$f" |
		awk '/^[ \t]/ {sub(/^[ \t]+/, " "); h = h $0; next} {if (h != "") print h; h = $0} END {print h}')
	for h in From Date Subject; do
		[ "$(grep -c "^$h: " <<<"$hdr")" = 1 ] || problem "$p: needs exactly one '$h:' header"
	done
	subj=$(sed -n 's/^Subject: //p' <<<"$hdr" | head -1)
	want=$(printf '[PATCH %0*d/%d] ' "$width" "$n" "$total")
	case "$subj" in
	"$want"RDMA/rxe:\ ?*) ;;
	*) problem "$p: subject '$subj' should start with '${want}RDMA/rxe: '" ;;
	esac
	# Message, Signed-off-by and diff: the first '---' line ends the message.
	awk '
		!body { if (/^$/) body = 1; next }
		!cut && /^---$/ { cut = 1; next }
		!cut { if (/[^ \t]/ && !/^Signed-off-by: /) text = 1; if (/^Signed-off-by: .+ <.+@.+>$/) sob = 1; next }
		/^diff --git a\// || /^--- a\// { diff = 1 }
		END {
			if (!text) print "no commit message"
			if (!sob) print "no Signed-off-by: line before ---"
			if (!cut) print "no --- line after the message"
			if (!diff) print "no diff after ---"
		}' "$f" | while read -r what; do echo "check-series: $p: $what"; done | grep . && bad=1
done
[ "$bad" = 0 ] && echo "check-series: form and subjects: $total patches, [PATCH 1..$total/$total]"
[ "$bad" = 0 ] || { echo "check-series: FAILED (form or subjects)"; exit 1; }

# --- Debian's rxe sources in a git repository ------------------------------
# build-module.sh keeps the unpacked rxe sources keyed by the tarball's
# identity; reuse them when there, else unpack (about 20 s).
pristine=${RXE_SRC_CACHE:-$TOP/build}/rxe-src-$(stat -c '%s-%Y' "$tarball")
repo=$tmp/linux
mkdir -p "$repo"
if [ -f "$pristine/$rel/rxe.c" ]; then
	mkdir -p "$repo/$rel"
	cp -r "$pristine/$rel/." "$repo/$rel/"
else
	tar -xJf "$tarball" -C "$repo" --strip-components=1 --wildcards "*/$rel/*"
fi
[ -f "$repo/$rel/rxe.c" ] || { echo "check-series: $rel not found in $tarball" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
g() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$repo" \
	-c user.name=check-series -c user.email=check-series@invalid "$@"; }
g init -q
# Build products of --build and the files kernel/ adds are not the series'.
printf '%s\n' '*.o' '*.ko' '*.mod' '*.mod.c' '.*.cmd' '*.order' '*.symvers' \
	'/drivers/infiniband/sw/rxe/Kbuild' '/drivers/infiniband/sw/rxe/rxe_odp*' \
	'/drivers/infiniband/sw/rxe/rxe_version.c' >"$repo/.git/info/exclude"
g add -A
g commit -q -m "Debian linux-source-6.12 $srcver: $rel"
base=$(g rev-parse HEAD)

# --- per-step build helpers --------------------------------------------------
if [ "$build" = 1 ]; then
	kver=${KVER:-$("$TOP/scripts/kver.sh")}
	kdir=${KDIR:-/lib/modules/$kver/build}
	[ -f "$kdir/Makefile" ] || { echo "check-series: no headers for $kver in $kdir: run 'make deps'" >&2; exit 1; }
	echo "check-series: building every step against $kdir"
	# From patch 10 on, rxe's files include headers of kernel/ (untracked
	# here, as in our build, where kernel/ is copied in after the series).
	for f in "$TOP"/kernel/*.h; do
		[ -e "$f" ] && cp "$f" "$repo/$rel/"
	done
fi
# kmake LOG TARGET...: W=1 build in the repo's rxe directory; fails on any
# warning or error (make's own '-jN forced in submake' notes aside).
kmake() {
	local log=$1
	shift
	if ! make -C "$kdir" M="$repo/$rel" W=1 -j"$(nproc)" "$@" >"$log" 2>&1; then
		tail -40 "$log"
		return 1
	fi
	if grep -E 'warning:|error:|^WARNING:|^ERROR:' "$log" | grep -vE '^make(\[[0-9]+\])?: '; then
		return 1
	fi
}

# kernel_headers: the headers that rxe's tracked files include and that are
# not in the tree the series makes (they come from kernel/).
kernel_headers() {
	local h
	{ g grep -h '^#include "' -- "$rel" || true; } | sed 's/^#include "\([^"]*\)".*/\1/' | sort -u |
		while read -r h; do
			if ! g ls-files --error-unmatch "$rel/$h" >/dev/null 2>&1; then
				printf '%s ' "$h"
			fi
		done
}

# --- git am, patch by patch ---------------------------------------------------
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	ts=$(date +%s)
	if ! out=$(g am -q --whitespace=error "$pdir/$p" 2>&1); then
		echo "$out"
		g am --abort >/dev/null 2>&1 || true
		echo "check-series: FAILED: git am of patch $n, $p (onto $rel of linux-source-6.12 $srcver + patches 1..$((n - 1)))"
		exit 1
	fi
	# The commit carries the mail's author and subject (tag stripped).
	want=$(awk '/^$/ {exit} 1' "$pdir/$p" | sed -n 's/^From: //p' | head -1)
	got=$(g log -1 --format='%an <%ae>')
	[ "$got" = "$want" ] || problem "$p: git am made author '$got', the mail says '$want'"
	subj=$(g log -1 --format=%s)
	case "$subj" in RDMA/rxe:\ ?*) ;; *) problem "$p: git am made subject '$subj'" ;; esac
	if [ "$build" = 1 ]; then
		# Compile and link what rxe's own Makefile lists (kernel/ is not
		# part of the series); what is left undefined must come from kernel/.
		if ! kmake "$tmp/build-$n.log" rdma_rxe.o; then
			echo "check-series: FAILED: the build after patch $n, $p, is not clean (W=1)"
			exit 1
		fi
		need=$(nm -u "$repo/$rel/rdma_rxe.o" | awk '$2 ~ /^rxe_/ {print $2}' | sort | tr '\n' ' ')
		hdrs=$(kernel_headers)
		echo "check-series: $(printf '%02d' "$n") $p: builds (W=1), $(($(date +%s) - ts)) s${hdrs:+; includes from kernel/: $hdrs}${need:+; needs from kernel/: $need}"
	else
		echo "check-series: $(printf '%02d' "$n") $p: applies"
	fi
done
echo "check-series: git am: $total patches applied onto linux-source-6.12 $srcver ($(g rev-list --count "$base"..HEAD) commits)"

# --- the build's way of applying gives the same tree --------------------------
viapatch=$tmp/viapatch
mkdir -p "$viapatch"
g archive "$base" | tar -x -C "$viapatch"
for p in "${patches[@]}"; do
	patch -s -d "$viapatch" -p1 -N -F0 --no-backup-if-mismatch <"$pdir/$p" >/dev/null 2>&1 ||
		{ problem "patch -p1 -F0 (scripts/build-module.sh's way) does not apply $p"; break; }
done
amtree=$tmp/amtree
mkdir -p "$amtree"
g archive HEAD | tar -x -C "$amtree"
if diff -r "$viapatch" "$amtree" >"$tmp/tree.diff"; then
	echo "check-series: git am and patch -p1 -F0 give the same tree"
else
	head -40 "$tmp/tree.diff"
	problem "git am and scripts/build-module.sh's patch -p1 -F0 give different trees"
fi

# --- checkpatch --strict on every patch -----------------------------------------
# shellcheck source=../tests/lib/host.sh
source "$TOP/tests/lib/host.sh"
ks=$(kernel_scripts) || { echo "check-series: cannot extract checkpatch.pl from $tarball" >&2; exit 1; }
# A patch that adds a file to drivers/infiniband/sw/rxe/ needs no MAINTAINERS
# change: rxe's entry covers the whole directory.
for p in "${patches[@]}"; do
	if ! perl "$ks/scripts/checkpatch.pl" --strict --no-tree --color=never --show-types \
		--ignore FILE_PATH_CHANGES "$pdir/$p" >"$tmp/checkpatch.log" 2>&1; then
		cat "$tmp/checkpatch.log"
		problem "checkpatch --strict: $p is not clean"
	fi
done
[ "$bad" = 0 ] && echo "check-series: checkpatch --strict: $total patches clean"

# --- the whole module, with kernel/, after the last patch --------------------------
if [ "$build" = 1 ] && [ "$bad" = 0 ]; then
	for f in "$TOP"/kernel/*.[ch] "$TOP"/kernel/Kbuild; do
		[ -e "$f" ] && cp "$f" "$repo/$rel/"
	done
	printf '/* generated by check-series.sh */\n#define RXE_ODP_VERSION "%s"\n' "check-series" \
		>"$repo/$rel/rxe_odp_version.h"
	ts=$(date +%s)
	if kmake "$tmp/build-module.log" modules; then
		echo "check-series: the module with kernel/ after patch $total builds (W=1, modpost), $(($(date +%s) - ts)) s"
	else
		problem "the module with kernel/ after patch $total does not build cleanly"
	fi
fi

echo "check-series: $(($(date +%s) - t0)) s"
if [ "$bad" != 0 ]; then
	echo "check-series: FAILED"
	exit 1
fi
steps=
[ "$build" = 1 ] && steps=", built at every step"
echo "check-series: OK: $total patches$steps"
