// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's server: accepts the client's QPs, lends it write-target
 * slots, checks each written block and message with the CPU and answers
 * with a patterned acknowledgement. Calls buffers.c, xfer.c, conn.c and
 * common.c, never the client or main.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

int rv_server_start(struct rv_ctx *ctx, struct rv_server *s)
{
	struct sockaddr_storage ss;

	s->ctx = ctx;
	s->ec = rdma_create_event_channel();
	if (!s->ec) {
		rv_fatal(ctx, "rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
		return -1;
	}
	if (rdma_create_id(s->ec, &s->listen, s, RDMA_PS_TCP)) {
		rv_fatal(ctx, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (rv_get_addr(ctx, ctx->cfg.addr, ctx->cfg.port, true, &ss))
		return -1;
	if (rdma_bind_addr(s->listen, (struct sockaddr *)&ss)) {
		rv_fatal(ctx, "rdma_bind_addr %s:%u: %s", ctx->cfg.addr, ctx->cfg.port, strerror(errno));
		return -1;
	}
	if (rdma_listen(s->listen, RV_MAXQP)) {
		rv_fatal(ctx, "rdma_listen: %s", strerror(errno));
		return -1;
	}
	rv_set_nonblock(s->ec->fd);
	atomic_store(&s->ready, true);
	return 0;
}

static void srv_ack(struct rv_sqp *sq, uint64_t n, enum pat_class ct, enum pat_class cm)
{
	struct rv_ctx *ctx = sq->ctx;
	uint32_t imm = (uint32_t)(n & ACK_N_MASK) | ((uint32_t)ct << 24) | ((uint32_t)cm << 28);
	int m = NOSLOT;
	void *addr = NULL;
	uint32_t len = 0;

	if (op_on(ctx, RV_OP_SEND)) {
		m = rv_slot_alloc(sq->acksrc);
		addr = rv_slot_ptr(sq->acksrc, m);
		len = (uint32_t)ctx->cfg.block;
		pthread_rwlock_rdlock(&sq->acksrc->fill);
		pat_fill(addr, len, stream_of(sq->q, ST_S2C), 0, n);
		pthread_rwlock_unlock(&sq->acksrc->fill);
		atomic_fetch_add(&sq->acksrc->inflight, 1);
	}
	rv_post_send(ctx, sq->id->qp, WRID(sq->q, WK_SEND, m, n), IBV_WR_SEND_WITH_IMM, addr, len,
		     sq->acksrc->mr, 0, 0, imm, 0, 0);
}

static void srv_notice(struct rv_sqp *sq, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = sq->ctx;
	uint32_t imm = ntohl(wc->imm_data);
	int rs = WRID_SLOT(wc->wr_id);
	unsigned W = sq->h.window, S = sq->h.nslots, ts;
	uint64_t n = sq->next_n;
	enum pat_class ct = PAT_OK, cm = PAT_OK;

	atomic_fetch_sub(&sq->rcv->inflight, 1);
	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		rv_fatal(ctx, "server qp %u: message without immediate data", sq->q);
		sq->dead = true;
		return;
	}
	if (imm & IMM_FIN) {
		rv_slot_free(sq->rcv, rs);
		sq->fin = true;
		rv_post_send(ctx, sq->id->qp, WRID(sq->q, WK_FINSEND, NOSLOT, 0), IBV_WR_SEND_WITH_IMM,
			     NULL, 0, NULL, 0, 0, ACK_FIN, 0, 0);
		return;
	}
	if ((imm & IMM_N_MASK) != (n & IMM_N_MASK)) {
		rv_fatal(ctx, "server qp %u: notice for transaction %u, expected %llu", sq->q,
			 imm & IMM_N_MASK, (unsigned long long)n);
		sq->dead = true;
		return;
	}
	ts = (unsigned)(n % S);
	if (op_on(ctx, RV_OP_WRITE)) {
		bool pinned = sq->tgt->pinned || (imm & IMM_SRC_PINNED);

		ct = rv_verify(ctx, W_TGT, rv_slot_ptr(sq->tgt, (int)ts), ctx->cfg.block,
			       stream_of(sq->q, ST_TGT), (uint64_t)ts * ctx->cfg.block, n, pinned,
			       "target slot", sq->q);
	}
	if (op_on(ctx, RV_OP_SEND)) {
		bool pinned = sq->rcv->pinned || (imm & IMM_MSG_PINNED);

		if (wc->byte_len != ctx->cfg.block) {
			rv_fatal(ctx, "server qp %u: message of %u bytes, expected %zu", sq->q,
				 wc->byte_len, ctx->cfg.block);
			sq->dead = true;
			return;
		}
		cm = rv_verify(ctx, W_RCV, rv_slot_ptr(sq->rcv, rs), ctx->cfg.block,
			       stream_of(sq->q, ST_C2S), 0, n, pinned, "message", sq->q);
	}
	atomic_fetch_add(&ctx->st.bytes, wc->byte_len);
	rv_slot_free(sq->rcv, rs);
	rv_post_recv(ctx, sq->id->qp, sq->rcv, sq->q);
	/* Transaction n is over: its slot goes home, the client may start n+W. */
	rv_slot_return(sq->tgt, ts);
	rv_slot_take(sq->tgt, (unsigned)((n + W) % S));
	sq->next_n++;
	if (ctx->cfg.mode == RV_SERVER)
		atomic_fetch_add(&ctx->st.txns, 1);
	srv_ack(sq, n, ct, cm);
}

/* Count a server QP as finished once (FIN received or dead). */
static void srv_done(struct rv_server *s, struct rv_sqp *sq)
{
	if ((sq->fin || sq->dead) && !sq->counted) {
		sq->counted = true;
		s->nfin++;
	}
}

static void srv_completion(struct rv_server *s, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = s->ctx;
	unsigned q = WRID_Q(wc->wr_id);
	struct rv_sqp *sq;

	if (q >= RV_MAXQP || !s->qp[q].used)
		return;
	sq = &s->qp[q];
	if (wc->status != IBV_WC_SUCCESS) {
		rv_count_error(ctx, wc, "server", &sq->err_seen);
		sq->dead = true;
		srv_done(s, sq);
		return;
	}
	atomic_fetch_add(&ctx->completions, 1);
	switch (WRID_K(wc->wr_id)) {
	case WK_RECV:
		atomic_fetch_add(&ctx->st.ops[WK_RECV], 1);
		srv_notice(sq, wc);
		srv_done(s, sq);
		break;
	case WK_SEND:
		atomic_fetch_add(&ctx->st.ops[WK_SEND], 1);
		if (WRID_SLOT(wc->wr_id) != NOSLOT) {
			atomic_fetch_sub(&sq->acksrc->inflight, 1);
			rv_slot_free(sq->acksrc, WRID_SLOT(wc->wr_id));
		}
		break;
	default:
		break;
	}
}

static int srv_connect_request(struct rv_server *s, struct rdma_cm_event *ev)
{
	struct rv_ctx *ctx = s->ctx;
	struct rdma_cm_id *id = ev->id;
	struct rv_hello h;
	struct rv_welcome wl;
	struct rv_sqp *sq;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	unsigned i;

	memset(&h, 0, sizeof(h));
	if (ev->param.conn.private_data_len >= sizeof(h))
		memcpy(&h, ev->param.conn.private_data, sizeof(h));
	if (h.magic != RV_MAGIC || h.qp_index >= RV_MAXQP || h.nqps < 1 || h.nqps > RV_MAXQP ||
	    h.qp_index >= h.nqps || h.window < 1 || h.window > 64 ||
	    h.nslots < 2 * h.window || h.block != ctx->cfg.block || s->qp[h.qp_index].used) {
		fprintf(stderr, "%s: server: rejecting a connection (not ours, or block size %u != ours %zu: pass the same --block)\n",
			ctx->prog, h.block, ctx->cfg.block);
		rdma_reject(id, NULL, 0);
		return 0;
	}
	if (!s->pd) {
		if (rv_check_odp_caps(ctx, id->verbs))
			return -1;
		snprintf(ctx->dev, sizeof(ctx->dev), "%s", ibv_get_device_name(id->verbs->device));
		s->pd = ibv_alloc_pd(id->verbs);
		s->cc = ibv_create_comp_channel(id->verbs);
		if (!s->pd || !s->cc || ibv_query_device(id->verbs, &s->dattr)) {
			rv_fatal(ctx, "server: PD/completion channel: %s", strerror(errno));
			return -1;
		}
		rv_set_nonblock(s->cc->fd);
		s->nqps = h.nqps;
		s->t_first = rv_now();
	}
	/* The client's parameters decide the window and the target size. */
	ctx->cfg.window = h.window;
	ctx->cfg.qps = h.nqps;
	ctx->cfg.target = (size_t)h.nslots * ctx->cfg.block;
	rv_ops_from_wire(&ctx->cfg, h.ops);
	sq = &s->qp[h.qp_index];
	memset(sq, 0, sizeof(*sq));
	sq->ctx = ctx;
	sq->id = id;
	sq->q = h.qp_index;
	sq->h = h;
	sq->next_n = 1;
	sq->tgt = rv_buf_new(ctx, s->pd, ROLE_TGT, sq->q);
	sq->rcv = sq->tgt ? rv_buf_new(ctx, s->pd, ROLE_RCV, sq->q) : NULL;
	sq->acksrc = sq->rcv ? rv_buf_new(ctx, s->pd, ROLE_ACKSRC, sq->q) : NULL;
	sq->atom = sq->acksrc ? rv_buf_new(ctx, s->pd, ROLE_ATOM, sq->q) : NULL;
	if (!sq->atom)
		return -1;
	sq->cq = ibv_create_cq(id->verbs, 8 * h.window + 32, sq, s->cc, 0);
	if (!sq->cq || ibv_req_notify_cq(sq->cq, 0)) {
		rv_fatal(ctx, "server: ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = sq->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 3 * h.window + 8;
	qa.cap.max_recv_wr = 2 * h.window + 8;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, s->pd, &qa)) {
		rv_fatal(ctx, "server: rdma_create_qp: %s", strerror(errno));
		return -1;
	}
	sq->used = true;
	for (i = 0; i < h.window + 1; i++)
		if (rv_post_recv(ctx, id->qp, sq->rcv, sq->q))
			return -1;
	/* Lend the first window of target slots; the atomic counters are always in use. */
	for (i = 1; i <= h.window; i++)
		rv_slot_take(sq->tgt, i % h.nslots);
	atomic_store(&sq->atom->inflight, (int)h.window);
	memset(&wl, 0, sizeof(wl));
	wl.magic = RV_MAGIC;
	wl.flags = (sq->tgt->pinned << ROLE_TGT) | (sq->rcv->pinned << ROLE_RCV) |
		   (sq->acksrc->pinned << ROLE_ACKSRC) | (sq->atom->pinned << ROLE_ATOM);
	wl.tgt_addr = (uintptr_t)sq->tgt->base;
	wl.tgt_rkey = sq->tgt->mr->rkey;
	wl.atom_addr = (uintptr_t)sq->atom->base;
	wl.atom_rkey = sq->atom->mr->rkey;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &wl;
	cp.private_data_len = sizeof(wl);
	cp.responder_resources = ev->param.conn.initiator_depth;
	if (cp.responder_resources > s->dattr.max_qp_rd_atom)
		cp.responder_resources = (uint8_t)s->dattr.max_qp_rd_atom;
	cp.initiator_depth = 1;
	cp.rnr_retry_count = 7;
	if (rv_set_ack_timeout(ctx, id))
		return -1;
	if (rdma_accept(id, &cp)) {
		rv_fatal(ctx, "server: rdma_accept: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* How many of the client's QPs are connected (RDMA_CM_EVENT_ESTABLISHED). */
static unsigned int srv_established(const struct rv_server *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < RV_MAXQP; i++)
		n += s->qp[i].used && s->qp[i].established;
	return n;
}

static int srv_cm_events(struct rv_server *s)
{
	struct rdma_cm_event *ev;
	struct rv_ctx *ctx = s->ctx;
	unsigned i;

	while (!rdma_get_cm_event(s->ec, &ev)) {
		int rc = 0;

		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			double t0 = rv_now();

			rc = srv_connect_request(s, ev);
			/* the client waits --stall seconds for this; say when it was slow */
			if (rv_now() - t0 > 10)
				fprintf(stderr, "%s: server: setting up a QP took %.1f s\n", ctx->prog,
					rv_now() - t0);
			break;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			for (i = 0; i < RV_MAXQP; i++)
				if (s->qp[i].used && s->qp[i].id == ev->id)
					s->qp[i].established = true;
			/* The client starts its traffic once all its QPs are
			 * connected; so do the reclaim thread and the stall
			 * clock here.  Reclaim (a fork under the cgroup limit)
			 * while later QPs still connect can hold the server up
			 * past the client's wait for ESTABLISHED; its
			 * rdma_create_qp() then fails with EINVAL. */
			if (srv_established(s) == s->nqps)
				atomic_store(&ctx->traffic_started, true);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			for (i = 0; i < RV_MAXQP; i++)
				if (s->qp[i].used && s->qp[i].id == ev->id && !s->qp[i].fin &&
				    !s->qp[i].dead) {
					fprintf(stderr, "%s: server: qp %u disconnected before FIN\n",
						ctx->prog, i);
					s->qp[i].dead = true;
					srv_done(s, &s->qp[i]);
				}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		if (rc)
			return rc;
	}
	return 0;
}

void *rv_server_main(void *arg)
{
	struct rv_server *s = arg;
	struct rv_ctx *ctx = s->ctx;
	struct ibv_wc wc[32];

	for (;;) {
		struct pollfd pfd[2] = { { .fd = s->ec->fd, .events = POLLIN },
					 { .fd = s->cc ? s->cc->fd : -1, .events = POLLIN } };

		if (s->nqps && s->nfin >= s->nqps)
			break;
		if (s->nqps && !atomic_load(&ctx->traffic_started) &&
		    rv_now() - s->t_first > ctx->cfg.stall) {
			rv_fatal(ctx, "server: %u of %u QPs connected %u s after the first request",
				 srv_established(s), s->nqps, ctx->cfg.stall);
			s->rc = -1;
			break;
		}
		if (atomic_load(&ctx->failed) && ctx->cfg.mode != RV_LOOPBACK)
			break;
		/* in one process, a client QP that died never sends its FIN */
		if (atomic_load(&ctx->client_done))
			break;
		poll(pfd, 2, 100);
		if (srv_cm_events(s)) {
			s->rc = -1;
			atomic_store(&ctx->failed, 1);
			break;
		}
		if (s->cc) {
			struct ibv_cq *cq;
			void *cqctx;

			while (!ibv_get_cq_event(s->cc, &cq, &cqctx)) {
				ibv_ack_cq_events(cq, 1);
				ibv_req_notify_cq(cq, 0);
			}
			for (unsigned i = 0; i < RV_MAXQP; i++) {
				int n, k;

				if (!s->qp[i].used)
					continue;
				while ((n = ibv_poll_cq(s->qp[i].cq, 32, wc)) > 0)
					for (k = 0; k < n; k++)
						srv_completion(s, &wc[k]);
			}
		}
	}
	return NULL;
}

void rv_server_cleanup(struct rv_server *s)
{
	unsigned i;

	for (i = 0; i < RV_MAXQP; i++) {
		struct rv_sqp *sq = &s->qp[i];

		if (!sq->used)
			continue;
		rv_conn_destroy(sq->id, sq->cq);
		rv_buf_free(sq->tgt);
		rv_buf_free(sq->rcv);
		rv_buf_free(sq->acksrc);
		rv_buf_free(sq->atom);
	}
	if (s->listen)
		rdma_destroy_id(s->listen);
	rv_implicit_release(s->ctx, s->pd);
	rv_dev_release(s->cc, s->pd, s->ec);
}
