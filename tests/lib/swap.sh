#!/bin/bash
# Swap for the tests, the demo and the bench in a guest (sourced): a zram
# device, so that reclaim, MADV_PAGEOUT and a cgroup limit have somewhere to
# write pages and a swap-in costs the CPU's decompression, never a disk.

# zram_swap SIZE: swap on a new zram device of SIZE (lz4, the cheapest
# compressor Debian's kernel has), unless some swap is on already; prints the
# swap devices in use.  Returns 1, saying why on stderr, when it cannot.
zram_swap() {
	local dev
	if [ -z "$(swapon --noheadings --show=NAME)" ]; then
		modprobe zram num_devices=1 || { echo "zram_swap: modprobe zram failed" >&2; return 1; }
		dev=$(zramctl --find --size "$1" --algorithm lz4) ||
			{ echo "zram_swap: no free zram device of $1" >&2; return 1; }
		if ! mkswap "$dev" >/dev/null || ! swapon "$dev"; then
			echo "zram_swap: cannot swap on $dev" >&2
			return 1
		fi
	fi
	swapon --noheadings --show=NAME | paste -sd ' '
}
