// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's client: connects its QPs and runs the transactions
 * (WRITE, READ back and check, FETCH_ADD or CMP_SWAP, SEND), checking the
 * server's acknowledgements. Calls buffers.c, xfer.c, conn.c and common.c,
 * never the server or main.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

static uint64_t mixn(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void cli_notice(struct rv_cqp *cq, uint64_t n)
{
	struct rv_ctx *ctx = cq->ctx;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	uint32_t imm = (uint32_t)(n & IMM_N_MASK), len = 0;
	int m = NOSLOT;
	void *addr = NULL;

	if (t->dst >= 0) {
		atomic_fetch_sub(&cq->dst->inflight, 1);
		rv_slot_free(cq->dst, t->dst);
		t->dst = -1;
	}
	if (t->src_pinned)
		imm |= IMM_SRC_PINNED;
	if (op_on(ctx, RV_OP_SEND)) {
		m = rv_slot_alloc(cq->src);
		addr = rv_slot_ptr(cq->src, m);
		len = (uint32_t)ctx->cfg.block;
		pthread_rwlock_rdlock(&cq->src->fill);
		pat_fill(addr, len, stream_of(cq->q, ST_C2S), 0, n);
		pthread_rwlock_unlock(&cq->src->fill);
		atomic_fetch_add(&cq->src->inflight, 1);
		if (cq->src->pinned)
			imm |= IMM_MSG_PINNED;
	}
	rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_SEND, m, n), IBV_WR_SEND_WITH_IMM, addr, len,
		     cq->src->mr, 0, 0, imm, 0, 0);
}

static void cli_after_read(struct rv_cqp *cq, uint64_t n)
{
	struct rv_ctx *ctx = cq->ctx;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	unsigned k = (unsigned)(n % ctx->cfg.window);
	uint64_t raddr = cq->atom_addr + 8ull * k;

	if (!op_on(ctx, RV_OP_ATOMIC)) {
		cli_notice(cq, n);
		return;
	}
	if (t->dst < 0) {
		t->dst = rv_slot_alloc(cq->dst);
		atomic_fetch_add(&cq->dst->inflight, 1);
	}
	if (n & 1)
		rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_ATOMIC, t->dst, n),
			     IBV_WR_ATOMIC_FETCH_AND_ADD, rv_slot_ptr(cq->dst, t->dst), 8, cq->dst->mr,
			     raddr, cq->atom_rkey, 0, mixn(n) | 1, 0);
	else
		rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_ATOMIC, t->dst, n),
			     IBV_WR_ATOMIC_CMP_AND_SWP, rv_slot_ptr(cq->dst, t->dst), 8, cq->dst->mr,
			     raddr, cq->atom_rkey, 0, cq->expect[k], mixn(n ^ cq->expect[k]));
}

static void cli_start(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;
	uint64_t n = cq->next_n++;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	size_t B = ctx->cfg.block;
	unsigned ts = (unsigned)(n % cq->nslots);
	int s;

	t->n = n;
	t->active = true;
	t->dst = -1;
	t->src_pinned = cq->src->pinned;
	if (!op_on(ctx, RV_OP_WRITE)) {
		cli_after_read(cq, n);
		return;
	}
	s = rv_slot_alloc(cq->src);
	pthread_rwlock_rdlock(&cq->src->fill);
	pat_fill(rv_slot_ptr(cq->src, s), B, stream_of(cq->q, ST_TGT), (uint64_t)ts * B, n);
	pthread_rwlock_unlock(&cq->src->fill);
	atomic_fetch_add(&cq->src->inflight, 1);
	if (rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_WRITE, s, n), IBV_WR_RDMA_WRITE,
			 rv_slot_ptr(cq->src, s), (uint32_t)B, cq->src->mr, cq->tgt_addr + ts * B,
			 cq->tgt_rkey, 0, 0, 0))
		return;
	if (op_on(ctx, RV_OP_READ)) {
		t->dst = rv_slot_alloc(cq->dst);
		atomic_fetch_add(&cq->dst->inflight, 1);
		rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_READ, t->dst, n), IBV_WR_RDMA_READ,
			     rv_slot_ptr(cq->dst, t->dst), (uint32_t)B, cq->dst->mr,
			     cq->tgt_addr + ts * B, cq->tgt_rkey, 0, 0, 0);
	}
}

