/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Page aging for On-Demand Paging MRs: rxe tells reclaim which pages of an
 * ODP MR it used, through the young callbacks of one mmu_notifier per mm.
 * See rxe_odp_young.c.
 */

#ifndef RXE_ODP_YOUNG_H
#define RXE_ODP_YOUNG_H

struct rxe_mr;
struct rxe_dev;
struct mm_struct;
struct ib_umem_odp;
struct rxe_odp_young;
struct rxe_odp_young_mm;

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING
struct rxe_odp_young_mm *rxe_odp_young_get(struct mm_struct *mm);
void rxe_odp_young_put(struct rxe_odp_young_mm *ymm);
struct rxe_odp_young *rxe_odp_young_add(struct rxe_odp_young_mm *ymm,
					struct rxe_dev *rxe,
					unsigned long start,
					unsigned long end);
void rxe_odp_young_del(struct rxe_odp_young *y);
void rxe_odp_young_detach(struct rxe_mr *mr);
void rxe_odp_young_mark(struct ib_umem_odp *odp, struct rxe_odp_young *y,
			u64 va, u64 len);
void rxe_odp_young_exit(void);
#else
static inline void rxe_odp_young_detach(struct rxe_mr *mr)
{
}

static inline void rxe_odp_young_exit(void)
{
}
#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

#endif /* RXE_ODP_YOUNG_H */
