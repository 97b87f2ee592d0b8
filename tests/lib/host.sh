#!/bin/bash
# Helpers for host tests (sourced).  $TOP is the checkout, $KVER the kernel ABI.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KVER=${KVER:-$("$TOP/scripts/kver.sh")}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The kernel's own tools (checkpatch and its data files) from the same
# linux-source tarball the module is built from, extracted once.
kernel_scripts() {
	local dir=$TOP/build/kscripts
	if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$dir"
		tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=1 \
			--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' || return 1
	fi
	echo "$dir"
}
