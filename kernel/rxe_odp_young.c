// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Page aging for On-Demand Paging MRs.
 *
 * Why: rxe reaches the pages of an ODP MR through their kernel mapping
 * (kmap of the page found in the umem's dma_list), never through the
 * owner's page tables, so the accessed bit of the user PTE never records
 * what rxe does. Without help, reclaim sees a buffer that only RDMA traffic
 * uses as idle, swaps it out, and the next packet faults it back in, over
 * and over. The mmu_notifier young callbacks (the 2008 design's age_page)
 * let a secondary MMU add its own use to the kernel's: this file answers
 * them for rxe. KVM is the other user of these callbacks.
 *
 * What: every ODP MR carries a bitmap with one bit per 4 KiB page of its
 * umem range, set by rxe_odp_young_mark() when rxe copies to or from the
 * page or does an atomic on it. Each mm that owns ODP MRs on rxe has one
 * struct rxe_odp_young_mm (an mmu_notifier from mmu_notifier_get(), so
 * the core finds or creates it per (ops, mm)), holding the list of those
 * MRs. The callbacks look up the MRs overlapping [start, end):
 *   clear_young, clear_flush_young: true if any bit in the range is set;
 *     the bits are cleared, so the next question is about new accesses.
 *     rxe has no secondary TLB, so the "flush" variant is the same.
 *   test_young: the same answer, no bit is cleared.
 * odp_aging=0 (module parameter, writable at runtime) stops both the
 * marking and the answers, so the effect can be measured in one boot.
 * One bit per 4 KiB page is 1/128 of what ib_umem_odp already allocates
 * (pfn_list and dma_list, 8 bytes each per page).
 *
 * Lifetime:
 *   rxe_odp_young_attach(), at ODP MR registration (process context, the
 *   owner's mm, nothing held): mmu_notifier_get() takes mmap_lock for
 *   write, returns the mm's notifier with a new reference (allocating and
 *   registering it on first use), then the MR is added to its list.
 *   rxe_odp_young_detach(), at MR cleanup (process context, before
 *   ib_umem_release()): the MR is unlinked with list_del_rcu(), its
 *   reference put with mmu_notifier_put(), and its bitmap freed with
 *   kvfree_rcu(), so a callback still walking the list under RCU can
 *   finish with it. After the last put the core unhooks the notifier and
 *   frees it from an SRCU callback through ->free_notifier(); module exit
 *   waits for those with mmu_notifier_synchronize().
 *   The notifier has no ->release: it owns no mapping of the mm (the
 *   translations belong to the interval notifiers of the umems, which the
 *   core invalidates with MMU_NOTIFY_RELEASE at exit), and the get/put
 *   scheme does not need one. After exit_mmap() the core just stops
 *   calling it; the put at MR cleanup still pairs with the get.
 *
 * Locks and contexts:
 *   ymm->lock (spinlock) serializes only the list writers, attach and
 *   detach, in process context; it nests inside nothing of rxe's and is
 *   never taken by a callback.
 *   The young callbacks run from reclaim and from page-idle/DAMON/
 *   khugepaged scans, under the core's SRCU read lock and usually with a
 *   page-table spinlock held: rmap walk (folio_referenced_one), MGLRU
 *   look-around and page-table walk, page_idle, DAMON, khugepaged. They
 *   must not sleep or take a mutex, so they walk the list under
 *   rcu_read_lock() and use atomic bitops only.
 *   rxe_odp_young_mark() runs on the data path with the MR's umem_mutex
 *   held (rxe_odp.c); it only does test_bit/set_bit.
 *
 * Relation to the invalidate path (rxe_odp.c): rxe_odp_invalidate() is an
 * interval notifier per MR; it sleeps on umem_mutex and drops translations.
 * The young callbacks are a separate, per-mm notifier that neither takes
 * umem_mutex nor changes translations, so no lock order between the two
 * exists: they may run concurrently, and a bit set or cleared a moment
 * early or late only shifts an aging decision, never correctness. Bits are
 * left alone on invalidation: a page rxe used and that was unmapped anyway
 * is gone, and if rxe faults it back its next access is real use.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem_odp.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_odp_young.h"

static bool odp_aging = true;
module_param(odp_aging, bool, 0644);
MODULE_PARM_DESC(odp_aging,
		 "Report pages that rxe accessed in ODP MRs as young to page reclaim (default Y)");

/* One per mm that owns ODP MRs on rxe */
struct rxe_odp_young_mm {
	struct mmu_notifier	mn;
	spinlock_t		lock;	/* serializes writers of @mrs */
	struct list_head	mrs;	/* rxe_odp_young, RCU readers */
};

/* One per ODP MR */
struct rxe_odp_young {
	struct list_head	node;
	struct rxe_odp_young_mm	*ymm;
	struct rxe_dev		*rxe;
	unsigned long		start;	/* umem range, page aligned */
	unsigned long		end;
	struct rcu_head		rcu;
	unsigned long		bits[];	/* one per 4 KiB page, set = used */
};

static inline struct rxe_odp_young_mm *to_ymm(struct mmu_notifier *mn)
{
	return container_of(mn, struct rxe_odp_young_mm, mn);
}

/*
 * Report whether rxe used a page of [start, end) since the bits were last
 * cleared; clear them if @clear. Runs in atomic context (see above).
 */
static bool rxe_odp_young_scan(struct rxe_odp_young_mm *ymm,
			       unsigned long start, unsigned long end,
			       bool clear)
{
	struct rxe_odp_young *y;
	bool counted = false;
	bool young = false;

	if (!READ_ONCE(odp_aging) || start >= end)
		return false;

	rcu_read_lock();
	list_for_each_entry_rcu(y, &ymm->mrs, node) {
		unsigned long first, last, idx;
		bool hit = false;

		if (end <= y->start || start >= y->end)
			continue;
		first = (max(start, y->start) - y->start) >> PAGE_SHIFT;
		last = (min(end, y->end) - 1 - y->start) >> PAGE_SHIFT;

		for (idx = find_next_bit(y->bits, last + 1, first);
		     idx <= last;
		     idx = find_next_bit(y->bits, last + 1, idx + 1)) {
			if (!clear) {
				hit = true;
				break;
			}
			if (test_and_clear_bit(idx, y->bits))
				hit = true;
		}
		if (!hit)
			continue;

		young = true;
		/* y->rxe outlives y, and y is safe until rcu_read_unlock() */
		if (!counted) {
			rxe_counter_inc(y->rxe, RXE_CNT_ODP_YOUNG_ANSWERS);
			counted = true;
		}
		if (!clear)
			break;
	}
	rcu_read_unlock();

	return young;
}

static int rxe_odp_young_clear_flush_young(struct mmu_notifier *mn,
					   struct mm_struct *mm,
					   unsigned long start,
					   unsigned long end)
{
	return rxe_odp_young_scan(to_ymm(mn), start, end, true);
}

static int rxe_odp_young_clear_young(struct mmu_notifier *mn,
				     struct mm_struct *mm,
				     unsigned long start, unsigned long end)
{
	return rxe_odp_young_scan(to_ymm(mn), start, end, true);
}

static int rxe_odp_young_test_young(struct mmu_notifier *mn,
				    struct mm_struct *mm,
				    unsigned long address)
{
	unsigned long start = address & PAGE_MASK;

	return rxe_odp_young_scan(to_ymm(mn), start, start + PAGE_SIZE, false);
}

/* Called by mmu_notifier_get_locked() with mmap_lock held for write */
static struct mmu_notifier *rxe_odp_young_alloc_notifier(struct mm_struct *mm)
{
	struct rxe_odp_young_mm *ymm;

	ymm = kzalloc(sizeof(*ymm), GFP_KERNEL);
	if (!ymm)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&ymm->lock);
	INIT_LIST_HEAD(&ymm->mrs);
	return &ymm->mn;
}

/* SRCU callback after the last mmu_notifier_put(): the list is empty */
static void rxe_odp_young_free_notifier(struct mmu_notifier *mn)
{
	struct rxe_odp_young_mm *ymm = to_ymm(mn);

	WARN_ON_ONCE(!list_empty(&ymm->mrs));
	kfree(ymm);
}

static const struct mmu_notifier_ops rxe_odp_young_ops = {
	.clear_flush_young	= rxe_odp_young_clear_flush_young,
	.clear_young		= rxe_odp_young_clear_young,
	.test_young		= rxe_odp_young_test_young,
	.alloc_notifier		= rxe_odp_young_alloc_notifier,
	.free_notifier		= rxe_odp_young_free_notifier,
};

/*
 * Hook an ODP MR into its mm's aging notifier. Process context of the
 * registering task, no lock held (mmu_notifier_get() takes mmap_lock).
 */
int rxe_odp_young_attach(struct rxe_mr *mr)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	struct mm_struct *mm = odp->umem.owning_mm;
	unsigned long start = ib_umem_start(odp);
	unsigned long end = ib_umem_end(odp);
	struct rxe_odp_young_mm *ymm;
	struct rxe_odp_young *y;
	struct mmu_notifier *mn;

	/* registering a notifier needs a live mm: the caller's own */
	if (mm != current->mm || end <= start)
		return -EINVAL;

	y = kvzalloc(struct_size(y, bits,
				 BITS_TO_LONGS((end - start) >> PAGE_SHIFT)),
		     GFP_KERNEL);
	if (!y)
		return -ENOMEM;
	y->rxe = to_rdev(odp->umem.ibdev);
	y->start = start;
	y->end = end;

	mn = mmu_notifier_get(&rxe_odp_young_ops, mm);
	if (IS_ERR(mn)) {
		kvfree(y);
		return PTR_ERR(mn);
	}
	ymm = to_ymm(mn);
	y->ymm = ymm;

	spin_lock(&ymm->lock);
	list_add_tail_rcu(&y->node, &ymm->mrs);
	spin_unlock(&ymm->lock);

	mr->odp_young = y;
	return 0;
}

