// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * On-Demand Paging (ODP) memory regions for rxe.
 *
 * An ODP MR pins nothing and translates nothing until it is used. Its
 * translation is kept in children: ib_umem_odp's, each covering one
 * 2 MiB-aligned chunk of the address space (odp_child_shift; clipped to the
 * MR), made by ib_umem_odp_alloc_child() on the first access, prefetch or
 * atomic in the chunk, below a parent from ib_umem_odp_alloc_implicit()
 * that owns no range, no array and no notifier. So registration costs the
 * same for 4 KiB and for 1 TiB (the core's per-page arrays, 16 bytes per
 * 4 KiB page, are allocated per child, when it is made), and one MR may
 * cover the whole address space: implicit ODP, registered as start 0,
 * length U64_MAX, iova 0 (mlx5's convention), which reaches every address
 * below the owner's task_size; an address beyond it, or unmapped, fails
 * like an unmapped address of an explicit MR. A huge-page MR
 * (IB_ACCESS_HUGETLB) keeps one umem for its whole range as before: the
 * core's children are 4 KiB-paged, and its arrays are 1/512 the size.
 *
 * In a translating umem (a child, or a huge-page MR's umem), rxe being a
 * virtual-DMA device, dma_list[i] is the kernel address of umem page i
 * with ODP_READ_ALLOWED_BIT / ODP_WRITE_ALLOWED_BIT in the low bits, and
 * an entry is valid only while those bits are set. pfn_list is not used:
 * hmm_range_fault() rewrites it without umem_mutex.
 *
 * Children: struct rxe_odp_tree (the parent's ->private) holds them in an
 * xarray keyed by chunk index (address >> tree->shift). A lookup
 * takes no lock of rxe's (an RCU read, see "Child lifetime"): a child is
 * published by xa_store() only once complete. Creation takes the tree's
 * child_mutex, looks again, allocates (GFP_KERNEL) and inserts the child's
 * interval notifier, which may take mmap_lock; so it runs with no lock
 * held, in process context or the rxe_wq worker, like a fault. A child
 * translates nothing when made, so it needs no notifier sequence of its
 * own before its first fault. Each child has its own umem_mutex, notifier
 * and page-use bitmap (rxe_odp_young.c); no code holds two umem_mutexes.
 * None is made for a chunk of which nothing from the accessed address on
 * is mapped (a VMA lookup before child_mutex): accesses to unmapped
 * addresses fail without leaving memory behind.
 * An access is split at child boundaries (and every RXE_ODP_MAX_CHUNK
 * bytes), and fault-ahead stays within the child.
 * The chunk is 2 MiB, chosen with bench/run.sh's chunk step (shifts 16
 * to 27 in one boot; idle host, bench/results/2026-12-05-a8abb6b-*): per
 * page of chunk a child costs 14-33 bytes at 64 and 256 KiB (noisy: the
 * child is small against the heap's noise), 16-16.6 at 2 MiB, 16.1-18.5
 * at 16 MiB and 128 MiB; its deregistration 5, 7, 11, 35 and 217 us;
 * the first access of a chunk (by prefetch: make the child, map a page)
 * 8, 8, 19 and 100 us up to 16 MiB. 2 MiB is within 4 % of the 16-byte
 * floor; larger chunks save under 2 % more, at 64-512 KiB of arrays and
 * 5x the first-access time for one touched page. It is a PMD, so a
 * THP split, collapse or migration invalidates one child, and a first
 * touch allocates 8 KiB of arrays plus ~0.4 KiB of child, in microseconds
 * on the data path, where mlx5's 1 GiB children (a hardware table
 * constraint) would allocate 4 MiB, ~10 ms, for a single page; a fully
 * touched range costs what one umem over it cost (16 bytes per 4 KiB
 * page) plus ~5%.
 *
 * Child lifetime: a child is freed when an unmap has left it translating
 * nothing: an invalidation with event MMU_NOTIFY_UNMAP (munmap, mremap's
 * old range, mmap over it, exit's unmap) after which its umem has no
 * valid page (npages == 0). That is exact without looking at the VMAs,
 * which the callback cannot (munmap holds mmap_lock for write): a child
 * with no valid page translates nothing, so freeing it loses nothing but
 * its arrays, made again in microseconds by the next access, and a chunk
 * unmapped piecewise (one mapping of several, malloc's trimming) is freed
 * by the unmap that takes its last mapped page. Other events keep the
 * child, whatever they leave: reclaim and swap (CLEAR), MADV_DONTNEED
 * (CLEAR), migration, NUMA hinting and mprotect: the same addresses stay
 * mapped and their pages come back, and freeing there would make reclaim
 * churn the arrays. A chunk whose unmap raced the child's creation (before
 * it was published) keeps its empty child until the next unmap of it or
 * deregistration.
 * The free is deferred: the invalidate callback cannot remove the child's
 * own notifier (mmu_interval_notifier_remove() waits for the callback),
 * and lookups are lock-free. Protocol, per child:
 *   - @dying, under the child's umem_mutex: set once, by the callback
 *     (which then puts the child on tree->dead and queues tree->reap_work)
 *     or by rxe_odp_mr_release(); whoever sets it puts the child on the
 *     list, so each child is freed exactly once. A new child is made dying
 *     and becomes claimable only once published.
 *   - @users: a lookup (rxe_odp_child_get()) takes a reference inside an
 *     RCU read section that covers xa_load() and the increment, and only
 *     on a child not dying; every user drops it (rxe_odp_child_put()) after
 *     its last touch of the child, its umem_mutex released. A lookup that
 *     finds a dying child makes a new one under child_mutex (the VMA check
 *     first), which replaces the dying one in the xarray.
 *   - rxe_odp_reap() (the work, on system_unbound_wq, or release): takes
 *     the list, erases each child still in the xarray (xa_cmpxchg(): not
 *     its replacement) under child_mutex, synchronize_rcu() so no lookup
 *     can take a new reference, waits for @users to reach 0
 *     (wait_var_event()), then removes the notifier and frees the child.
 *   - rxe_odp_mr_release() claims every child left under child_mutex and
 *     their umem_mutexes, reaps them, and cancel_work_sync()s the work:
 *     after the claim no callback queues it again. Its reap skips the
 *     grace period: every lookup runs under a reference on the MR, and
 *     the MR's cleanup starts only after the last one was dropped
 *     (rxe_cleanup() waits for it), so no lookup can still be inside its
 *     RCU read section. The grace period (a scheduler tick or more) would
 *     otherwise make deregistering an MR that faulted anything cost ~40
 *     times more than one that faulted nothing.
 * Holding child_mutex keeps every child in the xarray allocated (the reaper
 * erases under it before it frees): rxe_odp_fill_res_mr_entry() walks them
 * under it. odp_children in "rdma resource show mr -dd" counts children
 * made and not freed yet; odp_children_freed those freed by the work
 * (after an unmap or an eviction); odp_children_evicted those the bound
 * evicted; odp_pages_flushed the 4 KiB pages persistent RDMA FLUSHes wrote
 * back.
 *
 * Bound: a child costs ~8.6 KiB per 2 MiB chunk (the core's arrays, 16
 * bytes per 4 KiB page, and the child) for as long as its chunk stays
 * mapped, in kernel memory no memory cgroup is charged for (the core
 * allocates the arrays without __GFP_ACCOUNT). A peer holding an implicit
 * rkey could make the owner's kernel keep that for every chunk of a huge
 * MAP_NORESERVE reservation it reads. So the live children of all MRs
 * (published, not dying: rxe_odp_live_children) are kept under
 * odp_max_children, by default as many as cover four times the RAM: at
 * most ~1.7 % of RAM in translation. Past it, rxe_odp_child() evicts
 * another child of the same MR before it makes one, under child_mutex
 * (rxe_odp_evict_locked(): round-robin, an unused one first), which is
 * what a secondary MMU may always do: drop a translation, and fault it
 * again at the next access. Evicting takes the victim's umem_mutex under
 * child_mutex, as creation does, and the reap work frees it as after an
 * unmap.
 *
 * Lock order:
 *   child_mutex  ->  mmap_lock  ->  umem_mutex  ->  atomic_ops_lock
 * (the xarray's own xa_lock is only taken inside xa_store()/xa_cmpxchg()/
 * xa_destroy(), under child_mutex or at cleanup, and nests inside nothing
 * else; the callback only adds to a lock-free list and queues the work,
 * under umem_mutex; the reaper waits for RCU and for references with no
 * lock held, and nobody waits for the reaper but rxe_odp_mr_release(),
 * which holds no lock then). rxe
 * takes mmap_lock only while it holds no umem_mutex: for read in
 * rxe_odp_child() (is the chunk mapped; before child_mutex),
 * ib_umem_odp_map_dma_and_lock() (every fault), in rxe_odp_fault_cause()
 * (after a failed fault) and in rxe_odp_prefetch_present_child() (its look
 * at the page tables); for write in mmu_notifier_get(), when
 * rxe_odp_young_get() hooks a new MR's mm into page aging, and in
 * mmu_interval_notifier_insert() for the first interval notifier of an
 * mm, which rxe_odp_mm_prepare() inserts at registration, in process
 * context, so that a child's insert under child_mutex on the data path
 * only takes the core's spinlock. The faults made under mmap_lock may
 * invalidate the child being faulted, which takes its umem_mutex inside
 * mmap_lock as above; the invalidate callback never takes child_mutex.
 * atomic_ops_lock (a spinlock of rxe_mr.c) is only
 * taken for the read-modify-write itself, by rxe_mr_atomic_op_page().
 * The rules are checked: a function that needs umem_mutex says
 * __must_hold() and lockdep_assert_held(), one that takes mmap_lock
 * lockdep_assert_not_held(umem_mutex); the debug kernel's tests run the
 * assertions, sparse the annotations.
 *
 * Retry of a transient failure (-EAGAIN), one policy per side, none of
 * which sleeps or holds a lock above while it waits:
 *   responder            RNR NAK (RESPST_ERR_ODP_RNR); the peer retries
 *                        after its RNR timer, bounded by its rnr_retry.
 *   requester/completer  rxe_qp_odp_retry() (rxe_qp.c): keep the WQE or
 *                        response packet, arm the QP's odp_retry_timer
 *                        (1 ms, at least a jiffy), leave the send task;
 *                        the timer schedules it again. Counted in
 *                        odp_fault_retries; after 30 s of failures the
 *                        WQE completes with IB_WC_LOC_PROT_ERR (counted in
 *                        odp_fault_errors). The timer is deleted at QP
 *                        reset and cleanup.
 * rxe_odp.c does not retry a failed fault later itself: it returns
 * -EAGAIN and its caller applies the policy of its side.
 *
 * Invalidate contract: each child (or huge-page umem) has its own interval
 * notifier over its own range, so an invalidation of a range calls
 * rxe_odp_invalidate() once for each existing child it overlaps, none for
 * chunks without a child (they translate nothing). rxe_odp_invalidate()
 * takes that umem's umem_mutex, bumps its notifier sequence and clears
 * every dma_list entry overlapping the range.
 * Every access to an ODP page holds umem_mutex from the check that its
 * entry is valid until the access is over, so once the callback returns,
 * rxe no longer touches those pages and the kernel may free, move, swap
 * or write-protect them. A range that may not block (OOM reaper) is
 * refused instead of sleeping on the mutex; the core retries later.
 *
 * Fault contract: rxe_odp_map_range_locked() is the one way to reach ODP
 * pages. Its caller looks up (or makes) the child of the range first,
 * takes the child's umem_mutex and gets it back held, the range
 * valid for the access until it drops the mutex, or an error: -EAGAIN
 * (memory pressure: retry later) or -EFAULT (never going to work: fail
 * the access). It faults read-only for reads, so reading never breaks
 * COW or dirties a page, and read-write for writes. It runs in process
 * context or in the rxe_wq worker, never under a spinlock, and drops
 * umem_mutex while it faults: a fault takes mmap_lock, may sleep, and may
 * invalidate this very MR (COW break, zero page replaced). Nothing under
 * umem_mutex may allocate memory, since reclaim can call back into
 * rxe_odp_invalidate().
 *
 * Prefetch (rxe_odp_advise.c, the advise_mr verb) maps pages ahead of
 * their use through the same fault routine, or, for
 * IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, of the pages already
 * present only (rxe_odp_prefetch_present()), in process context
 * or in its own workqueue, holding a reference on the MR and no lock. It
 * adds nothing to the lock order above: it holds umem_mutex only as the
 * data path does, around the fault routine, and never touches page
 * contents.
 *
 * Page aging (rxe_odp_young.c): rxe reaches ODP pages through kmap, so the
 * owner's PTE accessed bits never show that rxe used them. Every access
 * marks its pages in its child's bitmap (rxe_odp_young_mark(), the child's
 * umem_mutex held, atomic operations only), and a second notifier, one per
 * mm, answers reclaim's young callbacks from it: each child's bitmap is a
 * node of that notifier's interval tree, added when the child is made and
 * removed before it is freed, so the answers stay per page. That notifier never takes umem_mutex
 * (it runs under page-table spinlocks) and changes no translation, so it
 * adds nothing to the lock order above and is independent of
 * rxe_odp_invalidate(). The MR takes its reference on the mm's notifier at
 * registration and drops it in rxe_mr_cleanup() (rxe_odp_young_detach() ->
 * rxe_odp_mr_release()), after its children, before the parent umem is
 * released; that reference also keeps the owner's mm_struct allocated
 * (the implicit parent holds none) for the children made later.
 */

#include <linux/highmem.h>
#include <linux/hmm.h>
#include <linux/libnvdimm.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_odp.h"
#include "rxe_odp_young.h"

/* Largest fault-ahead accepted, in 4 KiB pages (4 MiB) */
#define RXE_ODP_MAX_FAULT_AHEAD	1024

static unsigned int odp_fault_ahead = 32;
module_param(odp_fault_ahead, uint, 0644);
MODULE_PARM_DESC(odp_fault_ahead,
		 "When an ODP access must fault, also fault up to this many following 4 KiB pages of the MR that are not mapped yet (0-1024, default 32)");

/*
 * Test hook: the transient failures that the RNR NAK and local retry paths
 * handle only happen under heavy memory pressure, which a test cannot
 * produce on demand. Writing N here makes the next N fault attempts fail
 * as hmm does when it gives up on a busy range.
 */
static unsigned int odp_fail_faults;
module_param(odp_fail_faults, uint, 0644);
MODULE_PARM_DESC(odp_fail_faults,
		 "Testing: make the next N ODP page faults fail transiently (-EBUSY), as under heavy memory pressure (default 0)");

/* Bytes of an ODP MR accessed under one hold of umem_mutex */
#define RXE_ODP_MAX_CHUNK	(64 * 1024)

/*
 * Fault attempts per access: the first one includes the fault-ahead pages,
 * the others only what the access needs, and they are only made while the
 * faults succeed but the range is invalidated again before it is used, or
 * after a failed fault-ahead, or when the core could fault in what hmm
 * could not. A fault that fails for memory pressure is not retried here:
 * the caller retries the whole access later (see "Retry" in the header),
 * so the worker does not sit in hmm_range_fault() for seconds while the
 * peer times out.
 */
#define RXE_ODP_FAULT_TRIES	5

static const enum rxe_counters rxe_odp_dev_counter[RXE_ODP_NUM_STATS] = {
	[RXE_ODP_STAT_FAULTS]		 = RXE_CNT_ODP_FAULTS,
	[RXE_ODP_STAT_PAGES_FAULTED]	 = RXE_CNT_ODP_PAGES_FAULTED,
	[RXE_ODP_STAT_INVALIDATIONS]	 = RXE_CNT_ODP_INVALIDATIONS,
	[RXE_ODP_STAT_PAGES_INVALIDATED] = RXE_CNT_ODP_PAGES_INVALIDATED,
	[RXE_ODP_STAT_FAULT_ERRORS]	 = RXE_CNT_ODP_FAULT_ERRORS,
	[RXE_ODP_STAT_PAGES_PREFETCHED]	 = RXE_CNT_ODP_PAGES_PREFETCHED,
};

static const char * const rxe_odp_stat_name[RXE_ODP_NUM_STATS] = {
	[RXE_ODP_STAT_FAULTS]		 = "odp_faults",
	[RXE_ODP_STAT_PAGES_FAULTED]	 = "odp_pages_faulted",
	[RXE_ODP_STAT_INVALIDATIONS]	 = "odp_invalidations",
	[RXE_ODP_STAT_PAGES_INVALIDATED] = "odp_pages_invalidated",
	[RXE_ODP_STAT_FAULT_ERRORS]	 = "odp_fault_errors",
	[RXE_ODP_STAT_PAGES_PREFETCHED]	 = "odp_pages_prefetched",
};

/*
 * Size of the chunk of the address space that one child translates, as a
 * shift (measured, see "Children" in the header): 2 MiB, a PMD. An MR
 * keeps the value it was registered with.
 */
#define RXE_ODP_CHILD_SHIFT	21
#define RXE_ODP_CHILD_SHIFT_MIN	16
#define RXE_ODP_CHILD_SHIFT_MAX	30

static unsigned int odp_child_shift = RXE_ODP_CHILD_SHIFT;
module_param(odp_child_shift, uint, 0644);
MODULE_PARM_DESC(odp_child_shift,
		 "Testing: log2 of the address-space chunk one ODP child translates, for MRs registered from now on (16-30, default 21 = 2 MiB)");

static unsigned long odp_max_children;
module_param(odp_max_children, ulong, 0644);
MODULE_PARM_DESC(odp_max_children,
		 "Most ODP children (the translation of one chunk each) kept for all MRs; past it, making one evicts another of the same MR (0 = as many as chunks covering four times the RAM, default)");

/* Children published and not dying, of all MRs: see "Bound" in the header */
static atomic_long_t rxe_odp_live_children = ATOMIC_LONG_INIT(0);

/*
 * One translating umem: a child, or the whole umem of a huge-page MR
 * (tree->single, which is never freed before the MR). Its umem's ->private
 * points here. See "Child lifetime" in the header for @users and @dying.
 */
struct rxe_odp_child {
	struct ib_umem_odp	*odp;
	struct rxe_odp_young	*young;		/* its page-use bits */
	struct rxe_odp_tree	*tree;
	unsigned long		index;		/* chunk index in tree->children */
	atomic_t		users;		/* references from lookups */
	bool			dying;		/* written under odp->umem_mutex, read locklessly */
	struct llist_node	dead_node;	/* in tree->dead once dying */
};

/*
 * Per ODP MR, at the parent umem's ->private (set once at registration;
 * the children's ->private point here too, for the invalidate callback).
 */
struct rxe_odp_tree {
	struct rxe_mr		*mr;
	struct mutex		child_mutex;	/* serializes xarray stores */
	struct xarray		children;	/* chunk index -> rxe_odp_child */
	atomic_long_t		nr_children;	/* made and not freed yet */
	atomic_long_t		nr_freed;	/* freed before deregistration */
	atomic_long_t		nr_evicted;	/* made dying by the bound */
	unsigned long		evict_next;	/* eviction's clock hand, under child_mutex */
	atomic_long_t		nr_flushed;	/* 4 KiB pages written back */
	struct llist_head	dead;		/* dying children to free */
	struct work_struct	reap_work;	/* frees them: rxe_odp_reap() */
	struct rxe_odp_child	single;		/* huge-page MR: its one umem */
	struct rxe_odp_young_mm	*ymm;		/* aging notifier reference */
	u64			start, end;	/* user VAs the MR reaches */
	unsigned int		shift;		/* log2 of a child's chunk */
	bool			implicit;
};

/* The MR's own umem: the parent, or the single umem of a huge-page MR */
static inline struct ib_umem_odp *rxe_mr_odp(struct rxe_mr *mr)
{
	return to_ib_umem_odp(mr->umem);
}

/*
 * The tree of @mr: the implicit parent's ->private, or the one of the
 * huge-page MR's single umem (NULL before registration set it, and after
 * release)
 */
static inline struct rxe_odp_tree *rxe_mr_tree(struct rxe_mr *mr)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	struct rxe_odp_child *single;

	if (odp->is_implicit_odp)
		return odp->private;
	single = odp->private;
	return single ? single->tree : NULL;
}

/*
 * umem_mutex, taken and dropped so that sparse can count it: the mutex
 * functions of 6.12 carry no context annotation, so without these sparse
 * could not check that every way out of a __must_hold() function, or of
 * one that takes the mutex, leaves it as it should.
 *
 * Uncontended, umem_mutex is taken with mutex_trylock(). mutex_lock() starts
 * with might_sleep(), and under CONFIG_PREEMPT_VOLUNTARY (Debian's default)
 * that is a voluntary preemption point. The data path takes the mutex once
 * per packet, where a pinned MR's copy has no such point, so a consumer
 * busy-polling on the same CPU took the CPU from rxe's worker at nearly
 * every packet: ib_send_bw 64 KiB made 5-6 times the context switches of
 * pinned MRs and lost a quarter of its bandwidth (bench/results/
 * 2026-12-05-profile-perftest). The worker still yields where pinned MRs
 * let it, between its work items. __might_sleep() keeps the debug check;
 * with lockdep proving the lock order, mutex_lock() is used every time, as
 * a trylock adds no ordering to lockdep's graph.
 */
static inline void rxe_odp_lock(struct ib_umem_odp *odp)
	__acquires(&odp->umem_mutex)
{
	__might_sleep(__FILE__, __LINE__);
	if (IS_ENABLED(CONFIG_PROVE_LOCKING) ||
	    !mutex_trylock(&odp->umem_mutex))
		mutex_lock(&odp->umem_mutex);
	__acquire(&odp->umem_mutex);
}

static inline void rxe_odp_unlock(struct ib_umem_odp *odp)
	__releases(&odp->umem_mutex)
{
	__release(&odp->umem_mutex);
	mutex_unlock(&odp->umem_mutex);
}

/* umem pages are 4 KiB, or huge pages with IB_ACCESS_HUGETLB */
static inline unsigned int rxe_odp_subpage_shift(struct ib_umem_odp *odp)
{
	return odp->page_shift - PAGE_SHIFT;
}

/* @mr may be NULL: the notifier can fire before registration finishes */
static void rxe_odp_count(struct ib_umem_odp *odp, struct rxe_mr *mr,
			  enum rxe_odp_stat stat, u64 n)
{
	rxe_counter_add(to_rdev(odp->umem.ibdev), rxe_odp_dev_counter[stat], n);
	if (mr)
		atomic64_add(n, &mr->odp_stats[stat]);
}

/*
 * Upper bounds of the fault service time buckets, odp_fault_lat_lt10us to
 * _lt10ms; a longer fault counts in odp_fault_lat_ge10ms. The device
 * counters of the buckets follow each other in this order.
 */
static const u64 rxe_odp_lat_bound_ns[] = {
	10 * NSEC_PER_USEC, 100 * NSEC_PER_USEC, NSEC_PER_MSEC,
	10 * NSEC_PER_MSEC,
};

/*
 * A fault of the data path (not a prefetch) mapped @np pages in @ns: count
 * it in odp_faults and odp_pages_faulted, and, device-wide only, in one
 * bucket of the latency histogram and in odp_fault_ns_total. So the
 * buckets sum to odp_faults, and odp_fault_ns_total / odp_pages_faulted is
 * the mean service time per page. Atomic adds, no lock.
 */
static void rxe_odp_count_fault(struct ib_umem_odp *odp, struct rxe_mr *mr,
				u64 np, u64 ns)
{
	struct rxe_dev *rxe = to_rdev(odp->umem.ibdev);
	unsigned int i = 0;

	BUILD_BUG_ON(RXE_CNT_ODP_FAULT_LAT_GE10MS -
		     RXE_CNT_ODP_FAULT_LAT_LT10US !=
		     ARRAY_SIZE(rxe_odp_lat_bound_ns));
	while (i < ARRAY_SIZE(rxe_odp_lat_bound_ns) &&
	       ns >= rxe_odp_lat_bound_ns[i])
		i++;
	rxe_odp_count(odp, mr, RXE_ODP_STAT_FAULTS, 1);
	rxe_odp_count(odp, mr, RXE_ODP_STAT_PAGES_FAULTED, np);
	rxe_counter_inc(rxe, RXE_CNT_ODP_FAULT_LAT_LT10US + i);
	rxe_counter_add(rxe, RXE_CNT_ODP_FAULT_NS_TOTAL, ns);
}

/*
 * Make a published child dying and hand it to the reaper's list: it is
 * found by no lookup from now on (see "Child lifetime" in the header). Its
 * umem_mutex orders this with the other writers of @dying; the caller
 * queues the reap work or reaps itself.
 */
static void rxe_odp_child_kill(struct rxe_odp_tree *tree,
			       struct rxe_odp_child *child)
	__must_hold(&child->odp->umem_mutex)
{
	lockdep_assert_held(&child->odp->umem_mutex);

	WRITE_ONCE(child->dying, true);
	atomic_long_dec(&rxe_odp_live_children);
	llist_add(&child->dead_node, &tree->dead);
}

static bool rxe_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *odp =
		container_of(mni, struct ib_umem_odp, notifier);
	struct rxe_odp_tree *tree = NULL;
	struct rxe_odp_child *child;
	unsigned long start, end;
	struct rxe_mr *mr;
	int mapped;

	if (!mmu_notifier_range_blockable(range))
		return false;

	rxe_odp_lock(odp);
	mmu_interval_set_seq(mni, cur_seq);

	/*
	 * Align the start down to a umem page: the unmap helper steps in
	 * umem pages from @start and would miss the last huge page of an
	 * unaligned range.
	 */
	start = max(ALIGN_DOWN(range->start, 1UL << odp->page_shift),
		    ib_umem_start(odp));
	end = min(range->end, ib_umem_end(odp));

	mapped = odp->npages;
	if (start < end)
		ib_umem_odp_unmap_dma_pages(odp, start, end);

	/* NULL until the child or MR is published, and after release */
	child = odp->private;
	if (child)
		tree = child->tree;
	mr = tree ? tree->mr : NULL;
	rxe_odp_count(odp, mr, RXE_ODP_STAT_INVALIDATIONS, 1);
	rxe_odp_count(odp, mr, RXE_ODP_STAT_PAGES_INVALIDATED,
		      (u64)(mapped - odp->npages) <<
		      rxe_odp_subpage_shift(odp));

	/*
	 * An unmap that leaves the child translating nothing frees it (see
	 * "Child lifetime" in the header): not from here, where removing
	 * its own notifier would wait for this very callback, but from the
	 * MR's reap work. Any other event (reclaim, migration, protection,
	 * exit's release before its unmap) keeps the child: the pages come
	 * back.
	 */
	if (child && child != &tree->single && !child->dying &&
	    range->event == MMU_NOTIFY_UNMAP && !odp->npages) {
		rxe_odp_child_kill(tree, child);
		queue_work(system_unbound_wq, &tree->reap_work);
	}
	rxe_odp_unlock(odp);

	return true;
}

