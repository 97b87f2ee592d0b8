// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * On-Demand Paging (ODP) memory regions for rxe.
 *
 * An ODP MR pins nothing. Its only translation is its ib_umem_odp: for
 * rxe, a virtual-DMA device, dma_list[i] is the kernel address of umem page
 * i with ODP_READ_ALLOWED_BIT / ODP_WRITE_ALLOWED_BIT in the low bits, and
 * an entry is valid only while those bits are set. pfn_list is not used:
 * hmm_range_fault() rewrites it without umem_mutex.
 *
 * Lock order:
 *   mmap_lock  ->  umem_mutex  ->  atomic_ops_lock
 * rxe takes mmap_lock only while it holds no lock of its own: for read in
 * ib_umem_odp_map_dma_and_lock() (every fault), in rxe_odp_fault_cause()
 * (after a failed fault) and in rxe_odp_prefetch_present() (its look at
 * the page tables); for write in mmu_notifier_get(), when
 * rxe_odp_young_attach() hooks a new MR into page aging. The faults made
 * under it may invalidate this very MR, which takes umem_mutex inside
 * mmap_lock as above. atomic_ops_lock (a spinlock of rxe_mr.c) is only
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
 * Invalidate contract: rxe_odp_invalidate() takes umem_mutex, bumps the
 * notifier sequence and clears every dma_list entry overlapping the range.
 * Every access to an ODP page holds umem_mutex from the check that its
 * entry is valid until the access is over, so once the callback returns,
 * rxe no longer touches those pages and the kernel may free, move, swap
 * or write-protect them. A range that may not block (OOM reaper) is
 * refused instead of sleeping on the mutex; the core retries later.
 *
 * Fault contract: rxe_odp_map_range_locked() is the one way to reach ODP
 * pages. Its caller takes umem_mutex and gets it back held, the range
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
 * marks its pages in a per-MR bitmap (rxe_odp_young_mark(), umem_mutex
 * held, atomic operations only), and a second notifier, one per mm, answers
 * reclaim's young callbacks from it. That notifier never takes umem_mutex
 * (it runs under page-table spinlocks) and changes no translation, so it
 * adds nothing to the lock order above and is independent of
 * rxe_odp_invalidate(). It is attached at registration and detached in
 * rxe_mr_cleanup() before the umem is released.
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

static inline struct ib_umem_odp *rxe_mr_odp(struct rxe_mr *mr)
{
	return to_ib_umem_odp(mr->umem);
}

/*
 * umem_mutex, taken and dropped so that sparse can count it: the mutex
 * functions of 6.12 carry no context annotation, so without these sparse
 * could not check that every way out of a __must_hold() function, or of
 * one that takes the mutex, leaves it as it should.
 */
static inline void rxe_odp_lock(struct ib_umem_odp *odp)
	__acquires(&odp->umem_mutex)
{
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

static bool rxe_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *odp =
		container_of(mni, struct ib_umem_odp, notifier);
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

	mr = odp->private;
	rxe_odp_count(odp, mr, RXE_ODP_STAT_INVALIDATIONS, 1);
	rxe_odp_count(odp, mr, RXE_ODP_STAT_PAGES_INVALIDATED,
		      (u64)(mapped - odp->npages) <<
		      rxe_odp_subpage_shift(odp));
	rxe_odp_unlock(odp);

	return true;
}

static const struct mmu_interval_notifier_ops rxe_odp_mn_ops = {
	.invalidate = rxe_odp_invalidate,
};

int rxe_odp_mr_init_user(struct rxe_dev *rxe, u64 start, u64 length,
			 u64 iova, int access, struct rxe_mr *mr)
{
	struct ib_umem_odp *odp;
	u64 end;
	int err;

	/* Implicit ODP (the whole address space) is not implemented */
	if (!start && length == U64_MAX) {
		rxe_dbg_dev(rxe, "implicit ODP is not supported\n");
		return -EOPNOTSUPP;
	}

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

	/* Every later iova check relies on these sums not wrapping */
	if (check_add_overflow(start, length, &end) ||
	    check_add_overflow(iova, length, &end))
		return -EOVERFLOW;

	rxe_mr_init(access, mr);

	odp = ib_umem_odp_get(&rxe->ib_dev, start, length, access,
			      &rxe_odp_mn_ops);
	if (IS_ERR(odp)) {
		rxe_dbg_mr(mr, "ib_umem_odp_get failed, err = %ld\n",
			   PTR_ERR(odp));
		return PTR_ERR(odp);
	}

	/* The notifier is live already: publish @mr to it under its lock */
	rxe_odp_lock(odp);
	odp->private = mr;
	rxe_odp_unlock(odp);

	mr->umem = &odp->umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.type = IB_MR_TYPE_USER;

	/* on failure the caller's cleanup releases the umem */
	err = rxe_odp_young_attach(mr);
	if (err) {
		rxe_dbg_mr(mr, "page aging attach failed, err = %d\n", err);
		return err;
	}

	mr->state = RXE_MR_STATE_VALID;

	return 0;
}