static void cli_final(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;

	if (!cq->final_sent) {
		cq->final_sent = true;
		if (op_on(ctx, RV_OP_ATOMIC)) {
			cq->final_slot = rv_slot_alloc(cq->dst);
			rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_FINREAD, cq->final_slot, 0),
				     IBV_WR_RDMA_READ, rv_slot_ptr(cq->dst, cq->final_slot),
				     8 * ctx->cfg.window, cq->dst->mr, cq->atom_addr, cq->atom_rkey,
				     0, 0, 0);
			return;
		}
		cq->final_done = true;
	}
	if (cq->final_done && !cq->fin_sent) {
		cq->fin_sent = true;
		rv_post_send(ctx, cq->id->qp, WRID(cq->q, WK_FINSEND, NOSLOT, 0), IBV_WR_SEND_WITH_IMM,
			     NULL, 0, NULL, 0, 0, IMM_FIN, 0, 0);
	}
}

static void cli_pump(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;

	if (cq->dead || cq->fin_done)
		return;
	if (!atomic_load(&ctx->stop_traffic)) {
		while (cq->next_n <= cq->acked + ctx->cfg.window)
			cli_start(cq);
	} else if (cq->next_n == cq->acked + 1) {
		cli_final(cq);
	}
}

static void cli_ack(struct rv_cqp *cq, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = cq->ctx;
	uint32_t imm = ntohl(wc->imm_data);
	int rs = WRID_SLOT(wc->wr_id);
	uint64_t n = cq->acked + 1;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];

	atomic_fetch_sub(&cq->dst->inflight, 1);
	if (imm == ACK_FIN) {
		rv_slot_free(cq->dst, rs);
		cq->fin_done = true;
		return;
	}
	if ((imm & ACK_N_MASK) != (n & ACK_N_MASK) || !t->active || t->n != n) {
		rv_fatal(ctx, "client qp %u: ack for %u, expected %llu", cq->q, imm & ACK_N_MASK,
			 (unsigned long long)n);
		cq->dead = true;
		return;
	}
	if (ctx->cfg.mode == RV_CLIENT) {
		/* The server's verdicts count here; in loopback the server counted them. */
		enum pat_class ct = (imm >> 24) & 0xf, cm = (imm >> 28) & 0xf;
		bool tp = (cq->srv_flags >> ROLE_TGT) & 1, rp = (cq->srv_flags >> ROLE_RCV) & 1;

		if (op_on(ctx, RV_OP_WRITE)) {
			atomic_fetch_add(&ctx->st.verified[W_TGT], 1);
			atomic_fetch_add(&ctx->st.cls[W_TGT][ct < PAT_NCLASS ? ct : PAT_GARBAGE], 1);
			if (ct != PAT_OK)
				atomic_fetch_add(pat_class_is_stale(ct) && (tp || t->src_pinned) ?
						 &ctx->st.stale_explained : &ctx->st.unexplained, 1);
		}
		if (op_on(ctx, RV_OP_SEND)) {
			atomic_fetch_add(&ctx->st.verified[W_RCV], 1);
			atomic_fetch_add(&ctx->st.cls[W_RCV][cm < PAT_NCLASS ? cm : PAT_GARBAGE], 1);
			if (cm != PAT_OK)
				atomic_fetch_add(pat_class_is_stale(cm) && (rp || cq->src->pinned) ?
						 &ctx->st.stale_explained : &ctx->st.unexplained, 1);
		}
	}
	if (op_on(ctx, RV_OP_SEND)) {
		bool pinned = cq->dst->pinned || ((cq->srv_flags >> ROLE_ACKSRC) & 1);

		if (wc->byte_len != ctx->cfg.block) {
			rv_fatal(ctx, "client qp %u: ack of %u bytes", cq->q, wc->byte_len);
			cq->dead = true;
			return;
		}
		rv_verify(ctx, W_ACK, rv_slot_ptr(cq->dst, rs), ctx->cfg.block,
			  stream_of(cq->q, ST_S2C), 0, n, pinned, "ack message", cq->q);
		atomic_fetch_add(&ctx->st.bytes, wc->byte_len);
	}
	rv_slot_free(cq->dst, rs);
	rv_post_recv(ctx, cq->id->qp, cq->dst, cq->q);
	t->active = false;
	cq->acked = n;
	atomic_fetch_add(&ctx->st.txns, 1);
}

static void cli_done(struct rv_client *c, struct rv_cqp *cq)
{
	if ((cq->fin_done || cq->dead) && !cq->counted) {
		cq->counted = true;
		c->ndone++;
	}
}

