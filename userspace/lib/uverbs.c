/* uverbs: REREG_MR and an empty POST_SEND through the write() ABI,
 * ADVISE_MR through the ioctl() ABI. */
#include "uverbs.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/* Send a legacy command: req starts with its header, which this fills in
 * (the response, if any, goes to the address in the command's first
 * field, set by the caller). */
static int uv_write(int fd, uint32_t command, void *req, size_t len, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *h = req;

	h->command = command;
	h->in_words = (uint16_t)(len / 4);
	h->out_words = (uint16_t)(resp_len / 4);
	if (write(fd, req, len) != (ssize_t)len)
		return errno ? errno : EIO;
	return 0;
}

int uv_rereg_mr(struct ibv_mr *mr, uint32_t flags, uint64_t start, uint64_t length,
		uint64_t hca_va, struct ibv_pd *pd, int access, uint32_t *lkey, uint32_t *rkey)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req;
	struct ib_uverbs_rereg_mr_resp resp;
	int err;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = flags;
	req.cmd.start = start;
	req.cmd.length = length;
	req.cmd.hca_va = hca_va;
	req.cmd.pd_handle = pd->handle;
	req.cmd.access_flags = (uint32_t)access;
	err = uv_write(mr->context->cmd_fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
		       sizeof(resp));
	if (err)
		return err;
	if (lkey)
		*lkey = resp.lkey;
	if (rkey)
		*rkey = resp.rkey;
	return 0;
}

int uv_reg_mr(struct ibv_pd *pd, uint64_t start, uint64_t length, uint64_t hca_va, int access,
	      uint32_t *handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr cmd;
	} req;
	struct ib_uverbs_reg_mr_resp resp;
	int err;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.start = start;
	req.cmd.length = length;
	req.cmd.hca_va = hca_va;
	req.cmd.pd_handle = pd->handle;
	req.cmd.access_flags = (uint32_t)access;
	err = uv_write(pd->context->cmd_fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
		       sizeof(resp));
	if (err)
		return err;
	*handle = resp.mr_handle;
	return 0;
}

int uv_dereg_mr(struct ibv_context *ctx, uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dereg_mr cmd;
	} req;

	memset(&req, 0, sizeof(req));
	req.cmd.mr_handle = handle;
	return uv_write(ctx->cmd_fd, IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req), 0);
}

int uv_post_send_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req;
	struct ib_uverbs_post_send_resp resp;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	return uv_write(qp->context->cmd_fd, IB_USER_VERBS_CMD_POST_SEND, &req, sizeof(req),
			sizeof(resp));
}

int uv_advise_mr(struct ibv_pd *pd, uint32_t advice, uint32_t flags, const struct ibv_sge *sg,
		 uint32_t num_sge)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[4];
	} req;
	struct ib_uverbs_attr *a = req.attr;
	size_t bytes = (size_t)num_sge * sizeof(*sg);

	/* struct ibv_sge and struct ib_uverbs_sge are the same 16 bytes */
	_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ib_uverbs_sge), "sge layout");
	if (bytes > UINT16_MAX)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = UVERBS_OBJECT_MR;
	req.hdr.method_id = UVERBS_METHOD_ADVISE_MR;
	req.hdr.num_attrs = 4;
	/* the kernel refuses a driver_id other than the device's */
	req.hdr.driver_id = RDMA_DRIVER_RXE;
	a[0].attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE;	/* an object: its handle, len 0 */
	a[0].flags = UVERBS_ATTR_F_MANDATORY;
	a[0].data = pd->handle;
	a[1].attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE;	/* a constant: inline u64 */
	a[1].flags = UVERBS_ATTR_F_MANDATORY;
	a[1].len = sizeof(uint64_t);
	a[1].data = advice;
	a[2].attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS;	/* flags: inline u32 */
	a[2].flags = UVERBS_ATTR_F_MANDATORY;
	a[2].len = sizeof(uint32_t);
	a[2].data = flags;
	a[3].attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST;	/* the array, by pointer */
	a[3].flags = UVERBS_ATTR_F_MANDATORY;
	a[3].len = (uint16_t)bytes;
	a[3].data = (uintptr_t)sg;
	if (ioctl(pd->context->cmd_fd, RDMA_VERBS_IOCTL, &req))
		return errno ? errno : EIO;
	return 0;
}
