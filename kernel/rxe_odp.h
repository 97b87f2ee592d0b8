/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What rxe_odp.c offers the other ODP files of rxe-odp (rxe's own files
 * reach ODP through rxe_loc.h).
 */

#ifndef RXE_ODP_H
#define RXE_ODP_H

struct rxe_mr;

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING
int rxe_odp_prefetch(struct rxe_mr *mr, u64 va, unsigned int len, bool write);
int rxe_odp_prefetch_present(struct rxe_mr *mr, u64 va, unsigned int len);
void rxe_odp_mr_release(struct rxe_mr *mr);
#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

#endif /* RXE_ODP_H */