/*
 * Unhook an ODP MR at cleanup, when no data-path user of it is left.
 * Safe on an MR whose attach failed or never ran.
 */
void rxe_odp_young_detach(struct rxe_mr *mr)
{
	struct rxe_odp_young *y = mr->odp_young;
	struct rxe_odp_young_mm *ymm;

	if (!y)
		return;
	mr->odp_young = NULL;
	ymm = y->ymm;

	spin_lock(&ymm->lock);
	list_del_rcu(&y->node);
	spin_unlock(&ymm->lock);

	mmu_notifier_put(&ymm->mn);
	kvfree_rcu(y, rcu);
}

/*
 * rxe accessed [va, va + len) of @mr's user range. Data path, umem_mutex
 * held: no sleeping. A bit that is already set is only read, so pages in
 * steady use do not bounce the bitmap's cache lines between CPUs.
 */
void rxe_odp_young_mark(struct rxe_mr *mr, u64 va, u64 len)
{
	struct rxe_odp_young *y = mr->odp_young;
	unsigned long idx, last;
	u64 end;

	if (!y || !len || !READ_ONCE(odp_aging))
		return;
	if (check_add_overflow(va, len, &end) || va < y->start ||
	    end > y->end)
		return;

	last = (end - 1 - y->start) >> PAGE_SHIFT;
	for (idx = (va - y->start) >> PAGE_SHIFT; idx <= last; idx++)
		if (!test_bit(idx, y->bits))
			set_bit(idx, y->bits);
}

/* Module exit: wait for the notifiers freed by mmu_notifier_put() */
void rxe_odp_young_exit(void)
{
	mmu_notifier_synchronize();
}