static const struct mmu_interval_notifier_ops rxe_odp_mn_ops = {
	.invalidate = rxe_odp_invalidate,
};

/*
 * A reference on the child at @index that is not dying, or NULL. The RCU
 * read section covers the load and the increment: rxe_odp_reap() erases
 * a child and then waits for a grace period, so after it no lookup can
 * take a reference, and it waits for @users to drop to 0.
 */
static struct rxe_odp_child *rxe_odp_child_get(struct rxe_odp_tree *tree,
					       unsigned long index)
{
	struct rxe_odp_child *child;

	rcu_read_lock();
	child = xa_load(&tree->children, index);
	if (child && !READ_ONCE(child->dying))
		atomic_inc(&child->users);
	else
		child = NULL;
	rcu_read_unlock();
	return child;
}

/*
 * Drop the reference of rxe_odp_child() or rxe_odp_child_get(): no-op for
 * a huge-page MR's single umem. Both sides order with full barriers (the
 * dying store is followed by synchronize_rcu(), atomic_dec_and_test() is
 * fully ordered): either the reaper sees 0 or we see @dying and wake it.
 */
static void rxe_odp_child_put(struct rxe_odp_child *child)
{
	if (child == &child->tree->single)
		return;
	if (atomic_dec_and_test(&child->users) && READ_ONCE(child->dying))
		wake_up_var(&child->users);
}

