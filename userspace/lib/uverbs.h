/*
 * uverbs: commands the tools send the kernel themselves, through uverbs'
 * write() ABI, where rdma-core 44 has no verb that reaches the kernel on
 * rxe: rereg of an MR (librxe has no rereg_mr), registration with the
 * arguments libibverbs would refuse itself, and a post_send without
 * work requests (the doorbell after WQEs were written into a send queue
 * ring directly), and advise_mr (librxe 44 has no advise_mr, so
 * ibv_advise_mr() answers EOPNOTSUPP without asking the kernel; this goes
 * through the ioctl() ABI, RDMA_VERBS_IOCTL).  Built into each tool that
 * lists it in LIB.
 */
#ifndef RXE_ODP_UVERBS_H
#define RXE_ODP_UVERBS_H

#include <infiniband/verbs.h>
#include <stdint.h>

/* IB_USER_VERBS_CMD_REREG_MR of mr: flags are IBV_REREG_MR_CHANGE_*
 * (translation, PD, access), the other arguments as for ibv_rereg_mr().
 * 0 and the keys the kernel returns (when lkey/rkey are not NULL), or the
 * errno of the write(). */
int uv_rereg_mr(struct ibv_mr *mr, uint32_t flags, uint64_t start, uint64_t length,
		uint64_t hca_va, struct ibv_pd *pd, int access, uint32_t *lkey, uint32_t *rkey);

/* IB_USER_VERBS_CMD_REG_MR on pd with the kernel's own arguments, past
 * libibverbs' checks (its ibv_cmd_reg_mr() refuses some, e.g. SIZE_MAX at
 * a non-zero address, before the kernel sees them): 0 and the new MR's
 * handle in *handle (free it with uv_dereg_mr()), or the errno of the
 * write(). */
int uv_reg_mr(struct ibv_pd *pd, uint64_t start, uint64_t length, uint64_t hca_va, int access,
	      uint32_t *handle);
/* IB_USER_VERBS_CMD_DEREG_MR of an MR uv_reg_mr() made: 0 or an errno. */
int uv_dereg_mr(struct ibv_context *ctx, uint32_t handle);

/* IB_USER_VERBS_CMD_POST_SEND with no work request: rxe then runs qp's
 * send queue, as after librxe posts.  0 or an errno value. */
int uv_post_send_doorbell(struct ibv_qp *qp);

/* UVERBS_METHOD_ADVISE_MR on pd (of an rxe device): advice is an IBV_ADVISE_MR_ADVICE_* value,
 * flags IBV_ADVISE_MR_FLAG_*, sg the num_sge ranges (addr, length, lkey) as
 * for ibv_advise_mr().  0 or the errno of the ioctl(). */
int uv_advise_mr(struct ibv_pd *pd, uint32_t advice, uint32_t flags, const struct ibv_sge *sg,
		 uint32_t num_sge);

#endif
