// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Prefetch for On-Demand Paging MRs: the advise_mr verb (ibv_advise_mr()).
 *
 * The first RDMA access of an ODP page costs a fault on the data path. An
 * application that knows which memory it is about to use can have it
 * mapped beforehand:
 *
 *   IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH           fault in for reading (a
 *                                                 COW page stays shared)
 *   IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE     fault in for writing
 *                                                 (breaks COW)
 *   IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT  map only the pages the
 *                                                 owner's page tables map
 *                                                 now; never fault
 *
 * With IB_UVERBS_ADVISE_MR_FLAG_FLUSH the call returns once the ranges are
 * mapped, or with the first error; without it, the ranges are mapped by a
 * work item and the call returns at once. In both cases every SGE is
 * checked first, and the call fails without effect if one is wrong:
 *
 *   -EOPNOTSUPP  unknown advice; an lkey of an MR that is not ODP
 *   -EINVAL      unknown flags
 *   -ENOENT      no valid MR has this lkey
 *   -EPERM       the MR belongs to another PD; PREFETCH_WRITE on an MR
 *                registered without write access
 *   -EFAULT      the range is not inside the MR (addr + length checked
 *                for overflow before anything is indexed)
 *
 * A zero-length SGE is accepted and maps nothing. A synchronous prefetch
 * may also fail with -EFAULT (part of the range cannot be mapped: no VMA,
 * no permission), -EAGAIN (memory pressure; try again), -EINTR (fatal
 * signal) or -ENOENT (the MR was deregistered meanwhile). An asynchronous
 * one reports nothing; a range that fails is skipped.
 *
 * Pages are mapped through rxe_odp_prefetch(), the data path's fault
 * (odp_fault_ahead applies), and counted in odp_pages_prefetched, on the
 * device and per MR ("rdma resource show mr -dd"), not as faults.
 *
 * Lifetime: each SGE holds a reference on its MR from the check until the
 * prefetch of its range is over, so the MR and its umem stay allocated;
 * rxe_dereg_mr() waits for that reference. Between two chunks of a range
 * the prefetch stops if the MR left the pool (deregistration started), so
 * dereg waits for one chunk at most. A process that exits meanwhile makes
 * the faults fail (its mm is gone). The work items run on a workqueue of
 * their own, destroyed (drained) at module exit after the last device,
 * so no work item outlives the module's code.
 */

#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_odp.h"

/*
 * Bytes mapped per call of the fault routine (2 MiB aligned, one huge
 * page); between two, the prefetch checks the MR and may reschedule.
 */
#define RXE_ODP_PREFETCH_CHUNK	SZ_2M

struct rxe_odp_prefetch_sge {
	struct rxe_mr	*mr;
	u64		va;	/* user virtual address of the range */
	u32		length;
};

struct rxe_odp_prefetch_work {
	struct work_struct		work;
	enum ib_uverbs_advise_mr_advice	advice;
	u32				num_sge;
	struct rxe_odp_prefetch_sge	sge[] __counted_by(num_sge);
};

static struct workqueue_struct *rxe_odp_prefetch_wq;

/* Check @sge and take a reference on its MR. Returns 0 or -errno. */
static int rxe_odp_prefetch_check(struct rxe_pd *pd,
				  enum ib_uverbs_advise_mr_advice advice,
				  const struct ib_sge *sge,
				  struct rxe_odp_prefetch_sge *out)
{
	struct rxe_dev *rxe = to_rdev(pd->ibpd.device);
	struct rxe_mr *mr;
	u64 end;
	int err;

	mr = rxe_pool_get_index(&rxe->mr_pool, sge->lkey >> 8);
	if (!mr) {
		rxe_dbg_pd(pd, "advise_mr: no MR with lkey %#x\n", sge->lkey);
		return -ENOENT;
	}

	if (mr->lkey != sge->lkey || mr->state != RXE_MR_STATE_VALID) {
		rxe_dbg_pd(pd, "advise_mr: no valid MR with lkey %#x\n",
			   sge->lkey);
		err = -ENOENT;
		goto err_put;
	}
	if (mr_pd(mr) != pd) {
		rxe_dbg_mr(mr, "advise_mr: MR of another PD\n");
		err = -EPERM;
		goto err_put;
	}
	if (!rxe_mr_is_odp(mr)) {
		rxe_dbg_mr(mr, "advise_mr: MR is not ODP\n");
		err = -EOPNOTSUPP;
		goto err_put;
	}
	if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    !mr->umem->writable) {
		rxe_dbg_mr(mr, "advise_mr: write prefetch of a read-only MR\n");
		err = -EPERM;
		goto err_put;
	}
	if (check_add_overflow(sge->addr, (u64)sge->length, &end) ||
	    sge->addr < mr->ibmr.iova ||
	    end - mr->ibmr.iova > mr->ibmr.length) {
		rxe_dbg_mr(mr, "advise_mr: addr %#llx length %#x out of range\n",
			   sge->addr, sge->length);
		err = -EFAULT;
		goto err_put;
	}

	out->mr = mr;
	/* cannot wrap: umem address + length was checked at registration */
	out->va = mr->umem->address + (sge->addr - mr->ibmr.iova);
	out->length = sge->length;
	return 0;