/* Most children one eviction looks at, so that it stays cheap */
#define RXE_ODP_EVICT_SCAN	64

/*
 * The limit on live children (see "Bound" in the header): odp_max_children,
 * or as many chunks of @tree's size as cover four times the RAM.
 */
static unsigned long rxe_odp_children_limit(const struct rxe_odp_tree *tree)
{
	unsigned long max = READ_ONCE(odp_max_children);

	if (max)
		return max;
	return max((totalram_pages() << 2) >> (tree->shift - PAGE_SHIFT), 1UL);
}

/*
 * A live child of @tree at an index in [@first, @last], other than @skip,
 * that no lookup holds; NULL if none. The first live child seen that is in
 * use goes to *@busy; *@seen counts the entries looked at, and the walk
 * stops at RXE_ODP_EVICT_SCAN of them. child_mutex keeps the walked
 * children allocated; @dying is read without their umem_mutex and checked
 * again under it by the caller.
 */
static struct rxe_odp_child *rxe_odp_evict_scan(struct rxe_odp_tree *tree,
						unsigned long first,
						unsigned long last,
						unsigned long skip,
						struct rxe_odp_child **busy,
						unsigned int *seen)
	__must_hold(&tree->child_mutex)
{
	struct rxe_odp_child *child;
	unsigned long index;

	lockdep_assert_held(&tree->child_mutex);

	xa_for_each_range(&tree->children, index, child, first, last) {
		if (++*seen > RXE_ODP_EVICT_SCAN)
			break;
		if (index == skip || READ_ONCE(child->dying))
			continue;
		if (!atomic_read(&child->users))
			return child;
		if (!*busy)
			*busy = child;
	}
	return NULL;
}

