/* uverbs: REREG_MR and an empty POST_SEND through the write() ABI. */
#include "uverbs.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

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
