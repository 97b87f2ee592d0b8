// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's work requests: posting them, and checking what
 * completes (every byte that arrived against its pattern, every error
 * completion counted by work kind and status). Calls only buffers.c,
 * common.c and the pattern code.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "traffic.h"

/* ---------- verification ---------- */

enum pat_class rv_verify(struct rv_ctx *ctx, enum rv_where w, const void *p, size_t len,
			 uint32_t stream, uint64_t off, uint64_t gen, bool pinned_path,
			 const char *what, unsigned q)
{
	static const char *const wn[RV_NWHERE] = {
		"server: written block", "server: received message",
		"client: read-back", "client: received ack",
	};
	struct pat_result r;

	atomic_fetch_add(&ctx->st.verified[w], 1);
	if (!pat_check(p, len, stream, off, gen, &r)) {
		atomic_fetch_add(&ctx->st.cls[w][PAT_OK], 1);
		return PAT_OK;
	}
	atomic_fetch_add(&ctx->st.cls[w][r.cls], 1);
	atomic_fetch_add(&ctx->st.bad_bytes, r.bad_bytes);
	if (pat_class_is_stale(r.cls) && pinned_path)
		atomic_fetch_add(&ctx->st.stale_explained, 1);
	else
		atomic_fetch_add(&ctx->st.unexplained, 1);
	if (ctx->cfg.verbose || atomic_fetch_add(&ctx->st.mismatches_printed, 1) < 5)
		fprintf(stderr,
			"%s: MISMATCH %s qp %u %s gen %llu: %s, %zu bad bytes in %u pages, first at +%zu; found stream %#x off %llu gen %llu%s\n",
			ctx->prog, wn[w], q, what, (unsigned long long)gen, pat_class_name(r.cls),
			r.bad_bytes, r.bad_pages, r.first_bad, r.found_stream,
			(unsigned long long)r.found_off, (unsigned long long)r.found_gen,
			pinned_path ? " (pinned memory on the path)" : "");
	return r.cls;
}

/* ---------- posting ---------- */

int rv_post_send(struct rv_ctx *ctx, struct ibv_qp *qp, uint64_t wr_id,
		 enum ibv_wr_opcode op, void *addr, uint32_t len, struct ibv_mr *mr,
		 uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t cmp, uint64_t swp)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = mr ? mr->lkey : 0 };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int rc;

	if (op == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htonl(imm);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = swp;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		rv_fatal(ctx, "ibv_post_send: %s", strerror(rc));
	return rc;
}

int rv_post_recv(struct rv_ctx *ctx, struct ibv_qp *qp, struct rv_buf *b, unsigned q)
{
	int s = rv_slot_alloc(b);
	struct ibv_sge sge = {
		.addr = (uintptr_t)rv_slot_ptr(b, s), .length = (uint32_t)b->slot, .lkey = b->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WRID(q, WK_RECV, s, 0), .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc;

	atomic_fetch_add(&b->inflight, 1);
	rc = ibv_post_recv(qp, &wr, &bad);
	if (rc)
		rv_fatal(ctx, "ibv_post_recv: %s", strerror(rc));
	return rc;
}

void rv_count_error(struct rv_ctx *ctx, const struct ibv_wc *wc, const char *side,
		    bool *first_seen)
{
	unsigned k = WRID_K(wc->wr_id), st = wc->status < 32 ? wc->status : 31;

	if (k >= RV_NWK)
		k = 0;
	atomic_fetch_add(&ctx->st.err[k][st], 1);
	if (wc->status != IBV_WC_WR_FLUSH_ERR)
		fprintf(stderr, "%s: %s qp %u: error completion %s (%d) on work kind %u, vendor_err %#x\n",
			ctx->prog, side, WRID_Q(wc->wr_id), ibv_wc_status_str(wc->status),
			wc->status, k, wc->vendor_err);
	else if (!*first_seen)
		fprintf(stderr, "%s: %s qp %u: work requests flushed, but no error completion came first (work kind %u)\n",
			ctx->prog, side, WRID_Q(wc->wr_id), k);
	*first_seen = true;
}