/* Translate [iova, iova + length) of @mr to the owner's virtual address */
static int rxe_odp_iova_to_va(struct rxe_mr *mr, u64 iova, u64 length,
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

	/* Cannot wrap: umem address + length was checked at registration */
	*va = mr->umem->address + (iova - mr->ibmr.iova);
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
 * covers up to odp_fault_ahead following pages of the MR that are not
 * mapped with the needed permission yet, so a stream of MTU-sized packets
 * does not fault once per packet.
 */
static int rxe_odp_map_range_locked(struct rxe_mr *mr, u64 va,
				    unsigned int len, bool write,
				    bool prefetch)
	__must_hold(&rxe_mr_odp(mr)->umem_mutex)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	u64 perm = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	unsigned int shift = odp->page_shift;
	unsigned long first, last, need, idx, stop, max_idx, ahead;
	int tries, np, err, resolved = 0;
	u64 start;

	lockdep_assert_held(&odp->umem_mutex);
	might_sleep();

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

		/* takes mmap_lock; on success returns with umem_mutex held */
		start = ib_umem_start(odp) + ((u64)idx << shift);
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
			rxe_odp_count(odp, mr, RXE_ODP_STAT_FAULTS, 1);
			rxe_odp_count(odp, mr, RXE_ODP_STAT_PAGES_FAULTED, np);
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
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	int err;

	rxe_odp_lock(odp);
	err = rxe_odp_map_range_locked(mr, va, len, write, true);
	rxe_odp_unlock(odp);
	return err;
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
static void rxe_odp_map_present(struct rxe_mr *mr, u64 va, u64 len,
				bool write)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
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
 * rxe_odp_prefetch_present - map what is present of [@va, @va + @len)
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
int rxe_odp_prefetch_present(struct rxe_mr *mr, u64 va, unsigned int len)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
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
		rxe_odp_map_present(mr, range.start + (i << PAGE_SHIFT),
				    (u64)(j - i) << PAGE_SHIFT, write);
		cond_resched();
	}

out_free:
	kvfree(pfns);
	return err;
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
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	bool write = dir == RXE_TO_MR_OBJ;
	/*
	 * rxe_mr_copy() checked [iova, iova + length) against the MR; the
	 * sum cannot wrap: umem address + length was checked at registration
	 */
	u64 va = mr->umem->address + (iova - mr->ibmr.iova);
	int err;

	while (length) {
		unsigned int chunk = min_t(unsigned int, length,
					   RXE_ODP_MAX_CHUNK);

		rxe_odp_lock(odp);
		err = rxe_odp_map_range_locked(mr, va, chunk, write, false);
		if (!err) {
			rxe_odp_copy_locked(odp, va, addr, chunk, dir);
			rxe_odp_young_mark(mr, va, chunk);
		}
		rxe_odp_unlock(odp);
		if (err)
			return err;

		va += chunk;
		addr += chunk;
		length -= chunk;
	}

	return 0;
}

/*
 * Map the 8 bytes at @iova of @mr writable for an atomic access. Returns
 * RESPST_NONE with *@va and *@page set, or the responder's error:
 * RESPST_ERR_ODP_RNR when the page may be faulted in later, so the
 * requester retries instead of the QP failing.
 */
static enum resp_states rxe_odp_atomic_map(struct rxe_mr *mr, u64 iova,
					   u64 *va, struct page **page)
	__must_hold(&rxe_mr_odp(mr)->umem_mutex)
{
	int err;

	lockdep_assert_held(&rxe_mr_odp(mr)->umem_mutex);

	/* See IBA oA19-28 */
	if (rxe_odp_iova_to_va(mr, iova, sizeof(u64), va))
		return RESPST_ERR_RKEY_VIOLATION;

	/* See IBA A19.4.2; iova and va share their page offset */
	if (unlikely(!IS_ALIGNED(*va, sizeof(u64)))) {
		rxe_dbg_mr(mr, "iova not aligned\n");
		return RESPST_ERR_MISALIGNED_ATOMIC;
	}

	err = rxe_odp_map_range_locked(mr, *va, sizeof(u64), true, false);
	if (err)
		return err == -EAGAIN ? RESPST_ERR_ODP_RNR :
					RESPST_ERR_RKEY_VIOLATION;

	*page = rxe_odp_va_to_page(rxe_mr_odp(mr), *va);
	return RESPST_NONE;
}

