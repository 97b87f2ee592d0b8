/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Page aging for On-Demand Paging MRs: rxe tells reclaim which pages of an
 * ODP MR it used, through the young callbacks of one mmu_notifier per mm.
 * See rxe_odp_young.c.
 */

#ifndef RXE_ODP_YOUNG_H
#define RXE_ODP_YOUNG_H

struct rxe_mr;

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING
int rxe_odp_young_attach(struct rxe_mr *mr);
void rxe_odp_young_detach(struct rxe_mr *mr);
void rxe_odp_young_mark(struct rxe_mr *mr, u64 va, u64 len);
void rxe_odp_young_exit(void);
#else
static inline int rxe_odp_young_attach(struct rxe_mr *mr)
{
	return -EOPNOTSUPP;
}

static inline void rxe_odp_young_detach(struct rxe_mr *mr)
{
}

static inline void rxe_odp_young_mark(struct rxe_mr *mr, u64 va, u64 len)
{
}

static inline void rxe_odp_young_exit(void)
{
}
#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

#endif /* RXE_ODP_YOUNG_H */