/*
 * Keep the live children of all MRs under their limit: before @tree makes
 * the child at @skip, evict up to two of its other children while the limit
 * is reached (two, so that a lowered limit is reached again). The victims
 * come round-robin, from the clock hand tree->evict_next on, preferring
 * one that no lookup holds. Evicting only drops a translation, which rxe
 * as a secondary MMU may do at any time: the child goes to the reap work as
 * after an unmap, its pages stay the owner's (written to, they are dirtied
 * by the release), and the next access to its chunk makes a new child and
 * faults them in again. An MR with no other live child makes its one over
 * the limit, so the limit can be passed by at most one child per MR, and
 * every MR is a registration of the owner's, never of a peer's.
 */
static void rxe_odp_evict_locked(struct rxe_odp_tree *tree, unsigned long skip)
	__must_hold(&tree->child_mutex)
{
	struct rxe_odp_child *victim, *busy;
	unsigned int seen, n;

	lockdep_assert_held(&tree->child_mutex);

	for (n = 0; n < 2; n++) {
		if (atomic_long_read(&rxe_odp_live_children) <
		    rxe_odp_children_limit(tree))
			return;
		busy = NULL;
		seen = 0;
		victim = rxe_odp_evict_scan(tree, tree->evict_next, ULONG_MAX,
					    skip, &busy, &seen);
		if (!victim && tree->evict_next)
			victim = rxe_odp_evict_scan(tree, 0,
						    tree->evict_next - 1, skip,
						    &busy, &seen);
		if (!victim)
			victim = busy;
		if (!victim)
			return;
		tree->evict_next = victim->index + 1;

		rxe_odp_lock(victim->odp);
		if (!victim->dying) {
			rxe_odp_child_kill(tree, victim);
			atomic_long_inc(&tree->nr_evicted);
		}
		rxe_odp_unlock(victim->odp);
		queue_work(system_unbound_wq, &tree->reap_work);
	}
}

/*
 * The child translating @va of @tree, referenced: the caller drops it with
 * rxe_odp_child_put() when done with the child (after its umem_mutex).
 * With @create, one is made if there is none, or if the one there is dying
 * (it is replaced): it covers the chunk of @va clipped to the MR,
 * translates nothing yet, and is published in the xarray only once
 * complete. Creation sleeps (GFP_KERNEL, the interval notifier insert may
 * take mmap_lock), so the caller holds no lock; creators and the reaper
 * serialize on child_mutex. A lookup takes no lock (RCU, see "Child
 * lifetime" in the header).
 *
 * Returns the child; NULL when there is none and !@create; or
 * ERR_PTR(-EAGAIN) (no memory now: retry later), ERR_PTR(-EFAULT) (@va
 * is outside the MR or the owner's address space, or the owner's mm is
 * gone), ERR_PTR(-ENOENT) (no child was made: nothing of the chunk from
 * @va on is mapped, so an access at @va fails and nothing is present).
 */
static struct rxe_odp_child *rxe_odp_child(struct rxe_odp_tree *tree, u64 va,
					   bool create)
{
	struct ib_umem_odp *parent = rxe_mr_odp(tree->mr);
	struct mm_struct *mm = parent->umem.owning_mm;
	unsigned long index = va >> tree->shift;
	u64 size = BIT_ULL(tree->shift);
	struct rxe_odp_child *child;
	struct ib_umem_odp *odp;
	u64 start, end;
	bool mapped;
	void *old;
	int err;

	/* prefetch and the data path checked the MR's range, not this */
	if (va < tree->start || va >= tree->end)
		return ERR_PTR(-EFAULT);
	if (!parent->is_implicit_odp)
		return &tree->single;

	child = rxe_odp_child_get(tree, index);
	if (child || !create)
		return child;

	might_sleep();
	start = max(ALIGN_DOWN(va, size), ALIGN_DOWN(tree->start, PAGE_SIZE));
	end = min(ALIGN_DOWN(va, size) + size, ALIGN(tree->end, PAGE_SIZE));

	/*
	 * No child for a chunk of which nothing from @va on is mapped: the
	 * access fails there anyway, and an unmapped chunk's child would
	 * only be freed by the next unmap of it, so accesses to unmapped
	 * addresses (a peer probing an implicit rkey) would grow kernel
	 * memory without bound. Our reference on the mm
	 * also keeps the mmput() of ib_umem_odp_alloc_child() from being the
	 * last one, which would tear the mm down here, under child_mutex.
	 */
	if (!mmget_not_zero(mm))
		return ERR_PTR(-EFAULT);
	mmap_read_lock(mm);
	mapped = find_vma_intersection(mm, va, end);
	mmap_read_unlock(mm);
	if (!mapped) {
		mmput_async(mm);
		return ERR_PTR(-ENOENT);
	}

	mutex_lock(&tree->child_mutex);
	/* a dying child found here stays in the xarray until replaced below */
	child = rxe_odp_child_get(tree, index);
	if (child)
		goto out_unlock;
	rxe_odp_evict_locked(tree, index);

	err = -ENOMEM;
	child = kzalloc(sizeof(*child), GFP_KERNEL);
	if (!child)
		goto out_err;
	child->tree = tree;
	child->index = index;
	/* the caller's reference */
	atomic_set(&child->users, 1);
	/* not the reaper's until published: the error paths free it */
	WRITE_ONCE(child->dying, true);

	odp = ib_umem_odp_alloc_child(parent, start, end - start,
				      &rxe_odp_mn_ops);
	if (IS_ERR(odp)) {
		err = PTR_ERR(odp);
		goto out_free;
	}
	/* the notifier is live already: publish the child to it under its lock */
	child->odp = odp;
	rxe_odp_lock(odp);
	odp->private = child;
	rxe_odp_unlock(odp);

	child->young = rxe_odp_young_add(tree->ymm, to_rdev(parent->umem.ibdev),
					 start, end);
	if (IS_ERR(child->young)) {
		err = PTR_ERR(child->young);
		goto out_release;
	}

	/* replaces a dying child, which tree->dead still holds */
	old = xa_store(&tree->children, index, child, GFP_KERNEL);
	if (xa_is_err(old)) {
		err = xa_err(old);
		goto out_young;
	}
	atomic_long_inc(&tree->nr_children);
	rxe_odp_lock(odp);
	WRITE_ONCE(child->dying, false);
	atomic_long_inc(&rxe_odp_live_children);
	rxe_odp_unlock(odp);

out_unlock:
	mutex_unlock(&tree->child_mutex);
	mmput_async(mm);
	return child;

out_young:
	rxe_odp_young_del(child->young);
out_release:
	ib_umem_odp_release(odp);
out_free:
	kfree(child);
out_err:
	mutex_unlock(&tree->child_mutex);
	mmput_async(mm);
	rxe_dbg_mr(tree->mr, "no child for va %#llx, err = %d\n", va, err);
	return ERR_PTR(err == -ENOMEM ? -EAGAIN : -EFAULT);
}

/*
 * The child of @mr for an access at @va, made if needed. No child for an
 * unmapped chunk is a failed fault of the access: -EFAULT, counted.
 */
static struct rxe_odp_child *rxe_odp_access_child(struct rxe_mr *mr, u64 va)
{
	struct rxe_odp_child *child = rxe_odp_child(rxe_mr_tree(mr), va, true);

	if (PTR_ERR_OR_ZERO(child) == -ENOENT) {
		rxe_odp_count(rxe_mr_odp(mr), mr, RXE_ODP_STAT_FAULT_ERRORS, 1);
		return ERR_PTR(-EFAULT);
	}
	return child;
}

/* Bytes of [@va, @va + @len) that @child translates, from @va on */
static inline u64 rxe_odp_child_len(struct rxe_odp_child *child, u64 va,
				    u64 len)
{
	return min_t(u64, len, ib_umem_end(child->odp) - va);
}

/*
 * Free a child that nobody can reach any more: unpublished, no reference
 * left. Its release unmaps it and removes its notifier, which waits for a
 * running invalidation of it, so never from its own callback.
 */
static void rxe_odp_child_free(struct rxe_odp_child *child)
{
	struct rxe_odp_tree *tree = child->tree;

	rxe_odp_young_del(child->young);
	ib_umem_odp_release(child->odp);
	kfree(child);
	atomic_long_dec(&tree->nr_children);
}

/*
 * Free the dying children of @tree (see "Child lifetime" in the header):
 * unpublish them under child_mutex (a child that a creator replaced
 * already is not touched in the xarray), wait for the lookups that may
 * have found one (RCU; not when @released: the MR has no user left, so
 * no lookup runs) and for the references they took, then free them.
 * Process context, no lock held. Returns the number freed.
 */
static unsigned long rxe_odp_reap(struct rxe_odp_tree *tree, bool released)
{
	struct rxe_odp_child *child, *next;
	struct llist_node *list;
	unsigned long n = 0;

	list = llist_del_all(&tree->dead);
	if (!list)
		return 0;

	mutex_lock(&tree->child_mutex);
	llist_for_each_entry(child, list, dead_node)
		xa_cmpxchg(&tree->children, child->index, child, NULL,
			   GFP_KERNEL);
	mutex_unlock(&tree->child_mutex);

	if (!released)
		synchronize_rcu();

	llist_for_each_entry_safe(child, next, list, dead_node) {
		wait_var_event(&child->users, !atomic_read(&child->users));
		rxe_odp_child_free(child);
		n++;
		cond_resched();
	}
	return n;
}

static void rxe_odp_reap_work(struct work_struct *work)
{
	struct rxe_odp_tree *tree =
		container_of(work, struct rxe_odp_tree, reap_work);

	atomic_long_add(rxe_odp_reap(tree, false), &tree->nr_freed);
}

static bool rxe_odp_nop_invalidate(struct mmu_interval_notifier *mni,
				   const struct mmu_notifier_range *range,
				   unsigned long cur_seq)
{
	return true;
}

static const struct mmu_interval_notifier_ops rxe_odp_nop_ops = {
	.invalidate = rxe_odp_nop_invalidate,
};

/*
 * Make @mm take interval notifiers now, in process context: the first one
 * inserted into an mm registers the core's subscription
 * (mmu_notifier_register(): mmap_write_lock() and mm_take_all_locks()),
 * which would otherwise happen when the MR's first child is made, on the
 * data path (the rxe_wq worker). A one-page notifier inserted and removed
 * at once does it: the subscription stays for the life of the mm, and a
 * child's insert then only takes the core's spinlock. -EINTR on a signal.
 */