err_put:
	rxe_put(mr);
	return err;
}

/* Deregistration of @mr started (it left the pool); a reference is held */
static bool rxe_odp_mr_leaving(struct rxe_mr *mr)
{
	bool gone;

	rcu_read_lock();
	gone = xa_load(&mr->elem.pool->xa, mr->elem.index) != &mr->elem;
	rcu_read_unlock();

	return gone;
}

static int rxe_odp_prefetch_sge(enum ib_uverbs_advise_mr_advice advice,
				const struct rxe_odp_prefetch_sge *sge)
{
	u64 va = sge->va, end = sge->va + sge->length;
	unsigned int len;
	int err;

	while (va < end) {
		if (rxe_odp_mr_leaving(sge->mr))
			return -ENOENT;
		if (fatal_signal_pending(current))
			return -EINTR;

		len = min_t(u64, end - va, RXE_ODP_PREFETCH_CHUNK -
			    (va & (RXE_ODP_PREFETCH_CHUNK - 1)));
		if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
			err = rxe_odp_prefetch_present(sge->mr, va, len);
		else
			err = rxe_odp_prefetch(sge->mr, va, len, advice ==
					       IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE);
		if (err) {
			rxe_dbg_mr(sge->mr, "prefetch of va %#llx length %#x failed, err = %d\n",
				   va, len, err);
			return err;
		}
		va += len;
		cond_resched();
	}

	return 0;
}

static void rxe_odp_prefetch_free(struct rxe_odp_prefetch_work *work)
{
	u32 i;

	for (i = 0; i < work->num_sge; i++)
		rxe_put(work->sge[i].mr);
	kvfree(work);
}

static void rxe_odp_prefetch_work_fn(struct work_struct *w)
{
	struct rxe_odp_prefetch_work *work =
		container_of(w, struct rxe_odp_prefetch_work, work);
	u32 i;

	/* advice only: a range that fails does not stop the others */
	for (i = 0; i < work->num_sge; i++)
		rxe_odp_prefetch_sge(work->advice, &work->sge[i]);

	rxe_odp_prefetch_free(work);
}

int rxe_odp_advise_mr(struct ib_pd *ibpd,
		      enum ib_uverbs_advise_mr_advice advice, u32 flags,
		      struct ib_sge *sg_list, u32 num_sge,
		      struct uverbs_attr_bundle *attrs)
{
	struct rxe_odp_prefetch_work *work;
	int err = 0;
	u32 i;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* uverbs refuses unknown flags already; ib_advise_mr() does not */
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EINVAL;
	if (!num_sge)
		return 0;

	work = kvzalloc(struct_size(work, sge, num_sge), GFP_KERNEL);
	if (!work)
		return -ENOMEM;
	work->advice = advice;
	work->num_sge = num_sge;

	for (i = 0; i < num_sge; i++) {
		err = rxe_odp_prefetch_check(to_rpd(ibpd), advice, &sg_list[i],
					     &work->sge[i]);
		if (err) {
			/* the references taken so far */
			work->num_sge = i;
			goto out_free;
		}
	}

	if (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) {
		for (i = 0; i < num_sge && !err; i++)
			err = rxe_odp_prefetch_sge(advice, &work->sge[i]);
		goto out_free;
	}

	INIT_WORK(&work->work, rxe_odp_prefetch_work_fn);
	queue_work(rxe_odp_prefetch_wq, &work->work);
	return 0;

out_free:
	rxe_odp_prefetch_free(work);
	return err;
}

int rxe_odp_advise_init(void)
{
	rxe_odp_prefetch_wq = alloc_workqueue("rxe_odp_prefetch", WQ_UNBOUND,
					      0);
	return rxe_odp_prefetch_wq ? 0 : -ENOMEM;
}

void rxe_odp_advise_exit(void)
{
	destroy_workqueue(rxe_odp_prefetch_wq);
}
