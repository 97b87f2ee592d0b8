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
 * What: every translating umem of an ODP MR (each child, made on the
 * first use of its chunk, or the one umem of a huge-page MR; see
 * rxe_odp.c) carries a bitmap with one bit per 4 KiB page of its range,
 * set by rxe_odp_young_mark() when rxe copies to or from the page or does
 * an atomic on it. Each mm that owns ODP MRs on rxe has one
 * struct rxe_odp_young_mm (an mmu_notifier from mmu_notifier_get(), so
 * the core finds or creates it per (ops, mm)), holding those bitmaps
 * (struct rxe_odp_young, one per child; "MR" below means such a node) in
 * an interval tree keyed by their user address range. The callbacks answer
 * for [start, end):
 *   clear_young, clear_flush_young: true if any bit of an MR overlapping
 *     the range is set; those bits are cleared, so the next question is
 *     about new accesses. rxe has no secondary TLB, so the "flush"
 *     variant is the same.
 *   test_young: the same answer, no bit is cleared.
 * odp_aging=0 (module parameter, writable at runtime) stops both the
 * marking and the answers, so the effect can be measured in one boot.
 * One bit per 4 KiB page is 1/128 of what ib_umem_odp already allocates
 * (pfn_list and dma_list, 8 bytes each per page).
 *
 * Cost: once an mm has a notifier, reclaim asks for nearly every page it
 * looks at, not only for the young ones (see kernel/NOTIFIERS.md, "What
 * the young callbacks cost"): about five calls per page reclaimed, each
 * for one page, in atomic context. So a call must cost O(1) when it cannot
 * be young and O(log N) in the number N of the mm's ODP MRs otherwise,
 * as KVM's memslot interval tree does for guests:
 *   1. ymm->nr_young counts the set bits of all the mm's MRs: 0 (no page
 *      used by rxe since reclaim last cleared it) answers every call at
 *      once, without a lock;
 *   2. [young_start, young_end) covers every page rxe marked since
 *      nr_young was last 0: a range outside it is answered without a
 *      lock. rxe_odp_young_mark() widens it, the callback that clears
 *      the last set bit empties it. So one page in RDMA use among 10,000
 *      MRs makes the calls about that page look it up, not every call
 *      about the pages around it;
 *   3. otherwise the interval tree finds the overlapping MRs in O(log N)
 *      under ymm->lock, and their bits are tested and cleared a word
 *      (64 pages) at a time.
 * 1 and 2 are read without the lock; racing with an access they may
 * answer "not young" for a page rxe is using at that very moment, which
 * the next aging pass sees - the same race the bits have with the
 * accesses themselves. The young span can lose a widening to a
 * concurrent emptying; every access widens it again, so a page in use is
 * missed until its next access at most. An answer never depends on an
 * MR's bits being exact: they are advice to reclaim, not part of any
 * translation.
 *
 * Lifetime:
 *   rxe_odp_young_get(), at ODP MR registration (process context, the
 *   owner's mm, nothing held): mmu_notifier_get() takes mmap_lock for
 *   write, returns the mm's notifier with a new reference (allocating and
 *   registering it on first use), which the MR keeps until cleanup.
 *   rxe_odp_young_add(), when a child is made (process context or the
 *   rxe_wq worker, under the MR's child_mutex, no umem_mutex): its bitmap
 *   is allocated and inserted into the tree.
 *   rxe_odp_young_del(), at MR cleanup (process context, before the
 *   child's umem is released): the node leaves the tree under ymm->lock,
 *   so no callback can reach its bitmap or its device afterwards; its set
 *   bits leave nr_young and the bitmap is freed. Then the MR's reference
 *   is put with rxe_odp_young_put() (mmu_notifier_put()). After the last
 *   put the core unhooks the notifier and frees it from an SRCU callback
 *   through ->free_notifier(); module exit waits for those with
 *   mmu_notifier_synchronize().
 *   The notifier has no ->release: it owns no mapping of the mm (the
 *   translations belong to the interval notifiers of the umems, which the
 *   core invalidates with MMU_NOTIFY_RELEASE at exit), and the get/put
 *   scheme does not need one. After exit_mmap() the core just stops
 *   calling it; the put at MR cleanup still pairs with the get.
 *   The device: a callback touches y->rxe (its counter) only while it
 *   holds ymm->lock with y in the tree, i.e. before rxe_mr_cleanup() of
 *   that MR has passed rxe_odp_young_detach(). rdma_rxe destroys every MR
 *   of a device (ib_unregister_device() disassociates the user contexts;
 *   rxe_dealloc() checks the MR pool is empty) before the device is
 *   freed, so a callback can never see a freed rxe_dev, also while
 *   `rdma link delete` races with reclaim.
 *
 * Locks and contexts:
 *   ymm->lock (spinlock) protects the tree. rxe_odp_young_add() and
 *   rxe_odp_young_del() take it in process context or the rxe_wq worker
 *   (a child made on the data path), the callbacks under the core's SRCU read
 *   lock and usually a page-table spinlock: rmap walk
 *   (folio_referenced_one), MGLRU look-around and page-table walk,
 *   page_idle, DAMON, khugepaged - never from an interrupt. Nothing is
 *   allocated or waited for under it, and it nests inside nothing of
 *   rxe's. The callbacks must not sleep or take a mutex: they use this
 *   spinlock and atomic operations only.
 *   rxe_odp_young_mark() runs on the data path with the child's
 *   umem_mutex held (rxe_odp.c); it takes no lock, only atomic operations on the
 *   bits, nr_young and the young span.
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

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/interval_tree.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem_odp.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_odp.h"
#include "rxe_odp_young.h"

static bool odp_aging = true;
module_param(odp_aging, bool, 0644);
MODULE_PARM_DESC(odp_aging,
		 "Report pages that rxe accessed in ODP MRs as young to page reclaim (default Y)");

/* One per mm that owns ODP MRs on rxe */
struct rxe_odp_young_mm {
	struct mmu_notifier	mn;
	spinlock_t		lock;		/* tree */
	struct rb_root_cached	tree;		/* rxe_odp_young by user range */
	atomic_long_t		nr_young;	/* set bits of all its MRs */
	atomic_long_t		young_start;	/* every marked page lies in */
	atomic_long_t		young_end;	/* [young_start, young_end) */
};

/* One per ODP MR */
struct rxe_odp_young {
	struct interval_tree_node it;	/* umem range [start, last], pages */
	struct rxe_odp_young_mm	*ymm;
	struct rxe_dev		*rxe;
	atomic_long_t		bits[];	/* one per 4 KiB page, set = used */
};

static inline struct rxe_odp_young_mm *to_ymm(struct mmu_notifier *mn)
{
	return container_of(mn, struct rxe_odp_young_mm, mn);
}

/* The bits of word @w that lie in pages [first, last] of a bitmap */
static inline unsigned long rxe_odp_young_mask(unsigned long w,
					       unsigned long first,
					       unsigned long last)
{
	unsigned long mask = ~0UL;

	if (w == BIT_WORD(first))
		mask &= BITMAP_FIRST_WORD_MASK(first);
	if (w == BIT_WORD(last))
		mask &= BITMAP_LAST_WORD_MASK(last + 1);
	return mask;
}

/* Nothing marked any more: no range can be young until the next mark */
static inline void rxe_odp_young_empty(struct rxe_odp_young_mm *ymm)
{
	atomic_long_set(&ymm->young_start, (long)ULONG_MAX);
	atomic_long_set(&ymm->young_end, 0);
}

/*
 * Let the young span cover [start, end). Only reads when it does already,
 * which is the data path's usual case.
 */
static void rxe_odp_young_widen(struct rxe_odp_young_mm *ymm,
				unsigned long start, unsigned long end)
{
	long old;

	old = atomic_long_read(&ymm->young_start);
	while (start < (unsigned long)old &&
	       !atomic_long_try_cmpxchg(&ymm->young_start, &old, (long)start))
		;
	old = atomic_long_read(&ymm->young_end);
	while (end > (unsigned long)old &&
	       !atomic_long_try_cmpxchg(&ymm->young_end, &old, (long)end))
		;
}

/*
 * Whether any of pages [first, last] of @y is marked; with @clear, unmark
 * them all. A word is read before it is written, so pages nobody used cost
 * no atomic operation and no cache line is dirtied for them.
 */
static bool rxe_odp_young_test(struct rxe_odp_young *y, unsigned long first,
			       unsigned long last, bool clear)
	__must_hold(&y->ymm->lock)
{
	unsigned long w, mask, old, cleared = 0;

	lockdep_assert_held(&y->ymm->lock);
	for (w = BIT_WORD(first); w <= BIT_WORD(last); w++) {
		mask = rxe_odp_young_mask(w, first, last);
		if (!(atomic_long_read(&y->bits[w]) & mask))
			continue;
		if (!clear)
			return true;
		old = atomic_long_fetch_andnot(mask, &y->bits[w]);
		cleared += hweight_long(old & mask);
	}
	if (cleared && !atomic_long_sub_return(cleared, &y->ymm->nr_young))
		rxe_odp_young_empty(y->ymm);
	return cleared != 0;
}

/*
 * Report whether rxe used a page of [start, end) since the bits were last
 * cleared; clear them if @clear. Atomic context (see the top of the file).
 */
static bool rxe_odp_young_scan(struct rxe_odp_young_mm *ymm,
			       unsigned long start, unsigned long end,
			       bool clear)
{
	struct interval_tree_node *it;
	struct rxe_odp_young *y;
	struct rxe_dev *rxe = NULL;
	unsigned long last = end - 1;

	if (!READ_ONCE(odp_aging) || start >= end)
		return false;
	/* the common cases, without the lock: see "Cost" above */
	if (!atomic_long_read(&ymm->nr_young) ||
	    end <= (unsigned long)atomic_long_read(&ymm->young_start) ||
	    start >= (unsigned long)atomic_long_read(&ymm->young_end))
		return false;

	spin_lock(&ymm->lock);
	for (it = interval_tree_iter_first(&ymm->tree, start, last); it;
	     it = interval_tree_iter_next(it, start, last)) {
		y = container_of(it, struct rxe_odp_young, it);
		if (!rxe_odp_young_test(y,
					(max(start, it->start) - it->start) >> PAGE_SHIFT,
					(min(last, it->last) - it->start) >> PAGE_SHIFT,
					clear))
			continue;
		if (!rxe)
			rxe = y->rxe;
		if (!clear)
			break;
	}
	/* y is in the tree, so its device is alive: see "Lifetime" above */
	if (rxe)
		rxe_counter_inc(rxe, RXE_CNT_ODP_YOUNG_ANSWERS);
	spin_unlock(&ymm->lock);

	return !!rxe;
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

	mmap_assert_write_locked(mm);
	ymm = kzalloc(sizeof(*ymm), GFP_KERNEL);
	if (!ymm)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&ymm->lock);
	ymm->tree = RB_ROOT_CACHED;
	rxe_odp_young_empty(ymm);
	return &ymm->mn;
}

/* SRCU callback after the last mmu_notifier_put(): the tree is empty */
static void rxe_odp_young_free_notifier(struct mmu_notifier *mn)
{
	struct rxe_odp_young_mm *ymm = to_ymm(mn);

	WARN_ON_ONCE(!RB_EMPTY_ROOT(&ymm->tree.rb_root));
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
 * The aging notifier of @mm, with a new reference, created on first use.
 * Process context of the registering task, no lock held
 * (mmu_notifier_get() takes mmap_lock for write).
 */
struct rxe_odp_young_mm *rxe_odp_young_get(struct mm_struct *mm)
{
	struct mmu_notifier *mn;

	/* registering a notifier needs a live mm: the caller's own */
	if (mm != current->mm)
		return ERR_PTR(-EINVAL);

	mn = mmu_notifier_get(&rxe_odp_young_ops, mm);
	if (IS_ERR(mn))
		return ERR_CAST(mn);
	return to_ymm(mn);
}

/* Drop the reference of rxe_odp_young_get(); no record may be left */
void rxe_odp_young_put(struct rxe_odp_young_mm *ymm)
{
	mmu_notifier_put(&ymm->mn);
}

/*
 * Track the use of the user range [@start, @end) of one translating umem
 * (an ODP MR's child, or the whole umem of a huge-page MR) for aging.
 * May sleep: process context or the rxe_wq worker, no spinlock and no
 * umem_mutex held (the bitmap is allocated with GFP_KERNEL, and reclaim
 * may invalidate). The caller holds a reference on @ymm.
 */
struct rxe_odp_young *rxe_odp_young_add(struct rxe_odp_young_mm *ymm,
					struct rxe_dev *rxe,
					unsigned long start,
					unsigned long end)
{
	struct rxe_odp_young *y;

	might_sleep();
	if (end <= start)
		return ERR_PTR(-EINVAL);

	y = kvzalloc(struct_size(y, bits,
				 BITS_TO_LONGS((end - start) >> PAGE_SHIFT)),
		     GFP_KERNEL);
	if (!y)
		return ERR_PTR(-ENOMEM);
	y->rxe = rxe;
	y->it.start = start;
	y->it.last = end - 1;
	y->ymm = ymm;

	spin_lock(&ymm->lock);
	interval_tree_insert(&y->it, &ymm->tree);
	spin_unlock(&ymm->lock);

	return y;
}

/*
 * Stop tracking a range, when no data-path user of its umem is left
 * (MR cleanup). Safe on NULL.
 */
void rxe_odp_young_del(struct rxe_odp_young *y)
{
	struct rxe_odp_young_mm *ymm;
	unsigned long w, nwords, marked = 0;

	if (!y)
		return;
	ymm = y->ymm;

	spin_lock(&ymm->lock);
	interval_tree_remove(&y->it, &ymm->tree);
	spin_unlock(&ymm->lock);

	/* out of the tree and off the data path: nobody changes the bits */
	nwords = BITS_TO_LONGS((y->it.last + 1 - y->it.start) >> PAGE_SHIFT);
	for (w = 0; w < nwords; w++)
		marked += hweight_long(atomic_long_read(&y->bits[w]));
	if (marked && !atomic_long_sub_return(marked, &ymm->nr_young))
		rxe_odp_young_empty(ymm);

	kvfree(y);
}

/*
 * rxe_mr_cleanup()'s hook for ODP MRs (it runs before ib_umem_release()):
 * the children of the MR and their aging records go first, then the MR's
 * reference on its aging notifier (rxe_odp_mr_release() in rxe_odp.c).
 * Safe on any MR.
 */
void rxe_odp_young_detach(struct rxe_mr *mr)
{
	rxe_odp_mr_release(mr);
}

/*
 * rxe accessed [va, va + len) of the range of @y, translated by @odp.
 * Data path, umem_mutex of @odp held: no sleeping. A word whose bits are
 * all set already is only read, so pages in steady use do not bounce the
 * bitmap's cache lines between CPUs, and nr_young changes once per page
 * and aging pass.
 */
void rxe_odp_young_mark(struct ib_umem_odp *odp, struct rxe_odp_young *y,
			u64 va, u64 len)
	__must_hold(&odp->umem_mutex)
{
	unsigned long w, first, last, mask, old, added = 0;
	u64 end;

	lockdep_assert_held(&odp->umem_mutex);
	if (!y || !len || !READ_ONCE(odp_aging))
		return;
	if (check_add_overflow(va, len, &end) || va < y->it.start ||
	    end - 1 > y->it.last)
		return;

	first = (va - y->it.start) >> PAGE_SHIFT;
	last = (end - 1 - y->it.start) >> PAGE_SHIFT;
	for (w = BIT_WORD(first); w <= BIT_WORD(last); w++) {
		mask = rxe_odp_young_mask(w, first, last);
		if ((atomic_long_read(&y->bits[w]) & mask) == mask)
			continue;
		old = atomic_long_fetch_or(mask, &y->bits[w]);
		added += hweight_long(mask & ~old);
	}
	if (added)
		atomic_long_add(added, &y->ymm->nr_young);
	/* where rxe_odp_young_scan() looks without the lock */
	rxe_odp_young_widen(y->ymm, y->it.start + (first << PAGE_SHIFT),
			    y->it.start + ((last + 1) << PAGE_SHIFT));
}

/* Module exit: wait for the notifiers freed by mmu_notifier_put() */
void rxe_odp_young_exit(void)
{
	mmu_notifier_synchronize();
}