static int rxe_odp_mm_prepare(struct mm_struct *mm)
{
	struct mmu_interval_notifier mni = {};
	int err;

	err = mmu_interval_notifier_insert(&mni, mm, 0, PAGE_SIZE,
					   &rxe_odp_nop_ops);
	if (err)
		return err;
	mmu_interval_notifier_remove(&mni);
	return 0;
}

int rxe_odp_mr_init_user(struct rxe_dev *rxe, u64 start, u64 length,
			 u64 iova, int access, struct rxe_mr *mr)
{
	bool implicit = !start && length == U64_MAX;
	struct ib_umem_odp *odp;
	struct rxe_odp_tree *tree;
	u64 end;
	int err;

	/*
	 * Persistence needs the pages checked for pmem when registered,
	 * and an ODP MR has no pages then.
	 */
	if (access & IB_ACCESS_FLUSH_PERSISTENT) {
		rxe_dbg_dev(rxe, "ODP MR cannot be FLUSH_PERSISTENT\n");
		return -EOPNOTSUPP;
	}

	if (!length)
		return -EINVAL;

	/*
	 * Implicit ODP (mlx5's convention): start 0, length U64_MAX, iova 0,
	 * the whole address space of the owner, in 4 KiB pages.
	 */
	if (implicit && (iova || (access & IB_ACCESS_HUGETLB))) {
		rxe_dbg_dev(rxe, "implicit ODP needs iova 0 and no HUGETLB\n");
		return -EINVAL;
	}

	/* Every later iova check relies on these sums not wrapping */
	if (!implicit &&
	    (check_add_overflow(start, length, &end) ||
	     check_add_overflow(iova, length, &end)))
		return -EOVERFLOW;

	rxe_mr_init(access, mr);

	tree = kzalloc(sizeof(*tree), GFP_KERNEL);
	if (!tree)
		return -ENOMEM;
	tree->mr = mr;
	tree->implicit = implicit;
	tree->shift = clamp(READ_ONCE(odp_child_shift), RXE_ODP_CHILD_SHIFT_MIN,
			    RXE_ODP_CHILD_SHIFT_MAX);
	tree->start = start;
	/*
	 * What lies beyond the owner's address space fails as unmapped
	 * memory does; the clip also keeps child ranges from wrapping.
	 */
	tree->end = implicit ? current->mm->task_size :
		    min(start + length, current->mm->task_size);
	mutex_init(&tree->child_mutex);
	xa_init(&tree->children);
	init_llist_head(&tree->dead);
	INIT_WORK(&tree->reap_work, rxe_odp_reap_work);
	tree->single.tree = tree;

	/*
	 * A huge-page MR keeps one umem for its whole range (the core's
	 * children are 4 KiB-paged; its arrays are 1/512 of a 4 KiB one's),
	 * every other MR an empty parent and children made on demand.
	 */
	if (access & IB_ACCESS_HUGETLB)
		odp = ib_umem_odp_get(&rxe->ib_dev, start, length, access,
				      &rxe_odp_mn_ops);
	else
		odp = ib_umem_odp_alloc_implicit(&rxe->ib_dev, access);
	if (IS_ERR(odp)) {
		rxe_dbg_mr(mr, "ODP umem allocation failed, err = %ld\n",
			   PTR_ERR(odp));
		mutex_destroy(&tree->child_mutex);
		kfree(tree);
		return PTR_ERR(odp);
	}
	if (odp->is_implicit_odp) {
		/* the parent has no range of its own: give it the MR's */
		odp->umem.address = start;
		odp->umem.length = length;
	}

	/*
	 * The notifier may be live already: publish @tree (a huge-page MR's
	 * umem: its single child, which points to @tree) under its lock
	 */
	rxe_odp_lock(odp);
	odp->private = odp->is_implicit_odp ? (void *)tree : &tree->single;
	rxe_odp_unlock(odp);

	mr->umem = &odp->umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.type = IB_MR_TYPE_USER;

	/* on failure the caller's cleanup releases the tree and the umem */
	tree->ymm = rxe_odp_young_get(odp->umem.owning_mm);
	if (IS_ERR(tree->ymm)) {
		err = PTR_ERR(tree->ymm);
		tree->ymm = NULL;
		rxe_dbg_mr(mr, "page aging attach failed, err = %d\n", err);
		return err;
	}
	if (odp->is_implicit_odp) {
		err = rxe_odp_mm_prepare(odp->umem.owning_mm);
		if (err) {
			rxe_dbg_mr(mr, "notifier subscription failed, err = %d\n",
				   err);
			return err;
		}
	} else {
		tree->single.odp = odp;
		tree->single.young = rxe_odp_young_add(tree->ymm, rxe,
						       ib_umem_start(odp),
						       ib_umem_end(odp));
		if (IS_ERR(tree->single.young)) {
			err = PTR_ERR(tree->single.young);
			tree->single.young = NULL;
			return err;
		}
	}

	mr->state = RXE_MR_STATE_VALID;

	return 0;
}

/*
 * Free the children of an ODP MR, their aging records and the MR's
 * reference on the aging notifier, at cleanup (process context, no
 * user of the MR left, nothing held), before ib_umem_release() frees the
 * parent. Each child's release unmaps it and removes its notifier, which
 * waits for a running invalidation of it. Safe on any MR.
 */
void rxe_odp_mr_release(struct rxe_mr *mr)
{
	struct rxe_odp_child *child;
	struct rxe_odp_tree *tree;
	struct ib_umem_odp *odp;
	unsigned long index;

	if (!rxe_mr_is_odp(mr))
		return;
	odp = rxe_mr_odp(mr);
	tree = rxe_mr_tree(mr);
	if (!tree)
		return;

	/*
	 * Claim every child not dying yet, under its umem_mutex as the
	 * callback does, so each one is on tree->dead exactly once and no
	 * callback queues the work after this loop; then free them all,
	 * with whatever the work has not taken yet, and wait for the work.
	 * child_mutex keeps the work from erasing, hence freeing, a child
	 * of the walk (the work may run: a callback queued it).
	 */
	mutex_lock(&tree->child_mutex);
	xa_for_each(&tree->children, index, child) {
		rxe_odp_lock(child->odp);
		if (!child->dying)
			rxe_odp_child_kill(tree, child);
		rxe_odp_unlock(child->odp);
		cond_resched();
	}
	mutex_unlock(&tree->child_mutex);
	rxe_odp_reap(tree, true);
	cancel_work_sync(&tree->reap_work);
	WARN_ON_ONCE(!llist_empty(&tree->dead) ||
		     atomic_long_read(&tree->nr_children));
	xa_destroy(&tree->children);
	rxe_odp_young_del(tree->single.young);
	if (tree->ymm)
		rxe_odp_young_put(tree->ymm);

	/* a huge-page MR's notifier runs until ib_umem_release() */
	rxe_odp_lock(odp);
	odp->private = NULL;
	rxe_odp_unlock(odp);
	mutex_destroy(&tree->child_mutex);
	kfree(tree);
}

/*
 * The owner's virtual address of [iova, iova + length) of @mr, which must
 * lie inside the MR. Its end cannot wrap: umem address + length was
 * checked at registration (an implicit MR's iova is its address). It may
 * still lie past the owner's address space, which only an implicit MR
 * reaches.
 */
static int rxe_odp_iova_in_mr(struct rxe_mr *mr, u64 iova, u64 length,
			      u64 *va)
{
	u64 end;

	if (check_add_overflow(iova, length, &end) ||
	    iova < mr->ibmr.iova ||
	    end - mr->ibmr.iova > mr->ibmr.length) {
		rxe_dbg_mr(mr, "iova %#llx length %#llx out of range\n",
			   iova, length);
		return -EINVAL;
	}
	*va = mr->umem->address + (iova - mr->ibmr.iova);
	return 0;
}

/*
 * Translate [iova, iova + length) of @mr to the owner's virtual address,
 * for an access: all of it inside the MR and the owner's address space
 */
static int rxe_odp_iova_to_va(struct rxe_mr *mr, u64 iova, u64 length,
			      u64 *va)
{
	int err = rxe_odp_iova_in_mr(mr, iova, length, va);

	if (err)
		return err;
	if (*va + length > rxe_mr_tree(mr)->end) {
		rxe_dbg_mr(mr, "va %#llx length %#llx past the address space\n",
			   *va, length);
		return -EINVAL;
	}
	return 0;
}

static inline bool rxe_odp_entry_ok(struct ib_umem_odp *odp,
				    unsigned long idx, u64 perm)
	__must_hold(&odp->umem_mutex)
{
	lockdep_assert_held(&odp->umem_mutex);
	return (odp->dma_list[idx] & perm) == perm;
}

/* Consume one injected failure, if any are left (odp_fail_faults) */
static bool rxe_odp_inject_failure(void)
{
	unsigned int n = READ_ONCE(odp_fail_faults);

	return n && cmpxchg(&odp_fail_faults, n, n - 1) == n;
}

/*
 * hmm_range_fault() turns every VM_FAULT_ERROR into -EFAULT: a page the
 * memory cgroup could not charge right now (VM_FAULT_OOM) looks the same as
 * a file page past EOF (SIGBUS), a poisoned page or a VM_FAULT_SIGSEGV, and
 * it reports a poisoned PTE as -EFAULT without faulting at all. Ask the
 * core for the real cause: fault the pages of [va, va + len) again, in
 * order, with fixup_user_fault(), which returns the first failing page's
 * error as vm_fault_to_errno() maps it: -ENOMEM for VM_FAULT_OOM, -EFAULT
 * for SIGBUS, SIGSEGV and HWPOISON and for an address outside any VMA or
 * without the permission. It is called without @unlocked, so, like hmm's
 * own faults (FAULT_FLAG_REMOTE, no ALLOW_RETRY), it never drops mmap_lock
 * and never waits for a userfaultfd handler: it sees what hmm saw and
 * blocks the worker no longer than hmm's fault did. What hmm refuses
 * whatever the core could do (VM_IO/VM_PFNMAP, a VMA without VM_READ) is
 * refused here first, or a successful probe would make it look transient.
 *
 * Returns 0 when every page faulted in now, else the first page's error.
 */