static void cli_completion(struct rv_client *c, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = c->ctx;
	unsigned q = WRID_Q(wc->wr_id), k = WRID_K(wc->wr_id);
	struct rv_cqp *cq;
	uint64_t n;
	struct rv_txn *t;
	size_t B = ctx->cfg.block;

	if (q >= ctx->cfg.qps)
		return;
	cq = &c->qp[q];
	if (wc->status != IBV_WC_SUCCESS) {
		rv_count_error(ctx, wc, "client", &cq->err_seen);
		cq->dead = true;
		cli_done(c, cq);
		return;
	}
	atomic_fetch_add(&ctx->completions, 1);
	if (k < RV_NWK)
		atomic_fetch_add(&ctx->st.ops[k], 1);
	n = cq->acked + 1 + ((WRID_N(wc->wr_id) - (uint32_t)(cq->acked + 1)) & 0xffffffffu);
	t = &cq->tx[n % ctx->cfg.window];
	switch (k) {
	case WK_WRITE:
		atomic_fetch_sub(&cq->src->inflight, 1);
		atomic_fetch_add(&ctx->st.bytes, B);
		rv_slot_free(cq->src, WRID_SLOT(wc->wr_id));
		if (!op_on(ctx, RV_OP_READ))
			cli_after_read(cq, n);
		break;
	case WK_READ: {
		unsigned ts = (unsigned)(n % cq->nslots);
		bool pinned = t->src_pinned || cq->dst->pinned || ((cq->srv_flags >> ROLE_TGT) & 1);

		atomic_fetch_add(&ctx->st.bytes, B);
		rv_verify(ctx, W_READ, rv_slot_ptr(cq->dst, t->dst), B, stream_of(q, ST_TGT),
			  (uint64_t)ts * B, n, pinned, "read-back", q);
		cli_after_read(cq, n);
		break;
	}
	case WK_ATOMIC: {
		unsigned ki = (unsigned)(n % ctx->cfg.window);
		uint64_t got, add = mixn(n) | 1;

		memcpy(&got, rv_slot_ptr(cq->dst, t->dst), 8);
		atomic_fetch_add(&ctx->st.bytes, 8);
		atomic_fetch_add(n & 1 ? &ctx->st.fadd : &ctx->st.cas, 1);
		if (got == cq->expect[ki]) {
			atomic_fetch_add(&ctx->st.atomics_ok, 1);
			cq->expect[ki] = n & 1 ? got + add : mixn(n ^ got);
		} else if (cq->dst->pinned && cq->dst->dropped[t->dst]) {
			/* The result went to the pinned page this slot had before it
			 * was dropped: stale, not wrong.  The server's counter moved,
			 * so follow it as if we had read the right value. */
			atomic_fetch_add(&ctx->st.atomics_stale, 1);
			atomic_fetch_add(&ctx->st.stale_explained, 1);
			cq->expect[ki] = n & 1 ? cq->expect[ki] + add : mixn(n ^ cq->expect[ki]);
		} else {
			atomic_fetch_add(&ctx->st.atomics_bad, 1);
			atomic_fetch_add(&ctx->st.unexplained, 1);
			fprintf(stderr, "%s: ATOMIC MISMATCH qp %u counter %u txn %llu: %s returned %#llx, expected %#llx\n",
				ctx->prog, q, ki, (unsigned long long)n, n & 1 ? "FETCH_ADD" : "CMP_SWAP",
				(unsigned long long)got, (unsigned long long)cq->expect[ki]);
			/* resynchronise so one fault is counted once */
			cq->expect[ki] = n & 1 ? got + add : got;
		}
		cli_notice(cq, n);
		break;
	}
	case WK_SEND:
		if (WRID_SLOT(wc->wr_id) != NOSLOT) {
			atomic_fetch_sub(&cq->src->inflight, 1);
			rv_slot_free(cq->src, WRID_SLOT(wc->wr_id));
		}
		break;
	case WK_RECV:
		cli_ack(cq, wc);
		cli_done(c, cq);
		break;
	case WK_FINREAD: {
		unsigned i;
		const uint8_t *p = rv_slot_ptr(cq->dst, cq->final_slot);

		for (i = 0; i < ctx->cfg.window; i++) {
			uint64_t v;

			memcpy(&v, p + 8 * i, 8);
			if (v == cq->expect[i]) {
				atomic_fetch_add(&ctx->st.final_ok, 1);
			} else if (cq->dst->pinned && cq->dst->dropped[cq->final_slot]) {
				atomic_fetch_add(&ctx->st.final_stale, 1);
				atomic_fetch_add(&ctx->st.stale_explained, 1);
			} else {
				atomic_fetch_add(&ctx->st.final_bad, 1);
				atomic_fetch_add(&ctx->st.unexplained, 1);
				fprintf(stderr, "%s: qp %u counter %u ends at %#llx, expected %#llx\n",
					ctx->prog, q, i, (unsigned long long)v,
					(unsigned long long)cq->expect[i]);
			}
		}
		rv_slot_free(cq->dst, cq->final_slot);
		cq->final_done = true;
		break;
	}
	default:
		break;
	}
}

