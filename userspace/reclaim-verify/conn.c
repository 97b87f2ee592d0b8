// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's connection set-up helpers: the address to bind or
 * connect to, waiting for an rdma_cm event, and the device's ODP
 * capabilities, and taking a connection and its device down again. Calls
 * only common.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "traffic.h"

int rv_get_addr(struct rv_ctx *ctx, const char *host, unsigned port, bool passive,
		struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) }, *ai;
	char ps[16];
	int rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc) {
		rv_fatal(ctx, "address '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

int rv_wait_cm(struct rv_ctx *ctx, struct rdma_event_channel *ec,
	       enum rdma_cm_event_type want, struct rdma_cm_event **out, int timeout_ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, timeout_ms) <= 0) {
		rv_fatal(ctx, "rdma_cm: timed out waiting for %s", rdma_event_str(want));
		return -1;
	}
	if (rdma_get_cm_event(ec, &ev)) {
		rv_fatal(ctx, "rdma_get_cm_event: %s", strerror(errno));
		return -1;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED && ev->status == 8) {
		/* IB CM reject reason 8: invalid service ID, nobody listens there */
		rv_fatal(ctx, "rdma_cm: connection rejected: no reclaim-verify server listening at %s port %u (start it first)",
			 ctx->cfg.addr, ctx->cfg.port);
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (ev->event != want) {
		rv_fatal(ctx, "rdma_cm: got %s (status %d) while waiting for %s",
			 rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	*out = ev;
	return 0;
}

void rv_set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int rv_check_odp_caps(struct rv_ctx *ctx, struct ibv_context *vctx)
{
	struct ibv_device_attr_ex ax;
	uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC;

	if (ctx->cfg.mr == RV_MR_PINNED)
		return 0;
	memset(&ax, 0, sizeof(ax));
	if (ibv_query_device_ex(vctx, NULL, &ax)) {
		rv_fatal(ctx, "ibv_query_device_ex: %s", strerror(errno));
		return -1;
	}
	if (!(ax.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (ax.odp_caps.per_transport_caps.rc_odp_caps & need) != need) {
		rv_fatal(ctx, "%s has no On-Demand Paging for RC SEND/RECV/WRITE/READ/ATOMIC "
			 "(general caps %#llx, rc caps %#x): load an ODP-capable driver or use --pinned",
			 ibv_get_device_name(vctx->device),
			 (unsigned long long)ax.odp_caps.general_caps,
			 ax.odp_caps.per_transport_caps.rc_odp_caps);
		return -1;
	}
	if (ctx->cfg.implicit && !(ax.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT)) {
		rv_fatal(ctx, "%s has On-Demand Paging but no implicit ODP (general caps %#llx): "
			 "drop --implicit",
			 ibv_get_device_name(vctx->device),
			 (unsigned long long)ax.odp_caps.general_caps);
		return -1;
	}
	return 0;
}

/* --ack-timeout: the Local ACK Timeout of the QP behind ID (before connect/accept). */
int rv_set_ack_timeout(struct rv_ctx *ctx, struct rdma_cm_id *id)
{
	uint8_t t;

	if (ctx->cfg.ack_timeout < 0)
		return 0;
	t = (uint8_t)ctx->cfg.ack_timeout;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t))) {
		rv_fatal(ctx, "rdma_set_option(ACK_TIMEOUT %u): %s", t, strerror(errno));
		return -1;
	}
	return 0;
}

void rv_conn_destroy(struct rdma_cm_id *id, struct ibv_cq *cq)
{
	if (id->qp) {
		rdma_disconnect(id);
		rdma_destroy_qp(id);
	}
	if (cq)
		ibv_destroy_cq(cq);
	rdma_destroy_id(id);
}

void rv_dev_release(struct ibv_comp_channel *cc, struct ibv_pd *pd,
		    struct rdma_event_channel *ec)
{
	if (cc)
		ibv_destroy_comp_channel(cc);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ec)
		rdma_destroy_event_channel(ec);
}
