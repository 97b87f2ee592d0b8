#!/usr/bin/env python3
"""Split a system-wide perf profile of `fault-cost` into its two fault paths.

Reads `perf script -F comm,sym` output (call chains, innermost frame first)
on stdin.  A sample belongs to

  kernel   when its chain holds the kernel's own populate
           (madvise(MADV_POPULATE_WRITE): faultin_page_range / madvise_populate)
  driver   when its chain holds ib_umem_odp_map_dma_and_lock(), the call rxe
           times as its fault service (odp_fault_ns_total)

and to neither otherwise (the copies, the wire, the set-up of each round).
Each sample of a path is put in one category by the first frame, innermost
first, that matches a category's pattern (so time in a page walk that zeroes
a page counts as zeroing).  With --pages N (the pages each path faulted in
during the profile), samples are also given per 1000 pages, and the last
column is driver minus kernel: what the driver's fault costs beyond the
kernel's own, by category.

usage: perf script ... | fault-split.py [--pages N] [--hz HZ] [--top K]
"""
import argparse
import re
import sys
from collections import Counter

PATHS = {
    "kernel": re.compile(r"^(faultin_page_range|madvise_populate)$"),
    "driver": re.compile(r"^ib_umem_odp_map_dma_and_lock$"),
}

# Innermost match wins; the order only matters for a frame that matches two.
CATEGORIES = [
    ("zeroing", r"^(clear_page|clear_huge_page|folio_zero|clear_user)"),
    ("swap-in read", r"^(zram_|lz4|LZ4_|swap_read|swap_readpage|__swap_read|bio_|submit_bio)"),
    ("memcg charge", r"^(__mem_cgroup_charge|mem_cgroup_|charge_memcg|try_charge|memcg_|"
     r"mem_cgroup_swapin_charge)"),
    ("page allocation", r"^(__alloc_pages|alloc_pages|get_page_from_freelist|rmqueue|"
     r"__rmqueue|vma_alloc_folio|folio_alloc|alloc_anon_folio|__folio_alloc|"
     r"prep_new_page|post_alloc_hook)"),
    ("lru/rmap/swap cache", r"^(folio_add_lru|lru_add|folio_batch|__folio_batch|"
     r"folio_add_new_anon_rmap|folio_add_anon_rmap|__folio_add|swap_free|swapcache_|"
     r"free_swap|__swap_entry_free|swap_range_free|swap_cache|delete_from_swap|"
     r"add_to_swap|folio_lruvec|lru_gen|__mod_lruvec|__lruvec_stat|mod_objcg|"
     r"__count_memcg)"),
    ("rxe/umem_odp bookkeeping", r"^(ib_umem_odp_map_dma_single_page|ib_umem_odp_|"
     r"ib_dma_|dma_map_|rxe_)"),
    ("hmm walk", r"^(hmm_|walk_page_range|walk_pgd_range|walk_p4d_range|walk_pud_range|"
     r"walk_pmd_range|walk_pte_range|__walk_page_range|walk_page_test)"),
    ("gup walk", r"^(__get_user_pages|follow_page|follow_p|faultin_page$|"
     r"get_user_pages|gup_)"),
    ("fault core", r"^(handle_mm_fault|__handle_mm_fault|do_anonymous_page|do_swap_page|"
     r"do_pte_missing|handle_pte_fault|set_pte|__pte_offset|pte_|pmd_|__pte_alloc|"
     r"ptep_|lock_vma|vma_)"),
    ("locks", r"^(_raw_spin|queued_spin|mutex_|down_read|up_read|mmap_read|"
     r"rwsem|__mutex|osq_)"),
    ("notifier/seq", r"^(mmu_interval|mmu_notifier|__mmu_notifier)"),
    ("irq/softirq/timer", r"^(__irq_|irq_|__do_softirq|handle_softirqs|"
     r"asm_sysvec|sysvec_|hrtimer|tick_|__sysvec|do_IRQ|common_interrupt)"),
]
CATEGORIES = [(n, re.compile(p)) for n, p in CATEGORIES]


CHAIN_LINE = re.compile(r"^\s+[0-9a-f]{6,}\s+(\S+)")


def frames(lines):
    """(comm, [symbol, ...]) per sample of perf script output: a header line
    (the comm, right-aligned by perf) and its call chain lines ("  ffffffff81234567 sym")."""
    comm, chain = None, []
    for line in lines:
        m = CHAIN_LINE.match(line)
        if m:
            chain.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)))
            continue
        if comm is not None:
            yield comm, chain
        comm, chain = (line.split()[0] if line.strip() else None), []
    if comm is not None:
        yield comm, chain


def classify(chain):
    for sym in chain:
        for name, pat in CATEGORIES:
            if pat.search(sym):
                return name
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=0,
                    help="pages each path faulted during the profile (for per-1000-page figures)")
    ap.add_argument("--hz", type=float, default=0,
                    help="sampling frequency, to turn samples into microseconds per page")
    ap.add_argument("--top", type=int, default=8, help="hottest self symbols listed per path")
    a = ap.parse_args()

    cat = {p: Counter() for p in PATHS}
    top = {p: Counter() for p in PATHS}
    total = neither = 0
    for _comm, chain in frames(sys.stdin):
        total += 1
        path = next((p for p, pat in PATHS.items() if any(pat.search(s) for s in chain)), None)
        if path is None:
            neither += 1
            continue
        cat[path][classify(chain)] += 1
        top[path][chain[0] if chain else "?"] += 1

    n = {p: sum(cat[p].values()) for p in PATHS}
    print("samples: %d; kernel populate %d, driver fault service %d, neither %d"
          % (total, n["kernel"], n["driver"], neither))
    if a.pages:
        print("pages faulted per path: %d; driver/kernel samples per page: %s"
              % (a.pages, "%.3f" % (n["driver"] / n["kernel"]) if n["kernel"] else "n/a"))
    unit = ""
    scale = 1.0
    if a.pages and a.hz:
        unit, scale = "us/page", 1e6 / a.hz / a.pages
    elif a.pages:
        unit, scale = "per 1000 pages", 1000.0 / a.pages
    names = [c for c, _ in CATEGORIES] + ["other"]
    head = "%-26s %9s %9s" % ("category", "kernel", "driver")
    if unit:
        head += "  %12s %12s %12s" % ("kernel " + unit.split()[0], "driver", "driver-kernel")
    print(head)
    for c in names:
        k, d = cat["kernel"][c], cat["driver"][c]
        if not k and not d:
            continue
        line = "%-26s %8.1f%% %8.1f%%" % (c, 100.0 * k / max(n["kernel"], 1), 100.0 * d / max(n["driver"], 1))
        if unit:
            line += "  %12.3f %12.3f %+12.3f" % (k * scale, d * scale, (d - k) * scale)
        print(line)
    if unit:
        print("%-26s %9s %9s  %12.3f %12.3f %+12.3f" % ("all", "", "", n["kernel"] * scale,
                                                        n["driver"] * scale, (n["driver"] - n["kernel"]) * scale))
    for p in PATHS:
        print("hottest self symbols, %s:" % p)
        for sym, k in top[p].most_common(a.top):
            print("  %6.1f%% %s" % (100.0 * k / max(n[p], 1), sym))
    return 0 if n["kernel"] and n["driver"] else 1


if __name__ == "__main__":
    sys.exit(main())