static int rxe_odp_fault_cause(struct ib_umem_odp *odp, u64 va,
			       unsigned int len, bool write)
{
	unsigned int flags = FAULT_FLAG_REMOTE | (write ? FAULT_FLAG_WRITE : 0);
	struct mm_struct *mm = odp->umem.owning_mm;
	unsigned long addr = ALIGN_DOWN(va, PAGE_SIZE);
	struct vm_area_struct *vma;
	u64 end = va + len;
	int err = 0;

	/* mmap_lock comes before umem_mutex */
	lockdep_assert_not_held(&odp->umem_mutex);

	if (!mmget_not_zero(mm))
		return -EFAULT;
	mmap_read_lock(mm);
	for (; !err && addr < end; addr += PAGE_SIZE) {
		vma = vma_lookup(mm, addr);
		if (!vma || (vma->vm_flags & (VM_IO | VM_PFNMAP)) ||
		    !(vma->vm_flags & VM_READ))
			err = -EFAULT;
		else
			err = fixup_user_fault(mm, addr, flags, NULL);
	}
	mmap_read_unlock(mm);
	mmput_async(mm);

	return err;
}

/*
 * Classify a failed fault of the access [va, va + len): -EAGAIN when it is
 * memory pressure, which goes away (hmm gave up on a range invalidated for
 * longer than it waits: -EBUSY; -ENOMEM, also a failed memcg charge), so
 * the caller retries later; -EFAULT when it never will (no VMA, no
 * permission, SIGBUS, SIGSEGV, HWPOISON, -EPERM for a write to a read-only
 * VMA, -EINVAL for a dead owner); 0 when the core faulted the pages in just
 * now, so hmm should be asked again at once.
 */
static int rxe_odp_fault_failed(struct ib_umem_odp *odp, int err, u64 va,
				unsigned int len, bool write)
{
	switch (err) {
	case -EBUSY:
	case -ENOMEM:
		return -EAGAIN;
	case -EFAULT:
		break;
	default:
		return -EFAULT;
	}

	err = rxe_odp_fault_cause(odp, va, len, write);
	if (err == -ENOMEM)
		return -EAGAIN;
	return err ? -EFAULT : 0;
}

/*
 * rxe_odp_map_range_locked - make [@va, @va + @len) of @mr accessible
 * @child: the child of @mr that translates the whole range
 * @write: the access writes, so the pages must be mapped writable
 * @prefetch: no access follows: count the pages as prefetched, not as
 *	faulted, and a failure not as a fault error of the data path
 *
 * Called and returns with umem_mutex held, and drops it while it faults:
 * a fault takes mmap_lock, which comes first in the lock order, may sleep,
 * and may invalidate this very MR (as __xas_nomem() drops the xa_lock to
 * allocate). Returns 0 with the range valid for the access until the
 * caller drops umem_mutex; -EAGAIN when the range could not be faulted in
 * now for memory pressure but may be later, or -EFAULT when it can never
 * be accessed (see rxe_odp_fault_failed()). When a fault is needed it also
 * covers up to odp_fault_ahead following pages of the child that are not
 * mapped with the needed permission yet, so a stream of MTU-sized packets
 * does not fault once per packet.
 */
static int rxe_odp_map_range_locked(struct rxe_mr *mr,
				    struct rxe_odp_child *child, u64 va,
				    unsigned int len, bool write,
				    bool prefetch)
	__must_hold(&child->odp->umem_mutex)
{
	struct ib_umem_odp *odp = child->odp;
	u64 perm = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	unsigned int shift = odp->page_shift;
	unsigned long first, last, need, idx, stop, max_idx, ahead;
	int tries, np, err, resolved = 0;
	u64 start, t0;

	lockdep_assert_held(&odp->umem_mutex);
	/* not might_sleep(): no preemption point per packet (rxe_odp_lock()) */
	__might_sleep(__FILE__, __LINE__);

	if (write && !odp->umem.writable) {
		np = -EPERM;
		err = -EFAULT;
		goto out_err;
	}

	first = (va - ib_umem_start(odp)) >> shift;
	need = (va + len - 1 - ib_umem_start(odp)) >> shift;
	max_idx = ib_umem_odp_num_pages(odp) - 1;
	ahead = min_t(unsigned int, READ_ONCE(odp_fault_ahead),
		      RXE_ODP_MAX_FAULT_AHEAD) >> rxe_odp_subpage_shift(odp);

	for (tries = 0; ; tries++) {
		for (idx = first; idx <= need; idx++)
			if (!rxe_odp_entry_ok(odp, idx, perm))
				break;
		if (idx > need)
			return 0;

		if (tries == RXE_ODP_FAULT_TRIES) {
			/* the faults worked, the range was invalidated after each */
			np = -EAGAIN;
			err = -EAGAIN;
			goto out_err;
		}

		/*
		 * Only the first attempt faults ahead: the pages after the
		 * access may be unmapped or read-only while the ones the
		 * access needs are fine.
		 */
		last = need;
		stop = tries ? need : min(need + ahead, max_idx);
		while (last < stop && !rxe_odp_entry_ok(odp, last + 1, perm))
			last++;
		rxe_odp_unlock(odp);

		if (tries > 1)
			cond_resched();

		if (unlikely(rxe_odp_inject_failure())) {
			np = -EBUSY;
			err = rxe_odp_fault_failed(odp, np, va, len, write);
			goto out_relock;
		}

		/*
		 * takes mmap_lock; on success returns with umem_mutex held.
		 * Timed: the fault service of the latency histogram.
		 */
		start = ib_umem_start(odp) + ((u64)idx << shift);
		t0 = ktime_get_ns();
		np = ib_umem_odp_map_dma_and_lock(odp, start,
						  (u64)(last - idx + 1) << shift,
						  perm, true);
		if (np >= 0) {
			__acquire(&odp->umem_mutex);
			resolved = 0;
			np <<= rxe_odp_subpage_shift(odp);
			if (prefetch) {
				rxe_odp_count(odp, mr,
					      RXE_ODP_STAT_PAGES_PREFETCHED, np);
				continue;
			}
			rxe_odp_count_fault(odp, mr, np, ktime_get_ns() - t0);
			continue;
		}

		/*
		 * A failed fault-ahead says nothing about the access: try
		 * again without it. Only a failure of the access's own
		 * pages decides, and only from this attempt's error.
		 */
		if (last == need) {
			err = rxe_odp_fault_failed(odp, np, va, len, write);
			if (err)
				goto out_relock;
			/*
			 * The core faulted in what hmm could not. If hmm
			 * fails on it again right after, it cannot map
			 * what the core can (a special PTE): permanent.
			 */
			if (++resolved == 2) {
				err = -EFAULT;
				goto out_relock;
			}
		}
		rxe_odp_lock(odp);
	}

out_relock:
	rxe_odp_lock(odp);
out_err:
	rxe_dbg_mr(mr, "%s fault at va %#llx length %u failed, err = %d: %s\n",
		   write ? "write" : "read", va, len, np,
		   err == -EAGAIN ? "retry later" : "access error");
	if (err == -EAGAIN)
		return -EAGAIN;
	if (!prefetch)
		rxe_odp_count(odp, mr, RXE_ODP_STAT_FAULT_ERRORS, 1);
	return -EFAULT;
}

/*
 * rxe_odp_prefetch - map [@va, @va + @len) of @mr before rxe accesses it
 * @write: map the pages writable (breaks COW), else read-only
 *
 * The data path's fault, fault-ahead included, without the access. The
 * caller checked the range against the MR. Returns 0, or -EAGAIN or
 * -EFAULT as rxe_odp_map_range_locked() does.
 */
int rxe_odp_prefetch(struct rxe_mr *mr, u64 va, unsigned int len, bool write)
{
	struct rxe_odp_child *child;
	unsigned int part;
	int err = 0;

	while (len) {
		child = rxe_odp_child(rxe_mr_tree(mr), va, true);
		if (IS_ERR(child))
			return PTR_ERR(child) == -ENOENT ? -EFAULT :
							   PTR_ERR(child);
		part = rxe_odp_child_len(child, va, len);

		rxe_odp_lock(child->odp);
		err = rxe_odp_map_range_locked(mr, child, va, part, write,
					       true);
		rxe_odp_unlock(child->odp);
		rxe_odp_child_put(child);
		if (err)
			return err;
		va += part;
		len -= part;
	}
	return 0;
}

/* Umem pages in [@first, @last] that rxe can read now */
static unsigned long rxe_odp_count_mapped(struct ib_umem_odp *odp,
					  unsigned long first,
					  unsigned long last)
	__must_hold(&odp->umem_mutex)
{
	unsigned long idx, n = 0;

	lockdep_assert_held(&odp->umem_mutex);
	for (idx = first; idx <= last; idx++)
		n += rxe_odp_entry_ok(odp, idx, ODP_READ_ALLOWED_BIT);
	return n;
}

/* Tries of the look at the page tables while the range is invalidated */
#define RXE_ODP_LOOK_TRIES	16

/*
 * Map the present umem pages [@va, @va + @len) of @mr, readable and, if
 * @write, writable, as the core's fault does; they are present, so nothing
 * is faulted unless a page goes away meanwhile. Counts the pages it newly
 * mapped as prefetched. A failure is not an error of the prefetch: the
 * pages may have been unmapped since the look.
 */
static void rxe_odp_map_present(struct rxe_mr *mr,
				struct rxe_odp_child *child, u64 va, u64 len,
				bool write)
{
	struct ib_umem_odp *odp = child->odp;
	unsigned int shift = odp->page_shift;
	unsigned long first, last, before, after;
	u64 perm = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	int np;

	/* the core's fault takes mmap_lock, which comes before umem_mutex */
	lockdep_assert_not_held(&odp->umem_mutex);

	first = (va - ib_umem_start(odp)) >> shift;
	last = (va + len - 1 - ib_umem_start(odp)) >> shift;

	rxe_odp_lock(odp);
	before = rxe_odp_count_mapped(odp, first, last);
	rxe_odp_unlock(odp);

	np = ib_umem_odp_map_dma_and_lock(odp, va, len, perm, true);
	if (np < 0) {
		rxe_dbg_mr(mr, "mapping present pages at va %#llx failed, err = %d\n",
			   va, np);
		return;
	}
	__acquire(&odp->umem_mutex);
	after = rxe_odp_count_mapped(odp, first, last);
	rxe_odp_unlock(odp);
	if (after > before)
		rxe_odp_count(odp, mr, RXE_ODP_STAT_PAGES_PREFETCHED,
			      (u64)(after - before) <<
			      rxe_odp_subpage_shift(odp));
}

