#!/bin/bash
# Every patch in patches/ and every kernel/ source file is checkpatch --strict clean.
source "$TOP/tests/lib/host.sh"
ks=$(kernel_scripts) || fail "cannot extract checkpatch.pl from linux-source"
cp=("$ks/scripts/checkpatch.pl" --strict --no-tree --color=never --show-types)
bad=0 n=0
while read -r p _; do
	case "$p" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	# A patch that adds no file needs no MAINTAINERS check.
	if ! perl "${cp[@]}" --ignore FILE_PATH_CHANGES "$TOP/patches/$p"; then
		echo "checkpatch: patches/$p is not clean"
		bad=1
	fi
done <"$TOP/patches/series"
for f in "$TOP"/kernel/*.[ch]; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	if ! perl "${cp[@]}" --file "$f"; then
		echo "checkpatch: kernel/$(basename "$f") is not clean"
		bad=1
	fi
done
[ "$bad" = 0 ] || fail "checkpatch --strict found problems"
echo "checkpatch --strict: $n files clean"