int rv_client_setup(struct rv_ctx *ctx, struct rv_client *c)
{
	struct sockaddr_storage ss;
	unsigned q, i;

	c->ctx = ctx;
	c->ec = rdma_create_event_channel();
	if (!c->ec) {
		rv_fatal(ctx, "rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
		return -1;
	}
	if (rv_get_addr(ctx, ctx->cfg.addr, ctx->cfg.port, false, &ss))
		return -1;
	for (q = 0; q < ctx->cfg.qps; q++) {
		struct rv_cqp *cq = &c->qp[q];
		struct rdma_cm_event *ev;
		struct ibv_qp_init_attr qa;
		struct rdma_conn_param cp;
		struct rv_hello h;
		struct rv_welcome wl;
		double t0;

		cq->ctx = ctx;
		cq->q = q;
		cq->next_n = 1;
		cq->nslots = (unsigned)(ctx->cfg.target / ctx->cfg.block);
		if (rdma_create_id(c->ec, &cq->id, cq, RDMA_PS_TCP)) {
			rv_fatal(ctx, "rdma_create_id: %s", strerror(errno));
			return -1;
		}
		if (rdma_resolve_addr(cq->id, NULL, (struct sockaddr *)&ss, 5000)) {
			rv_fatal(ctx, "rdma_resolve_addr %s: %s", ctx->cfg.addr, strerror(errno));
			return -1;
		}
		if (rv_wait_cm(ctx, c->ec, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, 10000))
			return -1;
		rdma_ack_cm_event(ev);
		if (rdma_resolve_route(cq->id, 5000)) {
			rv_fatal(ctx, "rdma_resolve_route: %s", strerror(errno));
			return -1;
		}
		if (rv_wait_cm(ctx, c->ec, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, 10000))
			return -1;
		rdma_ack_cm_event(ev);
		if (!c->pd) {
			if (rv_check_odp_caps(ctx, cq->id->verbs))
				return -1;
			snprintf(ctx->dev, sizeof(ctx->dev), "%s",
				 ibv_get_device_name(cq->id->verbs->device));
			c->pd = ibv_alloc_pd(cq->id->verbs);
			c->cc = ibv_create_comp_channel(cq->id->verbs);
			if (!c->pd || !c->cc || ibv_query_device(cq->id->verbs, &c->dattr)) {
				rv_fatal(ctx, "client: PD/completion channel: %s", strerror(errno));
				return -1;
			}
		}
		cq->src = rv_buf_new(ctx, c->pd, ROLE_SRC, q);
		cq->dst = cq->src ? rv_buf_new(ctx, c->pd, ROLE_DST, q) : NULL;
		if (!cq->dst)
			return -1;
		cq->cq = ibv_create_cq(cq->id->verbs, 8 * ctx->cfg.window + 32, cq, c->cc, 0);
		if (!cq->cq || ibv_req_notify_cq(cq->cq, 0)) {
			rv_fatal(ctx, "client: ibv_create_cq: %s", strerror(errno));
			return -1;
		}
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = cq->cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 3 * ctx->cfg.window + 8;
		qa.cap.max_recv_wr = 2 * ctx->cfg.window + 8;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(cq->id, c->pd, &qa)) {
			rv_fatal(ctx, "client: rdma_create_qp: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < ctx->cfg.window + 1; i++)
			if (rv_post_recv(ctx, cq->id->qp, cq->dst, q))
				return -1;
		memset(&h, 0, sizeof(h));
		h.magic = RV_MAGIC;
		h.qp_index = q;
		h.nqps = ctx->cfg.qps;
		h.window = ctx->cfg.window;
		h.nslots = cq->nslots;
		h.block = (uint32_t)ctx->cfg.block;
		h.ops = rv_ops_to_wire(&ctx->cfg);
		memset(&cp, 0, sizeof(cp));
		cp.private_data = &h;
		cp.private_data_len = sizeof(h);
		cp.initiator_depth = (uint8_t)((int)ctx->cfg.window < c->dattr.max_qp_init_rd_atom ?
					       (int)ctx->cfg.window : c->dattr.max_qp_init_rd_atom);
		cp.responder_resources = 1;
		cp.retry_count = 7;
		cp.rnr_retry_count = 7;
		if (rv_set_ack_timeout(ctx, cq->id))
			return -1;
		if (rdma_connect(cq->id, &cp)) {
			rv_fatal(ctx, "rdma_connect: %s", strerror(errno));
			return -1;
		}
		/* The server sets up the QP's buffers before it accepts: under
		 * its cgroup limit that is swapping, and on a loaded host it
		 * took more than 20 s.  Wait as long as the server waits for
		 * all QPs (--stall); rdma_cm's own REQ/MRA timeouts still end a
		 * connection to a server that is gone. */
		t0 = rv_now();
		if (rv_wait_cm(ctx, c->ec, RDMA_CM_EVENT_ESTABLISHED, &ev,
			       (int)ctx->cfg.stall * 1000))
			return -1;
		if (rv_now() - t0 > 10)
			fprintf(stderr, "%s: client: qp %u took %.1f s to connect\n", ctx->prog, q,
				rv_now() - t0);
		memset(&wl, 0, sizeof(wl));
		if (ev->param.conn.private_data_len >= sizeof(wl))
			memcpy(&wl, ev->param.conn.private_data, sizeof(wl));
		rdma_ack_cm_event(ev);
		if (wl.magic != RV_MAGIC) {
			rv_fatal(ctx, "client: the server's answer is not from reclaim-verify");
			return -1;
		}
		cq->tgt_addr = wl.tgt_addr;
		cq->tgt_rkey = wl.tgt_rkey;
		cq->atom_addr = wl.atom_addr;
		cq->atom_rkey = wl.atom_rkey;
		cq->srv_flags = wl.flags;
	}
	rv_set_nonblock(c->ec->fd);
	rv_set_nonblock(c->cc->fd);
	return 0;
}

void *rv_client_main(void *arg)
{
	struct rv_client *c = arg;
	struct rv_ctx *ctx = c->ctx;
	struct ibv_wc wc[32];
	unsigned q;

	atomic_store(&ctx->traffic_started, true);
	for (q = 0; q < ctx->cfg.qps; q++)
		cli_pump(&c->qp[q]);
	while (c->ndone < ctx->cfg.qps && !atomic_load(&ctx->failed)) {
		struct pollfd pfd[2] = { { .fd = c->cc->fd, .events = POLLIN },
					 { .fd = c->ec->fd, .events = POLLIN } };
		struct rdma_cm_event *ev;
		struct ibv_cq *cq;
		void *cqctx;

		poll(pfd, 2, 100);
		while (!rdma_get_cm_event(c->ec, &ev)) {
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				for (q = 0; q < ctx->cfg.qps; q++)
					if (c->qp[q].id == ev->id && !c->qp[q].fin_done &&
					    !c->qp[q].dead) {
						fprintf(stderr, "%s: client: qp %u disconnected by the server\n",
							ctx->prog, q);
						c->qp[q].dead = true;
						cli_done(c, &c->qp[q]);
					}
			rdma_ack_cm_event(ev);
		}
		while (!ibv_get_cq_event(c->cc, &cq, &cqctx)) {
			ibv_ack_cq_events(cq, 1);
			ibv_req_notify_cq(cq, 0);
		}
		for (q = 0; q < ctx->cfg.qps; q++) {
			int n, k;

			while ((n = ibv_poll_cq(c->qp[q].cq, 32, wc)) > 0)
				for (k = 0; k < n; k++)
					cli_completion(c, &wc[k]);
			cli_pump(&c->qp[q]);
		}
	}
	atomic_store(&ctx->client_done, true);
	return NULL;
}

void rv_client_cleanup(struct rv_client *c)
{
	unsigned q;

	for (q = 0; q < RV_MAXQP; q++) {
		struct rv_cqp *cq = &c->qp[q];

		if (!cq->id)
			continue;
		rv_conn_destroy(cq->id, cq->cq);
		rv_buf_free(cq->src);
		rv_buf_free(cq->dst);
	}
	rv_implicit_release(c->ctx, c->pd);
	rv_dev_release(c->cc, c->pd, c->ec);
}