/*
 * Map what is present of [@va, @va + @len), which @child translates.
 *
 * Maps the pages of the range that the owner's page tables map now, with
 * the permission of their PTE (never more than the MR's), and faults
 * nothing in: a page that is absent, swapped out or not yet copied on
 * write stays unmapped. The caller checked the range against the MR.
 *
 * It looks at the page tables itself (hmm_range_fault() without
 * HMM_PFN_REQ_FAULT, into a pfn array of its own) and hands the present
 * runs to the core's fault. The core's own snapshot mode is not used: it
 * warns when it finds a page absent whose dma_list entry is still set,
 * which munmap() makes happen (the VMA is gone before the invalidation
 * comes), and it shares pfn_list with concurrent faults.
 *
 * Returns 0, -ENOMEM, -EAGAIN (memory pressure) or -EFAULT (a dead owner).
 */
static int rxe_odp_prefetch_present_child(struct rxe_mr *mr,
					  struct rxe_odp_child *child,
					  u64 va, unsigned int len)
{
	struct ib_umem_odp *odp = child->odp;
	struct mm_struct *mm = odp->umem.owning_mm;
	unsigned long step = 1UL << rxe_odp_subpage_shift(odp);
	struct hmm_range range = {
		.notifier = &odp->notifier,
		.start = ALIGN_DOWN(va, 1UL << odp->page_shift),
		.end = ALIGN(va + len, 1UL << odp->page_shift),
	};
	unsigned long npfns = (range.end - range.start) >> PAGE_SHIFT;
	unsigned long *pfns, i, j;
	int err, tries = 0;
	bool write;

	might_sleep();
	/* mmap_lock comes before umem_mutex */
	lockdep_assert_not_held(&odp->umem_mutex);

	pfns = kvcalloc(npfns, sizeof(*pfns), GFP_KERNEL);
	if (!pfns)
		return -ENOMEM;
	range.hmm_pfns = pfns;

	if (!mmget_not_zero(mm)) {
		err = -EFAULT;
		goto out_free;
	}
	do {
		range.notifier_seq = mmu_interval_read_begin(&odp->notifier);
		mmap_read_lock(mm);
		err = hmm_range_fault(&range);
		mmap_read_unlock(mm);
	} while (err == -EBUSY && ++tries < RXE_ODP_LOOK_TRIES);
	mmput_async(mm);
	if (err) {
		rxe_dbg_mr(mr, "look at va %#llx length %u failed, err = %d\n",
			   va, len, err);
		err = err == -EBUSY || err == -ENOMEM ? -EAGAIN : -EFAULT;
		goto out_free;
	}

	/* umem pages are all present or all absent (huge pages) */
	for (i = 0; i < npfns; i = j) {
		j = i + step;
		if (!(pfns[i] & HMM_PFN_VALID))
			continue;
		write = odp->umem.writable && (pfns[i] & HMM_PFN_WRITE);
		while (j < npfns && (pfns[j] & HMM_PFN_VALID) &&
		       write == (odp->umem.writable &&
				 (pfns[j] & HMM_PFN_WRITE)))
			j += step;
		rxe_odp_map_present(mr, child,
				    range.start + (i << PAGE_SHIFT),
				    (u64)(j - i) << PAGE_SHIFT, write);
		cond_resched();
	}

out_free:
	kvfree(pfns);
	return err;
}

/*
 * rxe_odp_prefetch_present - map what is present of [@va, @va + @len)
 *
 * Maps the pages of the range that the owner's page tables map now, child
 * by child (see rxe_odp_prefetch_present_child()). The caller checked the
 * range against the MR.
 */
int rxe_odp_prefetch_present(struct rxe_mr *mr, u64 va, unsigned int len)
{
	unsigned int shift = rxe_mr_tree(mr)->shift;
	struct rxe_odp_child *child;
	unsigned int part;
	int err;

	while (len) {
		child = rxe_odp_child(rxe_mr_tree(mr), va, true);
		if (PTR_ERR_OR_ZERO(child) == -ENOENT) {
			/* nothing mapped from @va to the chunk's end */
			part = min_t(u64, len, BIT_ULL(shift) -
				     (va & (BIT_ULL(shift) - 1)));
			va += part;
			len -= part;
			continue;
		}
		if (IS_ERR(child))
			return PTR_ERR(child);
		part = rxe_odp_child_len(child, va, len);
		err = rxe_odp_prefetch_present_child(mr, child, va, part);
		rxe_odp_child_put(child);
		if (err)
			return err;
		va += part;
		len -= part;
	}
	return 0;
}

/* The 4 KiB page holding @va; its umem page must be mapped */
static struct page *rxe_odp_va_to_page(struct ib_umem_odp *odp, u64 va)
	__must_hold(&odp->umem_mutex)
{
	u64 off = va - ib_umem_start(odp);
	dma_addr_t dma;

	lockdep_assert_held(&odp->umem_mutex);
	dma = odp->dma_list[off >> odp->page_shift];
	return ib_virt_dma_to_page((dma & ODP_DMA_ADDR_MASK) +
				   (off & ((1ULL << odp->page_shift) - 1)));
}

/*
 * rxe writes through the kernel mapping, so the owner's PTE never becomes
 * dirty. The core dirties a page when it unmaps an entry that still has
 * ODP_WRITE_ALLOWED_BIT, but a later read fault over the same page resyncs
 * the entry to read-only, and a clean swap-cache page is then dropped by
 * reclaim with rxe's data in it. So every write of rxe dirties the page
 * (set_page_dirty()) while umem_mutex keeps it mapped, as in the core.
 */
static void rxe_odp_copy_locked(struct ib_umem_odp *odp, u64 va, void *addr,
				unsigned int length, enum rxe_mr_copy_dir dir)
	__must_hold(&odp->umem_mutex)
{
	lockdep_assert_held(&odp->umem_mutex);

	while (length) {
		unsigned int offset = offset_in_page(va);
		unsigned int bytes = min_t(unsigned int, length,
					   PAGE_SIZE - offset);
		struct page *page = rxe_odp_va_to_page(odp, va);

		if (dir == RXE_FROM_MR_OBJ) {
			memcpy_from_page(addr, page, offset, bytes);
		} else {
			memcpy_to_page(page, offset, addr, bytes);
			set_page_dirty(page);
		}

		va += bytes;
		addr += bytes;
		length -= bytes;
	}
}

/*
 * Copy to or from an ODP MR. -EFAULT means the memory cannot be reached
 * (IB_WC_LOC_PROT_ERR on the requester, an R_Key violation on the
 * responder); -EAGAIN means it could not be faulted in now, and the caller
 * retries the access later (RNR NAK on the responder). A failed copy may
 * have written part of the range; a retry writes it again.
 */
int rxe_odp_mr_copy(struct rxe_mr *mr, u64 iova, void *addr,
		    unsigned int length, enum rxe_mr_copy_dir dir)
{
	bool write = dir == RXE_TO_MR_OBJ;
	struct rxe_odp_child *child;
	unsigned int chunk;
	u64 va;
	int err;

	/*
	 * rxe_mr_copy() checked [iova, iova + length) against the MR, but
	 * not for wrapping, which an implicit MR's range allows
	 */
	if (rxe_odp_iova_to_va(mr, iova, length, &va))
		return -EFAULT;

	while (length) {
		child = rxe_odp_access_child(mr, va);
		if (IS_ERR(child))
			return PTR_ERR(child);
		chunk = rxe_odp_child_len(child, va,
					  min_t(unsigned int, length,
						RXE_ODP_MAX_CHUNK));

		rxe_odp_lock(child->odp);
		err = rxe_odp_map_range_locked(mr, child, va, chunk, write,
					       false);
		if (!err) {
			rxe_odp_copy_locked(child->odp, va, addr, chunk, dir);
			rxe_odp_young_mark(child->odp, child->young, va, chunk);
		}
		rxe_odp_unlock(child->odp);
		rxe_odp_child_put(child);
		if (err)
			return err;

		va += chunk;
		addr += chunk;
		length -= chunk;
	}

	return 0;
}

/*
 * Find the child holding the 8 bytes at @iova of @mr for an atomic access
 * (never two: they are aligned). Returns RESPST_NONE with *@va and *@child
 * set (a reference: rxe_odp_child_put()), or the responder's error:
 * RESPST_ERR_ODP_RNR when the child could not be allocated now, so the
 * requester retries.
 */
static enum resp_states rxe_odp_atomic_child(struct rxe_mr *mr, u64 iova,
					     u64 *va,
					     struct rxe_odp_child **child)
{
	/* See IBA oA19-28 */
	if (rxe_odp_iova_to_va(mr, iova, sizeof(u64), va))
		return RESPST_ERR_RKEY_VIOLATION;

	/* See IBA A19.4.2; iova and va share their page offset */
	if (unlikely(!IS_ALIGNED(*va, sizeof(u64)))) {
		rxe_dbg_mr(mr, "iova not aligned\n");
		return RESPST_ERR_MISALIGNED_ATOMIC;
	}

	*child = rxe_odp_access_child(mr, *va);
	if (IS_ERR(*child))
		return PTR_ERR(*child) == -EAGAIN ? RESPST_ERR_ODP_RNR :
						    RESPST_ERR_RKEY_VIOLATION;
	return RESPST_NONE;
}

/*
 * Map the 8 bytes at @va of @child writable for an atomic access. Returns
 * RESPST_NONE with *@page set, or the responder's error:
 * RESPST_ERR_ODP_RNR when the page may be faulted in later, so the
 * requester retries instead of the QP failing.
 */