/* rxe wrote the 8 bytes at @va through @page (see rxe_odp_copy_locked()) */
static void rxe_odp_atomic_done(struct rxe_mr *mr, u64 va, struct page *page)
	__must_hold(&rxe_mr_odp(mr)->umem_mutex)
{
	lockdep_assert_held(&rxe_mr_odp(mr)->umem_mutex);
	set_page_dirty(page);
	rxe_odp_young_mark(mr, va, sizeof(u64));
}

/* Returns a resp_states value, as rxe_mr_do_atomic_op() does */
int rxe_odp_atomic_op(struct rxe_mr *mr, u64 iova, int opcode,
		      u64 compare, u64 swap_add, u64 *orig_val)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	enum resp_states err;
	struct page *page;
	u64 va;

	rxe_odp_lock(odp);
	err = rxe_odp_atomic_map(mr, iova, &va, &page);
	if (!err) {
		*orig_val = rxe_mr_atomic_op_page(page, offset_in_page(va),
						  opcode, compare, swap_add);
		rxe_odp_atomic_done(mr, va, page);
	}
	rxe_odp_unlock(odp);

	return err;
}

#if defined CONFIG_64BIT
/* Returns a resp_states value, as rxe_mr_do_atomic_write() does */
int rxe_odp_atomic_write(struct rxe_mr *mr, u64 iova, u64 value)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	enum resp_states err;
	struct page *page;
	u64 va, *kaddr;

	rxe_odp_lock(odp);
	err = rxe_odp_atomic_map(mr, iova, &va, &page);
	if (!err) {
		kaddr = kmap_local_page(page);
		/* Do atomic write after all prior operations have completed */
		smp_store_release(&kaddr[offset_in_page(va) >> 3], value);
		kunmap_local(kaddr);
		rxe_odp_atomic_done(mr, va, page);
	}
	rxe_odp_unlock(odp);

	return err;
}
#else
int rxe_odp_atomic_write(struct rxe_mr *mr, u64 iova, u64 value)
{
	return RESPST_ERR_UNSUPPORTED_OPCODE;
}
#endif

/*
 * Write back the CPU cache for the pages of [iova, iova + length) that rxe
 * can reach now. Registration refuses IB_ACCESS_FLUSH_PERSISTENT for an
 * ODP MR, but a type 2 memory window bound to one may carry it (the
 * responder checks the window's access, not the MR's), so a persistent
 * RDMA FLUSH through the window gets here (rxe_check_bind_mw() does not
 * compare the two). It does not fault: a page rxe cannot reach holds
 * nothing rxe wrote since it was last invalidated, and faulting a whole
 * MR in for a flush would defeat ODP.
 */
int rxe_odp_flush_pmem_iova(struct rxe_mr *mr, u64 iova, unsigned int length)
{
	struct ib_umem_odp *odp = rxe_mr_odp(mr);
	u64 va;
	int err;

	err = rxe_odp_iova_to_va(mr, iova, length, &va);
	if (err)
		return err;

	while (length) {
		unsigned int chunk = min_t(unsigned int, length,
					   RXE_ODP_MAX_CHUNK);
		u64 end = va + chunk;

		rxe_odp_lock(odp);
		while (va < end) {
			unsigned int offset = offset_in_page(va);
			unsigned int bytes = min_t(u64, end - va,
						   PAGE_SIZE - offset);
			unsigned long idx =
				(va - ib_umem_start(odp)) >> odp->page_shift;
			u8 *kaddr;

			if (rxe_odp_entry_ok(odp, idx, ODP_READ_ALLOWED_BIT)) {
				kaddr = kmap_local_page(rxe_odp_va_to_page(odp,
									   va));
				arch_wb_cache_pmem(kaddr + offset, bytes);
				kunmap_local(kaddr);
			}
			va += bytes;
		}
		rxe_odp_unlock(odp);
		length -= chunk;
		cond_resched();
	}

	return 0;
}

/* Driver attributes of "rdma resource show mr -dd" */
int rxe_odp_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	struct ib_umem_odp *odp;
	struct nlattr *table;
	int i;

	if (!rxe_mr_is_odp(mr))
		return 0;
	odp = rxe_mr_odp(mr);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;

	if (rdma_nl_put_driver_string(msg, "odp", "explicit"))
		goto err;
	/* a snapshot; umem_mutex is not needed for one racy read */
	if (rdma_nl_put_driver_u64(msg, "odp_mapped_pages",
				   (u64)READ_ONCE(odp->npages) <<
				   rxe_odp_subpage_shift(odp)))
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
