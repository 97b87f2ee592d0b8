#!/bin/bash
# debug-kernel:
# Prefetch of ODP MRs (the advise_mr verb, issue 13), through uverbs' ioctl()
# ABI since rdma-core 44's librxe has no advise_mr: odp-selftest's prefetch_*
# cases. Sync PREFETCH/PREFETCH_WRITE map the whole range (per-MR
# odp_mapped_pages/odp_pages_prefetched, device odp_pages_prefetched) and the
# next RDMA access faults nothing; a read prefetch maps read-only;
# PREFETCH_NO_FAULT maps exactly the present pages and faults nothing in;
# PREFETCH_WRITE breaks COW (MAP_PRIVATE file, fork); an async prefetch
# completes; prefetches racing munmap and dereg, and a process exiting with
# prefetches queued, are safe and leak nothing; every error case answers the
# errno mlx5 gives. Then odp-bench --prefetch (what the bench's prefetch step
# runs, briefly): from the MR's own counters, not timing, the cold data pass
# after a sync prefetch faulted no page while the pass without one faulted
# every page, and an async prefetch was accepted. Then the module is
# unloaded, which drains the prefetch workqueue.
source "$TOP/tests/lib/guest.sh"

command -v odp-selftest >/dev/null || fail "odp-selftest not built (make)"
[ -e /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_pages_prefetched ] ||
	fail "rxe0 has no odp_pages_prefetched counter: not our module with prefetch?"

odp-selftest -d rxe0 -g "$RXE_GID" 'prefetch_*' | tee /tmp/pf.tap
rc=${PIPESTATUS[0]}
grep -q '^# odp-selftest: ' /tmp/pf.tap || fail "odp-selftest did not finish (rc $rc)"
[ "$rc" = 0 ] || fail "odp-selftest prefetch_* failed"
if grep '^skip' /tmp/pf.tap; then
	fail "prefetch cases skipped on our module"
fi
echo "device odp_pages_prefetched: $(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/odp_pages_prefetched)"

# odp-bench --prefetch: a 2 MiB region (512 pages), resident before it is
# registered, so only the MR's mapping is cold; RDMA WRITE into it.
command -v odp-bench >/dev/null || fail "odp-bench not built (make)"
pages=512
odp-bench pass --size 2M --chunk 256K --reps 2 --prefetch none,sync,async --tag t >/tmp/pfb.csv 2>/tmp/pfb.err
rc=$?
cat /tmp/pfb.csv
[ "$rc" = 0 ] || { cat /tmp/pfb.err; fail "odp-bench pass --prefetch exited $rc"; }
val() { # case mode run: the value of that row, or nothing
	awk -F, -v c="$1" -v m="$2" -v r="$3" '$1 == "prefetch" && $2 == c && $3 == m && $6 == r { print $7 }' /tmp/pfb.csv
}
for run in 1 2; do
	for kind in sync async; do
		[ -n "$(val advise "$kind" "$run")" ] || fail "run $run: no advise row for $kind (errors: $(grep advise-error /tmp/pfb.csv))"
	done
	sync_f=$(val write-remote-cold-faulted sync "$run")
	none_f=$(val write-remote-cold-faulted none "$run")
	sync_p=$(val prefetched sync "$run")
	none_p=$(val prefetched none "$run")
	[ -n "$sync_f" ] && [ -n "$none_f" ] || fail "run $run: no per-MR fault counts (rdma resource show mr -dd?)"
	[ "$sync_f" = 0 ] || fail "run $run: the pass after a sync prefetch faulted $sync_f pages"
	[ "$none_f" -ge "$pages" ] || fail "run $run: the pass without prefetch faulted $none_f pages, expected >= $pages"
	[ "${sync_p:-0}" -ge "$pages" ] || fail "run $run: sync prefetch counted ${sync_p:-no} prefetched pages, expected >= $pages"
	[ "${none_p:-x}" = 0 ] || fail "run $run: the MR without prefetch counted ${none_p:-no} prefetched pages"
	echo "run $run: cold pass faulted none=$none_f sync=$sync_f async=$(val write-remote-cold-faulted async "$run") pages"
done

# Async prefetches may still be queued (the races queue many): unloading
# must wait for them (destroy_workqueue) without a kernel report.
{ rdma link delete rxe0 && rmmod rdma_rxe; } || fail "cannot unload rdma_rxe after the prefetch tests"
echo "odp-prefetch: ok"