static enum resp_states rxe_odp_atomic_map(struct rxe_mr *mr,
					   struct rxe_odp_child *child,
					   u64 va, struct page **page)
	__must_hold(&child->odp->umem_mutex)
{
	int err;

	lockdep_assert_held(&child->odp->umem_mutex);

	err = rxe_odp_map_range_locked(mr, child, va, sizeof(u64), true,
				       false);
	if (err)
		return err == -EAGAIN ? RESPST_ERR_ODP_RNR :
					RESPST_ERR_RKEY_VIOLATION;

	*page = rxe_odp_va_to_page(child->odp, va);
	return RESPST_NONE;
}

/* rxe wrote the 8 bytes at @va through @page (see rxe_odp_copy_locked()) */
static void rxe_odp_atomic_done(struct rxe_odp_child *child, u64 va,
				struct page *page)
	__must_hold(&child->odp->umem_mutex)
{
	lockdep_assert_held(&child->odp->umem_mutex);
	set_page_dirty(page);
	rxe_odp_young_mark(child->odp, child->young, va, sizeof(u64));
}

/* Returns a resp_states value, as rxe_mr_do_atomic_op() does */
int rxe_odp_atomic_op(struct rxe_mr *mr, u64 iova, int opcode,
		      u64 compare, u64 swap_add, u64 *orig_val)
{
	struct rxe_odp_child *child;
	enum resp_states err;
	struct page *page;
	u64 va;

	err = rxe_odp_atomic_child(mr, iova, &va, &child);
	if (err)
		return err;

	rxe_odp_lock(child->odp);
	err = rxe_odp_atomic_map(mr, child, va, &page);
	if (!err) {
		*orig_val = rxe_mr_atomic_op_page(page, offset_in_page(va),
						  opcode, compare, swap_add);
		rxe_odp_atomic_done(child, va, page);
	}
	rxe_odp_unlock(child->odp);
	rxe_odp_child_put(child);

	return err;
}

#if defined CONFIG_64BIT
/* Returns a resp_states value, as rxe_mr_do_atomic_write() does */
int rxe_odp_atomic_write(struct rxe_mr *mr, u64 iova, u64 value)
{
	struct rxe_odp_child *child;
	enum resp_states err;
	struct page *page;
	u64 va, *kaddr;

	err = rxe_odp_atomic_child(mr, iova, &va, &child);
	if (err)
		return err;

	rxe_odp_lock(child->odp);
	err = rxe_odp_atomic_map(mr, child, va, &page);
	if (!err) {
		kaddr = kmap_local_page(page);
		/* Do atomic write after all prior operations have completed */
		smp_store_release(&kaddr[offset_in_page(va) >> 3], value);
		kunmap_local(kaddr);
		rxe_odp_atomic_done(child, va, page);
	}
	rxe_odp_unlock(child->odp);
	rxe_odp_child_put(child);

	return err;
}
#else
int rxe_odp_atomic_write(struct rxe_mr *mr, u64 iova, u64 value)
{
	return RESPST_ERR_UNSUPPORTED_OPCODE;
}
#endif

/*
 * The first child of @tree at an index from *@index to @last that is not
 * dying, referenced as by rxe_odp_child_get(), with *@index set to its
 * index; NULL when there is none. A dying child translates nothing, or is
 * being released with its MR. Lock-free: the RCU read section keeps the
 * children it meets allocated (rxe_odp_reap() waits for a grace period
 * after erasing) and covers the increment, as in rxe_odp_child_get().
 */
static struct rxe_odp_child *rxe_odp_child_next(struct rxe_odp_tree *tree,
						unsigned long *index,
						unsigned long last)
{
	struct rxe_odp_child *child;

	rcu_read_lock();
	child = xa_find(&tree->children, index, last, XA_PRESENT);
	while (child && READ_ONCE(child->dying))
		child = xa_find_after(&tree->children, index, last,
				      XA_PRESENT);
	if (child)
		atomic_inc(&child->users);
	rcu_read_unlock();
	return child;
}

/* umem pages without a valid entry one hold of umem_mutex looks at */
#define RXE_ODP_FLUSH_SCAN	512

/*
 * Write back the CPU cache for the pages that @odp maps in [@va, @end),
 * from @va on, until RXE_ODP_MAX_CHUNK bytes were written back or
 * RXE_ODP_FLUSH_SCAN umem pages without a valid entry were skipped, and
 * add the 4 KiB pages it wrote back (or part of) to *@pages. Returns the
 * address it stopped at (@end when done).
 */
static u64 rxe_odp_flush_locked(struct ib_umem_odp *odp, u64 va, u64 end,
				unsigned long *pages)
	__must_hold(&odp->umem_mutex)
{
	u64 usize = BIT_ULL(odp->page_shift);
	unsigned int done = 0, skipped = 0;
	unsigned long idx;
	u64 next;
	u8 *kaddr;

	lockdep_assert_held(&odp->umem_mutex);

	while (va < end && done < RXE_ODP_MAX_CHUNK &&
	       skipped < RXE_ODP_FLUSH_SCAN) {
		idx = (va - ib_umem_start(odp)) >> odp->page_shift;
		if (!rxe_odp_entry_ok(odp, idx, ODP_READ_ALLOWED_BIT)) {
			/* nothing rxe wrote since its invalidation */
			va = min(end, ALIGN_DOWN(va, usize) + usize);
			skipped++;
			continue;
		}
		next = min(end, ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE);
		kaddr = kmap_local_page(rxe_odp_va_to_page(odp, va));
		arch_wb_cache_pmem(kaddr + offset_in_page(va), next - va);
		kunmap_local(kaddr);
		done += next - va;
		va = next;
		(*pages)++;
	}
	return va;
}

/* The same for all of [@va, @end), which @child translates */
static void rxe_odp_flush_child(struct rxe_odp_child *child, u64 va, u64 end,
				unsigned long *pages)
{
	struct ib_umem_odp *odp = child->odp;

	while (va < end) {
		rxe_odp_lock(odp);
		va = rxe_odp_flush_locked(odp, va, end, pages);
		rxe_odp_unlock(odp);
		cond_resched();
	}
}

/*
 * Write back the CPU cache for the pages of [iova, iova + length) that rxe
 * can reach now. Registration refuses IB_ACCESS_FLUSH_PERSISTENT for an
 * ODP MR, but a type 2 memory window bound to one may carry it (the
 * responder checks the window's access, not the MR's), so a persistent
 * RDMA FLUSH through the window gets here (rxe_check_bind_mw() does not
 * compare the two). It does not fault: a page rxe cannot reach holds
 * nothing rxe wrote since it was last invalidated, and faulting a whole
 * MR in for a flush would defeat ODP. For the same reason it visits only
 * the children that exist, never each chunk of the range: a FLUSH of the
 * whole MR (IB_FLUSH_MR) spans all of an implicit MR, 2^64 bytes, of
 * which the part past the owner's address space holds nothing either.
 * The pages written back add to odp_pages_flushed of "rdma resource show
 * mr -dd". Process context, no lock held; it takes one umem_mutex at a
 * time.
 */
int rxe_odp_flush_pmem_iova(struct rxe_mr *mr, u64 iova, u64 length)
{
	struct rxe_odp_tree *tree = rxe_mr_tree(mr);
	unsigned long index, last, pages = 0;
	struct rxe_odp_child *child;
	u64 va, end;
	int err;

	err = rxe_odp_iova_in_mr(mr, iova, length, &va);
	if (err)
		return err;
	end = min(va + length, tree->end);
	if (va >= end)
		return 0;

	if (!rxe_mr_odp(mr)->is_implicit_odp) {
		rxe_odp_flush_child(&tree->single, va, end, &pages);
		goto out;
	}

	index = va >> tree->shift;
	last = (end - 1) >> tree->shift;
	while ((child = rxe_odp_child_next(tree, &index, last))) {
		rxe_odp_flush_child(child, max(va, ib_umem_start(child->odp)),
				    min(end, ib_umem_end(child->odp)), &pages);
		rxe_odp_child_put(child);
		if (index++ == last)
			break;
	}
out:
	atomic_long_add(pages, &tree->nr_flushed);
	return 0;
}

/*
 * A snapshot of the pages an ODP MR maps; umem_mutex is not needed for racy
 * reads, and child_mutex keeps the reap work from freeing a child of the
 * walk (it erases them under it first)
 */
static u64 rxe_odp_mapped_pages(struct rxe_odp_tree *tree)
{
	struct rxe_odp_child *child;
	unsigned long index;
	u64 mapped = 0;

	if (tree->single.odp)
		mapped = (u64)READ_ONCE(tree->single.odp->npages) <<
			 rxe_odp_subpage_shift(tree->single.odp);
	mutex_lock(&tree->child_mutex);
	xa_for_each(&tree->children, index, child)
		mapped += READ_ONCE(child->odp->npages);
	mutex_unlock(&tree->child_mutex);
	return mapped;
}

/* The attributes of an MR's translation, for rxe_odp_fill_res_mr_entry() */
static int rxe_odp_put_tree_attrs(struct sk_buff *msg,
				  struct rxe_odp_tree *tree)
{
	const struct {
		const char *name;
		u64 value;
	} attrs[] = {
		{ "odp_mapped_pages", rxe_odp_mapped_pages(tree) },
		{ "odp_children", atomic_long_read(&tree->nr_children) },
		{ "odp_children_freed", atomic_long_read(&tree->nr_freed) },
		{ "odp_children_evicted", atomic_long_read(&tree->nr_evicted) },
		{ "odp_pages_flushed", atomic_long_read(&tree->nr_flushed) },
	};
	unsigned int i;

	if (rdma_nl_put_driver_string(msg, "odp",
				      tree->implicit ? "implicit" : "explicit"))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (rdma_nl_put_driver_u64(msg, attrs[i].name, attrs[i].value))
			return -EMSGSIZE;
	return 0;
}

/* Driver attributes of "rdma resource show mr -dd" */
int rxe_odp_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	struct nlattr *table;
	int i;

	if (!rxe_mr_is_odp(mr) || !rxe_mr_tree(mr))
		return 0;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rxe_odp_put_tree_attrs(msg, rxe_mr_tree(mr)))
		goto err;
	for (i = 0; i < RXE_ODP_NUM_STATS; i++)
		if (rdma_nl_put_driver_u64(msg, rxe_odp_stat_name[i],
					   atomic64_read(&mr->odp_stats[i])))
			goto err;

	nla_nest_end(msg, table);
	return 0;

err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}
